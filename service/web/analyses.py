"""Where the analysis views (studies, stability, intrinsic dimension) read from: one place.

Each analysis family writes its results back into the graph as documents
(docs/architecture.md, Design decisions, Data flow), so
its view reads the graph with the ontology's terms (``ontology/stability.ttl``,
``ontology/intrinsic_dimension.ttl``, the survey terms) through the view queries named
here, and links the family's JSON API when the service has it. A view shows what the
graph holds and says plainly when it holds nothing yet. When an analysis package changes
its terms or adds an API, this table and the named ``queries/*.rq`` files are what to
adapt.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import FastAPI


@dataclass(frozen=True)
class Analysis:
    #: the view's path and title
    path: str
    title: str
    #: the view queries it runs (``service/web/queries/{name}.rq``, or a package path)
    queries: tuple[str, ...]
    #: the family's JSON API (shown as a link when the app serves it)
    api: str
    #: document kinds that hold the family's results (``rk:documentKind``)
    kinds: tuple[str, ...]
    #: how to get results into the graph (the empty state says it)
    how: str


ANALYSES: dict[str, Analysis] = {
    "stability": Analysis(
        "/stability",
        "Stability",
        ("stability", "stability/sparql/observations.rq"),
        "/measures/stability",
        ("stability", "stability-analysis"),
        "Load a stability study (YAML or CSV: <code>reprokg load study.yaml</code>); "
        "stability analyses computed from the graph are stored next to it.",
    ),
    "intrinsic-dimension": Analysis(
        "/intrinsic-dimension",
        "Intrinsic dimension",
        ("intrinsic-dimension", "feature-discard"),
        "/measures/intrinsic-dimension",
        ("intrinsic-dimension",),
        "Intrinsic-dimension estimates and feature-discard experiments appear here once "
        "an analysis of a data set is stored in the graph.",
    ),
    "studies": Analysis(
        "/studies",
        "Studies",
        ("surveys", "study-results"),
        "/measures/studies",
        ("survey-analysis", "study"),
        "Published studies recomputed from the graph appear here once their data are loaded "
        "and their analyses stored.",
    ),
}


def api_available(app: FastAPI, path: str) -> bool:
    """Whether the app serves ``GET path`` (another family's router may not be there)."""
    return any(
        getattr(r, "path", None) == path and "GET" in (getattr(r, "methods", None) or ())
        for r in app.router.routes
    )
