"""The passport's answer to "was it reproduced?": the rows of ``paper-verdicts.rq`` folded into
one entry per assessment (source, outcome, method, evidence links, date) and a summary.

Every source speaks through one outcome scheme (ontology/assessments.ttl), so the summary
counts outcomes across artifact-evaluation badges, ReScience replications, re-executions,
computed verdicts, audits and stamps. An assessment a later one supersedes is listed (never
dropped) but not counted; a disputed one is counted, marked, and lists its disputes (reason,
who, when).
"""

from __future__ import annotations

from typing import Any

from reprokg.service.web import vocabulary

RK = "https://w3id.org/reprokg/ontology#"
#: outcome concept -> (slug, words), in the order the summary lists them
OUTCOMES = {
    RK + "OutcomeReproduced": ("reproduced", "reproduced"),
    RK + "OutcomePartiallyReproduced": ("partially-reproduced", "partially reproduced"),
    RK + "OutcomeNotReproduced": ("not-reproduced", "not reproduced"),
    RK + "OutcomeInconclusive": ("inconclusive", "inconclusive"),
    RK + "OutcomeNotAttempted": ("not-attempted", "results not assessed"),
}
_HTTP = ("http://", "https://")


def _label(value: Any) -> str:
    """An ontology term's label without its notation (``computed acceptance rule``)."""
    s = str(value or "")
    if s.startswith(RK):
        term = vocabulary.terms().get(s)
        return (term.label if term is not None else None) or s.removeprefix(RK)
    return s


def fold(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per assessment, its links collected (http(s) only; the comparison of a
    computed verdict by its IRI, which the service dereferences)."""
    out: dict[str, dict[str, Any]] = {}
    for r in rows:
        key = str(r["assessment"])
        slug, words = OUTCOMES.get(str(r.get("concept")), ("", _label(r.get("concept"))))
        e = out.setdefault(
            key,
            {
                "assessment": key,
                "outcome": slug,
                "outcome_label": words,
                "source": _label(r.get("source") or r.get("method")),
                "method": _label(r.get("method")),
                "venue": r.get("venue"),
                "year": r.get("year"),
                "date": None if r.get("date") is None else str(r["date"]),
                "as_written": r.get("asWritten"),
                "note": r.get("note"),
                "rule": r.get("rule"),
                "links": [],
                "superseded_by": None,
                "disputed": False,
                "disputes": [],
            },
        )
        for k in ("report", "review", "evidence"):
            v = r.get(k)
            if v is not None and str(v).startswith(_HTTP) and str(v) not in e["links"]:
                e["links"].append(str(v))
        if r.get("supersededBy") is not None:
            e["superseded_by"] = str(r["supersededBy"])
        if r.get("dispute") is not None:
            e["disputed"] = True
            d = str(r["dispute"])
            if all(x["dispute"] != d for x in e["disputes"]):
                by = r.get("disputedBy")
                e["disputes"].append(
                    {
                        "dispute": d,
                        "reason": r.get("disputeReason"),
                        "by": None if by is None else str(by),
                        "by_name": r.get("disputedByName"),
                        "date": None if r.get("disputeDate") is None else str(r["disputeDate"]),
                    }
                )
    return sorted(
        out.values(),
        key=lambda e: (e["superseded_by"] is not None, e["source"], str(e["date"] or "")),
    )


def summary(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts per outcome of the assessments in force (not superseded), with the sources
    that gave each, in words for the page and as numbers for JSON."""
    current = [e for e in entries if e["superseded_by"] is None]
    counts: dict[str, int] = {}
    sources: dict[str, list[str]] = {}
    for slug, _ in OUTCOMES.values():
        hits = [e for e in current if e["outcome"] == slug]
        if hits:
            counts[slug] = len(hits)
            sources[slug] = sorted({e["source"] for e in hits})
    words = dict(OUTCOMES.values())
    text = (
        "; ".join(f"{words[s]}: {n} ({', '.join(sources[s])})" for s, n in counts.items())
        or "no source assesses whether this work was reproduced"
    )
    return {
        "assessments": len(current),
        "superseded": len(entries) - len(current),
        "disputed": sum(e["disputed"] for e in current),
        "outcomes": counts,
        "sources": sorted({e["source"] for e in current}),
        "text": text,
    }
