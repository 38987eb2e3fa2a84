"""Percentile and BCa intervals of the mean difference equal ``scipy.stats.bootstrap`` with
the same resamples and seed, to 1e-12, on every default measure of a real comparison
(discrete P@k differences, whose BCa ties only rounding tells apart, included)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as st

from reprokg.stats.bootstrap import bootstrap_mean


@pytest.mark.parametrize("method", ["percentile", "BCa"])
def test_equals_scipy_on_real_differences(core17_differences, method) -> None:
    d, names = core17_differences
    mine = bootstrap_mean(d, method=method, resamples=2000, seed=3)
    for j, name in enumerate(names):
        if np.all(d[:, j] == d[0, j]):
            continue  # scipy warns and gives NaN for a degenerate BCa
        ref = st.bootstrap(
            (d[:, j],), np.mean, method=method, n_resamples=2000, rng=np.random.default_rng(3)
        ).confidence_interval
        assert abs(mine.low[j] - ref.low) <= 1e-12, name
        assert abs(mine.high[j] - ref.high) <= 1e-12, name


def test_exact_ties_variant_differs_only_on_discrete_measures(core17_differences) -> None:
    d, names = core17_differences
    scipy_like = bootstrap_mean(d, resamples=2000, seed=3)
    exact = bootstrap_mean(d, resamples=2000, seed=3, ties="exact")
    ap = names.index("AP")
    assert scipy_like.low[ap] == exact.low[ap]  # continuous: no ties either way


def test_edge_cases() -> None:
    one = bootstrap_mean(np.array([[0.2]]))
    assert np.isnan(one.low[0])
    two = bootstrap_mean(np.array([0.3, 0.1]), method="percentile", resamples=999, seed=1)
    ref = st.bootstrap(
        (np.array([0.3, 0.1]),),
        np.mean,
        method="percentile",
        n_resamples=999,
        rng=np.random.default_rng(1),
    ).confidence_interval
    assert abs(two.low[0] - ref.low) <= 1e-12 and abs(two.high[0] - ref.high) <= 1e-12
