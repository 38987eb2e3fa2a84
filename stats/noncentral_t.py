"""The noncentral t distribution's CDF and the noncentrality interval of an observed t,
without scipy, vectorised over many observed t of one degree of freedom.

The CDF is Lenth's series (AS 243, Applied Statistics 38, 1989) for t >= 0:

    F(t; ν, δ) = Φ(-δ) + ½ Σ_j [ p_j I_x(j + ½, ν/2) + q_j I_x(j + 1, ν/2) ],  x = t²/(t² + ν),

with Poisson weights p_j = e^{-δ²/2} (δ²/2)^j / j! and q_j = δ e^{-δ²/2} (δ²/2)^j /
(√2 Γ(j + 3/2)); F(t; ν, δ) = 1 - F(-t; ν, -δ) for t < 0. The incomplete beta values
depend on t only, so for an observed t they are computed once (two evaluations and the
downward recurrence I_x(a + 1, b) = I_x(a, b) - Γ(a + b) x^a (1 - x)^b / (Γ(a + 1) Γ(b)))
and a root search over δ only re-weights them: the interval of every measure of a
comparison at once costs a few milliseconds. tests/stats/test_effect_size.py holds the
CDF to ``scipy.stats.nct.cdf`` and the interval to scipy's CDF inverted by ``brentq``.
"""

from __future__ import annotations

import math

import numpy as np

from reprokg.stats.normal import cdfs
from reprokg.stats.student_t import regularized_beta

#: Poisson terms kept beyond the weights' mean: the mass beyond λ + 12√λ + 40 is below 1e-25
_TAIL_SDS, _TAIL_EXTRA = 12.0, 40


class _Series:
    """I_x(j + ½, ν/2) and I_x(j + 1, ν/2), j = 0..J-1, for each observed t >= 0 (rows)."""

    def __init__(self, t: np.ndarray, df: float) -> None:
        self.t, self.df = t, df
        self.terms = 0
        self.half: np.ndarray = np.empty((len(t), 0))
        self.whole: np.ndarray = np.empty((len(t), 0))
        #: I_x(½, ν/2) per t: a continued fraction each, in Python, the same for any number
        #: of terms (a root search extends the series ~4 times)
        self.first_half: np.ndarray | None = None

    def extend(self, terms: int) -> None:
        if terms <= self.terms:
            return
        t, df = self.t, self.df
        b = df / 2.0
        t2 = t * t
        x = t2 / (t2 + df)
        y = df / (t2 + df)  # 1 - x, exactly
        j = np.arange(terms, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            logx = np.log(x)[:, None]
            logy = np.log(y)[:, None]
            # log T(a) = log Γ(a + b) - log Γ(a + 1) - log Γ(b) + a log x + b log y, for
            # a = j + ½ and a = j + 1, by their recurrence in a
            a_half = j + 0.5
            step_half = np.log((a_half + b) / (a_half + 1.0))
            log_t_half = (
                math.lgamma(0.5 + b)
                - math.lgamma(1.5)
                - math.lgamma(b)
                + 0.5 * logx
                + b * logy
                + np.concatenate(([0.0], np.cumsum(step_half[:-1])))[None, :]
                + j[None, :] * logx
            )
            a_one = j + 1.0
            step_one = np.log((a_one + b) / (a_one + 1.0))
            log_t_one = (
                math.log(b)
                + logx
                + b * logy
                + np.concatenate(([0.0], np.cumsum(step_one[:-1])))[None, :]
                + j[None, :] * logx
            )
            t_half = np.where(x[:, None] > 0, np.exp(log_t_half), 0.0)
            t_one = np.where(x[:, None] > 0, np.exp(log_t_one), 0.0)
        if self.first_half is None:
            self.first_half = np.asarray(
                [
                    regularized_beta(0.5, b, xi, yi)
                    for xi, yi in zip(x.tolist(), y.tolist(), strict=True)
                ]
            )
        first_half = self.first_half
        first_one = -np.expm1(b * np.log(y))  # I_x(1, b) = 1 - (1 - x)^b
        # I(a + 1) = I(a) - T(a): I at j is the first value less the terms before j
        self.half = np.maximum(
            first_half[:, None]
            - np.concatenate((np.zeros((len(t), 1)), np.cumsum(t_half[:, :-1], axis=1)), axis=1),
            0.0,
        )
        self.whole = np.maximum(
            first_one[:, None]
            - np.concatenate((np.zeros((len(t), 1)), np.cumsum(t_one[:, :-1], axis=1)), axis=1),
            0.0,
        )
        self.terms = terms

    def cdf(self, delta: np.ndarray) -> np.ndarray:
        """F(t_i; ν, δ_i) for each row i (t_i >= 0)."""
        lam = 0.5 * delta * delta
        need = int(np.max(lam + _TAIL_SDS * np.sqrt(lam))) + _TAIL_EXTRA
        self.extend(max(need, self.terms))
        j = np.arange(self.terms, dtype=float)
        log_fact = np.concatenate(([0.0], np.cumsum(np.log(j[1:]))))  # log j!
        log_gamma_3_2 = math.lgamma(1.5) + np.concatenate(
            ([0.0], np.cumsum(np.log(j[1:] + 0.5)))
        )  # log Γ(j + 3/2)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_lam = np.log(lam)[:, None]
            powers = np.where(j[None, :] == 0, 0.0, j[None, :] * log_lam)
            p = np.exp(-lam[:, None] + powers - log_fact[None, :])
            q = np.exp(
                np.log(np.abs(delta))[:, None]
                - lam[:, None]
                + powers
                - 0.5 * math.log(2.0)
                - log_gamma_3_2[None, :]
            )
        p = np.where(np.isfinite(p), p, 0.0)
        q = np.sign(delta)[:, None] * np.where(np.isfinite(q), q, 0.0)
        series = np.sum(p * self.half + q * self.whole, axis=1)
        return np.clip(cdfs(-delta) + 0.5 * series, 0.0, 1.0)


def cdf(t: np.ndarray | float, df: float, delta: np.ndarray | float) -> np.ndarray:
    """F(t; df, δ) elementwise (t and δ broadcast together)."""
    t_arr, d_arr = np.broadcast_arrays(np.asarray(t, dtype=float), np.asarray(delta, dtype=float))
    t_flat, d_flat = t_arr.ravel(), d_arr.ravel()
    negative = t_flat < 0
    series = _Series(np.abs(t_flat), df)
    out = series.cdf(np.where(negative, -d_flat, d_flat))
    return np.where(negative, 1.0 - out, out).reshape(t_arr.shape)


def ncp_interval(
    t: np.ndarray, df: float, level: float = 0.95, *, rtol: float = 1e-14
) -> tuple[np.ndarray, np.ndarray]:
    """For each observed t, the δ interval with F(t; df, δ_lower) = 1 - α/2 and
    F(t; df, δ_upper) = α/2 (α = 1 - level): the confidence interval of the
    noncentrality parameter by inverting the CDF (Steiger & Fouladi 1997). NaN where t is
    not finite."""
    t = np.asarray(t, dtype=float)
    out_lo = np.full(t.shape, np.nan)
    out_hi = np.full(t.shape, np.nan)
    ok = np.isfinite(t) & (np.abs(t) < 1e6)  # beyond, the interval is not computable here
    if not ok.any() or not df > 0:
        return out_lo, out_hi
    tt = t[ok]
    sign = np.where(tt < 0, -1.0, 1.0)
    series = _Series(np.abs(tt), df)
    alpha = 1.0 - level
    # F is decreasing in δ: the lower bound solves F = 1 - α/2, the upper F = α/2
    roots = []
    for target in (1.0 - alpha / 2.0, alpha / 2.0):
        lo = np.abs(tt) - 1.0
        hi = np.abs(tt) + 1.0
        width = 1.0
        for _ in range(60):  # bracket: F(lo) >= target >= F(hi)
            f_lo, f_hi = series.cdf(lo), series.cdf(hi)
            low_ok, high_ok = f_lo >= target, f_hi <= target
            if low_ok.all() and high_ok.all():
                break
            width *= 2.0
            lo = np.where(low_ok, lo, lo - width)
            hi = np.where(high_ok, hi, hi + width)
        # the Illinois method (regula falsi, halving the weight of an end kept twice):
        # superlinear, ~10 evaluations instead of bisection's ~50, the bracket kept
        f_lo, f_hi = series.cdf(lo) - target, series.cdf(hi) - target
        last = np.zeros(len(tt), dtype=np.int8)  # which end moved last: -1 low, 1 high
        x = 0.5 * (lo + hi)
        for _ in range(100):
            denom = f_lo - f_hi
            x = np.where(denom > 0, (lo * -f_hi + hi * f_lo) / np.where(denom > 0, denom, 1), x)
            x = np.clip(x, lo, hi)
            fx = series.cdf(x) - target
            low_side = fx >= 0
            f_hi = np.where(low_side & (last == -1), f_hi / 2.0, f_hi)
            f_lo = np.where(~low_side & (last == 1), f_lo / 2.0, f_lo)
            lo, f_lo = np.where(low_side, x, lo), np.where(low_side, fx, f_lo)
            hi, f_hi = np.where(low_side, hi, x), np.where(low_side, f_hi, fx)
            last = np.where(low_side, -1, 1).astype(np.int8)
            if np.all((hi - lo <= rtol * np.maximum(1.0, np.abs(x))) | (np.abs(fx) <= 1e-16)):
                break
        roots.append(x)
    lower, upper = roots
    # for t < 0 the interval of -t, negated and swapped
    out_lo[ok] = np.where(sign > 0, lower, -upper)
    out_hi[ok] = np.where(sign > 0, upper, -lower)
    return out_lo, out_hi
