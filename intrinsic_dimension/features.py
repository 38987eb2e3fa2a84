"""Per-feature normalised discriminability, the ranking the seed discards by, and its curve.

The score is pluggable: a ``FeatureScore`` is any linear, non-negative combination
δ_f = Σ_{k=2..n} w(k, n) · φ_{k,f} / c_f of one feature's own φ profile. Linearity with
w ≥ 0 keeps it monotone in φ, which is what makes support-sequence bounds valid for it.

Two scores are provided:

- ``FSCOD`` (the default): Stubbemann, Hille & Hanika 2023b, "Selecting Features by their
  Resilience to the Curse of Dimensionality" (arXiv:2304.02455), as the authors' code
  computes it (github.com/mstubbemann/FSCOD, ``open18-script.py`` and ``ogb-clf.py``):
  δ_f = (1/n) Σ_{k=2..n} φ_{k,f} / k, NID_f = 1/δ_f². The authors evaluate it on the raw
  feature values; here the values are divided by the data set's observable diameter first,
  one global factor that leaves the ranking and the discard curve unchanged and makes δ
  comparable across data sets (δ_raw = OD · δ).
- ``RANGE``: the issue's reading: each feature alone as a geometric data set normalised by
  its own range, δ_f = (1/n) Σ_{k=2..n} φ_{k,f} / range(f), i.e. the discriminability of
  the one-feature data set (equal to obsdim's ``compute_dimension(f, normalize="diameter")``).

Both give δ_f = 0 (NID = ∞) for a constant feature. Features are ranked by NID, highest
first (rank 1 is discarded first), ties by column order. With a support sequence the
per-feature bounds are those of the ranking code in FSCOD's ``ogb-clf.py``: the step
profiles from the left and from the right, and NID is the midpoint of its bounds; a
support *length* gives the per-feature bounds their own sequence, dense at both ends
(:func:`feature_support_sequence`), explicit points are used as given.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

import reprokg.intrinsic_dimension.kernels as K
from reprokg.intrinsic_dimension.compute import (
    PARALLEL_MIN_N,
    Progress,
    SortedFeatures,
    Ticker,
    as_support,
    resolve_workers,
    sorted_features,
    support_sequence,
)

Weights = Callable[[np.ndarray, int], np.ndarray]
Divisor = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class FeatureScore:
    """δ_f = Σ_{k=2..n} weights(k, n)·φ_{k,f} / divisor(ranges)_f (φ in OD units).

    ``weights`` must be non-negative; ``divisor`` receives the feature ranges in OD units.
    """

    name: str
    weights: Weights
    divisor: Divisor
    reference: str


def _fscod_weights(k: np.ndarray, n: int) -> np.ndarray:
    return 1.0 / (n * k.astype(np.float64))


def _uniform_weights(k: np.ndarray, n: int) -> np.ndarray:
    return np.full(k.shape, 1.0 / n)


FSCOD = FeatureScore(
    name="fscod",
    weights=_fscod_weights,
    divisor=np.ones_like,
    reference="Stubbemann, Hille & Hanika 2023b (arXiv:2304.02455), authors' code FSCOD",
)
RANGE = FeatureScore(
    name="range",
    weights=_uniform_weights,
    divisor=lambda r: r,
    reference="issue 14: Δ of the feature alone, normalised by its own range",
)
SCORES = {s.name: s for s in (FSCOD, RANGE)}
DEFAULT_SCORE = FSCOD


@dataclass(frozen=True)
class FeatureScores:
    """Per-feature δ and NID, the ranking, and what came for free about the data set.

    With a support sequence ``delta``/``nid`` are midpoints of their bounds (the FSCOD
    ranking rule) and ``delta_bounds``/``nid_bounds`` hold the certified intervals.
    ``dataset_phi`` is φ_k of the whole data set (every k when exact, the support points
    otherwise): the maximum over the features' own profiles.
    """

    names: list[str]
    delta: np.ndarray
    nid: np.ndarray
    rank: np.ndarray
    exact: bool
    score: FeatureScore
    delta_bounds: np.ndarray | None
    nid_bounds: np.ndarray | None
    dataset_phi: np.ndarray
    support: np.ndarray | None

    def order(self) -> list[int]:
        """Column indices from the first discarded (highest NID) to the last."""
        return np.argsort(self.rank, kind="stable").tolist()


FEATURE_SUPPORT_MAX = 1_000
"""Most support points of the per-feature bounds (each costs O(d·n) for every feature)."""


def feature_support_sequence(n: int, length: int) -> np.ndarray:
    """The support sequence of the per-feature bounds for a requested ``length``: dense at
    both ends, of at most :data:`FEATURE_SUPPORT_MAX` points.

    The authors' sequence (:func:`~reprokg.intrinsic_dimension.compute.support_sequence`)
    is dense near n, where φ_k of the whole data set changes fastest, and sparse at small k.
    FSCOD's weights 1/k put most of a feature's score there, so per-feature bounds from it
    are loose. Half the points follow the authors' rule and half a geometric sequence from
    2 upwards, which tightens them several times over
    (benchmarks/README.md#figures-once-quoted-in-code). Unlike the data set's φ_k, which the pruned
    engine bounds cheaply, every feature's φ_{s,f} costs a pass over the feature, hence the cap.
    Explicit support points are used as given.
    """
    m = max(2, min(int(length), FEATURE_SUPPORT_MAX))
    if m >= n - 1:
        return np.arange(2, n + 1, dtype=np.int64)
    top = support_sequence(n, max(2, m // 2))
    bottom = np.floor(np.geomspace(2, n, max(2, m - m // 2))).astype(np.int64)
    return np.unique(np.concatenate([top, bottom, [2, n]])).astype(np.int64)


def _nid(delta: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.where(delta > 0, 1.0 / np.square(delta), np.inf)


def rank_by_nid(nid: np.ndarray) -> np.ndarray:
    """Rank 1 = highest NID (∞ first); ties keep column order."""
    order = np.lexsort((np.arange(nid.size), -np.nan_to_num(nid, posinf=np.finfo(float).max)))
    rank = np.empty(nid.size, dtype=np.int64)
    rank[order] = np.arange(1, nid.size + 1)
    return rank


def _divide(num: np.ndarray, div: np.ndarray) -> np.ndarray:
    out = np.zeros_like(num)
    np.divide(num, div, out=out, where=div > 0)
    return out


def _exact_sums(
    sf: SortedFeatures, w: np.ndarray, workers: int | None, ticker: Ticker
) -> tuple[np.ndarray, np.ndarray]:
    """Σ_k w_k φ_{k,f} for every feature and φ_k of the data set, over feature groups."""
    n, d = sf.n, sf.d
    block = K.PAD + 1

    def run(lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        acc = np.zeros(hi - lo)
        prof = np.zeros(n + 1)
        rows = sf.rows[lo:hi]
        for k0 in range(2, n + 1, block):
            k1 = min(n, k0 + block - 1)
            phis = K.all_block_minima(rows, n, k0, k1)
            acc += phis @ w[k0 : k1 + 1]
            prof[k0 : k1 + 1] = phis.max(axis=0)
            ticker((k1 - k0 + 1) * (hi - lo))
        return acc, prof

    nw = min(resolve_workers(workers), d)
    if nw == 1 or n < PARALLEL_MIN_N:
        return run(0, d)
    cuts = np.linspace(0, d, nw + 1).astype(int)
    with ThreadPoolExecutor(nw) as pool:
        parts = list(pool.map(run, cuts[:-1], cuts[1:]))
    acc = np.concatenate([p[0] for p in parts])
    prof = np.max(np.stack([p[1] for p in parts]), axis=0)
    return acc, prof


def feature_scores(
    data: object,
    names: Sequence[str] | None = None,
    *,
    score: FeatureScore = DEFAULT_SCORE,
    support: int | Iterable[int] | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
) -> FeatureScores:
    """δ_f and NID_f of every feature, exactly (O(d·n²)) or bounded by a support sequence.

    Every feature's whole profile enters its score, so nothing can be pruned here; the
    exact run is the plain O(d·n²) computation, vectorised over k and features.
    """
    sf = sorted_features(data, workers)
    n, d = sf.n, sf.d
    names = [str(i) for i in range(d)] if names is None else [str(x) for x in names]
    if len(names) != d:
        raise ValueError(f"{len(names)} feature names for {d} features")
    div = np.asarray(score.divisor(sf.ranges), dtype=np.float64)
    if n < 2:
        zero = np.zeros(d)
        nid = _nid(zero)
        return FeatureScores(
            names, zero, nid, rank_by_nid(nid), True, score, None, None, np.zeros(n + 1), None
        )
    ks = np.arange(n + 1)
    w = np.zeros(n + 1)
    w[2:] = score.weights(ks[2:], n)
    if np.any(w < 0):
        raise ValueError(f"score {score.name!r} has negative weights")
    if support is None:
        ticker = Ticker(progress, "features", d * (n - 1))
        acc, prof = _exact_sums(sf, w, workers, ticker)
        delta = _divide(acc, div)
        nid = _nid(delta)
        return FeatureScores(
            names, delta, nid, rank_by_nid(nid), True, score, None, None, prof, None
        )
    s = (
        feature_support_sequence(n, int(support))
        if isinstance(support, (int, np.integer))
        else as_support(support, n)
    )
    ticker = Ticker(progress, "features", int(s.size))
    phi = K.support_minima(sf.rows, n, s, tick=ticker.tick)  # (d, l)
    cw = np.cumsum(w)  # cw[k] = Σ_{j ≤ k} w_j
    # lower: φ_{s_i} on [s_i, s_{i+1}) and φ_{s_l} at n; upper: φ_{s_1} at 2 and φ_{s_{i+1}}
    # on (s_i, s_{i+1}]  (the step profiles FSCOD's ogb-clf.py builds per feature)
    left = cw[s[1:] - 1] - cw[s[:-1] - 1]
    right = cw[s[1:]] - cw[s[:-1]]
    lower = phi[:, :-1] @ left + phi[:, -1] * w[s[-1]]
    upper = phi[:, 1:] @ right + phi[:, 0] * w[s[0]]
    dlo, dhi = _divide(lower, div), _divide(upper, div)
    nlo, nhi = _nid(dhi), _nid(dlo)
    with np.errstate(invalid="ignore"):
        nid = np.where(np.isinf(nhi), np.inf, (nlo + nhi) / 2)
    delta = (dlo + dhi) / 2
    return FeatureScores(
        names,
        delta,
        nid,
        rank_by_nid(nid),
        False,
        score,
        np.stack([dlo, dhi], axis=1),
        np.stack([nlo, nhi], axis=1),
        phi.max(axis=0),
        s,
    )


DEFAULT_FRACTIONS = tuple(round(0.1 * i, 1) for i in range(10))
"""The seed's discard factors 0, 0.1, …, 0.9 (§5.3)."""


@dataclass(frozen=True)
class DiscardStep:
    """One point of the seed's summary curve (Fig. 5: x = remaining share)."""

    fraction: float
    discarded: list[str]
    remaining_share: float


def discard_curve(
    scores: FeatureScores, fractions: Iterable[float] = DEFAULT_FRACTIONS
) -> list[DiscardStep]:
    """For each fraction α: discard the ⌊α·d⌋ features of highest NID and report the sum of
    the remaining features' δ over the sum of all (the seed, §5.6 / Fig. 5).

    The share is NaN when every feature is constant (all δ = 0).
    """
    order = scores.order()
    d = len(order)
    total = float(np.sum(scores.delta))
    steps = []
    for a in fractions:
        a = float(a)
        if not 0.0 <= a <= 1.0:
            raise ValueError(f"discard fractions lie in [0, 1], got {a}")
        m = int(math.floor(a * d + 1e-9))
        gone = order[:m]
        kept = float(np.sum(np.delete(scores.delta, gone)))
        share = kept / total if total > 0 else math.nan
        steps.append(DiscardStep(a, [scores.names[i] for i in gone], share))
    return steps


def feature_ids(scores: FeatureScores) -> dict[str, float]:
    """NID per feature name (∞ for constants)."""
    return {nm: float(v) for nm, v in zip(scores.names, scores.nid, strict=True)}


__all__ = [
    "DEFAULT_FRACTIONS",
    "DEFAULT_SCORE",
    "DiscardStep",
    "FSCOD",
    "FeatureScore",
    "FeatureScores",
    "RANGE",
    "SCORES",
    "discard_curve",
    "feature_ids",
    "feature_support_sequence",
    "feature_scores",
    "rank_by_nid",
]
