"""Bootstrap confidence intervals of the mean paired difference, percentile and BCa, as
``scipy.stats.bootstrap`` computes them with the same ``n_resamples`` and seed.

The resamples are the indices scipy draws (``rng.integers(0, n, (B, n))`` from
``numpy.random.default_rng(seed)``); every column of a topics x measures matrix shares them
(scipy too resamples the topics, the measures along). The resampled means are one matrix
product of the resamples' index counts with the differences, not B x n gathered values per
column: the same numbers to rounding (~1e-16). Only BCa's bias correction can tell rounding
apart: it counts the resampled means below and equal to the observed one, and on discrete
measures (P@10 differences in tenths) many are equal in theory. By default
(``ties="as-computed"``) the means within 1e-12 of the observed one are recomputed exactly
as scipy computes them (``numpy.mean`` of the gathered values) and compared as scipy
compares them, so the counts are scipy's; ``ties="exact"`` (the corrected variant) counts
every mean equal in theory as tied, which scipy's rounding does not. The percentile interval
is scipy's quantile of the B means (linear interpolation); BCa follows Efron & Tibshirani's
eq. 14.10 with the jackknife acceleration, Φ and Φ⁻¹ from :mod:`.normal`.
:func:`bootstrap_dri` is the same bootstrap of another statistic: ΔRI (repro_eval's DRI) of
four runs' per-topic scores resampled by one draw of topics for all four (scipy's
``paired=True``), the interval a rule "ΔRI's interval contains 0" reads.
tests/stats/test_bootstrap.py holds both to scipy on the TREC runs' per-topic scores.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from reprokg.stats import normal
from reprokg.stats.methods import EFRON_1987, register

BOOTSTRAP = register(
    name="bootstrap",
    label="bootstrap interval of the mean difference",
    definition="Confidence interval of the mean paired difference from B resamples of the "
    "topics: the percentile interval, or the bias-corrected and accelerated (BCa) one.",
    citation=EFRON_1987,
    reference="scipy.stats.bootstrap(method='percentile' | 'BCa')",
    family="interval",
    defaults={"resamples": 9999, "seed": 0, "level": 0.95, "method": "BCa"},
)
DRI_BOOTSTRAP = register(
    name="dri_bootstrap",
    label="paired bootstrap interval of the delta relative improvement",
    definition="Confidence interval of ΔRI (repro_eval's DRI: the original runs' relative "
    "improvement of the advanced over the baseline run's mean score, minus the reproduced "
    "runs' one) from B resamples of the topics the four runs share, one draw of topics for "
    "all four runs (paired): the percentile interval, or the BCa one.",
    citation=EFRON_1987,
    reference="scipy.stats.bootstrap((ob, oa, rb, ra), ΔRI of the means, paired=True, "
    "method='percentile' | 'BCa')",
    family="interval",
    defaults={"resamples": 9999, "seed": 0, "level": 0.95, "method": "BCa"},
)
METHODS = ("percentile", "BCa")
TIES = ("as-computed", "exact")
_TIE = 1e-12


def tie_tolerance(diffs: np.ndarray) -> np.ndarray:
    """Per column of a topics x measures matrix: how near a resampled mean must be to the
    observed one to count as equal to it in theory, on the scale of the differences
    (1e-12 of the largest |difference|), not of the observed mean, which is ~1e-18 when the
    mean is zero in exact arithmetic. Rounding moves a mean of n differences by ~n ulp of
    the largest one, far below this; distinct means of real scores are far above it."""
    return _TIE * np.maximum(np.max(np.abs(diffs), axis=0), np.finfo(float).tiny)


@dataclass(frozen=True)
class Intervals:
    """Per column: the observed mean difference and the interval's ends (NaN where
    undefined), with what made them."""

    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray
    method: str
    level: float
    resamples: int
    seed: int | None


def resamples_of(rng: np.random.Generator, resamples: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """scipy's resampled indices (B x n) and how often each topic is drawn in each (B x n),
    the counts as floats: the matrix products take them as they are (an integer matrix
    was cast again at every product)."""
    index = rng.integers(0, n, (resamples, n))
    cells = (np.arange(resamples)[:, None] * n + index).ravel()
    counts = np.bincount(cells, minlength=resamples * n).reshape(resamples, n)
    return index, counts.astype(float)


def seeded_resamples(seed: int | None, resamples: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`resamples_of` a fresh ``default_rng(seed)``, the same arrays (read-only)
    again for the same seed, B and n: a comparison's two sides and ΔRI's bootstrap draw
    the same topics (each draw's time and memory: benchmarks/README.md#figures-once-quoted-in-code).
    Only the last draw is kept; no seed, no keeping."""
    if seed is None:
        return resamples_of(np.random.default_rng(seed), resamples, n)
    return _kept_resamples(seed, resamples, n)


@lru_cache(maxsize=1)
def _kept_resamples(seed: int, resamples: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    index, counts = resamples_of(np.random.default_rng(seed), resamples, n)
    index.flags.writeable = counts.flags.writeable = False
    return index, counts


def _quantiles(rows: np.ndarray, levels: list[np.ndarray]) -> list[np.ndarray]:
    """Linear-interpolation quantiles (numpy's default, as scipy's ``quantile``) of each row
    of ``rows`` (measures x resamples), at its own levels, without sorting the rows.

    Exact, from a few hundred values per row: a sorted sample of each row (every ~19th
    value) gives thresholds that should leave, at a level's end of the row, a few more
    values than the ranks it needs (five sample standard errors more). Every value beyond
    a threshold is kept and sorted, their count read, and a rank is read among them only
    when they hold it: every value not kept lies between the two ends. A row the sample
    misjudged is sorted whole. This takes half the time of partitioning the matrix at the
    levels' positions (:func:`_partitioned_quantiles`;
    benchmarks/README.md#figures-once-quoted-in-code), and a comparison computes three bootstraps.
    Rows with a NaN (which numpy orders last) are partitioned."""
    m, b = rows.shape
    positions = [q * (b - 1) for q in levels]
    lows = [np.clip(np.floor(pos).astype(np.int64), 0, b - 1) for pos in positions]
    highs = [np.clip(lo + 1, 0, b - 1) for lo in lows]
    if b < 64 or np.isnan(rows).any():
        return _partitioned_quantiles(rows, positions, lows, highs)
    sample = np.sort(rows[:, :: b // 512 or 1], axis=1)
    k = sample.shape[1]
    at = np.arange(m)
    lower: np.ndarray | None = None  # per row: the values <= it are kept
    upper: np.ndarray | None = None  # per row: the values >= it are kept
    for lo, hi in zip(lows, highs, strict=True):
        top = bool(np.median(lo) >= (b - 1) / 2)
        share = ((b - lo) if top else (hi + 1)) / b  # of the row, the end the ranks need
        spread = 5.0 * np.sqrt(k * share * (1.0 - share)) + 2.0
        if top:
            t = sample[at, np.clip(np.floor(k * (1.0 - share) - spread), 0, k - 1).astype(int)]
            upper = t if upper is None else np.minimum(upper, t)
        else:
            t = sample[at, np.clip(np.ceil(k * share + spread), 0, k - 1).astype(int)]
            lower = t if lower is None else np.maximum(lower, t)
    keep = np.zeros(rows.shape, dtype=bool)
    if lower is not None:
        keep |= rows <= lower[:, None]
    if upper is not None:
        keep |= rows >= upper[:, None]
    kept = np.compress(keep.ravel(), rows.ravel())  # row by row (faster than rows[keep])
    counts = np.count_nonzero(keep, axis=1)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    at_lower, at_upper = np.zeros(m, dtype=np.int64), np.zeros(m, dtype=np.int64)
    for r in range(m):
        block = kept[starts[r] : starts[r] + counts[r]]
        block.sort()
        if lower is not None:  # the block's first ones are the row's smallest
            at_lower[r] = block.searchsorted(lower[r], "right")
        if upper is not None:  # and its last ones the row's largest
            at_upper[r] = counts[r] - block.searchsorted(upper[r], "left")
    whole: dict[int, np.ndarray] = {}  # the rows the sample misjudged, sorted

    def ranked(rank: np.ndarray) -> np.ndarray:
        from_lower = rank < at_lower
        from_upper = rank >= b - at_upper
        index = np.where(from_lower, starts + rank, starts + counts - (b - rank))
        values = kept[np.where(from_lower | from_upper, index, 0)]
        for r in np.flatnonzero(~(from_lower | from_upper)).tolist():
            if r not in whole:
                whole[r] = np.sort(rows[r])
            values[r] = whole[r][rank[r]]
        return values

    out = []
    for pos, lo, hi in zip(positions, lows, highs, strict=True):
        a, c = ranked(lo), ranked(hi)
        out.append(a + (c - a) * (pos - lo))
    return out


def _partitioned_quantiles(
    rows: np.ndarray,
    positions: list[np.ndarray],
    lows: list[np.ndarray],
    highs: list[np.ndarray],
) -> list[np.ndarray]:
    """:func:`_quantiles` by one partition of the matrix at the ends of each level's span of
    positions over the rows (the lowest position any row needs, the highest): every
    position inside a span then holds the right order statistics, unordered, and sorting
    just that narrow block orders them."""
    m, b = rows.shape
    spans = [(int(lo.min()), int(hi.max())) for lo, hi in zip(lows, highs, strict=True)]
    part = np.partition(rows, sorted({k for span in spans for k in span}), axis=1)
    for first, last in spans:
        if last - first > 1:
            part[:, first : last + 1] = np.sort(part[:, first : last + 1], axis=1)
    at = np.arange(m)
    out = []
    for pos, lo, hi in zip(positions, lows, highs, strict=True):
        a, c = part[at, lo], part[at, hi]
        out.append(a + (c - a) * (pos - lo))
    return out


def bootstrap_mean(
    diffs: np.ndarray,
    *,
    method: str = BOOTSTRAP.defaults["method"],
    resamples: int = BOOTSTRAP.defaults["resamples"],
    seed: int | None = BOOTSTRAP.defaults["seed"],
    level: float = BOOTSTRAP.defaults["level"],
    ties: str = "as-computed",
) -> Intervals:
    """The bootstrap interval of the mean of every column (topics x measures)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, not {method!r}")
    if ties not in TIES:
        raise ValueError(f"ties must be one of {TIES}, not {ties!r}")
    d = np.asarray(diffs, dtype=float)
    if d.ndim == 1:
        d = d[:, None]
    n, m = d.shape
    nan = np.full(m, np.nan)
    if n < 2:
        return Intervals(d.mean(axis=0) if n else nan, nan, nan, method, level, resamples, seed)
    index, counts = seeded_resamples(seed, resamples, n)
    means = (d.T @ counts.T) / n  # measures x resamples, rows contiguous
    theta = d.mean(axis=0)
    alpha = (1.0 - level) / 2.0
    if method == "percentile":
        q_low, q_high = np.full(m, alpha), np.full(m, 1.0 - alpha)
    else:
        tie = tie_tolerance(d)
        below = np.count_nonzero(means < (theta - tie)[:, None], axis=1)
        near = _within(means, theta, tie)
        at = np.count_nonzero(near, axis=1)
        if ties == "as-computed":  # the near ones as scipy computes and compares them
            for j in np.flatnonzero(at):
                column = d[:, j]
                exact = column[index[near[j]]].mean(axis=-1)
                observed = column.mean()
                below[j] += int(np.count_nonzero(exact < observed))
                at[j] = int(np.count_nonzero(exact == observed))
        # jackknife acceleration: the means with one topic left out
        jack = (d.sum(axis=0) - d) / (n - 1)
        q_low, q_high = _bca_levels((2 * below + at) / (2.0 * resamples), jack, alpha)
    low, high = _ends(means, q_low, q_high)
    return Intervals(theta, low, high, method, level, resamples, seed)


def _within(rows: np.ndarray, theta: np.ndarray, tie: np.ndarray) -> np.ndarray:
    """``|rows - theta| <= tie`` per row (resampled statistics near the observed one), in
    one temporary."""
    gap = np.subtract(rows, theta[:, None])
    np.abs(gap, out=gap)
    return gap <= tie[:, None]


def _bca_levels(
    percentile: np.ndarray, jack: np.ndarray, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """BCa's quantile levels per column (Efron & Tibshirani eq. 14.10, as scipy): the bias
    correction from the share of resampled statistics below the observed one (ties
    counted half), the acceleration from the jackknife statistics (n x columns)."""
    n = jack.shape[0]
    z0 = normal.ppfs(percentile)
    u = (n - 1) * (jack.mean(axis=0) - jack)
    with np.errstate(divide="ignore", invalid="ignore"):
        a_hat = (np.sum(u**3, axis=0) / n**3) / (6.0 * (np.sum(u**2, axis=0) / n**2) ** 1.5)
    z_alpha = normal.ppf(alpha)
    with np.errstate(divide="ignore", invalid="ignore"):
        q_low = normal.cdfs(z0 + (z0 + z_alpha) / (1 - a_hat * (z0 + z_alpha)))
        q_high = normal.cdfs(z0 + (z0 - z_alpha) / (1 - a_hat * (z0 - z_alpha)))
    return q_low, q_high


def _ends(
    stats: np.ndarray, q_low: np.ndarray, q_high: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The interval's ends: each row's quantiles of the resampled statistics (columns x
    resamples) at its levels; NaN where a level is undefined."""
    undefined = ~(np.isfinite(q_low) & np.isfinite(q_high))
    low, high = _quantiles(
        stats, [np.where(undefined, 0.0, q_low), np.where(undefined, 1.0, q_high)]
    )
    low[undefined] = np.nan
    high[undefined] = np.nan
    return low, high


def delta_ri(
    orig_base: np.ndarray, orig_adv: np.ndarray, rep_base: np.ndarray, rep_adv: np.ndarray
) -> np.ndarray:
    """ΔRI of the four runs' mean scores, as repro_eval computes DRI: the original's relative
    improvement (advanced - baseline) / baseline minus the reproduced runs' one."""
    out = np.subtract(orig_adv, orig_base, dtype=float)  # in place from here: the same
    out /= orig_base  # operations in the same order, two temporaries instead of five
    rep = np.subtract(rep_adv, rep_base, dtype=float)
    rep /= rep_base
    out -= rep
    return out


def bootstrap_dri(
    orig_base: np.ndarray,
    orig_adv: np.ndarray,
    rep_base: np.ndarray,
    rep_adv: np.ndarray,
    *,
    method: str = DRI_BOOTSTRAP.defaults["method"],
    resamples: int = DRI_BOOTSTRAP.defaults["resamples"],
    seed: int | None = DRI_BOOTSTRAP.defaults["seed"],
    level: float = DRI_BOOTSTRAP.defaults["level"],
) -> Intervals:
    """The paired bootstrap interval of ΔRI of every column: the four runs' per-topic
    scores (topics x measures, the same topics in the same rows) resampled by the same
    topic indices, as ``scipy.stats.bootstrap((ob, oa, rb, ra), statistic, paired=True)``
    draws them. ``mean`` is the observed ΔRI. A column whose baseline mean is zero in the
    data or in a resample (ΔRI undefined there) is given no interval (NaN); one whose every
    resample gives the observed ΔRI exactly (equal runs) the point itself.
    Resampled statistics within 1e-12 of the observed one are recomputed as scipy computes
    them (``numpy.mean`` of the gathered scores), so BCa counts scipy's ties."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, not {method!r}")
    runs = [np.asarray(r, dtype=float) for r in (orig_base, orig_adv, rep_base, rep_adv)]
    runs = [r[:, None] if r.ndim == 1 else r for r in runs]
    if len({r.shape for r in runs}) != 1:
        raise ValueError("the four runs' scores must have the same topics and measures")
    n, m = runs[0].shape
    nan = np.full(m, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        theta = delta_ri(*(r.mean(axis=0) for r in runs)) if n else nan
    if n < 2:
        return Intervals(theta, nan, nan, method, level, resamples, seed)
    index, counts = seeded_resamples(seed, resamples, n)
    # the four runs' resampled means in one product (runs x measures, resamples)
    means = (np.concatenate([r.T for r in runs]) @ counts.T) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        stats = delta_ri(*np.split(means, 4))  # measures x resamples
    alpha = (1.0 - level) / 2.0
    if method == "percentile":
        q_low, q_high = np.full(m, alpha), np.full(m, 1.0 - alpha)
    else:
        tie = _TIE * np.maximum(np.abs(theta), 1.0)
        below = np.count_nonzero(stats < (theta - tie)[:, None], axis=1)
        near = _within(stats, theta, tie)
        at = np.count_nonzero(near, axis=1)
        for j in np.flatnonzero(at):  # the near ones as scipy computes and compares them
            cols = [r[:, j] for r in runs]
            exact = delta_ri(*(c[index[near[j]]].mean(axis=-1) for c in cols))
            observed = delta_ri(*(c.mean() for c in cols))
            below[j] += int(np.count_nonzero(exact < observed))
            at[j] = int(np.count_nonzero(exact == observed))
        # the jackknife: every run's means with one topic left out
        with np.errstate(divide="ignore", invalid="ignore"):
            jack = delta_ri(*((r.sum(axis=0) - r) / (n - 1) for r in runs))
        q_low, q_high = _bca_levels((2 * below + at) / (2.0 * resamples), jack, alpha)
    finite = np.isfinite(stats)
    undefined = ~(np.isfinite(theta) & np.all(finite, axis=1))
    q_low, q_high = np.where(undefined, np.nan, q_low), np.where(undefined, np.nan, q_high)
    low, high = _ends(np.where(finite, stats, 0.0), q_low, q_high)
    # every resample gives the observed ΔRI (a reproduction equal to the original): the
    # interval is that point, where scipy's BCa has none (its acceleration is 0/0)
    point = ~undefined & np.all(stats == theta[:, None], axis=1)
    low[point], high[point] = theta[point], theta[point]
    return Intervals(theta, low, high, method, level, resamples, seed)
