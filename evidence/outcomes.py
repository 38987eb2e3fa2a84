"""Every work's answer at once: the papers list's "was it reproduced?" column and filters.

The rows are the passport's own query without a work bound
(``evidence/sparql/work-assessments.rq``), folded per work by the passport's own functions
(:func:`reprokg.evidence.assessments.summarise`): what the list says of a work is what its
passport says, by construction (a property test holds the two to each other on the whole
field's evidence).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from reprokg.evidence.assessments import Summary, fold, summarise
from reprokg.evidence.passport import ASSESSMENTS
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
        summary, _ = summarise(found)
        kinds = frozenset(a.document_kind for a in found if a.in_force and a.document_kind)
        out[work] = WorkOutcome(work, summary, kinds)
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
