"""The paired tests against their references, each named: Wilcoxon against R's
``wilcox.test`` (Rscript) and ``scipy.stats.wilcoxon`` with R's choices; the randomization
test against ``scipy.stats.permutation_test`` with the same resamples and seed, exact and
Monte Carlo, on real per-topic differences and edge cases."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as st

from reprokg.stats.paired import randomization, wilcoxon, wilcoxon_column
from tests.stats.conftest import run_r

EDGE = {
    "ties": np.array([0.1, 0.1, -0.2, 0.3, 0.1, -0.1, 0.2, 0.2]),
    "zeros": np.array([0.0, 0.2, -0.1, 0.0, 0.4, 0.3, -0.05]),
    "n = 2": np.array([0.3, 0.1]),
    "all equal": np.array([0.25] * 6),
    "no ties, small": np.array([0.31, -0.12, 0.44, 0.05, 0.27, -0.08, 0.19]),
}


def _r_wilcox(rscript: str, x: np.ndarray) -> float:
    values = ",".join(repr(float(v)) for v in x)
    code = f"cat(format(suppressWarnings(wilcox.test(c({values})))$p.value, digits = 17))"
    return run_r(rscript, code)[0]


@pytest.mark.parametrize("case", list(EDGE))
def test_wilcoxon_equals_r_on_edge_cases(rscript, case) -> None:
    mine = wilcoxon_column(EDGE[case])
    assert abs(mine.pvalue - _r_wilcox(rscript, EDGE[case])) <= 1e-12


@pytest.mark.slow
def test_wilcoxon_equals_r_and_scipy_on_real_differences(rscript, core17_differences) -> None:
    d, names = core17_differences
    picks = [names.index(m) for m in ("AP", "P@10", "nDCG@20", "RR", "R@1000", "Bpref")]
    for j in picks:
        col = d[:, j]
        mine = wilcoxon_column(col)
        assert abs(mine.pvalue - _r_wilcox(rscript, col)) <= 1e-12, names[j]
        # scipy with the method R chose (R: exact below 50 pairs without ties or zeros)
        method = "exact" if mine.exact else "asymptotic"
        ref = st.wilcoxon(col, zero_method="wilcox", correction=True, method=method)
        assert abs(mine.pvalue - ref.pvalue) <= 1e-12, names[j]


def test_wilcoxon_of_all_zero_differences_is_undefined() -> None:
    (res,) = wilcoxon(np.zeros((5, 1)))
    assert res.pvalue is None and res.n == 0


def _stat(x, axis):
    return np.mean(x, axis=axis)


@pytest.mark.parametrize("case", list(EDGE))
def test_randomization_exact_equals_scipy(case) -> None:
    d = EDGE[case]
    mine = randomization(d)
    ref = st.permutation_test((d,), _stat, permutation_type="samples", n_resamples=np.inf)
    assert mine.exact and mine.pvalues[0] == pytest.approx(ref.pvalue, abs=1e-12)


def test_randomization_monte_carlo_equals_scipy_on_real_differences(core17_differences) -> None:
    """50 topics: 2^50 sign vectors, so 20,000 random ones (more than one batch of draws),
    the same as scipy's from the same seed: the p-values are equal, not just close."""
    d, names = core17_differences
    picks = [names.index(m) for m in ("AP", "P@10", "nDCG@20", "RR")]
    mine = randomization(d[:, picks], resamples=20_000, seed=11)
    assert not mine.exact and mine.resamples == 20_000
    for k, j in enumerate(picks):
        ref = st.permutation_test(
            (d[:, j],),
            _stat,
            permutation_type="samples",
            n_resamples=20_000,
            vectorized=True,
            rng=np.random.default_rng(11),
        )
        assert mine.pvalues[k] == ref.pvalue, names[j]


@pytest.mark.slow
def test_randomization_exact_up_to_the_limit() -> None:
    rng = np.random.default_rng(2)
    d = np.round(rng.normal(0.02, 0.1, size=(20, 2)), 3)  # 2^20 sign vectors: still exact
    mine = randomization(d)
    assert mine.exact and mine.resamples == 2**20
    for j in range(2):
        ref = st.permutation_test(
            (d[:, j],),
            _stat,
            permutation_type="samples",
            n_resamples=np.inf,
            vectorized=True,
            batch=2**16,
        )
        assert mine.pvalues[j] == pytest.approx(ref.pvalue, abs=1e-12)


def _tenths_with_zero_sum(seed: int, n: int = 50) -> np.ndarray:
    """P@10-like differences of n topics (whole tenths) whose sum is zero in exact
    arithmetic: the second run's scores are the first run's, shuffled over the topics."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 11, n)
    return np.column_stack([a, rng.permutation(a)])


def test_randomization_of_means_equal_in_exact_arithmetic_is_one() -> None:
    """Equal means (common for P@10) give p = 1, as scipy does on the same differences in
    whole tenths (integers: no rounding). Before the fix, the tolerance scaled to the
    rounded observed mean (~1e-18) let rounding decide the ties: 0.9972 here (scipy on the
    tenths as floats: 0.9952)."""
    tenths = _tenths_with_zero_sum(3)
    k = tenths[:, 0] - tenths[:, 1]
    d = tenths[:, 0] / 10 - tenths[:, 1] / 10
    assert k.sum() == 0 and d.mean() != 0  # zero in theory, not in floating point
    mine = randomization(d)
    ref = st.permutation_test(
        (k.astype(float),), _stat, permutation_type="samples", vectorized=True, rng=0
    )
    assert ref.pvalue == 1.0
    assert mine.pvalues[0] == 1.0
    # 16 topics, enumerated: all 2^16 sign vectors tie or exceed (before: 0.97241)
    small = _tenths_with_zero_sum(0, n=16) / 10
    d16 = small[:, 0] - small[:, 1]
    assert d16.mean() != 0
    exact = randomization(d16)
    assert exact.exact and exact.pvalues[0] == 1.0


def test_randomization_equals_scipy_on_exact_tenths(core17_differences) -> None:
    """On real P@10 and P@30 differences (TREC Core 2017 runs) restricted to topics whose
    differences sum to zero, and on the full columns, the p-values equal scipy's on the
    same differences scaled to integers (tenths, thirtieths), where scipy's arithmetic is
    exact: the reference for ties is exact arithmetic, not scipy's rounding."""
    d, names = core17_differences
    for name, scale in (("P@10", 10), ("P@30", 30)):
        col = d[:, names.index(name)]
        k = np.rint(col * scale)
        assert np.allclose(k / scale, col, rtol=0, atol=1e-12)
        keep = np.ones(len(k), dtype=bool)  # drop topics until the sum is zero
        rest = k.sum()
        for i in np.argsort(-np.sign(rest) * k):
            if rest != 0 and np.sign(k[i]) == np.sign(rest) and abs(k[i]) <= abs(rest):
                keep[i], rest = False, rest - k[i]
        assert rest == 0
        for use in (keep, np.ones(len(k), dtype=bool)):
            tied = np.where(use, col, 0.0)
            mine = randomization(tied, resamples=9999, seed=0)
            ref = st.permutation_test(
                (np.where(use, k, 0.0),),
                _stat,
                permutation_type="samples",
                n_resamples=9999,
                vectorized=True,
                rng=np.random.default_rng(0),
            )
            assert mine.pvalues[0] == ref.pvalue, name
