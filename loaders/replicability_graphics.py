"""Code-replicability reviews of computer-graphics papers (seed 001, replicability.graphics).

Two JSON formats, one document per paper (its DOI is the join key):

* ``consolidatedData.json`` of Bonneel et al. (SIGGRAPH 2020): a list of 374 review
  records whose keys are the review form's questions verbatim. Scores are ints or
  ``""``/``"N/A"``; ``Deep learning`` is the *string* ``"True"``/``"False"``; multi-select
  answers are comma-joined option labels, some of which contain commas, so they are
  matched against the option lists of :mod:`survey_options`, never split on ``", "``.
* the later per-paper files of the replicability.graphics site: a list of review
  variants of one paper (``per_paper_template.json``; ``##`` keys are comments).

Every key is mapped by the tables below (:data:`CONSOLIDATED`, :data:`PER_PAPER`, also
rendered as ``docs/survey-mapping.md``); values outside an option list are kept as
``…AsWritten`` literals and reported, unknown keys are kept under ``rkx:`` (Info).
"""

# ruff: noqa: E501
from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from rdflib import RDF, XSD, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import PROV
from rdflib.term import Node

import reprokg.loaders.survey_options as opts
from reprokg.core.document import Document, Message
from reprokg.core.errors import IdentifierError, LoadError
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import doi_iri, mint, orcid_iri
from reprokg.core.namespaces import RK, RKX, SCHEMA, new_graph
from reprokg.core.resources import data_dir
from reprokg.core.swhid import RESOLVER
from reprokg.loaders.evidence import read_swhid
from reprokg.loaders.reading.contract import LoaderInfo
from reprokg.loaders.reading.limits import check_json
from reprokg.loaders.reading.source import decode_text, scalar_text

INFO = LoaderInfo(kind="survey", name="reprokg.loaders.replicability_graphics", version="1")

CONSOLIDATED_MARKER = "Is the code or software publicly available ?"
PER_PAPER_MARKER = "Is master variant (boolean)"


# --------------------------------------------------------------------------- context


@dataclass
class _Ctx:
    """What one record's handlers write into: the graph, the nodes, the findings."""

    g: Graph
    review: URIRef
    paper: URIRef
    doi: str | None
    lines: dict[str, int]
    msgs: list[Message] = field(default_factory=list)
    survey: str = ""
    source: str = ""  # the file's name, for a LoadError

    def text(self, key: str, v: Any, field: str | None = None) -> str:
        """A field that must be text (or a number): an object or a list is a located
        :class:`LoadError` (``field``, default ``key``; at ``key``'s line), not its Python
        text (``{'a': 1}``) in the graph."""
        line = self.lines.get(key)
        return scalar_text(v, self.source, field or key, expected="text", line=line) or ""

    def report(
        self,
        severity: str,
        key: str,
        message: str,
        value: object = None,
        node: URIRef | None = None,
    ) -> None:
        self.msgs.append(
            Message(
                severity,
                key,
                message,
                str(node or self.review),
                None if value is None else str(value),
                self.lines.get(key),
            )
        )


Handler = Callable[[_Ctx, str, Any], None]


def _empty(v: Any) -> bool:
    return v is None or (isinstance(v, str) and not v.strip())


def _text(prop: URIRef, on_paper: bool = False) -> Handler:
    def h(c: _Ctx, key: str, v: Any) -> None:
        if _empty(v):
            return
        c.g.add((c.paper if on_paper else c.review, prop, Literal(c.text(key, v).strip())))

    return h


def _url(prop: URIRef, on_paper: bool = False) -> Handler:
    def h(c: _Ctx, key: str, v: Any) -> None:
        if _empty(v) or v == 0:
            return
        s = c.text(key, v).strip()
        node = c.paper if on_paper else c.review
        if re.match(r"^https?:/?/?\S+$", s) and " " not in s:
            c.g.add((node, prop, URIRef(re.sub(r"^(https?):/(?!/)", r"\1://", s))))
        else:
            c.g.add((node, RKX[_slug(key)], Literal(s)))
            c.report(
                "Warning",
                key,
                f"{key!r}: {s!r} is not an http(s) URL; kept as written under rkx:",
                s,
                node,
            )

    return h


def _swh_permalink(prop: URIRef) -> Handler:
    """A Software Heritage permalink: kept as the review's IRI (:func:`_url`) and, when it
    names a SWHID (not the archive's browse page of an origin), read as the code it names
    (``rk:softwareHeritageCode``, :func:`~reprokg.loaders.evidence.read_swhid`; malformed:
    a Warning naming the paper, the field and the form expected)."""
    url = _url(prop)

    def h(c: _Ctx, key: str, v: Any) -> None:
        if _empty(v) or v == 0:
            return
        s = c.text(key, v).strip()
        if re.match(r"^https?://\S+$", s) and not s.startswith(RESOLVER + "swh:"):
            url(c, key, v)  # the archive's browse page of an origin: a link, no SWHID
            return
        if s.startswith("http"):
            url(c, key, v)
        read = read_swhid(c.g, c.review, s, field=key, record=f"paper {c.doi or c.source}",
                          line=c.lines.get(key), messages=c.msgs)  # fmt: skip
        if read is None and not s.startswith("http"):  # e.g. "pending": kept as written
            c.g.add((c.review, RKX[_slug(key)], Literal(s)))

    return h


def _bool(prop: URIRef, on_paper: bool = False) -> Handler:
    """JSON booleans; the strings ``"True"``/``"False"`` (``Deep learning``) too."""

    def h(c: _Ctx, key: str, v: Any) -> None:
        node = c.paper if on_paper else c.review
        if isinstance(v, bool):
            c.g.add((node, prop, Literal(v)))
        elif isinstance(v, str) and v.strip().lower() in ("true", "false"):
            c.g.add((node, prop, Literal(v.strip().lower() == "true")))
        elif not _empty(v):
            c.g.add((node, RKX[_slug(key)], Literal(str(v))))
            c.report(
                "Warning",
                key,
                f"{key!r}: expected true/false, got {v!r}; kept as written under rkx:",
                v,
                node,
            )

    return h


def _yes_no(prop: URIRef) -> Handler:
    def h(c: _Ctx, key: str, v: Any) -> None:
        if _empty(v):
            return
        s = c.text(key, v).strip()
        if s in ("Yes", "No"):
            c.g.add((c.review, prop, Literal(s == "Yes")))
        elif s == opts.CANNOT_ANSWER:
            c.g.add((c.review, RK.notAnswered, Literal(key)))
        else:
            c.g.add((c.review, RKX[_slug(key)], Literal(s)))
            c.report(
                "Warning",
                key,
                f"{key!r}: expected Yes/No/Cannot answer, got {s!r}; kept as written under rkx:",
                s,
            )

    return h


def _int(prop: URIRef, on_paper: bool = False) -> Handler:
    def h(c: _Ctx, key: str, v: Any) -> None:
        if _empty(v):
            return
        node = c.paper if on_paper else c.review
        if isinstance(v, int) and not isinstance(v, bool):
            c.g.add((node, prop, Literal(v)))
        elif isinstance(v, str) and re.fullmatch(r"\s*-?\d+\s*", v):
            c.g.add((node, prop, Literal(int(v))))
        else:
            c.g.add((node, RKX[_slug(key)], Literal(str(v))))
            c.report(
                "Warning",
                key,
                f"{key!r}: expected an integer, got {v!r}; kept as written under rkx:",
                v,
                node,
            )

    return h


def _options(
    prop: URIRef, scheme: str, as_written: URIRef, on_paper: bool = False, single: bool = False
) -> Handler:
    """A (comma-joined) answer matched against one option scheme."""

    def h(c: _Ctx, key: str, v: Any) -> None:
        if _empty(v):
            return
        node = c.paper if on_paper else c.review
        s = c.text(key, v).strip()
        if single:
            hit = opts.labels(scheme).get(s)
            found, unknown = ([hit], []) if hit else ([], [s])
        else:
            found, unknown = opts.split_options(s, scheme)
        for name in found:
            c.g.add((node, prop, opts.concept(name)))
        for seg in unknown:
            if seg == opts.CANNOT_ANSWER:
                c.g.add((c.review, RK.notAnswered, Literal(key)))
                continue
            c.g.add((node, as_written, Literal(seg)))
            c.report(
                "Warning",
                key,
                f"{key!r}: {seg!r} is not one of the form's options; kept as written ({as_written.n3(c.g.namespace_manager)})",
                seg,
                node,
            )

    return h


def _score(prop: URIRef, worst: int, best: int, zero_is_na: bool = False) -> Handler:
    """A typed score node (``rk:Score`` ⊑ ``schema:Rating``); N/A answers keep no value."""

    def h(c: _Ctx, key: str, v: Any) -> None:
        if _empty(v):
            return
        node = mint("score", stable_key(str(c.review), str(prop)))
        c.g.add((c.review, prop, node))
        c.g.add((node, RDF.type, RK.Score))
        c.g.add((node, SCHEMA.worstRating, Literal(worst)))
        c.g.add((node, SCHEMA.bestRating, Literal(best)))
        c.g.add((node, RK.scoreAsWritten, Literal(str(v))))
        n: int | None = None
        if isinstance(v, int) and not isinstance(v, bool):
            n = v
        elif isinstance(v, str) and v.strip().isdigit():
            n = int(v.strip())
        if n is not None and not (zero_is_na and n == 0):
            c.g.add((node, SCHEMA.ratingValue, Literal(n)))
        elif n is not None or (isinstance(v, str) and v.strip().upper().startswith("N/A")):
            c.g.add((node, RK.notApplicable, Literal(True)))
        else:
            c.report(
                "Warning",
                key,
                f"{key!r}: expected an integer {worst}-{best} or N/A, got {v!r}; kept as rk:scoreAsWritten",
                v,
                node,
            )

    return h


def _ignore_empty(c: _Ctx, key: str, v: Any) -> None:
    """Always-empty form columns: a value, if one ever appears, becomes a comment."""
    if not _empty(v):
        c.g.add((c.review, RK.reviewComment, Literal(c.text(key, v))))


def _slug(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", key).strip("_") or "key"


# --------------------------------------------------------------------------- special handlers


def _title(c: _Ctx, key: str, v: Any) -> None:
    if not _empty(v):
        c.g.add((c.paper, SCHEMA.name, Literal(c.text(key, v).strip())))


def _year(c: _Ctx, key: str, v: Any) -> None:
    _int(RK.publicationYear, on_paper=True)(c, key, v)


def _timestamp(c: _Ctx, key: str, v: Any) -> None:
    """``19/01/2020`` (day first) -> review date and citation-count date."""
    if _empty(v):
        return
    m = re.fullmatch(r"\s*(\d{1,2})/(\d{1,2})/(\d{4})\s*", str(v))
    try:
        d = date(int(m.group(3)), int(m.group(2)), int(m.group(1))) if m else None
    except ValueError:
        d = None
    if d is None:
        c.g.add((c.review, RKX[_slug(key)], Literal(str(v))))
        c.report(
            "Warning", key, f"{key!r}: expected a date DD/MM/YYYY, got {v!r}; kept as written", v
        )
        return
    c.g.add((c.review, RK.reviewDate, Literal(d)))
    c.g.add((c.paper, RK.citationCountDate, Literal(d)))


def _code_availability(c: _Ctx, key: str, v: Any) -> None:
    _options(
        RK.codeAvailability, "CodeAvailabilityScheme", RK.codeAvailabilityAsWritten, single=True
    )(c, key, v)
    if not _empty(v):
        s = c.text(key, v).strip()
        c.g.add((c.review, RK.codeShared, Literal(s == "Yes")))
        found = opts.labels("CodeAvailabilityScheme").get(s)
        c.g.add((c.review, RK.pseudoCodeAvailable, Literal(found == "PseudoCodeOnly")))


def _license(c: _Ctx, key: str, v: Any) -> None:
    if _empty(v):
        return
    s = c.text(key, v).strip()
    if s == opts.CANNOT_ANSWER:
        c.g.add((c.review, RK.notAnswered, Literal(key)))
        return
    c.g.add((c.review, RK.licenseAsWritten, Literal(s)))
    hit = opts.labels("LicenseScheme").get(s)
    if hit:
        c.g.add((c.review, RK.license, opts.concept(hit)))
    c.g.add((c.review, RK.licenseSpecified, Literal(hit != "LicenseUnspecified")))


def _dependency_kind(c: _Ctx, key: str, v: Any) -> None:
    _options(RK.dependencyKind, "DependencyKindScheme", RK.dependencyKindAsWritten)(c, key, v)
    if not _empty(v):
        found, _ = opts.split_options(c.text(key, v), "DependencyKindScheme")
        c.g.add((c.review, RK.requiresPaywalledSoftware, Literal("DependencyPaywalled" in found)))


def _test_completed(c: _Ctx, key: str, v: Any) -> None:
    if _empty(v):
        return
    s = c.text(key, v).strip()
    if s == "Yes":
        c.g.add((c.review, RK.testCompleted, Literal(True)))
    elif s == opts.CANNOT_ANSWER:
        c.g.add((c.review, RK.notAnswered, Literal(key)))
    else:
        hit = opts.labels("TestFailureScheme").get(s)
        if hit:
            c.g.add((c.review, RK.testCompleted, Literal(False)))
            c.g.add((c.review, RK.testFailureReason, opts.concept(hit)))
        else:
            c.g.add((c.review, RK.testFailureReasonAsWritten, Literal(s)))
            c.report(
                "Warning",
                key,
                f"{key!r}: {s!r} is not one of the form's options; kept as written",
                s,
            )


def _bug_fix(prop: URIRef, zero_is_na: bool) -> Handler:
    """The bug-fix score, and the derived rk:modificationNeeded (a number = bugs were fixed)."""
    score = _score(prop, 1, 5, zero_is_na=zero_is_na)

    def h(c: _Ctx, key: str, v: Any) -> None:
        score(c, key, v)
        if _empty(v):
            return
        if isinstance(v, int) and not isinstance(v, bool):
            c.g.add((c.review, RK.modificationNeeded, Literal(not (zero_is_na and v == 0))))
        elif isinstance(v, str) and v.strip().upper().startswith("N/A"):
            c.g.add((c.review, RK.modificationNeeded, Literal(False)))

    return h


def _stamp(c: _Ctx, key: str, v: Any) -> None:
    if _empty(v):
        return
    s = c.text(key, v).strip()
    if s.startswith("Yes"):
        c.g.add((c.paper, RK.replicabilityStamp, Literal(True)))
    elif s == "No":
        pass  # false only when the GRSI list does not name it either (see _finish_paper)
    else:
        c.g.add((c.paper, RKX[_slug(key)], Literal(s)))
        c.report(
            "Warning",
            key,
            f"{key!r}: expected 'No' or 'Yes, <url>', got {s!r}; kept as written",
            s,
            c.paper,
        )


def _reviewer_number(c: _Ctx, key: str, v: Any) -> None:
    if _empty(v):
        return
    person = mint("person", stable_key("replicability-graphics-2020-reviewer", c.text(key, v)))
    c.g.add((c.review, RK.reviewer, person))
    c.g.add((person, RDF.type, SCHEMA.Person))
    c.g.add((person, RDF.type, PROV.Agent))
    c.g.add((person, SCHEMA.name, Literal(f"Reviewer {v}")))
    c.g.add((person, SCHEMA.identifier, Literal(c.text(key, v))))


def _reviewer_name(c: _Ctx, key: str, v: Any) -> None:
    """``'Name <email>'``: minted from the e-mail address (a stronger key than a name).

    Without a readable address the reviewer is a person of this review only (people are
    never merged by name alone) and a Warning says so.
    """
    if _empty(v):
        return
    s = c.text(key, v).strip()
    m = re.fullmatch(r"(.*?)\s*<\s*([^<>@\s]+@[^<>\s]+?)\s*>?", s)
    name, email = (m.group(1).strip(), m.group(2).lower()) if m else (s.split("<")[0].strip(), None)
    if email:
        person = mint("person", stable_key("email", email))
    else:
        person = mint("person", stable_key("replicability-graphics-reviewer", c.review, s))
        c.report(
            "Warning",
            key,
            f"{key!r}: no e-mail address in {s!r} (expected 'Name <email>'); "
            "the reviewer cannot be identified across reviews",
            s,
        )
    c.g.add((c.review, RK.reviewer, person))
    c.g.add((person, RDF.type, SCHEMA.Person))
    c.g.add((person, RDF.type, PROV.Agent))
    if name:
        c.g.add((person, SCHEMA.name, Literal(name)))
    if email:
        c.g.add((person, SCHEMA.email, Literal(email)))


def _affiliation_kinds(c: _Ctx, key: str, v: Any) -> None:
    _options(
        RK.authorAffiliationKind,
        "AffiliationKindScheme",
        RK.authorAffiliationKindAsWritten,
        on_paper=True,
    )(c, key, v)
    if not _empty(v):
        found, _ = opts.split_options(c.text(key, v), "AffiliationKindScheme")
        c.g.add((c.paper, RK.hasIndustryAuthor, Literal("AffiliationIndustry" in found)))
        c.g.add((c.paper, RK.hasAcademicAuthor, Literal("AffiliationAcademia" in found)))


def _pdf_availability(c: _Ctx, key: str, v: Any) -> None:
    _options(
        RK.pdfAvailability, "PdfAvailabilityScheme", RK.pdfAvailabilityAsWritten, on_paper=True
    )(c, key, v)
    if not _empty(v) and c.text(key, v).strip() != opts.CANNOT_ANSWER:
        found, _ = opts.split_options(c.text(key, v), "PdfAvailabilityScheme")
        c.g.add((c.paper, RK.onOpenArchive, Literal("PdfOnOpenArchive" in found)))
        c.g.add((c.paper, RK.onAuthorWebsite, Literal("PdfOnAuthorWebsite" in found)))


def _acm_keyword(c: _Ctx, key: str, v: Any) -> None:
    values = v if isinstance(v, list) else [v]
    for i, k in enumerate(values):
        if not _empty(k):
            text = c.text(key, k, f"{key}[{i}]" if isinstance(v, list) else key)
            c.g.add((c.paper, RK.acmKeyword, Literal(text.strip())))


def _altmetric_score(c: _Ctx, key: str, v: Any) -> None:
    if _empty(v) or isinstance(v, bool):
        return
    try:
        c.g.add((c.paper, RK.altmetricScore, Literal(Decimal(str(v)), datatype=XSD.decimal)))
    except InvalidOperation:
        c.g.add((c.paper, RKX[_slug(key)], Literal(str(v))))
        c.report(
            "Warning", key, f"{key!r}: expected a number, got {v!r}; kept as written", v, c.paper
        )


def _authors(c: _Ctx, key: str, v: Any) -> None:
    """Crossref-style author objects, in byline order, as persons (never merged by name)."""
    if not isinstance(v, list):
        if not _empty(v):
            c.report(
                "Warning",
                key,
                f"{key!r}: expected a list of author objects, got {type(v).__name__}",
                v,
                c.paper,
            )
        return
    people: list[Node] = []
    for i, a in enumerate(v, 1):
        if not isinstance(a, dict):
            c.report(
                "Warning", key, f"{key!r}[{i}]: expected an author object, got {a!r}", a, c.paper
            )
            continue
        given = c.text(key, a.get("given"), f"{key}[{i - 1}].given").strip()
        family = c.text(key, a.get("family"), f"{key}[{i - 1}].family").strip()
        orcid = c.text(key, a.get("ORCID") or a.get("orcid"), f"{key}[{i - 1}].ORCID")
        person = None
        if orcid:
            try:
                person = orcid_iri(orcid)
            except IdentifierError:
                person = None
        if person is None:
            person = mint(
                "person",
                stable_key(
                    "replicability-graphics-author", c.doi or str(c.paper), i, given, family
                ),
            )
        if orcid:
            c.g.add((person, RK.orcidAsWritten, Literal(orcid)))
        c.g.add((person, RDF.type, SCHEMA.Person))
        c.g.add((person, RDF.type, PROV.Agent))
        c.g.add((person, SCHEMA.name, Literal(" ".join(p for p in (given, family) if p))))
        if given:
            c.g.add((person, SCHEMA.givenName, Literal(given)))
        if family:
            c.g.add((person, SCHEMA.familyName, Literal(family)))
        affs = a.get("affiliation")
        if not isinstance(affs, list):  # one affiliation as a scalar or object, or none
            affs = [] if _empty(affs) else [affs]
        for aff in affs:
            aname = aff.get("name") if isinstance(aff, dict) else aff
            if not _empty(aname):
                text = c.text(key, aname, f"{key}[{i - 1}].affiliation")
                c.g.add((person, RK.affiliationName, Literal(text.strip())))
        c.g.add((c.paper, SCHEMA.author, person))
        people.append(person)
    if people:
        head = mint("authorlist", stable_key(str(c.paper), c.survey))
        Collection(c.g, head, people)
        c.g.add((c.paper, RK.authorList, head))


# --------------------------------------------------------------------------- key tables

Row = tuple[Handler, str, str]  # handler, RDF target (for the docs), value handling (for the docs)

_SCORE_NOTE = 'int 1–5 → `rk:Score` node: `schema:ratingValue`, `schema:worstRating 1`, `schema:bestRating 5`, `rk:scoreAsWritten`; `"N/A…"` → `rk:notApplicable true`, no value; `""` → nothing'
_SCORE_NOTE_PP = 'int 1–5 → `rk:Score` node (`schema:ratingValue`, worst 1, best 5, `rk:scoreAsWritten`); `0` (= N/A) → `rk:notApplicable true`; `""` → nothing'

CONSOLIDATED: dict[str, Row] = {
    "Timestamp": (
        _timestamp,
        "review `rk:reviewDate`; paper `rk:citationCountDate`",
        "`DD/MM/YYYY` → `xsd:date`",
    ),
    "Title": (_title, "paper `schema:name`", "string"),
    "DOI": (
        lambda c, k, v: None,
        "the paper node IRI `https://doi.org/<lower-cased>`; `rk:doiAsWritten`",
        "DOI as written kept; invalid/missing → minted paper IRI + Warning",
    ),
    "PDF availability (beside dl.acm)": (
        _pdf_availability,
        "paper `rk:pdfAvailability` (PdfAvailabilityScheme), `rk:onOpenArchive`, `rk:onAuthorWebsite`",
        "multi-select matched against option labels; `rk:onOpenArchive` = the arXiv/open-archive option is present",
    ),
    "Is the code or software publicly available ?": (
        _code_availability,
        "review `rk:codeAvailability` (CodeAvailabilityScheme), `rk:codeShared`, `rk:pseudoCodeAvailable`",
        "`rk:codeShared true` iff the answer is exactly `Yes`",
    ),
    "Availability": (
        _options(RK.codeHosting, "CodeHostingScheme", RK.codeHostingAsWritten),
        "review `rk:codeHosting`",
        "multi-select; other answers → `rk:codeHostingAsWritten` + Warning",
    ),
    "Main languages": (
        _options(RK.mainLanguage, "LanguageScheme", RK.mainLanguageAsWritten),
        "review `rk:mainLanguage` (rk:LanguageCpp, rk:LanguagePython, rk:LanguageMatlab, rk:LanguageShader, rk:LanguageOther)",
        "multi-select; `Cannot answer` → `rk:notAnswered`",
    ),
    "How long did take for you to evaluate the code this paper (if any)?": (
        _int(RK.evaluationTimeSlots),
        "review `rk:evaluationTimeSlots`",
        "int, 10-minute slots; 10 = more than 100 min",
    ),
    "Build info / instructions": (
        _options(RK.codeFiles, "CodeFilesScheme", RK.codeFilesAsWritten),
        "review `rk:codeFiles` (README, LICENSE, AUTHORS, CONTRIBUTING, None)",
        "multi-select (labels contain commas)",
    ),
    "arXiv (page URL)": (
        _url(RK.openArchiveURL, on_paper=True),
        "paper `rk:openArchiveURL`",
        "IRI; empty → nothing",
    ),
    "code URL": (_url(RK.codeURL), "review `rk:codeURL`", "IRI"),
    "code URL  2": (_url(RK.codeURL), "review `rk:codeURL` (second value)", "IRI"),
    "PDF URL": (_url(RK.pdfURL, on_paper=True), "paper `rk:pdfURL`", "IRI"),
    "License type": (
        _license,
        "review `rk:licenseAsWritten`, `rk:license` (LicenseScheme), `rk:licenseSpecified`",
        "free text kept as written; a known license label also gives the concept; `licenseSpecified` false for `unspecified`; `Cannot answer` → `rk:notAnswered`",
    ),
    "Build mechanism": (
        _options(RK.buildMechanism, "BuildMechanismScheme", RK.buildMechanismAsWritten),
        "review `rk:buildMechanism`",
        "multi-select",
    ),
    "Mandatory Software dependencies": (
        _dependency_kind,
        "review `rk:dependencyKind` (open source / closed free / paywalled / none), `rk:requiresPaywalledSoftware`",
        "multi-select",
    ),
    "Feedback [easy deps]": (
        _ignore_empty,
        "review `rk:reviewComment`",
        "always empty in the data",
    ),
    "Feedbacks [easy to find/install dependencies  (5=easy)]": (
        _score(RK.dependenciesScore, 1, 5),
        "review `rk:dependenciesScore`",
        _SCORE_NOTE,
    ),
    "Feedbacks [easy to configure/build (5=easy)]": (
        _score(RK.buildScore, 1, 5),
        "review `rk:buildScore`",
        _SCORE_NOTE,
    ),
    "Feedbacks [easy to fix bugs (5=easy N/A if no bug)]": (
        _bug_fix(RK.bugFixScore, zero_is_na=False),
        "review `rk:bugFixScore`; derived `rk:modificationNeeded`",
        _SCORE_NOTE + "; `rk:modificationNeeded` = true for a number, false for N/A",
    ),
    "Execution experience [Row 1]": (
        _ignore_empty,
        "review `rk:reviewComment`",
        "always empty in the data",
    ),
    "Does the code need data (other than examples/inputs) ?": (
        _yes_no(RK.needsData),
        "review `rk:needsData`",
        "Yes/No → boolean; `Cannot answer` → `rk:notAnswered`",
    ),
    "Available data (provided or url / ref)": (
        _options(RK.dataKind, "DataKindScheme", RK.dataKindAsWritten),
        "review `rk:dataKind`",
        "multi-select; others → `rk:dataKindAsWritten`",
    ),
    "License for the data (if any)": (_text(RK.dataLicense), "review `rk:dataLicense`", "string"),
    "Feedbacks [easy to adapt / use in other contexts (5=easy)]": (
        _score(RK.adaptabilityScore, 1, 5),
        "review `rk:adaptabilityScore`",
        _SCORE_NOTE,
    ),
    "Feedbacks [Interface user-friendly (5=easy)]": (
        _score(RK.userInterfaceScore, 1, 5),
        "review `rk:userInterfaceScore`",
        _SCORE_NOTE,
    ),
    "Documentation": (
        _options(RK.documentationKind, "DocumentationKindScheme", RK.documentationKindAsWritten),
        "review `rk:documentationKind`",
        "multi-select",
    ),
    "Authors": (
        _affiliation_kinds,
        "paper `rk:authorAffiliationKind`, `rk:hasIndustryAuthor`, `rk:hasAcademicAuthor`",
        "multi-select; industry = `Private Companies` present",
    ),
    **{f"ACM {i}": (_acm_keyword, "paper `rk:acmKeyword`", "string") for i in range(1, 8)},
    "Feedbacks [if matlab does it run on OSS alternatives (5=easy)]": (
        _score(RK.matlabAlternativeScore, 1, 5),
        "review `rk:matlabAlternativeScore`",
        _SCORE_NOTE,
    ),
    "OS of the test": (_text(RK.testOperatingSystem), "review `rk:testOperatingSystem`", "string"),
    "General comments": (_text(RK.reviewComment), "review `rk:reviewComment`", "string"),
    "Does the paper already have a reproducibility stamp": (
        _stamp,
        "paper `rk:replicabilityStamp`",
        "`Yes, <url>` → true; `No` → false unless the title is in `GRSI_titles.dat`",
    ),
    "Citation count (google scholar)": (
        _int(RK.googleScholarCitations, on_paper=True),
        "paper `rk:googleScholarCitations`",
        "int (date in `rk:citationCountDate` from Timestamp)",
    ),
    'List of the required dependencies (if any, "/" separated, ex: matlab, libpng,cgal...)': (
        _text(RK.dependenciesAsWritten),
        "review `rk:dependenciesAsWritten`",
        "string as written",
    ),
    "Project URL": (_url(RK.projectURL, on_paper=True), "paper `rk:projectURL`", "IRI"),
    "Did I manage to perform a complete test (deps/build)?": (
        _test_completed,
        "review `rk:testCompleted`, `rk:testFailureReason` (rk:FailureTechnicalIssue / rk:FailureMissingHardware)",
        "`Yes` → true; `No due to …` → false + reason; `Cannot answer` → `rk:notAnswered`",
    ),
    "Year": (_year, "paper `rk:publicationYear`, `rk:conferenceName` (`SIGGRAPH <year>`)", "int"),
    "Misc. comment": (_text(RK.miscComment), "review `rk:miscComment`", "string"),
    "Software Type": (
        _options(RK.softwareType, "SoftwareTypeScheme", RK.softwareTypeAsWritten, single=True),
        "review `rk:softwareType` (rk:SoftwareTypeCode / Binary / PartialCode)",
        "single choice",
    ),
    "Topic": (
        _options(RK.topic, "GraphicsTopicScheme", RK.topicAsWritten, on_paper=True, single=True),
        "paper `rk:topic` (GraphicsTopicScheme)",
        "single choice (`Animation`, `Image` are alt labels)",
    ),
    "Deep learning": (
        _bool(RK.deepLearning, on_paper=True),
        "paper `rk:deepLearning`",
        'the *strings* `"True"`/`"False"` → boolean',
    ),
    "hasThumbnail": (_bool(RK.hasThumbnail, on_paper=True), "paper `rk:hasThumbnail`", "boolean"),
    "Open access": (
        _bool(RK.acmOpenAccess, on_paper=True),
        "paper `rk:acmOpenAccess`",
        "boolean (ACM DL open access)",
    ),
    "Feedbacks [could reproduce results (5=highly confident)]": (
        _score(RK.resultsReplicationScore, 1, 5),
        "review `rk:resultsReplicationScore`",
        _SCORE_NOTE,
    ),
    "Could paper be trivially implemented using the pseudo-code": (
        _score(RK.pseudoCodeImplementabilityScore, 1, 5),
        "review `rk:pseudoCodeImplementabilityScore`",
        'int (scale 1–5 per the paper) → `rk:Score`; `""` → nothing',
    ),
    "Reviewer": (
        _reviewer_number,
        "review `rk:reviewer` → minted `schema:Person` `Reviewer <n>`",
        "int 1–4 (anonymised reviewer number)",
    ),
    "Documentation score": (
        _score(RK.documentationScore, 0, 2),
        "review `rk:documentationScore`",
        "int 0–2 → `rk:Score` (worst 0, best 2)",
    ),
    "Paper authors": (
        _authors,
        "paper `schema:author` (each) and `rk:authorList` (rdf:List, byline order)",
        "Crossref objects: `given`, `family`, `affiliation[].name` → minted `schema:Person` with `schema:givenName`, `schema:familyName`, `schema:name`, `rk:affiliationName`",
    ),
    "Altmetric score": (_altmetric_score, "paper `rk:altmetricScore`", "number → `xsd:decimal`"),
    "Altmetric badge": (
        _url(RK.altmetricBadgeURL, on_paper=True),
        "paper `rk:altmetricBadgeURL`",
        "IRI; `0` = none",
    ),
    "Altmetric url": (
        _url(RK.altmetricURL, on_paper=True),
        "paper `rk:altmetricURL`",
        "IRI; `0` = none",
    ),
}

PER_PAPER: dict[str, Row] = {
    "Variant name": (
        _text(RK.variantName),
        "review `rk:variantName`",
        "string; one review node per variant",
    ),
    "Reviewer name": (
        _reviewer_name,
        "review `rk:reviewer` → `schema:Person` (`schema:name`, `schema:email`)",
        "`Name <email>`; person minted from the e-mail",
    ),
    "Is master variant (boolean)": (
        _bool(RK.isMasterVariant),
        "review `rk:isMasterVariant`",
        "boolean",
    ),
    "Is variant deprecated (boolean)": (
        _bool(RK.isDeprecatedVariant),
        "review `rk:isDeprecatedVariant`",
        "boolean",
    ),
    "Operating system for the test": (
        _text(RK.testOperatingSystem),
        "review `rk:testOperatingSystem`",
        "string",
    ),
    "Title": (_title, "paper `schema:name`", "string"),
    "DOI": (
        lambda c, k, v: None,
        "the paper node IRI; `rk:doiAsWritten`",
        "as in the consolidated format",
    ),
    "Year": (
        _int(RK.publicationYear, on_paper=True),
        "paper `rk:publicationYear`; `rk:conferenceName` from the folder name (`siggraph-2018` → `SIGGRAPH 2018`)",
        "int",
    ),
    "ACM Keywords": (_acm_keyword, "paper `rk:acmKeyword`", "list of strings"),
    "Topic {Rendering, Animation and Simulation, Geometry, Images, Virtual Reality, Fabrication}": (
        _options(RK.topic, "GraphicsTopicScheme", RK.topicAsWritten, on_paper=True, single=True),
        "paper `rk:topic`",
        "single choice",
    ),
    "Co-authors from academia (boolean)": (
        _bool(RK.hasAcademicAuthor, on_paper=True),
        "paper `rk:hasAcademicAuthor`",
        "boolean",
    ),
    "Co-authors from industry (boolean)": (
        _bool(RK.hasIndustryAuthor, on_paper=True),
        "paper `rk:hasIndustryAuthor`",
        "boolean",
    ),
    "ACM Open Access (boolean)": (
        _bool(RK.acmOpenAccess, on_paper=True),
        "paper `rk:acmOpenAccess`",
        "boolean",
    ),
    "PDF on the authors' webpage / institution (boolean)": (
        _bool(RK.onAuthorWebsite, on_paper=True),
        "paper `rk:onAuthorWebsite`",
        "boolean",
    ),
    "PDF on Arxiv or any openarchive initiatives (boolean)": (
        _bool(RK.onOpenArchive, on_paper=True),
        "paper `rk:onOpenArchive`",
        "boolean",
    ),
    "Arxiv/OAI page URL": (
        _url(RK.openArchiveURL, on_paper=True),
        "paper `rk:openArchiveURL`",
        "IRI",
    ),
    "PDF URL": (_url(RK.pdfURL, on_paper=True), "paper `rk:pdfURL`", "IRI"),
    "Project URL": (_url(RK.projectURL, on_paper=True), "paper `rk:projectURL`", "IRI"),
    "Code available (boolean)": (
        _bool(RK.codeShared),
        "review `rk:codeShared`; `rk:codeAvailability` (derived with the pseudo-code flag)",
        "boolean",
    ),
    "Code URL": (_url(RK.codeURL), "review `rk:codeURL`", "IRI"),
    "Code URL2": (_url(RK.codeURL), "review `rk:codeURL`", "IRI"),
    "MD5 sum (for archives)": (_text(RK.archiveMD5), "review `rk:archiveMD5`", "string"),
    "MD5 sum (for archives) URL2": (_text(RK.archiveMD5), "review `rk:archiveMD5`", "string"),
    "git/hg/svn commit hash or revision number": (
        _text(RK.codeRevision),
        "review `rk:codeRevision`",
        "string",
    ),
    "git/hg/svn commit hash or revision number URL2": (
        _text(RK.codeRevision),
        "review `rk:codeRevision`",
        "string",
    ),
    "Software Heritage permalink": (
        _swh_permalink(RK.softwareHeritagePermalink),
        "review `rk:softwareHeritagePermalink`; its SWHID `rk:softwareHeritageCode`",
        "IRI",
    ),
    "If code not available, pseudo-code available (boolean)": (
        _bool(RK.pseudoCodeAvailable),
        "review `rk:pseudoCodeAvailable`",
        "boolean",
    ),
    "If pseudo-code, could the paper be trivially implemented? {0..4}": (
        _score(RK.pseudoCodeImplementabilityScore, 0, 4),
        "review `rk:pseudoCodeImplementabilityScore`",
        'int 0–4 → `rk:Score` (worst 0, best 4); `""` → nothing',
    ),
    "Software type {Code, Binary, Partial Code}": (
        _options(RK.softwareType, "SoftwareTypeScheme", RK.softwareTypeAsWritten, single=True),
        "review `rk:softwareType`",
        "single choice; others (`Online demo`) → `rk:softwareTypeAsWritten` + Warning",
    ),
    "Software language": (
        _options(RK.mainLanguage, "LanguageScheme", RK.mainLanguageAsWritten),
        "review `rk:mainLanguage`",
        "free text matched against labels and synonyms (`C++`, `python`, …); others kept as written + Warning",
    ),
    "Code License (if any)": (
        _license,
        "review `rk:licenseAsWritten`, `rk:license`, `rk:licenseSpecified`",
        "as `License type`; empty while code is available → `rk:licenseSpecified false` (the template: keep the string empty if there is no license)",
    ),
    "Are the code authors explicit? (boolean)": (
        _bool(RK.codeAuthorsExplicit),
        "review `rk:codeAuthorsExplicit`",
        "boolean",
    ),
    "Build/Configure mechanism": (
        _options(RK.buildMechanism, "BuildMechanismScheme", RK.buildMechanismAsWritten),
        "review `rk:buildMechanism`",
        "free text matched against labels and synonyms",
    ),
    "Dependencies": (
        _text(RK.dependenciesAsWritten),
        "review `rk:dependenciesAsWritten`",
        "string as written",
    ),
    "Does the software require paywall/proprietary software/material (boolean)?": (
        _bool(RK.requiresPaywalledSoftware),
        "review `rk:requiresPaywalledSoftware`",
        "boolean",
    ),
    "Does the code need data (not examples) (boolean)": (
        _bool(RK.needsData),
        "review `rk:needsData`",
        "boolean (false also for papers without code)",
    ),
    "Nature of the data (pretrained model, LUT...)": (
        _options(RK.dataKind, "DataKindScheme", RK.dataKindAsWritten),
        "review `rk:dataKind`",
        "matched; others → `rk:dataKindAsWritten`",
    ),
    "License of the data": (_text(RK.dataLicense), "review `rk:dataLicense`", "string"),
    "Able to perform a replicability test (boolean)": (
        _bool(RK.testCompleted),
        "review `rk:testCompleted`",
        "boolean (false also for papers without code: filter on `rk:codeShared true`)",
    ),
    "If not able to perform a test, was it due to missing hardware/software? (boolean)": (
        lambda c, k, v: None,
        "review `rk:testFailureReason`",
        "true → `rk:FailureMissingHardware`; false with code shared and test not completed → `rk:FailureTechnicalIssue`",
    ),
    "Documentation score {0=NA,1,2,3}": (
        _score(RK.documentationScore, 0, 3),
        "review `rk:documentationScore`",
        "int 0–3 → `rk:Score` (worst 0, best 3; 0 = no documentation)",
    ),
    "Dependencies score {0=NA, 1,2,3,4,5}": (
        _score(RK.dependenciesScore, 1, 5, zero_is_na=True),
        "review `rk:dependenciesScore`",
        _SCORE_NOTE_PP,
    ),
    "Build/configure score {0=NA, 1,2,3,4,5}": (
        _score(RK.buildScore, 1, 5, zero_is_na=True),
        "review `rk:buildScore`",
        _SCORE_NOTE_PP,
    ),
    "Fixing bugs score (if any) {0=NA, 1,2,3,4,5}": (
        _bug_fix(RK.bugFixScore, zero_is_na=True),
        "review `rk:bugFixScore`; derived `rk:modificationNeeded`",
        _SCORE_NOTE_PP + "; `rk:modificationNeeded` = value ≥ 1",
    ),
    "Replicate paper results score {0=NA, 1,2,3,4,5}": (
        _score(RK.resultsReplicationScore, 1, 5, zero_is_na=True),
        "review `rk:resultsReplicationScore`",
        _SCORE_NOTE_PP,
    ),
    "Adaptability score to other contexts {0=NA, 1,2,3,4,5}": (
        _score(RK.adaptabilityScore, 1, 5, zero_is_na=True),
        "review `rk:adaptabilityScore`",
        _SCORE_NOTE_PP,
    ),
    "Time spent for the test (code download to first successful run, [0,10], 10min slots, 100min max)": (
        _int(RK.evaluationTimeSlots),
        "review `rk:evaluationTimeSlots`",
        "int 0–10 (10-minute slots; 10 = more than 100 min)",
    ),
    "Build instructions/comments": (_text(RK.reviewComment), "review `rk:reviewComment`", "string"),
    "Misc. comments": (_text(RK.miscComment), "review `rk:miscComment`", "string"),
}


# --------------------------------------------------------------------------- GRSI titles


def normalise_title(title: str) -> str:
    """Lower-case letters and digits only, so punctuation and case differences still match."""
    return re.sub(r"[^0-9a-z]+", " ", title.lower()).strip()


@lru_cache(maxsize=1)
def grsi_titles() -> frozenset[str]:
    """Normalised titles of GRSI-stamped papers (``examples/survey/GRSI_titles.dat``, BSD-3)."""
    f = data_dir("examples").joinpath("survey").joinpath("GRSI_titles.dat")
    if not f.is_file():
        return frozenset()
    return frozenset(
        normalise_title(t) for t in f.read_text(encoding="utf-8").splitlines() if t.strip()
    )


# --------------------------------------------------------------------------- parsing


#: the DOI placeholder of ``per_paper_template.json`` (a form, not a review)
TEMPLATE_DOI = "xx.yyyy/uuuuuuuuuu.vvvvvvvv"


def sniff(name: str, head: str) -> bool:
    if TEMPLATE_DOI in head:
        return False
    h = head.lstrip("\ufeff \t\r\n")
    return h.startswith("[") and (
        f'"{CONSOLIDATED_MARKER}"' in head
        or f'"{PER_PAPER_MARKER}"' in head
        or '"Variant name"' in head
    )


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Objects without ``##`` comment keys; a repeated real key keeps its last value (as JSON does)."""
    out: dict[str, Any] = {}
    dups = []
    for k, v in pairs:
        if k == "##":
            continue
        if k in out:
            dups.append(k)
        out[k] = v
    if dups:
        out["\x00duplicates"] = dups
    return out


def _parse(text: str, name: str) -> tuple[list[Any], list[int]]:
    """The top-level JSON list and each element's start offset (for line numbers)."""
    check_json(text, name)  # nesting and size before the (recursive) C decoder
    dec = json.JSONDecoder(object_pairs_hook=_pairs)
    try:
        value = dec.decode(text)
    except json.JSONDecodeError as exc:
        raise LoadError(
            f"JSON syntax error: {exc.msg}", source=name, line=exc.lineno, column=exc.colno
        ) from exc
    if not isinstance(value, list):
        raise LoadError(
            f"expected a JSON list of paper records at the top level, got {type(value).__name__}",
            source=name,
            line=1,
            column=1,
        )
    starts = []
    i = text.index("[") + 1
    ws = re.compile(r"[\s,]*")
    for _ in value:
        gap = ws.match(text, i)
        assert gap is not None  # [\s,]* matches the empty string too
        i = gap.end()
        starts.append(i)
        _, i = json.JSONDecoder().raw_decode(text, i)
    return value, starts


#: one JSON string token, and whether a ``:`` follows it (then it is an object key)
_STRING_TOKEN = re.compile(r'"([^"\\]*+(?:\\[\s\S][^"\\]*+)*+)"(\s*:)?')


def _key_lines(
    text: str, start: int, end: int, rec: dict[str, Any], base_line: int
) -> dict[str, int]:
    """The line of each key of ``rec`` (its first occurrence as a key in
    ``text[start:end]``), in one pass over the record's string tokens: searching the text
    once per key was quadratic (benchmarks/README.md#figures-once-quoted-in-code)."""
    wanted = set(rec)
    found: dict[str, int] = {}
    line, last = base_line, start
    for m in _STRING_TOKEN.finditer(text, start, end):
        if m.group(2) is None:
            continue
        raw = m.group(1)
        if "\\" in raw:
            try:
                key = json.loads('"' + raw + '"')
            except ValueError:
                continue
        else:
            key = raw
        if key in wanted and key not in found:
            line += text.count("\n", last, m.start())
            last = m.start()
            found[key] = line
            if len(found) == len(wanted):
                break
    return {k: found.get(k, base_line) for k in rec}


def load(data: bytes, name: str) -> list[Document]:
    text = decode_text(data, name)
    records, starts = _parse(text, name)
    if not records:
        return []
    for rec, st in zip(records, starts, strict=True):
        if not isinstance(rec, dict):
            raise LoadError(
                f"expected a JSON object per paper, got {type(rec).__name__}",
                source=name,
                line=text.count("\n", 0, st) + 1,
            )
    keys = set().union(*(r.keys() for r in records))
    if all(str(r.get("DOI", "")).strip() == TEMPLATE_DOI for r in records):
        raise LoadError(
            "this is the per-paper review template (DOI placeholder), not a review",
            source=name,
            line=text.count("\n", 0, starts[0]) + 1,
            field="DOI",
        )
    if PER_PAPER_MARKER in keys or "Variant name" in keys:
        return [_load_per_paper(text, records, starts, name, data)]
    if (
        CONSOLIDATED_MARKER in keys
        or "Feedbacks [could reproduce results (5=highly confident)]" in keys
    ):
        return _load_consolidated(text, records, starts, name)
    raise LoadError(
        f"neither the consolidatedData.json form (key {CONSOLIDATED_MARKER!r}) nor the per-paper form (key {PER_PAPER_MARKER!r})",
        source=name,
        line=1,
    )


def _paper_node(
    g: Graph, doi_raw: Any, title: str, lines: dict[str, int], msgs: list[Message], survey: str
) -> tuple[URIRef, str | None]:
    doi = None
    if not _empty(doi_raw):
        try:
            paper = doi_iri(str(doi_raw))
            doi = str(paper)[len("https://doi.org/") :]
        except IdentifierError as exc:
            paper = mint("publication", stable_key("title", normalise_title(title)))
            msgs.append(
                Message(
                    "Warning",
                    "DOI",
                    f"'DOI': {exc}; the paper gets a minted IRI and cannot join other sources",
                    str(paper),
                    str(doi_raw),
                    lines.get("DOI"),
                )
            )
        g.add((paper, RK.doiAsWritten, Literal(str(doi_raw))))
    else:
        paper = mint("publication", stable_key("title", normalise_title(title)))
        msgs.append(
            Message(
                "Warning",
                "DOI",
                "'DOI' is missing: the paper gets a minted IRI and cannot join other sources",
                str(paper),
                None,
                lines.get("DOI"),
            )
        )
    g.add((paper, RDF.type, SCHEMA.ScholarlyArticle))
    return paper, doi


def _apply(c: _Ctx, rec: dict[str, Any], table: dict[str, Row]) -> None:
    for key, value in rec.items():
        if key == "\x00duplicates":
            for k in value:
                c.report(
                    "Warning",
                    k,
                    f"key {k!r} appears more than once in one object; the last value is used",
                )
            continue
        row = table.get(key)
        if row is None:
            if not _empty(value):
                c.g.add(
                    (
                        c.review,
                        RKX[_slug(key)],
                        Literal(
                            json.dumps(value, ensure_ascii=False)
                            if not isinstance(value, str)
                            else value
                        ),
                    )
                )
            c.report("Info", key, f"unknown key {key!r} kept under rkx:{_slug(key)}", value)
            continue
        row[0](c, key, value)


def _identity_text(rec: dict[str, Any], key: str, name: str, lines: dict[str, int]) -> str:
    """A field the paper's or review's IRI is minted from (the title, the variant's name):
    text or a number, else a located :class:`LoadError` (an object's Python text named
    the review)."""
    value = rec.get(key)
    return scalar_text(value, name, key, expected="text", line=lines.get(key)) or ""


def _doi_field(rec: dict[str, Any], name: str, lines: dict[str, int]) -> Any:
    """The record's ``DOI`` as written, once it is checked to be one value (a list's
    Python text was a DOI "not a DOI", kept as written)."""
    value = rec.get("DOI")
    scalar_text(value, name, "DOI", expected="a DOI (text)", line=lines.get("DOI"))
    return value


def _finish_paper(c: _Ctx, title: str, stamp_key: str | None) -> None:
    """GRSI stamp from the title list; explicit false only when a source said 'No'."""
    if title and normalise_title(title) in grsi_titles():
        c.g.add((c.paper, RK.replicabilityStamp, Literal(True)))
    elif stamp_key is not None and (c.paper, RK.replicabilityStamp, Literal(True)) not in c.g:
        c.g.add((c.paper, RK.replicabilityStamp, Literal(False)))


def _load_consolidated(
    text: str, records: list[dict[str, Any]], starts: list[int], name: str
) -> list[Document]:
    docs = []
    for idx, (rec, st) in enumerate(zip(records, starts, strict=True)):
        end = starts[idx + 1] if idx + 1 < len(starts) else len(text)
        lines = _key_lines(text, st, end, rec, text.count("\n", 0, st) + 1)
        g = new_graph()
        msgs: list[Message] = []
        title = _identity_text(rec, "Title", name, lines)
        paper, doi = _paper_node(g, _doi_field(rec, name, lines), title, lines, msgs, "2020")
        key = doi or f"title:{normalise_title(title)}"
        review = mint("review", stable_key("replicability-graphics-2020", key))
        c = _Ctx(
            g, review, paper, doi, lines, msgs, survey="replicability-graphics-2020", source=name
        )
        g.add((review, RDF.type, RK.CodeReplicabilityReview))
        g.add((review, RK.inSurvey, RK.ReplicabilityGraphics2020))
        g.add((review, RK.reviewedPaper, paper))
        _apply(c, rec, CONSOLIDATED)
        year = rec.get("Year")
        if isinstance(year, int) and not isinstance(year, bool):
            g.add((paper, RK.conferenceName, Literal(f"SIGGRAPH {year}")))
        stamp = rec.get("Does the paper already have a reproducibility stamp")
        _finish_paper(c, title, "x" if isinstance(stamp, str) and stamp.strip() == "No" else None)
        canonical = json.dumps(
            {k: v for k, v in rec.items() if not k.startswith("\x00")},
            ensure_ascii=False,
            sort_keys=True,
        )
        docs.append(
            INFO.document(
                g,
                source_name=name,
                source_bytes=canonical.encode("utf-8"),
                source_key=f"replicability-graphics-2020:{key}",
                messages=msgs,
                lines=lines,
                subject=review,
            )
        )
    return docs


_VENUE_DIR = re.compile(r"(?:^|[/\\])(siggraph|sigasia)-(\d{4})(?:[/\\])")


def _load_per_paper(
    text: str, variants: list[dict[str, Any]], starts: list[int], name: str, data: bytes
) -> Document:
    g = new_graph()
    msgs: list[Message] = []
    lines: dict[str, int] = {}
    for idx, (rec, st) in enumerate(zip(variants, starts, strict=True)):
        end = starts[idx + 1] if idx + 1 < len(starts) else len(text)
        for k, ln in _key_lines(text, st, end, rec, text.count("\n", 0, st) + 1).items():
            lines.setdefault(k, ln)
    master = next((v for v in variants if v.get(PER_PAPER_MARKER) is True), variants[0])
    title = _identity_text(master, "Title", name, lines)
    paper, doi = _paper_node(g, _doi_field(master, name, lines), title, lines, msgs, "site")
    dois = {str(v.get("DOI", "")).strip().lower() for v in variants}
    if len(dois) > 1:
        msgs.append(
            Message(
                "Warning",
                "DOI",
                f"the variants of one file name different DOIs {sorted(dois)}; the master variant's is used",
                str(paper),
                None,
                lines.get("DOI"),
            )
        )
    key = doi or f"title:{normalise_title(title)}"
    first_review = None
    seen_names: dict[str, int] = {}
    for rec in variants:
        vname = _identity_text(rec, "Variant name", name, lines).strip()
        # a variant name can repeat within a file (10.1145/3197517.3201378): number repeats
        seen_names[vname] = seen_names.get(vname, 0) + 1
        nth = seen_names[vname]
        review = mint(
            "review",
            stable_key("replicability-graphics-site", key, vname, *([nth] if nth > 1 else [])),
        )
        first_review = first_review or review
        c = _Ctx(
            g, review, paper, doi, lines, msgs, survey="replicability-graphics-site", source=name
        )
        g.add((review, RDF.type, RK.CodeReplicabilityReview))
        g.add((review, RK.inSurvey, RK.ReplicabilityGraphicsSite))
        g.add((review, RK.reviewedPaper, paper))
        _apply(c, rec, PER_PAPER)
        code = rec.get("Code available (boolean)")
        pseudo = rec.get("If code not available, pseudo-code available (boolean)")
        if isinstance(code, bool):
            concept = (
                "CodeAvailable"
                if code
                else ("PseudoCodeOnly" if pseudo is True else "CodeNotAvailable")
            )
            g.add((review, RK.codeAvailability, opts.concept(concept)))
        lic = rec.get("Code License (if any)")
        if code is True and _empty(lic):
            # the site form: "precise the license (or keep the string empty if not)"
            g.add((review, RK.licenseSpecified, Literal(False)))
        hw = rec.get(
            "If not able to perform a test, was it due to missing hardware/software? (boolean)"
        )
        able = rec.get("Able to perform a replicability test (boolean)")
        if hw is True:
            g.add((review, RK.testFailureReason, RK.FailureMissingHardware))
        elif code is True and able is False and hw is False:
            g.add((review, RK.testFailureReason, RK.FailureTechnicalIssue))
        elif hw is not None and not isinstance(hw, bool):
            c.report(
                "Warning",
                "If not able to perform a test, was it due to missing hardware/software? (boolean)",
                f"expected true/false, got {hw!r}",
                hw,
            )
    m = _VENUE_DIR.search(name)
    if m:
        g.add(
            (
                paper,
                RK.conferenceName,
                Literal(
                    ("SIGGRAPH" if m.group(1) == "siggraph" else "SIGGRAPH Asia") + f" {m.group(2)}"
                ),
            )
        )
    # the record has a review by now
    c = _Ctx(g, first_review, paper, doi, lines, msgs)  # type: ignore[arg-type]
    _finish_paper(c, title, None)
    return INFO.document(
        g,
        source_name=name,
        source_bytes=data,
        source_key=f"replicability-graphics-site:{key}",
        messages=msgs,
        lines=lines,
        subject=first_review,
    )


def mapping_markdown() -> str:
    """The key -> RDF mapping tables of both formats (``docs/survey-mapping.md`` body)."""
    out = []
    for title, table in (
        ("consolidatedData.json (SIGGRAPH 2020 data, 374 papers)", CONSOLIDATED),
        ("per-paper files (replicability.graphics site, 454 papers)", PER_PAPER),
    ):
        out.append(f"## {title}\n\n| JSON key | RDF | value handling |\n|---|---|---|")
        for key, (_h, target, note) in table.items():
            k = key.replace("|", "\\|")
            out.append(f"| `{k}` | {target} | {note} |")
        out.append("")
    return "\n".join(out)
