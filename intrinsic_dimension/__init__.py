"""Geometric intrinsic dimension of data sets: exact, bounded, per feature, along graph hops.

Seed 000 (Hille, Stubbemann & Hanika, TMLR 2024) measures the concentration-based ID of
Hanika et al. 2022 / Stubbemann et al. 2023a and discards the features of highest
normalised intrinsic dimensionality (Stubbemann et al. 2023b). Pure numpy/scipy; the
authors' packages ``idim`` and ``obsdim`` serve only as test oracles. See ``compute`` for
the definitions, ``features`` for the per-feature score, ``graph`` for hops, ``io`` for
input files and ``result`` for the JSON the CLI and the service return.

The names below load their module on first use (PEP 562), so that reading an ``.npy`` and
computing its ID imports numpy alone: pandas loads for CSV tables, scipy for graphs.
"""

from __future__ import annotations

import importlib
from typing import Any

#: public name -> the module of this package that defines it
_EXPORTS = {
    "Analysis": "result",
    "Bounds": "compute",
    "DEFAULT_FRACTIONS": "features",
    "DEFAULT_SCORE": "features",
    "DEFAULT_SUPPORT_LENGTH": "compute",
    "DiscardStep": "features",
    "FSCOD": "features",
    "FeatureScore": "features",
    "FeatureScores": "features",
    "HopResult": "graph",
    "Progress": "compute",
    "RANGE": "features",
    "SCORES": "features",
    "SortedFeatures": "compute",
    "Table": "io",
    "adjacency": "graph",
    "analyse": "result",
    "analysis": "result",
    "as_support": "compute",
    "bounds": "compute",
    "direct_profile": "compute",
    "discard_curve": "features",
    "discriminability": "compute",
    "feature_scores": "features",
    "hop_dimensions": "graph",
    "id_from_delta": "compute",
    "intrinsic_dimension": "compute",
    "normalized_adjacency": "graph",
    "observable_diameter": "compute",
    "prepare": "compute",
    "profile": "compute",
    "read_data": "io",
    "read_edges": "io",
    "refine": "compute",
    "support_sequence": "compute",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
