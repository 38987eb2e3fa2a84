"""Comparing two algorithms over their runs (seeds, configurations): Almost Stochastic Order,
the probability that A beats B, and the interquartile mean with a stratified-bootstrap
interval.

* **ASO** (Dror et al. 2019, del Barrio et al. 2018): the violation ratio ε_W2 of A's and
  B's empirical quantile functions over t in (0, 1) on deepsig's grid (``dt``, the same
  quantile function and integral sums as ``deepsig.aso``), and ε_min = ε - σ̂ Φ⁻¹(1 - level)
  / √(nm/(n+m)), σ̂ the standard deviation of √(nm/(n+m)) (ε_b - ε) over bootstrap
  resamples of both samples, clipped to [0, 1]. ε_min < 0.5: A is almost stochastically
  better than B. The point ε equals deepsig's exactly; ε_min is within its Monte Carlo
  error (own resamples, stated seed).
* **P(A > B)** (Bouthillier et al. 2021; rliable's ``probability_of_improvement``): the
  share of (run of A, run of B) pairs where A scores higher, ties counting one half (the
  Mann-Whitney U over nm), averaged over tasks; its interval from resampling each
  algorithm's runs within each task.
* **IQM** (Agarwal et al. 2021, rliable's ``aggregate_iqm``): the mean of the middle half of
  all runs' scores (``scipy.stats.trim_mean(…, 0.25)``), its interval from the stratified
  bootstrap (runs resampled within each task), percentile.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reprokg.stats import normal
from reprokg.stats.methods import AGARWAL_2021, BOUTHILLIER_2021, DROR_2019, register

ASO = register(
    name="aso",
    label="Almost Stochastic Order (ε_min)",
    definition="Upper bound of the violation ratio of A's stochastic dominance over B "
    "(the share of the squared Wasserstein distance where A's quantile function lies below "
    "B's), by bootstrap; below 0.5, A is almost stochastically better.",
    citation=DROR_2019,
    reference="deepsig.aso (GPL-3.0; test-only oracle)",
    family="seed variance",
    defaults={"level": 0.95, "resamples": 1000, "dt": 0.005, "seed": 0},
)
PROB_IMPROVEMENT = register(
    name="prob_improvement",
    label="P(A > B)",
    definition="Probability that a run of A scores higher than a run of B (ties one half), "
    "averaged over tasks, with a percentile interval from resampling each algorithm's runs "
    "within each task.",
    citation=BOUTHILLIER_2021,
    reference="rliable.metrics.probability_of_improvement",
    family="seed variance",
    defaults={"level": 0.95, "resamples": 2000, "seed": 0},
)
IQM = register(
    name="iqm",
    label="interquartile mean",
    definition="Mean of the middle 50% of all runs' scores (25% trimmed from each end), with "
    "a percentile interval from the stratified bootstrap (runs resampled within each task).",
    citation=AGARWAL_2021,
    reference="rliable.metrics.aggregate_iqm, rliable.library.get_interval_estimates",
    family="seed variance",
    defaults={"level": 0.95, "resamples": 2000, "seed": 0},
)


def _quantiles(sorted_scores: np.ndarray, t: np.ndarray) -> np.ndarray:
    """deepsig's empirical quantile function of each row of sorted scores at ``t``."""
    n = sorted_scores.shape[-1]
    index = np.clip(np.ceil(n * t).astype(np.int64) - 1, 0, n - 1)
    return sorted_scores[..., index]


def violation_ratio(a: np.ndarray, b: np.ndarray, dt: float = 0.005) -> np.ndarray:
    """ε_W2 of rows of sorted samples ``a`` and ``b`` (deepsig's sums; 0.5 when the two
    quantile functions are equal)."""
    t = np.arange(dt, 1, dt)
    f = _quantiles(a, t)
    g = _quantiles(b, t)
    diff = g - f
    distance = np.sum(diff**2 * dt, axis=-1)
    violated = np.where(f < g, diff, 0.0)
    # deepsig leaves the grid's first point out of the violation integral (not the distance)
    violation = np.sum(violated[..., 1:] ** 2 * dt, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(distance == 0, 0.5, violation / distance)


@dataclass(frozen=True)
class AlmostStochasticOrder:
    epsilon_min: float
    violation_ratio: float
    level: float
    resamples: int
    seed: int | None


def aso(
    a: np.ndarray,
    b: np.ndarray,
    *,
    level: float = ASO.defaults["level"],
    resamples: int = ASO.defaults["resamples"],
    dt: float = ASO.defaults["dt"],
    seed: int | None = ASO.defaults["seed"],
) -> AlmostStochasticOrder:
    """ε_min of A (higher is better) over B."""
    a = np.sort(np.asarray(a, dtype=float).ravel())
    b = np.sort(np.asarray(b, dtype=float).ravel())
    if len(a) == 0 or len(b) == 0:
        raise ValueError("ASO needs at least one score of each algorithm")
    ratio = float(violation_ratio(a, b, dt))
    rng = np.random.default_rng(seed)
    boot_a = np.sort(a[rng.integers(0, len(a), (resamples, len(a)))], axis=1)
    boot_b = np.sort(b[rng.integers(0, len(b), (resamples, len(b)))], axis=1)
    samples = violation_ratio(boot_a, boot_b, dt)
    const = np.sqrt(len(a) * len(b) / (len(a) + len(b)))
    sigma = float(np.std(const * (samples - ratio)))
    eps = ratio - sigma / const * normal.ppf(1.0 - level)
    return AlmostStochasticOrder(float(np.clip(eps, 0.0, 1.0)), ratio, level, resamples, seed)


def _as_tasks(scores: np.ndarray) -> np.ndarray:
    """Scores as runs x tasks (a vector: one task)."""
    s = np.asarray(scores, dtype=float)
    return s[:, None] if s.ndim == 1 else s


def prob_improvement_point(a: np.ndarray, b: np.ndarray) -> float:
    """P(A > B) + ½ P(A = B), averaged over the tasks (columns); 0.5 for a task whose two
    score columns are identical (as rliable)."""
    a, b = _as_tasks(a), _as_tasks(b)
    probs = []
    for j in range(a.shape[1]):
        x, y = a[:, j], b[:, j]
        if len(x) == len(y) and np.array_equal(x, y):
            probs.append(0.5)
            continue
        ys = np.sort(y)
        less = np.searchsorted(ys, x, side="left")
        ties = np.searchsorted(ys, x, side="right") - less
        probs.append(float((less.sum() + 0.5 * ties.sum()) / (len(x) * len(y))))
    return float(np.mean(probs))


def iqm_point(scores: np.ndarray) -> float:
    """The 25%-trimmed mean of all scores (``scipy.stats.trim_mean(s, 0.25, axis=None)``)."""
    flat = np.sort(np.asarray(scores, dtype=float).ravel())
    cut = int(0.25 * len(flat))
    return float(np.mean(flat[cut : len(flat) - cut]))


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its bootstrap percentile interval."""

    value: float
    low: float
    high: float
    level: float
    resamples: int
    seed: int | None


def _within_tasks(rng: np.random.Generator, scores: np.ndarray, resamples: int) -> np.ndarray:
    """``resamples`` stratified resamples (resamples x runs x tasks): each cell's run drawn
    anew from its own task's runs."""
    runs, tasks = scores.shape
    index = rng.integers(0, runs, (resamples, runs, tasks))
    return scores[index, np.arange(tasks)[None, None, :]]


def _percentile(values: np.ndarray, level: float) -> tuple[float, float]:
    alpha = (1.0 - level) / 2.0
    lo, hi = np.percentile(values, [100 * alpha, 100 * (1 - alpha)])
    return float(lo), float(hi)


def iqm(
    scores: np.ndarray,
    *,
    level: float = IQM.defaults["level"],
    resamples: int = IQM.defaults["resamples"],
    seed: int | None = IQM.defaults["seed"],
) -> Estimate:
    """The IQM of runs x tasks scores with its stratified-bootstrap percentile interval."""
    s = _as_tasks(scores)
    rng = np.random.default_rng(seed)
    boot = np.sort(_within_tasks(rng, s, resamples).reshape(resamples, -1), axis=1)
    cut = int(0.25 * boot.shape[1])
    values = boot[:, cut : boot.shape[1] - cut].mean(axis=1)
    return Estimate(iqm_point(s), *_percentile(values, level), level, resamples, seed)


def prob_improvement(
    a: np.ndarray,
    b: np.ndarray,
    *,
    level: float = PROB_IMPROVEMENT.defaults["level"],
    resamples: int = PROB_IMPROVEMENT.defaults["resamples"],
    seed: int | None = PROB_IMPROVEMENT.defaults["seed"],
) -> Estimate:
    """P(A > B) with the percentile interval of each algorithm's runs resampled within tasks."""
    a, b = _as_tasks(a), _as_tasks(b)
    rng = np.random.default_rng(seed)
    boot_a = _within_tasks(rng, a, resamples)
    boot_b = _within_tasks(rng, b, resamples)
    # per resample and task: the share of pairs with a > b, ties one half
    greater = (boot_a[:, :, None, :] > boot_b[:, None, :, :]).mean(axis=(1, 2))
    equal = (boot_a[:, :, None, :] == boot_b[:, None, :, :]).mean(axis=(1, 2))
    values = (greater + 0.5 * equal).mean(axis=1)
    return Estimate(
        prob_improvement_point(a, b), *_percentile(values, level), level, resamples, seed
    )
