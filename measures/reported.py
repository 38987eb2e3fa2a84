"""A run's reported measures, evaluated.

An ir_metadata header lists the measures its run reports (``research goal.evaluation.
reported measures``: ``map``, ``P_10`` …). Given the qrels that judge the run, each is
evaluated with ir-measures; :func:`reprokg.measures.leaderboard.add_reported_scores` stores
them on the leaderboards *find baselines* ranks.
"""

from __future__ import annotations

from reprokg.loaders.trec_files import Qrels
from reprokg.measures.effectiveness import Evaluator
from reprokg.measures.inputs import RunInput

#: reported measure name as written -> (ir-measures name, mean score over topics)
Scores = dict[str, tuple[str, float]]


def reported_measures(inp: RunInput) -> list[str]:
    """The measure names the run's header reports (none without a header)."""
    if not (inp.has_header or inp.document is not None):
        return []  # a run file without a header reports nothing
    if inp.graph is None or inp.subject is None:
        return []
    from reprokg.core.namespaces import RK

    g = inp.graph
    return sorted(
        {
            str(m)
            for goal in g.objects(inp.subject, RK.researchGoal)
            for ev in g.objects(goal, RK.evaluation)
            for m in g.objects(ev, RK.reportedMeasure)
        }
    )


def ir_measures_name(reported: str) -> str | None:
    """ir-measures name for a measure as a header reports it (``map`` -> ``AP``)."""
    import ir_measures  # only for runs whose header reports measures

    for parse in (ir_measures.parse_trec_measure, ir_measures.parse_measure):
        try:
            parsed = parse(reported)
        except Exception:  # noqa: BLE001 - unknown names are reported, not fatal
            continue
        parsed = parsed if isinstance(parsed, list) else [parsed]
        if len(parsed) == 1:
            return str(parsed[0])
    return None


def evaluate_reported(inp: RunInput, qrels: Qrels, label: str) -> tuple[Scores, list[str]]:
    """The run's reported measures evaluated on ``qrels`` (mean over topics), and warnings
    (``label`` names the run in them) for names ir-measures does not know."""
    names = reported_measures(inp)
    if not names:
        return {}, []
    resolved = {n: ir_measures_name(n) for n in names}
    warnings = []
    unknown = [n for n, m in resolved.items() if m is None]
    if unknown:
        warnings.append(
            f"{label}: reported measure(s) {', '.join(unknown)} not known to ir-measures; "
            "not evaluated"
        )
    known = sorted({m for m in resolved.values() if m})
    if not known:
        return {}, warnings
    means = Evaluator(qrels, tuple(known)).evaluate(inp.run).means()
    return {n: (m, means[m]) for n, m in resolved.items() if m}, warnings
