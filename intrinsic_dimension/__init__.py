"""Geometric intrinsic dimension of data sets: exact, bounded, per feature, along graph hops.

Seed 000 (Hille, Stubbemann & Hanika, TMLR 2024) measures the concentration-based ID of
Hanika et al. 2022 / Stubbemann et al. 2023a and discards the features of highest
normalised intrinsic dimensionality (Stubbemann et al. 2023b). Pure numpy/scipy; the
authors' packages ``idim`` and ``obsdim`` serve only as test oracles. See ``compute`` for
the definitions, ``features`` for the per-feature score, ``graph`` for hops, ``io`` for
input files and ``result`` for the JSON the CLI and the service return.
"""

from reprokg.intrinsic_dimension.compute import (
    DEFAULT_SUPPORT_LENGTH,
    Bounds,
    Progress,
    SortedFeatures,
    as_support,
    bounds,
    direct_profile,
    discriminability,
    id_from_delta,
    intrinsic_dimension,
    observable_diameter,
    prepare,
    profile,
    refine,
    support_sequence,
)
from reprokg.intrinsic_dimension.features import (
    DEFAULT_FRACTIONS,
    DEFAULT_SCORE,
    FSCOD,
    RANGE,
    SCORES,
    DiscardStep,
    FeatureScore,
    FeatureScores,
    discard_curve,
    feature_scores,
)
from reprokg.intrinsic_dimension.graph import (
    HopResult,
    adjacency,
    hop_dimensions,
    normalized_adjacency,
)
from reprokg.intrinsic_dimension.io import Table, read_data, read_edges
from reprokg.intrinsic_dimension.result import Analysis, analyse, analysis

__all__ = [
    "Analysis",
    "DEFAULT_FRACTIONS",
    "DEFAULT_SCORE",
    "DEFAULT_SUPPORT_LENGTH",
    "FSCOD",
    "RANGE",
    "SCORES",
    "Bounds",
    "DiscardStep",
    "FeatureScore",
    "FeatureScores",
    "HopResult",
    "Progress",
    "SortedFeatures",
    "Table",
    "adjacency",
    "analyse",
    "analysis",
    "as_support",
    "bounds",
    "direct_profile",
    "discard_curve",
    "discriminability",
    "feature_scores",
    "hop_dimensions",
    "id_from_delta",
    "intrinsic_dimension",
    "normalized_adjacency",
    "observable_diameter",
    "prepare",
    "profile",
    "read_data",
    "read_edges",
    "refine",
    "support_sequence",
]
