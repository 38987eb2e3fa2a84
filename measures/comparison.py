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
from typing import Any, Literal, cast

from typing_extensions import TypedDict

from reprokg.core.forked import Later, in_child
from reprokg.loaders.trec_files import Qrels, Ranking, Run
from reprokg.measures import reproducibility as rp
from reprokg.measures.effectiveness import Evaluator, TopicScores
from reprokg.measures.rankings import prepare
from reprokg.measures.registry import (
    CROSS,
    MONTE_CARLO,
    SAME,
    Inputs,
    Measure,
    Options,
    OptionsJSON,
    applicable,
    draw_ahead,
)


class ComparisonJSON(TypedDict):
    """``reprokg compare --format json``: the shape ``Comparison.to_json()`` returns and the
    service declares (``/comparisons``)."""

    primad: str | None
    kind: Literal["same-collection", "cross-collection"]
    measures: dict[str, Any]
    (
        "measure -> {side -> value or {effectiveness measure -> value}} or "
        "{effectiveness measure -> value}: repro_eval's measures (ktu, rbo, rmse, nrmse, "
        "pvalue, er, dri), each run's mean (original_mean, reproduced_mean), then the "
        "statistics (wilcoxon, randomization, mean_diff with its BCa interval, dz and gz "
        "with noncentral-t intervals, the corrected p-values)"
    )
    warnings: list[str]
    options: OptionsJSON


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

    def to_json(self) -> ComparisonJSON:
        return {
            "primad": self.primad,
            "kind": cast(Literal["same-collection", "cross-collection"], self.kind),
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


#: run lines of the advanced runs below which computing their side in a forked child
#: costs more than it saves (forking and the child's exit against pytrec_eval's speed:
#: benchmarks/README.md#figures-once-quoted-in-code)
CHILD_MIN_LINES = 20_000


@dataclass
class Side:
    """One side's share of a comparison (baseline or advanced: an original and a reproduced
    run): both runs' topic scores and the values of the measures that need only this side,
    with the warnings each step gave, kept apart so the merged list keeps one order."""

    scores: dict[str, TopicScores]
    #: measure -> its value for this side (``{"baseline": x}``)
    values: dict[str, Any]
    coverage: list[str]
    #: measure -> the sentences it added
    notes: dict[str, list[str]]


def _compute_side(
    kind: str,
    side: tuple[str, str, str],
    runs: dict[str, Run],
    evaluators: dict[str, Evaluator],
    opts: Options,
    wanted: list[Measure],
    *,
    alone: bool = False,
) -> Side:
    """Prepare, evaluate and measure one side (its runs copied: the callers' stay as given).

    The sides are independent until the measures across sides (ER, DRI, corrections), so
    the advanced one is computed by a forked child while this process computes the
    baseline: pytrec_eval and the KTU sorts hold the GIL, so only a second process puts
    the second core to work (core/forked.py).
    """
    _, o, r = side
    pair = {o: runs[o], r: runs[r]}
    if kind == SAME:  # shared docid codes for the pair (on copies)
        pair = {k: _copy(v) for k, v in pair.items()}
        rp.attach_codes(pair[o], pair[r])
    score_ordered = opts.order == "score"
    prepared = {
        k: prepare(v, depth=opts.depth, score_ordered=score_ordered) for k, v in pair.items()
    }
    coverage: list[str] = []
    for k, run in prepared.items():
        _coverage(evaluators[k].qrels, run, k.replace("_", " "), coverage)

    # alone, the side splits: the reproduced run is evaluated by a forked child while this
    # process evaluates the original and compares the rankings (which need no scores)
    def evaluate_r() -> TopicScores:
        return evaluators[r].evaluate(prepared[r])

    rest: Later[TopicScores] = (
        in_child(evaluate_r, when_idle=True)
        if alone and len(prepared[r]) >= CHILD_MIN_LINES
        else Later(evaluate_r)
    )
    values: dict[str, Any] = {}
    notes: dict[str, list[str]] = {}
    shared: dict[str, Any] = {}  # what the side's measures share (stats: differences, ...)
    try:
        scores = {o: evaluators[o].evaluate(prepared[o])}
        mine = [m for m in wanted if not (m.needs_advanced or m.across_sides)]
        for m in sorted(mine, key=lambda m: m.compares != "rankings"):
            if m.compares != "rankings" and r not in scores:
                scores[r] = rest.result()
            notes[m.name] = []
            inputs = Inputs(kind, prepared, scores, [side], opts, notes[m.name], shared)
            # compute is a plain function in a field
            values[m.name] = m.compute(inputs)  # type: ignore[misc]
        scores[r] = rest.result()
    finally:
        rest.discard()
    return Side(scores, values, coverage, notes)


#: the two sides of a comparison: (side, original run's role, reproduced run's role)
BASELINE = ("baseline", "orig_base", "rep_base")
ADVANCED = ("advanced", "orig_adv", "rep_adv")


def advanced_side(
    qrels: Qrels, orig_adv: Run, rep_adv: Run, options: Options | None = None
) -> Side:
    """The advanced side of a same-collection comparison, on its own: what :func:`compare`
    computes for it. ``reprokg compare``'s forked child computes it from the advanced runs
    it read, so no run crosses back (``compare(..., advanced=)`` takes it)."""
    opts = options or Options()
    wanted = applicable(SAME, advanced=True)
    evaluator = Evaluator(qrels, opts.measures)
    draw_ahead(wanted, opts, len(qrels))  # every judged topic is scored: n = len(qrels)
    runs = {"orig_adv": orig_adv, "rep_adv": rep_adv}
    return _compute_side(SAME, ADVANCED, runs, dict.fromkeys(runs, evaluator), opts, wanted)


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
    advanced: Later[Side] | None = None,
) -> Comparison:
    """Every applicable measure for original vs reproduced runs.

    ``kind`` defaults to cross-collection when ``qrels_rpl`` is given (the reproduced runs
    are judged by other qrels), else same-collection. ``advanced``: the advanced side
    computed elsewhere by :func:`advanced_side` (same-collection), asked for once the
    baseline side is done; the advanced runs given are then needed only for their names
    and warnings.
    """
    opts = options or Options()
    kind = kind or (CROSS if qrels_rpl is not None else SAME)
    if advanced is not None and (kind != SAME or orig_adv is None or rep_adv is None):
        raise ValueError("an advanced side computed elsewhere is of a same-collection study")
    warnings: list[str] = []
    for r in (orig_base, rep_base, orig_adv, rep_adv):
        if r is not None:
            warnings.extend(r.warnings)
    if (orig_adv is None) != (rep_adv is None):
        warnings.append(
            "only one advanced run given; advanced-run measures, ER and DRI are left out"
        )
        orig_adv = rep_adv = None
    runs = {"orig_base": orig_base, "rep_base": rep_base}
    sides = [BASELINE]
    if orig_adv is not None and rep_adv is not None:
        runs.update(orig_adv=orig_adv, rep_adv=rep_adv)
        sides.append(ADVANCED)
    orig_eval = Evaluator(qrels, opts.measures)
    rep_eval = orig_eval if qrels_rpl is None else Evaluator(qrels_rpl, opts.measures)
    evaluators = {k: orig_eval if k.startswith("orig") else rep_eval for k in runs}
    wanted = applicable(kind, advanced=len(sides) > 1)

    def side_of(side: tuple[str, str, str]) -> Side:
        return _compute_side(kind, side, runs, evaluators, opts, wanted, alone=len(sides) == 1)

    if any(m.name in MONTE_CARLO for m in wanted):
        # imported once, before the advanced side's child is forked: each process imported
        # it on its own, paying its import's CPU twice
        import numpy.random  # noqa: F401

        if kind == SAME and len(sides) > 1:  # every judged topic is scored: n = len(qrels)
            draw_ahead(wanted, opts, len(qrels))
    later: Later[Side] | None = advanced
    if later is None and len(sides) > 1:
        if len(runs["orig_adv"]) + len(runs["rep_adv"]) >= CHILD_MIN_LINES:
            # on a busy machine a child only shares this core (``cpu_idle`` of core/forked.py)
            later = in_child(lambda: side_of(ADVANCED), when_idle=True)
        else:
            later = Later(lambda: side_of(ADVANCED))
    try:
        done = [side_of(sides[0])]
        if later is not None:
            done.append(later.result())
    finally:
        if later is not None:
            later.discard()
    scores = {k: v for d in done for k, v in d.scores.items()}
    for d in done:
        warnings.extend(d.coverage)
    values: dict[str, Any] = {}
    across: dict[str, Any] = {}  # shared by the measures across sides (ΔRI's bootstrap)
    for m in wanted:
        if m.needs_advanced or m.across_sides:
            # across sides: every side's values of the measures before it (a correction's
            # family is its test's p-values of every measure and side)
            across.update(values)
            inputs = Inputs(kind, {}, scores, sides, opts, warnings, across)
            # compute is a plain function in a field
            values[m.name] = m.compute(inputs)  # type: ignore[misc]
            continue
        values[m.name] = {k: v for d in done for k, v in d.values[m.name].items()}
        for d in done:
            warnings.extend(d.notes[m.name])
    return Comparison(
        kind=kind,
        measures=values,
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
