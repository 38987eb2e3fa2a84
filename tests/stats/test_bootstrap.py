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


def _scipy_dri(runs: list[np.ndarray], j: int, method: str, resamples: int, seed: int):
    """scipy's paired bootstrap of ΔRI written from repro_eval's DRI (overall_effects._DRI:
    rel_improve = (mean adv - mean base) / mean base, original minus reproduced)."""

    def dri(ob, oa, rb, ra, axis=-1):
        ri_orig = (np.mean(oa, axis=axis) - np.mean(ob, axis=axis)) / np.mean(ob, axis=axis)
        ri_rep = (np.mean(ra, axis=axis) - np.mean(rb, axis=axis)) / np.mean(rb, axis=axis)
        return ri_orig - ri_rep

    return st.bootstrap(
        tuple(r[:, j] for r in runs),
        dri,
        paired=True,
        method=method,
        n_resamples=resamples,
        rng=np.random.default_rng(seed),
    )


@pytest.mark.parametrize("method", ["percentile", "BCa"])
def test_dri_interval_equals_scipys_paired_bootstrap(core17_four_runs, method) -> None:
    from reprokg.stats.bootstrap import bootstrap_dri

    runs, names = core17_four_runs
    mine = bootstrap_dri(*runs, method=method, resamples=2000, seed=7)
    checked = 0
    for j, name in enumerate(names):
        if any(np.all(r[:, j] == 0) for r in runs):
            continue  # a baseline without any relevant document: ΔRI undefined
        ref = _scipy_dri(runs, j, method, 2000, 7).confidence_interval
        assert abs(mine.low[j] - ref.low) <= 1e-12, name
        assert abs(mine.high[j] - ref.high) <= 1e-12, name
        checked += 1
    assert checked >= len(names) - 2


def test_dri_point_is_repro_evals_dri(core17_four_runs) -> None:
    """The observed ΔRI is repro_eval's DRI of the same scores (its own function)."""
    from repro_eval.measure.overall_effects import DRI

    from reprokg.stats.bootstrap import bootstrap_dri

    runs, names = core17_four_runs
    mine = bootstrap_dri(*runs, resamples=99, seed=0)
    as_dict = [
        {str(t): dict(zip(names, row.tolist(), strict=True)) for t, row in enumerate(r)}
        for r in runs
    ]
    ob, oa, rb, ra = as_dict
    ref = DRI(oa, ob, ra, rb)
    ap = names.index("AP")
    assert mine.mean[ap] == pytest.approx(ref["AP"], abs=1e-15)


def test_dri_bca_ties_are_scipys_on_few_topics(core17_four_runs) -> None:
    """Six topics of P@k in fifths and tenths: many resamples give the observed ΔRI in
    theory and differ from it only by rounding, which decides BCa's bias correction; they
    are recomputed as scipy computes them (without that, most of these measures differ).
    Where a resample's baseline mean is zero, ΔRI is undefined (scipy's distribution holds
    inf or NaN and it still reads quantiles off it): reprokg gives no interval there."""
    from reprokg.stats.bootstrap import bootstrap_dri

    runs, names = core17_four_runs
    few = [r[:6] for r in runs]
    mine = bootstrap_dri(*few, method="BCa", resamples=2000, seed=1)
    checked = undefined = 0
    for j, name in enumerate(names):
        if not name.startswith("P@") or any(np.all(r[:, j] == 0) for r in few):
            continue
        res = _scipy_dri(few, j, "BCa", 2000, 1)
        ref = res.confidence_interval
        if not np.all(np.isfinite(res.bootstrap_distribution)):
            assert np.isnan(mine.low[j]) and np.isnan(mine.high[j]), name
            undefined += 1
            continue
        assert abs(mine.low[j] - ref.low) <= 1e-12, name
        assert abs(mine.high[j] - ref.high) <= 1e-12, name
        checked += 1
    assert checked >= 3 and undefined >= 1


def test_dri_of_an_exact_reproduction_is_the_point(core17_four_runs) -> None:
    """Reproduced runs equal to the original ones: every resample's ΔRI is 0, so the
    interval is [0, 0] (scipy's BCa gives NaN with a degenerate-data warning: its
    acceleration is 0/0), and a rule asking for 0 in the interval can decide."""
    from reprokg.stats.bootstrap import bootstrap_dri

    runs, names = core17_four_runs
    ob, oa = runs[0], runs[1]
    ap = names.index("AP")
    for method in ("BCa", "percentile"):
        iv = bootstrap_dri(ob, oa, ob.copy(), oa.copy(), method=method, resamples=500, seed=2)
        assert (iv.mean[ap], iv.low[ap], iv.high[ap]) == (0.0, 0.0, 0.0)
    with pytest.warns(st.DegenerateDataWarning):
        ref = _scipy_dri([ob, oa, ob, oa], ap, "BCa", 500, 2).confidence_interval
    assert np.isnan(ref.low)


def _sorted_quantiles(rows: np.ndarray, levels: list[np.ndarray]) -> list[np.ndarray]:
    """The quantiles by sorting each row whole: the order statistics either side of the
    position, interpolated as _quantiles (and numpy's 'linear') does."""
    full = np.sort(rows, axis=1)
    b = rows.shape[1]
    at = np.arange(rows.shape[0])
    out = []
    for q in levels:
        pos = q * (b - 1)
        lo = np.clip(np.floor(pos).astype(np.int64), 0, b - 1)
        hi = np.clip(lo + 1, 0, b - 1)
        a, c = full[at, lo], full[at, hi]
        out.append(a + (c - a) * (pos - lo))
    return out


def _hard_rows(rng: np.random.Generator, shape: tuple[int, int]) -> dict[str, np.ndarray]:
    normal = rng.normal(size=shape)
    return {
        "normal": normal,
        "tenths with ties": rng.integers(0, 5, size=shape) / 10,
        "sorted rows": np.sort(normal, axis=1),  # a strided sample sees only one end
        "reversed rows": np.sort(normal, axis=1)[:, ::-1].copy(),
        "constant rows": np.repeat(normal[:, :1], shape[1], axis=1),
        "an infinite value": np.where(np.arange(shape[1]) == 7, np.inf, normal),
    }


@pytest.mark.parametrize("b", [64, 999, 9999])
def test_quantiles_are_the_order_statistics_of_the_sorted_rows(b: int) -> None:
    """_quantiles picks order statistics from a few values near each end of a row; every
    rank must be the one a whole sort of the row gives, bit for bit, at BCa-like levels
    near the ends, at the ends themselves and in the middle."""
    from reprokg.stats.bootstrap import _quantiles

    rng = np.random.default_rng(7)
    m = 23
    levels = {
        "near the ends": [rng.uniform(0.0, 0.1, m), rng.uniform(0.9, 1.0, m)],
        "the ends": [np.zeros(m), np.ones(m)],
        "anywhere": [rng.uniform(0.0, 1.0, m), rng.uniform(0.0, 1.0, m)],
        "one level, the middle": [np.full(m, 0.5)],
    }
    for name, rows in _hard_rows(rng, (m, b)).items():
        for where, qs in levels.items():
            got = _quantiles(rows, qs)
            with np.errstate(invalid="ignore"):
                want = _sorted_quantiles(rows, qs)
            for g, w in zip(got, want, strict=True):
                np.testing.assert_array_equal(g, w, err_msg=f"{name}, levels {where}")


def test_quantiles_with_a_nan_order_it_last_as_numpy() -> None:
    from reprokg.stats.bootstrap import _quantiles

    rows = np.random.default_rng(3).normal(size=(4, 200))
    rows[1, 5] = np.nan
    low, high = _quantiles(rows, [np.full(4, 0.1), np.full(4, 1.0)])
    assert np.isnan(high[1]) and np.all(np.isfinite(high[[0, 2, 3]]))
    assert low[1] == np.sort(rows[1])[19] + (np.sort(rows[1])[20] - np.sort(rows[1])[19]) * (
        0.1 * 199 - 19
    )
