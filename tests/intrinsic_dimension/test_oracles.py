"""Real data shipped inside packages, cross-checked against the authors' packages.

``idim`` (T. Hille) and ``obsdim`` (T. Hanika) are test-only oracles: every oracle value is
computed here, in the test, never pasted. scikit-learn's bundled iris, wine,
breast_cancer and digits and networkx's karate club graph need no download.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from reprokg.intrinsic_dimension import (
    FSCOD,
    RANGE,
    bounds,
    feature_scores,
    hop_dimensions,
    intrinsic_dimension,
    refine,
    support_sequence,
)
from tests.intrinsic_dimension.conftest import oracle

idim = oracle("idim")
obsdim = oracle("obsdim")
nx = oracle("networkx")
datasets = oracle("sklearn.datasets")
_determine_single_offset_phis = oracle("idim.idim")._determine_single_offset_phis
build_support_sequence = oracle("idim.support_sequence").build_support_sequence
_make_support_sequence = oracle("obsdim._core")._make_support_sequence
khop_feature_matrix = oracle("obsdim.graphs").khop_feature_matrix

LOADERS = {
    "iris": datasets.load_iris,
    "wine": datasets.load_wine,
    "breast_cancer": datasets.load_breast_cancer,
    "digits": datasets.load_digits,
}
REL = 1e-12


@pytest.fixture(scope="module", params=sorted(LOADERS))
def dataset(request: pytest.FixtureRequest) -> tuple[str, np.ndarray]:
    return request.param, LOADERS[request.param]().data.astype(np.float64)


@pytest.mark.slow
def test_exact_id_matches_idim_and_obsdim(dataset) -> None:
    _, X = dataset
    ours = intrinsic_dimension(X)
    by_idim = float(idim.calculate_intrinsic_dimension(X, disable_tqdm=True)[0])
    by_obsdim = obsdim.compute_dimension(X.T, normalize="diameter").dimension
    assert math.isclose(ours, by_idim, rel_tol=REL)
    assert math.isclose(ours, by_obsdim, rel_tol=REL)


def test_default_support_sequence_is_the_authors(dataset) -> None:
    _, X = dataset
    n = X.shape[0]
    for length in (3, 17, n // 20, n // 3):
        ours = support_sequence(n, length).tolist()
        assert ours == build_support_sequence(n, length).tolist()
        assert ours == _make_support_sequence(length, n)


def test_bounds_and_refinement_match_idim_and_obsdim(dataset) -> None:
    _, X = dataset
    n = X.shape[0]
    s = support_sequence(n, max(3, n // 20))
    b = bounds(X, s)
    lo_i, hi_i, _ = idim.calculate_intrinsic_dimension(X, support_sequence=s, disable_tqdm=True)
    assert math.isclose(b.id_lower, lo_i, rel_tol=REL)
    assert math.isclose(b.id_upper, hi_i, rel_tol=REL)
    r = obsdim.compute_dimension(X.T, normalize="diameter", support_sequence=s)
    assert math.isclose(b.id_lower, r.dimension_bounds[0], rel_tol=REL)
    assert math.isclose(b.id_upper, r.dimension_bounds[1], rel_tol=REL)
    assert math.isclose(b.relative_error, r.approximation_error, rel_tol=1e-9)
    exact_i = idim.calculate_intrinsic_dimension(
        X, support_sequence=s, exact=True, disable_tqdm=True
    )[0]
    delta = refine(X, b)
    assert math.isclose(1 / delta**2, exact_i, rel_tol=REL)
    exact_o = obsdim.compute_dimension(X.T, normalize="diameter", support_sequence=s, exact=True)
    assert math.isclose(delta, exact_o.delta, rel_tol=REL)


def test_fscod_scores_from_idim_feature_phis(dataset) -> None:
    name, X = dataset
    if name == "digits":
        X = X[:400]  # the oracle loops in Python over k; keep it short
    n = X.shape[0]
    seqs = idim.calculate_feature_sequences(X, disable_tqdm=True)  # sorted, OD-normalised
    want = np.zeros(X.shape[1])
    for k in range(2, n + 1):
        want += _determine_single_offset_phis(seqs, k) / k
    want /= n
    fs = feature_scores(X, score=FSCOD)
    assert np.allclose(fs.delta, want, rtol=1e-12, atol=1e-15)


@pytest.mark.slow
def test_range_scores_are_obsdim_one_feature_discriminability(dataset) -> None:
    _, X = dataset
    fs = feature_scores(X, score=RANGE)
    for f in range(0, X.shape[1], max(1, X.shape[1] // 8)):  # obsdim loops in Python
        col = X[:, [f]].T
        want = obsdim.compute_dimension(col, normalize="diameter").delta
        assert math.isclose(fs.delta[f], want, rel_tol=1e-12, abs_tol=1e-15)


@pytest.mark.parametrize("hops", [0, 1, 3])
def test_karate_club_hops_match_obsdim(hops: int) -> None:
    g = nx.karate_club_graph()
    n = g.number_of_nodes()
    X = np.random.default_rng(42).normal(size=(n, 6))
    edges = np.array(list(g.edges()))
    res = hop_dimensions(X, edges, hops)
    adj = nx.to_scipy_sparse_array(g, nodelist=range(n), weight=None)
    for r in res:
        phi = khop_feature_matrix(adj, X, n_hops=r.hop)
        want = obsdim.compute_dimension(phi, normalize=None, cap=None).dimension
        assert math.isclose(r.id, want, rel_tol=REL)
        # idim on the same (already OD-of-X-normalised) hop features, not re-normalised
        by_idim = idim.calculate_intrinsic_dimension(
            np.ascontiguousarray(phi.T), unit_obs_diam=False, disable_tqdm=True
        )[0]
        assert math.isclose(r.id, by_idim, rel_tol=REL)
    # hop 0 is the data set itself
    assert math.isclose(res[0].id, intrinsic_dimension(X), rel_tol=REL)


def test_karate_club_hop_bounds_bracket_the_exact_values() -> None:
    g = nx.karate_club_graph()
    n = g.number_of_nodes()
    X = np.random.default_rng(0).gamma(2.0, size=(n, 4))
    edges = np.array(list(g.edges()))
    exact = hop_dimensions(X, edges, 2)
    bounded = hop_dimensions(X, edges, 2, support=8)
    for e, b in zip(exact, bounded, strict=True):
        assert b.bounds is not None
        assert b.bounds.id_lower <= e.id * (1 + 1e-12)
        assert e.id <= b.bounds.id_upper * (1 + 1e-12)
