"""Statistics of the code-replicability study, as pure functions on numbers and DataFrames.

The study ("Code Replicability in Computer Graphics", SIGGRAPH 2020) reports proportions
with exact (Clopper–Pearson) intervals, Pearson χ² tests of two proportions without Yates'
correction, t-based intervals and a Wilcoxon rank-sum test on citation counts, a two-factor
ANOVA on the replication score, and Benjamini–Hochberg adjusted p-values. The tests
(χ², rank-sum, BH) are written out here from their textbook formulas rather than delegated,
so the test suite can check them against scipy/statsmodels as independent references.
Nothing here reads the store: :mod:`reprokg.survey.analysis` feeds these functions.
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


def rank_sum_test(x: Sequence[float], y: Sequence[float]) -> TestResult:
    """Wilcoxon rank-sum / Mann–Whitney U, two-sided, normal approximation.

    U1 = R1 − n1(n1+1)/2 from mid-ranks of the pooled sample; z uses the tie-corrected
    variance n1·n2/12·((N+1) − Σ(t³−t)/(N(N−1))) and a 0.5 continuity correction towards
    the mean. Citation counts have many ties and groups of ~100, so the normal
    approximation (as in R's wilcox.test with ties) is the usual choice.
    """
    a = np.asarray([v for v in x if not _isnan(v)], dtype=float)
    b = np.asarray([v for v in y if not _isnan(v)], dtype=float)
    n1, n2 = a.size, b.size
    if n1 == 0 or n2 == 0:
        return TestResult(_RANK_SUM_METHOD, math.nan, math.nan)
    pooled = np.concatenate([a, b])
    ranks = _st.rankdata(pooled)  # mid-ranks for ties
    r1 = float(ranks[:n1].sum())
    u1 = r1 - n1 * (n1 + 1) / 2
    n = n1 + n2
    _, counts = np.unique(pooled, return_counts=True)
    tie = float((counts**3 - counts).sum())
    var = n1 * n2 / 12 * ((n + 1) - tie / (n * (n - 1)))
    mu = n1 * n2 / 2
    if var <= 0:
        return TestResult(_RANK_SUM_METHOD, u1, math.nan)
    diff = u1 - mu
    z = (abs(diff) - 0.5) / math.sqrt(var) if abs(diff) >= 0.5 else 0.0
    p = float(min(1.0, 2 * _st.norm.sf(z)))
    return TestResult(
        _RANK_SUM_METHOD,
        statistic=float(u1),
        p=p,
        detail={"z": math.copysign(z, diff), "n1": int(n1), "n2": int(n2), "rank_sum_1": r1},
    )


_RANK_SUM_METHOD = (
    "Wilcoxon rank-sum (Mann-Whitney U) test, two-sided, normal approximation with tie "
    "correction and 0.5 continuity correction; statistic = U of the first group"
)


def anova_two_factor(df: pd.DataFrame, response: str, a: str, b: str) -> dict[str, TestResult]:
    """Main-effects two-factor ANOVA (no interaction) with Type II sums of squares.

    The design is unbalanced (reviewers saw different numbers of papers per year), so Type I
    (sequential) sums of squares would depend on the order of the factors. Type II tests
    each factor after the other; without an interaction term it equals Type III and
    respects marginality. Both factors are treated as categorical (year as a level, not a
    trend). Fitted with statsmodels OLS + ``anova_lm(typ=2)``.
    """
    import statsmodels.api as sm
    from statsmodels.formula.api import ols

    data = df[[response, a, b]].dropna().copy()
    data[a] = data[a].astype(str)
    data[b] = data[b].astype(str)
    data[response] = data[response].astype(float)
    model = ols(f"Q('{response}') ~ C(Q('{a}')) + C(Q('{b}'))", data=data).fit()
    table = sm.stats.anova_lm(model, typ=2)
    method = (
        f"two-factor ANOVA, main effects of {a} and {b} without interaction, Type II sums "
        "of squares (unbalanced design; order-independent), statsmodels OLS + anova_lm(typ=2)"
    )
    resid_df = float(table.loc["Residual", "df"])
    out: dict[str, TestResult] = {}
    for factor, label in ((a, f"C(Q('{a}'))"), (b, f"C(Q('{b}'))")):
        row = table.loc[label]
        out[factor] = TestResult(
            method=method,
            statistic=float(row["F"]),
            p=float(row["PR(>F)"]),
            df=float(row["df"]),
            detail={
                "df_residual": resid_df,
                "sum_sq": float(row["sum_sq"]),
                "n": int(len(data)),
                "levels": sorted(data[factor].unique().tolist()),
            },
        )
    return out


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
        return v is None or math.isnan(float(v))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
