"""Geometric intrinsic dimension of a data set whose features are its columns.

Definitions (Hanika, Schneider & Stumme 2022; Stubbemann, Hanika & Schneider 2023a, as
both authors' packages ``idim`` and ``obsdim`` implement them):

- the n points × d features are divided by the observable diameter OD, the largest
  feature range (one global factor, so ID is invariant under X → cX);
- φ_{k,f} = the smallest range of k consecutive sorted values of feature f,
  φ_k = max_f φ_{k,f};
- Δ = (1/n) Σ_{k=2..n} φ_k and ID = 1/Δ² (∞ when Δ = 0: one point, or only constants);
- for a support sequence s = (2 = s_1 < … < s_l = n):
  Δ₋ = (1/n)(Σ_{i<l} φ_{s_i}(s_{i+1} − s_i) + φ_{s_l}),
  Δ₊ = (1/n)(Σ_{i<l} φ_{s_{i+1}}(s_{i+1} − s_i) + φ_{s_1}), ID ∈ [1/Δ₊², 1/Δ₋²], with the
  relative error (1/Δ₋² − 1/Δ₊²)/(1/Δ₊²) (TMLR 2023a Def. 4.4; obsdim and ID4GeoL report
  this one, idim reports (Δ₊ − Δ₋)/Δ₋ instead).

All values are exact up to floating-point summation order: the engines skip a feature at
a window size only when a bound proves it cannot raise the maximum there.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

import reprokg.intrinsic_dimension.kernels as K

Progress = Callable[[str, int, int], None]
"""Progress hook: (stage, done, total); called from worker threads, keep it cheap."""

PARALLEL_MIN_N = 20_000
"""Below this many points the engines run on one thread (measured: overhead dominates)."""


def as_matrix(X: object) -> np.ndarray:
    """Check that X is an n × d matrix of finite numbers and return it as float64.

    Refuses NaN and ±inf: both would silently corrupt every window range.
    """
    a = np.asarray(X)
    if a.dtype == object or not (
        np.issubdtype(a.dtype, np.number) or np.issubdtype(a.dtype, np.bool_)
    ):
        raise ValueError(f"data must be numeric, got dtype {a.dtype}")
    if np.iscomplexobj(a):
        raise ValueError("data must be real, got complex values")
    if a.ndim != 2:
        raise ValueError(f"data must be a 2-D matrix (points × features), got shape {a.shape}")
    if a.shape[0] == 0 or a.shape[1] == 0:
        raise ValueError(f"data needs at least one point and one feature, got shape {a.shape}")
    a = np.asarray(a, dtype=np.float64)
    if not np.isfinite(a).all():
        bad = np.flatnonzero(~np.isfinite(a).all(axis=0)).tolist()
        raise ValueError(f"data has NaN or infinite values in feature columns {bad}")
    return a


def observable_diameter(X: object) -> float:
    """OD = the largest feature range (the diameter of the points in the sup metric)."""
    a = as_matrix(X)
    return float(np.max(a.max(axis=0) - a.min(axis=0)))


def id_from_delta(delta: float) -> float:
    """ID = 1/Δ², ∞ when Δ = 0."""
    return 1.0 / (delta * delta) if delta > 0 else math.inf


def resolve_workers(workers: int | None) -> int:
    """None means every core this process may use."""
    if workers is None:
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # pragma: no cover - not Linux
            return max(1, os.cpu_count() or 1)
    return max(1, int(workers))


@dataclass(frozen=True)
class SortedFeatures:
    """Features as sorted rows divided by ``od``: what every computation starts from.

    ``rows`` is (d, n + PAD), padded with +inf; ``ranges`` are the feature ranges after the
    division (the largest is 1 unless every feature is constant).
    """

    rows: np.ndarray
    n: int
    od: float
    ranges: np.ndarray

    @property
    def d(self) -> int:
        return int(self.rows.shape[0])

    @property
    def values(self) -> np.ndarray:
        return self.rows[:, : self.n]


def prepare(X: object, *, od: float | None = None, workers: int | None = None) -> SortedFeatures:
    """Divide by the observable diameter (or the given ``od``) and sort every feature.

    ``od`` lets hop features be divided by the OD of the hop-0 data, as the issue and
    ID4GeoL do. Data with OD = 0 are left undivided (as idim and obsdim do).
    """
    a = as_matrix(X)
    n, d = a.shape
    if od is None:
        od = float(np.max(a.max(axis=0) - a.min(axis=0)))
    rows = np.empty((d, n + K.PAD), dtype=np.float64)
    rows[:, n:] = np.inf
    scale = od if od > 0 else 1.0

    def fill(lo: int, hi: int) -> None:
        block = rows[lo:hi, :n]
        np.divide(a[:, lo:hi].T, scale, out=block)
        block.sort(axis=1)

    w = resolve_workers(workers)
    if w > 1 and n * d >= 4_000_000 and d > 1:
        cuts = np.linspace(0, d, min(w, d) + 1).astype(int)
        with ThreadPoolExecutor(len(cuts) - 1) as pool:
            list(pool.map(fill, cuts[:-1], cuts[1:]))
    else:
        fill(0, d)
    ranges = rows[:, n - 1] - rows[:, 0]
    return SortedFeatures(rows=rows, n=n, od=float(od), ranges=ranges)


def sorted_features(data: object, workers: int | None = None) -> SortedFeatures:
    return data if isinstance(data, SortedFeatures) else prepare(data, workers=workers)


class Ticker:
    """Thread-safe adapter from the engines' increments to a Progress hook."""

    def __init__(self, progress: Progress | None, stage: str, total: int) -> None:
        self.progress, self.stage, self.total = progress, stage, total
        self.done = 0
        self.lock = threading.Lock()
        if progress is not None:
            progress(stage, 0, total)

    def __call__(self, step: int) -> None:
        if self.progress is None:
            return
        with self.lock:
            self.done += step
            done = self.done
        self.progress(self.stage, done, self.total)

    @property
    def tick(self) -> K.Tick | None:
        return self if self.progress is not None else None


def _balanced_cuts(ks: np.ndarray, n: int, parts: int) -> list[int]:
    """Split positions of ``ks`` into ``parts`` runs of about equal work Σ (n − k + 1)."""
    cost = np.cumsum(n - ks + 1, dtype=np.float64)
    targets = cost[-1] * np.arange(1, parts) / parts
    inner = np.searchsorted(cost, targets).tolist()
    return sorted({0, *inner, len(ks)})


# ---------------------------------------------------------------------------
# exact profile and discriminability
# ---------------------------------------------------------------------------


def profile(
    data: object,
    *,
    floor: np.ndarray | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
    stage: str = "exact",
) -> np.ndarray:
    """φ_k for k = 0..n (0 for k < 2), exactly; O(d·n) memory.

    ``floor`` (non-decreasing, length n + 1) is taken into the maximum, standing for
    features that were handled before (the union of hops).
    """
    sf = sorted_features(data, workers)
    n = sf.n
    out = np.zeros(n + 1)
    if n < 2:
        return out
    ticker = Ticker(progress, stage, n - 1)
    w = resolve_workers(workers)
    if w == 1 or n < PARALLEL_MIN_N:
        K.pruned_profile(sf.rows, n, 2, n, out, floor=floor, tick=ticker.tick)
        return out
    ks = np.arange(2, n + 1)
    cuts = _balanced_cuts(ks, n, w)

    def run(a: int, b: int) -> None:
        K.pruned_profile(sf.rows, n, int(ks[a]), int(ks[b - 1]), out, floor=floor, tick=ticker.tick)

    with ThreadPoolExecutor(len(cuts) - 1) as pool:
        list(pool.map(run, cuts[:-1], cuts[1:]))
    return out


def direct_profile(data: object) -> np.ndarray:
    """φ_k by evaluating every feature at every k: the plain O(d·n²) reference."""
    sf = sorted_features(data)
    n = sf.n
    out = np.zeros(n + 1)
    for k0 in range(2, n + 1, K.PAD + 1):
        k1 = min(n, k0 + K.PAD)
        out[k0 : k1 + 1] = K.all_block_minima(sf.rows, n, k0, k1).max(axis=0)
    return out


def discriminability(
    data: object, *, workers: int | None = None, progress: Progress | None = None
) -> float:
    """Δ = (1/n) Σ_{k=2..n} φ_k, exactly."""
    sf = sorted_features(data, workers)
    return float(profile(sf, workers=workers, progress=progress).sum() / sf.n)


def intrinsic_dimension(
    data: object, *, workers: int | None = None, progress: Progress | None = None
) -> float:
    """ID = 1/Δ² (∞ when Δ = 0), exactly."""
    return id_from_delta(discriminability(data, workers=workers, progress=progress))


# ---------------------------------------------------------------------------
# support sequences: bounds and exact refinement
# ---------------------------------------------------------------------------

DEFAULT_SUPPORT_LENGTH = 10_000
"""The seed's choice (Hille et al. 2024, §5.3: a geometric sequence of length 10,000)."""


def support_sequence(n: int, length: int = DEFAULT_SUPPORT_LENGTH) -> np.ndarray:
    """The authors' default support sequence: geometric spacing, dense near n.

    s' = geomspace(n, 2, length) (a geometric sequence from n down to 2), then
    s = floor(n + 2 − s'), duplicates dropped, 2 and n kept — as idim
    (``_build_geometric_support_sequence``), obsdim (``_make_support_sequence``), ID4GeoL
    and the seed (§5.3) build it. The gaps shrink towards n, where φ_k changes fastest.
    """
    if n < 2:
        raise ValueError(f"a support sequence needs n ≥ 2 points, got {n}")
    if length < 2:
        raise ValueError(f"a support sequence needs at least 2 points, got {length}")
    if length >= n - 1:
        return np.arange(2, n + 1, dtype=np.int64)
    s = np.floor(n + 2 - np.geomspace(n, 2, length)).astype(np.int64)
    return np.unique(np.concatenate([[2], s, [n]]))


def as_support(support: int | Iterable[int], n: int) -> np.ndarray:
    """A support length (→ the authors' geometric sequence) or explicit points in [2, n].

    Explicit points are sorted, de-duplicated and completed with 2 and n (as obsdim does).
    """
    if isinstance(support, (int, np.integer)):
        return support_sequence(n, int(support))
    s = np.unique(np.asarray(list(support), dtype=np.int64))
    if s.size and (s[0] < 2 or s[-1] > n):
        raise ValueError(f"support points must lie in [2, {n}], got [{s[0]}, {s[-1]}]")
    return np.unique(np.concatenate([[2], s, [n]])).astype(np.int64)


def bounds_from_phi(phi: np.ndarray, support: np.ndarray, n: int) -> tuple[float, float]:
    """(Δ₋, Δ₊) from φ at the support points (φ_k is non-decreasing in k)."""
    gaps = np.diff(support).astype(np.float64)
    lower = (float(np.dot(phi[:-1], gaps)) + float(phi[-1])) / n
    upper = (float(np.dot(phi[1:], gaps)) + float(phi[0])) / n
    return lower, upper


def relative_error(id_lower: float, id_upper: float) -> float:
    """(ID₊ − ID₋)/ID₋, the certified relative error of TMLR 2023a Def. 4.4."""
    if math.isinf(id_lower):
        return 0.0
    if math.isinf(id_upper):
        return math.inf
    return (id_upper - id_lower) / id_lower


@dataclass(frozen=True)
class Bounds:
    """Certified bounds from a support sequence; ``feature_upper`` serves the refinement."""

    support: np.ndarray
    phi: np.ndarray
    n: int
    delta_lower: float
    delta_upper: float
    feature_upper: np.ndarray = field(repr=False)
    starts: np.ndarray = field(repr=False)

    @property
    def id_lower(self) -> float:
        return id_from_delta(self.delta_upper)

    @property
    def id_upper(self) -> float:
        return id_from_delta(self.delta_lower)

    @property
    def relative_error(self) -> float:
        return relative_error(self.id_lower, self.id_upper)


def support_phi(
    sf: SortedFeatures,
    s: np.ndarray,
    floor: np.ndarray | None,
    workers: int | None,
    ticker: Ticker,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """φ at the support points (exact maxima) over the worker threads."""
    n, d = sf.n, sf.d
    w = resolve_workers(workers)
    if w == 1 or n < PARALLEL_MIN_N or s.size < 2 * w:
        starts = np.zeros(d, dtype=np.intp)
        phi, upper = K.support_maxima(sf.rows, n, s, floor=floor, starts=starts, tick=ticker.tick)
        return phi, upper, starts
    cuts = _balanced_cuts(s, n, w)

    def run(a: int, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        st = np.zeros(d, dtype=np.intp)
        fl = None if floor is None else floor[a:b]
        phi, up = K.support_maxima(sf.rows, n, s[a:b], floor=fl, starts=st, tick=ticker.tick)
        return phi, up, st

    with ThreadPoolExecutor(len(cuts) - 1) as pool:
        parts = list(pool.map(run, cuts[:-1], cuts[1:]))
    phi = np.concatenate([p[0] for p in parts])
    upper = np.concatenate([p[1] for p in parts], axis=1)
    return phi, upper, parts[-1][2]


def bounds(
    data: object,
    support: int | Iterable[int] = DEFAULT_SUPPORT_LENGTH,
    *,
    workers: int | None = None,
    progress: Progress | None = None,
) -> Bounds:
    """Δ₋ ≤ Δ ≤ Δ₊ from φ at the support points only: O(d·n·l) time at most, O(d·n) memory."""
    sf = sorted_features(data, workers)
    n = sf.n
    if n < 2:
        empty = np.zeros(0, dtype=np.int64)
        return Bounds(empty, np.zeros(0), n, 0.0, 0.0, np.zeros((sf.d, 0)), np.zeros(sf.d, int))
    s = as_support(support, n)
    ticker = Ticker(progress, "support", int(s.size))
    phi, upper, starts = support_phi(sf, s, None, workers, ticker)
    lo, hi = bounds_from_phi(phi, s, n)
    return Bounds(s, phi, n, lo, hi, upper, starts)


def refine(
    data: object,
    b: Bounds,
    *,
    workers: int | None = None,
    progress: Progress | None = None,
) -> float:
    """The exact Δ from support-sequence bounds.

    Inside a gap (s_i, s_{i+1}), φ_j ≥ φ_{s_i} and φ_{j,f} ≤ φ_{s_{i+1},f}: only the
    features whose (upper bound of) φ_{s_{i+1},f} exceeds φ_{s_i} can raise φ_j there
    (TMLR 2023a Lemma 4.7), and only those are evaluated — and among them only where
    their probe bound beats what is already known.
    """
    sf = sorted_features(data, workers)
    n = sf.n
    if n < 2:
        return 0.0
    s = b.support
    out = np.zeros(n + 1)
    out[s] = b.phi
    gaps = [
        i
        for i in range(s.size - 1)
        if s[i + 1] - s[i] > 1 and bool((b.feature_upper[:, i + 1] > b.phi[i]).any())
    ]
    for i in range(s.size - 1):
        if s[i + 1] - s[i] > 1:
            out[s[i] + 1 : s[i + 1]] = b.phi[i]
    ticker = Ticker(progress, "refine", len(gaps))

    def run(chunk: Sequence[int]) -> None:
        starts = b.starts.copy()
        for i in chunk:
            cand = np.flatnonzero(b.feature_upper[:, i + 1] > b.phi[i])
            K.pruned_profile(
                sf.rows,
                n,
                int(s[i]) + 1,
                int(s[i + 1]) - 1,
                out,
                subset=cand,
                lower=float(b.phi[i]),
                starts=starts,
            )
            ticker(1)

    w = resolve_workers(workers)
    if w == 1 or n < PARALLEL_MIN_N or len(gaps) < 2 * w:
        run(gaps)
    else:
        ks = s[np.asarray(gaps, dtype=np.intp)]
        cuts = _balanced_cuts(ks, n, w)
        with ThreadPoolExecutor(len(cuts) - 1) as pool:
            list(pool.map(lambda a, c: run(gaps[a:c]), cuts[:-1], cuts[1:]))
    return float(out.sum() / n)
