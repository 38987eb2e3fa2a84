"""``GET /measures/survey`` (the code-replicability study as JSON) and its charts.

The survey's endpoint from before the studies were registered: the study ``siggraph2020``
(``GET /measures/studies/siggraph2020``) with its data set as ``dataset``. Handlers are
plain ``def`` (they run SPARQL and pandas: blocking work belongs in the thread pool). The
store comes from the app's ``StoreDep``; a test app can include this router over any store.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Response

from reprokg.core.errors import NotFound
from reprokg.service.deps import StoreDep, error_responses
from reprokg.studies.registry import SIGGRAPH2020

router = APIRouter(prefix="/measures/survey", tags=["measures"])

Dataset = Literal["consolidated", "per-paper", "both"]
Method = Literal["published", "corrected"]


@router.get("", responses=error_responses(503))
def survey_measures(
    store: StoreDep,
    dataset: Annotated[Dataset, Query(description="which review data set; both = keyed")] = (
        "consolidated"
    ),
    method: Annotated[Method, Query(description="the study's script (default) or corrected")] = (
        "published"
    ),
) -> dict:
    """Sharing rates, tests (raw and BH-adjusted p, each with n; the second ANOVA outside
    the BH family), citations and counts, with provenance and the method's rules."""
    return SIGGRAPH2020.run(store, method, dataset=dataset)


@router.get(
    "/charts/{name}",
    responses={
        200: {"description": "the chart", "content": {"image/svg+xml": {}, "image/png": {}}},
        **error_responses(404),
    },
)
def survey_chart(
    name: str,
    store: StoreDep,
    dataset: Annotated[Literal["consolidated", "per-paper"], Query()] = "consolidated",
    format: Annotated[Literal["svg", "png"], Query()] = "svg",
) -> Response:
    """A chart (``sharing_by_year``, ``sharing_by_topic``, ``citations``) as SVG or PNG."""
    # imported here: scipy, pandas and matplotlib took most of the service's start
    # (``python -X importtime``), which ``serve --demo`` waits for
    from reprokg.studies import siggraph2020
    from reprokg.survey import charts as sc

    stem, dot, ext = name.rpartition(".")
    if dot and ext in sc.FORMATS:
        name, format = stem, ext  # type: ignore[assignment]
    if name not in sc.CHARTS:
        raise NotFound(f"unknown chart {name!r}; one of {', '.join(sc.CHARTS)}")
    inputs = siggraph2020.read(store, dataset)
    frame, sparql = inputs[dataset]
    result = siggraph2020.analyze_frame(frame, sparql)
    body = sc.render(name, result, frame, format)
    return Response(body, media_type=sc.FORMATS[format])
