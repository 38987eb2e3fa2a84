"""``POST /measures/intrinsic-dimension`` (upload a data file, get its geometric intrinsic
dimension, optionally store it) and ``GET /measures/intrinsic-dimension/{result_id}``.

POST takes ``multipart/form-data``: the file ``data`` (a CSV with a header row, a ``.npy``
or a ``.npz``, told apart by the file name), optionally the file ``graph`` (an edge list)
and the options of ``reprokg intrinsic-dimension`` as form fields. The answer is the
command's JSON (``n``, ``d``, ``observable_diameter``, ``discriminability``, ``id``,
``exact``, ``bounds``, ``features``, ``hops``, ``warnings``) plus ``stored``: ``null``, or
with ``save=true`` where the result went (its IRI, the ``result_id`` GET takes, the data
set, the file's name and sha256). Saving writes to the store, so it needs the bearer token
(401 without, 403 wrong); computing alone does not. Files are limited like every upload
(``Settings.max_body_bytes``, 413). Handlers are plain ``def``: the computation and the
store calls block, so they run in the thread pool.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, File, Form, Request, Response, UploadFile, status
from pydantic import BaseModel, Field

from reprokg.core.errors import TooLarge, UsageError
from reprokg.core.settings import Settings
from reprokg.intrinsic_dimension.result import IntrinsicDimensionJSON
from reprokg.service.deps import (
    OPTIONAL_WRITE_SECURITY,
    SettingsDep,
    StoreDep,
    check_write_token,
    error_responses,
)
from reprokg.service.shapes import describe

router = APIRouter(prefix="/measures/intrinsic-dimension", tags=["measures"])


class DataFileModel(BaseModel):
    name: str
    sha256: str


class StoredModel(BaseModel):
    iri: str = Field(description="the estimate's IRI (rk:IntrinsicDimensionEstimate)")
    result_id: str = Field(description="what GET /measures/intrinsic-dimension/{result_id} takes")
    status: str = Field(description="added, revised, unchanged (POST) or stored (GET)")
    dataset: str = Field(description="the data set's IRI (rk:ofDataSet)")
    data_file: DataFileModel
    columns: list[str] | None
    score: str | None = Field(description="the per-feature score, when features were computed")


class IntrinsicDimensionAnswer(IntrinsicDimensionJSON):
    """The result of ``reprokg intrinsic-dimension --format json`` plus ``stored``."""

    stored: StoredModel | None


describe(IntrinsicDimensionAnswer)


def _read(upload: UploadFile, settings: Settings, field: str) -> tuple[str, bytes]:
    data = upload.file.read(settings.max_body_bytes + 1)
    name = upload.filename or field
    if len(data) > settings.max_body_bytes:
        raise TooLarge(
            f"file larger than the limit of {settings.max_body_bytes} bytes",
            source=name,
            details={"limit": settings.max_body_bytes},
        )
    return name, data


@router.post(
    "",
    response_model=IntrinsicDimensionAnswer,
    status_code=status.HTTP_200_OK,
    responses={
        201: {
            "model": IntrinsicDimensionAnswer,
            "description": "computed and stored",
            "links": {
                "GetIntrinsicDimension": {
                    "operationId": "get_intrinsic_dimension",
                    "parameters": {"result_id": "$response.body#/stored/result_id"},
                }
            },
        },
        **error_responses(400, 401, 403, 413, 422, 429, 503, 507),
    },
    summary="Geometric intrinsic dimension of an uploaded data file (stored with save=true)",
    openapi_extra=OPTIONAL_WRITE_SECURITY,
)
def post_intrinsic_dimension(
    request: Request,
    response: Response,
    store: StoreDep,
    settings: SettingsDep,
    data: Annotated[UploadFile, File(description="CSV (header row), .npy or .npz")],
    graph: Annotated[
        UploadFile | None, File(description="edge list CSV (two columns of row indices)")
    ] = None,
    exact: Annotated[bool, Form(description="the exact value (with support: refined)")] = False,
    support: Annotated[int | None, Form(ge=2, description="support-sequence length")] = None,
    features: Annotated[bool, Form(description="per-feature scores and ranks")] = False,
    score: Annotated[Literal["fscod", "range"], Form(description="per-feature score")] = "fscod",
    hops: Annotated[int | None, Form(ge=0, description="ID after 1..K hops (with graph)")] = None,
    columns: Annotated[str | None, Form(description="feature columns, comma-separated")] = None,
    array: Annotated[str | None, Form(description="the array of an .npz")] = None,
    dataset: Annotated[str | None, Form(description="the data set's DOI or IRI")] = None,
    save: Annotated[bool, Form(description="store the result (bearer token)")] = False,
) -> dict:
    if save:
        check_write_token(settings, request.headers.get("authorization"))
    if (hops is None) != (graph is None):
        raise UsageError("hops and graph go together")

    from reprokg.ingest import write_result
    from reprokg.intrinsic_dimension.document import dataset_ref, stored_answer
    from reprokg.service.analysis import get_analyses

    if save or dataset:
        dataset_ref(dataset, "0" * 64)  # a bad data set is a 400 before any computing
    name, raw = _read(data, settings, "data")
    cols = [c.strip() for c in columns.split(",") if c.strip()] if columns else None
    graph_upload = _read(graph, settings, "graph") if graph is not None else None
    # the upload is parsed and the estimate computed in an analysis worker (a time and a
    # memory limit: an anonymous client chooses the data, service/analysis.py)
    source, sha256, result = get_analyses(request).compute(
        _estimate, name, raw, cols, array, graph_upload, exact, support, features, score, hops
    )
    out = result.to_json()
    out["stored"] = None
    if save:
        ref = dataset_ref(dataset, sha256)
        kept = result.stored(
            file_name=source, sha256=sha256, dataset=ref, columns=cols, score=score
        )
        out["stored"] = stored_answer(kept, write_result(store, kept))
        response.status_code = status.HTTP_201_CREATED
    return out


@router.get(
    "/{result_id}",
    operation_id="get_intrinsic_dimension",
    response_model=IntrinsicDimensionAnswer,
    responses=error_responses(404),
    summary="A stored intrinsic-dimension result, as it was computed",
)
def get_intrinsic_dimension(result_id: str, store: StoreDep) -> dict:
    from reprokg.intrinsic_dimension.document import stored_result

    return stored_result(store, result_id)


def _estimate(
    name: str,
    raw: bytes,
    cols: list[str] | None,
    array: str | None,
    graph_upload: tuple[str, bytes] | None,
    exact: bool,
    support: int | None,
    features: bool,
    score: str,
    hops: int | None,
) -> tuple[str, str, object]:
    """The uploaded data read and its intrinsic dimension computed (in an analysis worker):
    the file's name and sha256, and the result."""
    from reprokg.intrinsic_dimension.features import SCORES
    from reprokg.intrinsic_dimension.io import read_data, read_edges
    from reprokg.intrinsic_dimension.result import analysis, default_support

    table = read_data(name, columns=cols, array=array, raw=raw, name=name)
    edges = None
    if graph_upload is not None:
        gname, graw = graph_upload
        edges = read_edges(gname, table.n, raw=graw, name=gname)
    done = analysis(
        table.values,
        table.names,
        support=default_support(table.n, exact=exact, support=support),
        exact=exact,
        features=features,
        score=SCORES[score],
        hops=hops,
        edges=edges,
    )
    return table.source, table.sha256, done.result
