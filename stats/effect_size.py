"""Standardised effect sizes of paired differences with confidence intervals.

Cohen's d_z is the mean paired difference over the differences' standard deviation (ddof
1); Hedges' g_z is d_z times the small-sample correction J, by default Hedges' (1981)
approximation 1 - 3 / (4 (n - 1) - 1) as pingouin applies it (``compute_effsize(d, 0,
eftype="hedges")``), or the exact Γ(ν/2) / (√(ν/2) Γ((ν - 1)/2)) by name. The interval is
the noncentral-t interval (Steiger & Fouladi 1997): t = d_z √n follows a noncentral t with
n - 1 degrees of freedom and noncentrality δ = d_z √n, so the δ interval of the observed t
(:func:`reprokg.stats.noncentral_t.ncp_interval`) divided by √n is d_z's, times J g_z's.
pingouin's own interval (``compute_esci``: d ± t_crit √(1/n + d²/(2n)), Hedges & Olkin's
normal approximation) is the variant ``interval="hedges-olkin"``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from reprokg.stats.methods import COHEN_1988, HEDGES_1981, STEIGER_FOULADI_1997, register
from reprokg.stats.noncentral_t import ncp_interval
from reprokg.stats.student_t import t_quantile

COHEN_DZ = register(
    name="cohen_dz",
    label="Cohen's d_z",
    definition="Mean paired difference divided by the standard deviation (n - 1) of the "
    "differences, with its noncentral-t confidence interval.",
    citation=COHEN_1988,
    reference="pingouin.compute_effsize(eftype='cohen_dz'); interval: scipy.stats.nct inverted",
    family="effect size",
    defaults={"level": 0.95, "interval": "noncentral-t"},
)
HEDGES_GZ = register(
    name="hedges_gz",
    label="Hedges' g_z",
    definition="Cohen's d_z times Hedges' small-sample correction 1 - 3 / (4 (n - 1) - 1) "
    "('exact': the gamma-function form), with d_z's noncentral-t interval times the same "
    "factor.",
    citation=HEDGES_1981,
    reference="pingouin.compute_effsize(d, 0, eftype='hedges'); interval: scipy.stats.nct inverted",
    family="effect size",
    defaults={"level": 0.95, "interval": "noncentral-t", "correction": "approximate"},
)
NONCENTRAL_T_INTERVAL = STEIGER_FOULADI_1997
INTERVALS = ("noncentral-t", "hedges-olkin")
CORRECTIONS = ("approximate", "exact")


def hedges_factor(df: float, correction: str = "approximate") -> float:
    """Hedges' J for ``df`` degrees of freedom (nan below 2 for the approximation's sake)."""
    if df < 1:
        return math.nan
    if correction == "exact":
        return math.exp(math.lgamma(df / 2) - math.lgamma((df - 1) / 2)) / math.sqrt(df / 2)
    if correction != "approximate":
        raise ValueError(f"correction must be one of {CORRECTIONS}, not {correction!r}")
    return 1.0 - 3.0 / (4.0 * df - 1.0)


@dataclass(frozen=True)
class EffectSizes:
    """Per column: n, d_z with its interval, g_z with its interval (NaN where undefined:
    fewer than two pairs, or differences that do not vary)."""

    n: int
    dz: np.ndarray
    dz_low: np.ndarray
    dz_high: np.ndarray
    gz: np.ndarray
    gz_low: np.ndarray
    gz_high: np.ndarray
    level: float
    interval: str
    correction: str


def effect_sizes(
    diffs: np.ndarray,
    *,
    level: float = 0.95,
    interval: str = "noncentral-t",
    correction: str = "approximate",
) -> EffectSizes:
    """d_z and g_z of every column of paired differences (topics x measures)."""
    if interval not in INTERVALS:
        raise ValueError(f"interval must be one of {INTERVALS}, not {interval!r}")
    d = np.asarray(diffs, dtype=float)
    if d.ndim == 1:
        d = d[:, None]
    n, m = d.shape
    nan = np.full(m, np.nan)
    if n < 2:
        return EffectSizes(n, nan, nan, nan, nan, nan, nan, level, interval, correction)
    with np.errstate(divide="ignore", invalid="ignore"):
        sd = d.std(axis=0, ddof=1)
        # differences equal but for rounding (six 0.2s have a mean of 0.20000000000000004)
        # do not vary: d_z is undefined, not 10^15
        varies = sd > 1e-12 * np.max(np.abs(d), axis=0)
        dz = np.where(varies, d.mean(axis=0) / sd, np.nan)
    df = n - 1
    j = hedges_factor(df, correction)
    if interval == "noncentral-t":
        lo, hi = ncp_interval(dz * math.sqrt(n), df, level)
        dz_low, dz_high = lo / math.sqrt(n), hi / math.sqrt(n)
    else:  # pingouin's compute_esci for a paired / one-sample d
        se = np.sqrt(1.0 / n + dz**2 / (2.0 * n))
        crit = abs(t_quantile((1.0 - level) / 2.0, df))
        dz_low, dz_high = dz - crit * se, dz + crit * se
    return EffectSizes(
        n, dz, dz_low, dz_high, j * dz, j * dz_low, j * dz_high, level, interval, correction
    )
