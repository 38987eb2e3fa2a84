"""The evidence and survey sources a store holds: what each contributes and how they join.

A *source* is a loader's document kind, split by the file its records were read from where
one kind has several sources (ReproDB's consolidated ``artifacts.json`` and the venues'
own results pages are both artifact evaluations): :data:`SOURCES` names them. Documents of
other kinds (runs, comparisons, the link pass's own candidate matches) are not sources of
evidence and are left out.

What a source contributes is counted from its documents (``evidence/sparql/source-works.rq``):
documents, records (a work as one document describes it) and works (distinct nodes). What
it says of them — outcomes and kinds of evidence — is never read from raw rows: it is the
one read model of every work's answer (:func:`reprokg.evidence.outcomes.work_outcomes`,
folded by the passport's functions), restricted to the assessments stated in documents of
the source's kind. How two sources join: the works both hold by one identifier (the same
node), and the links the link pass accepted between a work of one and a work of the other
(``evidence/sparql/cross-links.rq``; docs/evidence.md, "Links without shared identifiers").

Each count carries the papers-list filters that show exactly its works, when the list can
(the caller passes the list's own selection, and a filter is offered only if it selects
exactly the counted works: a count and its link never disagree).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from reprokg.core.errors import NotFound
from reprokg.evidence.outcomes import Count, WorkOutcome
from reprokg.evidence.scheme import KINDS, OUTCOME_ORDER, OUTCOME_WORDS
from reprokg.sparql.named import package_query
from reprokg.sparql.rows import select_rows
from reprokg.store.base import Store

WORKS_QUERY = "evidence/sparql/source-works.rq"
LINKS_QUERY = "evidence/sparql/cross-links.rq"

#: the papers list's selection: its filters -> the works it lists (None: no list to link to)
Lister = Callable[[Mapping[str, str]], set[str]]


@dataclass(frozen=True)
class SourceDef:
    """A source: a document kind, and (where the kind has several sources) which files."""

    name: str
    label: str
    kind: str
    #: the source files of this source (None: every file of the kind not claimed before)
    files: re.Pattern[str] | None = None

    def holds(self, kind: str, file: str) -> bool:
        return kind == self.kind and (self.files is None or bool(self.files.fullmatch(file)))


#: the sources, in the order /sources lists them; the first that holds a document is its
SOURCES: tuple[SourceDef, ...] = (
    SourceDef(
        "reprodb",
        "ReproDB artifacts (artifacts.json)",
        "artifact-evaluation",
        re.compile(r"artifacts\.json"),
    ),
    SourceDef("results-pages", "Artifact-evaluation results pages", "artifact-evaluation"),
    SourceDef("reprodb-availability", "ReproDB artifact link checks", "artifact-availability"),
    SourceDef("rescience", "ReScience C bibliography", "rescience"),
    SourceDef("mlrc", "ML Reproducibility Challenge reports", "mlrc"),
    SourceDef("grsi", "Graphics Replicability Stamp Initiative", "grsi"),
    SourceDef("siggraph-survey", "Code replicability in computer graphics (survey)", "survey"),
    SourceDef("gk2018", "Gundersen & Kjensmo 2018 (survey)", "gk2018"),
    SourceDef("pwc-checklist", "Papers with Code checklist, NeurIPS 2019", "pwc-checklist"),
    SourceDef("dataverse-r", "Dataverse R re-executions", "re-execution"),
)
BY_NAME = {s.name: s for s in SOURCES}


def source_of(kind: str, file: str) -> SourceDef | None:
    """The source of a document of ``kind`` read from ``file`` (None: not an evidence source)."""
    return next((s for s in SOURCES if s.holds(kind, file)), None)


@dataclass(frozen=True)
class SourceSummary:
    """One source in the list: its files and how many documents, records and works."""

    name: str
    label: str
    kind: str
    files: tuple[str, ...]
    documents: int
    #: (document, work) pairs: a work as one document of the source describes it
    records: int
    works: Count

    def row(self) -> dict[str, Any]:
        return {
            "source": self.name,
            "label": self.label,
            "document_kind": self.kind,
            "files": ", ".join(self.files),
            "documents": self.documents,
            "records": self.records,
            "works": self.works.n,
            "papers_filters": _query(self.works),
        }


SUMMARY_COLUMNS = [
    "source",
    "label",
    "document_kind",
    "files",
    "documents",
    "records",
    "works",
    "papers_filters",
]


@dataclass(frozen=True)
class Join:
    """How one source joins another: works both hold by one identifier, and links accepted
    between a work of each without one."""

    other: str
    label: str
    shared: Count
    accepted_links: int
    proposed_links: int


@dataclass(frozen=True)
class Tally:
    """A labelled count (an outcome, a kind of evidence, a venue, a year)."""

    key: str
    label: str
    count: Count


@dataclass(frozen=True)
class SourceDetail:
    """One source: what it contributes and how it joins each other source."""

    summary: SourceSummary
    #: works of the source assessed by its own documents
    assessed: Count
    #: per outcome (scheme order): works with a decision in force of that outcome stated
    #: in a document of the source's kind
    outcomes: tuple[Tally, ...]
    kinds: tuple[Tally, ...]
    venues: tuple[Tally, ...]
    years: tuple[Tally, ...]
    joins: tuple[Join, ...] = field(default_factory=tuple)

    def rows(self) -> list[dict[str, Any]]:
        """Every count as a row (the CSV and JSON of ``/sources/{name}``)."""
        s = self.summary
        out = [
            _flat("source", k, k, c)
            for k, c in (
                ("documents", Count(s.documents, linked=False)),
                ("records", Count(s.records, linked=False)),
                ("works", s.works),
                ("assessed", self.assessed),
            )
        ]
        for table, tallies in (
            ("outcome", self.outcomes),
            ("kind", self.kinds),
            ("venue", self.venues),
            ("year", self.years),
        ):
            out += [_flat(table, t.key, t.label, t.count) for t in tallies]
        for j in self.joins:
            out.append(_flat("shared-works", j.other, j.label, j.shared))
            out.append(
                _flat("accepted-links", j.other, j.label, Count(j.accepted_links, linked=False))
            )
        return out


DETAIL_COLUMNS = ["table", "key", "row", "works", "papers_filters"]


def _query(c: Count) -> str | None:
    return "&".join(f"{k}={v}" for k, v in c.filters) if c.linked else None


def _flat(table: str, key: str, label: str, c: Count) -> dict[str, Any]:
    return {"table": table, "key": key, "row": label, "works": c.n, "papers_filters": _query(c)}


# --------------------------------------------------------------------------- reading


@dataclass
class _Held:
    files: set[str] = field(default_factory=set)
    documents: set[str] = field(default_factory=set)
    records: set[tuple[str, str]] = field(default_factory=set)
    works: set[str] = field(default_factory=set)
    venues: dict[str, set[str]] = field(default_factory=dict)
    years: dict[str, set[str]] = field(default_factory=dict)


def _held(store: Store) -> dict[str, _Held]:
    """Per source present in ``store``: its files, documents, records, works, venues, years."""
    out: dict[str, _Held] = {}
    for r in select_rows(store, package_query(WORKS_QUERY).bind({})):
        file = str(r.get("file") or "")
        src = source_of(str(r["kind"]), file)
        if src is None:
            continue
        h = out.setdefault(src.name, _Held())
        h.documents.add(str(r["document"]))
        if file:
            h.files.add(file)
        work = r.get("work")
        if work is None:
            continue
        work = str(work)
        h.records.add((str(r["document"]), work))
        h.works.add(work)
        if r.get("venue") is not None:
            h.venues.setdefault(str(r["venue"]), set()).add(work)
        if r.get("year") is not None:
            h.years.setdefault(str(r["year"])[:4], set()).add(work)
    return out


def _counted(works: set[str], filters: dict[str, str], lister: Lister | None) -> Count:
    """``works`` counted, with ``filters`` as its link when the papers list shows exactly
    those works under them (none for no works: nothing to show)."""
    linked = lister is not None and bool(works) and bool(filters) and lister(filters) == works
    return Count(len(works), tuple(filters.items()) if linked else (), linked)


def _summary(src: SourceDef, h: _Held, lister: Lister | None) -> SourceSummary:
    return SourceSummary(
        src.name,
        src.label,
        src.kind,
        tuple(sorted(h.files)),
        len(h.documents),
        len(h.records),
        _counted(h.works, {"source": src.kind}, lister),
    )


def source_overview(store: Store, lister: Lister | None = None) -> list[SourceSummary]:
    """Every evidence and survey source ``store`` holds, in :data:`SOURCES` order."""
    held = _held(store)
    return [_summary(s, held[s.name], lister) for s in SOURCES if s.name in held]


def _links(store: Store) -> list[tuple[str, str, bool]]:
    return [
        (str(r["a"]), str(r["b"]), r.get("accepted") is True)
        for r in select_rows(store, package_query(LINKS_QUERY).bind({}))
    ]


def source_detail(
    store: Store,
    name: str,
    outcomes: Mapping[str, WorkOutcome],
    lister: Lister | None = None,
) -> SourceDetail:
    """One source: what it contributes (works, outcomes and kinds of evidence from
    ``outcomes`` — :func:`~reprokg.evidence.outcomes.work_outcomes` — venues and years as
    its documents give them) and, for each other source present, the works both hold and
    the links accepted between them."""
    src = BY_NAME.get(name)
    held = _held(store)
    if src is None or name not in held:
        known = ", ".join(s for s in BY_NAME if s in held) or "none"
        raise NotFound(f"no source {name!r} in the store (sources held: {known})")
    h = held[name]
    mine = {w: outcomes[w] for w in h.works if w in outcomes}

    def answered(kind: str = "", outcome: str = "") -> set[str]:
        return {
            w
            for w, o in mine.items()
            if any(
                d == src.kind and (not kind or k == kind) and (not outcome or out == outcome)
                for k, d, out in o.answers
            )
        }

    base = {"source": src.kind}
    assessed = _counted(answered(), {**base, "assessed_in": src.kind}, lister)
    outcome_tallies = tuple(
        Tally(
            slug,
            OUTCOME_WORDS.get(slug, slug),
            _counted(
                answered(outcome=slug), {**base, "assessed_in": src.kind, "outcome": slug}, lister
            ),
        )
        for slug in OUTCOME_ORDER
    )
    kind_tallies = tuple(
        Tally(
            k.slug,
            k.label,
            _counted(
                answered(kind=k.slug), {**base, "kind": k.slug, "assessed_in": src.kind}, lister
            ),
        )
        for k in KINDS
        if answered(kind=k.slug)
    )
    venues = tuple(
        Tally(v, v, Count(len(ws), linked=False))
        for v, ws in sorted(h.venues.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    )
    years = tuple(
        Tally(y, y, Count(len(ws), linked=False)) for y, ws in sorted(h.years.items(), reverse=True)
    )
    links = _links(store)
    joins = []
    for other in SOURCES:
        if other.name == name or other.name not in held:
            continue
        theirs = held[other.name].works
        between = [
            accepted
            for a, b, accepted in links
            if (a in h.works and b in theirs) or (b in h.works and a in theirs)
        ]
        shared_filters = (
            {"source": src.kind, "also_source": other.kind} if other.kind != src.kind else {}
        )
        joins.append(
            Join(
                other.name,
                other.label,
                _counted(h.works & theirs, shared_filters, lister),
                sum(between),
                len(between),
            )
        )
    return SourceDetail(
        _summary(src, h, lister),
        assessed,
        outcome_tallies,
        kind_tallies,
        venues,
        years,
        tuple(joins),
    )
