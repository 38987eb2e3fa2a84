"""Linear mixed models with crossed random intercepts, computed as lme4 and lmerTest do.

Why our own numerics: the stability analysis (seed 003) must give the numbers the paper's
tools give (lme4 ``lmer`` + lmerTest), and no Python library does: statsmodels has no
Satterthwaite df, SEs 1e-4..4e-3 off and non-zero variances at a singular fit;
interlace-lme's Satterthwaite df use another parameterisation (1e17 at a singular fit).
The measured comparison is in the README (section "Stability analysis").

Model: ``y = X beta + Z_1 b_1 + ... + Z_k b_k + e`` with ``b_i ~ N(0, (theta_i sigma)^2 I)``
and ``e ~ N(0, sigma^2 I)`` -- k crossed random-intercept factors (``(1|f_1) + ... +
(1|f_k)`` in lme4 syntax). Conventions follow lme4 (Bates et al. 2015, J. Stat. Softw.
67(1), section 3): relative covariance factor ``Lambda = diag(theta)``, the profiled
deviance of the penalised least-squares problem, ``sigma^2 = r^2/(n-p)`` (REML) or
``r^2/n`` (ML), logLik = -deviance/2 (for a REML fit: minus half the REML criterion).

Satterthwaite df follow lmerTest (Kuznetsova et al. 2017, J. Stat. Softw. 82(13)):
variance parameters ``varpar = (theta, sigma)``, the (RE)ML deviance as a function of
varpar (not profiled over sigma), ``cov(varpar) = 2 H^+`` (Moore-Penrose inverse over
eigenvalues > 1e-8), ``nu = 2 f^2 / (g' cov(varpar) g)`` with ``f = l' cov(beta) l`` and
``g`` its gradient. lmerTest takes H and g by numerical differentiation (numDeriv); here
they are analytic (they agree to ~1e-10 relative; see the tests).

All work after setup is on q x q and p x p matrices (q = total number of levels), so a
fit costs the same for 1,000 rows as for 1,000,000.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as sla
from scipy import special

LOG_2PI = math.log(2.0 * math.pi)
SINGULAR_TOL = 1e-4  # lme4::isSingular default
HESSIAN_TOL = 1e-8  # lmerTest: eigenvalues of H at most this are treated as zero
EIGEN_EPS = math.sqrt(np.finfo(float).eps)  # lmerTest::contestMD rank tolerance
DOOLITTLE_EPS = 1e-6  # lmerTest's doolittle(): entries below this are set to 0


class ModelError(ValueError):
    """The model cannot be fitted to these data (a message a person can act on)."""


@dataclass(frozen=True)
class Design:
    """Response, fixed-effects matrix and crossed grouping factors, with cross-products.

    The cross-products are computed once so that every deviance evaluation works on
    small dense matrices only.
    """

    y: np.ndarray
    X: np.ndarray
    codes: tuple[np.ndarray, ...]
    n_levels: tuple[int, ...]
    x_names: tuple[str, ...]
    factor_names: tuple[str, ...]
    ZtZ: np.ndarray = field(repr=False)
    ZtX: np.ndarray = field(repr=False)
    Zty: np.ndarray = field(repr=False)
    XtX: np.ndarray = field(repr=False)
    Xty: np.ndarray = field(repr=False)
    offsets: tuple[int, ...] = field(repr=False)

    @property
    def n(self) -> int:
        return int(self.y.shape[0])

    @property
    def p(self) -> int:
        return int(self.X.shape[1])

    @property
    def k(self) -> int:
        return len(self.codes)

    @property
    def q(self) -> int:
        return int(sum(self.n_levels))

    def drop_factor(self, i: int) -> Design:
        """The same data without random-intercept factor ``i`` (for ranova refits)."""
        keep = [j for j in range(self.k) if j != i]
        o = self.offsets
        idx = np.concatenate([np.arange(o[j], o[j + 1]) for j in keep] + [np.zeros(0, int)])
        n_levels = tuple(self.n_levels[j] for j in keep)
        return Design(
            y=self.y,
            X=self.X,
            codes=tuple(self.codes[j] for j in keep),
            n_levels=n_levels,
            x_names=self.x_names,
            factor_names=tuple(self.factor_names[j] for j in keep),
            ZtZ=self.ZtZ[np.ix_(idx, idx)],
            ZtX=self.ZtX[idx],
            Zty=self.Zty[idx],
            XtX=self.XtX,
            Xty=self.Xty,
            offsets=tuple(int(x) for x in np.concatenate([[0], np.cumsum(n_levels)])),
        )


def make_design(
    y: np.ndarray,
    X: np.ndarray,
    codes: list[np.ndarray] | tuple[np.ndarray, ...],
    *,
    x_names: list[str] | tuple[str, ...] | None = None,
    factor_names: list[str] | tuple[str, ...] | None = None,
) -> Design:
    """Build a :class:`Design` from integer level codes (0..m-1, every level present)."""
    y = np.ascontiguousarray(y, dtype=float)
    X = np.ascontiguousarray(X, dtype=float)
    n = y.shape[0]
    if X.ndim != 2 or X.shape[0] != n:
        raise ModelError("X must have one row per observation")
    if not np.all(np.isfinite(y)) or not np.all(np.isfinite(X)):
        raise ModelError("non-finite values in y or X")
    codes_t = tuple(np.ascontiguousarray(c, dtype=np.intp) for c in codes)
    n_levels = tuple(int(c.max()) + 1 if c.size else 0 for c in codes_t)
    for c, m in zip(codes_t, n_levels, strict=True):
        if c.shape[0] != n or (m and np.bincount(c, minlength=m).min() == 0):
            raise ModelError("factor codes must be 0..m-1 with every level present")
    offsets = tuple(int(x) for x in np.concatenate([[0], np.cumsum(n_levels)]))
    q = offsets[-1]
    p = X.shape[1]
    ZtZ = np.zeros((q, q))
    ZtX = np.zeros((q, p))
    Zty = np.zeros(q)
    for i, ci in enumerate(codes_t):
        oi = offsets[i]
        mi = n_levels[i]
        Zty[oi : oi + mi] = np.bincount(ci, weights=y, minlength=mi)
        for col in range(p):
            ZtX[oi : oi + mi, col] = np.bincount(ci, weights=X[:, col], minlength=mi)
        for j in range(i, len(codes_t)):
            cj = codes_t[j]
            oj = offsets[j]
            mj = n_levels[j]
            block = np.bincount(ci * mj + cj, minlength=mi * mj).reshape(mi, mj).astype(float)
            ZtZ[oi : oi + mi, oj : oj + mj] = block
            ZtZ[oj : oj + mj, oi : oi + mi] = block.T
    names_x = tuple(x_names) if x_names is not None else tuple(f"x{j}" for j in range(p))
    names_f = (
        tuple(factor_names)
        if factor_names is not None
        else tuple(f"g{i}" for i in range(len(codes_t)))
    )
    return Design(
        y=y,
        X=X,
        codes=codes_t,
        n_levels=n_levels,
        x_names=names_x,
        factor_names=names_f,
        ZtZ=ZtZ,
        ZtX=ZtX,
        Zty=Zty,
        XtX=X.T @ X,
        Xty=X.T @ y,
        offsets=offsets,
    )


@dataclass
class _State:
    """Everything the penalised least-squares solution at one theta gives."""

    theta: np.ndarray
    beta: np.ndarray
    u: np.ndarray
    r2: float
    logdet_L2: float
    logdet_RX2: float
    RX: np.ndarray  # lower Cholesky factor of X' Omega^-1 X (= RX' RX in lme4's notation)
    L: np.ndarray  # lower Cholesky factor of Lambda Z'Z Lambda + I
    AinvC: np.ndarray  # (Lambda Z'Z Lambda + I)^-1 Lambda Z'X
    resid: np.ndarray  # conditional residual y - X beta - Z Lambda u (= Q y)


def _expand(design: Design, theta: np.ndarray) -> np.ndarray:
    return np.repeat(np.asarray(theta, dtype=float), design.n_levels)


def _chol(A: np.ndarray) -> np.ndarray:
    """Lower Cholesky factor (numpy's; scipy's small triangular solves were far slower,
    OpenBLAS waking threads for a small system, benchmarks/README.md#figures-once-quoted-in-code; so
    only cho_solve is used)."""
    return np.linalg.cholesky(A)


def _solve(design: Design, theta: np.ndarray) -> _State:
    """Penalised least squares at ``theta`` (lme4's PLS step, dense).

    With A = Lambda Z'Z Lambda + I = L L': beta solves X' Omega^-1 X beta = X' Omega^-1 y
    (Omega = I + Z Lambda Lambda Z'), u = A^-1 Lambda Z'(y - X beta), and the penalised
    residual sum of squares r^2 = |y - X beta - Z Lambda u|^2 + |u|^2 is computed from the
    residuals themselves (no cancellation of large sums of squares).
    """
    q, p = design.q, design.p
    lam = _expand(design, theta)
    if q:
        A = lam[:, None] * design.ZtZ * lam[None, :]
        A[np.diag_indices(q)] += 1.0
        L = _chol(A)
        C = lam[:, None] * design.ZtX
        AinvC = sla.cho_solve((L, True), C, check_finite=False)
        M = design.XtX - C.T @ AinvC
        rhs = design.Xty - AinvC.T @ (lam * design.Zty)
    else:
        L = np.zeros((0, 0))
        AinvC = np.zeros((0, p))
        M = design.XtX.copy()
        rhs = design.Xty.copy()
    try:
        RX = _chol(M)
    except np.linalg.LinAlgError as exc:
        raise ModelError("the fixed-effects design is rank deficient") from exc
    beta = sla.cho_solve((RX, True), rhs, check_finite=False)
    if q:
        u = sla.cho_solve((L, True), lam * (design.Zty - design.ZtX @ beta), check_finite=False)
    else:
        u = np.zeros(0)
    fitted = design.X @ beta
    b = lam * u
    for i, ci in enumerate(design.codes):
        fitted = fitted + b[design.offsets[i] : design.offsets[i + 1]][ci]
    resid = design.y - fitted
    r2 = float(resid @ resid + u @ u)
    if not r2 > 0.0:
        raise ModelError("no residual variation left (penalised residual sum of squares 0)")
    logdet_L2 = 2.0 * float(np.sum(np.log(np.diag(L)))) if q else 0.0
    logdet_RX2 = 2.0 * float(np.sum(np.log(np.abs(np.diag(RX)))))
    return _State(
        theta=np.asarray(theta, dtype=float),
        beta=beta,
        u=u,
        r2=r2,
        logdet_L2=logdet_L2,
        logdet_RX2=logdet_RX2,
        RX=RX,
        L=L,
        AinvC=AinvC,
        resid=resid,
    )


def _df_resid(design: Design, reml: bool) -> int:
    return design.n - design.p if reml else design.n


def _deviance_of(design: Design, st: _State, reml: bool) -> float:
    N = _df_resid(design, reml)
    dev = st.logdet_L2 + N * (1.0 + LOG_2PI + math.log(st.r2 / N))
    return dev + st.logdet_RX2 if reml else dev


@dataclass
class _Derivs:
    """First and second derivatives in gamma = theta^2 of c(theta) and r^2(theta).

    c is log|L|^2 (+ log|RX|^2 for REML); the deviance as a function of (theta, sigma) is
    c + r^2/sigma^2 + N log(2 pi sigma^2). W = Z' Omega^-1 X is kept for the Jacobian of
    cov(beta).
    """

    dc: np.ndarray
    d2c: np.ndarray
    dr2: np.ndarray
    d2r2: np.ndarray
    W: np.ndarray
    Minv: np.ndarray


def _derivatives(design: Design, st: _State, reml: bool) -> _Derivs:
    """Analytic gamma-derivatives (Searle, Casella & McCulloch 1992, ch. 6, via Woodbury)."""
    k, q = design.k, design.q
    lam = _expand(design, st.theta)
    Minv = sla.cho_solve((st.RX, True), np.eye(design.p), check_finite=False)
    if k == 0:
        z = np.zeros(0)
        return _Derivs(z, np.zeros((0, 0)), z, np.zeros((0, 0)), np.zeros((0, design.p)), Minv)
    D = lam[:, None] * design.ZtZ  # Lambda Z'Z
    ZOZ = design.ZtZ - D.T @ sla.cho_solve((st.L, True), D, check_finite=False)  # Z'Omega^-1 Z
    W = design.ZtX - D.T @ st.AinvC  # Z' Omega^-1 X
    ZQZ = ZOZ - W @ Minv @ W.T  # Z' Q Z
    S = ZQZ if reml else ZOZ
    w = np.zeros(q)  # Z' Q y = Z' (conditional residual)
    for i, ci in enumerate(design.codes):
        o = design.offsets
        w[o[i] : o[i + 1]] = np.bincount(ci, weights=st.resid, minlength=design.n_levels[i])
    dc = np.empty(k)
    dr2 = np.empty(k)
    d2c = np.empty((k, k))
    d2r2 = np.empty((k, k))
    o = design.offsets
    for i in range(k):
        si = slice(o[i], o[i + 1])
        dc[i] = np.trace(S[si, si])
        dr2[i] = -float(w[si] @ w[si])
        for j in range(i, k):
            sj = slice(o[j], o[j + 1])
            d2c[i, j] = d2c[j, i] = -float(np.sum(S[si, sj] ** 2))
            d2r2[i, j] = d2r2[j, i] = 2.0 * float(w[si] @ ZQZ[si, sj] @ w[sj])
    return _Derivs(dc, d2c, dr2, d2r2, W, Minv)


def _to_theta(g: np.ndarray, h: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Chain rule from gamma = theta^2 to theta for a gradient ``g`` and Hessian ``h``."""
    grad = 2.0 * theta * g
    hess = 4.0 * np.outer(theta, theta) * h + np.diag(2.0 * g)
    return grad, hess


def _profiled_derivs(design: Design, st: _State, reml: bool) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and Hessian of the profiled deviance in gamma."""
    dv = _derivatives(design, st, reml)
    N = _df_resid(design, reml)
    g = dv.dc + N * dv.dr2 / st.r2
    h = dv.d2c + N * (dv.d2r2 / st.r2 - np.outer(dv.dr2, dv.dr2) / st.r2**2)
    return g, h


def _gamma_of(u: np.ndarray) -> np.ndarray:
    """Optimisation coordinates -> gamma = theta^2: linear up to 1, exponential beyond.

    Linear near 0 keeps the boundary gamma = 0 (a singular fit) a plain bound; the log
    scale beyond 1 lets Newton cross orders of magnitude when the residual variance is
    tiny next to a random effect's (where the deviance is ~ -c log gamma, concave in
    gamma but convex in log gamma). C^1 at u = 1.
    """
    return np.where(u <= 1.0, u, np.exp(np.minimum(u, 700.0) - 1.0))


def _u_of(gamma: np.ndarray) -> np.ndarray:
    return np.where(gamma <= 1.0, gamma, 1.0 + np.log(np.maximum(gamma, 1.0)))


def _optimise(design: Design, reml: bool, start: np.ndarray | None, max_iter: int = 200) -> _State:
    """Minimise the profiled deviance over gamma = theta^2 >= 0 (projected Newton).

    Starts where lme4 starts (theta = 1) unless told otherwise. Newton steps (analytic
    gradient and Hessian) on the free coordinates in the scale of :func:`_gamma_of`, with
    a backtracking line search; a coordinate at 0 whose gradient points outwards stays
    at exactly 0, which is where lme4 ends for a singular fit. Raises ModelError when it
    does not converge.
    """
    k = design.k
    gamma = np.ones(k) if start is None else np.asarray(start, dtype=float) ** 2
    st = _solve(design, np.sqrt(gamma))
    if k == 0:
        return st
    u = _u_of(gamma)
    dev = _deviance_of(design, st, reml)
    for _ in range(max_iter):
        g_gam, h_gam = _profiled_derivs(design, st, reml)
        d1 = np.where(u <= 1.0, 1.0, gamma)  # d gamma / d u
        d2 = np.where(u <= 1.0, 0.0, gamma)  # d2 gamma / d u2
        g = d1 * g_gam
        h = np.outer(d1, d1) * h_gam + np.diag(d2 * g_gam)
        free = ~((u <= 0.0) & (g >= 0.0))
        if not free.any():
            return st
        gf = g[free]
        evals, evecs = np.linalg.eigh(h[np.ix_(free, free)])
        floor = 1e-8 * max(1.0, float(np.max(np.abs(evals))))
        evals = np.maximum(np.abs(evals), floor)  # a descent direction even where h < 0
        step = np.zeros(k)
        step[free] = -(evecs @ ((evecs.T @ gf) / evals))
        longest = float(np.max(np.abs(step)))
        if longest > 10.0:  # at most a factor e^10 in gamma per iteration
            step *= 10.0 / longest
        size = float(np.max(np.abs(step) / (1.0 + np.abs(u))))
        noise = 1e-10 * max(1.0, abs(dev))  # deviance differences below this are rounding
        t = 1.0
        while True:
            cand = np.maximum(u + t * step, 0.0)
            st_c = _solve(design, np.sqrt(_gamma_of(cand)))
            dev_c = _deviance_of(design, st_c, reml)
            if dev_c <= dev + 1e-4 * float(g @ (cand - u)) or (
                size < 1e-6 and dev_c <= dev + noise
            ):
                break
            t *= 0.5
            if t < 1e-10:
                return st  # no further decrease within rounding: at the optimum
        u, st, dev = cand, st_c, dev_c
        gamma = _gamma_of(u)
        if size < 1e-8:  # Newton has converged (quadratically): this step was the last
            return st
    raise ModelError(f"the optimiser did not converge in {max_iter} Newton steps")


@dataclass
class LMMFit:
    """A fitted model with what lme4's summary and lmerTest's Satterthwaite need."""

    design: Design
    reml: bool
    theta: np.ndarray
    sigma: float
    beta: np.ndarray
    vcov_beta: np.ndarray
    deviance: float
    hessian: np.ndarray  # of the (RE)ML deviance in varpar = (theta, sigma)
    vcov_varpar: np.ndarray  # 2 * Moore-Penrose inverse of the Hessian
    jacobian: np.ndarray  # (k+1, p, p): d cov(beta) / d varpar
    hessian_eigenvalues: np.ndarray

    @property
    def loglik(self) -> float:
        """logLik as lme4 reports it (minus half the REML criterion for a REML fit)."""
        return -0.5 * self.deviance

    @property
    def npar(self) -> int:
        """lme4's npar: fixed effects + theta + sigma."""
        return self.design.p + self.design.k + 1

    @property
    def aic(self) -> float:
        return -2.0 * self.loglik + 2.0 * self.npar

    @property
    def variances(self) -> np.ndarray:
        """Random-effect variances (theta_i sigma)^2, in factor order."""
        return (self.theta * self.sigma) ** 2

    @property
    def singular(self) -> bool:
        """lme4::isSingular(tol = 1e-4): some theta (all have lower bound 0) below tol."""
        return bool(np.any(self.theta < SINGULAR_TOL))

    def coefficients(self) -> list[dict[str, float]]:
        """summary(lmerTest fit)$coefficients: estimate, se, Satterthwaite df, t, p."""
        rows = []
        for unit in np.eye(self.design.p):
            rows.append(self.contrast(unit))
        return rows

    def contrast(self, vec: np.ndarray, level: float = 0.95) -> dict[str, float]:
        """lmerTest::contest1D: estimate, se, df, t, lower, upper, p of ``vec' beta``."""
        vec = np.asarray(vec, dtype=float)
        est = float(vec @ self.beta)
        var = float(vec @ self.vcov_beta @ vec)
        df = self._satterthwaite(vec, var)
        se = math.sqrt(var)
        t = est / se if se > 0 else math.nan
        p = t_pvalue(t, df)
        fac = float(special.stdtrit(df, 1.0 - (1.0 - level) / 2.0)) if df > 0 else math.nan
        return {
            "estimate": est,
            "se": se,
            "df": df,
            "t": t,
            "lower": est - se * fac,
            "upper": est + se * fac,
            "p": p,
        }

    def _satterthwaite(self, vec: np.ndarray, var: float) -> float:
        """nu = 2 f^2 / (g' cov(varpar) g), f = vec' cov(beta) vec, g = d f / d varpar."""
        grad = np.einsum("i,kij,j->k", vec, self.jacobian, vec)
        denom = float(grad @ self.vcov_varpar @ grad)
        return 2.0 * var**2 / denom if denom > 0 else math.nan

    def ftest(self, L: np.ndarray) -> dict[str, float]:
        """lmerTest::contestMD with Satterthwaite df: F test of ``L beta = 0``."""
        L = np.atleast_2d(np.asarray(L, dtype=float))
        s2 = self.sigma**2
        if L.shape[0] == 1:
            c = self.contrast(L[0])
            return _ftable(c["t"] ** 2, 1, c["df"], s2)
        VL = L @ self.vcov_beta @ L.T
        d, P = np.linalg.eigh(VL)
        d, P = d[::-1], P[:, ::-1]  # decreasing, as R's eigen()
        tol = max(EIGEN_EPS * d[0], 0.0)
        pos = d > tol
        q = int(pos.sum())
        if q == 0:
            return _ftable(math.nan, 0, math.nan, s2)
        PtL = (P.T @ L)[:q]
        if q == 1:
            c = self.contrast(PtL[0])
            return _ftable(c["t"] ** 2, 1, c["df"], s2)
        t2 = (PtL @ self.beta) ** 2 / d[:q]
        F = float(np.sum(t2) / q)
        nu = np.array([self._satterthwaite(PtL[m], float(d[m])) for m in range(q)])
        return _ftable(F, q, _fstat_ddf(nu), s2)


def t_pvalue(t: float, df: float) -> float:
    """Two-sided p of a t statistic, as R's 2 * pt(|t|, df, lower.tail = FALSE)."""
    if not (math.isfinite(t) and df > 0):
        return math.nan
    return 2.0 * float(special.stdtr(df, -abs(t)))


def chisq_pvalue(x: float, df: int) -> float:
    """Upper chi-square tail, as R's pchisq(x, df, lower.tail = FALSE) (1 for x <= 0)."""
    if df <= 0 or not math.isfinite(x):
        return math.nan
    return 1.0 if x <= 0 else float(special.chdtrc(df, x))


def _ftable(F: float, ndf: int, ddf: float, sigma2: float) -> dict[str, float]:
    ms = F * sigma2
    p = float(special.fdtrc(ndf, ddf, F)) if ndf > 0 and math.isfinite(F) else math.nan
    return {"sum_sq": ms * ndf, "mean_sq": ms, "num_df": ndf, "den_df": ddf, "f": F, "p": p}


def _fstat_ddf(nu: np.ndarray, tol: float = 1e-8) -> float:
    """lmerTest's denominator df of an F made of q t-statistics with df ``nu``."""
    if nu.size == 1:
        return float(nu[0])
    if np.all(np.abs(np.diff(nu)) < tol):
        return float(np.mean(nu))
    if np.any(nu <= 2):
        return 2.0
    E = float(np.sum(nu / (nu - 2.0)))
    return 2.0 * E / (E - nu.size)


def _zt(design: Design, v: np.ndarray) -> np.ndarray:
    """Z' v (sums of v per level of each factor)."""
    return np.concatenate(
        [
            np.bincount(c, weights=v, minlength=m)
            for c, m in zip(design.codes, design.n_levels, strict=True)
        ]
        + [np.zeros(0)]
    )


def check_identifiable(design: Design, tol: float = 1e-14) -> None:
    """Refuse data whose values the fixed and random factors explain exactly.

    Then the residual variance is 0 and the likelihood grows without bound as theta grows
    (lme4 fails to converge or stops with an error there), so nothing can be estimated:
    e.g. fully deterministic runs, or a constant value. "Exactly" is to 1e-7 in standard
    deviation (residual sum of squares <= 1e-14 of the total): beyond that theta would
    exceed ~1e7 and the fit drowns in rounding.
    """
    if design.n <= design.p:
        raise ModelError("no residual degrees of freedom (as many fixed effects as rows)")
    # residual sum of squares of y on [X | Z] (all factors as fixed), from the normal
    # equations of the centred y (a least-squares solve of the n-row matrix cost far
    # more: LAPACK's SVD waking threads)
    yc = design.y - design.y.mean()
    rhs = np.concatenate([design.X.T @ yc, _zt(design, yc)])
    G = np.block([[design.XtX, design.ZtX.T], [design.ZtX, design.ZtZ]])
    evals, evecs = np.linalg.eigh(G)
    keep = evals > 1e-10 * evals[-1]
    proj = evecs[:, keep].T @ rhs
    tss = float(yc @ yc)
    rss = tss - float(np.sum(proj**2 / evals[keep]))
    if tss == 0.0 or rss <= tol * tss:
        what = (
            "all values are equal"
            if tss == 0.0
            else (
                "experiment, seed and repeat explain the values exactly (residual sum of "
                "squares 0, e.g. fully deterministic runs)"
            )
        )
        raise ModelError(
            f"{what}: the residual variance is 0 and the likelihood has no maximum, so the "
            "mixed model cannot be estimated"
        )


def fit(design: Design, reml: bool = True, start: np.ndarray | None = None) -> LMMFit:
    """Fit by REML (default) or ML, then the pieces Satterthwaite's df need."""
    check_identifiable(design)
    return _finish(design, _optimise(design, reml, start), reml)


def fit_at(design: Design, theta: np.ndarray, reml: bool = True) -> LMMFit:
    """Everything :func:`fit` reports, at a given theta (no optimisation).

    For checking formulas against R at R's own theta, apart from where its optimiser
    stopped.
    """
    return _finish(design, _solve(design, np.asarray(theta, dtype=float)), reml)


def _finish(design: Design, st: _State, reml: bool) -> LMMFit:
    N = _df_resid(design, reml)
    sigma = math.sqrt(st.r2 / N)
    dev = _deviance_of(design, st, reml)
    dv = _derivatives(design, st, reml)
    theta = st.theta
    k = design.k
    # Hessian of dev(theta, sigma) = c + r2/sigma^2 + N log(2 pi sigma^2)
    gc, hc = _to_theta(dv.dc, dv.d2c, theta)
    gr, hr = _to_theta(dv.dr2, dv.d2r2, theta)
    H = np.empty((k + 1, k + 1))
    H[:k, :k] = hc + hr / sigma**2
    H[:k, k] = H[k, :k] = -2.0 * gr / sigma**3
    H[k, k] = 6.0 * st.r2 / sigma**4 - 2.0 * N / sigma**2
    evals, evecs = np.linalg.eigh(H)
    pos = evals > HESSIAN_TOL
    Hinv = (evecs[:, pos] / evals[pos]) @ evecs[:, pos].T
    vcov_beta = sigma**2 * dv.Minv
    jac = np.empty((k + 1, design.p, design.p))
    o = design.offsets
    for i in range(k):
        Wi = dv.W[o[i] : o[i + 1]]
        MW = dv.Minv @ Wi.T
        jac[i] = sigma**2 * 2.0 * theta[i] * (MW @ MW.T)
    jac[k] = 2.0 * sigma * dv.Minv
    return LMMFit(
        design=design,
        reml=reml,
        theta=theta,
        sigma=sigma,
        beta=st.beta,
        vcov_beta=vcov_beta,
        deviance=dev,
        hessian=H,
        vcov_varpar=2.0 * Hinv,
        jacobian=jac,
        hessian_eigenvalues=evals,
    )


def ranova(model: LMMFit) -> list[dict[str, float]]:
    """lmerTest::ranova: drop each random-intercept factor in turn, refit, LRT.

    The first row is the full model; each other row is the model without one factor
    (refitted by the same method; with no factor left, the linear model, whose
    REML/ML log-likelihood is R's logLik.lm). Df = difference in npar; p from chi^2.
    """
    rows = [
        {
            "npar": model.npar,
            "loglik": model.loglik,
            "aic": model.aic,
            "lrt": math.nan,
            "df": math.nan,
            "p": math.nan,
        }
    ]
    design = model.design
    for i in range(design.k):
        npar = model.npar - 1
        if model.theta[i] == 0.0:
            # The full model's optimum with this theta at 0 is the reduced model's
            # optimum (the two deviance functions coincide there): LRT exactly 0, p 1.
            # R refits and gets the same up to rounding (|LRT| ~ 1e-12).
            ll = model.loglik
        else:
            reduced = design.drop_factor(i)
            st = _optimise(reduced, model.reml, np.delete(model.theta, i) if reduced.k else None)
            ll = -0.5 * _deviance_of(reduced, st, model.reml)
        lrt = 2.0 * (model.loglik - ll)
        df = 1
        p = chisq_pvalue(lrt, df)
        rows.append(
            {
                "npar": npar,
                "loglik": ll,
                "aic": -2.0 * ll + 2.0 * npar,
                "lrt": lrt,
                "df": df,
                "p": p,
            }
        )
    return rows


def type1_contrasts(X: np.ndarray) -> np.ndarray:
    """lmerTest's Type I hypothesis matrix: t(L) of the Doolittle LU of X'X, small -> 0.

    With a single model term (as here) lmerTest's anova uses these for Type III too.
    """
    A = X.T @ X
    n = A.shape[0]
    L = np.eye(n)
    U = np.zeros((n, n))
    for i in range(n):
        U[i, :] = A[i, :] - L[i, :i] @ U[:i, :]
        if i + 1 < n:
            col = A[i + 1 :, i] - L[i + 1 :, :i] @ U[:i, i]
            L[i + 1 :, i] = 0.0 if abs(U[i, i]) < DOOLITTLE_EPS else col / U[i, i]
    L[np.abs(L) < DOOLITTLE_EPS] = 0.0
    return L.T
