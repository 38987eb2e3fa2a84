"""An intrinsic-dimension result as linked data: a document linked to its data set.

``result_document`` turns the JSON of :func:`reprokg.intrinsic_dimension.result.analyse`
into one :class:`~reprokg.core.document.Document` of kind ``intrinsic-dimension``
(validated against ``shapes/intrinsic-dimension.ttl``), and :func:`save_result` writes it
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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rdflib import Literal, URIRef
from rdflib.namespace import RDF, RDFS, XSD

from reprokg import __version__
from reprokg.core.document import Document
from reprokg.core.errors import IdentifierError, NotFound
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import doi_iri, is_doi, mint
from reprokg.core.namespaces import RK, new_graph
from reprokg.ingest import write_results
from reprokg.sparql.named import package_query
from reprokg.store.base import SelectResult, Store

KIND = "intrinsic-dimension"
LOADER = "reprokg.intrinsic_dimension"
_IRI_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|\\^`]+$")


@dataclass(frozen=True)
class DataSetRef:
    """The data set a result is about: its IRI and, for a DOI, the DOI as written."""

    iri: URIRef
    doi_as_written: str | None = None
    minted: bool = False


def dataset_ref(value: str | None, sha256: str) -> DataSetRef:
    """``--dataset``: a DOI (bare, ``doi:`` or ``https://doi.org/…``) or an absolute IRI;
    without one, a data set minted from the data file's sha256."""
    if value is None or not str(value).strip():
        return DataSetRef(mint("dataset", f"sha256-{sha256}"), minted=True)
    text = str(value).strip()
    if is_doi(text):
        return DataSetRef(doi_iri(text), doi_as_written=text)
    if _IRI_RE.match(text) and not text.lower().startswith("doi:"):
        return DataSetRef(URIRef(text))
    raise IdentifierError(
        f"--dataset {text!r} is neither a DOI (10.<registrant>/<suffix>, doi:…, "
        "https://doi.org/…) nor an absolute IRI (https://…)"
    )


def options_key(result: dict[str, Any]) -> str:
    """What was computed, for the source key: exact/support, features, hops."""
    parts = []
    b = result.get("bounds")
    if b is not None:
        parts.append(f"support={len(b['support'])}")
    parts.append("exact" if result.get("exact") else "bounded")
    if result.get("features") is not None:
        parts.append(f"features={result.get('score', 'fscod')}")
    if result.get("hops") is not None:
        parts.append(f"hops={len(result['hops']) - 1}")
    return ",".join(parts)


def source_key(
    dataset: DataSetRef, columns: Sequence[str] | None, result: dict[str, Any], score: str
) -> str:
    cols = "all" if not columns else "|".join(columns)
    opts = options_key({**result, "score": score})
    return f"{KIND}:{dataset.iri}:{cols}:{opts}"


def _double(x: float) -> Literal:
    return Literal(float(x), datatype=XSD.double)


def _int(x: int) -> Literal:
    return Literal(int(x), datatype=XSD.integer)


def _finite(x: Any) -> bool:
    return x is not None and math.isfinite(float(x))


def result_document(
    result: dict[str, Any],
    *,
    file_name: str,
    sha256: str,
    dataset: DataSetRef,
    columns: Sequence[str] | None = None,
    score: str = "fscod",
    hop_details: dict[str, dict[str, Any]] | None = None,
) -> Document:
    """The result as a Document of kind ``intrinsic-dimension`` (see the module docstring)."""
    key = source_key(dataset, columns, result, score)
    sid = stable_key(key)
    est = mint(KIND, sid)
    g = new_graph()
    g.add((est, RDF.type, RK.IntrinsicDimensionEstimate))
    g.add((est, RDFS.label, Literal(f"intrinsic dimension of {file_name}")))
    ds = dataset.iri
    g.add((est, RK.ofDataSet, ds))
    g.add((ds, RDF.type, RK.DataSet))
    if dataset.doi_as_written:
        g.add((ds, RK.doiAsWritten, Literal(dataset.doi_as_written)))
    data_file = mint("data-file", sha256)
    g.add((data_file, RDF.type, RK.DataFile))
    g.add((data_file, RK.dataFileName, Literal(file_name)))
    g.add((data_file, RK.dataFileSha256, Literal(sha256)))
    g.add((est, RK.computedFrom, data_file))
    if columns:
        g.add((est, RK.selectedColumns, Literal(",".join(columns))))
    _describe(g, est, result, result["d"])

    features = result.get("features")
    if features is not None:
        g.add((est, RK.featureScoreFunction, Literal(score)))
        for index, (name, f) in enumerate(features.items()):
            node = mint(KIND, f"{sid}-feature-{stable_key(key, name)}")
            g.add((est, RK.hasFeatureDimension, node))
            g.add((node, RDF.type, RK.FeatureIntrinsicDimension))
            g.add((node, RK.featureName, Literal(str(name))))
            g.add((node, RK.featureIndex, _int(index)))
            g.add((node, RK.normalizedDiscriminability, _double(f["delta"])))
            if _finite(f["id"]):
                g.add((node, RK.normalizedIntrinsicDimension, _double(f["id"])))
            g.add((node, RK.featureRank, _int(f["rank"])))

    hops = result.get("hops")
    if hops is not None:
        details = hop_details or {}
        for hop, value in hops.items():
            k = int(hop)
            if k == 0:
                continue  # hop 0 is the estimate itself
            node = mint(KIND, f"{sid}-hop-{k}")
            g.add((est, RK.hasHopDimension, node))
            g.add((node, RDF.type, RK.HopIntrinsicDimension))
            g.add((node, RDFS.label, Literal(f"intrinsic dimension of {file_name}, {k} hops")))
            g.add((node, RK.aggregationHops, _int(k)))
            g.add((node, RK.ofDataSet, ds))
            g.add((node, RK.computedFrom, data_file))
            detail = details.get(hop) or {"discriminability": None, "id": value, "bounds": None}
            hop_result = {
                "n": result["n"],
                "observable_diameter": result["observable_diameter"],
                "exact": detail["bounds"] is None,
                **detail,
            }
            _describe(g, node, hop_result, result["d"] * (k + 1))

    payload = json.dumps(
        {
            "result": result,
            "data_file": {"name": file_name, "sha256": sha256},
            "dataset": str(ds),
            "columns": list(columns) if columns else None,
            "score": score,
        },
        allow_nan=False,
    )
    g.add((est, RDF.value, Literal(payload, datatype=RDF.JSON)))
    return Document(
        kind=KIND,
        graph=g,
        source_name=f"intrinsic-dimension-{sha256[:12]}.json",
        source_bytes=payload.encode("utf-8"),
        loader=LOADER,
        loader_version=__version__,
        source_key=key,
        subject=est,
    )


def _describe(g: Any, node: URIRef, result: dict[str, Any], d: int) -> None:
    """n, d, OD, exact value or bounds of one estimate node."""
    g.add((node, RK.numberOfPoints, _int(result["n"])))
    g.add((node, RK.numberOfFeatures, _int(d)))
    g.add((node, RK.observableDiameter, _double(result["observable_diameter"])))
    g.add((node, RK.isApproximated, Literal(not result["exact"])))
    if result.get("discriminability") is not None:
        g.add((node, RK.discriminability, _double(result["discriminability"])))
    if _finite(result.get("id")):
        g.add((node, RK.intrinsicDimensionValue, _double(result["id"])))
    b = result.get("bounds")
    if b is not None:
        lo, hi = b["discriminability"]
        g.add((node, RK.discriminabilityLowerBound, _double(lo)))
        g.add((node, RK.discriminabilityUpperBound, _double(hi)))
        id_lo, id_hi = b["id"]
        if _finite(id_lo):
            g.add((node, RK.intrinsicDimensionLowerBound, _double(id_lo)))
        if _finite(id_hi):
            g.add((node, RK.intrinsicDimensionUpperBound, _double(id_hi)))
        if _finite(b.get("relative_error")):
            g.add((node, RK.relativeError, _double(b["relative_error"])))
        g.add((node, RK.supportSequenceLength, _int(len(b["support"]))))


def save_result(
    store: Store,
    result: dict[str, Any],
    *,
    file_name: str,
    sha256: str,
    dataset: DataSetRef,
    columns: Sequence[str] | None = None,
    score: str = "fscod",
    hop_details: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Validate and store the result (revising an earlier one of the same source key);
    returns the ``stored`` object of the API answer: ``{"iri", "result_id", "status",
    "dataset", "data_file": {"name", "sha256"}, "columns", "score"}``."""
    doc = result_document(
        result,
        file_name=file_name,
        sha256=sha256,
        dataset=dataset,
        columns=columns,
        score=score,
        hop_details=hop_details,
    )
    outcome = write_results(store, [doc])
    status = outcome.documents[0].status if outcome.documents else "stored"
    assert doc.subject is not None
    return {
        "iri": str(doc.subject),
        "result_id": str(doc.subject).rsplit("/", 1)[-1],
        "status": status,
        "dataset": str(dataset.iri),
        "data_file": {"name": file_name, "sha256": sha256},
        "columns": list(columns) if columns else None,
        "score": score if result.get("features") is not None else None,
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
