"""The two-sided tail of Student's t distribution, for the t-tests of ``reprokg compare``.

``scipy.stats`` would give it, but importing ``scipy.stats`` or ``scipy.special`` cost more
than the statistics of every ``reprokg compare`` process (the command, not the function, is
what users run; benchmarks/README.md#figures-once-quoted-in-code). The tail is the regularised
incomplete beta function ``I_x(df/2, 1/2)`` at ``x = df / (df + t²)``, evaluated by its continued
fraction (modified Lentz; Press et al., Numerical Recipes, 2nd ed., §6.4) in the tail where it
converges fast, and by the symmetry ``I_x(a, b) = 1 - I_{1-x}(b, a)`` elsewhere, where the result is
near 1 and absolute accuracy is what counts. tests/stats/test_student_t.py holds it to
``scipy.special.stdtr`` within 1e-12 relative over a grid of t and degrees of freedom.
"""

from __future__ import annotations

import math

_EPS = 1e-16
_TINY = 1e-300
_MAX_ITERATIONS = 10_000


def _continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of ``I_x(a, b)`` (converges for ``x < (a + 1) / (a + b + 2)``)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _MAX_ITERATIONS + 1):
        m2 = 2 * m
        for aa in (
            m * (b - m) * x / ((qam + m2) * (a + m2)),
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
        ):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + aa / c
            c = c if abs(c) > _TINY else _TINY
            step = d * c
            h *= step
        if abs(step - 1.0) < _EPS:
            return h
    return h  # pragma: no cover - converges in O(sqrt(a)) steps for b = 1/2


def regularized_beta(a: float, b: float, x: float, y: float | None = None) -> float:
    """``I_x(a, b)``, the regularised incomplete beta function, for ``a, b > 0``.

    ``y`` is ``1 - x`` when the caller knows it more precisely than ``1 - x`` rounds to
    (the t tail near t = 0, where x is within an ulp of 1).
    """
    y = 1.0 - x if y is None else y
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x)
    log_front += b * math.log(y)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _continued_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _continued_fraction(b, a, y) / b


def two_sided_p(t: float, df: float) -> float:
    """``P(|T| >= |t|)`` for Student's t with ``df`` degrees of freedom (nan for nan)."""
    if math.isnan(t) or math.isnan(df) or df <= 0:
        return math.nan
    if math.isinf(t):
        return 0.0
    t2 = t * t
    return regularized_beta(df / 2.0, 0.5, df / (df + t2), t2 / (df + t2))


def t_quantile(p: float, df: float) -> float:
    """The p-quantile of Student's t (bisection on :func:`two_sided_p` to ~1e-15): the
    critical values of an interval, where a handful are needed."""
    if math.isnan(p) or not 0 < p < 1 or not df > 0:
        return math.nan
    if p == 0.5:
        return 0.0
    tail = 2.0 * min(p, 1.0 - p)  # P(|T| >= t) at the quantile's magnitude
    lo, hi = 0.0, 1.0
    while two_sided_p(hi, df) > tail:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if two_sided_p(mid, df) > tail:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-15 * max(1.0, hi):
            break
    t = 0.5 * (lo + hi)
    return -t if p < 0.5 else t
