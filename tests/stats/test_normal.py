"""Φ and Φ⁻¹ without scipy (stats/normal.py) equal scipy's ``ndtr``/``ndtri`` (the oracle)
and the standard library's ``NormalDist`` (the same algorithm, AS 241) over both tails."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
from scipy.special import ndtr, ndtri

from reprokg.stats import normal


def test_ppf_equals_scipy_and_the_standard_library() -> None:
    p = np.concatenate((np.logspace(-300, -1, 200), np.linspace(0.01, 0.99, 199)))
    p = np.concatenate((p, 1 - p[p > 1e-15]))
    mine = normal.ppfs(p)
    assert np.max(np.abs(mine - ndtri(p)) / np.maximum(1, np.abs(ndtri(p)))) <= 1e-14
    stdlib = NormalDist()
    assert all(
        abs(normal.ppf(float(x)) - stdlib.inv_cdf(float(x))) <= 1e-15 * max(1, abs(normal.ppf(x)))
        for x in p[::7]
    )
    assert normal.ppf(0.0) == -np.inf and normal.ppf(1.0) == np.inf and np.isnan(normal.ppf(2))


def test_cdf_equals_scipy() -> None:
    x = np.linspace(-37, 9, 921)  # below -37.5, Φ is subnormal
    ref = ndtr(x)
    assert np.max(np.abs(normal.cdfs(x) - ref) / np.maximum(ref, 1e-300)) <= 1e-13
