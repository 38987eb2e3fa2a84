"""Assessment rows folded into what a person reads: decisions, the works that claim a DOI,
and one summary per work.

The rows are those of ``evidence/sparql/work-assessments.rq`` for one work (the passport)
or for every work (the papers list); both are folded here, by the same functions, so the
list can never say something of a work that its passport does not. Three rules make the
counts honest:

* **one decision, one count**: the same committee decision reached through two sources
  (ReproDB and the venue's results page it consolidates, or two near-copy records) is one
  :class:`Decision` carrying every record and source;
* **conflicts shown, never merged**: when the documents holding a work's assessments give
  it titles that are not one title (a DOI given to two papers by a source), each title is a
  :class:`Claim` with its own decisions, and no count adds two claims;
* **kinds kept apart**: the summary says one line per kind of evidence
  (:mod:`reprokg.evidence.scheme`), never one sum over kinds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from reprokg.evidence.scheme import (
    KINDS,
    OUTCOME_ORDER,
    RE_EXECUTION,
    EvidenceKind,
    kind_of,
    outcome_slug,
)
from reprokg.ontology import labels

RK = "https://w3id.org/reprokg/ontology#"
_HTTP = ("http://", "https://")
_WORD = re.compile(r"[^\W_]+")
#: two titles whose word sets overlap at least this much (Jaccard) name one work
SAME_TITLE = 0.5


def _label(value: Any) -> str:
    """An ontology term's label without its notation (``computed acceptance rule``)."""
    s = str(value or "")
    if s.startswith(RK):
        term = labels.terms().get(s)
        return (term.label if term is not None else None) or s.removeprefix(RK)
    return s


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


@dataclass
class Dispute:
    dispute: str
    reason: str | None
    by: str | None
    by_name: str | None
    date: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "dispute": self.dispute,
            "reason": self.reason,
            "by": self.by,
            "by_name": self.by_name,
            "date": self.date,
        }


@dataclass
class Assessment:
    """One assessment record, as a source stated it."""

    assessment: str
    outcome: str
    kind: EvidenceKind
    source: str
    method: str
    venue: str | None = None
    year: int | None = None
    date: str | None = None
    as_written: str | None = None
    note: str | None = None
    #: who wrote the replication report it rests on (a ReScience or MLRC report's authors)
    by: list[str] = field(default_factory=list)
    byline: str | None = None
    #: what a reader must know with it: a computed verdict's shortfall of evidence, the
    #: comparison's warnings, why it judges this work
    caveats: list[str] = field(default_factory=list)
    #: the rules of a computed verdict (a comparison's verdict is over every rule applied)
    rules: list[str] = field(default_factory=list)
    claimed_title: str | None = None
    #: the kind of the document that states it (``artifact-evaluation``, ``rescience``, …)
    document_kind: str | None = None
    links: list[str] = field(default_factory=list)
    superseded_by: str | None = None
    disputes: list[Dispute] = field(default_factory=list)

    @property
    def in_force(self) -> bool:
        return self.superseded_by is None

    @property
    def words(self) -> str:
        """The outcome in its kind's words (a computed verdict on less evidence than its
        rules need says so: it is never a failure of the work)."""
        if self.as_written == "insufficient-evidence":
            return "insufficient evidence"
        return self.kind.outcome_words(self.outcome)

    def decision_key(self) -> tuple[Any, ...]:
        """Records of one decision share this key: a committee's decision is its venue, year
        and outcome (a source restating it adds a provenance, not a decision); any other
        record is its own decision."""
        if self.kind.slug == "committee" and self.in_force and self.venue:
            return ("committee", self.venue.casefold(), self.year, self.outcome)
        return ("record", self.assessment)


def fold(rows: Iterable[Mapping[str, Any]]) -> list[Assessment]:
    """One :class:`Assessment` per assessment IRI, its links and disputes collected; in
    force before superseded, then by source, date and IRI."""
    out: dict[str, Assessment] = {}
    for r in rows:
        key = str(r["assessment"])
        a = out.get(key)
        if a is None:
            year = r.get("year")
            a = out[key] = Assessment(
                assessment=key,
                outcome=outcome_slug(r.get("concept")),
                kind=kind_of(r.get("method")),
                source=_label(r.get("source") or r.get("method")),
                method=_label(r.get("method")),
                venue=_text(r.get("venue")),
                year=int(year) if isinstance(year, int | str) and str(year).isdigit() else None,
                date=_text(r.get("date")),
                as_written=_text(r.get("asWritten")),
                note=_text(r.get("note")),
                claimed_title=_text(r.get("claimedTitle")),
                document_kind=_text(r.get("documentKind")),
            )
        author = r.get("reportAuthor")  # a person of the report (MLRC), else its byline
        if author is not None and str(author) not in a.by:
            a.by.append(str(author))
        byline = r.get("reportAuthors")
        if byline is not None:
            a.byline = str(byline)
        caveat = r.get("caveat")
        if caveat is not None and str(caveat) not in a.caveats:
            a.caveats.append(str(caveat))
        rule = r.get("rule")
        if rule is not None and str(rule) not in a.rules:
            a.rules.append(str(rule))
        for k in ("report", "review", "evidence"):
            v = r.get(k)
            if v is not None and str(v).startswith(_HTTP) and str(v) not in a.links:
                a.links.append(str(v))
        if r.get("supersededBy") is not None:
            a.superseded_by = str(r["supersededBy"])
        d = r.get("dispute")
        if d is not None and all(x.dispute != str(d) for x in a.disputes):
            a.disputes.append(
                Dispute(
                    str(d),
                    _text(r.get("disputeReason")),
                    _text(r.get("disputedBy")),
                    _text(r.get("disputedByName")),
                    _text(r.get("disputeDate")),
                )
            )
    return sorted(
        out.values(),
        key=lambda a: (not a.in_force, a.source, a.date or "", a.assessment),
    )


@dataclass
class Decision:
    """One decision about a work, with every record (and so every source) that states it."""

    records: list[Assessment]

    @property
    def first(self) -> Assessment:
        return self.records[0]

    @property
    def outcome(self) -> str:
        return self.first.outcome

    @property
    def kind(self) -> EvidenceKind:
        return self.first.kind

    @property
    def sources(self) -> list[str]:
        return sorted({a.source for a in self.records})

    @property
    def disputed(self) -> bool:
        return any(a.disputes for a in self.records)

    @property
    def superseded_by(self) -> str | None:
        return self.first.superseded_by

    def where(self) -> str:
        a = self.first
        return " ".join(str(x) for x in (a.venue, a.year) if x)

    def to_json(self) -> dict[str, Any]:
        """The passport's verdict entry (the keys it had before decisions were folded, plus
        the kind and every record and source)."""
        a = self.first
        links: list[str] = []
        for r in self.records:
            links += [x for x in r.links if x not in links]
        disputes = {d.dispute: d for r in self.records for d in r.disputes}
        return {
            "assessment": a.assessment,
            "assessments": [r.assessment for r in self.records],
            "kind": self.kind.slug,
            "kind_label": self.kind.label,
            "outcome": a.outcome,
            "outcome_label": a.words,
            "source": ", ".join(self.sources),
            "sources": self.sources,
            "method": a.method,
            "venue": a.venue,
            "year": a.year,
            "date": a.date,
            "as_written": a.as_written,
            "note": a.note,
            "caveats": a.caveats,
            "by": a.by or ([a.byline] if a.byline else []),
            "rule": ", ".join(a.rules) or None,
            "rules": a.rules,
            "claimed_title": a.claimed_title,
            "links": links,
            "superseded_by": a.superseded_by,
            "disputed": self.disputed,
            "disputes": [d.to_json() for d in disputes.values()],
        }


def decisions(assessments: Iterable[Assessment]) -> list[Decision]:
    """Records grouped into decisions (superseded records each stay their own)."""
    out: dict[tuple[Any, ...], Decision] = {}
    for a in assessments:
        key = a.decision_key()
        if key in out:
            out[key].records.append(a)
        else:
            out[key] = Decision([a])
    return list(out.values())


def title_words(title: str) -> frozenset[str]:
    return frozenset(w.casefold() for w in _WORD.findall(title))


def same_title(a: str, b: str) -> bool:
    """Whether two titles name one work: the same words, or most of them (a subtitle, a
    spelling): Jaccard of the word sets at least :data:`SAME_TITLE`."""
    wa, wb = title_words(a), title_words(b)
    if not wa or not wb:
        return True
    return len(wa & wb) / len(wa | wb) >= SAME_TITLE


@dataclass
class Claim:
    """A work as one title claims it: the decisions whose documents give that title."""

    title: str | None
    decisions: list[Decision]


def claims(assessments: list[Assessment]) -> list[Claim]:
    """The works the records claim: one, or several when their documents give the work
    titles that are not one title (a conflict). Records whose documents give no title go
    to the only claim, or to a claim of their own when there are several."""
    titled: list[tuple[str, list[Assessment]]] = []
    untitled: list[Assessment] = []
    for a in assessments:
        if not a.claimed_title:
            untitled.append(a)
            continue
        for title, group in titled:
            if same_title(title, a.claimed_title):
                group.append(a)
                break
        else:
            titled.append((a.claimed_title, [a]))
    if len(titled) <= 1:
        only: str | None = titled[0][0] if titled else None
        return [Claim(only, decisions([*(titled[0][1] if titled else []), *untitled]))]
    out = [Claim(t, decisions(group)) for t, group in titled]
    if untitled:
        out.append(Claim(None, decisions(untitled)))
    return out


def kind_lines(decided: list[Decision]) -> list[str]:
    """The answer, one line per kind of evidence (never one sum over kinds)."""
    lines = []
    for kind in KINDS:
        mine = [d for d in decided if d.kind == kind]
        if not mine:
            continue
        if kind == RE_EXECUTION:
            assessed = [d for d in mine if d.outcome != "not-attempted"]
            ran = sum(d.outcome == "reproduced" for d in assessed)
            parts = []
            if assessed:
                parts.append(f"every file ran in {ran} of {len(assessed)} configurations")
            if len(assessed) < len(mine):
                parts.append(f"{len(mine) - len(assessed)} configurations not assessed")
            lines.append(f"{kind.label}: " + ", ".join(parts))
            continue
        by_words: dict[tuple[int, str], list[Decision]] = {}
        order = {slug: i for i, slug in enumerate(OUTCOME_ORDER)}
        for d in mine:
            by_words.setdefault((order.get(d.outcome, len(order)), d.first.words), []).append(d)
        parts = []
        for (_, words), group in sorted(by_words.items()):
            where = sorted({d.where() or ", ".join(d.sources) for d in group})
            n = f"{len(group)}× " if len(group) > 1 else ""
            parts.append(f"{n}{words} ({'; '.join(where)})")
        lines.append(f"{kind.label}: " + ", ".join(parts))
    return lines


@dataclass
class ClaimSummary:
    title: str | None
    outcomes: dict[str, int]
    lines: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "outcomes": self.outcomes, "lines": self.lines}


@dataclass
class Summary:
    """A work's answer: per claim, decisions in force counted per outcome and one line per
    kind; ``conflict`` when the work is claimed by more than one title."""

    claims: list[ClaimSummary]
    decisions: int
    records: int
    superseded: int
    disputed: int
    sources: list[str]

    @property
    def conflict(self) -> bool:
        return sum(c.title is not None for c in self.claims) > 1

    @property
    def outcome_set(self) -> frozenset[str]:
        """Every outcome some decision in force gives (what the list shows and filters on)."""
        return frozenset(o for c in self.claims for o in c.outcomes)

    @property
    def outcomes(self) -> dict[str, int]:
        """Decisions per outcome; empty when claims conflict (no count adds two works)."""
        return {} if self.conflict else dict(self.claims[0].outcomes) if self.claims else {}

    @property
    def text(self) -> str:
        if not self.decisions:
            return "no source assesses whether this work was reproduced"
        if self.conflict:
            titled = [c for c in self.claims if c.title is not None]
            head = f"this DOI is claimed by {len(titled)} works, each with its own evidence"
            parts = [
                f"«{c.title or 'no title given'}»: " + " · ".join(c.lines) for c in self.claims
            ]
            return head + ": " + " | ".join(parts)
        return " · ".join(self.claims[0].lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "assessments": self.decisions,
            "records": self.records,
            "superseded": self.superseded,
            "disputed": self.disputed,
            "outcomes": self.outcomes,
            "outcome_set": [o for o in OUTCOME_ORDER if o in self.outcome_set],
            "conflict": self.conflict,
            "claims": [c.to_json() for c in self.claims],
            "sources": self.sources,
            "text": self.text,
        }


def summarise(assessments: list[Assessment]) -> tuple[Summary, list[Decision]]:
    """The summary of a work's records, and its decisions (in force first) for the list of
    verdicts."""
    current = [a for a in assessments if a.in_force]
    superseded = [a for a in assessments if not a.in_force]
    out: list[ClaimSummary] = []
    decided: list[Decision] = []
    for claim in claims(current):
        counts: dict[str, int] = {}
        for slug in OUTCOME_ORDER:
            n = sum(d.outcome == slug for d in claim.decisions)
            if n:
                counts[slug] = n
        out.append(ClaimSummary(claim.title, counts, kind_lines(claim.decisions)))
        decided += claim.decisions
    summary = Summary(
        claims=out,
        decisions=len(decided),
        records=len(current),
        superseded=len(superseded),
        disputed=sum(d.disputed for d in decided),
        sources=sorted({a.source for a in current}),
    )
    return summary, decided + [Decision([a]) for a in superseded]
