"""An intrinsic-dimension result as linked data: a document linked to its data set.

``IntrinsicDimensionResult.document()`` (:mod:`reprokg.intrinsic_dimension.result`) turns a
result (with its :class:`~reprokg.intrinsic_dimension.result.DataSource`) into one
:class:`~reprokg.core.document.Document` of kind ``intrinsic-dimension`` (validated
against ``shapes/intrinsic-dimension.ttl``) through the one result-document builder
(:func:`reprokg.core.computed.result_document`), written through
:func:`reprokg.ingest.write_result` like every computed result (:func:`stored_answer` is
what the answer says of the write):

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
import re
from typing import Any

from reprokg.core.errors import IdentifierError, NotFound
from reprokg.core.identifiers import doi_iri, is_doi, mint
from reprokg.ingest import DocumentOutcome
from reprokg.intrinsic_dimension.result import (
    DataSetRef,
    IntrinsicDimensionResult,
)
from reprokg.sparql.named import package_query
from reprokg.store.base import SelectResult, Store

KIND = IntrinsicDimensionResult.KIND
#: a data set's IRI: an http(s) URL (pages link it, and a ``javascript:`` IRI linked runs
#: in the reader's browser) without the characters RFC 3987 excludes
_IRI_RE = re.compile(r"^https?://[^\s<>\"{}|\\^`]+$", re.IGNORECASE)


def dataset_ref(value: str | None, sha256: str, name: str | None = None) -> DataSetRef:
    """``--dataset``: a DOI (bare, ``doi:`` or ``https://doi.org/…``) or an absolute IRI;
    without one, a data set minted from the data file's sha256. ``name``
    (``--dataset-name``) is stored as its ``rk:dataSetName``."""
    name = name.strip() if name and name.strip() else None
    if value is None or not str(value).strip():
        return DataSetRef(str(mint("dataset", f"sha256-{sha256}")), minted=True, name=name)
    text = str(value).strip()
    if is_doi(text):
        return DataSetRef(str(doi_iri(text)), doi_as_written=text, name=name)
    if _IRI_RE.match(text) and not text.lower().startswith("doi:"):
        return DataSetRef(text, name=name)
    raise IdentifierError(
        f"--dataset {text!r} is neither a DOI (10.<registrant>/<suffix>, doi:…, "
        "https://doi.org/…) nor an http(s) IRI (https://…)"
    )


def stored_answer(result: IntrinsicDimensionResult, outcome: DocumentOutcome) -> dict[str, Any]:
    """The ``stored`` object of the API answer once :func:`reprokg.ingest.write_result`
    stored ``result``: ``{"iri", "result_id", "status", "dataset", "data_file": {"name",
    "sha256"}, "columns", "score"}``."""
    source = result.source
    assert outcome.subject is not None and source is not None
    return {
        "iri": str(outcome.subject),
        "result_id": str(outcome.subject).rsplit("/", 1)[-1],
        "status": outcome.status,
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
