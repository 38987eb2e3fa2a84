"""What the three reproduction-evidence loaders share (``artifact-evaluation``, ``rescience``,
``re-execution``): papers minted without DOI, links, one way to write an assessment, and
the summary of a load.

As docs/architecture.md, Design decisions, Papers, artifacts and assessments, says: a paper
is its DOI IRI; without one it is minted from venue, year and normalised title
(:func:`minted_paper`), and two records are the same paper only on a shared identifier.
Every outcome is a ``rk:ReproductionAssessment`` (:class:`Assessment`), whose outcome is a
concept of ``rk:ReproductionOutcomeScheme``. A malformed record becomes a document holding
only a located Violation (:func:`rejected_record`): validation rejects it, nothing of it is
written, and the other records of the file are stored; each loader reports what it
normalised and skipped in a :class:`~reprokg.loaders.reading.summary.LoadSummary`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from rdflib import RDF, RDFS, Graph, Literal, URIRef
from rdflib.namespace import PROV, XSD

from reprokg.core.document import Document, Message
from reprokg.core.errors import IdentifierError
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import doi_iri, mint, repair_doi
from reprokg.core.namespaces import RK, SCHEMA, new_graph
from reprokg.core.swhid import EXPECTED, Swhid, parse_swhid
from reprokg.loaders.reading.contract import LoaderInfo
from reprokg.loaders.reading.summary import LoadSummary

_URL_RE = re.compile(r"^https?://[^\s<>\"{}|\\^`]+$", re.IGNORECASE)
_DOI_URL_RE = re.compile(
    r"^(?:https?://)?(?:dx\.)?doi\.org/(10\.\S+)$|"
    r"^https?://dl\.acm\.org/doi/(?:(?:pdf|abs|full|epdf|fullHtml)/)?(10\.\d{4,9}/\S+?)/?$|"
    r"^(?:doi:\s*)?(10\.\d{4,9}/\S+)$",
    re.IGNORECASE,
)

#: outcome concepts by the slug the web and the named query use
OUTCOMES: dict[str, URIRef] = {
    "reproduced": RK.OutcomeReproduced,
    "partially-reproduced": RK.OutcomePartiallyReproduced,
    "not-reproduced": RK.OutcomeNotReproduced,
    "inconclusive": RK.OutcomeInconclusive,
    "not-attempted": RK.OutcomeNotAttempted,
}
SLUGS: dict[str, str] = {str(v): k for k, v in OUTCOMES.items()}


def normalise_title(title: str) -> str:
    """Lower-case, accents folded, everything but letters and digits one space: the key of a
    paper minted without DOI, and the evidence of a candidate match."""
    text = unicodedata.normalize("NFKD", title)
    text = "".join(c for c in text if not unicodedata.combining(c)).casefold()
    return " ".join(re.findall(r"[^\W_]+", text))


def minted_paper(venue: str, year: int | str, title: str) -> URIRef:
    """The IRI of a paper without DOI: minted from venue, year and normalised title."""
    return mint(
        "publication",
        stable_key("venue-year-title", venue.casefold(), year, normalise_title(title)),
    )


def paper_doi(url: str | None) -> str | None:
    """The DOI a paper link carries (``https://doi.org/…``, ``dl.acm.org/doi/pdf/…``, a bare
    ``10.…``), or ``None``."""
    if not url:
        return None
    m = _DOI_URL_RE.match(url.strip())
    if not m:
        return None
    doi = next(g for g in m.groups() if g)
    return doi.rstrip(".,;") if _is_doi(doi) else None


def read_doi(
    text: str,
    *,
    field: str,
    record: str,
    line: int | None,
    messages: list[Message],
    summary: LoadSummary | None = None,
    node: str | None = None,
) -> URIRef | None:
    """A source's DOI field as its DOI IRI through :func:`~reprokg.core.identifiers.repair_doi`
    (the one repair every evidence loader uses): repaired with a Warning naming ``record``
    (and the summary's *normalised*), else ``None`` with a Warning saying why (and the
    summary's *normalised* as "not a DOI"); an empty field is ``None`` without a word."""
    r = repair_doi(text)
    written = text.strip()
    if r.doi is None:
        if r.problem:
            messages.append(
                Message("Warning", field, f"{record}: {r.problem}; kept as written", node,
                        written, line)
            )  # fmt: skip
            if summary is not None:
                summary.normal(field, written, "not a DOI (kept as written, reported)")
        return None
    if r.repair:
        messages.append(
            Message("Warning", field, f"{record}: DOI {written!r} repaired to {r.doi} "
                    f"({r.repair})", node, written, line)
        )  # fmt: skip
        if summary is not None:
            summary.normal(field, written, f"DOI {r.doi} (repaired: {r.repair})")
    return doi_iri(r.doi)


def read_swhid(
    g: Graph,
    node: URIRef,
    text: str,
    *,
    field: str,
    record: str,
    line: int | None,
    messages: list[Message],
) -> Swhid | None:
    """A SWHID a source records for ``node``'s code (core or qualified, as written or behind
    the archive's resolver; :func:`~reprokg.core.swhid.parse_swhid`): ``node
    rk:softwareHeritageCode`` the archive's IRI of the core SWHID, a
    ``schema:SoftwareSourceCode`` whose ``schema:identifier`` is the core SWHID — the node
    two sources recording one SWHID share. Malformed: ``None`` and a Warning naming the
    record, the field and the form expected (the caller keeps the text as written)."""
    try:
        swhid = parse_swhid(text)
    except IdentifierError as e:
        said = str(e) if "expected" in str(e) else f"{e} (expected {EXPECTED})"
        messages.append(
            Message("Warning", field, f"{record}: {field}: {said}; kept as written", str(node),
                    text.strip(), line)
        )  # fmt: skip
        return None
    code = URIRef(swhid.iri)
    g.add((node, RK.softwareHeritageCode, code))
    g.add((code, RDF.type, SCHEMA.SoftwareSourceCode))
    g.add((code, SCHEMA.identifier, Literal(swhid.core)))
    return swhid


def _is_doi(text: str) -> bool:
    try:
        doi_iri(text)
    except IdentifierError:
        return False
    return True


def link(text: str | None) -> URIRef | None:
    """A location as an IRI: a DOI (bare or as a doi.org URL) as its DOI IRI, an http(s) URL as
    itself; anything else ``None`` (kept as written by the caller)."""
    if not text:
        return None
    text = text.strip()
    doi = paper_doi(text) if "doi" in text.lower() or text.startswith("10.") else None
    if doi:
        return doi_iri(doi)
    return URIRef(text) if _URL_RE.match(text) else None


def typed_year(year: int) -> Literal:
    return Literal(f"{year:04d}", datatype=XSD.gYear)


def describe_source(g: Graph, source: URIRef) -> None:
    """The evidence source node typed in the document (shapes check ``sh:class``)."""
    g.add((source, RDF.type, RK.EvidenceSource))


def agent(g: Graph, key: str, name: str, *, organisation: bool = True) -> URIRef:
    """An assessor agent minted from ``key`` (a committee, a journal, a study's pipeline)."""
    node = mint("agent", stable_key("assessor", key))
    g.add((node, RDF.type, PROV.Agent))
    g.add((node, RDF.type, SCHEMA.Organization if organisation else PROV.SoftwareAgent))
    g.add((node, RDFS.label, Literal(name)))
    g.add((node, SCHEMA.name, Literal(name)))
    return node


@dataclass
class Assessment:
    """One reproduction assessment, written by :meth:`add_to` the same way by every loader."""

    node: URIRef
    outcome: URIRef
    method: URIRef
    assessor: URIRef
    source: URIRef
    work: URIRef | None = None
    report: URIRef | None = None
    kind: URIRef | None = None
    date: Literal | None = None
    as_written: str | None = None
    note: str | None = None
    claim: str | None = None
    evidence: list[URIRef] = field(default_factory=list)
    artifact: URIRef | None = None
    venue: str | None = None
    year: int | None = None

    def add_to(self, g: Graph) -> URIRef:
        n = self.node
        g.add((n, RDF.type, RK.ReproductionAssessment))
        g.add((n, RDF.type, PROV.Entity))
        g.add((n, RK.outcome, self.outcome))
        g.add((n, RK.assessmentMethod, self.method))
        g.add((n, PROV.wasAttributedTo, self.assessor))
        g.add((n, RK.evidenceSource, self.source))
        describe_source(g, self.source)
        for prop, value in (
            (RK.assessedWork, self.work),
            (RK.reproductionReport, self.report),
            (RK.reproductionKind, self.kind),
            (RK.assessmentDate, self.date),
            (RK.evaluatedArtifact, self.artifact),
        ):
            if value is not None:
                g.add((n, prop, value))
        for prop, text in (
            (RK.outcomeAsWritten, self.as_written),
            (RK.evidenceNote, self.note),
            (RK.assessedClaim, self.claim),
            (RK.evaluationVenue, self.venue),
        ):
            if text:
                g.add((n, prop, Literal(text)))
        if self.year is not None:
            g.add((n, RK.evaluationYear, Literal(self.year)))
        for e in self.evidence:
            g.add((n, RK.evidence, e))
        return n


def rejected_record(
    info: LoaderInfo,
    *,
    name: str,
    source: bytes,
    key: str,
    path: str,
    message: str,
    line: int | None,
    value: str | None = None,
) -> Document:
    """A malformed record as a document holding only its located Violation: validation
    rejects it (nothing is written) while the file's other records are stored."""
    return info.document(
        new_graph(),
        source_name=name,
        source_bytes=source,
        source_key=key,
        messages=[Message("Violation", path, message, None, value, line)],
    )
