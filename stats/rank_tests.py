"""Many algorithms over many data sets: Friedman's test of their average ranks and the
Nemenyi critical difference (Demšar 2006), as ``autorank`` computes them in its
non-parametric mode.

Rows are blocks (data sets, or seeds within one data set), columns the algorithms; each
row is ranked (1 = best; ties share the average rank, as ``pandas.DataFrame.rank``), the
average ranks compared by Friedman's χ² with the tie correction
(``scipy.stats.friedmanchisquare``), and two algorithms differ when their average ranks
are further apart than CD = q_α √(k(k+1) / (6N)), q_α the studentized range's 1 - α
quantile with infinite degrees of freedom over √2. autorank takes q_α from statsmodels'
``qsturng`` (Gleason's approximation, within 4e-5 relative for k <= 20); it is computed
here from ``scipy.stats.studentized_range`` (the exact quantile), so the CD differs from
autorank's by that approximation while the average ranks and Friedman's p-value equal its.
scipy is imported when a test is computed (the analyses' layer has it at hand).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from reprokg.stats.methods import DEMSAR_2006, FRIEDMAN_1937, register

FRIEDMAN = register(
    name="friedman",
    label="Friedman test of average ranks",
    definition="χ² test (tie-corrected) that k algorithms' average ranks over N blocks are equal.",
    citation=FRIEDMAN_1937,
    reference="autorank (force_mode='nonparametric'), scipy.stats.friedmanchisquare",
    family="ranking",
    defaults={"alpha": 0.05, "order": "descending"},
)
NEMENYI = register(
    name="nemenyi_cd",
    label="Nemenyi critical difference",
    definition="Average ranks further apart than q_α √(k(k+1)/(6N)) differ at level α; the "
    "critical-difference diagram draws the ranks and joins the algorithms that do not.",
    citation=DEMSAR_2006,
    reference="autorank (its CD with statsmodels' approximate q_α), scipy.stats.studentized_range",
    family="ranking",
    defaults={"alpha": 0.05},
)


def _row_ranks(values: np.ndarray, descending: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ranks (ties averaged) and, per row, Σ (t³ - t) over its tie groups."""
    x = -values if descending else values
    ranks = np.empty_like(x, dtype=float)
    ties = np.zeros(x.shape[0])
    for i, row in enumerate(x):
        order = np.argsort(row, kind="stable")
        s = row[order]
        new = np.concatenate(([True], s[1:] != s[:-1]))
        starts = np.flatnonzero(new)
        counts = np.diff(np.concatenate((starts, [len(s)])))
        ranks[i, order] = np.repeat(starts + (counts + 1) / 2.0, counts)
        ties[i] = float(np.sum(counts**3 - counts))
    return ranks, ties


@dataclass(frozen=True)
class RankComparison:
    """Friedman + Nemenyi over ``names`` (columns) and N blocks."""

    names: list[str]
    average_ranks: list[float]
    blocks: int
    statistic: float | None
    pvalue: float | None
    critical_difference: float | None
    alpha: float
    #: maximal groups of algorithms (indices into ``names``, in rank order) whose average
    #: ranks are within the critical difference of each other
    cliques: list[list[int]]


def friedman_nemenyi(
    values: np.ndarray, names: list[str], *, alpha: float = 0.05, descending: bool = True
) -> RankComparison:
    """The test of a blocks x algorithms matrix (no missing cells; higher is better unless
    ``descending=False``)."""
    from scipy import stats  # the rank tests' distributions: imported when computed

    x = np.asarray(values, dtype=float)
    n, k = x.shape
    if k < 2 or n < 1:
        raise ValueError("a critical difference needs at least two algorithms and one block")
    if not np.all(np.isfinite(x)):
        raise ValueError("every block needs a finite score for every algorithm")
    ranks, ties = _row_ranks(x, descending)
    average = ranks.mean(axis=0)
    statistic = pvalue = None
    if k >= 3 and n >= 2:
        rank_sums = ranks.sum(axis=0)
        chi2 = 12.0 / (n * k * (k + 1)) * float(np.sum(rank_sums**2)) - 3.0 * n * (k + 1)
        correction = 1.0 - float(ties.sum()) / (n * k * (k * k - 1))
        if correction > 0:
            statistic = chi2 / correction
            pvalue = float(stats.chi2.sf(statistic, k - 1))
    q = float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf)) / math.sqrt(2.0)
    cd = q * math.sqrt(k * (k + 1) / (6.0 * n))
    order = np.argsort(average, kind="stable")
    cliques: list[list[int]] = []
    for i in range(k):
        group = [int(j) for j in order if 0 <= average[j] - average[order[i]] <= cd]
        if len(group) > 1 and not any(set(group) <= set(c) for c in cliques):
            cliques.append(group)
    return RankComparison(list(names), average.tolist(), n, statistic, pvalue, cd, alpha, cliques)
