"""Assemble a reproducibility comparison of runs: which measures apply, their values, warnings.

``compare`` takes parsed runs and qrels and returns a :class:`Comparison` whose
:meth:`Comparison.to_json` is the ``reprokg compare --format json`` / API shape::

    {"primad": str|null, "kind": "same-collection"|"cross-collection",
     "measures": {"ktu": {"baseline": x, "advanced": y}, "rbo": {...},
                  "rmse": {"baseline": {MEASURE: x}, "advanced": {...}}, "nrmse": {...},
                  "pvalue": {"baseline": {...}, "advanced": {...}},
                  "er": {MEASURE: x}, "dri": {MEASURE: x}},
     "warnings": [...], "options": {...}}

Measures that do not apply (no advanced runs, cross-collection) are absent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reprokg.core.forked import Later, in_child
from reprokg.loaders.trec import Qrels, Ranking, Run
from reprokg.measures import reproducibility as rp
from reprokg.measures.effectiveness import Evaluator, TopicScores
from reprokg.measures.registry import CROSS, SAME, Inputs, Options, applicable
from reprokg.measures.trec import prepare


@dataclass
class Comparison:
    kind: str
    measures: dict[str, Any]
    primad: str | None = None
    warnings: list[str] = field(default_factory=list)
    options: Options = field(default_factory=Options)
    #: per-topic effectiveness of each run role, kept for reports and the RDF document
    scores: dict[str, TopicScores] = field(default_factory=dict)
    #: topic means of each run role: the runs' measured effectiveness
    means: dict[str, dict[str, float]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "primad": self.primad,
            "kind": self.kind,
            "measures": self.measures,
            "warnings": list(self.warnings),
            "options": self.options.to_json(),
        }


def _coverage(judged: Qrels, run: Run, role: str, warnings: list[str]) -> None:
    """What ir-measures does with the run's unmatched topics, said in ``warnings``.

    ir-measures (like ``trec_eval -c``) scores every judged topic, a judged topic the run
    has no ranking for scoring 0, and ignores the run's unjudged topics.
    """
    judged_topics = set(judged)
    unjudged = sorted(set(run.topics) - judged_topics)
    missing = sorted(judged_topics - set(run.topics))
    if not set(run.topics) & judged_topics:
        warnings.append(f"{role}: no topic of the run is judged; every judged topic scores 0")
        return
    if unjudged:
        warnings.append(
            f"{role}: {len(unjudged)} topic(s) have no relevance judgements and are not "
            f"evaluated ({', '.join(unjudged[:10])})"
        )
    if missing:
        warnings.append(
            f"{role}: no ranking for {len(missing)} judged topic(s), which score 0 "
            f"({', '.join(missing[:10])})"
        )


#: run lines evaluated in a forked child below which the fork costs more than it saves
#: (forking, and the child's exit, take ~10 ms; pytrec_eval evaluates ~1.6M lines a second)
CHILD_MIN_LINES = 20_000


def _evaluate(jobs: dict[str, tuple[Evaluator, Run]]) -> Later[dict[str, TopicScores]]:
    """Per-topic scores of every run but the first, computed in a forked child while the
    parent evaluates the first run and compares the rankings (KTU, RBO): pytrec_eval holds
    the GIL, so only a second process puts the second core to work (core/forked.py)."""
    rest = list(jobs)[1:]

    def evaluate_rest() -> dict[str, TopicScores]:
        return {k: jobs[k][0].evaluate(jobs[k][1]) for k in rest}

    if sum(len(jobs[k][1]) for k in rest) >= CHILD_MIN_LINES:
        return in_child(evaluate_rest)
    return Later(evaluate_rest)


def compare(
    qrels: Qrels,
    orig_base: Run,
    rep_base: Run,
    orig_adv: Run | None = None,
    rep_adv: Run | None = None,
    qrels_rpl: Qrels | None = None,
    *,
    options: Options | None = None,
    primad: str | None = None,
    kind: str | None = None,
) -> Comparison:
    """Every applicable measure for original vs reproduced runs.

    ``kind`` defaults to cross-collection when ``qrels_rpl`` is given (the reproduced runs
    are judged by other qrels), else same-collection.
    """
    opts = options or Options()
    kind = kind or (CROSS if qrels_rpl is not None else SAME)
    warnings: list[str] = []
    for r in (orig_base, rep_base, orig_adv, rep_adv):
        if r is not None:
            warnings.extend(r.warnings)
    if (orig_adv is None) != (rep_adv is None):
        warnings.append(
            "only one advanced run given; advanced-run measures, ER and DRI are left out"
        )
        orig_adv = rep_adv = None
    score_ordered = opts.order == "score"
    runs = {"orig_base": orig_base, "rep_base": rep_base, "orig_adv": orig_adv, "rep_adv": rep_adv}
    if kind == SAME:
        # shared docid codes per pair (on copies: the callers' runs stay untouched)
        runs = {k: _copy(r) if r is not None else None for k, r in runs.items()}
        rp.attach_codes(runs["orig_base"], runs["rep_base"])
        if runs["orig_adv"] is not None:
            rp.attach_codes(runs["orig_adv"], runs["rep_adv"])
    prepared = {
        k: prepare(r, depth=opts.depth, score_ordered=score_ordered)
        for k, r in runs.items()
        if r is not None
    }
    orig_eval = Evaluator(qrels, opts.measures)
    rep_eval = orig_eval if qrels_rpl is None else Evaluator(qrels_rpl, opts.measures)
    jobs = {k: (orig_eval if k.startswith("orig") else rep_eval, r) for k, r in prepared.items()}
    for k, (ev, r) in jobs.items():
        _coverage(ev.qrels, r, k.replace("_", " "), warnings)
    rest = _evaluate(jobs)
    try:
        first = next(iter(jobs))
        scores: dict[str, TopicScores] = {first: jobs[first][0].evaluate(jobs[first][1])}
        pairs = [("baseline", "orig_base", "rep_base")]
        if "orig_adv" in prepared:
            pairs.append(("advanced", "orig_adv", "rep_adv"))
        inputs = Inputs(kind, prepared, scores, pairs, opts, warnings)
        wanted = applicable(kind, advanced="orig_adv" in prepared)
        # the rankings' measures need no topic scores: computed while the child evaluates
        values: dict[str, Any] = {
            m.name: m.compute(inputs)  # type: ignore[misc]
            for m in wanted
            if m.compares == "rankings"
        }
        scores.update(rest.result())
        scores = {k: scores[k] for k in jobs}  # role order, as the runs were given
        inputs.scores = scores
        for m in wanted:
            if m.name not in values:
                values[m.name] = m.compute(inputs)  # type: ignore[misc]
    finally:
        rest.discard()
    measures = {m.name: values[m.name] for m in wanted}
    return Comparison(
        kind=kind,
        measures=measures,
        primad=primad,
        warnings=_dedupe(warnings),
        options=opts,
        scores=scores,
        means={k: v.means() if v.topics else {} for k, v in scores.items()},
    )


def _copy(run: Run) -> Run:
    topics = {t: Ranking(r.docs, r.scores, r.codes) for t, r in run.topics.items()}
    return Run(name=run.name, topics=topics, tag=run.tag, warnings=list(run.warnings))


def _dedupe(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))
