"""One call from a data matrix to a typed result, whose JSON keys are a public contract (the
HTTP answer and the stored document read the same keys: renaming one breaks a client).

::

    {"n": int, "d": int, "observable_diameter": x, "discriminability": x|null, "id": x|null,
     "exact": bool,
     "bounds": {"discriminability": [lo, hi], "id": [lo, hi], "relative_error": x,
                "support": [k…]} | null,
     "features": {NAME: {"delta": x, "id": x, "rank": int}} | null,
     "hops": {"0": x, "1": x, …} | null,
     "warnings": [str]}

JSON has no ∞: an infinite ID (Δ = 0) is written as null, with a warning saying why.
:class:`IntrinsicDimensionResult` holds it typed; its document is built by
:mod:`reprokg.intrinsic_dimension.document` when one is asked for (rdflib loads then).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, cast

import numpy as np
from typing_extensions import TypedDict

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
    from rdflib import Graph, Literal

    from reprokg.core.document import Document
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


def _num(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


# The JSON answer's shapes, written once: ``to_json()`` returns these and the service
# declares them (``/measures/intrinsic-dimension``). ``typing_extensions``' TypedDict:
# pydantic reads no other on Python 3.11.


class BoundsJSON(TypedDict):
    discriminability: tuple[float, float]
    "[Δ₋, Δ₊]"
    id: tuple[float | None, float | None]
    "[1/Δ₊², 1/Δ₋²]; null for an infinite bound"
    relative_error: float | None
    "(1/Δ₋² − 1/Δ₊²)/(1/Δ₊²)"
    support: list[int]
    "the support sequence 2 = s₁ < … < s_l = n"


class FeatureJSON(TypedDict):
    delta: float
    "normalized discriminability δ_f"
    id: float | None
    "normalized intrinsic dimension 1/δ_f² (null: ∞)"
    rank: int
    "1 = highest NID, discarded first"


class IntrinsicDimensionJSON(TypedDict):
    """The result of ``reprokg intrinsic-dimension --format json``."""

    n: int
    d: int
    observable_diameter: float
    discriminability: float | None
    "exact Δ (null when only bounded)"
    id: float | None
    "exact ID = 1/Δ² (null when only bounded or ∞)"
    exact: bool
    bounds: BoundsJSON | None
    features: dict[str, FeatureJSON] | None
    hops: dict[str, float | None] | None
    "ID at hop 0..K (midpoints of certified bounds with a support sequence)"
    warnings: list[str]


@dataclass(frozen=True)
class CertifiedBounds:
    """Δ and ID bounds from a support sequence (an ID bound may be ∞: ``None``)."""

    discriminability: tuple[float, float]
    id: tuple[float | None, float | None]
    relative_error: float | None
    support: tuple[int, ...]

    @classmethod
    def of(cls, b: Bounds) -> CertifiedBounds:
        return cls(
            (float(b.delta_lower), float(b.delta_upper)),
            (_num(b.id_lower), _num(b.id_upper)),
            _num(b.relative_error),
            tuple(int(k) for k in b.support.tolist()),
        )

    def to_json(self) -> BoundsJSON:
        # lists, as the JSON has them (the schema's pairs are arrays of two)
        return cast(
            BoundsJSON,
            {
                "discriminability": list(self.discriminability),
                "id": list(self.id),
                "relative_error": self.relative_error,
                "support": list(self.support),
            },
        )


@dataclass(frozen=True)
class FeatureDimension:
    """One feature: its normalised discriminability δ, NID (∞: ``None``) and rank."""

    delta: float
    id: float | None
    rank: int

    def to_json(self) -> FeatureJSON:
        return {"delta": self.delta, "id": self.id, "rank": self.rank}


@dataclass(frozen=True)
class HopDimension:
    """The ID of the hop-0..``hop`` features: exact (Δ, ID), or bounded (``bounds``, with
    ``value`` their midpoint)."""

    hop: int
    #: what ``hops`` shows: the exact ID, or the midpoint of the bounds (∞: ``None``)
    value: float | None
    discriminability: float | None = None
    id: float | None = None
    bounds: CertifiedBounds | None = None

    @classmethod
    def of(cls, r: HopResult) -> HopDimension:
        return cls(
            r.hop,
            _num(r.value),
            r.delta,
            None if r.id is None else _num(r.id),
            None if r.bounds is None else CertifiedBounds.of(r.bounds),
        )


@dataclass(frozen=True)
class DataSource:
    """What a stored result was computed from and is about (its document says so)."""

    file_name: str
    sha256: str
    #: the data set: ``reprokg.intrinsic_dimension.document.dataset_ref``
    dataset: DataSetRef
    columns: tuple[str, ...] | None = None
    #: the per-feature score's name (when features were scored)
    score: str = "fscod"


@dataclass(frozen=True)
class DataSetRef:
    """The data set a result is about: its IRI and, for a DOI, the DOI as written."""

    iri: str
    doi_as_written: str | None = None
    minted: bool = False
    #: its name as the user gives it (``--dataset-name``): what pages call it, not its file
    name: str | None = None


@dataclass(frozen=True)
class IntrinsicDimensionResult:
    """The intrinsic dimension of one data matrix: the estimate, its per-feature parts and
    the certificate of its error bound.

    ``to_json()`` is the answer of ``reprokg intrinsic-dimension --format json`` and
    ``POST /measures/intrinsic-dimension``; ``document()`` (with a :attr:`source`, see
    :meth:`stored`) the ``intrinsic-dimension`` document
    (:mod:`reprokg.intrinsic_dimension.document` says what it holds), both from these
    fields. No rdflib until a document is asked for.
    """

    KIND: ClassVar[str] = "intrinsic-dimension"

    n: int
    d: int
    observable_diameter: float
    discriminability: float | None
    id: float | None
    exact: bool
    bounds: CertifiedBounds | None = None
    features: dict[str, FeatureDimension] | None = None
    hops: list[HopDimension] | None = None
    warnings: list[str] = field(default_factory=list)
    #: what it was computed from (for its document)
    source: DataSource | None = None

    def to_json(self) -> IntrinsicDimensionJSON:
        return {
            "n": self.n,
            "d": self.d,
            "observable_diameter": self.observable_diameter,
            "discriminability": self.discriminability,
            "id": self.id,
            "exact": self.exact,
            "bounds": None if self.bounds is None else self.bounds.to_json(),
            "features": None
            if self.features is None
            else {k: f.to_json() for k, f in self.features.items()},
            "hops": None if self.hops is None else {str(h.hop): h.value for h in self.hops},
            "warnings": list(self.warnings),
        }

    @classmethod
    def from_json(cls, answer: dict[str, Any]) -> IntrinsicDimensionResult:
        """The result an answer (e.g. a stored ``rdf:JSON``) was written from; hops keep
        their value only (the bounds of each hop are not part of the answer)."""
        b = answer.get("bounds")
        features = answer.get("features")
        hops = answer.get("hops")
        return cls(
            answer["n"],
            answer["d"],
            answer["observable_diameter"],
            answer.get("discriminability"),
            answer.get("id"),
            answer["exact"],
            None
            if b is None
            else CertifiedBounds(
                tuple(b["discriminability"]),
                tuple(b["id"]),
                b["relative_error"],
                tuple(b["support"]),
            ),
            None
            if features is None
            else {k: FeatureDimension(f["delta"], f["id"], f["rank"]) for k, f in features.items()},
            None if hops is None else [HopDimension(int(k), v) for k, v in hops.items()],
            list(answer.get("warnings", [])),
        )

    def stored(
        self,
        *,
        file_name: str,
        sha256: str,
        dataset: DataSetRef,
        columns: Sequence[str] | None = None,
        score: str = "fscod",
    ) -> IntrinsicDimensionResult:
        """This result with what it was computed from, ready for :meth:`document`."""
        cols = tuple(columns) if columns else None
        return replace(self, source=DataSource(file_name, sha256, dataset, cols, score))

    def to_graph(self) -> Graph:
        return self.document().graph

    def document(self) -> Document:
        return result_document(self)


@dataclass(frozen=True)
class Analysis:
    """What :func:`analysis` computed: the typed result and the objects behind it (the
    support-sequence bounds, the per-feature scores, the hop results), which the table
    output uses beyond the result (the discard curve, the score's name)."""

    result: IntrinsicDimensionResult
    bounds: Bounds | None
    features: FeatureScores | None
    hops: list[HopResult] | None


def analyse(
    X: object, names: Sequence[str] | None = None, **options: Any
) -> IntrinsicDimensionJSON:
    """The issue's JSON dict for ``X`` (see :func:`analysis` for the options)."""
    return analysis(X, names, **options).result.to_json()


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
        # use_support: support is not None
        b = bounds(sf, support, workers=workers, progress=progress)  # type: ignore[arg-type]
        if want_exact:
            delta = refine(sf, b, workers=workers, progress=progress)
    elif fs is not None and fs.exact:
        delta = float(fs.dataset_phi.sum() / n) if n else 0.0  # free with the features
    else:
        delta = float(profile(sf, workers=workers, progress=progress).sum() / n)
    per_feature = None
    if fs is not None:
        per_feature = {
            nm: FeatureDimension(float(dl), _num(float(v)), int(r))
            for nm, dl, v, r in zip(fs.names, fs.delta, fs.nid, fs.rank, strict=True)
        }
        if not fs.exact and fs.nid_bounds is not None and fs.support is not None:
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
        if hop_support is not None:
            worst = max(r.bounds.relative_error for r in res if r.bounds is not None)
            warnings.append(
                f"hop IDs are midpoints of certified bounds (largest relative error {worst:.3g})"
            )
    result = IntrinsicDimensionResult(
        n=n,
        d=d,
        observable_diameter=float(sf.od),
        discriminability=delta,
        id=None if delta is None else _num(id_from_delta(delta)),
        exact=want_exact,
        bounds=None if b is None else CertifiedBounds.of(b),
        features=per_feature,
        hops=None if res is None else [HopDimension.of(r) for r in res],
        warnings=warnings,
    )
    return Analysis(result, b, fs, res)


# --- the document (rdflib only from here, when one is asked for) ------------------------

KIND = IntrinsicDimensionResult.KIND
PRODUCER = "reprokg.intrinsic_dimension"
#: the distributions whose versions an estimate records
SOFTWARE = ("numpy",)


def options_key(result: IntrinsicDimensionResult, score: str) -> str:
    """What was computed, for the source key: exact/support, features, hops."""
    parts = []
    if result.bounds is not None:
        parts.append(f"support={len(result.bounds.support)}")
    parts.append("exact" if result.exact else "bounded")
    if result.features is not None:
        parts.append(f"features={score}")
    if result.hops is not None:
        parts.append(f"hops={len(result.hops) - 1}")
    return ",".join(parts)


def source_key(result: IntrinsicDimensionResult, source: DataSource) -> str:
    cols = "all" if not source.columns else "|".join(source.columns)
    return f"{KIND}:{source.dataset.iri}:{cols}:{options_key(result, source.score)}"


def _finite(x: Any) -> bool:
    return x is not None and math.isfinite(float(x))


def result_document(result: IntrinsicDimensionResult) -> Document:
    """The result as a Document of kind ``intrinsic-dimension`` (what it holds:
    :mod:`reprokg.intrinsic_dimension.document`), through the one result-document builder.
    rdflib and the builder are imported here, when a document is asked for."""
    from rdflib import Literal, URIRef
    from rdflib.namespace import RDF, RDFS

    from reprokg.core.computed import Computation, software_versions
    from reprokg.core.computed import result_document as build
    from reprokg.core.errors import UsageError
    from reprokg.core.hashing import stable_key
    from reprokg.core.identifiers import mint
    from reprokg.core.namespaces import RK, new_graph

    _double, _int = _literals()
    source = result.source
    if source is None:
        raise UsageError("an intrinsic-dimension result is stored with the data it came from")
    key = source_key(result, source)
    sid = stable_key(key)
    est = mint(KIND, sid)
    g = new_graph()
    g.add((est, RDF.type, RK.IntrinsicDimensionEstimate))
    g.add((est, RDFS.label, Literal(f"intrinsic dimension of {source.file_name}")))
    ds = URIRef(source.dataset.iri)
    g.add((est, RK.ofDataSet, ds))
    g.add((ds, RDF.type, RK.DataSet))
    if source.dataset.doi_as_written:
        g.add((ds, RK.doiAsWritten, Literal(source.dataset.doi_as_written)))
    if source.dataset.name:
        g.add((ds, RK.dataSetName, Literal(source.dataset.name)))
    data_file = mint("data-file", source.sha256)
    g.add((data_file, RDF.type, RK.DataFile))
    g.add((data_file, RK.dataFileName, Literal(source.file_name)))
    g.add((data_file, RK.dataFileSha256, Literal(source.sha256)))
    g.add((est, RK.computedFrom, data_file))
    if source.columns:
        g.add((est, RK.selectedColumns, Literal(",".join(source.columns))))
    _describe(
        g,
        est,
        n=result.n,
        d=result.d,
        od=result.observable_diameter,
        exact=result.exact,
        delta=result.discriminability,
        id_=result.id,
        bounds=result.bounds,
    )

    if result.features is not None:
        g.add((est, RK.featureScoreFunction, Literal(source.score)))
        for index, (name, f) in enumerate(result.features.items()):
            node = mint(KIND, f"{sid}-feature-{stable_key(key, name)}")
            g.add((est, RK.hasFeatureDimension, node))
            g.add((node, RDF.type, RK.FeatureIntrinsicDimension))
            g.add((node, RK.featureName, Literal(str(name))))
            g.add((node, RK.featureIndex, _int(index)))
            g.add((node, RK.normalizedDiscriminability, _double(f.delta)))
            if _finite(f.id):
                g.add((node, RK.normalizedIntrinsicDimension, _double(f.id)))
            g.add((node, RK.featureRank, _int(f.rank)))

    for hop in result.hops or []:
        if hop.hop == 0:
            continue  # hop 0 is the estimate itself
        k = hop.hop
        node = mint(KIND, f"{sid}-hop-{k}")
        g.add((est, RK.hasHopDimension, node))
        g.add((node, RDF.type, RK.HopIntrinsicDimension))
        g.add((node, RDFS.label, Literal(f"intrinsic dimension of {source.file_name}, {k} hops")))
        g.add((node, RK.aggregationHops, _int(k)))
        g.add((node, RK.ofDataSet, ds))
        g.add((node, RK.computedFrom, data_file))
        _describe(
            g,
            node,
            n=result.n,
            d=result.d * (k + 1),
            od=result.observable_diameter,
            exact=hop.bounds is None,
            delta=hop.discriminability,
            id_=hop.id if hop.id is not None or hop.bounds is not None else hop.value,
            bounds=hop.bounds,
        )

    payload = json.dumps(
        {
            "result": result.to_json(),
            "data_file": {"name": source.file_name, "sha256": source.sha256},
            "dataset": str(ds),
            "columns": list(source.columns) if source.columns else None,
            "score": source.score,
        },
        allow_nan=False,
    )
    g.add((est, RDF.value, Literal(payload, datatype=RDF.JSON)))
    computation = Computation(
        label="intrinsic dimension (reprokg intrinsic-dimension)",
        key=key,
        used=(data_file,),
        software=software_versions(*SOFTWARE),
        parameters={
            "exact": str(result.exact).lower(),
            "support": None if result.bounds is None else str(len(result.bounds.support)),
            "score": source.score if result.features is not None else None,
            "hops": None if result.hops is None else str(len(result.hops) - 1),
            "columns": ",".join(source.columns) if source.columns else None,
        },
    )
    # the payload names the document (the stored JSON's key order is the API answer's)
    return build(
        kind=KIND,
        subject=est,
        graph=g,
        computation=computation,
        source=payload.encode("utf-8"),
        source_key=key,
        source_name=f"intrinsic-dimension-{source.sha256[:12]}.json",
        producer=PRODUCER,
    )


def _literals() -> tuple[Any, Any]:
    """xsd:double and xsd:integer literals (rdflib imported when a document is made)."""
    from rdflib import Literal
    from rdflib.namespace import XSD

    def double(x: float) -> Literal:
        return Literal(float(x), datatype=XSD.double)

    def integer(x: int) -> Literal:
        return Literal(int(x), datatype=XSD.integer)

    return double, integer


def _describe(
    g: Graph,
    node: Any,
    *,
    n: int,
    d: int,
    od: float,
    exact: bool,
    delta: float | None,
    id_: float | None,
    bounds: CertifiedBounds | None,
) -> None:
    """n, d, OD, exact value or bounds of one estimate node."""
    from rdflib import Literal

    from reprokg.core.namespaces import RK

    _double, _int = _literals()
    g.add((node, RK.numberOfPoints, _int(n)))
    g.add((node, RK.numberOfFeatures, _int(d)))
    g.add((node, RK.observableDiameter, _double(od)))
    g.add((node, RK.isApproximated, Literal(not exact)))
    if delta is not None:
        g.add((node, RK.discriminability, _double(delta)))
    if _finite(id_):
        g.add((node, RK.intrinsicDimensionValue, _double(id_)))
    if bounds is not None:
        lo, hi = bounds.discriminability
        g.add((node, RK.discriminabilityLowerBound, _double(lo)))
        g.add((node, RK.discriminabilityUpperBound, _double(hi)))
        id_lo, id_hi = bounds.id
        if _finite(id_lo):
            g.add((node, RK.intrinsicDimensionLowerBound, _double(id_lo)))
        if _finite(id_hi):
            g.add((node, RK.intrinsicDimensionUpperBound, _double(id_hi)))
        if _finite(bounds.relative_error):
            g.add((node, RK.relativeError, _double(bounds.relative_error)))
        g.add((node, RK.supportSequenceLength, _int(len(bounds.support))))
