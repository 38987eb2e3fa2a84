"""Quantified reproducibility assessment (Belz, Popović & Mille 2022): the degree of
reproducibility of one measured quantity over the original and every reproduction, as the
small-sample-corrected coefficient of variation CV*.

Following the paper and the authors' code (asbelz/coeff-var): the values are first shifted
onto a scale that starts at 0 (``scale_min`` is subtracted: a 1-5 rating scale becomes
0-4); s* = s / c4(n) is the unbiased standard deviation (s with n - 1, c4(n) = √(2/(n-1))
Γ(n/2)/Γ((n-1)/2)); CV = 100 s* / mean and CV* = (1 + 1/(4n)) CV. The interval is the
authors': a t interval (n - 1 degrees of freedom) around s* with the standard error of the
unbiased variance, s² √(2/(n-1)), over 2 s*; CV*'s interval is that interval on the same
scale as CV* (times 100 (1 + 1/(4n)) / mean). tests/stats/test_qra.py reproduces the
paper's Table 4 (CV* 1.562, 2.487, 4.176, 3.572) and the authors' worked example.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from reprokg.stats.methods import BELZ_2022, register
from reprokg.stats.student_t import t_quantile

CV_STAR = register(
    name="cv_star",
    label="QRA coefficient of variation CV*",
    definition="Unbiased coefficient of variation of one measured quantity over the original "
    "and its reproductions, on a scale shifted to start at 0, with the small-sample "
    "correction (1 + 1/(4n)); 0 = perfectly reproduced.",
    citation=BELZ_2022,
    reference="the paper's Table 4 and the authors' code (asbelz/coeff-var)",
    family="reproducibility",
    defaults={"level": 0.95, "scale_min": 0.0},
)


@dataclass(frozen=True)
class QRA:
    n: int
    mean: float
    #: the unbiased standard deviation s / c4(n) and its interval
    sd: float
    sd_low: float
    sd_high: float
    cv: float
    cv_star: float
    cv_star_low: float
    cv_star_high: float
    within_one_sd: float
    within_two_sd: float
    scale_min: float
    level: float

    def to_json(self) -> dict[str, float | int]:
        return {k: _finite(v) for k, v in self.__dict__.items()}


def _finite(v: float | int) -> float | int | None:
    return v if not isinstance(v, float) or math.isfinite(v) else None


def c4(n: int) -> float:
    """E[s]/σ for n normal observations."""
    return math.sqrt(2.0 / (n - 1)) * math.exp(math.lgamma(n / 2.0) - math.lgamma((n - 1) / 2.0))


def cv_star(
    values: np.ndarray | list[float], *, scale_min: float = 0.0, level: float = 0.95
) -> QRA:
    """CV* of the measurements (original first or not: the order does not matter)."""
    x = np.asarray(values, dtype=float) - scale_min
    n = len(x)
    if n < 2:
        raise ValueError("CV* needs the original and at least one reproduction (n >= 2)")
    mean = float(np.mean(x))
    if mean <= 0:
        raise ValueError(
            f"the mean on the shifted scale is {mean:g}; CV* needs positive values (give the "
            "scale's minimum as scale_min)"
        )
    variance = float(np.sum((x - mean) ** 2)) / (n - 1)
    sd = math.sqrt(variance) / c4(n)
    factor = 1.0 + 1.0 / (4.0 * n)
    cv = 100.0 * sd / mean
    if sd > 0:
        se_sd = variance * math.sqrt(2.0 / (n - 1)) / (2.0 * sd)
        crit = t_quantile(1.0 - (1.0 - level) / 2.0, n - 1)
        sd_low, sd_high = sd - crit * se_sd, sd + crit * se_sd
    else:
        sd_low = sd_high = 0.0
    scale = 100.0 * factor / mean
    deviation = np.abs(x - mean)
    return QRA(
        n=n,
        mean=mean + scale_min,
        sd=sd,
        sd_low=sd_low,
        sd_high=sd_high,
        cv=cv,
        cv_star=factor * cv,
        cv_star_low=scale * sd_low,
        cv_star_high=scale * sd_high,
        within_one_sd=float(np.mean(deviation < sd)) * 100.0,
        within_two_sd=float(np.mean(deviation < 2 * sd)) * 100.0,
        scale_min=scale_min,
        level=level,
    )
