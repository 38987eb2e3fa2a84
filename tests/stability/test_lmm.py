"""stability.lmm against closed forms and its own derivatives (no R needed)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import special

from reprokg.stability import lmm
from reprokg.stability.analysis import analyse


def _crossed(rng_seed: int, I: int = 3, J: int = 6, K: int = 5) -> np.ndarray:  # noqa: E741
    """Balanced experiments x seeds x repeats, one run per cell, real seed/repeat effects."""
    rng = np.random.default_rng(rng_seed)
    tau = np.array([0.0, 0.8, -0.5, 0.3, 1.1][:I])
    s = rng.normal(0, 1.0, J)
    r = rng.normal(0, 0.8, K)
    e = rng.normal(0, 0.5, (I, J, K))
    return 10 + tau[:, None, None] + s[None, :, None] + r[None, None, :] + e


def _frame(y: np.ndarray) -> pd.DataFrame:
    I, J, K = y.shape  # noqa: E741
    i, j, k = np.meshgrid(np.arange(I), np.arange(J), np.arange(K), indexing="ij")
    return pd.DataFrame(
        {
            "experiment": [f"e{x}" for x in i.ravel()],
            "seed": j.ravel() + 1,
            "repeat": k.ravel() + 1,
            "value": y.ravel(),
            "algorithm": [f"alg{x}" for x in i.ravel()],
        }
    )


def _anova(y: np.ndarray) -> dict[str, float]:
    """Mean squares of the balanced additive three-way layout (one run per cell)."""
    I, J, K = y.shape  # noqa: E741
    g = y.mean()
    yi, yj, yk = y.mean(axis=(1, 2)), y.mean(axis=(0, 2)), y.mean(axis=(0, 1))
    resid = y - yi[:, None, None] - yj[None, :, None] - yk[None, None, :] + 2 * g
    df_e = I * J * K - I - J - K + 2
    return {
        "ms_exp": J * K * np.sum((yi - g) ** 2) / (I - 1),
        "ms_seed": I * K * np.sum((yj - g) ** 2) / (J - 1),
        "ms_rep": I * J * np.sum((yk - g) ** 2) / (K - 1),
        "ms_e": np.sum(resid**2) / df_e,
        "df_e": df_e,
        "means": yi,
    }


def test_balanced_crossed_reml_equals_anova_estimators() -> None:
    """Balanced data, estimates inside the space: REML = the ANOVA (EMS) estimators."""
    y = _crossed(7)
    I, J, K = y.shape  # noqa: E741
    a = _anova(y)
    assert a["ms_seed"] > a["ms_e"] and a["ms_rep"] > a["ms_e"]  # interior case
    res = analyse(_frame(y))
    vc = res["variance_components"]
    assert vc["residual"]["variance"] == pytest.approx(a["ms_e"], rel=1e-9)
    assert vc["seed"]["variance"] == pytest.approx((a["ms_seed"] - a["ms_e"]) / (I * K), rel=1e-8)
    assert vc["repeat"]["variance"] == pytest.approx((a["ms_rep"] - a["ms_e"]) / (I * J), rel=1e-8)
    fe = res["fixed_effects"]
    se = math.sqrt(2 * a["ms_e"] / (J * K))
    for i in range(1, I):
        row = fe[f"experimente{i}"]
        assert row["estimate"] == pytest.approx(a["means"][i] - a["means"][0], abs=1e-10)
        assert row["se"] == pytest.approx(se, rel=1e-8)
        # the contrast's variance is sigma^2 alone, and sigma^2's df are the residual df
        assert row["df"] == pytest.approx(a["df_e"], rel=1e-7)
    f = res["anova"]["experiment"]
    assert f["f"] == pytest.approx(a["ms_exp"] / a["ms_e"], rel=1e-8)
    assert f["num_df"] == I - 1
    assert f["den_df"] == pytest.approx(a["df_e"], rel=1e-7)
    assert f["p"] == pytest.approx(float(special.fdtrc(I - 1, a["df_e"], f["f"])), rel=1e-6)


def test_balanced_one_way_reml_closed_form() -> None:
    """One random factor, balanced: variances, intercept se/df and the REML logLik."""
    rng = np.random.default_rng(11)
    a_, n = 8, 5
    y = 3.0 + rng.normal(0, 1.2, a_)[:, None] + rng.normal(0, 0.7, (a_, n))
    N = a_ * n
    msw = np.sum((y - y.mean(axis=1, keepdims=True)) ** 2) / (N - a_)
    msb = n * np.sum((y.mean(axis=1) - y.mean()) ** 2) / (a_ - 1)
    assert msb > msw
    design = lmm.make_design(
        y.ravel(), np.ones((N, 1)), [np.repeat(np.arange(a_), n)], x_names=["(Intercept)"]
    )
    m = lmm.fit(design, reml=True)
    assert m.sigma**2 == pytest.approx(msw, rel=1e-9)
    assert m.variances[0] == pytest.approx((msb - msw) / n, rel=1e-8)
    ll = -0.5 * (
        (N - 1) * (math.log(2 * math.pi) + 1)
        + (N - a_) * math.log(msw)
        + (a_ - 1) * math.log(msb)
        + math.log(N)
    )
    assert m.loglik == pytest.approx(ll, rel=1e-12)
    c = m.coefficients()[0]
    assert c["estimate"] == pytest.approx(y.mean(), rel=1e-12)
    assert c["se"] == pytest.approx(math.sqrt(msb / N), rel=1e-8)
    assert c["df"] == pytest.approx(a_ - 1, rel=1e-7)


def test_singular_fit_lrt_exactly_zero() -> None:
    """Seed means made exactly equal: seed variance 0, LRT exactly 0, p exactly 1."""
    y = _crossed(3)
    y = y - (y.mean(axis=(0, 2)) - y.mean())[None, :, None]
    res = analyse(_frame(y))
    assert res["singular"] is True
    assert res["variance_components"]["seed"]["variance"] == 0.0
    t = res["random_effects_tests"]["seed"]
    assert t["lrt"] == 0.0 and t["p"] == 1.0 and t["df"] == 1
    assert t["loglik"] == res["loglik"]
    assert res["hypotheses"]["H2"]["decision"] == "not_rejected"
    assert any("singular" in w for w in res["warnings"])


def _dev_vp(design: lmm.Design, theta: np.ndarray, sigma: float, reml: bool) -> float:
    """lmerTest's deviance of varpar = (theta, sigma), from the PLS pieces."""
    st = lmm._solve(design, theta)
    N = design.n - design.p if reml else design.n
    c = st.logdet_L2 + (st.logdet_RX2 if reml else 0.0)
    return c + st.r2 / sigma**2 + N * math.log(2 * math.pi * sigma**2)


@pytest.mark.parametrize("reml", [True, False])
def test_analytic_hessian_and_jacobian_match_finite_differences(reml: bool) -> None:
    y = _crossed(5)
    frame = _frame(y).sample(frac=0.8, random_state=1)  # unbalanced
    X = np.array(pd.get_dummies(frame["experiment"]).to_numpy(float))
    X[:, 0] = 1.0
    codes = [pd.factorize(frame[c], sort=True)[0] for c in ("seed", "repeat")]
    design = lmm.make_design(frame["value"].to_numpy(), X, codes)
    m = lmm.fit(design, reml=reml)
    x0 = np.append(m.theta, m.sigma)

    def f(x: np.ndarray) -> float:
        return _dev_vp(design, x[:-1], x[-1], reml)

    h = 1e-4
    k = x0.size
    num = np.empty((k, k))
    for i in range(k):
        for j in range(k):
            ei, ej = np.eye(k)[i] * h, np.eye(k)[j] * h
            num[i, j] = (f(x0 + ei + ej) - f(x0 + ei - ej) - f(x0 - ei + ej) + f(x0 - ei - ej)) / (
                4 * h * h
            )
    np.testing.assert_allclose(m.hessian, num, rtol=1e-5, atol=1e-5 * np.abs(num).max())

    def covbeta(x: np.ndarray) -> np.ndarray:
        st = lmm._solve(design, x[:-1])
        return x[-1] ** 2 * np.linalg.inv(st.RX @ st.RX.T)

    for i in range(k):
        e = np.eye(k)[i] * 1e-4  # smaller steps drown in rounding
        jac = (covbeta(x0 + e) - covbeta(x0 - e)) / 2e-4
        np.testing.assert_allclose(m.jacobian[i], jac, rtol=1e-6, atol=1e-9 * np.abs(jac).max())


def test_type1_contrasts_are_lmertest_doolittle() -> None:
    """t(L) of the unit-lower LU of X'X: unit upper triangular, and X'X = L U."""
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 4, 50)
    X = np.zeros((50, 4))
    X[:, 0] = 1
    X[np.arange(50), codes] = 1
    Lt = lmm.type1_contrasts(X)
    L = Lt.T
    U = np.linalg.solve(L, X.T @ X)
    np.testing.assert_allclose(np.diag(Lt), 1.0)
    np.testing.assert_allclose(np.tril(Lt, -1), 0.0)
    np.testing.assert_allclose(np.tril(U, -1), 0.0, atol=1e-9)


def test_fstat_ddf_rules() -> None:
    assert lmm._fstat_ddf(np.array([7.0])) == 7.0
    assert lmm._fstat_ddf(np.array([10.0, 10.0, 10.0])) == 10.0
    assert lmm._fstat_ddf(np.array([10.0, 1.5])) == 2.0
    nu = np.array([10.0, 20.0])
    E = np.sum(nu / (nu - 2))
    assert lmm._fstat_ddf(nu) == pytest.approx(2 * E / (E - 2))


def test_no_random_terms_is_ols() -> None:
    """k = 0: the linear model; Satterthwaite df = n - p, the t test of OLS."""
    rng = np.random.default_rng(2)
    X = np.column_stack([np.ones(30), rng.normal(size=30)])
    y = X @ [1.0, 2.0] + rng.normal(size=30)
    m = lmm.fit(lmm.make_design(y, X, []))
    beta, rss = np.linalg.lstsq(X, y, rcond=None)[:2]
    np.testing.assert_allclose(m.beta, beta, rtol=1e-12)
    assert m.sigma**2 == pytest.approx(rss[0] / 28, rel=1e-12)
    assert [c["df"] for c in m.coefficients()] == pytest.approx([28, 28], rel=1e-12)
