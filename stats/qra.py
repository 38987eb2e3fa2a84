"""Quantified reproducibility assessment (Belz, Popović & Mille 2022): the degree of
reproducibility of one measured quantity over the original and every reproduction, as the
small-sample-corrected coefficient of variation CV*.

Following the paper and the authors' code (asbelz/coeff-var): the values are first shifted
onto a scale that starts at 0 (``scale_min`` is subtracted: a 1-5 rating scale becomes
0-4); s* = s / c4(n) is the unbiased standard deviation (s with n - 1, c4(n) = √(2/(n-1))
Γ(n/2)/Γ((n-1)/2)); CV = 100 s* / mean and CV* = (1 + 1/(4n)) CV. The interval is the
authors': a t interval (n - 1 degrees of freedom) around s* with the standard error of the
unbiased variance, s² √(2/(n-1)), over 2 s*; CV*'s interval is that interval on the same
scale as CV* (times 100 (1 + 1/(4n)) / mean). tests/stats/test_seeds_ranks_qra.py reproduces
the paper's Table 4 (CV* 1.562, 2.487, 4.176, 3.572) and the authors' worked example.

QRA++ (Belz 2025) adds measures for results that are sets of related values (the scores of
several systems, or of one system on several data sets, under one measure), where what a
reproduction should preserve is the values' relation rather than each value: Pearson's r
and Spearman's ρ between the original's and one reproduction's values (its type II), and
for rankings Kendall's τ_b between two and Kendall's W (coefficient of concordance, tie
corrected) over the original and every reproduction at once (its type III). Its measures
of categorical and qualitative results (κ, α, the share of conclusions confirmed) need
labels or conclusions the graph does not hold as numbers and are not computed here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from reprokg.stats.methods import BELZ_2022, BELZ_2025, register
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


SET_AGREEMENT = register(
    name="qra_set_agreement",
    label="QRA++ agreement of a set of values (r, ρ, τ_b)",
    definition="Pearson's r and Spearman's ρ between the original's and one reproduction's "
    "values of a set of related measured quantities (type II), and Kendall's τ_b between "
    "their rankings (type III); 1 = the relation fully reproduced.",
    citation=BELZ_2025,
    reference="scipy.stats.pearsonr, spearmanr, kendalltau (variant b)",
    family="reproducibility",
)
CONCORDANCE = register(
    name="kendall_w",
    label="QRA++ concordance of rankings (Kendall's W)",
    definition="Kendall's coefficient of concordance (tie corrected) of the rankings the "
    "original and every reproduction give a set of measured quantities (type III); "
    "W = χ²_F / (m (n - 1)) with Friedman's tie-corrected χ² over m sources and n quantities.",
    citation=BELZ_2025,
    reference="scipy.stats.friedmanchisquare (W from its statistic)",
    family="reproducibility",
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

    def to_json(self) -> dict[str, float | int | None]:
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


@dataclass(frozen=True)
class SetAgreement:
    """How far one reproduction keeps the relation among a set of measured quantities."""

    n: int
    pearson_r: float | None
    spearman_rho: float | None
    kendall_tau: float | None

    def to_json(self) -> dict[str, float | int | None]:
        return {k: _finite(v) if v is not None else None for k, v in self.__dict__.items()}


def _ranks(x: np.ndarray) -> np.ndarray:
    """Average ranks (ties share the mean of their positions), as scipy's rankdata."""
    order = np.argsort(x, kind="stable")
    s = x[order]
    new = np.concatenate(([True], s[1:] != s[:-1]))
    starts = np.flatnonzero(new)
    counts = np.diff(np.concatenate((starts, [len(s)])))
    out = np.empty(len(x))
    out[order] = np.repeat(starts + (counts + 1) / 2.0, counts)
    return out


def _pearson(a: np.ndarray, b: np.ndarray) -> float | None:
    da, db = a - a.mean(), b - b.mean()
    denom = math.sqrt(float(np.dot(da, da)) * float(np.dot(db, db)))
    return float(np.dot(da, db)) / denom if denom > 0 else None


def _kendall_tau_b(a: np.ndarray, b: np.ndarray) -> float | None:
    sa = np.sign(a[:, None] - a[None, :])
    sb = np.sign(b[:, None] - b[None, :])
    iu = np.triu_indices(len(a), 1)
    pa, pb = sa[iu], sb[iu]
    denom = math.sqrt(float(np.count_nonzero(pa)) * float(np.count_nonzero(pb)))
    return float(np.sum(pa * pb)) / denom if denom > 0 else None


def set_agreement(
    original: np.ndarray | list[float], reproduction: np.ndarray | list[float]
) -> SetAgreement:
    """QRA++'s type II/III measures of one reproduction of a set of values (same order)."""
    a = np.asarray(original, dtype=float)
    b = np.asarray(reproduction, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("the original and the reproduction need values of the same quantities")
    if len(a) < 2:
        return SetAgreement(len(a), None, None, None)
    return SetAgreement(
        len(a), _pearson(a, b), _pearson(_ranks(a), _ranks(b)), _kendall_tau_b(a, b)
    )


def kendall_w(values: np.ndarray | list[list[float]]) -> float | None:
    """Kendall's W of a sources x quantities matrix (each row one source's values of the
    same quantities), tie corrected; ``None`` when undefined (fewer than 2 of either, or
    every source gives all quantities the same value)."""
    x = np.asarray(values, dtype=float)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2 or not np.all(np.isfinite(x)):
        return None
    m, n = x.shape
    ranks = np.vstack([_ranks(row) for row in x])
    ties = 0.0
    for row in x:
        _, counts = np.unique(row, return_counts=True)
        ties += float(np.sum(counts**3 - counts))
    s = float(np.sum((ranks.sum(axis=0) - m * (n + 1) / 2.0) ** 2))
    denom = m * m * (n**3 - n) - m * ties
    return 12.0 * s / denom if denom > 0 else None
