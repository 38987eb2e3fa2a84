"""The exact null distribution of the Mann–Whitney U (R ``pwilcox``), for R's
``wilcox.test`` on small samples without ties.

The normal approximation (tie and continuity corrections) is
:func:`reprokg.survey.stats.rank_sum_normal`, shared with the survey's tests.
"""

from __future__ import annotations

import math

import numpy as np


def mann_whitney_counts(m: int, n: int) -> np.ndarray:
    """Number of arrangements giving each U = 0..m·n for samples of sizes m and n, no ties.

    The recurrence c(m, n, u) = c(m−1, n, u−n) + c(m, n−1, u) over the largest
    observation (is it an x or a y?), filled in exact integers (Python ints in an object
    array) so the probabilities carry no rounding before the final division.
    """
    prev = [[1] for _ in range(n + 1)]  # i = 0: only U = 0, for every j
    for i in range(1, m + 1):
        cur: list[list[int]] = [[1]]  # j = 0: only U = 0
        for j in range(1, n + 1):
            row = [0] * (i * j + 1)
            for u, c in enumerate(prev[j]):  # (i-1, j): the largest is an x, adds j
                row[u + j] += c
            for u, c in enumerate(cur[j - 1]):  # (i, j-1): the largest is a y, adds nothing
                row[u] += c
            cur.append(row)
        prev = cur
    return np.array(prev[n], dtype=object)


def exact_cdf(u: float, m: int, n: int) -> float:
    """P(U ≤ u) for the Mann–Whitney U of sizes m and n (R ``pwilcox(u, m, n)``)."""
    counts = mann_whitney_counts(m, n)
    k = math.floor(u + 1e-7)
    if k < 0:
        return 0.0
    return float(sum(counts[: k + 1]) / sum(counts))


def exact_upper(u: float, m: int, n: int) -> float:
    """P(U ≥ u) (R ``pwilcox(u − 1, m, n, lower.tail = FALSE)``), summed without cancellation."""
    counts = mann_whitney_counts(m, n)
    k = math.ceil(u - 1e-7)
    if k > m * n:
        return 0.0
    return float(sum(counts[max(k, 0) :]) / sum(counts))
