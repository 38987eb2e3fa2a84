"""``GET /measures/studies`` (the registered studies) and ``GET /measures/studies/{name}``
(one study recomputed from the graph, as ``reprokg study NAME --format json`` prints it).

Handlers are plain ``def``: they run SPARQL, pandas and scipy, blocking work that belongs
in the thread pool. Study options are query parameters (``?dataset=both``,
``?small_max=0.03``); an unknown option or method is a 400 naming the known ones.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from reprokg.service.analysis import AnalysesDep
from reprokg.service.deps import error_responses
from reprokg.store.base import Store
from reprokg.studies.registry import REGISTRY, get

router = APIRouter(prefix="/measures/studies", tags=["measures"])

_ERROR = {
    "content": {
        "application/json": {
            "example": {"detail": {"error": "UsageError", "message": "study gk2018 has no …"}}
        }
    }
}

_STUDY_EXAMPLE = {
    "name": "gk2018",
    "title": "State of the Art: Reproducibility in Artificial Intelligence …",
    "publication": "https://doi.org/10.1609/aaai.v32i1.11503",
    "citation": "Odd Erik Gundersen, Sigbjørn Kjensmo. …",
    "follows": "aaai2018-paperid-62/aaai2018-paperid-62: evaluation_analysis.ipynb (pandas)",
    "data": "documentation assessments (kind gk2018) of 400 IJCAI/AAAI papers",
    "queries": ["studies/sparql/gk2018_assessments.rq"],
    "default_method": "published",
    "methods": [{"name": "published", "summary": "…", "rules": ["…"]}],
    "options": {},
}


@router.get(
    "",
    summary="The registered published studies",
    responses={
        200: {
            "description": "Each study: name, title, the publication it recomputes, the "
            "authors' code its published method follows, the data and SPARQL it reads, its "
            "methods (the first is the default) with their rules, and its options.",
            "content": {"application/json": {"example": {"studies": [_STUDY_EXAMPLE]}}},
            "links": {
                "StudyResult": {
                    "operationId": "study_result",
                    "parameters": {"name": "$response.body#/studies/0/name"},
                }
            },
        }
    },
)
def list_studies() -> dict[str, Any]:
    return {"studies": [s.to_dict() for s in REGISTRY.values()]}


@router.get(
    "/{name}",
    operation_id="study_result",
    summary="A published study recomputed from the graph",
    responses={
        200: {
            "description": "The study's result. siggraph2020: the survey analysis (dataset, "
            "method, rules, n_papers, years, sharing, tests — the BH family "
            "sharing_*/citations_*/score_by_* with p_adjusted and anova2_year/topic/industry, "
            "each with n — citations, counts; keyed by data set for dataset=both). gk2018: "
            "n, degrees {R1D, R2D, R3D, DataD, ExpD: {mean, variance, n}}, satisfied "
            "{R1, R2, R3}, by_conference, by_period. pwc-checklist-2019: n, by_score "
            "{0..5: {n, proportion, min, q1, median, mean, q3, max}}, rlm {term: {estimate, "
            "se, t}}, wilcoxon {'5 vs K': {statistic, p}}. audits: n_audits, frequencies, "
            "order, concepts [{extent, intent}], derived. grsi-stamps: code_shared, "
            "replication_score.",
            "content": {
                "application/json": {
                    "example": {
                        "method": "published",
                        "n": 325,
                        "degrees": {"R1D": {"mean": 0.2383, "variance": 0.0140, "n": 325}},
                        "satisfied": {"R1": 0, "R2": 0, "R3": 0},
                    }
                }
            },
        },
        400: {"description": "unknown method or option, or a bad option value", **_ERROR},
        404: {"description": "no study of that name", **_ERROR},
        **error_responses(413, 503),
    },
)
def study_result(
    name: str,
    request: Request,
    analyses: AnalysesDep,
    method: Annotated[
        str | None,
        Query(description="published (default: the authors' choices) or e.g. corrected"),
    ] = None,
) -> dict[str, Any]:
    """Every other query parameter is a study option (see ``GET /measures/studies``)."""
    get(name)  # an unknown name: 404 before a worker is asked
    options = {k: v for k, v in request.query_params.items() if k != "method"}
    return analyses.run(request, _run, name, method, options)


def _run(store: Store, name: str, method: str | None, options: dict[str, str]) -> dict[str, Any]:
    """A study's result (in an analysis worker, service/analysis.py)."""
    return get(name).run(store, method, **options).to_json()
