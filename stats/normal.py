"""The standard normal distribution without scipy: Φ by ``math.erfc`` and Φ⁻¹ by Wichura's
algorithm AS 241 (PPND16, Applied Statistics 37, 1988; what the standard library's
``NormalDist.inv_cdf`` computes), both to about 1e-16 relative.

``scipy.special`` (``ndtr``/``ndtri``) costs a fifth of a second to import and the standard
library's ``statistics`` a few milliseconds (decimal, fractions); ``reprokg compare`` needs a
few hundred values (tests/stats/test_normal.py holds them to scipy's).
"""

from __future__ import annotations

import math

import numpy as np

_SQRT_HALF = math.sqrt(0.5)


def _poly(coefficients: tuple[float, ...], x: float) -> float:
    """Horner's rule, highest power first."""
    out = 0.0
    for c in coefficients:
        out = out * x + c
    return out


# AS 241's rational approximations: central region, then the tails (r <= 5, r > 5)
_A = (2509.0809287301226727, 33430.575583588128105, 67265.770927008700853,
      45921.953931549871457, 13731.693765509461125, 1971.5909503065514427,
      133.14166789178437745, 3.387132872796366608)  # fmt: skip
_B = (5226.495278852545925, 28729.085735721942674, 39307.89580009271061,
      21213.794301586595867, 5394.1960214247511077, 687.1870074920579083,
      42.313330701600911252, 1.0)  # fmt: skip
_C = (7.7454501427834140764e-4, 0.0227238449892691845833, 0.24178072517745061177,
      1.27045825245236838258, 3.64784832476320460504, 5.7694972214606914055,
      4.6303378461565452959, 1.42343711074968357734)  # fmt: skip
_D = (1.05075007164441684324e-9, 5.475938084995344946e-4, 0.0151986665636164571966,
      0.14810397642748007459, 0.68976733498510000455, 1.6763848301838038494,
      2.05319162663775882187, 1.0)  # fmt: skip
_E = (2.01033439929228813265e-7, 2.71155556874348757815e-5, 0.0012426609473880784386,
      0.026532189526576123093, 0.29656057182850489123, 1.7848265399172913358,
      5.4637849111641143699, 6.6579046435011037772)  # fmt: skip
_F = (2.04426310338993978564e-15, 1.4215117583164458887e-7, 1.8463183175100546818e-5,
      7.868691311456132591e-4, 0.0148753612908506148525, 0.13692988092273580531,
      0.59983220655588793769, 1.0)  # fmt: skip


def _ppnd16(p: float) -> float:
    q = p - 0.5
    if abs(q) <= 0.425:
        r = 0.180625 - q * q
        return q * _poly(_A, r) / _poly(_B, r)
    r = math.sqrt(-math.log(p if q < 0 else 1.0 - p))
    if r <= 5.0:
        r -= 1.6
        x = _poly(_C, r) / _poly(_D, r)
    else:
        r -= 5.0
        x = _poly(_E, r) / _poly(_F, r)
    return -x if q < 0 else x


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
    return _ppnd16(p)


ppf_array = np.frompyfunc(ppf, 1, 1)


def cdfs(x: np.ndarray) -> np.ndarray:
    """Φ of every element (float array): :func:`cdf`'s arithmetic, ``math.erfc`` mapped in C
    (erfc of NaN is NaN). A noncentral t root search takes Φ of every measure ~40 times."""
    x = np.asarray(x, dtype=float)
    scaled = (-x * _SQRT_HALF).ravel().tolist()
    return 0.5 * np.fromiter(map(math.erfc, scaled), dtype=float, count=len(scaled)).reshape(
        x.shape
    )


def ppfs(p: np.ndarray) -> np.ndarray:
    """Φ⁻¹ of every element (float array)."""
    return np.asarray(ppf_array(np.asarray(p, dtype=float)), dtype=float)
