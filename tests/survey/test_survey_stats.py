"""Hand-checkable cases for the survey statistics, and agreement with scipy/statsmodels."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from reprokg.survey import stats as ss

# --- Clopper–Pearson -------------------------------------------------------------------


def test_clopper_pearson_k_zero_has_closed_form() -> None:
    # k = 0: lower = 0, upper = 1 - (alpha/2)^(1/n) = 1 - 0.025^(1/10) = 0.308497...
    lo, hi = ss.clopper_pearson(0, 10)
    assert lo == 0.0
    assert hi == pytest.approx(0.308497, abs=1e-6)


def test_clopper_pearson_k_equals_n_has_closed_form() -> None:
    # k = n: upper = 1, lower = (alpha/2)^(1/n) = 0.025^(1/10) = 0.691503...
    lo, hi = ss.clopper_pearson(10, 10)
    assert hi == 1.0
    assert lo == pytest.approx(0.691503, abs=1e-6)


def test_clopper_pearson_matches_scipy_binomtest() -> None:
    for k, n in [(1, 7), (37, 127), (60, 128), (5, 41)]:
        ref = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
        lo, hi = ss.clopper_pearson(k, n)
        assert lo == pytest.approx(ref.low, abs=1e-10)
        assert hi == pytest.approx(ref.high, abs=1e-10)


def test_clopper_pearson_rejects_bad_counts() -> None:
    with pytest.raises(ValueError):
        ss.clopper_pearson(3, 2)
    with pytest.raises(ValueError):
        ss.clopper_pearson(0, 0)


def test_proportion_of_empty_group_is_none() -> None:
    p = ss.proportion(0, 0)
    assert p.rate is None and p.ci95 is None
    assert ss.proportion(3, 4).to_dict()["rate"] == 0.75


def test_proportions_by_groups_and_counts() -> None:
    df = pd.DataFrame({"g": ["a", "a", "b", "b", "b"], "f": [True, False, True, True, None]})
    out = ss.proportions_by(df, "g", "f")
    assert (out["a"].k, out["a"].n) == (1, 2)
    assert (out["b"].k, out["b"].n) == (2, 3)  # a missing flag counts as "not shared"


# --- chi-squared ------------------------------------------------------------------------


def test_chi2_hand_computed_table() -> None:
    # [[10, 10], [5, 15]]: rows 20/20, cols 15/25, N = 40 -> E = [[7.5, 12.5], [7.5, 12.5]]
    # chi2 = 2 * (2.5^2/7.5 + 2.5^2/12.5) = 2 * (0.8333 + 0.5) = 2.6667 = 8/3
    # p = P(chi2_1 > 8/3) = 2 * (1 - Phi(sqrt(8/3) = 1.63299)) = 2 * (1 - 0.94877) = 0.10246
    r = ss.chi2_two_proportions(10, 20, 5, 20)
    assert r.statistic == pytest.approx(8 / 3, rel=1e-12)
    assert r.p == pytest.approx(0.10246, abs=2e-5)
    assert r.df == 1.0


def test_chi2_matches_scipy_without_yates() -> None:
    for k1, n1, k2, n2 in [(37, 127, 43, 119), (43, 119, 71, 128), (100, 239, 51, 135)]:
        table = [[k1, n1 - k1], [k2, n2 - k2]]
        ref_stat, ref_p, _, _ = stats.chi2_contingency(table, correction=False)
        r = ss.chi2_two_proportions(k1, n1, k2, n2)
        assert r.statistic == pytest.approx(ref_stat, rel=1e-10)
        assert r.p == pytest.approx(ref_p, rel=1e-10)


def test_chi2_with_empty_margin_is_nan() -> None:
    r = ss.chi2_two_proportions(0, 5, 0, 7)
    assert math.isnan(r.statistic) and math.isnan(r.p)


# --- t interval -------------------------------------------------------------------------


def test_mean_ci_t_hand_case() -> None:
    # 1..5: mean 3, s = sqrt(2.5) = 1.58114, t(0.975, 4) = 2.776445
    # half width = 2.776445 * 1.58114 / sqrt(5) = 1.963243
    r = ss.mean_ci_t([1, 2, 3, 4, 5, float("nan")])
    assert r["n"] == 5
    assert r["mean"] == 3
    assert r["median"] == 3
    lo, hi = r["ci95"]
    assert lo == pytest.approx(3 - 1.963243, abs=1e-5)
    assert hi == pytest.approx(3 + 1.963243, abs=1e-5)


def test_mean_ci_t_degenerate_sizes() -> None:
    assert ss.mean_ci_t([])["mean"] is None
    one = ss.mean_ci_t([7])
    assert one["mean"] == 7 and one["ci95"] is None


# --- rank-sum ---------------------------------------------------------------------------


def test_rank_sum_hand_case_without_ties() -> None:
    # x = 1,2,3 ; y = 4,5,6: R1 = 6, U1 = 6 - 6 = 0, mu = 4.5, var = 3*3*7/12 = 5.25
    # z = (4.5 - 0.5) / sqrt(5.25) = 1.745743 ; p = 2 * (1 - Phi(1.745743)) = 0.080856
    r = ss.rank_sum_test([1, 2, 3], [4, 5, 6])
    assert r.statistic == 0
    assert r.detail["z"] == pytest.approx(-1.745743, abs=1e-6)
    assert r.p == pytest.approx(0.080856, abs=1e-5)


def test_rank_sum_hand_case_with_ties() -> None:
    # pooled 1,2,2 | 2,3,3 -> mid-ranks 1 | 3,3,3 | 5.5,5.5 ; R1 = 1+3+3 = 7, U1 = 1
    # ties: sum(t^3 - t) = (27-3) + (8-2) = 30 ; var = 9/12 * (7 - 30/30) = 4.5
    # z = (|1 - 4.5| - 0.5)/sqrt(4.5) = 1.414214 ; p = 2 * (1 - Phi(1.414214)) = 0.157299
    r = ss.rank_sum_test([1, 2, 2], [2, 3, 3])
    assert r.statistic == 1
    assert r.p == pytest.approx(0.157299, abs=1e-5)


def test_rank_sum_matches_scipy_asymptotic() -> None:
    rng = np.random.default_rng(7)
    x = rng.poisson(30, 60).astype(float)  # many ties, like citation counts
    y = rng.poisson(24, 70).astype(float)
    ref = stats.mannwhitneyu(x, y, alternative="two-sided", method="asymptotic")
    r = ss.rank_sum_test(x, y)
    assert r.statistic == pytest.approx(ref.statistic)
    assert r.p == pytest.approx(ref.pvalue, rel=1e-9)


# --- ANOVA ------------------------------------------------------------------------------


def test_anova_hand_computed_balanced_design() -> None:
    # a1b1: 1,3  a1b2: 3,5  a2b1: 5,7  a2b2: 7,9 ; grand mean 5
    # A means 3 / 7 -> SS_A = 4 * (4 + 4) = 32 ; B means 4 / 6 -> SS_B = 4 * (1 + 1) = 8
    # additive fit 2,4,6,8 -> residuals +-1 -> SSE = 8 on 8 - 3 = 5 df, MSE = 1.6
    # F_A = 32 / 1.6 = 20, F_B = 8 / 1.6 = 5
    df = pd.DataFrame(
        {
            "y": [1, 3, 3, 5, 5, 7, 7, 9],
            "a": ["a1", "a1", "a1", "a1", "a2", "a2", "a2", "a2"],
            "b": ["b1", "b1", "b2", "b2", "b1", "b1", "b2", "b2"],
        }
    )
    out = ss.anova_main_effects(df, "y", ["a", "b"])
    assert out["a"].statistic == pytest.approx(20)
    assert out["b"].statistic == pytest.approx(5)
    assert out["a"].p == pytest.approx(stats.f.sf(20, 1, 5))
    assert out["b"].p == pytest.approx(stats.f.sf(5, 1, 5))
    assert out["a"].detail["df_residual"] == 5
    assert "Type II" in out["a"].method


def test_anova_type_ii_is_order_independent_on_unbalanced_data() -> None:
    rng = np.random.default_rng(3)
    df = pd.DataFrame(
        {
            "y": rng.integers(1, 6, 40).astype(float),
            "year": rng.choice(["2014", "2016", "2018"], 40),
            "rev": rng.choice(["1", "2", "3", "4"], 40, p=[0.4, 0.3, 0.2, 0.1]),
        }
    )
    ab = ss.anova_main_effects(df, "y", ["year", "rev"])
    ba = ss.anova_main_effects(df, "y", ["rev", "year"])
    assert ab["year"].p == pytest.approx(ba["year"].p)
    assert ab["rev"].p == pytest.approx(ba["rev"].p)


def test_anova_matches_statsmodels_type_ii_and_type_iii() -> None:
    """The numpy ANOVA against statsmodels: Type II, and Type III with sum-to-zero
    contrasts (MATLAB anovan's default), on an unbalanced three-factor design with an
    empty cell, as the second ANOVA of the SIGGRAPH study has."""
    sm = pytest.importorskip("statsmodels.api")
    from statsmodels.formula.api import ols

    rng = np.random.default_rng(11)
    n = 90
    df = pd.DataFrame(
        {
            "y": rng.integers(0, 6, n).astype(float),
            "year": rng.choice(["2014", "2016", "2018"], n),
            "topic": rng.choice(["g", "r", "i", "a"], n, p=[0.4, 0.3, 0.2, 0.1]),
            "ind": rng.choice(["yes", "no"], n),
        }
    )
    df = df[~((df["topic"] == "a") & (df["year"] == "2014"))]  # an empty cell
    ours = ss.anova_main_effects(df, "y", ["year", "topic", "ind"])
    t2 = sm.stats.anova_lm(ols("y ~ C(year) + C(topic) + C(ind)", data=df).fit(), typ=2)
    t3 = sm.stats.anova_lm(
        ols("y ~ C(year, Sum) + C(topic, Sum) + C(ind, Sum)", data=df).fit(), typ=3
    )
    for f in ("year", "topic", "ind"):
        assert ours[f].statistic == pytest.approx(t2.loc[f"C({f})", "F"], rel=1e-9)
        assert ours[f].p == pytest.approx(t2.loc[f"C({f})", "PR(>F)"], rel=1e-9)
        assert ours[f].statistic == pytest.approx(t3.loc[f"C({f}, Sum)", "F"], rel=1e-9)
        assert ours[f].df == t2.loc[f"C({f})", "df"]
        assert ours[f].detail["n"] == len(df)


def test_rank_sum_normal_z_and_continuity_by_hand() -> None:
    # x = 1,2,3 ; y = 4,5,6: U = 0, d = -4.5, var = 5.25: z = (-4.5 + 0.5)/sqrt(5.25)
    u, z, p = ss.rank_sum_normal([1, 2, 3], [4, 5, 6])
    assert (u, z) == (0, pytest.approx(-4 / math.sqrt(5.25)))
    _, z_raw, _ = ss.rank_sum_normal([1, 2, 3], [4, 5, 6], correct=False)
    assert z_raw == pytest.approx(-4.5 / math.sqrt(5.25))
    # d is a multiple of 0.5 (mid-ranks): at |d| = 0.5 the correction gives z = 0
    u, z, p = ss.rank_sum_normal([1.0], [1.0, 2.0])  # mid-ranks 1.5 | 1.5, 3: U = 0.5
    assert u - 1 == -0.5 and z == 0 and p == 1.0
    # everything tied: no variance, no p
    assert math.isnan(ss.rank_sum_normal([1.0, 1.0], [1.0])[2])


# --- Benjamini–Hochberg -----------------------------------------------------------------

# Benjamini & Hochberg (1995), section 4: the 15 p-values of the thrombolysis example.
BH_1995 = [0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459,
           0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.0000]  # fmt: skip


def test_bh_textbook_example() -> None:
    adj = ss.benjamini_hochberg(BH_1995)
    # by hand: m*p(i)/i = .0015 .003 .0095 .035625 .0603 .0695 .063857 .0645 .0765 .486 ...
    # then the running minimum from the top: p_adj(6) = p_adj(7) = 0.0298*15/7 = 0.063857
    assert adj[0] == pytest.approx(0.0015)
    assert adj[3] == pytest.approx(0.035625)
    assert adj[4] == pytest.approx(0.0603)
    assert adj[5] == pytest.approx(0.0298 * 15 / 7)
    assert adj[14] == 1.0
    # the paper's conclusion: at q = 0.05 the four smallest hypotheses are rejected
    assert sum(a <= 0.05 for a in adj) == 4


def test_bh_matches_statsmodels_in_input_order_with_nan() -> None:
    p = [0.04, 0.001, float("nan"), 0.03, 0.5, 0.02]
    ref = multipletests([v for v in p if not math.isnan(v)], method="fdr_bh")[1]
    adj = ss.benjamini_hochberg(p)
    assert math.isnan(adj[2])
    assert [a for a in adj if not math.isnan(a)] == pytest.approx(list(ref))
