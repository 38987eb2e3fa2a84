"""A work's reproducibility passport: the one read model behind ``/paper``, ``reprokg
passport``, the passport crate and the JSON API.

It leads with the answer to "was it reproduced?" (one line per kind of evidence, decisions
counted once, conflicting claims on a DOI kept apart: :mod:`reprokg.evidence.assessments`),
then everything else the graph joins on the work: its facts, authors in byline order,
survey reviews, documentation assessments, audits, runs, studies and QRA results. The
SPARQL behind each part is in ``evidence/sparql/`` (``sparql()`` gives it bound).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from reprokg.core.errors import NotFound, UsageError
from reprokg.core.identifiers import doi_iri, is_doi
from reprokg.evidence.assessments import Decision, Summary, fold, summarise
from reprokg.sparql.named import NamedQueryError, Page, Param, package_query, to_term
from reprokg.sparql.rows import select_dicts
from reprokg.store.base import Store

SCHEMA_NAME = "http://schema.org/name"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
ASSESSMENTS = "evidence/sparql/work-assessments.rq"
#: the quantities stored QRA results hold about a paper (reprokg qra DOI --save)
QRA_QUERY = "measures/sparql/stored-qra.rq"
RUNS = "evidence/sparql/paper-runs.rq"
#: how many (run, relation) pairs ``RUNS`` pages (the page's total)
RUNS_COUNT = "evidence/sparql/paper-runs-count.rq"
#: runs a passport holds unless asked for another page or all of them: a paper cited by
#: 50,000 runs listed them all in seconds (benchmarks/scale/passport.py)
RUNS_PAGE = 100
#: the passport's parts: (key, package query)
PARTS: list[tuple[str, str]] = [
    ("reviews", "evidence/sparql/paper-reviews.rq"),
    ("assessments", "evidence/sparql/paper-assessments.rq"),
    ("audits", "evidence/sparql/paper-audits.rq"),
    ("runs", RUNS),
    ("studies", "evidence/sparql/paper-studies.rq"),
    ("qra", QRA_QUERY),
]
FACTS = "evidence/sparql/paper.rq"
AUTHORS = "evidence/sparql/paper-authors.rq"
AUTHOR_ORDER = "evidence/sparql/paper-author-order.rq"
ORIGINALS = "evidence/sparql/work-originals.rq"
ARTIFACTS = "evidence/sparql/paper-artifacts.rq"
ARTIFACT_WORKS = "evidence/sparql/artifact-works.rq"
LINKS = "evidence/sparql/work-links.rq"
#: every query the passport reads, in the order its "SPARQL behind" lists them
QUERIES: tuple[str, ...] = (
    ASSESSMENTS,
    FACTS,
    AUTHORS,
    ORIGINALS,
    ARTIFACTS,
    LINKS,
    *(q for _k, q in PARTS),
    RUNS_COUNT,
)


def work_iri(doi: str | None, iri: str | None) -> str:
    """The work's IRI from a DOI (any accepted form) or an IRI (checked as a named-query
    parameter is)."""
    if doi:
        return str(doi_iri(doi))
    if iri:
        try:
            return str(to_term(Param("iri", "iri"), iri))
        except NamedQueryError as exc:
            raise UsageError(str(exc)) from exc
    raise UsageError("give doi= (a DOI) or iri= (the publication's IRI)")


def resolve_work(store: Store, ident: str) -> str:
    """The work ``ident`` names, as ``reprokg passport`` and ``reprokg.passport`` take it: a
    DOI (any accepted form), an IRI, or an id a command printed (what its document is
    about, through :func:`reprokg.store.catalog.resolve`)."""
    work = ident.strip()
    if is_doi(work):
        return work_iri(work, None)
    if ":" in work:
        return work_iri(None, work)
    from reprokg.store.catalog import resolve

    return work_iri(None, str(resolve(store, work).target))


def sparql(work: str) -> dict[str, tuple[str, str]]:
    """Each passport query's (title, SPARQL bound to ``work``), by its path."""
    return {p: (package_query(p).title, package_query(p).bind({"paper": work})) for p in QUERIES}


def _rows(store: Store, path: str, work: str) -> list[dict[str, Any]]:
    return select_dicts(store, package_query(path).bind({"paper": work}))


def runs_page(
    store: Store, work: str, offset: int = 0, limit: int | None = RUNS_PAGE
) -> tuple[list[dict[str, Any]], Page]:
    """A page of the runs naming ``work`` (``limit`` None: all of them) with how many
    there are: the store's order across pages, relation and tag within one
    (``evidence/sparql/paper-runs.rq`` says why)."""
    query = package_query(RUNS)
    values: dict[str, str] = {"paper": work}
    if limit is None:
        rows = select_dicts(store, query.bind(values, whole=True))
        offset = 0
    else:
        values |= {"offset": str(offset), "limit": str(limit)}
        try:
            rows = select_dicts(store, query.bind(values))
        except NamedQueryError as exc:
            raise UsageError(str(exc)) from exc
    units = len({(r.get("run"), r.get("relation")) for r in rows})
    if limit is None or units < limit and (units or not offset):
        # a page short of its limit holds the last of them: nothing to count
        return rows, Page(offset, limit, len(rows), offset + units, "runs")
    counted = select_dicts(store, package_query(RUNS_COUNT).bind({"paper": work}))
    total = int(counted[0].get("total") or 0) if counted else 0
    return rows, Page(offset, limit, len(rows), total, "runs")


def ordered_authors(authors: list[dict], order: list[dict]) -> list[dict]:
    """Authors in byline order (walking the rdf:List from its head), others after."""
    if not order:
        return authors
    nxt = {r["node"]: (r["person"], r["next"]) for r in order}
    heads = {r["head"] for r in order}
    rank: dict[str, int] = {}
    node = next(iter(heads)) if len(heads) == 1 else None
    while node in nxt and len(rank) < len(nxt):
        person, node = nxt[node]
        rank.setdefault(person, len(rank))
    return sorted(authors, key=lambda a: (rank.get(a["person"], 1 << 30), a.get("name") or ""))


@dataclass(frozen=True)
class ArtifactLocation:
    """Where an artifact of the work is, and what the latest check of it found."""

    artifact: str
    location: str
    accessible: bool | None = None
    checked_at: str | None = None

    @property
    def text(self) -> str:
        if self.accessible is None:
            return f"artifact at {self.location}: availability not checked"
        state = "reachable" if self.accessible else "unreachable"
        when = f" as of {self.checked_at[:10]}" if self.checked_at else ""
        return f"artifact link {state}{when}: {self.location}"

    def to_json(self) -> dict[str, Any]:
        return {
            "artifact": self.artifact,
            "location": self.location,
            "accessible": self.accessible,
            "checked_at": self.checked_at,
            "text": self.text,
        }


def artifact_locations(rows: list[dict[str, Any]]) -> list[ArtifactLocation]:
    """One entry per location, with its latest check (rows come latest first)."""
    out: dict[tuple[str, str], ArtifactLocation] = {}
    for r in rows:
        if r.get("location") is None:
            continue
        key = (str(r["artifact"]), str(r["location"]))
        if key not in out:
            accessible = r.get("accessible")
            out[key] = ArtifactLocation(
                key[0],
                key[1],
                None if accessible is None else bool(accessible),
                None if r.get("checkedAt") is None else str(r["checkedAt"]),
            )
    return list(out.values())


DOI_PREFIX = re.compile(r"(?i)^(?:doi:\s*|https?://(?:dx\.)?doi\.org/)")
RK_NS = "https://w3id.org/reprokg/ontology#"
DBLP = RK_NS + "dblp"
YEAR = RK_NS + "publicationYear"
VENUES = (RK_NS + "conferenceName", RK_NS + "journalName", "http://schema.org/isPartOf")


def _words(prop: str) -> str:
    """A property IRI's local name in words (``publicationYear`` -> "publication year")."""
    local = re.split(r"[#/]", prop)[-1]
    if local.lower() in ("dblp", "doi", "url"):
        return local.upper() + " record" if local.lower() == "dblp" else local.upper()
    if local == "type":
        return "type"
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", local).lower().split()
    return " ".join(w.upper() if w in ("doi", "url", "orcid") else w for w in words)


@dataclass(frozen=True)
class Count:
    """How many of one kind of thing the graph joins on the work, and what they are."""

    key: str
    n: int
    what: str

    def to_json(self) -> dict[str, Any]:
        return {"part": self.key, "count": self.n, "counts": self.what}


@dataclass(frozen=True)
class CrossSourceLink:
    """A record of another source that may name the same work (a candidate match): accepted
    for joins or not, and why; nothing merged."""

    other: str
    title: str | None
    score: float | None
    #: None: recorded before links carried a decision (an exact key, accepted)
    accepted: bool
    decision: str
    evidence: str

    @property
    def text(self) -> str:
        state = "accepted link" if self.accepted else "candidate, not accepted"
        score = f" (score {self.score:.3f})" if self.score is not None else ""
        return f"{state}{score}: {self.title or self.other} — {self.decision or self.evidence}"

    def to_json(self) -> dict[str, Any]:
        return {
            "other": self.other,
            "title": self.title,
            "score": self.score,
            "accepted": self.accepted,
            "decision": self.decision,
            "evidence": self.evidence,
            "text": self.text,
        }


def cross_source_links(rows: list[dict[str, Any]]) -> list[CrossSourceLink]:
    """The work's candidate matches, accepted first. A match recorded without a decision
    (the artifact-evaluation loader's, same venue, year and title within a record) counts as
    accepted: its key is exact."""
    out = []
    for r in rows:
        accepted = r.get("accepted")
        out.append(
            CrossSourceLink(
                other=str(r["other"]),
                title=None if r.get("title") is None else str(r["title"]),
                score=None if r.get("score") is None else float(r["score"]),
                accepted=True if accepted is None else bool(accepted),
                decision="" if r.get("decision") is None else str(r["decision"]),
                evidence=str(r["evidence"]),
            )
        )
    return sorted(out, key=lambda x: (not x.accepted, -(x.score or 1.0), x.other))


@dataclass
class Passport:
    """What the graph knows of one work, led by whether it was reproduced."""

    work: str
    summary: Summary
    decisions: list[Decision]
    facts: list[dict[str, Any]]
    #: the originals this work replicates or reproduces (a ReScience or MLRC article)
    replication_of: list[dict[str, Any]] = field(default_factory=list)
    authors: list[dict[str, Any]] = field(default_factory=list)
    #: the work's artifacts: each location with its latest availability check
    artifacts: list[ArtifactLocation] = field(default_factory=list)
    #: records of other sources that may name the work: accepted links and candidates
    links: list[CrossSourceLink] = field(default_factory=list)
    parts: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: the artifact location the user looked up, when it led here
    resolved_from: str | None = None
    #: which runs ``parts["runs"]`` holds of how many
    runs_page: Page | None = None

    @property
    def title(self) -> str | None:
        """The work's title: the one its facts give, else the one its assessments' sources
        claim; none when sources give the work conflicting titles (a DOI of two papers)."""
        if self.summary.conflict:
            return None
        name = next((f["value"] for f in self.facts if f["property"] == SCHEMA_NAME), None)
        if name is not None:
            return str(name)
        titled = [c.title for c in self.summary.claims if c.title]
        return titled[0] if len(titled) == 1 else None

    @property
    def identifiers(self) -> list[str]:
        """The work's IRI and the identifiers written for it (a DOI as the source wrote it)."""
        out = [self.work]
        for f in self.facts:
            if f["property"].endswith("#doiAsWritten") and str(f["value"]) not in out:
                out.append(str(f["value"]))
        return out

    @property
    def labelled_identifiers(self) -> list[tuple[str, str]]:
        """(scheme, identifier) of the work for people: its DOI (bare), the DOIs written for
        it, its DBLP record; the IRI itself when it is no DOI."""
        out: list[tuple[str, str]] = []
        for i in self.identifiers:
            bare = DOI_PREFIX.sub("", i)
            pair = ("DOI", bare) if bare != i else ("IRI", i)
            if pair not in out:
                out.append(pair)
        out += [("DBLP", str(f["value"])) for f in self.facts if f["property"] == DBLP]
        return out

    @property
    def published(self) -> str | None:
        """Venue and year as the facts state them (``ECIR 2019``), else None."""
        venue = next((str(f["value"]) for f in self.facts if f["property"] in VENUES), None)
        year = next((str(f["value"]) for f in self.facts if f["property"] == YEAR), None)
        return " ".join(x for x in (venue, year) if x) or None

    def counts(self) -> list[Count]:
        """Everything else the graph joins on the work, each count saying what it counts:
        decisions are the answer's (``verdict_summary``), not counted here again."""
        runs = (
            self.runs_page.total
            if self.runs_page is not None
            else len({(str(r["run"]), r.get("relation")) for r in self.parts.get("runs", [])})
        )
        shown = [p for p in dict.fromkeys(_words(f["property"]) for f in self.facts)]
        out = [
            Count("authors", len(self.authors), "authors"),
            Count("reviews", len(self.parts.get("reviews", [])), "code-replicability reviews"),
            Count(
                "assessments",
                len(self.parts.get("assessments", [])),
                "documentation variables assessed by Gundersen & Kjensmo (2018)",
            ),
            Count("audits", len({str(r["audit"]) for r in self.parts.get("audits", [])}), "audits"),
            Count(
                "runs",
                runs,
                "runs whose ir_metadata header names it or one of its runs as baseline"
                " (a run doing both counted under each)",
            ),
            Count("studies", len(self.parts.get("studies", [])), "studies that include it"),
            Count("qra", len(self.parts.get("qra", [])), "QRA quantities stored about it"),
            Count("facts", len(self.facts), "facts stated about it: " + ", ".join(shown)),
        ]
        return out

    def to_json(self) -> dict[str, Any]:
        """The passport's JSON (``/paper?format=json``, ``reprokg passport --format json``):
        title and identifiers, then the answer, then what else the graph joins on it."""
        return {
            "title": self.title,
            "identifiers": self.identifiers,
            "published": self.published,
            "paper": self.work,
            "verdict_summary": self.summary.to_json(),
            "verdicts": [d.to_json() for d in self.decisions],
            "counts": [c.to_json() for c in self.counts()],
            "replication_of": self.replication_of,
            "facts": self.facts,
            "authors": self.authors,
            "artifacts": [a.to_json() for a in self.artifacts],
            "links": [link.to_json() for link in self.links],
            "resolved_from": self.resolved_from,
            **self.parts,
            "runs_page": None if self.runs_page is None else self.runs_page.to_json(),
        }


def _is_work(facts: list[dict[str, Any]]) -> bool:
    """Whether the facts describe a work of its own (a title or a type other than an
    artifact location's bare mention)."""
    return any(f["property"] in (SCHEMA_NAME, RDF_TYPE) for f in facts)


def passport(
    store: Store, work: str, *, runs_offset: int = 0, runs_limit: int | None = RUNS_PAGE
) -> Passport:
    """The passport of ``work`` (an IRI) with a page of its runs (``runs_limit`` None: all);
    an artifact's DOI or URL leads to the passport of the work it belongs to;
    :class:`NotFound` when the graph knows nothing."""
    facts = _rows(store, FACTS, work)
    found = fold(_rows(store, ASSESSMENTS, work))
    if not found and not _is_work(facts):
        owners = select_dicts(store, package_query(ARTIFACT_WORKS).bind({"location": work}))
        if len(owners) == 1:
            out = passport(
                store, str(owners[0]["paper"]), runs_offset=runs_offset, runs_limit=runs_limit
            )
            out.resolved_from = work
            return out
        if not facts:
            raise NotFound(f"nothing is known about <{work}>")
    summary, decided = summarise(found)
    runs, runs_at = runs_page(store, work, runs_offset, runs_limit)
    return Passport(
        work=work,
        summary=summary,
        decisions=decided,
        facts=facts,
        replication_of=_rows(store, ORIGINALS, work),
        authors=ordered_authors(_rows(store, AUTHORS, work), _rows(store, AUTHOR_ORDER, work)),
        artifacts=artifact_locations(_rows(store, ARTIFACTS, work)),
        links=cross_source_links(_rows(store, LINKS, work)),
        parts={key: runs if path == RUNS else _rows(store, path, work) for key, path in PARTS},
        runs_page=runs_at,
    )
