"""The definitions by hand: the issue's worked example, the properties, brute force, bounds."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from reprokg.intrinsic_dimension import (
    FSCOD,
    RANGE,
    bounds,
    compute,
    direct_profile,
    discard_curve,
    discriminability,
    feature_scores,
    intrinsic_dimension,
    observable_diameter,
    prepare,
    profile,
    refine,
    support_sequence,
)

WORKED = np.array(
    [
        [0, 1, 2, 3, 4, 5],
        [0, 0.5, 1, 4, 4.5, 5],
        [1, 1, 1, 1, 1.2, 6],
    ],
    dtype=float,
).T


def close(a: float, b: float, rel: float = 1e-12) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-15)


# --- the worked example of the issue -------------------------------------------------------


def test_worked_example_exact() -> None:
    assert observable_diameter(WORKED) == 5.0
    assert close(discriminability(WORKED), 0.55)
    assert close(intrinsic_dimension(WORKED), 3.305785123966942)


def test_worked_example_bounds() -> None:
    b = bounds(WORKED, [2, 4, 6])
    assert b.support.tolist() == [2, 4, 6]
    assert close(b.delta_lower, 0.5)
    assert close(b.delta_upper, 0.6333333333333333)
    assert math.isclose(b.id_lower, 2.493075, rel_tol=1e-6)
    assert close(b.id_upper, 4.0)
    assert close(b.relative_error, (4.0 - b.id_lower) / b.id_lower)
    assert close(refine(WORKED, b), 0.55)


def test_worked_example_range_score_is_the_issue_reading() -> None:
    fs = feature_scores(WORKED, ["f1", "f2", "f3"], score=RANGE)
    assert np.allclose(fs.delta, [0.5, 0.5, 0.17333333333333334], rtol=1e-12)
    assert np.allclose(fs.nid, [4.0, 4.0, 33.284024], rtol=1e-7)
    assert fs.rank[2] == 1 and sorted(fs.rank.tolist()) == [1, 2, 3]
    # the data set's own profile comes for free
    assert close(float(fs.dataset_phi.sum() / 6), 0.55)


def test_worked_example_paper_score_by_hand() -> None:
    # FSCOD: δ_f = (1/n) Σ_k φ_{k,f}/k on OD-normalised values (φ listed for k = 2..6)
    phis = {
        "f1": [0.2, 0.4, 0.6, 0.8, 1.0],
        "f2": [0.1, 0.2, 0.8, 0.9, 1.0],
        "f3": [0.0, 0.0, 0.0, 0.04, 1.0],
    }
    want = [sum(p / k for p, k in zip(v, range(2, 7), strict=True)) / 6 for v in phis.values()]
    fs = feature_scores(WORKED, list(phis), score=FSCOD)
    assert np.allclose(fs.delta, want, rtol=1e-12)
    assert fs.rank.tolist() == [3, 2, 1]
    curve = discard_curve(fs, [0.0, 1 / 3, 2 / 3])
    assert [s.discarded for s in curve] == [[], ["f3"], ["f3", "f2"]]
    assert close(curve[0].remaining_share, 1.0)
    assert close(curve[1].remaining_share, (want[0] + want[1]) / sum(want))
    assert close(curve[2].remaining_share, want[0] / sum(want))


# --- properties --------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 7, 10, 33, 100, 1000, 4097])
def test_equally_spaced_values_have_id_4(n: int) -> None:
    x = np.linspace(-3.0, 11.0, n)[:, None]
    assert close(intrinsic_dimension(x), 4.0, rel=1e-9)


def test_constant_reversed_permuted_copies_leave_id_unchanged() -> None:
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 4))
    base = intrinsic_dimension(X)
    with_const = np.column_stack([X, np.full(300, 2.5)])
    reversed_copy = np.column_stack([X, X[::-1, 1]])
    negated_copy = np.column_stack([X, -X[:, 2]])
    permuted_copy = np.column_stack([X, rng.permutation(X[:, 0])])
    for Y in (with_const, reversed_copy, negated_copy, permuted_copy):
        assert close(intrinsic_dimension(Y), base)


@pytest.mark.parametrize("c", [1e-6, 0.37, 3.0, 1e5, -2.0])
def test_scale_invariance(c: float) -> None:
    X = np.random.default_rng(3).gamma(2.0, size=(400, 5))
    assert close(intrinsic_dimension(c * X), intrinsic_dimension(X), rel=1e-12)


def test_degenerate_cases_are_infinite() -> None:
    assert intrinsic_dimension(np.array([[1.0, 2.0]])) == math.inf
    assert intrinsic_dimension(np.ones((5, 3))) == math.inf
    assert discriminability(np.ones((5, 3))) == 0.0


def test_invalid_data_is_refused() -> None:
    with pytest.raises(ValueError, match="NaN or infinite"):
        intrinsic_dimension(np.array([[1.0], [np.nan]]))
    with pytest.raises(ValueError, match="2-D"):
        intrinsic_dimension(np.arange(5.0))
    with pytest.raises(ValueError, match="numeric"):
        intrinsic_dimension(np.array([["a"], ["b"]]))


# --- brute force from the definition (n ≤ 8) ---------------------------------------------


def brute_force_delta(X: np.ndarray) -> float:
    """Δ = ∫_0^1 ObsDiam(X; −α) dα from subsets (Hanika et al. 2022, Def. 4.1, Prop. 4.5).

    d_F(x, y) = max_f |f(x) − f(y)| and OD = diam(X, d_F) over all pairs of points;
    PartDiam(f_*μ, 1 − α) = min over point subsets B with μ(B) ≥ 1 − α of diam f(B);
    ObsDiam = max_f PartDiam. The integrand is constant on ((j)/n, (j + 1)/n), where
    ⌈n(1 − α)⌉ = n − j, so it is integrated exactly at the midpoints.
    """
    n, d = X.shape
    od = max(
        (np.max(np.abs(X[i] - X[j])) for i, j in itertools.combinations(range(n), 2)),
        default=0.0,
    )
    Y = X / od if od > 0 else X
    total = 0.0
    for j in range(n):
        alpha = (j + 0.5) / n
        size = math.ceil(n * (1 - alpha))
        obs = 0.0
        for f in range(d):
            part = min(
                (np.ptp(Y[list(B), f]) for B in itertools.combinations(range(n), size)),
                default=0.0,
            )
            obs = max(obs, float(part))
        total += obs / n
    return total


@pytest.mark.parametrize("seed", range(12))
def test_brute_force_subsets(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 9))
    d = int(rng.integers(1, 4))
    # integer-valued data make ties, duplicate points and constant features common
    X = rng.integers(0, 4, size=(n, d)).astype(float) if seed % 2 else rng.normal(size=(n, d))
    want = brute_force_delta(X)
    assert close(discriminability(X), want)
    assert close(float(direct_profile(X).sum() / n), want)


# --- the engines agree with the plain computation ----------------------------------------


def random_matrix(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 700))
    d = int(rng.integers(1, 9))
    kind = seed % 4
    if kind == 0:
        return rng.normal(size=(n, d))
    if kind == 1:
        return rng.integers(0, 5, size=(n, d)).astype(float)
    if kind == 2:
        return np.exp(rng.normal(size=(n, d)) * rng.uniform(0.1, 3, size=d))
    X = rng.normal(size=(n, d))
    X[:, 0] = 1.0
    return np.repeat(X, 2, axis=0)


@pytest.mark.parametrize("seed", range(24))
def test_pruned_profile_equals_direct(seed: int) -> None:
    X = random_matrix(seed)
    assert np.array_equal(profile(X), direct_profile(X))


@pytest.mark.parametrize("seed", range(16))
def test_bounds_bracket_and_refinement_is_exact(seed: int) -> None:
    X = random_matrix(seed)
    n = X.shape[0]
    exact = float(direct_profile(X).sum() / n)
    rng = np.random.default_rng(seed + 100)
    supports = [support_sequence(n, 2), support_sequence(n, max(2, n // 7))]
    inner = rng.choice(np.arange(3, n), size=min(max(n - 3, 0), 9), replace=False) if n > 3 else []
    supports.append(np.asarray(sorted({2, n, *np.asarray(inner).tolist()})))
    for s in supports:
        b = bounds(X, s)
        assert b.delta_lower <= exact * (1 + 1e-12) + 1e-15
        assert exact <= b.delta_upper * (1 + 1e-12) + 1e-15
        assert b.id_lower <= b.id_upper
        assert close(refine(X, b), exact)


@pytest.mark.parametrize("seed", range(6))
def test_full_support_sequence_is_exact(seed: int) -> None:
    X = random_matrix(seed)
    n = X.shape[0]
    b = bounds(X, np.arange(2, n + 1))
    exact = float(direct_profile(X).sum() / n)
    assert close(b.delta_lower, exact) and close(b.delta_upper, exact)
    assert b.relative_error == pytest.approx(0.0, abs=1e-12)


def test_support_sequence_is_geometric_and_dense_near_n() -> None:
    s = support_sequence(100_000, 50)
    assert s[0] == 2 and s[-1] == 100_000
    assert np.all(np.diff(s) > 0)
    gaps = np.diff(s)
    assert gaps[0] > 100 * gaps[-1]  # wide at small k, narrow near n
    assert support_sequence(10, 50).tolist() == list(range(2, 11))
    with pytest.raises(ValueError):
        support_sequence(1, 10)


def test_explicit_support_is_completed_and_checked() -> None:
    assert compute.as_support([5, 3], 9).tolist() == [2, 3, 5, 9]
    with pytest.raises(ValueError, match=r"\[2, 9\]"):
        compute.as_support([1, 5], 9)


def test_floor_is_folded_into_the_profile() -> None:
    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 3))
    Y = rng.normal(size=(200, 2)) * 0.7
    od = observable_diameter(X)
    px = profile(prepare(X, od=od))
    both = profile(prepare(Y, od=od), floor=px)
    union = direct_profile(prepare(np.column_stack([X, Y]), od=od))
    assert np.array_equal(both, union)


# --- per-feature scores ------------------------------------------------------------------


@pytest.mark.parametrize("score", [FSCOD, RANGE])
@pytest.mark.parametrize("seed", range(6))
def test_feature_scores_by_hand_and_their_bounds(score, seed: int) -> None:
    X = random_matrix(seed)
    n, d = X.shape
    sf = prepare(X)
    vals = sf.values
    want = np.zeros(d)
    for f in range(d):
        for k in range(2, n + 1):
            phi = float(np.min(vals[f, k - 1 :] - vals[f, : n - k + 1]))
            want[f] += phi * float(score.weights(np.array([k]), n)[0])
    div = score.divisor(sf.ranges)
    want = np.divide(want, div, out=np.zeros(d), where=div > 0)
    fs = feature_scores(X, score=score)
    assert np.allclose(fs.delta, want, rtol=1e-12, atol=1e-15)
    s = support_sequence(n, max(2, n // 5))
    fb = feature_scores(X, score=score, support=s)
    lo, hi = fb.delta_bounds[:, 0], fb.delta_bounds[:, 1]
    assert np.all(lo <= want * (1 + 1e-12) + 1e-15) and np.all(want <= hi * (1 + 1e-12) + 1e-15)
    full = feature_scores(X, score=score, support=np.arange(2, n + 1))
    assert np.allclose(full.delta_bounds[:, 0], want, rtol=1e-12, atol=1e-15)
    assert np.allclose(full.delta_bounds[:, 1], want, rtol=1e-12, atol=1e-15)


def test_constant_feature_ranks_first_with_infinite_nid() -> None:
    X = np.column_stack([np.arange(10.0), np.full(10, 3.0), np.arange(10.0) ** 2])
    for score in (FSCOD, RANGE):
        fs = feature_scores(X, ["a", "b", "c"], score=score)
        assert fs.delta[1] == 0.0 and math.isinf(fs.nid[1]) and fs.rank[1] == 1


def test_pluggable_score() -> None:
    from reprokg.intrinsic_dimension import FeatureScore

    late = FeatureScore(
        "late-k",
        weights=lambda k, n: (k >= n // 2).astype(float) / n,
        divisor=np.ones_like,
        reference="test",
    )
    X = np.random.default_rng(1).normal(size=(50, 3))
    fs = feature_scores(X, score=late)
    sf = prepare(X)
    v = sf.values
    want = [
        sum(float(np.min(v[f, k - 1 :] - v[f, : 50 - k + 1])) for k in range(25, 51)) / 50
        for f in range(3)
    ]
    assert np.allclose(fs.delta, want, rtol=1e-12)


# --- threads and the progress hook -------------------------------------------------------


def test_threads_give_the_same_values(monkeypatch: pytest.MonkeyPatch) -> None:
    from reprokg.intrinsic_dimension import features

    monkeypatch.setattr(compute, "PARALLEL_MIN_N", 0)
    monkeypatch.setattr(features, "PARALLEL_MIN_N", 0)
    X = random_matrix(8)
    n = X.shape[0]
    assert np.array_equal(profile(X, workers=2), direct_profile(X))
    b1, b2 = bounds(X, n // 3, workers=1), bounds(X, n // 3, workers=2)
    assert np.array_equal(b1.phi, b2.phi)
    assert close(refine(X, b2, workers=2), float(direct_profile(X).sum() / n))
    f1 = feature_scores(X, workers=1)
    f2 = feature_scores(X, workers=2)
    assert np.allclose(f1.delta, f2.delta, rtol=1e-13)


def test_progress_hook_reaches_its_total() -> None:
    seen: dict[str, tuple[int, int]] = {}

    def hook(stage: str, done: int, total: int) -> None:
        assert 0 <= done <= total
        seen[stage] = (done, total)

    X = random_matrix(4)
    intrinsic_dimension(X, progress=hook)
    b = bounds(X, 20, progress=hook)
    refine(X, b, progress=hook)
    feature_scores(X, progress=hook)
    for stage in ("exact", "support", "refine", "features"):
        done, total = seen[stage]
        assert done == total


# --- per-feature support sequences, dense at both ends -----------------------------------


def test_feature_support_sequence() -> None:
    from reprokg.intrinsic_dimension.features import FEATURE_SUPPORT_MAX, feature_support_sequence

    s = feature_support_sequence(1_000_000, 10_000)
    assert s[0] == 2 and s[-1] == 1_000_000 and np.all(np.diff(s) > 0)
    assert s.size <= FEATURE_SUPPORT_MAX
    assert set(support_sequence(1_000_000, FEATURE_SUPPORT_MAX // 2).tolist()) <= set(s.tolist())
    assert s[10] < 20  # dense at small k as well
    assert feature_support_sequence(50, 100).tolist() == list(range(2, 51))


def test_feature_bounds_with_a_length_bracket_and_beat_the_authors_sequence() -> None:
    rng = np.random.default_rng(11)
    X = np.column_stack(
        [rng.normal(size=6000), rng.exponential(size=6000), rng.integers(0, 50, 6000)]
    )
    exact = feature_scores(X, score=FSCOD)
    both = feature_scores(X, score=FSCOD, support=60)
    authors = feature_scores(X, score=FSCOD, support=support_sequence(6000, 60))
    lo, hi = both.delta_bounds[:, 0], both.delta_bounds[:, 1]
    assert np.all(lo <= exact.delta * (1 + 1e-12)) and np.all(exact.delta <= hi * (1 + 1e-12))

    def worst(fs):
        lo, hi = fs.nid_bounds[:, 0], fs.nid_bounds[:, 1]
        return float(np.max((hi - lo) / lo))

    assert worst(both) < worst(authors) / 2
