"""Intrinsic dimension of attributed graphs along hops of neighbourhood aggregation.

Following Stubbemann et al. 2023a (Def. 5.1, code ID4GeoL ``intrinsic_dimension_k_hops.py``)
and the issue: hop features X, ÂX, …, Â^K X with Â = D̃^{-1/2}(A + I)D̃^{-1/2} (A the
unweighted, undirected adjacency, D̃ the degrees of A + I), every hop divided by the
observable diameter of X (not re-normalised: aggregated features may span more than 1, and,
as in ID4GeoL, φ is not capped at 1 — obsdim caps it by default, ``cap=1.0``). "ID at hop k"
is the ID of the union of the hop-0..k features, so φ_j(hop ≤ k) = max over hops ≤ k.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from reprokg.intrinsic_dimension.compute import (
    Bounds,
    Progress,
    Ticker,
    as_matrix,
    as_support,
    bounds_from_phi,
    id_from_delta,
    prepare,
    profile,
    support_phi,
)


def adjacency(edges: np.ndarray, n: int) -> sparse.csr_matrix:
    """The unweighted undirected adjacency of an edge list (duplicates and direction ignored)."""
    e = np.asarray(edges)
    if e.ndim != 2 or e.shape[1] != 2:
        raise ValueError(f"edges must be an m × 2 array of node indices, got shape {e.shape}")
    if e.size and not np.issubdtype(e.dtype, np.integer):
        raise ValueError(f"edge node indices must be integers, got dtype {e.dtype}")
    e = e.astype(np.int64, copy=False)
    if e.size and (e.min() < 0 or e.max() >= n):
        raise ValueError(f"edge node indices must lie in [0, {n - 1}], got [{e.min()}, {e.max()}]")
    ones = np.ones(e.shape[0])
    a = sparse.coo_matrix((ones, (e[:, 0], e[:, 1])), shape=(n, n)).tocsr()
    a = a + a.T
    a.data[:] = 1.0
    a.eliminate_zeros()
    return a.tocsr()


def normalized_adjacency(a: sparse.spmatrix) -> sparse.csr_matrix:
    """Â = D̃^{-1/2}(A + I)D̃^{-1/2}; self-loops already in A count once (binary A + I)."""
    a = sparse.csr_matrix(a, dtype=np.float64)
    if a.shape[0] != a.shape[1]:
        raise ValueError(f"adjacency must be square, got shape {a.shape}")
    ai = (a + sparse.eye(a.shape[0], format="csr")).tocsr()
    ai.data[:] = 1.0
    deg = np.asarray(ai.sum(axis=1)).ravel()
    inv = sparse.diags(1.0 / np.sqrt(deg))
    return (inv @ ai @ inv).tocsr()


def hop_features(X: np.ndarray, a_hat: sparse.spmatrix, hops: int) -> Iterator[np.ndarray]:
    """X, ÂX, …, Â^hops X, one at a time (O(n·d) memory)."""
    cur = as_matrix(X)
    if a_hat.shape[0] != cur.shape[0]:
        raise ValueError(f"graph has {a_hat.shape[0]} nodes but data has {cur.shape[0]} rows")
    yield cur
    for _ in range(hops):
        cur = np.asarray(a_hat @ cur)
        yield cur


@dataclass(frozen=True)
class HopResult:
    """ID of the union of hop-0..``hop`` features: exact, or bounded by a support sequence."""

    hop: int
    delta: float | None
    id: float | None
    bounds: Bounds | None

    @property
    def value(self) -> float:
        """The exact ID, or the midpoint of the ID bounds (idim's estimate) when bounded."""
        if self.id is not None:
            return self.id
        assert self.bounds is not None
        lo, hi = self.bounds.id_lower, self.bounds.id_upper
        return math.inf if math.isinf(hi) else (lo + hi) / 2


def hop_dimensions(
    X: object,
    edges: np.ndarray | sparse.spmatrix,
    hops: int,
    *,
    support: int | Iterable[int] | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
) -> list[HopResult]:
    """ID at hops 0..``hops`` (exactly, or bounded with ``support``).

    ``edges`` is an m × 2 array of node indices or a (sparse) adjacency matrix. Each hop's
    features are evaluated only where they can raise the maximum of the hops before it.
    """
    if hops < 0:
        raise ValueError(f"hops must be ≥ 0, got {hops}")
    a = as_matrix(X)
    n = a.shape[0]
    adj = edges if sparse.issparse(edges) else adjacency(np.asarray(edges), n)
    a_hat = normalized_adjacency(adj)
    od = float(np.max(a.max(axis=0) - a.min(axis=0)))
    results: list[HopResult] = []
    s = as_support(support, n) if support is not None and n >= 2 else None
    floor: np.ndarray | None = None
    for h, feats in enumerate(hop_features(a, a_hat, hops)):
        sf = prepare(feats, od=od, workers=workers)
        if s is None:
            prof = profile(sf, floor=floor, workers=workers, progress=progress, stage=f"hop {h}")
            floor = prof
            delta = float(prof.sum() / n)
            results.append(HopResult(h, delta, id_from_delta(delta), None))
        else:
            ticker = Ticker(progress, f"hop {h}", int(s.size))
            phi, upper, starts = support_phi(sf, s, floor, workers, ticker)
            floor = phi
            lo, hi = bounds_from_phi(phi, s, n)
            b = Bounds(s, phi, n, lo, hi, upper, starts)
            results.append(HopResult(h, None, None, b))
    return results
