"""``/comparisons`` (stored reproduction comparisons) and ``/comparison?iri=…`` (its
measures, and per-topic deltas of one effectiveness measure as a chart)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response

from reprokg.core.errors import NotFound, UsageError
from reprokg.evidence.verdicts import resolve, stored_comparison_verdicts, stored_verdicts
from reprokg.measures.comparison_document import stored_comparison
from reprokg.measures.headline import (
    ComparisonSummary,
    comparison_summary,
    flat_values,
    verdict_summary,
)
from reprokg.service.deps import ReadStoreDep
from reprokg.service.web import charts
from reprokg.service.web.render import (
    PAGE_RESPONSES,
    alternates,
    cache,
    page,
    paged_rows,
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
    "title",
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
#: the effectiveness measures the forest plots show (those the comparison has), then the
#: one chosen on the page: the usual reported ones, not all 58 of ir_measures' defaults
FOREST = ("AP", "P@10", "nDCG@10", "nDCG", "RR", "Rprec", "Bpref", "R@1000")
#: (statistic, its interval's ends, what the figure says about it)
EFFECTS = (
    (
        "dz",
        "Cohen's d_z per effectiveness measure and side: mean original − reproduced "
        "per-topic score over the differences' standard deviation, with its noncentral-t "
        "interval (0: no difference; the dashed line)",
    ),
    (
        "mean_diff",
        "Mean original − reproduced per-topic score per effectiveness measure and side, "
        "with its BCa bootstrap interval (0: no difference; the dashed line)",
    ),
)


def shown(row: dict) -> dict:
    """A comparisons row as a page shows it: titled by its runs and collection (the stored
    ``rdfs:label``, else its runs' tags), its study kinds one IRI each (for their labels)."""
    tags = (row.get("originalTags") or "?", row.get("reproducingTags") or "?")
    kinds = [k for k in (row.get("studyKinds") or "").split(", ") if k]
    return {**row, "title": row.get("title") or " vs ".join(tags), "kinds": kinds}


def forest_plots(rows: list[dict], chosen: str) -> list[dict[str, str]]:
    """The stored effect sizes with their intervals as forest plots (same-collection
    comparisons hold them; none for one without the statistics)."""
    value = {
        (r["measure"], r.get("side"), r.get("effectiveness")): r.get("value")
        for r in rows
        if isinstance(r.get("value"), int | float)
    }
    out = []
    for stat, caption in EFFECTS:
        have = {(side, eff) for (m, side, eff) in value if m == stat}
        wanted = [m for m in FOREST if any(e == m for _, e in have)]
        if chosen and chosen not in wanted and any(e == chosen for _, e in have):
            wanted.append(chosen)
        sides = [s for s in ("baseline", "advanced") if any(sd == s for sd, _ in have)]
        estimates = [
            charts.Estimate(
                f"{eff} ({side})" if len(sides) > 1 else eff,
                value.get((stat, side, eff)),
                value.get((f"{stat}_low", side, eff)),
                value.get((f"{stat}_high", side, eff)),
            )
            for side in sides
            for eff in wanted
            if (side, eff) in have
        ]
        if estimates:
            title = "d_z" if stat == "dz" else "mean difference"
            svg = charts.forest_plot(estimates, f"{title}, original − reproduced, with intervals")
            out.append({"svg": svg, "caption": caption, "statistic": stat})
    return out


def page_summary(
    store: ReadStoreDep,
    target: str,
    inputs: list[dict],
    verdicts: list[dict],
    chosen: list[str],
) -> ComparisonSummary | None:
    """The comparison's summary (measures/headline.py), as ``reprokg compare`` prints it
    first: runs, collection, PRIMAD in words, headline measures, the verdict and its
    reason (the stored comparison verdict's, else each rule's note)."""
    stored = stored_comparison(store, target)
    if stored is None:
        return None
    runs: dict[str, str] = {}
    for r in inputs:
        if r.get("role") in ("original", "reproduced") and r.get("run"):
            role = "orig_base" if r["role"] == "original" else "rep_base"
            if role in runs:  # the second run of a side: its advanced run
                role = role.replace("base", "adv")
            runs[role] = str(r["run"])
    whole = [w for w in stored_comparison_verdicts(store, target) if not w["superseded"]]
    verdict = None
    if whole:
        reasons = [f"{v['rule']}: {v['outcome']}" for v in verdicts if len(verdicts) > 1]
        reasons += [f"judges {whole[0]['work']}: {whole[0]['reason']}"]
        verdict = verdict_summary(whole[0]["outcome"], [v["rule"] for v in verdicts], reasons)
    elif verdicts:
        v = verdicts[0]
        verdict = verdict_summary(v["outcome"], [v["rule"]], [v["note"]] if v["note"] else [])
    opts = stored.get("options", {})
    judged = []
    for v in verdicts:
        try:  # a preset's measures; a rule of the user's own file is not known here
            judged += [c.at for c in resolve(v["rule"]).conditions if c.at]
        except NotFound:
            continue
    return comparison_summary(
        runs=runs,
        collection=None,
        kind=stored["kind"],
        primad=stored["primad"],
        values=flat_values(stored["measures"]),
        available=list(opts.get("measures", [])),
        chosen=[m for m in chosen if m in opts.get("measures", [])],
        judged=judged,
        level=float(opts.get("level", 0.95)),
        verdict=verdict,
        stored=target,
    )


@router.get(
    "/comparisons",
    tags=["web pages"],
    summary="The comparisons page (HTML; the API computes one with POST)",
    response_class=HTMLResponse,
    responses=PAGE_RESPONSES,
)
def comparisons(request: Request, store: ReadStoreDep) -> Response:
    paged = paged_rows(request, store, "comparisons")
    rows = paged.rows
    if fmt := wants(request):
        response = tabular(fmt, rows, LIST_COLUMNS, "comparisons")
        response.headers.update(paged.headers())
        return response
    return page(
        request,
        "comparisons.html",
        title="Comparisons",
        rows=[shown(r) for r in rows],
        paged=paged,
        alternates=alternates(request),
        sparql_behind=[paged.behind],
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
    found = [r for r in rows_of(store, "comparisons") if r["comparison"] == target]
    info = shown(found[0]) if found else {}
    verdicts = stored_verdicts(store, target)
    summary = page_summary(store, target, inputs, verdicts, [measure] if measure else [])
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
        title=info.get("title") or "Comparison",
        iri=target,
        info=info,
        inputs=inputs,
        rows=rows,
        measure=chosen,
        effectiveness=effectiveness,
        deltas=deltas,
        topic_note=note,
        topic_charts=topic_charts,
        verdicts=verdicts,
        summary=summary,
        forest=forest_plots(rows, chosen),
        active="/comparisons",
        chart=charts.bar_chart(headline, f"Reproducibility measures ({chosen})")
        if headline
        else None,
        alternates=alternates(request),
        sparql_behind=[sparql_of("comparison-measures", p), sparql_of("comparison-inputs", p)],
    )
