"""An intrinsic-dimension result as linked data: a document linked to its data set.

``result_document`` turns an :class:`~reprokg.intrinsic_dimension.result.IntrinsicDimensionResult`
(with its :class:`~reprokg.intrinsic_dimension.result.DataSource`) into one
:class:`~reprokg.core.document.Document` of kind ``intrinsic-dimension`` (validated
against ``shapes/intrinsic-dimension.ttl``) through the one result-document builder
(:func:`reprokg.core.results.result_document`), and :func:`save_result` writes it
through :func:`reprokg.ingest.write_results` like every computed result:

- the estimate (``rk:IntrinsicDimensionEstimate``) is about one data set
  (``rk:ofDataSet``: ``https://doi.org/…`` for a DOI, the IRI given, or a data set minted
  from the data file's sha256 when none is given) and was computed from one
  ``rk:DataFile`` (its name and sha256: provenance of the exact bytes);
- n, d, the observable diameter, the exact Δ and ID or the certified bounds, relative
  error and number of support points, and the per-feature score function;
- one ``rk:FeatureIntrinsicDimension`` per feature (name, column index, δ, NID, rank) and
  one ``rk:HopIntrinsicDimension`` per hop k ≥ 1, so SPARQL can ask which data sets have
  an ID above x and which features a feature-discard experiment removed
  (``queries/datasets-by-intrinsic-dimension.rq``, ``queries/discarded-features.rq``);
- the whole JSON result as an ``rdf:JSON`` literal, which ``GET
  /measures/intrinsic-dimension/{id}`` returns as it was computed.

The estimate's IRI is minted from its source key (data set, columns, options), so a new
computation of the same data set with the same options revises the stored one
(``prov:wasRevisionOf``) and keeps the IRI feature-discard experiments link to; the same
result again is unchanged.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF, RDFS, XSD

from reprokg.core.document import Document
from reprokg.core.errors import IdentifierError, NotFound, UsageError
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import doi_iri, is_doi, mint
from reprokg.core.namespaces import RK, new_graph
from reprokg.core.results import Computation, software_versions
from reprokg.core.results import result_document as build
from reprokg.ingest import write_results
from reprokg.intrinsic_dimension.result import (
    CertifiedBounds,
    DataSetRef,
    DataSource,
    IntrinsicDimensionResult,
)
from reprokg.sparql.named import package_query
from reprokg.store.base import SelectResult, Store

KIND = IntrinsicDimensionResult.KIND
PRODUCER = "reprokg.intrinsic_dimension"
#: the distributions whose versions an estimate records
SOFTWARE = ("numpy",)
_IRI_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|\\^`]+$")


def dataset_ref(value: str | None, sha256: str) -> DataSetRef:
    """``--dataset``: a DOI (bare, ``doi:`` or ``https://doi.org/…``) or an absolute IRI;
    without one, a data set minted from the data file's sha256."""
    if value is None or not str(value).strip():
        return DataSetRef(str(mint("dataset", f"sha256-{sha256}")), minted=True)
    text = str(value).strip()
    if is_doi(text):
        return DataSetRef(str(doi_iri(text)), doi_as_written=text)
    if _IRI_RE.match(text) and not text.lower().startswith("doi:"):
        return DataSetRef(text)
    raise IdentifierError(
        f"--dataset {text!r} is neither a DOI (10.<registrant>/<suffix>, doi:…, "
        "https://doi.org/…) nor an absolute IRI (https://…)"
    )


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


def _double(x: float) -> Literal:
    return Literal(float(x), datatype=XSD.double)


def _int(x: int) -> Literal:
    return Literal(int(x), datatype=XSD.integer)


def _finite(x: Any) -> bool:
    return x is not None and math.isfinite(float(x))


def result_document(result: IntrinsicDimensionResult) -> Document:
    """The result as a Document of kind ``intrinsic-dimension`` (see the module docstring)."""
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
                g.add((node, RK.normalizedIntrinsicDimension, _double(f.id)))  # type: ignore[arg-type]
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


def _describe(
    g: Graph,
    node: URIRef,
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
    g.add((node, RK.numberOfPoints, _int(n)))
    g.add((node, RK.numberOfFeatures, _int(d)))
    g.add((node, RK.observableDiameter, _double(od)))
    g.add((node, RK.isApproximated, Literal(not exact)))
    if delta is not None:
        g.add((node, RK.discriminability, _double(delta)))
    if _finite(id_):
        g.add((node, RK.intrinsicDimensionValue, _double(id_)))  # type: ignore[arg-type]
    if bounds is not None:
        lo, hi = bounds.discriminability
        g.add((node, RK.discriminabilityLowerBound, _double(lo)))
        g.add((node, RK.discriminabilityUpperBound, _double(hi)))
        id_lo, id_hi = bounds.id
        if _finite(id_lo):
            g.add((node, RK.intrinsicDimensionLowerBound, _double(id_lo)))  # type: ignore[arg-type]
        if _finite(id_hi):
            g.add((node, RK.intrinsicDimensionUpperBound, _double(id_hi)))  # type: ignore[arg-type]
        if _finite(bounds.relative_error):
            g.add((node, RK.relativeError, _double(bounds.relative_error)))  # type: ignore[arg-type]
        g.add((node, RK.supportSequenceLength, _int(len(bounds.support))))


def save_result(store: Store, result: IntrinsicDimensionResult) -> dict[str, Any]:
    """Validate and store the result (revising an earlier one of the same source key);
    returns the ``stored`` object of the API answer: ``{"iri", "result_id", "status",
    "dataset", "data_file": {"name", "sha256"}, "columns", "score"}``."""
    doc = result.document()
    source = result.source
    assert doc.subject is not None and source is not None
    outcome = write_results(store, [doc])
    status = outcome.documents[0].status if outcome.documents else "stored"
    return {
        "iri": str(doc.subject),
        "result_id": str(doc.subject).rsplit("/", 1)[-1],
        "status": status,
        "dataset": source.dataset.iri,
        "data_file": {"name": source.file_name, "sha256": source.sha256},
        "columns": list(source.columns) if source.columns else None,
        "score": source.score if result.features is not None else None,
    }


STORED_QUERY = "intrinsic_dimension/sparql/stored-result.rq"


def stored_result(store: Store, result_id: str) -> dict[str, Any]:
    """The stored result with this id (the last segment of its IRI): the JSON as computed,
    plus ``stored`` = ``{"iri", "result_id", "status": "stored", "dataset", "data_file",
    "columns", "score"}``."""
    if not re.fullmatch(r"[0-9a-f]{20}", result_id):
        raise NotFound(f"no intrinsic-dimension result {result_id!r} (ids are 20 hex digits)")
    est = mint(KIND, result_id)
    res = store.query(package_query(STORED_QUERY).bind({"estimate": str(est)}))
    assert isinstance(res, SelectResult)
    if not res.rows:
        raise NotFound(f"no intrinsic-dimension result {result_id}")
    stored = json.loads(str(res.rows[0][0]))
    out = dict(stored["result"])
    out["stored"] = {
        "iri": str(est),
        "result_id": result_id,
        "status": "stored",
        "dataset": stored["dataset"],
        "data_file": stored["data_file"],
        "columns": stored["columns"],
        "score": stored["score"] if out.get("features") is not None else None,
    }
    return out
