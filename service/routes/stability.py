"""``GET /measures/stability`` (the stability analysis of a stored study, JSON) and its chart;
``/measures/stability/compare`` and ``/measures/stability/cd`` (seed-variance statistics).

The analysis of seed 003 recomputed from the graph: the study's observations read with
SPARQL, ``value ~ experiment + (1 | seed) + (1 | repeat)`` fitted by REML (or ML), the
random-effects likelihood-ratio tests (H1, H2), the Type III F test of experiment and the
rerun contrasts (H3), every number as lme4 + lmerTest give it. The response models below
document the JSON (the same object as ``reprokg stability --format json``).

Handlers are plain ``def`` (SPARQL, numpy and matplotlib are blocking work for the thread
pool). Errors are the ``ReprokgError`` tree: an unknown study 404, an ambiguous one or an
alpha outside (0, 1) 400, both with the studies there are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, Field

from reprokg.core.errors import UsageError
from reprokg.ingest import write_result
from reprokg.service.analysis import AnalysesDep, get_analyses
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
from reprokg.stability.result import Method, StabilityJSON
from reprokg.stability.shapes import Block, CriticalDifferenceJSON, SeedComparisonJSON, StudyJSON

router = APIRouter(prefix="/measures/stability", tags=["measures"])


describe(StabilityJSON, StudyJSON)


StudyParam = Annotated[
    str | None,
    Query(description="IRI, id or title of the study (default: the only one in the store)"),
]
MethodParam = Annotated[Method, Query(description="REML (default) or ML")]
AlphaParam = Annotated[float, Query(description="significance level of the decisions")]
MetricParam = Annotated[
    str | None, Query(description="the observed metric (default: the only or most observed)")
]
PairParam = Annotated[
    list[str] | None,
    Query(
        description="extra contrasts a:b (experiment names), repeatable",
        # the schema says what _pairs takes (another spelling is a 400 UsageError there)
        json_schema_extra={"items": {"type": "string", "pattern": "^[^:]+:.+$"}},
    ),
]


def _pairs(specs: list[str] | None) -> list[tuple[str, str]]:
    out = []
    for spec in specs or []:
        a, sep, b = spec.partition(":")
        if not sep or not a or not b:
            raise UsageError(f"pair expects a:b (two experiment names), not {spec!r}")
        out.append((a, b))
    return out


def _analyse(store, study, method, alpha, metric, pair):
    from reprokg.stability.study import analyse_study

    return analyse_study(
        store, study, reml=method == "REML", alpha=alpha, metric=metric, pairs=_pairs(pair)
    )


def _analysis_json(store, study, method, alpha, metric, pair) -> dict:
    return _analyse(store, study, method, alpha, metric, pair).result.to_json()


@router.get("", response_model=StabilityJSON, responses=error_responses(400, 404, 413, 503))
def stability_analysis(
    request: Request,
    analyses: AnalysesDep,
    study: StudyParam = None,
    method: MethodParam = "REML",
    alpha: AlphaParam = 0.05,
    metric: MetricParam = None,
    pair: PairParam = None,
) -> dict:
    """The stability analysis of a stored study (seed 003's model and tests, lme4/lmerTest
    numbers)."""
    return analyses.run(request, _analysis_json, study, method, alpha, metric, pair)


@router.get("/studies", response_model=list[StudyJSON])
def stability_studies(store: ReadStoreDep) -> list[StudyJSON]:
    """The stability studies in the store (their ids are what ``study=`` takes)."""
    from reprokg.stability.observations import list_studies

    return [s.to_json() for s in list_studies(store)]


_MEDIA = {"svg": "image/svg+xml", "png": "image/png"}


@router.get(
    "/chart.{fmt}",
    response_class=Response,
    responses={
        200: {"content": {m: {} for m in _MEDIA.values()}},
        **error_responses(400, 404, 413, 503),
    },
)
def stability_chart(
    fmt: Literal["svg", "png"],
    request: Request,
    analyses: AnalysesDep,
    study: StudyParam = None,
    method: MethodParam = "REML",
    alpha: AlphaParam = 0.05,
    metric: MetricParam = None,
) -> Response:
    """Per-experiment model means with 95% intervals, the reruns side by side with their
    contrast's p (``chart.svg`` or ``chart.png``)."""
    body = analyses.run(request, _chart, study, method, alpha, metric, fmt)
    return Response(body, media_type=_MEDIA[fmt])


def _chart(store, study, method, alpha, metric, fmt) -> bytes:
    from reprokg.stability.study import chart

    return chart(_analyse(store, study, method, alpha, metric, None), fmt)


# --------------------------------------------------------------------------- seed variance
# Two experiments compared over their runs, and every experiment ranked over blocks of
# runs (reprokg stability --compare A B / --cd): GET computes, POST computes and, with
# save=true and the bearer token, stores the typed result as its document.


class SeedComparisonAnswer(SeedComparisonJSON, total=False):
    """The comparison, the analysis' notes and, when saved, where it went."""

    notes: list[str]
    stored: StoredModel | None


class CriticalDifferenceAnswer(CriticalDifferenceJSON, total=False):
    """The ranking, the analysis' notes and, when saved, where it went."""

    notes: list[str]
    stored: StoredModel | None


describe(SeedComparisonAnswer, CriticalDifferenceAnswer)


class SeedComparisonRequest(BaseModel):
    a: str = Field(description="an experiment's name")
    b: str
    study: str | None = Field(None, description="IRI, id or title (default: the only one)")
    metric: str | None = None
    seed: int = Field(0, ge=0, description="the bootstrap's seed")
    level: float = Field(0.95, gt=0, lt=1)
    save: bool = Field(False, description="store the result (needs the bearer token)")


class CriticalDifferenceRequest(BaseModel):
    study: str | None = None
    metric: str | None = None
    block: Block = "seed"
    alpha: float = Field(0.05, gt=0, lt=1)
    save: bool = False


def _seed_variance_result(store, kind: str, **kw) -> tuple:
    """The result and its JSON (in an analysis worker, service/analysis.py)."""
    from reprokg.stability.seed_variance import seed_variance

    out, results = seed_variance(store, kw.pop("study"), **kw)
    result = results[kind]
    return result, result.to_json() | {"notes": out["notes"]}


def _seed_variance(request: Request, store, kind: str, save: bool, **kw) -> dict:
    """Computed in an analysis worker; stored here (``save``)."""
    result, body = get_analyses(request).run(request, _seed_variance_result, kind, **kw)
    # where the result went when saved, else null (always in the answer)
    body["stored"] = stored_json(write_result(store, result)) if save else None
    return body


_WRITES: dict[int | str, Any] = {201: {"description": "computed and stored (save=true)"}}


def _saving(
    save: bool, request: Request, response: Response, settings, compute: Callable[[], dict]
) -> dict:
    """A POST that may store: the bearer token checked before any computing, 201 if stored."""
    if save:
        check_write_token(settings, request.headers.get("authorization"))
    out = compute()
    if save:
        response.status_code = 201
    return out


@router.get(
    "/compare",
    response_model=SeedComparisonAnswer,
    responses=error_responses(400, 404, 413, 503),
)
def seed_comparison(
    request: Request,
    store: ReadStoreDep,
    a: Annotated[str, Query(description="the first experiment's name")],
    b: Annotated[str, Query(description="the second experiment's name")],
    study: StudyParam = None,
    metric: MetricParam = None,
    seed: Annotated[int, Query(ge=0, description="the bootstrap's seed")] = 0,
    level: Annotated[float, Query(gt=0, lt=1, description="confidence level")] = 0.95,
) -> dict:
    """ASO both ways, P(A > B) and both IQMs with intervals, over the two experiments' runs."""
    # the query is validated already by FastAPI
    body = SeedComparisonRequest.model_construct(
        a=a, b=b, study=study, metric=metric, seed=seed, level=level
    )
    return _compare(request, store, body)


def _compare(request: Request, store, body: SeedComparisonRequest) -> dict:
    """GET's and POST's ``/compare``: the one forwarding of the parameters."""
    return _seed_variance(
        request,
        store,
        "compare",
        body.save,
        study=body.study,
        metric=body.metric,
        compare=(body.a, body.b),
        seed=body.seed,
        level=body.level,
    )


@router.post(
    "/compare",
    response_model=SeedComparisonAnswer,
    responses=_WRITES | error_responses(400, 401, 403, 404, 413, 422, 503, 507),
    openapi_extra=OPTIONAL_WRITE_SECURITY,
)
def post_seed_comparison(
    body: SeedComparisonRequest,
    request: Request,
    response: Response,
    store: StoreDep,
    settings: SettingsDep,
) -> dict:
    """As GET, from a JSON body; with ``save: true`` (bearer token) the result is stored as
    a ``seed-comparison`` document (201)."""
    return _saving(body.save, request, response, settings, lambda: _compare(request, store, body))


@router.get(
    "/cd",
    response_model=CriticalDifferenceAnswer,
    responses=error_responses(400, 404, 413, 503),
)
def critical_difference(
    request: Request,
    store: ReadStoreDep,
    study: StudyParam = None,
    metric: MetricParam = None,
    block: Annotated[
        Block, Query(description="one block per seed, configuration or repeat")
    ] = "seed",
    alpha: AlphaParam = 0.05,
) -> dict:
    """Friedman's test of the experiments' average ranks over blocks of runs and the
    Nemenyi critical difference."""
    # not validated again: GET's alpha outside (0, 1) stays the analysis' 400, as before
    body = CriticalDifferenceRequest.model_construct(
        study=study, metric=metric, block=block, alpha=alpha
    )
    return _critical_difference(request, store, body)


def _critical_difference(request: Request, store, body: CriticalDifferenceRequest) -> dict:
    """GET's and POST's ``/cd``: the one forwarding of the parameters."""
    return _seed_variance(
        request,
        store,
        "cd",
        body.save,
        study=body.study,
        metric=body.metric,
        cd=True,
        block=body.block,
        alpha=body.alpha,
    )


@router.post(
    "/cd",
    response_model=CriticalDifferenceAnswer,
    responses=_WRITES | error_responses(400, 401, 403, 404, 413, 422, 503, 507),
    openapi_extra=OPTIONAL_WRITE_SECURITY,
)
def post_critical_difference(
    body: CriticalDifferenceRequest,
    request: Request,
    response: Response,
    store: StoreDep,
    settings: SettingsDep,
) -> dict:
    """As GET, from a JSON body; with ``save: true`` (bearer token) the result is stored as
    a ``critical-difference`` document (201)."""
    return _saving(
        body.save, request, response, settings, lambda: _critical_difference(request, store, body)
    )


@router.get(
    "/cd.svg",
    response_class=Response,
    responses={200: {"content": {"image/svg+xml": {}}}, **error_responses(400, 404, 413, 503)},
)
def critical_difference_diagram(
    request: Request,
    analyses: AnalysesDep,
    study: StudyParam = None,
    metric: MetricParam = None,
    block: Annotated[
        Block, Query(description="one block per seed, configuration or repeat")
    ] = "seed",
    alpha: AlphaParam = 0.05,
) -> Response:
    """Demšar's critical-difference diagram (self-contained SVG)."""
    svg = analyses.run(request, _cd_diagram, study, metric, block, alpha)
    return Response(svg, media_type="image/svg+xml")


def _cd_diagram(store, study, metric, block, alpha) -> str:
    from reprokg.stability.seed_variance import seed_variance

    out, results = seed_variance(store, study, metric=metric, cd=True, block=block, alpha=alpha)
    return results["cd"].diagram(f"{out['title']}: {out['metric']}")
