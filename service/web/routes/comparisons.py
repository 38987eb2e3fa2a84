"""``/comparisons`` (stored reproduction comparisons) and ``/comparison?iri=…`` (its
measures, and per-topic deltas of one effectiveness measure as a chart)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response

from reprokg.core.errors import NotFound, UsageError
from reprokg.measures.verdicts import stored_verdicts
from reprokg.service.deps import ReadStoreDep
from reprokg.service.web import charts
from reprokg.service.web.render import (
    PAGE_RESPONSES,
    alternates,
    cache,
    page,
    rows_of,
    sparql_of,
    tabular,
    wants,
)
from reprokg.service.web.topics import per_topic
from reprokg.sparql.named import NamedQueryError, Param, to_term

router = APIRouter()

LIST_COLUMNS = [
    "comparison",
    "kind",
    "signature",
    "studyKinds",
    "originalTags",
    "reproducingTags",
    "computed",
]
MEASURE_COLUMNS = ["measure", "side", "effectiveness", "value"]
#: the reproducibility measures drawn in the headline chart
HEADLINE = ("ktu", "rbo", "rmse", "nrmse", "pvalue", "er", "dri")


@router.get(
    "/comparisons",
    tags=["web pages"],
    summary="The comparisons page (HTML; the API computes one with POST)",
    response_class=HTMLResponse,
    responses=PAGE_RESPONSES,
)
def comparisons(request: Request, store: ReadStoreDep) -> Response:
    rows = rows_of(store, "comparisons")
    if fmt := wants(request):
        return tabular(fmt, rows, LIST_COLUMNS, "comparisons")
    return page(
        request,
        "comparisons.html",
        title="Comparisons",
        rows=rows,
        alternates=alternates(request),
        sparql_behind=[sparql_of("comparisons")],
    )


@router.get("/comparison", include_in_schema=False)
def comparison(
    request: Request,
    store: ReadStoreDep,
    iri: str,
    measure: Annotated[str, Query(max_length=40, description="effectiveness measure")] = "",
) -> Response:
    try:
        target = str(to_term(Param("iri", "iri"), iri))
    except NamedQueryError as exc:
        raise UsageError(str(exc)) from exc
    p = {"comparison": target}
    rows = rows_of(store, "comparison-measures", p)
    if not rows:
        raise NotFound(f"no comparison <{target}>")
    effectiveness = sorted({r["effectiveness"] for r in rows if r.get("effectiveness")})
    if measure and measure not in effectiveness:
        raise UsageError(f"measure must be one of {', '.join(effectiveness)}")
    chosen = measure or ("AP" if "AP" in effectiveness else (effectiveness or [""])[0])
    inputs = rows_of(store, "comparison-inputs", p)
    deltas, note = (
        cache.get(store, f"topics {target} {chosen}", lambda: per_topic(store, inputs, chosen))
        if chosen
        else ([], "no effectiveness measure")
    )
    if fmt := wants(request):
        if request.query_params.get("part") == "topics":
            topic_rows = [{"side": d.side, **r} for d in deltas for r in d.rows]
            cols = ["side", "topic", "original", "reproduced", "delta"]
            return tabular(fmt, topic_rows, cols, "comparison-topics")
        return tabular(fmt, rows, MEASURE_COLUMNS, "comparison")
    info = next((r for r in rows_of(store, "comparisons") if r["comparison"] == target), {})
    headline = [
        (f"{r['measure']} {r.get('side') or ''} {r.get('effectiveness') or ''}".strip(), r["value"])
        for r in rows
        if r["measure"] in HEADLINE
        and r.get("effectiveness") in (chosen, None)
        and isinstance(r.get("value"), int | float)
    ]
    topic_charts = [
        charts.bar_chart(
            [(f"topic {r['topic']}", r["delta"]) for r in d.rows],
            f"{chosen} per topic, reproduced − original ({d.side} runs)",
        )
        for d in deltas
    ]
    return page(
        request,
        "comparison.html",
        title=info.get("signature") and f"Comparison {info['signature']}" or "Comparison",
        iri=target,
        info=info,
        inputs=inputs,
        rows=rows,
        measure=chosen,
        effectiveness=effectiveness,
        deltas=deltas,
        topic_note=note,
        topic_charts=topic_charts,
        verdicts=stored_verdicts(store, target),
        active="/comparisons",
        chart=charts.bar_chart(headline, f"Reproducibility measures ({chosen})")
        if headline
        else None,
        alternates=alternates(request),
        sparql_behind=[sparql_of("comparison-measures", p), sparql_of("comparison-inputs", p)],
    )
