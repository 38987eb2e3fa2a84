"""Every work's answer at once: the papers list's "was it reproduced?" column and filters.

The rows are the passport's own query without a work bound
(``evidence/sparql/work-assessments.rq``), folded per work by the passport's own functions
(:func:`reprokg.evidence.assessments.summarise`): what the list says of a work is what its
passport says, by construction (a property test holds the two to each other on the whole
field's evidence).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from reprokg.evidence.assessments import Summary, fold, summarise
from reprokg.evidence.passport import ASSESSMENTS
from reprokg.evidence.scheme import KINDS, OUTCOME_ORDER, OUTCOME_WORDS, EvidenceKind
from reprokg.sparql.named import package_query
from reprokg.sparql.rows import select_rows
from reprokg.store.base import Store

T = TypeVar("T")


@dataclass(frozen=True)
class WorkOutcome:
    """A work's answer as the list shows it."""

    work: str
    summary: Summary
    #: the kinds of the documents holding its assessments (the list's ``source`` filter)
    document_kinds: frozenset[str]
    #: (kind of evidence, kind of document, outcome) of each assessment in force: what the
    #: list's ``kind``, ``assessed_in`` and ``outcome`` filters match together
    answers: frozenset[tuple[str, str, str]] = frozenset()
    #: a computed verdict in force judged on less evidence than its rules need
    insufficient: bool = False
    #: (kind of evidence, outcome) of each decision in force — a committee decision two
    #: sources state is one — what the field build's coverage counts per kind
    decisions: tuple[tuple[str, str], ...] = ()

    @property
    def outcomes(self) -> frozenset[str]:
        return self.summary.outcome_set

    @property
    def title(self) -> str | None:
        titled = [c.title for c in self.summary.claims if c.title]
        return titled[0] if len(titled) == 1 else None


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list, with the count of everything it is a page of ("N of M")."""

    items: list[T]
    total: int
    offset: int
    limit: int

    @property
    def text(self) -> str:
        shown = len(self.items)
        first = self.offset + 1 if shown else 0
        return f"{first}–{self.offset + shown} of {self.total}"


@dataclass(frozen=True)
class OutcomeFilters:
    outcome: str = ""
    document_kind: str = ""
    conflict: bool | None = None

    def keep(self, w: WorkOutcome) -> bool:
        return (
            (not self.outcome or self.outcome in w.outcomes)
            and (not self.document_kind or self.document_kind in w.document_kinds)
            and (self.conflict is None or w.summary.conflict == self.conflict)
        )


def fold_works(rows: Iterable[Mapping[str, Any]]) -> dict[str, WorkOutcome]:
    """Rows of every work -> each work's answer (the passport's folding, per work)."""
    by_work: dict[str, list[Mapping[str, Any]]] = {}
    for r in rows:
        by_work.setdefault(str(r["paper"]), []).append(r)
    out = {}
    for work, mine in by_work.items():
        found = fold(mine)
        summary, decided = summarise(found)
        current = [a for a in found if a.in_force]
        kinds = frozenset(a.document_kind for a in current if a.document_kind)
        answers = frozenset(
            (a.kind.slug, a.document_kind or "", a.outcome) for a in current if a.outcome
        )
        insufficient = any(a.as_written == "insufficient-evidence" for a in current)
        in_force = tuple(sorted((d.kind.slug, d.outcome) for d in decided[: summary.decisions]))
        out[work] = WorkOutcome(work, summary, kinds, answers, insufficient, in_force)
    return out


def work_outcomes(store: Store) -> dict[str, WorkOutcome]:
    """Every assessed work's answer, by work IRI (one query; the web layer caches it per
    store generation)."""
    return fold_works(select_rows(store, package_query(ASSESSMENTS).bind({})))


def outcomes(
    store: Store, filters: OutcomeFilters, offset: int = 0, limit: int = 100
) -> Page[WorkOutcome]:
    """A page of the assessed works that pass ``filters``, by work IRI, with the total."""
    kept = sorted(
        (w for w in work_outcomes(store).values() if filters.keep(w)), key=lambda w: w.work
    )
    return Page(kept[offset : offset + limit], len(kept), offset, limit)


# --------------------------------------------------------------------------- the overview


class Listed(Protocol):
    """A work as the papers list lists it: the overview counts by the list's own venue and
    year, so a count and the list filtered to it can never disagree."""

    @property
    def iri(self) -> str: ...

    @property
    def venue(self) -> str: ...

    @property
    def year(self) -> int | None: ...


@dataclass(frozen=True)
class Count:
    """How many works, and the papers-list filters that list exactly those works (empty
    ``filters`` with ``linked`` false: the list has no filter for them, e.g. no venue)."""

    n: int
    filters: tuple[tuple[str, str], ...] = ()
    linked: bool = True


@dataclass(frozen=True)
class Row:
    """One row of an overview table: its works, and of them those with each outcome (in
    the scheme's order, :data:`reprokg.evidence.scheme.OUTCOME_ORDER`)."""

    key: str
    label: str
    works: Count
    outcomes: tuple[Count, ...] = ()
    #: what the row's outcomes mean for it (a kind of evidence words its outcomes its way)
    words: tuple[str, ...] = ()


@dataclass(frozen=True)
class Table:
    key: str
    title: str
    #: what a row is, for the first column's header
    row_header: str
    rows: tuple[Row, ...]
    #: whether the rows have outcome columns
    by_outcome: bool = True


@dataclass(frozen=True)
class Overview:
    """What the graph knows about "was it reproduced?", counted in works (decisions folded
    per work by the passport's functions, never raw records), each count with the papers
    list's filters that show exactly its works."""

    papers: Count
    assessed: Count
    unassessed: Count
    #: assessed works the list does not list (a comparison or run a computed verdict judges)
    not_papers: int
    tables: tuple[Table, ...] = field(default_factory=tuple)

    def rows(self) -> list[dict[str, Any]]:
        """Every count as one row (the CSV and JSON of ``/evidence``): table, row, outcome
        (blank for the row's works) and the papers-list filters as a query string."""
        out = [
            _flat("papers", "", label, "", c)
            for label, c in (
                ("papers listed", self.papers),
                ("assessed", self.assessed),
                ("no source assesses it", self.unassessed),
            )
        ]
        for t in self.tables:
            for r in t.rows:
                out.append(_flat(t.key, r.key, r.label, "", r.works))
                for slug, c in zip(OUTCOME_ORDER, r.outcomes, strict=False):
                    out.append(_flat(t.key, r.key, r.label, slug, c))
        return out


COLUMNS = ["table", "key", "row", "outcome", "works", "papers_filters"]


def _flat(table: str, key: str, label: str, outcome: str, c: Count) -> dict[str, Any]:
    return {
        "table": table,
        "key": key,
        "row": label,
        "outcome": outcome,
        "works": c.n,
        "papers_filters": "&".join(f"{k}={v}" for k, v in c.filters) if c.linked else None,
    }


def _count(works: Iterable[WorkOutcome], **filters: str) -> Count:
    return Count(sum(1 for _ in works), tuple(filters.items()))


def _answers(w: WorkOutcome, kind: str = "", document: str = "", outcome: str = "") -> bool:
    return any(
        (not kind or k == kind)
        and (not document or d == document)
        and (not outcome or o == outcome)
        for k, d, o in w.answers
    )


def _row(
    key: str,
    label: str,
    mine: list[WorkOutcome],
    base: dict[str, str],
    linked: bool = True,
    answer: dict[str, str] | None = None,
    words: tuple[str, ...] = (),
) -> Row:
    """A row: its works, and per outcome those with an assessment of that outcome (the same
    assessment matching ``answer``'s kind or document kind as the list's filters do)."""
    answer = answer or {}
    if not linked:
        base = {}
    works = Count(len(mine), tuple(base.items()), linked)
    cells = []
    for slug in OUTCOME_ORDER:
        n = sum(
            _answers(w, answer.get("kind", ""), answer.get("assessed_in", ""), slug) for w in mine
        )
        filters = {**{k: v for k, v in base.items() if k != "assessed"}, "outcome": slug}
        cells.append(Count(n, tuple(filters.items()) if linked else (), linked))
    return Row(key, label, works, tuple(cells), words)


def _kind_words(kind: EvidenceKind) -> tuple[str, ...]:
    return tuple(kind.outcome_words(slug) for slug in OUTCOME_ORDER)


def evidence_overview(works: Mapping[str, WorkOutcome], listed: Iterable[Listed]) -> Overview:
    """The overview of ``/evidence``: the listed works' answers counted by outcome, by kind
    of evidence, by venue, by year and by the kind of document stating them.

    ``works`` is :func:`work_outcomes` (every assessed work's answer); ``listed`` the works
    the papers list lists, with its venue and year, so each count is the number of rows the
    list shows under the count's filters (a test follows every link and checks).
    """
    papers = list(listed)
    assessed = [(p, works[p.iri]) for p in papers if p.iri in works]
    answered = [w for _, w in assessed]
    not_papers = len(works) - len(assessed)
    outcome_rows = [
        Row(
            slug,
            OUTCOME_WORDS.get(slug, slug),
            _count((w for w in answered if slug in w.outcomes), outcome=slug),
        )
        for slug in OUTCOME_ORDER
    ]
    outcome_rows += [
        Row(
            "insufficient-evidence",
            "insufficient evidence (a computed verdict whose rules lack evidence)",
            _count((w for w in answered if w.insufficient), insufficient="yes"),
        ),
        Row(
            "conflict",
            "conflicting claims (a DOI sources give to different titles)",
            _count((w for w in answered if w.summary.conflict), conflict="yes"),
        ),
    ]
    kind_rows = []
    for kind in KINDS:
        mine = [w for w in answered if _answers(w, kind=kind.slug)]
        if mine:
            kind_rows.append(
                _row(
                    kind.slug,
                    kind.label,
                    mine,
                    {"kind": kind.slug},
                    answer={"kind": kind.slug},
                    words=_kind_words(kind),
                )
            )
    by_venue: dict[str, list[WorkOutcome]] = {}
    by_year: dict[int | None, list[WorkOutcome]] = {}
    for p, w in assessed:
        by_venue.setdefault(p.venue, []).append(w)
        by_year.setdefault(p.year, []).append(w)
    venue_rows = [
        _row(v or "", v or "no venue given", mine, {"assessed": "yes", "venue": v}, linked=bool(v))
        for v, mine in sorted(by_venue.items(), key=lambda kv: (not kv[0], -len(kv[1]), kv[0]))
    ]
    year_rows = [
        _row(
            str(y) if y is not None else "",
            str(y) if y is not None else "no year given",
            mine,
            {"assessed": "yes", "year": str(y)},
            linked=y is not None,
        )
        for y, mine in sorted(by_year.items(), key=lambda kv: (kv[0] is None, -(kv[0] or 0)))
    ]
    documents = sorted({d for w in answered for _, d, _ in w.answers if d})
    source_rows = [
        _row(
            d,
            d,
            [w for w in answered if _answers(w, document=d)],
            {"assessed_in": d},
            answer={"assessed_in": d},
        )
        for d in documents
    ]
    return Overview(
        papers=Count(len(papers)),
        assessed=_count(answered, assessed="yes"),
        unassessed=Count(len(papers) - len(assessed), (("assessed", "no"),)),
        not_papers=not_papers,
        tables=(
            Table("outcome", "Works by outcome", "Outcome", tuple(outcome_rows), by_outcome=False),
            Table("kind", "Works by kind of evidence", "Kind of evidence", tuple(kind_rows)),
            Table("venue", "Assessed works by venue", "Venue", tuple(venue_rows)),
            Table("year", "Assessed works by year", "Year", tuple(year_rows)),
            Table("source", "Works by source (kind of document)", "Source", tuple(source_rows)),
        ),
    )
