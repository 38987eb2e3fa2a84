"""``/paper?doi=…``: a reproducibility passport — everything the graph joins on one DOI.

Survey reviews (both code-replicability data sets) with the five 1–5 scores as a chart,
documentation assessments, audits with each finding's attribute and evidence, stamps and
badges, runs citing the paper and reproductions of them with their PRIMAD signature, and
stability and intrinsic-dimension results linked to it.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from reprokg.core.errors import NotFound, UsageError
from reprokg.core.identifiers import doi_iri
from reprokg.service.deps import ReadStoreDep
from reprokg.service.web import charts, verdicts, vocabulary
from reprokg.service.web.render import (
    SCHEMA,
    alternates,
    page,
    rows_of,
    short,
    sparql_of,
    tabular,
    wants,
)
from reprokg.sparql.named import NamedQueryError, Param, to_term

router = APIRouter(include_in_schema=False)

#: the review scores replicability.graphics charts, in its order (query column, label)
FIVE_SCORES = [
    ("dependencies", "Dependencies"),
    ("build", "Build"),
    ("bugFix", "Bug fixes"),
    ("replication", "Replication"),
    ("adaptability", "Adaptability"),
]
#: the quantities stored QRA results hold about a paper (reprokg qra DOI --save)
QRA_QUERY = "measures/sparql/stored-qra.rq"
#: the passport's parts: (key, view query)
PARTS = [
    ("reviews", "paper-reviews"),
    ("assessments", "paper-assessments"),
    ("audits", "paper-audits"),
    ("runs", "paper-runs"),
    ("studies", "paper-studies"),
    ("qra", QRA_QUERY),
]
STAMP = "https://w3id.org/reprokg/ontology#replicabilityStamp"
BADGE = "https://w3id.org/reprokg/ontology#badge"


def paper_iri(doi: str | None, iri: str | None) -> str:
    """The publication's IRI from ``doi=`` (any accepted DOI form) or ``iri=``."""
    if doi:
        return str(doi_iri(doi))
    if iri:
        try:
            return str(to_term(Param("iri", "iri"), iri))
        except NamedQueryError as exc:
            raise UsageError(str(exc)) from exc
    raise UsageError("give doi= (a DOI) or iri= (the publication's IRI)")


def ordered_authors(authors: list[dict], order: list[dict]) -> list[dict]:
    """Authors in byline order (walking the rdf:List from its head), others after."""
    if not order:
        return authors
    nxt = {r["node"]: (r["person"], r["next"]) for r in order}
    heads = {r["head"] for r in order}
    rank: dict[str, int] = {}
    node = next(iter(heads)) if len(heads) == 1 else None
    while node in nxt and len(rank) < len(nxt):
        person, node = nxt[node]
        rank.setdefault(person, len(rank))
    return sorted(authors, key=lambda a: (rank.get(a["person"], 1 << 30), a.get("name") or ""))


def passport(store, target: str) -> dict:
    """Everything the graph joins on one work, led by whether it was reproduced: the verdict
    summary over every source, each assessment with its source, outcome, evidence and date."""
    p = {"paper": target}
    facts = rows_of(store, "paper", p)
    if not facts:
        raise NotFound(f"nothing is known about <{target}>")
    found = verdicts.fold(rows_of(store, "paper-verdicts", p))
    out = {
        "paper": target,
        "verdict_summary": verdicts.summary(found),
        "verdicts": found,
        "facts": facts,
    }
    out["authors"] = ordered_authors(
        rows_of(store, "paper-authors", p), rows_of(store, "paper-author-order", p)
    )
    for key, name in PARTS:
        out[key] = rows_of(store, name, p)
    return out


@router.get("/paper")
def paper(
    request: Request, store: ReadStoreDep, doi: str | None = None, iri: str | None = None
) -> Response:
    target = paper_iri(doi, iri)
    data = passport(store, target)
    if fmt := wants(request):
        if fmt == "json":
            return JSONResponse(data)
        parts = [("verdicts", ""), ("authors", ""), *PARTS]
        rows = [
            {"part": k, **{c: _flat(v) for c, v in r.items()}} for k, _ in parts for r in data[k]
        ]
        cols = sorted({c for r in rows for c in r} - {"part"})
        return tabular(fmt, rows, ["part", *cols], "paper")
    facts = data["facts"]
    by_prop: dict[str, list[dict]] = {}
    for f in facts:
        by_prop.setdefault(f["property"], []).append(f)
    name = next((f["value"] for f in facts if f["property"] == SCHEMA + "name"), None)
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
        studies=data["studies"],
        qra=qra,
        verdict_summary=data["verdict_summary"],
        verdicts=data["verdicts"],
        alternates=alternates(request),
        sparql_behind=[
            sparql_of(n, {"paper": target})
            for n in ("paper-verdicts", "paper", *dict(PARTS).values())
        ],
    )


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
        return float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None  # "n/a": not applicable


def _survey_name(r: dict) -> str:
    s = r.get("survey") or ""
    return vocabulary.label(s) or s.rsplit("#", 1)[-1]
