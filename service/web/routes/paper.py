"""``/paper?doi=…``: a reproducibility passport — everything the graph joins on one DOI.

Survey reviews (both code-replicability data sets) with the five 1–5 scores as a chart,
documentation assessments, audits with each finding's attribute and evidence, stamps and
badges, runs citing the paper and reproductions of them with their PRIMAD signature, and
stability and intrinsic-dimension results linked to it.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from reprokg.evidence.passport import PARTS, passport, sparql, work_iri
from reprokg.ontology import labels as vocabulary
from reprokg.service.deps import ReadStoreDep
from reprokg.service.web import charts
from reprokg.service.web.render import (
    alternates,
    page,
    page_links,
    short,
    small_cache,
    tabular,
    wants,
)
from reprokg.sparql.named import Page

router = APIRouter(include_in_schema=False)

#: the review scores replicability.graphics charts, in its order (query column, label)
FIVE_SCORES = [
    ("dependencies", "Dependencies"),
    ("build", "Build"),
    ("bugFix", "Bug fixes"),
    ("replication", "Replication"),
    ("adaptability", "Adaptability"),
]
STAMP = "https://w3id.org/reprokg/ontology#replicabilityStamp"
BADGE = "https://w3id.org/reprokg/ontology#badge"


@router.get("/paper")
def paper(
    request: Request,
    store: ReadStoreDep,
    doi: str | None = None,
    iri: str | None = None,
    runs_offset: int = 0,
) -> Response:
    work = work_iri(doi, iri)
    # kept per store generation: a write (here or, remote, by another replica) moves it
    found = small_cache.get(
        store,
        f"passport {runs_offset} {work}",
        lambda: passport(store, work, runs_offset=runs_offset),
    )
    target = found.work
    data = found.to_json()
    if fmt := wants(request):
        if fmt == "json":
            return JSONResponse(data)
        parts = [("verdicts", ""), ("authors", ""), *PARTS]  # the parts of the JSON
        rows = [
            {"part": k, **{c: _flat(v) for c, v in r.items()}} for k, _ in parts for r in data[k]
        ]
        cols = sorted({c for r in rows for c in r} - {"part"})
        response = tabular(fmt, rows, ["part", *cols], "paper")
        response.headers.update(_runs_headers(found.runs_page))
        return response
    facts = data["facts"]
    by_prop: dict[str, list[dict]] = {}
    for f in facts:
        by_prop.setdefault(f["property"], []).append(f)
    name = found.title
    title = name or short(target)  # doi:10.… (a run header cites a paper by DOI alone)
    score_charts = [
        charts.bar_chart(
            [(label, _score(r.get(k))) for k, label in FIVE_SCORES],
            f"Review scores (1–5), {_survey_name(r)}",
            domain=(0, 5),
            fmt="{:.0f}",
        )
        for r in data["reviews"]
        if any(r.get(k) is not None for k, _ in FIVE_SCORES)
    ]
    qra = qra_panels(data["qra"])
    audits: dict[str, dict] = {}
    for r in data["audits"]:
        a = audits.setdefault(r["audit"], {**r, "findings": [], "metrics": []})
        (a["findings"] if r.get("attribute") else a["metrics"]).append(r)
    stamps = [f for f in facts if f["property"] in (STAMP, BADGE)]
    sources = sorted(
        {("survey: " + _survey_name(r)) for r in data["reviews"]}
        | {"documentation assessment (GK2018)" for _ in data["assessments"][:1]}
        | {"audit" for _ in data["audits"][:1]}
        | {"run" for _ in data["runs"][:1]}
        | {"stamp or badge" for s in stamps if s["value"] not in (False, "false")}
        | {r["kind"] for r in data["studies"]}
        | {"quantified reproducibility assessment" for _ in data["qra"][:1]}
        | {"assessment: " + e["source"] for e in data["verdicts"]}
    )
    return page(
        request,
        "paper.html",
        title=title,
        untitled=name is None,
        # untitled, the heading is the DOI: the line under it does not repeat it
        identifiers=found.labelled_identifiers[1 if name is None else 0 :],
        published=found.published,
        iri=target,
        facts=by_prop,
        stamps=stamps,
        sources=sources,
        score_charts=score_charts,
        five=FIVE_SCORES,
        authors=data["authors"],
        reviews=data["reviews"],
        assessments=data["assessments"],
        audits=list(audits.values()),
        runs=data["runs"],
        runs_page=found.runs_page,
        runs_links=[]
        if found.runs_page is None or found.runs_page.limit is None
        else page_links(request, found.runs_page, "runs_offset", "#runs"),
        studies=data["studies"],
        qra=qra,
        verdict_summary=data["verdict_summary"],
        verdicts=data["verdicts"],
        alternates=alternates(request),
        replication_of=found.replication_of,
        artifacts=found.artifacts,
        links=found.links,
        resolved_from=found.resolved_from,
        conflict=found.summary.conflict,
        claims=found.summary.claims,
        sparql_behind=list(sparql(target).values()),
    )


def _runs_headers(pg: Page | None) -> dict[str, str]:
    """A download of the passport holds one page of its runs: the headers say which of how
    many, and where the next page is (nothing cut silently)."""
    if pg is None:
        return {}
    out = {"X-Reprokg-Runs-Total": str(pg.total), "X-Reprokg-Runs-Offset": str(pg.offset)}
    if pg.next_offset is not None:
        out["X-Reprokg-Truncated"] = f"runs: {pg.sentence()}; next: runs_offset={pg.next_offset}"
    return out


#: quantities drawn per measure; more are in the table (a comparison holds one per measure)
QRA_ROWS = 12


def qra_panels(rows: list[dict]) -> list[dict]:
    """The stored QRA quantities, one figure per measure (each on its own scale): every
    measurement and CV* with its interval, and the quantities for the table."""
    from reprokg.measures.qra_document import group_stored

    by_measure: dict[str, list[dict]] = {}
    for q in group_stored(rows):
        by_measure.setdefault(q["measure"], []).append(q)
    panels = []
    for measure, quantities in sorted(by_measure.items()):
        quantities.sort(key=lambda q: (q["label"], q["quantity"]))
        figure = [
            charts.QuantityRow(
                q["label"],
                [
                    charts.Measured(float(m["value"]), m["role"], m["label"] or m["role"])
                    for m in q["measurements"]
                ],
                q.get("cvStar"),
                q.get("low"),
                q.get("high"),
            )
            for q in quantities[:QRA_ROWS]
        ]
        svg = charts.qra_figure(figure, f"{measure}: original and reproductions, CV*")
        panels.append({"measure": measure, "svg": svg, "quantities": quantities})
    return panels


def _flat(v: object) -> object:
    """A list (a verdict's links) as one cell of CSV/TSV."""
    return " ".join(map(str, v)) if isinstance(v, list) else v


def _score(v: object) -> float | None:
    try:
        return float(v)  # type: ignore[arg-type]  # float() refuses what it must; caught below
    except (TypeError, ValueError):
        return None  # "n/a": not applicable


def _survey_name(r: dict) -> str:
    s = r.get("survey") or ""
    return vocabulary.label(s) or s.rsplit("#", 1)[-1]
