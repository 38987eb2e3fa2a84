"""``/measures/qra``: the quantified reproducibility assessment of a paper's (or a
measure's) quantities the graph holds an original and reproductions of (``reprokg qra``).

GET computes; POST computes from a JSON body and, with ``save: true`` and the bearer
token, stores the result as a ``qra`` document (201). The computation runs in an analysis
worker (``analysis_timeout``, ``analysis_memory_mb``: service/analysis.py); the store is
written here. The response models document the
JSON (the same object as ``reprokg qra --format json``). Handlers are plain ``def``: the
SPARQL and the numbers block, so they run in the thread pool. Errors are the
``ReprokgError`` tree (a bad DOI, an unknown origin or a level outside (0, 1): 400).
"""

from __future__ import annotations

from typing import Annotated, cast, get_args

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, Field

from reprokg.core.errors import UsageError
from reprokg.core.settings import Settings
from reprokg.ingest import write_result
from reprokg.measures.qra import QRAJSON, Origin, QRAResult
from reprokg.service.analysis import get_analyses
from reprokg.service.deps import (
    OPTIONAL_WRITE_SECURITY,
    ReadStoreDep,
    SettingsDep,
    StoreDep,
    check_write_token,
    error_responses,
)
from reprokg.service.shapes import describe
from reprokg.service.stored import StoredModel, stored_json
from reprokg.store.base import Store

router = APIRouter(prefix="/measures/qra", tags=["measures"])

#: every origin, in the order measures.qra.ORIGINS names them (numpy is not loaded at start)
ORIGINS: tuple[Origin, ...] = get_args(Origin)


class QRAAnswer(QRAJSON, total=False):
    """The assessment (``reprokg qra --format json``) and, when saved, where it went."""

    stored: StoredModel | None


describe(QRAAnswer)


class QRARequest(BaseModel):
    paper: str | None = Field(None, description="a DOI (any form) or the paper's IRI")
    measures: list[str] = Field(default_factory=list, description="only these measures")
    origins: list[Origin] = Field(default_factory=lambda: list(ORIGINS))
    scale_min: dict[str, float] = Field(
        default_factory=dict,
        description="a measure's lowest value (key '' for every measure); default 0",
    )
    level: float = Field(0.95, gt=0, lt=1)
    save: bool = Field(default=False, description="store the result (needs the bearer token)")


def qra_result(
    store: Store,
    paper: str | None,
    measures: list[str],
    origins: list[str],
    scale_min: dict[str, float],
    level: float,
) -> QRAResult:
    """The assessment (in an analysis worker, service/analysis.py: it reads the store)."""
    from reprokg.measures.qra import assess

    return assess(store, paper, measures, origins=origins, scale_min=scale_min, level=level)


def _assess(
    request: Request, response: Response, store: Store, settings: Settings, body: QRARequest
) -> QRAAnswer:
    """GET's and POST's one handler: the bearer token checked before any computing
    (``save``), computed in an analysis worker, stored here, 201 when stored."""
    from reprokg.measures.qra import paper_iri

    if body.save:
        check_write_token(settings, request.headers.get("authorization"))
    if not body.paper and not body.measures:
        raise UsageError("give a paper (a DOI) or a measure, or both")
    paper = paper_iri(body.paper) if body.paper else None
    result = get_analyses(request).run(
        request, qra_result, paper, body.measures, body.origins, body.scale_min, body.level
    )
    out = cast(QRAAnswer, result.to_json())
    out["stored"] = None  # where the result went, when saved
    if body.save and result.quantities:
        out["stored"] = StoredModel(**stored_json(write_result(store, result)))
        response.status_code = 201
    return out


@router.get("", response_model=QRAAnswer, responses=error_responses(400, 413, 503))
def qra(
    request: Request,
    response: Response,
    store: ReadStoreDep,
    settings: SettingsDep,
    paper: Annotated[str | None, Query(description="a DOI (any form) or the paper's IRI")] = None,
    measure: Annotated[list[str] | None, Query(description="only these measures")] = None,
    origin: Annotated[list[Origin] | None, Query(description="only these origins")] = None,
    scale_min: Annotated[
        list[str] | None, Query(description="MIN (every measure) or MEASURE=MIN, repeatable")
    ] = None,
    level: Annotated[float, Query(gt=0, lt=1, description="confidence level")] = 0.95,
) -> QRAAnswer:
    """CV* with its interval of every quantity measured by an original and reproductions
    (audits, stored comparisons, runs' reported scores, stability studies), and QRA++'s
    agreements of sets."""
    from reprokg.measures.qra import scale_minima

    body = QRARequest(
        paper=paper,
        measures=measure or [],
        origins=origin or list(ORIGINS),
        scale_min=scale_minima(scale_min or []),
        level=level,
    )
    return _assess(request, response, store, settings, body)


@router.post(
    "",
    response_model=QRAAnswer,
    responses={
        201: {"description": "computed and stored (save=true)"},
        **error_responses(400, 401, 403, 413, 422, 503),
    },
    openapi_extra=OPTIONAL_WRITE_SECURITY,
)
def post_qra(
    body: QRARequest, request: Request, response: Response, store: StoreDep, settings: SettingsDep
) -> QRAAnswer:
    """As GET, from a JSON body; with ``save: true`` (bearer token) the assessment is
    stored as a ``qra`` document (201)."""
    return _assess(request, response, store, settings, body)
