"""``/studies``, ``/stability``, ``/intrinsic-dimension``: analysis results the graph holds.

What each reads is listed in :mod:`reprokg.service.web.analyses` (queries, JSON API,
document kinds), so a family that changes its terms is adapted there.
"""

from __future__ import annotations

from functools import partial
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import Response

from reprokg.core.errors import UsageError
from reprokg.loaders.stability import ROW_KEYS
from reprokg.service.deps import ReadStoreDep
from reprokg.service.web import charts
from reprokg.service.web.analyses import ANALYSES, api_available
from reprokg.service.web.render import (
    alternates,
    cache,
    page,
    rows_of,
    sparql_of,
    tabular,
    wants,
)
from reprokg.stability.observations import OBSERVATIONS_QUERY

router = APIRouter(include_in_schema=False)

STUDY_COLUMNS = ["survey", "label", "reviews", "papers", "papersWithCode"]
STABILITY_COLUMNS = [
    "study",
    "label",
    "dataSet",
    "illustrative",
    "experiments",
    "observations",
    "hypothesis",
    "method",
    "statistic",
    "p",
    "decision",
]
#: the observations of one study (``?part=observations&study=…``), as the analysis reads them
OBSERVATION_COLUMNS = list(ROW_KEYS)
ID_COLUMNS = ["estimate", "dataSet", "dataSetName", "label", "id", "approximated", "feature", "nid"]


def _context(request: Request, key: str) -> dict:
    a = ANALYSES[key]
    return {
        "analysis": a,
        "api": a.api if api_available(request.app, a.api) else None,
    }


@router.get("/studies")
def studies(request: Request, store: ReadStoreDep) -> Response:
    """The code-replicability study recomputed from the graph (survey analysis), the
    surveys and audits it reads, and other stored study results."""
    surveys = rows_of(store, "surveys")
    if fmt := wants(request):
        return tabular(fmt, surveys, STUDY_COLUMNS, "studies")
    results = rows_of(store, "study-results")
    survey = cache.get(store, "survey-analysis", lambda: survey_summary(store))
    return page(
        request,
        "studies.html",
        title="Studies",
        surveys=surveys,
        results=results,
        survey=survey,
        alternates=alternates(request),
        sparql_behind=[sparql_of("surveys"), sparql_of("study-results")],
        **_context(request, "studies"),
    )


def survey_summary(store) -> dict | None:
    """The code-replicability analysis of the consolidated data set, with its charts
    (``None`` when the graph holds no review of it)."""
    from reprokg.studies import siggraph2020
    from reprokg.survey.analysis import survey_statistics

    inputs = siggraph2020.read(store, "consolidated")
    stats = survey_statistics(*inputs["consolidated"])
    if not stats.n_papers:
        return None
    result = siggraph2020.analyze(inputs).datasets["consolidated"]

    def props(group: dict) -> list[charts.Proportion]:
        return [charts.Proportion(k, p.k, p.n) for k, p in group.items()]

    tests = [
        {
            "test": tid,
            "method": t["method"],
            "statistic": t.get("statistic"),
            "p": t.get("p"),
            "p_adjusted": t.get("p_adjusted"),
        }
        for tid, t in result.tests.items()
    ]
    provenance: dict[str, str] = next(
        (t["provenance"] for t in result.tests.values() if t.get("provenance")), {}
    )
    return {
        "n_papers": stats.n_papers,
        "chart_year": charts.proportion_chart(
            props(stats.sharing_by_year), "Code or binary shared per year (consolidated data)"
        ),
        "chart_topic": charts.proportion_chart(
            props(stats.sharing_by_topic), "Code or binary shared per topic (consolidated data)"
        ),
        "by_year": props(stats.sharing_by_year),
        "tests": tests,
        "sparql": provenance.get("sparql", ""),
        "method": provenance.get("method", ""),
    }


@router.get("/stability")
def stability(request: Request, store: ReadStoreDep) -> Response:
    rows = rows_of(store, "stability")
    if fmt := wants(request):
        if request.query_params.get("part") == "observations":
            study = _study_param(request, rows)
            obs = rows_of(store, OBSERVATIONS_QUERY, {"study": study})
            return tabular(fmt, obs, OBSERVATION_COLUMNS, "stability-observations")
        return tabular(fmt, rows, STABILITY_COLUMNS, "stability")
    found: dict[str, dict] = {}
    for r in rows:
        s = found.setdefault(r["study"], {**r, "tests": []})
        if r.get("hypothesis"):
            s["tests"].append(r)
    for s in found.values():
        # the page shows what the chart draws (per metric and experiment: n, mean, 95%
        # interval), not every observation: a study has thousands; they are a CSV away.
        # Kept until the store changes: reading them took most of the page's time.
        s["summary"], s["charts"] = cache.get(
            store, f"stability-summary {s['study']}", partial(_summary, store, s["study"])
        )
        s["cd"] = critical_difference_diagrams(store, s["study"], s.get("label") or "")
        s["observations_csv"] = "/stability?" + urlencode(
            {"study": s["study"], "part": "observations", "format": "csv"}
        )
    first = next(iter(found), None)
    return page(
        request,
        "stability.html",
        title="Stability",
        studies=list(found.values()),
        alternates=alternates(request),
        sparql_behind=[
            sparql_of("stability"),
            *([sparql_of(OBSERVATIONS_QUERY, {"study": first})] if first else []),
            *([sparql_of(STORED_CD_QUERY, {"study": first})] if first else []),
        ],
        **_context(request, "stability"),
    )


def _summary(store, study: str) -> tuple[dict, list[str]]:
    """Per metric and experiment: n, mean and 95% t interval, and the charts of them."""
    summary = charts.intervals_by_metric(rows_of(store, OBSERVATIONS_QUERY, {"study": study}))
    drawn = [
        charts.interval_rows(rows, f"{metric}: mean per experiment, 95% t interval")
        for metric, rows in summary.items()
    ]
    return summary, drawn


#: the critical-difference analyses stored for a study (reprokg stability --cd --save)
STORED_CD_QUERY = "stability/sparql/stored-critical-difference.rq"


def critical_difference_diagrams(store, study: str, title: str) -> list[dict]:
    """The stored critical-difference analyses of ``study``, each drawn again from its
    stored numbers (Demšar's diagram, SVG) with them for the table beside it."""
    import json

    from reprokg.stability.seed_comparison import CriticalDifference  # pandas: when drawn

    out = []
    for row in rows_of(store, STORED_CD_QUERY, {"study": study}):
        data = json.loads(row["json"])
        result = CriticalDifference.from_json(data)
        svg = result.diagram(f"{title}: {data.get('metric') or 'value'}, by {data['block']}")
        ranks = sorted(data["average_ranks"].items(), key=lambda kv: kv[1])
        out.append({"svg": svg.decode("utf-8"), "data": data, "ranks": ranks})
    return out


def _study_param(request: Request, rows: list[dict]) -> str:
    """The ``study=`` of an observations download: one of the stored studies."""
    study = request.query_params.get("study", "")
    if study not in {r["study"] for r in rows}:
        raise UsageError("give study= (a stored stability study's IRI) with part=observations")
    return study


@router.get("/intrinsic-dimension")
def intrinsic_dimension(request: Request, store: ReadStoreDep) -> Response:
    rows = rows_of(store, "intrinsic-dimension")
    if fmt := wants(request):
        return tabular(fmt, rows, ID_COLUMNS, "intrinsic-dimension")
    discard = rows_of(store, "feature-discard")
    estimates: dict[str, dict] = {}
    for r in rows:
        e = estimates.setdefault(r["estimate"], {**r, "features": []})
        if r.get("feature"):
            e["features"].append(r)
    for e in estimates.values():
        e["chart"] = (
            charts.bar_chart(
                [(f["feature"], f.get("nid")) for f in e["features"][:40]],
                "Normalised intrinsic dimension per feature",
            )
            if e["features"]
            else None
        )
    return page(
        request,
        "intrinsic_dimension.html",
        title="Intrinsic dimension",
        estimates=list(estimates.values()),
        discard=discard,
        alternates=alternates(request),
        sparql_behind=[sparql_of("intrinsic-dimension"), sparql_of("feature-discard")],
        **_context(request, "intrinsic-dimension"),
    )
