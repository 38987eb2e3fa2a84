"""One call from a data matrix to the issue's JSON result (keys exactly as issue 14 lists them).

::

    {"n": int, "d": int, "observable_diameter": x, "discriminability": x|null, "id": x|null,
     "exact": bool,
     "bounds": {"discriminability": [lo, hi], "id": [lo, hi], "relative_error": x,
                "support": [k…]} | null,
     "features": {NAME: {"delta": x, "id": x, "rank": int}} | null,
     "hops": {"0": x, "1": x, …} | null,
     "warnings": [str]}

JSON has no ∞: an infinite ID (Δ = 0) is written as null, with a warning saying why.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from reprokg.intrinsic_dimension.compute import (
    DEFAULT_SUPPORT_LENGTH,
    Bounds,
    Progress,
    bounds,
    id_from_delta,
    prepare,
    profile,
    refine,
)
from reprokg.intrinsic_dimension.features import (
    DEFAULT_SCORE,
    FeatureScore,
    FeatureScores,
    feature_scores,
)

if TYPE_CHECKING:
    from reprokg.intrinsic_dimension.graph import HopResult

#: below this many points the exact computation is the default; from here on a support
#: sequence of the default length (the seed, §5.3: Algorithm 1 of Stubbemann et al. 2023b
#: under 10^5 samples, the approximation with l = 10,000 above)
EXACT_BELOW = 100_000


def default_support(n: int, *, exact: bool, support: int | None) -> int | None:
    """The support length to use: the one asked for, else none (exact) below
    :data:`EXACT_BELOW` points or when ``exact`` is asked for, else the default length."""
    if support is not None or exact or n < EXACT_BELOW:
        return support
    return DEFAULT_SUPPORT_LENGTH


def _num(x: float) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


@dataclass(frozen=True)
class Analysis:
    """What :func:`analysis` computed: the issue's JSON (``result``) and the objects behind
    it (the support-sequence bounds, the per-feature scores, the hop results), which the
    table output and the stored document use beyond the JSON's fixed keys."""

    result: dict[str, Any]
    bounds: Bounds | None
    features: FeatureScores | None
    hops: list[HopResult] | None

    def hop_details(self) -> dict[str, dict[str, Any]]:
        """Per hop: the exact Δ and ID, or the certified bounds whose midpoint
        ``result["hops"]`` gives (``{"discriminability", "id", "bounds"}``)."""
        return {
            str(r.hop): {
                "discriminability": r.delta,
                "id": None if r.id is None else _num(r.id),
                "bounds": None if r.bounds is None else bounds_json(r.bounds),
            }
            for r in self.hops or []
        }


def bounds_json(b: Bounds) -> dict[str, Any]:
    """The ``bounds`` object of the JSON result."""
    return {
        "discriminability": [b.delta_lower, b.delta_upper],
        "id": [_num(b.id_lower), _num(b.id_upper)],
        "relative_error": _num(b.relative_error),
        "support": b.support.tolist(),
    }


def analyse(X: object, names: Sequence[str] | None = None, **options: Any) -> dict[str, Any]:
    """The issue's JSON dict for ``X`` (see :func:`analysis` for the options)."""
    return analysis(X, names, **options).result


def analysis(
    X: object,
    names: Sequence[str] | None = None,
    *,
    support: int | Iterable[int] | None = None,
    exact: bool | None = None,
    features: bool = False,
    score: FeatureScore = DEFAULT_SCORE,
    hops: int | None = None,
    edges: np.ndarray | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
) -> Analysis:
    """Compute what the options ask for.

    ``support`` None → exact; a length or explicit points → certified bounds, refined to
    the exact value as well when ``exact`` is True. ``features`` adds per-feature δ/NID
    and ranks (with ``support``: midpoints of per-feature bounds); ``hops`` with ``edges``
    adds the ID of hop 0..K features (with ``support``: midpoints of their bounds, unless
    ``exact`` is True, which computes them exactly too).
    """
    warnings: list[str] = []
    sf = prepare(X, workers=workers)
    n, d = sf.n, sf.d
    names = [str(i) for i in range(d)] if names is None else [str(x) for x in names]
    if len(names) != d:
        raise ValueError(f"{len(names)} feature names for {d} features")
    if len(set(names)) != d:
        raise ValueError(f"feature names must be unique, got {names}")
    const = [nm for nm, r in zip(names, sf.ranges.tolist(), strict=True) if r == 0]
    if n < 2:
        warnings.append(f"only {n} point: Δ = 0 and the ID is infinite (written as null)")
    elif len(const) == d:
        warnings.append("every feature is constant: Δ = 0 and the ID is infinite (null)")
    elif const:
        warnings.append(
            f"{len(const)} constant feature(s) {const} cannot discriminate points; "
            "they do not change the ID and have infinite NID (null)"
        )
    use_support = support is not None and n >= 2
    want_exact = (not use_support) or bool(exact)
    out: dict[str, Any] = {
        "n": n,
        "d": d,
        "observable_diameter": float(sf.od),
        "discriminability": None,
        "id": None,
        "exact": want_exact,
        "bounds": None,
        "features": None,
        "hops": None,
        "warnings": warnings,
    }
    fs = None
    if features:
        fs = feature_scores(
            sf,
            names,
            score=score,
            support=support if use_support else None,
            workers=workers,
            progress=progress,
        )
    delta: float | None = None
    b: Bounds | None = None
    if use_support:
        b = bounds(sf, support, workers=workers, progress=progress)  # type: ignore[arg-type]
        out["bounds"] = bounds_json(b)
        if want_exact:
            delta = refine(sf, b, workers=workers, progress=progress)
    elif fs is not None and fs.exact:
        delta = float(fs.dataset_phi.sum() / n) if n else 0.0  # free with the features
    else:
        delta = float(profile(sf, workers=workers, progress=progress).sum() / n)
    if delta is not None:
        out["discriminability"] = delta
        out["id"] = _num(id_from_delta(delta))
    if fs is not None:
        out["features"] = {
            nm: {"delta": float(dl), "id": _num(float(v)), "rank": int(r)}
            for nm, dl, v, r in zip(fs.names, fs.delta, fs.nid, fs.rank, strict=True)
        }
        if not fs.exact and fs.nid_bounds is not None:
            lo, hi = fs.nid_bounds[:, 0], fs.nid_bounds[:, 1]
            finite = np.isfinite(hi) & (lo > 0)
            worst = float(np.max((hi[finite] - lo[finite]) / lo[finite])) if finite.any() else 0.0
            warnings.append(
                "per-feature delta and id are midpoints of certified bounds from a support "
                f"sequence of {len(fs.support)} points"
                f"{' dense at both ends' if isinstance(support, int) else ''} (score "
                f"{fs.score.name!r}; largest relative error of a feature's id {worst:.3g}); "
                "ranks order the midpoints"
            )
    res: list[HopResult] | None = None
    if hops is not None:
        if edges is None:
            raise ValueError("hops need a graph: pass the edges")
        from reprokg.intrinsic_dimension.graph import hop_dimensions  # scipy, for graphs only

        # --exact asks for exact values everywhere: hops are then computed exactly (the
        # pruned profile of each hop raised over the previous ones), not bounded
        hop_support = support if use_support and not want_exact else None
        res = hop_dimensions(
            X,
            edges,
            hops,
            support=hop_support,
            workers=workers,
            progress=progress,
        )
        out["hops"] = {str(r.hop): _num(r.value) for r in res}
        if hop_support is not None:
            worst = max(r.bounds.relative_error for r in res if r.bounds is not None)
            warnings.append(
                f"hop IDs are midpoints of certified bounds (largest relative error {worst:.3g})"
            )
    return Analysis(out, b, fs, res)
