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

from typing import Annotated, Any, Literal, get_args

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, Field

from reprokg.core.errors import UsageError
from reprokg.core.settings import Settings
from reprokg.service.analysis import get_analyses
from reprokg.service.deps import (
    OPTIONAL_WRITE_SECURITY,
    ReadStoreDep,
    SettingsDep,
    StoreDep,
    check_write_token,
    error_responses,
)
from reprokg.service.results import StoredModel, store_result
from reprokg.store.base import Store

router = APIRouter(prefix="/measures/qra", tags=["measures"])

Origin = Literal["audit", "comparison", "reported", "stability"]
#: every origin, in the order measures.qra.ORIGINS names them (numpy is not loaded at start)
ORIGINS: tuple[Origin, ...] = get_args(Origin)


class MeasurementModel(BaseModel):
    value: float
    role: Literal["original", "reproduction", "run"]
    source: str = Field(description="the node the value was read from")
    label: str = Field(description="who measured it")
    run: str | None = None


class QuantityModel(BaseModel):
    """One measured quantity, its measurements and CV* (null with a warning when undefined)."""

    key: str
    origin: Origin
    paper: str | None
    measure: str
    label: str
    parts: dict[str, str] = Field(description="what defines the quantity besides the measure")
    scale_min: float = Field(description="subtracted from every value before CV*")
    n: int
    measurements: list[MeasurementModel]
    mean: float | None
    sd: float | None = Field(description="unbiased standard deviation s / c4(n)")
    sd_low: float | None
    sd_high: float | None
    cv: float | None
    cv_star: float | None = Field(description="CV* in percent; 0 = reproduced exactly")
    cv_star_low: float | None
    cv_star_high: float | None
    within_one_sd: float | None = None
    within_two_sd: float | None = None
    warnings: list[str]


class AgreementModel(BaseModel):
    """QRA++: one reproduction against the original over a set of quantities."""

    paper: str | None
    measure: str
    origin: Origin
    reproduction: str
    label: str
    quantities: list[str]
    n: int
    pearson_r: float | None
    spearman_rho: float | None
    kendall_tau: float | None


class ConcordanceModel(BaseModel):
    paper: str | None
    measure: str
    origin: Origin
    sources: list[str]
    quantities: list[str]
    kendall_w: float | None


class QRAModel(BaseModel):
    """The assessment (``reprokg qra --format json``) and, when saved, where it went."""

    paper: str | None
    measures: list[str]
    origins: list[Origin]
    level: float
    scale_min: dict[str, float]
    quantities: list[QuantityModel]
    agreements: list[AgreementModel]
    concordances: list[ConcordanceModel]
    warnings: list[str]
    stored: StoredModel | None = None


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
) -> Any:
    """The assessment (in an analysis worker, service/analysis.py: it reads the store)."""
    from reprokg.measures.qra import assess

    return assess(store, paper, measures, origins=origins, scale_min=scale_min, level=level)


def _assess(
    request: Request, response: Response, store: Store, settings: Settings, body: QRARequest
) -> dict[str, Any]:
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
    out = result.to_json()
    if body.save and result.quantities:
        out["stored"] = store_result(store, result)
        response.status_code = 201
    return out


@router.get("", response_model=QRAModel, responses=error_responses(400, 413, 503))
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
) -> dict[str, Any]:
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
    response_model=QRAModel,
    responses={
        201: {"description": "computed and stored (save=true)"},
        **error_responses(400, 401, 403, 413, 422, 503),
    },
    openapi_extra=OPTIONAL_WRITE_SECURITY,
)
def post_qra(
    body: QRARequest, request: Request, response: Response, store: StoreDep, settings: SettingsDep
) -> dict[str, Any]:
    """As GET, from a JSON body; with ``save: true`` (bearer token) the assessment is
    stored as a ``qra`` document (201)."""
    return _assess(request, response, store, settings, body)
