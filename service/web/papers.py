"""The papers view's data: one record per publication, filtered, sorted, paged and charted
in memory from the rows of ``service/web/queries/papers-index.rq``.

Why in memory: the same filters written as SPARQL (a page of rows, the count for the
pager, the per-year and per-topic code shares) were slow *each* at demo size
(benchmarks/README.md#figures-once-quoted-in-code), and a page needs four of them; the index query
is one scan, and a filter over its records is a set intersection. The index is rebuilt when the
store's generation changes, so a loaded document shows at once.
Because the table, its CSV/JSON and the charts are computed from the same filtered list,
the CSV of a filtered view is exactly the rows shown.
"""

from __future__ import annotations

import bisect
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rdflib import Literal, URIRef

from reprokg.evidence.outcomes import WorkOutcome
from reprokg.evidence.scheme import OUTCOME_ORDER
from reprokg.service.web.charts import Proportion

RK = "https://w3id.org/reprokg/ontology#"
WORD_RE = re.compile(r"\w+")
PAGE_SIZES = (25, 50, 100, 200)
#: sort keys offered by the table headers (key -> record attribute); never request text
SORTS: dict[str, Callable[[PaperRecord], Any]] = {}


@dataclass(slots=True)
class PaperRecord:
    iri: str
    title: str = ""
    year: int | None = None
    venue: str = ""
    doi: str = ""
    topics: set[str] = field(default_factory=set)
    sources: set[str] = field(default_factory=set)
    code_answers: list[bool] = field(default_factory=list)
    #: outcome slugs of the work's decisions in force (its passport's, every source)
    outcomes: set[str] = field(default_factory=set)
    #: sources give the work (a DOI) conflicting titles
    conflict: bool = False
    #: some source assesses whether it was reproduced (its passport has verdicts)
    assessed: bool = False
    #: (kind of evidence, kind of document, outcome) of each assessment in force
    answers: set[tuple[str, str, str]] = field(default_factory=set)
    #: a computed verdict in force lacks the evidence its rules need
    insufficient: bool = False
    n: int = 0  # position in the index (posting lists hold these)
    title_lc: str = ""

    @property
    def code(self) -> str | None:
        """'yes' if any source says code is shared, 'no' if sources answer and none does."""
        if not self.code_answers:
            return None
        return "yes" if any(self.code_answers) else "no"

    def row(self) -> dict[str, Any]:
        return {
            "paper": self.iri,
            "doi": self.doi or None,
            "title": self.title or None,
            "year": self.year,
            "venue": self.venue or None,
            "topics": ", ".join(sorted(self.topics)) or None,
            "code": self.code,
            "outcomes": ", ".join(o for o in OUTCOME_ORDER if o in self.outcomes) or None,
            "sources": ", ".join(sorted(self.sources)),
        }


COLUMNS: list[tuple[str, str]] = [
    ("title", "Title"),
    ("year", "Year"),
    ("venue", "Venue"),
    ("topics", "Topics"),
    ("code", "Code shared"),
    ("outcomes", "Reproduced?"),
    ("sources", "Described by"),
    ("doi", "DOI"),
    ("paper", "IRI"),
]
SORTS.update(
    {
        "title": lambda r: (r.title.lower(), r.iri),
        "year": lambda r: (r.year is None, r.year or 0, r.title.lower()),
        "venue": lambda r: (r.venue.lower(), r.title.lower()),
        "code": lambda r: ({"yes": 0, "no": 1, None: 2}[r.code], r.title.lower()),
        "sources": lambda r: (", ".join(sorted(r.sources)), r.title.lower()),
    }
)


def fold(rows: Iterable[dict[str, Any]]) -> dict[str, PaperRecord]:
    """``(paper, key, value)`` rows of papers-index.rq -> one record per paper."""
    out: dict[str, PaperRecord] = {}
    # a run header's research goal names the venue and year (ir_metadata has them on the
    # goal): used when no source gives the paper's own, whatever order the rows come in
    goal_year: dict[str, int] = {}
    goal_venue: dict[str, str] = {}
    for row in rows:
        iri = str(row["paper"])
        rec = out.get(iri)
        if rec is None:
            rec = out[iri] = PaperRecord(iri)
        key, value = str(row["key"]), row.get("value")
        py = value.toPython() if isinstance(value, Literal) else value
        if key == "title":
            rec.title = str(py)
        elif key == "year" and isinstance(py, int):
            rec.year = py
        elif key == "date" and rec.year is None:
            text = str(value)[:4]
            rec.year = int(text) if text.isdigit() else None
        elif key == "venue":
            rec.venue = str(py)
        elif key == "doi":
            rec.doi = str(py)
        elif key == "topic" and isinstance(value, URIRef):
            rec.topics.add(str(value).removeprefix(RK + "Topic"))
        elif key == "source":
            rec.sources.add(str(py))
        elif key == "code" and isinstance(py, bool):
            rec.code_answers.append(py)
        elif key == "goalYear" and isinstance(py, int):
            goal_year.setdefault(iri, py)
        elif key == "goalVenue":
            goal_venue.setdefault(iri, str(py))
    for iri, rec in out.items():
        if rec.year is None and iri in goal_year:
            rec.year = goal_year[iri]
        if not rec.venue and iri in goal_venue:
            rec.venue = goal_venue[iri]
    return out


def answer_patterns(answer: tuple[str, str, str]) -> list[str]:
    """The ``answer`` posting keys of one (kind, document kind, outcome): each with any of
    the three left open (``*``), so kind, ``assessed_in`` and outcome filters given together
    match one assessment, not three different ones."""
    out = []
    for mask in range(8):
        parts = [v if mask & (1 << i) else "*" for i, v in enumerate(answer)]
        out.append("|".join(parts))
    return out


@dataclass(frozen=True)
class Filters:
    q: str = ""
    year: int | None = None
    venue: str = ""
    topic: str = ""
    code: str = ""
    source: str = ""
    #: a second source holding the work too (``/sources/{name}``'s works both hold)
    also_source: str = ""
    outcome: str = ""
    #: an assessment of this kind of evidence (``committee``, ``re-execution``, …)
    kind: str = ""
    #: an assessment stated in a document of this kind (``rescience``, …)
    assessed_in: str = ""
    #: ``yes``: some source assesses it; ``no``: none does
    assessed: str = ""
    #: ``yes``: sources give its DOI conflicting titles
    conflict: str = ""
    #: ``yes``: a computed verdict lacks evidence
    insufficient: str = ""

    def empty(self) -> bool:
        return not self.params()

    def answer(self) -> str | None:
        """The ``answer`` posting key of the kind/assessed_in/outcome filters (None: none)."""
        if not (self.kind or self.assessed_in or self.outcome):
            return None
        return "|".join(v or "*" for v in (self.kind, self.assessed_in, self.outcome))

    def postings(self) -> list[tuple[str, str]]:
        """The (facet, value) pairs a posting list answers (all but the title words)."""
        pairs = [("year", str(self.year))] if self.year is not None else []
        pairs += [
            (k, getattr(self, k))
            for k in ("venue", "topic", "code", "source", "assessed", "conflict", "insufficient")
            if getattr(self, k)
        ]
        pairs += [("source", self.also_source)] if self.also_source else []
        answer = self.answer()
        return pairs + ([("answer", answer)] if answer else [])

    def _answers(self, r: PaperRecord) -> bool:
        want = (self.kind, self.assessed_in, self.outcome)
        return any(all(not w or w == v for w, v in zip(want, a, strict=True)) for a in r.answers)

    def matches(self, r: PaperRecord) -> bool:
        return (
            (
                not self.q
                or all(
                    any(t.startswith(w) for t in WORD_RE.findall(r.title.lower()))
                    for w in WORD_RE.findall(self.q.lower())
                )
            )
            and (self.year is None or r.year == self.year)
            and (not self.venue or r.venue == self.venue)
            and (not self.topic or self.topic in r.topics)
            and (not self.code or r.code == self.code)
            and (not self.source or self.source in r.sources)
            and (not self.also_source or self.also_source in r.sources)
            and (self.answer() is None or self._answers(r))
            and (not self.assessed or r.assessed == (self.assessed == "yes"))
            and (not self.conflict or r.conflict == (self.conflict == "yes"))
            and (not self.insufficient or r.insufficient == (self.insufficient == "yes"))
        )

    def params(self) -> dict[str, str]:
        out = {k: str(v) for k, v in self.__dict__.items() if v not in ("", None)}
        return out


class PaperIndex:
    """Every paper's record, sorted once per sort key, with posting lists per facet value
    and title word; built from the rows of ``papers-index.rq`` and every work's answer of
    :func:`reprokg.evidence.outcomes.work_outcomes` (one store generation:
    :func:`reprokg.service.web.render.cache` rebuilds it when the store changes).

    Sorting is done once per sort key (a filter keeps the order of the list it filters),
    and derived values (facets, unfiltered charts) are kept with the index: at 100k
    papers an unfiltered request is a slice instead of a sort
    (benchmarks/README.md#figures-once-quoted-in-code).
    """

    def __init__(
        self,
        rows: Iterable[dict[str, Any]],
        outcomes: Mapping[str, WorkOutcome] | None = None,
    ) -> None:
        self._lock = threading.Lock()
        folded = fold(rows)
        for work, w in (outcomes or {}).items():  # the passport's answer, for each work listed
            rec = folded.get(work)
            if rec is None:  # a comparison or run a computed verdict judges: not a paper
                continue
            rec.title = rec.title or w.title or ""
            if w.summary.conflict:  # as the passport: no one title, each claim named
                claimed = [c.title for c in w.summary.claims if c.title]
                rec.title = f"DOI claimed by {len(claimed)} works: " + " / ".join(claimed)
            rec.outcomes = set(w.outcomes)
            rec.sources |= w.document_kinds
            rec.conflict = w.summary.conflict
            rec.assessed = True
            rec.answers = set(w.answers)
            rec.insufficient = w.insufficient
        records = list(folded.values())
        postings: dict[tuple[str, str], set[int]] = {}
        words: dict[str, set[int]] = {}
        for i, r in enumerate(records):
            r.n, r.title_lc = i, r.title.lower()
            keys = [("venue", r.venue), ("code", r.code or "")]
            keys += [("year", str(r.year))] if r.year is not None else []
            keys += [("topic", t) for t in r.topics]
            keys += [("source", s) for s in r.sources]
            keys += [("answer", p) for a in r.answers for p in answer_patterns(a)]
            keys += [("assessed", "yes" if r.assessed else "no")]
            keys += [("conflict", "yes" if r.conflict else "no")]
            keys += [("insufficient", "yes" if r.insufficient else "no")]
            for k in keys:
                postings.setdefault(k, set()).add(i)
            for w in WORD_RE.findall(r.title_lc):
                words.setdefault(w, set()).add(i)
        self._records = records
        #: every assessed work's answer (the list's and ``/evidence``'s one read model)
        self.outcomes: Mapping[str, WorkOutcome] = outcomes or {}
        self._postings, self._words = postings, words
        self._vocabulary = sorted(words)
        self._orders: dict[str, list[PaperRecord]] = {}
        self._derived: dict[str, Any] = {}

    def __len__(self) -> int:
        return len(self._records)

    def records(self) -> list[PaperRecord]:
        return self._records

    def ordered(self, sort: str = "title") -> list[PaperRecord]:
        key = sort if sort in SORTS else "title"
        with self._lock:
            if key not in self._orders:
                self._orders[key] = sorted(self._records, key=SORTS[key])
            return self._orders[key]

    def cached(self, key: str, compute: Callable[[], Any]) -> Any:
        """A value derived from this index (computed once)."""
        with self._lock:
            if key in self._derived:
                return self._derived[key]
        value = compute()
        with self._lock:
            self._derived.setdefault(key, value)
        return value

    def select(
        self, filters: Filters, sort: str = "title", desc: bool = False
    ) -> list[PaperRecord]:
        """The records passing ``filters`` in the wanted order: facets by intersecting
        posting lists; a title word matches the title words it begins ("reproduc" finds
        "reproducible")."""
        ordered = self.ordered(sort)
        sets = [self._postings.get(p, set()) for p in filters.postings()]
        for w in WORD_RE.findall(filters.q.lower()):
            at = bisect.bisect_left(self._vocabulary, w)
            hits: set[int] = set()
            while at < len(self._vocabulary) and self._vocabulary[at].startswith(w):
                hits |= self._words[self._vocabulary[at]]
                at += 1
            sets.append(hits)
        rows = ordered
        if sets:
            sets.sort(key=len)
            ids = set.intersection(*sets) if len(sets) > 1 else sets[0]
            rows = [r for r in ordered if r.n in ids]
        return rows[::-1] if desc else rows


def select(ordered: list[PaperRecord], filters: Filters, desc: bool = False) -> list[PaperRecord]:
    """Without an index (tests, small lists): the same rows by testing each record."""
    rows = ordered if filters.empty() else [r for r in ordered if filters.matches(r)]
    return rows[::-1] if desc else rows


def facets(records: list[PaperRecord]) -> dict[str, list[tuple[str, int]]]:
    """Values each filter offers, with how many papers have it (over all papers)."""
    counts: dict[str, dict[str, int]] = {
        "year": {},
        "venue": {},
        "topic": {},
        "source": {},
        "outcome": {},
    }
    for r in records:
        if r.year is not None:
            counts["year"][str(r.year)] = counts["year"].get(str(r.year), 0) + 1
        if r.venue:
            counts["venue"][r.venue] = counts["venue"].get(r.venue, 0) + 1
        for t in r.topics:
            counts["topic"][t] = counts["topic"].get(t, 0) + 1
        for s in r.sources:
            counts["source"][s] = counts["source"].get(s, 0) + 1
        for o in r.outcomes:
            counts["outcome"][o] = counts["outcome"].get(o, 0) + 1
    return {k: sorted(v.items()) for k, v in counts.items()}


def code_by(rows: list[PaperRecord], key: str) -> list[Proportion]:
    """Papers with code shared among those whose code status is known, per year or topic."""
    groups: dict[str, list[int]] = {}
    for r in rows:
        labels = (
            [str(r.year) if r.year is not None else "unknown"]
            if key == "year"
            else (sorted(r.topics) or ["none"])
        )
        for label in labels:
            k_n = groups.setdefault(label, [0, 0])
            if r.code is not None:
                k_n[1] += 1
                k_n[0] += r.code == "yes"
    return [Proportion(label, k, n) for label, (k, n) in sorted(groups.items())]
