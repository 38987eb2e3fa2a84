"""The standard normal distribution without scipy: Φ by ``math.erfc`` and Φ⁻¹ by Wichura's
AS 241 (the standard library's ``NormalDist.inv_cdf``), both to about 1e-16 relative.

``scipy.special`` (``ndtr``/``ndtri``) costs a fifth of a second to import; ``reprokg
compare`` needs a few hundred values (tests/stats/test_normal.py holds them to scipy's).
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

_STANDARD = NormalDist()
_SQRT_HALF = math.sqrt(0.5)


def cdf(x: float) -> float:
    """Φ(x), accurate in both tails (the erfc form keeps the lower tail's relative accuracy)."""
    if math.isnan(x):
        return math.nan
    return 0.5 * math.erfc(-x * _SQRT_HALF)


def sf(x: float) -> float:
    """1 - Φ(x), accurate in the upper tail."""
    return cdf(-x)


def ppf(p: float) -> float:
    """Φ⁻¹(p); -inf at 0, inf at 1, nan outside [0, 1]."""
    if math.isnan(p) or p < 0 or p > 1:
        return math.nan
    if p == 0:
        return -math.inf
    if p == 1:
        return math.inf
    return _STANDARD.inv_cdf(p)


cdf_array = np.frompyfunc(cdf, 1, 1)
ppf_array = np.frompyfunc(ppf, 1, 1)


def cdfs(x: np.ndarray) -> np.ndarray:
    """Φ of every element (float array)."""
    return np.asarray(cdf_array(np.asarray(x, dtype=float)), dtype=float)


def ppfs(p: np.ndarray) -> np.ndarray:
    """Φ⁻¹ of every element (float array)."""
    return np.asarray(ppf_array(np.asarray(p, dtype=float)), dtype=float)
