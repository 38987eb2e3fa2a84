"""Contradictions: a work that the evidence in force says was reproduced *and* was not.

A read model of the one fold (:mod:`reprokg.evidence.assessments`): for each work, the
decisions in force of each claim (a DOI two sources give to two titles is two works, never
contradicting each other) are paired, a positive decision (*reproduced*) against a
negative one (*not reproduced*) from a different source — a failed replication of a badged
paper, a computed "not reproduced" against a committee's "reproduced" — and every dispute
of a decision in force is a contradiction of its own (the dispute against the assessment).
Two decisions of one source (the Dataverse study's six configurations of one package) do
not contradict each other.

Computed on demand rather than stored at ingest: a contradiction is a function of the
documents in force, so a later revision or dispute changes the answer at once, and no
stored alert can go stale or disagree with the passport (the passport's own fold decides).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from reprokg.evidence.assessments import Assessment, Decision, claims, fold
from reprokg.evidence.passport import ASSESSMENTS
from reprokg.sparql.named import package_query
from reprokg.sparql.rows import select_rows
from reprokg.store.base import Store

RK = "https://w3id.org/reprokg/ontology#"
POSITIVE = frozenset({"reproduced"})
NEGATIVE = frozenset({"not-reproduced"})
#: the kind of a contradiction, by the kind of evidence of its negative side
KIND_OF_NEGATIVE = {
    "replication": "failed-replication",
    "computed": "computed-not-reproduced",
    "re-execution": "failed-re-execution",
}
OTHER = "conflicting-outcomes"
DISPUTE = "dispute"
#: every kind, in the order lists and counts give them
KINDS = ("failed-replication", "computed-not-reproduced", "failed-re-execution", OTHER, DISPUTE)


@dataclass(frozen=True)
class Side:
    """One side of a contradiction: an assessment (or a dispute) as its source stated it."""

    assessment: str
    kind: str
    outcome: str
    sources: tuple[str, ...]
    date: str | None
    venue: str | None
    year: int | None
    note: str | None = None

    @classmethod
    def of(cls, d: Decision) -> Side:
        a: Assessment = d.first
        return cls(
            a.assessment, d.kind.slug, a.outcome, tuple(d.sources), a.date, a.venue, a.year, a.note
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "assessment": self.assessment,
            "kind": self.kind,
            "outcome": self.outcome,
            "sources": list(self.sources),
            "date": self.date,
            "venue": self.venue,
            "year": self.year,
            "note": self.note,
        }


@dataclass(frozen=True)
class Contradiction:
    """A work whose evidence in force disagrees: the earlier and the later side."""

    work: str
    title: str | None
    kind: str
    positive: Side
    negative: Side

    @property
    def id(self) -> str:
        return f"{self.work}#{self.kind}:{self.positive.assessment}|{self.negative.assessment}"

    @property
    def date(self) -> str | None:
        """When it arose: the later of the two sides' dates (``None`` when neither has one)."""
        dates = [d for d in (self.positive.date, self.negative.date) if d]
        return max(dates) if dates else None

    @property
    def venues(self) -> frozenset[str]:
        return frozenset(
            s.venue.casefold() for s in (self.positive, self.negative) if s.venue is not None
        )

    @property
    def text(self) -> str:
        p, n = self.positive, self.negative
        if self.kind == DISPUTE:
            return (
                f"{p.kind} assessment '{p.outcome}' ({', '.join(p.sources)}) disputed by "
                f"{', '.join(n.sources) or 'someone'}: {n.note or 'no reason given'}"
            )
        return (
            f"{p.kind} '{p.outcome}' ({', '.join(p.sources)}) against {n.kind} "
            f"'{n.outcome}' ({', '.join(n.sources)})"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "work": self.work,
            "title": self.title,
            "kind": self.kind,
            "date": self.date,
            "text": self.text,
            "positive": self.positive.to_json(),
            "negative": self.negative.to_json(),
        }


@dataclass(frozen=True)
class ContradictionFilters:
    """Which contradictions to list: a work IRI, a venue (either side's, as written, any
    case), a person's ORCID IRI (the work or a report of either side names them) and kinds."""

    work: str = ""
    venue: str = ""
    orcid: str = ""
    kind: str = ""

    def keep(self, c: Contradiction, by_person: frozenset[str]) -> bool:
        return (
            (not self.work or c.work == self.work)
            and (not self.venue or self.venue.casefold() in c.venues)
            and (not self.kind or c.kind == self.kind)
            and (not self.orcid or c.work in by_person)
        )


def _disputes(work: str, title: str | None, d: Decision) -> list[Contradiction]:
    out = []
    for rec in d.records:
        for x in rec.disputes:
            who = x.by_name or x.by
            side = Side(x.dispute, DISPUTE, "disputed", (who,) if who else (), x.date, None,
                        None, x.reason)  # fmt: skip
            out.append(Contradiction(work, title, DISPUTE, Side.of(d), side))
    return out


def work_contradictions(work: str, assessments: list[Assessment]) -> list[Contradiction]:
    """The contradictions among one work's folded records (per claim, decisions in force)."""
    out: list[Contradiction] = []
    for claim in claims([a for a in assessments if a.in_force]):
        pos = [d for d in claim.decisions if d.outcome in POSITIVE]
        neg = [d for d in claim.decisions if d.outcome in NEGATIVE]
        for p in pos:
            for n in neg:
                if set(p.sources) & set(n.sources):
                    continue
                kind = KIND_OF_NEGATIVE.get(n.kind.slug, OTHER)
                out.append(Contradiction(work, claim.title, kind, Side.of(p), Side.of(n)))
        for d in claim.decisions:
            out += _disputes(work, claim.title, d)
    return out


def find(rows: Iterable[Mapping[str, Any]]) -> list[Contradiction]:
    """Rows of ``work-assessments.rq`` (any number of works) -> their contradictions, by
    date (latest first), then work."""
    by_work: dict[str, list[Mapping[str, Any]]] = {}
    for r in rows:
        by_work.setdefault(str(r["paper"]), []).append(r)
    out = [c for w, mine in by_work.items() for c in work_contradictions(w, fold(mine))]
    out.sort(key=lambda c: c.id)
    out.sort(key=lambda c: c.date or "", reverse=True)
    return out


def _candidates(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """Works that may hold a contradiction (a positive and a negative outcome, or a
    dispute): the others need no second, detailed read."""
    seen: dict[str, set[str]] = {}
    disputed: set[str] = set()
    for r in rows:
        w = str(r["paper"])
        seen.setdefault(w, set()).add(str(r.get("concept") or ""))
        if r.get("dispute") is not None:
            disputed.add(w)
    pos, neg = RK + "OutcomeReproduced", RK + "OutcomeNotReproduced"
    return sorted(w for w, c in seen.items() if (pos in c and neg in c) or w in disputed)


def _people(store: Store, orcid: str, works: list[str]) -> frozenset[str]:
    """The works among ``works`` that the person names: the work itself or a report that
    reproduces it has the ORCID as a value."""
    from reprokg.core.identifiers import orcid_iri

    iri = orcid_iri(orcid)  # an IdentifierError (400) names a malformed iD
    values = " ".join(f"<{w}>" for w in works)
    rows = select_rows(
        store,
        f"SELECT DISTINCT ?w WHERE {{ VALUES ?w {{ {values} }} "
        f"{{ ?w ?p <{iri}> }} UNION {{ ?r <{RK}reproduces> ?w . ?r ?p <{iri}> }} }}",
    )
    return frozenset(str(r["w"]) for r in rows)


def contradictions(
    store: Store, filters: ContradictionFilters | None = None
) -> list[Contradiction]:
    """Every contradiction the evidence in force holds, filtered: one pass over every
    work's assessments (the papers list's query), then the passport's detailed read of the
    works that may hold one (dates, dispute reasons)."""
    filters = filters or ContradictionFilters()
    query = package_query(ASSESSMENTS)
    rows = select_rows(store, query.bind({"paper": [filters.work]} if filters.work else {}))
    works = _candidates(rows)
    if not works:
        return []
    found = find(select_rows(store, query.bind({"paper": works})))
    people = _people(store, filters.orcid, works) if filters.orcid else frozenset()
    return [c for c in found if filters.keep(c, people)]


def counts(found: Iterable[Contradiction]) -> dict[str, int]:
    """Contradictions by kind, every kind named (0 where none)."""
    out = dict.fromkeys(KINDS, 0)
    for c in found:
        out[c.kind] += 1
    return out
