"""Paired tests beyond the t-test, column by column over a topics x measures matrix of
differences: Wilcoxon's signed-rank test as R's ``wilcox.test`` computes it, and the paired
randomization (sign-flip) test of the mean difference as ``scipy.stats.permutation_test``.

Wilcoxon (R, ``paired = TRUE``, ``exact = NULL``, ``correct = TRUE``): zero differences are
dropped; with fewer than 50 left and no ties or zeros the p-value is exact (the signed-rank
distribution); otherwise the normal approximation with the tie correction and the
continuity correction. ``scipy.stats.wilcoxon`` gives the same numbers with
``zero_method="wilcox", correction=True`` and the method R chose (its own ``auto`` picks
the exact distribution up to 50 and a permutation test for ties below 14: a different
choice, so R's is the default here).

Randomization (Smucker et al. 2007; ``permutation_type="samples"`` of one sample: the signs
of the differences flipped): exact, by enumerating the 2^n sign vectors, up to
``exact_limit`` (2^20) of them; beyond, ``resamples`` random sign vectors drawn exactly as
scipy draws them from ``numpy.random.default_rng(seed)``, the observed statistic counted
among them (p = (k + 1) / (B + 1)). Null means equal to the observed one in theory count
as equal: within :func:`.bootstrap.tie_tolerance` of it, a tolerance on the scale of the
differences (the rule BCa's ties use). scipy scales its tolerance (100 ulp) to the observed
mean instead, so when the means are equal in exact arithmetic (common for P@10: the
observed mean is then ~1e-18) rounding decides which null means tie, and scipy's p is
below the exact 1 (0.9658 on a 50-topic P@10 case); here it is 1. Elsewhere the p-values
are scipy's. tests/stats/test_paired.py holds both tests to their references on the TREC
runs and on ties, zeros, n = 2 and all-equal scores.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from reprokg.stats import normal
from reprokg.stats.bootstrap import tie_tolerance
from reprokg.stats.methods import SMUCKER_2007, WILCOXON_1945, register

WILCOXON = register(
    name="wilcoxon",
    label="Wilcoxon signed-rank test",
    definition="Two-sided p-value of the signed ranks of the paired differences (zeros "
    "dropped; exact below 50 pairs without ties or zeros, else the normal approximation "
    "with tie and continuity corrections), as R's wilcox.test(paired = TRUE).",
    citation=WILCOXON_1945,
    reference="R stats::wilcox.test (scipy.stats.wilcoxon with R's choice of method)",
    family="paired test",
    defaults={"exact_below": 50, "continuity": True, "zeros": "dropped"},
)
RANDOMIZATION = register(
    name="randomization",
    label="paired randomization test",
    definition="Two-sided p-value of the mean paired difference against its distribution "
    "under random sign flips: exact up to 2^20 sign vectors, else Monte Carlo with a stated "
    "count and seed, the observed value counted among the resamples.",
    citation=SMUCKER_2007,
    reference="scipy.stats.permutation_test(permutation_type='samples')",
    family="paired test",
    defaults={"resamples": 9999, "seed": 0, "exact_limit": 2**20},
)


def _average_ranks(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ranks of ``a`` (ties averaged, as R's ``rank``) and the sizes of the tie groups."""
    order = np.argsort(a, kind="stable")
    s = a[order]
    new = np.concatenate(([True], s[1:] != s[:-1]))
    starts = np.flatnonzero(new)
    counts = np.diff(np.concatenate((starts, [len(s)])))
    average = starts + (counts + 1) / 2.0
    ranks = np.empty(len(a))
    ranks[order] = np.repeat(average, counts)
    return ranks, counts


def signed_rank_counts(n: int) -> np.ndarray:
    """How many subsets of {1..n} sum to s, for s = 0..n(n+1)/2 (exact up to n = 60)."""
    counts = np.zeros(n * (n + 1) // 2 + 1, dtype=np.int64)
    counts[0] = 1
    top = 0
    for k in range(1, n + 1):
        counts[k : top + k + 1] += counts[: top + 1].copy()
        top += k
    return counts


def _exact_p(v: float, n: int) -> float:
    """R's exact two-sided p of the signed-rank statistic ``v`` for ``n`` pairs."""
    counts = signed_rank_counts(n)
    total = 2.0**n
    k = int(round(v))
    # the smaller tail: P(V >= v) above the mean, P(V <= v) at or below it
    tail = int(counts[k:].sum()) if v > n * (n + 1) / 4 else int(counts[: k + 1].sum())
    return min(1.0, 2.0 * tail / total)


@dataclass(frozen=True)
class SignedRank:
    """One column's Wilcoxon test: V (sum of the positive differences' ranks), the pairs
    left after dropping zeros, whether the p-value is exact, and the p-value (None when
    every difference is zero)."""

    statistic: float | None
    n: int
    exact: bool
    pvalue: float | None


def wilcoxon_column(d: np.ndarray, *, exact_below: int = 50, continuity: bool = True) -> SignedRank:
    """Wilcoxon's signed-rank test of one column of paired differences, as R computes it."""
    d = np.asarray(d, dtype=float)
    zeros = bool(np.any(d == 0))
    x = d[d != 0]
    n = len(x)
    if n == 0:
        return SignedRank(None, 0, False, None)
    ranks, ties = _average_ranks(np.abs(x))
    v = float(np.sum(ranks[x > 0]))
    tied = bool(np.any(ties > 1))
    if n < exact_below and not tied and not zeros:
        return SignedRank(v, n, True, _exact_p(v, n))
    z = v - n * (n + 1) / 4.0
    sigma = np.sqrt(n * (n + 1) * (2 * n + 1) / 24.0 - float(np.sum(ties**3 - ties)) / 48.0)
    if continuity:
        z -= np.sign(z) * 0.5
    if sigma == 0:
        return SignedRank(v, n, False, None)
    z /= sigma
    p = 2.0 * min(normal.cdf(z), normal.sf(z))
    return SignedRank(v, n, False, min(1.0, p))


def wilcoxon(diffs: np.ndarray, **kw: object) -> list[SignedRank]:
    """:func:`wilcoxon_column` of every column of a topics x measures matrix."""
    diffs = np.asarray(diffs, dtype=float)
    if diffs.ndim == 1:
        diffs = diffs[:, None]
    # the caller's keywords are its options
    return [wilcoxon_column(diffs[:, j], **kw) for j in range(diffs.shape[1])]  # type: ignore[arg-type]


@dataclass(frozen=True)
class Randomization:
    """The randomization test of each column: observed mean differences, p-values (None
    where undefined), whether exact, and the resamples drawn (2^n when exact)."""

    observed: np.ndarray
    pvalues: list[float | None]
    exact: bool
    resamples: int
    seed: int | None


#: rows of random sign vectors drawn per batch (bounds the memory a batch holds)
_BATCH = 1 << 14


def random_signs(rng: np.random.Generator, rows: int, n: int) -> np.ndarray:
    """``rows`` x ``n`` signs (+1/-1) drawn as ``scipy.stats.permutation_test`` draws its
    sign flips from the same generator: each pair's two orders permuted by
    ``rng.permuted`` (n = 2 slices), whose Fisher-Yates step takes one 32-bit draw and keeps
    the order when its low bit is 1. The 32-bit draws of PCG64 are the halves of its 64-bit
    outputs, low half first, so they are read from ``random_raw`` at once (faster than
    ``permuted``, benchmarks/README.md#figures-once-quoted-in-code; tests/stats/test_paired.py
    checks the p-values equal scipy's)."""
    if not isinstance(rng.bit_generator, np.random.PCG64):
        pairs = np.tile(np.arange(2, dtype=np.int8), (rows * n, 1))
        first = rng.permuted(pairs, axis=-1)[:, 0].reshape(rows, n)
        return 1.0 - 2.0 * first
    count = rows * n
    raw = rng.bit_generator.random_raw((count + 1) // 2)
    low_bits = raw.astype("<u8").view("<u4")[:count] & 1
    return (2.0 * low_bits - 1.0).reshape(rows, n)  # low bit 1: order kept, +d


def seeded_signs(seed: int | None, rows: int, n: int) -> np.ndarray:
    """:func:`random_signs` of a fresh ``default_rng(seed)``, the same array (read-only)
    again for the same seed, rows and n: a comparison's two sides draw the same signs.
    Only the last draw is kept; no seed, no keeping."""
    if seed is None:
        return random_signs(np.random.default_rng(seed), rows, n)
    return _kept_signs(seed, rows, n)


@lru_cache(maxsize=1)
def _kept_signs(seed: int, rows: int, n: int) -> np.ndarray:
    signs = random_signs(np.random.default_rng(seed), rows, n)
    signs.flags.writeable = False
    return signs


def _counts(
    null: np.ndarray, observed: np.ndarray, gamma: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    less = np.count_nonzero(null <= observed + gamma, axis=0)
    greater = np.count_nonzero(null >= observed - gamma, axis=0)
    return less, greater


def randomization(
    diffs: np.ndarray,
    *,
    resamples: int = RANDOMIZATION.defaults["resamples"],
    seed: int | None = RANDOMIZATION.defaults["seed"],
    exact_limit: int = RANDOMIZATION.defaults["exact_limit"],
) -> Randomization:
    """The paired randomization test of the mean difference of each column (topics x
    measures), two-sided, as scipy computes it (see the module's docstring)."""
    d = np.asarray(diffs, dtype=float)
    if d.ndim == 1:
        d = d[:, None]
    n, m = d.shape
    observed = d.mean(axis=0) if n else np.full(m, np.nan)
    if n == 0:
        return Randomization(observed, [None] * m, True, 0, None)
    gamma = tie_tolerance(d)  # on the differences' scale, as BCa's ties (not scipy's)
    less = np.zeros(m, dtype=np.int64)
    greater = np.zeros(m, dtype=np.int64)
    if 2**n <= exact_limit:
        exact, total, adjustment = True, 2**n, 0
        # every sign vector, as sums of the first half's 2^h and the rest's 2^(n-h) signed
        # sums: the null mean is (a + b) / n over all pairs (a, b)
        h = n // 2
        first = _all_sums(d[:h])  # 2^h x m
        rest = np.sort(_all_sums(d[h:]), axis=0)  # 2^(n-h) x m
        for j in range(m):
            hi = n * (observed[j] + gamma[j])
            lo = n * (observed[j] - gamma[j])
            col = rest[:, j]
            less[j] = int(np.searchsorted(col, hi - first[:, j], side="right").sum())
            greater[j] = int((len(col) - np.searchsorted(col, lo - first[:, j], side="left")).sum())
        resamples_done, used_seed = total, None
    else:
        exact, adjustment = False, 1
        signs = seeded_signs(seed, resamples, n)  # drawn at once, as scipy draws them
        done = 0
        while done < resamples:
            rows = min(_BATCH, resamples - done)
            null = signs[done : done + rows] @ d / n
            lt, gt = _counts(null, observed, gamma)
            less += lt
            greater += gt
            done += rows
        total, resamples_done, used_seed = resamples, resamples, seed
    p_less = (less + adjustment) / (total + adjustment)
    p_greater = (greater + adjustment) / (total + adjustment)
    p = np.clip(2.0 * np.minimum(p_less, p_greater), 0.0, 1.0)
    pvalues = [None if not np.isfinite(o) else float(v) for o, v in zip(observed, p, strict=True)]
    return Randomization(observed, pvalues, exact, resamples_done, used_seed)


def _all_sums(d: np.ndarray) -> np.ndarray:
    """The 2^k signed sums of the k rows of ``d`` (one row per sign vector)."""
    sums = np.zeros((1, d.shape[1]))
    for row in d:
        sums = np.concatenate((sums + row, sums - row))
    return sums
