"""d_z and g_z against pingouin (test-only oracle) to 1e-12; the noncentral-t interval
against scipy's noncentral t CDF inverted by brentq, to 1e-9; pingouin's own interval (the
named variant) against ``pingouin.compute_esci``."""

from __future__ import annotations

import math

import numpy as np
import pingouin as pg
import pytest
from scipy.optimize import brentq
from scipy.stats import nct

from reprokg.stats.effect_size import effect_sizes, hedges_factor
from reprokg.stats.noncentral_t import cdf


def _nct_interval(t: float, df: int, level: float = 0.95) -> tuple[float, float]:
    a = (1 - level) / 2
    lo = brentq(lambda x: nct.cdf(t, df, x) - (1 - a), t - 30, t + 30, xtol=1e-14, rtol=1e-15)
    hi = brentq(lambda x: nct.cdf(t, df, x) - a, t - 30, t + 30, xtol=1e-14, rtol=1e-15)
    return lo, hi


def test_point_estimates_equal_pingouin_on_real_differences(core17_differences) -> None:
    d, names = core17_differences
    es = effect_sizes(d)
    n = d.shape[0]
    for j, name in enumerate(names):
        if not np.isfinite(es.dz[j]):
            assert d[:, j].std() == 0, name  # undefined only for constant differences
            continue
        dz = pg.compute_effsize(d[:, j], np.zeros(n), paired=True, eftype="cohen_dz")
        gz = pg.compute_effsize(d[:, j], 0, eftype="hedges")  # one sample: g of the differences
        assert abs(es.dz[j] - dz) <= 1e-12, name
        assert abs(es.gz[j] - gz) <= 1e-12, name


def test_noncentral_t_interval_equals_scipy_inverted(core17_differences) -> None:
    d, names = core17_differences
    es = effect_sizes(d)
    n = d.shape[0]
    for j in [names.index(m) for m in ("AP", "P@10", "nDCG@20", "RR", "R@100")]:
        lo, hi = _nct_interval(es.dz[j] * math.sqrt(n), n - 1)
        assert abs(es.dz_low[j] - lo / math.sqrt(n)) <= 1e-9
        assert abs(es.dz_high[j] - hi / math.sqrt(n)) <= 1e-9
        j_factor = 1 - 3 / (4 * (n - 1) - 1)
        assert es.gz_low[j] == pytest.approx(j_factor * es.dz_low[j], rel=1e-15)


@pytest.mark.parametrize("df", [1, 4, 49, 300])
def test_noncentral_t_cdf_equals_scipy(df) -> None:
    t = np.array([-6.0, -1.2, 0.0, 0.3, 2.0, 5.5, 12.0])
    for delta in (-8.0, -1.0, 0.0, 0.7, 3.0, 9.0):
        ref = nct.cdf(t, df, delta)
        known = np.isfinite(ref)  # scipy (Boost) gives NaN far in a tail at df = 1
        assert np.max(np.abs(cdf(t, df, delta) - ref)[known]) <= 1e-12


def test_pingouin_interval_variant() -> None:
    rng = np.random.default_rng(4)
    d = rng.normal(0.05, 0.2, size=(30, 3))
    es = effect_sizes(d, interval="hedges-olkin")
    for j in range(3):
        ref = pg.compute_esci(es.dz[j], 30, paired=True, eftype="cohen", decimals=15)
        assert abs(es.dz_low[j] - ref[0]) <= 1e-12 and abs(es.dz_high[j] - ref[1]) <= 1e-12


def test_edge_cases() -> None:
    assert np.isnan(effect_sizes(np.array([[0.1]])).dz[0])  # one pair
    same = effect_sizes(np.full((6, 1), 0.2))  # all-equal differences: no spread
    assert np.isnan(same.dz[0]) and np.isnan(same.dz_low[0])
    two = effect_sizes(np.array([0.3, 0.1]))  # n = 2: one degree of freedom
    assert two.dz[0] == pytest.approx(pg.compute_effsize(np.array([0.3, 0.1]), 0, eftype="cohen"))
    lo, hi = _nct_interval(two.dz[0] * math.sqrt(2), 1)
    assert abs(two.dz_low[0] - lo / math.sqrt(2)) <= 1e-9
    assert hedges_factor(49, "exact") == pytest.approx(
        math.gamma(24.5) / (math.sqrt(24.5) * math.gamma(24)), rel=1e-14
    )
