"""Per-topic effectiveness with ir-measures (pytrec_eval underneath), as a topic x measure matrix.

The default measure set is exactly what repro_eval 0.5.0 evaluates (its ``load_measures``:
trec_eval's ``P``, ``recall``, ``ndcg``, ``ndcg_cut``, ``map_cut``, ``set_*``, ``Rprec``,
``infAP``, ``bpref``, ``recip_rank``, ``map``, ``iprec_at_recall`` converted to ir-measures
names), so the numbers agree with it; it is written out here so it does not depend on the
ir-measures version's name conversion.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from typing import Any

import numpy as np

from reprokg.loaders.trec_files import Qrels, Run

_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)

#: repro_eval 0.5.0's measures, in its order, named as ir-measures names them.
DEFAULT_MEASURES: tuple[str, ...] = (
    *(f"P@{k}" for k in _CUTOFFS),
    *(f"R@{k}" for k in _CUTOFFS),
    "nDCG",
    *(f"nDCG@{k}" for k in _CUTOFFS),
    *(f"AP@{k}" for k in _CUTOFFS),
    "SetAP",
    "SetP",
    "SetP(relative=True)",
    "SetR",
    "SetF",
    "Rprec",
    "infAP",
    "Bpref",
    "RR",
    "AP",
    *(f"IPrec@{r / 10:.1f}" for r in range(11)),
)

#: trec_eval's name (pytrec_eval's key) of each default measure, as ir-measures' pytrec_eval
#: provider names them in one invocation (relevance level 1, all documents; every default
#: is 0 for a topic the run lacks). With it the default evaluation calls pytrec_eval
#: directly and imports no ir-measures (benchmarks/README.md#figures-once-quoted-in-code);
#: tests/measures/test_measures_fast_paths.py holds it equal to the provider's own table.
TREC_EVAL_NAMES: dict[str, str] = {
    **{f"P@{k}": f"P_{k}" for k in _CUTOFFS},
    **{f"R@{k}": f"recall_{k}" for k in _CUTOFFS},
    "nDCG": "ndcg",
    **{f"nDCG@{k}": f"ndcg_cut_{k}" for k in _CUTOFFS},
    **{f"AP@{k}": f"map_cut_{k}" for k in _CUTOFFS},
    "SetAP": "set_map",
    "SetP": "set_P",
    "SetP(relative=True)": "set_relative_P",
    "SetR": "set_recall",
    "SetF": "set_F",
    "Rprec": "Rprec",
    "infAP": "infAP",
    "Bpref": "bpref",
    "RR": "recip_rank",
    "AP": "map",
    **{f"IPrec@{r / 10:.1f}": f"iprec_at_recall_{r / 10:.2f}" for r in range(11)},
}


@dataclass
class TopicScores:
    """Scores of one run: ``values[i, j]`` is measure ``measures[j]`` on topic ``topics[i]``."""

    topics: list[str]
    measures: list[str]
    values: np.ndarray

    def column(self, measure: str) -> np.ndarray:
        return self.values[:, self.measures.index(measure)]

    def means(self) -> dict[str, float]:
        return dict(zip(self.measures, self.values.mean(axis=0).tolist(), strict=True))

    def restrict(self, topics: list[str]) -> TopicScores:
        index = {t: i for i, t in enumerate(self.topics)}
        return TopicScores(topics, self.measures, self.values[[index[t] for t in topics]])


@lru_cache(maxsize=64)
def parse_measures(names: tuple[str, ...]) -> tuple:
    import ir_measures

    return tuple(ir_measures.parse_measure(n) for n in names)


class _Invocation:
    """One pytrec_eval evaluator and the measures it computes, keyed by trec_eval name:
    ``measure_map[key] = (measure, key)`` as ir-measures' ``PytrecEvalInvoker`` holds it."""

    def __init__(self, qrels: Qrels, measure_map: dict[str, tuple[Any, str]]) -> None:
        import pytrec_eval

        self.measure_map = measure_map
        self.evaluator = pytrec_eval.RelevanceEvaluator(
            qrels, list(measure_map), relevance_level=1, judged_docs_only_flag=False
        )


class _Direct:
    """The default measures' evaluator: one pytrec_eval invocation, without ir-measures."""

    def __init__(self, qrels: Qrels, names: list[str]) -> None:
        self.invokers = [_Invocation(qrels, {TREC_EVAL_NAMES[n]: (n, n) for n in names})]


class Evaluator:
    """ir-measures evaluator bound to one qrels, reused for every run judged by it."""

    def __init__(self, qrels: Qrels, measures: tuple[str, ...] = DEFAULT_MEASURES) -> None:
        self.qrels = qrels
        self.measure_names = list(measures)
        self._invoker_columns: list | None = None
        if all(m in TREC_EVAL_NAMES for m in measures) and len(set(measures)) == len(measures):
            self._parsed: tuple | None = None
            self._by_str = {n: i for i, n in enumerate(measures)}
            self._evaluator: Any = _Direct(qrels, self.measure_names)
            return
        import ir_measures

        parsed = parse_measures(tuple(measures))
        self._parsed = parsed
        self._by_str = {str(m): i for i, m in enumerate(parsed)}
        self._evaluator = ir_measures.evaluator(parsed, qrels)

    def evaluate(self, run: Run) -> TopicScores:
        """Per-topic scores of every judged topic (a topic the run lacks scores 0).

        With the pytrec_eval provider (all default measures) the provider's own
        invocations are called directly and their results put into the matrix, which skips
        building one ``Metric`` tuple per value; it fills missing topics with each measure's
        default as ``Evaluator.iter_calc`` does. Other providers go through ``iter_calc``.
        """
        invokers = getattr(self._evaluator, "invokers", None)
        if invokers is not None:
            return self._evaluate_pytrec(run, invokers)
        return self._evaluate_generic(run)

    def _columns(self, invokers: list) -> list[tuple[dict[str, int], list[str], np.ndarray]]:
        """Per invocation: pytrec_eval key -> column, its keys, their columns (built once)."""
        if self._invoker_columns is None:
            self._invoker_columns = []
            for inv in invokers:
                columns = {
                    ms: self._by_str[str(m)] for ms, (m, _measure_str) in inv.measure_map.items()
                }
                keys = list(columns)
                self._invoker_columns.append(
                    (columns, keys, np.asarray([columns[k] for k in keys], dtype=np.intp))
                )
        return self._invoker_columns

    def _evaluate_pytrec(self, run: Run, invokers: list) -> TopicScores:
        topics = sorted(self.qrels)
        index = {t: i for i, t in enumerate(topics)}
        n = len(self.measure_names)
        values = np.full((len(topics), n), np.nan)
        nested = run.nested()
        for inv, (columns, keys, cols) in zip(invokers, self._columns(invokers), strict=True):
            pick = itemgetter(*keys) if len(keys) > 1 else None
            for qid, meas in inv.evaluator.evaluate(nested).items():
                i = index.get(qid)
                if i is None:
                    continue
                row = values[i]
                if pick is not None and len(meas) == len(keys):
                    try:
                        row[cols] = pick(meas)
                        continue
                    except KeyError:
                        pass
                for ms, v in meas.items():
                    j = columns.get(ms)
                    if j is not None:
                        row[j] = v
        missing = np.isnan(values)
        if missing.any():
            if self._parsed is None:  # the default measures: 0 for a topic the run lacks
                values[missing] = 0.0
            else:
                defaults = np.asarray([float(m.DEFAULT) for m in self._parsed], dtype=float)
                values[missing] = np.broadcast_to(defaults, values.shape)[missing]
        return TopicScores(topics, list(self.measure_names), values)

    def _evaluate_generic(self, run: Run) -> TopicScores:
        rows: dict[str, np.ndarray] = {}
        n = len(self.measure_names)
        column: dict[int, int] = {}  # id(measure object) -> column; str() is slow
        for m in self._evaluator.iter_calc(run.nested()):
            row = rows.get(m.query_id)
            if row is None:
                row = rows[m.query_id] = np.full(n, np.nan)
            j = column.get(id(m.measure))
            if j is None:
                j = column[id(m.measure)] = self._by_str[str(m.measure)]
            row[j] = m.value
        topics = sorted(rows)
        values = np.vstack([rows[t] for t in topics]) if topics else np.empty((0, n))
        return TopicScores(topics, list(self.measure_names), values)
