"""``GET /measures/survey`` (the code-replicability study as JSON) and its charts.

The survey's endpoint from before the studies were registered: the study ``siggraph2020``
(``GET /measures/studies/siggraph2020``) with its data set as ``dataset``. Handlers are
plain ``def`` (they wait for blocking work). The computation runs in an analysis worker
(:mod:`reprokg.service.analysis`: a time and a memory limit) over the store's data.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request, Response

from reprokg.core.errors import NotFound
from reprokg.service.analysis import AnalysesDep
from reprokg.service.deps import error_responses
from reprokg.store.base import Store
from reprokg.studies.registry import SIGGRAPH2020

router = APIRouter(prefix="/measures/survey", tags=["measures"])

Dataset = Literal["consolidated", "per-paper", "both"]
Method = Literal["published", "corrected"]


def _measures(store: Store, method: str, dataset: str) -> dict:
    return SIGGRAPH2020.run(store, method, dataset=dataset).to_json()


@router.get("", responses=error_responses(413, 503))
def survey_measures(
    request: Request,
    analyses: AnalysesDep,
    dataset: Annotated[Dataset, Query(description="which review data set; both = keyed")] = (
        "consolidated"
    ),
    method: Annotated[Method, Query(description="the study's script (default) or corrected")] = (
        "published"
    ),
) -> dict:
    """Sharing rates, tests (raw and BH-adjusted p, each with n; the second ANOVA outside
    the BH family), citations and counts, with provenance and the method's rules."""
    return analyses.run(request, _measures, method, dataset)


@router.get(
    "/charts/{name}",
    response_class=Response,
    responses={
        200: {"description": "the chart", "content": {"image/svg+xml": {}, "image/png": {}}},
        **error_responses(404, 413, 503),
    },
)
def survey_chart(
    name: str,
    request: Request,
    analyses: AnalysesDep,
    dataset: Annotated[Literal["consolidated", "per-paper"], Query()] = "consolidated",
    format: Annotated[Literal["svg", "png"], Query()] = "svg",
) -> Response:
    """A chart (``sharing_by_year``, ``sharing_by_topic``, ``citations``) as SVG or PNG."""
    # imported here: scipy, pandas and matplotlib took most of the service's start
    # (``python -X importtime``), which ``serve --demo`` waits for
    from reprokg.survey import charts as sc

    stem, dot, ext = name.rpartition(".")
    if dot and ext in sc.FORMATS:
        name, format = stem, ext  # type: ignore[assignment]  # ext is in sc.FORMATS: svg or png
    if name not in sc.CHARTS:
        raise NotFound(f"unknown chart {name!r}; one of {', '.join(sc.CHARTS)}")
    body = analyses.run(request, _chart, name, dataset, format)
    return Response(body, media_type=sc.FORMATS[format])


def _chart(store: Store, name: str, dataset: str, format: str) -> bytes:
    from reprokg.studies import siggraph2020
    from reprokg.survey import charts as sc

    frame, sparql = siggraph2020.read(store, dataset)[dataset]
    return sc.render(name, siggraph2020.analyze_frame(frame, sparql), frame, format)
