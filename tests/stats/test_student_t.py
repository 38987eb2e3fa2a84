"""Student's t tail of reprokg compare's t-tests, against scipy (the reference the t-tests
reproduced before) and against closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import stdtr

from reprokg.measures.reproducibility import _ttest_ind_p, _ttest_rel_p
from reprokg.stats.student_t import regularized_beta, two_sided_p

DFS = [*range(1, 60), 99, 100, 499, 1000, 4999]


@pytest.mark.parametrize("df", DFS)
def test_matches_scipy_stdtr(df: int) -> None:
    # scipy.special.stdtr is what scipy.stats' t distribution (and so ttest_rel) evaluates;
    # beyond a thousand degrees of freedom (topics) the two agree to 1e-10
    rel = 1e-12 if df <= 1000 else 1e-10
    for t in np.logspace(-3, 2.5, 300):
        ref = 2 * stdtr(df, -t)
        if ref > 1e-300:
            assert two_sided_p(t, df) == pytest.approx(ref, rel=rel)
            assert two_sided_p(-t, df) == two_sided_p(t, df)


def test_closed_forms() -> None:
    # df = 1 is the Cauchy distribution, df = 2 has P(|T| >= t) = 1 - t / sqrt(2 + t^2)
    for t in np.logspace(-8, 1, 200):
        assert two_sided_p(t, 1) == pytest.approx(1 - 2 / math.pi * math.atan(t), rel=1e-13)
        assert two_sided_p(t, 2) == pytest.approx(1 - t / math.sqrt(2 + t * t), rel=1e-12)


def test_edges() -> None:
    assert two_sided_p(0.0, 5) == 1.0
    assert two_sided_p(math.inf, 5) == 0.0
    assert math.isnan(two_sided_p(math.nan, 5))
    assert math.isnan(two_sided_p(1.0, 0))
    assert regularized_beta(2.0, 3.0, 0.0) == 0.0 and regularized_beta(2.0, 3.0, 1.0) == 1.0
    # I_x(1, 1) = x, I_x(a, 1) = x^a
    assert regularized_beta(1.0, 1.0, 0.3) == pytest.approx(0.3, rel=1e-14)
    assert regularized_beta(3.5, 1.0, 0.7) == pytest.approx(0.7**3.5, rel=1e-13)


def test_t_tests_match_scipy_stats() -> None:
    rng = np.random.default_rng(7)
    a = rng.normal(size=(50, 6))
    b = a + rng.normal(scale=0.2, size=(50, 6))
    assert np.allclose(_ttest_rel_p(a, b), stats.ttest_rel(a, b, axis=0).pvalue, rtol=1e-12)
    c = b[:41] + 0.05
    assert np.allclose(_ttest_ind_p(a, c), stats.ttest_ind(a, c, axis=0).pvalue, rtol=1e-12)
