"""Statistics of the code-replicability study, as pure functions on numbers and DataFrames.

The study ("Code Replicability in Computer Graphics", SIGGRAPH 2020) reports proportions
with exact (Clopper–Pearson) intervals, Pearson χ² tests of two proportions without Yates'
correction, t-based intervals and a Wilcoxon rank-sum test on citation counts, main-effects
ANOVAs on the replication score, and Benjamini–Hochberg adjusted p-values. The tests
(χ², rank-sum, ANOVA, BH) are written out here from their textbook formulas, following the
study's tools (MATLAB) where defaults differ, rather than delegated, so the test suite can
check them against scipy/statsmodels as independent references. Nothing here reads the
store: :mod:`reprokg.survey.analysis` and :mod:`reprokg.studies` feed these functions.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as _st


@dataclass(frozen=True)
class Proportion:
    """k successes out of n with a two-sided exact interval (fractions 0–1)."""

    k: int
    n: int
    rate: float | None
    ci95: tuple[float, float] | None

    def to_dict(self) -> dict[str, object]:
        return {
            "k": self.k,
            "n": self.n,
            "rate": self.rate,
            "ci95": list(self.ci95) if self.ci95 is not None else None,
        }


@dataclass(frozen=True)
class TestResult:
    """One hypothesis test: what was computed, its statistic and its (raw) p-value."""

    method: str
    statistic: float
    p: float
    df: float | None = None
    detail: dict[str, object] | None = None


def clopper_pearson(k: int, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """Exact binomial interval from beta quantiles; 0 and 1 at the ends (k=0, k=n).

    Exact rather than Wald because several groups (topics, years) are small and have rates
    near 0, where the normal approximation gives intervals outside [0, 1].
    """
    if n <= 0:
        raise ValueError("Clopper–Pearson needs n > 0")
    if not 0 <= k <= n:
        raise ValueError(f"k={k} must lie in 0..n={n}")
    lo = 0.0 if k == 0 else float(_st.beta.ppf(alpha / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(_st.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return lo, hi


def proportion(k: int, n: int) -> Proportion:
    """k/n with its Clopper–Pearson 95% interval; rate and interval are None when n=0."""
    if n == 0:
        return Proportion(0, 0, None, None)
    return Proportion(int(k), int(n), k / n, clopper_pearson(int(k), int(n)))


def proportions_by(df: pd.DataFrame, group: str, flag: str) -> dict[str, Proportion]:
    """Proportion of rows with ``flag`` true per value of ``group`` (sorted by group value)."""
    out: dict[str, Proportion] = {}
    sub = df[[group, flag]].dropna(subset=[group])
    for key, rows in sorted(sub.groupby(group), key=lambda kv: kv[0]):
        values = rows[flag].fillna(False).astype(bool)
        out[str(key)] = proportion(int(values.sum()), len(values))
    return out


def chi2_two_proportions(k1: int, n1: int, k2: int, n2: int) -> TestResult:
    """Pearson χ² on the 2×2 table [[k1, n1-k1], [k2, n2-k2]], no Yates correction, 1 df.

    χ² = Σ (O − E)² / E with E = row total × column total / N. Equivalent to the two-sided
    z test of two proportions (χ² = z²). Undefined (NaN) when a margin is zero.
    """
    table = np.array([[k1, n1 - k1], [k2, n2 - k2]], dtype=float)
    if (table < 0).any():
        raise ValueError("counts must satisfy 0 <= k <= n")
    total = table.sum()
    rows = table.sum(axis=1)
    cols = table.sum(axis=0)
    if total == 0 or (rows == 0).any() or (cols == 0).any():
        stat, p = math.nan, math.nan
    else:
        expected = np.outer(rows, cols) / total
        stat = float(((table - expected) ** 2 / expected).sum())
        p = float(_st.chi2.sf(stat, 1))
    return TestResult(
        method="Pearson chi-squared test of two proportions on a 2x2 table, "
        "without Yates' continuity correction, 1 degree of freedom",
        statistic=stat,
        p=p,
        df=1.0,
        detail={
            "table": [[int(k1), int(n1 - k1)], [int(k2), int(n2 - k2)]],
            "rate_1": k1 / n1 if n1 else None,
            "rate_2": k2 / n2 if n2 else None,
        },
    )


def mean_ci_t(values: Iterable[float], confidence: float = 0.95) -> dict[str, object]:
    """Mean with a Student-t interval (mean ± t·s/√n), median and n of non-missing values."""
    x = np.asarray([v for v in values if v is not None and not _isnan(v)], dtype=float)
    n = int(x.size)
    if n == 0:
        return {"n": 0, "mean": None, "ci95": None, "median": None, "sd": None}
    mean = float(x.mean())
    median = float(np.median(x))
    if n < 2:
        return {"n": n, "mean": mean, "ci95": None, "median": median, "sd": None}
    sd = float(x.std(ddof=1))
    half = float(_st.t.ppf(0.5 + confidence / 2, n - 1)) * sd / math.sqrt(n)
    return {"n": n, "mean": mean, "ci95": [mean - half, mean + half], "median": median, "sd": sd}


def midranks(values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Ranks 1..N with ties given their average rank (R ``rank``, MATLAB ``tiedrank``)."""
    return _st.rankdata(np.asarray(values, dtype=float), method="average")


def tie_term(values: Sequence[float] | np.ndarray) -> float:
    """Σ (t³ − t) over groups of tied values: the tie correction of the rank-sum variance."""
    _, counts = np.unique(np.asarray(values, dtype=float), return_counts=True)
    c = counts.astype(float)
    return float((c**3 - c).sum())


def rank_sum_normal(
    x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray, correct: bool = True
) -> tuple[float, float, float]:
    """Two-sided normal approximation of the rank-sum test: ``(U, z, p)``.

    U = R_x − n_x(n_x+1)/2 from mid-ranks of the pooled sample; variance
    n_x·n_y/12·((N+1) − Σ(t³−t)/(N(N−1))); the continuity correction moves
    d = U − n_x·n_y/2 by 0.5 towards zero, ``sign(d)·0.5`` as MATLAB ``ranksum`` and R
    ``wilcox.test`` write it (d is a multiple of 0.5, so this equals scipy's
    ``max(|d| − 0.5, 0)``). NaN p when the variance is 0 (all values tied).
    """
    a = np.asarray(x, dtype=float)
    b = np.asarray(y, dtype=float)
    nx, ny = a.size, b.size
    pooled = np.concatenate([a, b])
    n = nx + ny
    u = float(midranks(pooled)[:nx].sum()) - nx * (nx + 1) / 2
    diff = u - nx * ny / 2
    var = nx * ny / 12 * ((n + 1) - tie_term(pooled) / (n * (n - 1)))
    if var <= 0:
        return u, math.nan, math.nan
    corr = math.copysign(0.5, diff) if (correct and diff != 0) else 0.0
    z = (diff - corr) / math.sqrt(var)
    p = float(min(1.0, 2 * _st.norm.sf(abs(z))))
    return u, z, p


def rank_sum_test(x: Sequence[float], y: Sequence[float]) -> TestResult:
    """Wilcoxon rank-sum / Mann–Whitney U, two-sided, normal approximation.

    :func:`rank_sum_normal` with the tie-corrected variance and the 0.5 continuity
    correction (MATLAB ``ranksum``'s large-sample method, R ``wilcox.test`` with ties).
    Citation counts have many ties and groups of ~100, where this is the method both
    tools use. NaN values are left out.
    """
    a = np.asarray([v for v in x if not _isnan(v)], dtype=float)
    b = np.asarray([v for v in y if not _isnan(v)], dtype=float)
    n1, n2 = a.size, b.size
    if n1 == 0 or n2 == 0:
        return TestResult(_RANK_SUM_METHOD, math.nan, math.nan)
    u, z, p = rank_sum_normal(a, b, correct=True)
    return TestResult(
        _RANK_SUM_METHOD,
        statistic=u,
        p=p,
        detail={
            "z": z,
            "n1": int(n1),
            "n2": int(n2),
            "rank_sum_1": float(midranks(np.concatenate([a, b]))[:n1].sum()),
        },
    )


_RANK_SUM_METHOD = (
    "Wilcoxon rank-sum (Mann-Whitney U) test, two-sided, normal approximation with tie "
    "correction and 0.5 continuity correction; statistic = U of the first group"
)


def anova_main_effects(
    df: pd.DataFrame, response: str, factors: Sequence[str]
) -> dict[str, TestResult]:
    """Main-effects ANOVA (no interactions), every factor categorical, Type II = Type III.

    A factor's sum of squares is RSS(model without it) − RSS(full model), on treatment-
    coded dummies fitted by least squares; ranks give the degrees of freedom, so an empty
    or aliased level costs none. For a model without interaction terms this is both the
    Type II and the Type III sum of squares (MATLAB ``anovan``'s default is Type III;
    statsmodels ``anova_lm(typ=2)`` gives the same), and it does not depend on the order of
    the factors, which matters in an unbalanced design. Rows with a missing value in the
    response or a factor are left out. Written on numpy rather than statsmodels' formula
    machinery, which the tests use as the independent reference.
    """
    data = df[[response, *factors]].dropna()
    y = data[response].astype(float).to_numpy()
    n = len(y)
    blocks = [_dummies(data[f].astype(str).to_numpy()) for f in factors]
    full = np.column_stack([np.ones(n), *blocks])
    rss_full, rank_full = _rss(full, y)
    resid_df = float(n - rank_full)
    mse = rss_full / resid_df if resid_df > 0 else math.nan
    method = (
        f"main-effects ANOVA of {response} on {', '.join(factors)} (categorical, no "
        "interaction); each factor's sum of squares = RSS without it − RSS of the full "
        "model (Type II = Type III without interactions; order-independent)"
    )
    out: dict[str, TestResult] = {}
    for i, factor in enumerate(factors):
        reduced = np.column_stack([np.ones(n), *(b for j, b in enumerate(blocks) if j != i)])
        rss_red, rank_red = _rss(reduced, y)
        df_f = float(rank_full - rank_red)
        ss_f = rss_red - rss_full
        ok = df_f > 0 and resid_df > 0 and mse > 0
        f_stat = (ss_f / df_f) / mse if ok else math.nan
        out[factor] = TestResult(
            method=method,
            statistic=float(f_stat),
            p=float(_st.f.sf(f_stat, df_f, resid_df)) if ok else math.nan,
            df=df_f,
            detail={
                "df_residual": resid_df,
                "sum_sq": float(ss_f),
                "n": int(n),
                "levels": sorted(set(data[factor].astype(str))),
            },
        )
    return out


def _dummies(values: np.ndarray) -> np.ndarray:
    """Treatment-coded indicator columns (the first level in sorted order is the baseline)."""
    levels = sorted(set(values.tolist()))
    if len(levels) < 2:
        return np.empty((len(values), 0))
    return np.column_stack([values == lv for lv in levels[1:]]).astype(float)


def _rss(x: np.ndarray, y: np.ndarray) -> tuple[float, int]:
    """Residual sum of squares and rank of the least-squares fit of y on x."""
    coef, _, rank, _ = np.linalg.lstsq(x, y, rcond=None)
    r = y - x @ coef
    return float(r @ r), int(rank)


def benjamini_hochberg(pvalues: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg (1995) adjusted p-values, in the input order; NaN stays NaN.

    p_adj(i) = min over j ≥ i (in ascending order) of m·p(j)/j, capped at 1; m counts the
    non-missing p-values only.
    """
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    m = int(ok.sum())
    if m == 0:
        return out.tolist()
    vals = p[ok]
    order = np.argsort(vals, kind="mergesort")
    ranked = vals[order] * m / np.arange(1, m + 1)
    adjusted = np.minimum.accumulate(ranked[::-1])[::-1]
    adjusted = np.minimum(adjusted, 1.0)
    back = np.empty(m)
    back[order] = adjusted
    out[ok] = back
    return out.tolist()


def _isnan(v: object) -> bool:
    try:
        # float() refuses what it must; caught below
        return v is None or math.isnan(float(v))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
