"""Per-topic scores of a stored comparison, recomputed from what the store keeps.

A comparison document stores each measure's aggregate (RMSE over topics, KTU, p-values…),
not the per-topic effectiveness behind them. The run lines and qrels it was computed from
are stored too (documents with content-addressed blobs), so the comparison page evaluates
the original and the reproduced run on one effectiveness measure per topic and charts
reproduced − original per topic: where a reproduction gains and loses. Same-collection
comparisons only (a cross-collection study has no common topics to subtract).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from reprokg.core.errors import ReprokgError
from reprokg.measures.effectiveness import Evaluator
from reprokg.measures.inputs import RunInput, qrels_from_store, run_from_store
from reprokg.measures.primad import baseline_tags, run_tag
from reprokg.store.base import Store


class TopicRow(TypedDict):
    topic: str
    original: float
    reproduced: float | None
    delta: float | None  # reproduced - original


@dataclass
class TopicDeltas:
    side: str  # baseline or advanced
    original: str  # run IRIs
    reproduced: str
    rows: list[TopicRow]


def per_topic(store: Store, inputs: list[dict], measure: str) -> tuple[list[TopicDeltas], str]:
    """Per-topic ``measure`` of each original/reproduced pair, and a note (why none)."""
    kind = next((r.get("kind") for r in inputs if r.get("kind")), None)
    if kind != "same-collection":
        return [], "per-topic deltas are drawn for same-collection comparisons"
    qrels_docs = sorted({r["doc"] for r in inputs if r["role"] == "qrels" and r.get("doc")})
    if len(qrels_docs) != 1:
        return [], "the qrels of this comparison are not stored"
    try:
        qrels = qrels_from_store(store, qrels_docs[0])
        by_role: dict[str, list[RunInput]] = {}
        for r in inputs:
            if r["role"] != "qrels" and r.get("doc"):
                by_role.setdefault(r["role"], []).append(run_from_store(store, r["doc"]))
        sides: dict[str, dict[str, RunInput]] = {}
        for role, runs in by_role.items():
            # an advanced run names the tag of its baseline (another run of its role)
            tags = {run_tag(*d) for r in runs if (d := r.described()) is not None}
            for run in runs:
                d = run.described()
                named = set(baseline_tags(*d)) if d is not None else set()
                side = "advanced" if len(runs) > 1 and named & tags else "baseline"
                sides.setdefault(side, {})[role] = run
    except ReprokgError as exc:
        return [], f"the stored inputs cannot be read: {exc}"
    evaluator = Evaluator(qrels.qrels, (measure,))
    out = []
    for side in ("baseline", "advanced"):
        pair = sides.get(side, {})
        if "original" not in pair or "reproduced" not in pair:
            continue
        orig, rep = (evaluator.evaluate(pair[k].run) for k in ("original", "reproduced"))
        rep_by_topic = dict(zip(rep.topics, rep.column(measure), strict=True))
        rows: list[TopicRow] = []
        for t, o in zip(orig.topics, orig.column(measure), strict=True):
            rep_v = float(rep_by_topic[t]) if t in rep_by_topic else None
            delta = None if rep_v is None else rep_v - float(o)
            rows.append({"topic": t, "original": float(o), "reproduced": rep_v, "delta": delta})
        out.append(
            TopicDeltas(side, str(pair["original"].subject), str(pair["reproduced"].subject), rows)
        )
    return out, "" if out else "no original/reproduced pair with stored run lines"
