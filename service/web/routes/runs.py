"""``/runs`` (every run) and ``/run?iri=…`` (a run's PRIMAD card, reported measures and the
leaderboards it is on)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from rdflib import BNode, Graph, URIRef
from rdflib.namespace import RDF, RDFS, SKOS

from reprokg.core.errors import NotFound, UsageError
from reprokg.ontology import labels as vocabulary
from reprokg.service.deps import ReadStoreDep
from reprokg.service.web.render import (
    RK,
    SCHEMA,
    alternates,
    cache,
    page,
    paged_rows,
    rows_of,
    small_cache,
    sparql_of,
    tabular,
    wants,
)
from reprokg.service.web.view_queries import view_query
from reprokg.sparql.named import NamedQueryError, Param, to_term
from reprokg.sparql.rows import plain
from reprokg.store.base import GraphResult, Store

router = APIRouter(include_in_schema=False)

PRIMAD = [
    ("platform", "P — Platform"),
    ("researchGoal", "R — Research goal"),
    ("implementation", "I — Implementation"),
    ("method", "M — Method"),
    ("actor", "A — Actor"),
    ("data", "D — Data"),
]
RUN_COLUMNS = [
    "tag",
    "differs",
    "file",
    "publication",
    "collection",
    "toolkit",
    "actor",
    "scores",
    "run",
]
#: PRIMAD letters of the header's top-level sections (what "differs" names a change by)
LETTERS = {
    "platform": "P",
    "research goal": "R",
    "implementation": "I",
    "method": "M",
    "actor": "A",
    "data": "D",
}
SCORE_COLUMNS = ["measure", "irMeasure", "value", "rank", "onBoard", "collection", "board"]


@router.get("/runs")
def runs(request: Request, store: ReadStoreDep) -> Response:
    paged = paged_rows(request, store, "runs")
    rows = paged.rows
    tell_apart(store, rows)
    if fmt := wants(request):
        response = tabular(fmt, rows, RUN_COLUMNS, "runs")
        response.headers.update(paged.headers())
        return response
    return page(
        request,
        "runs.html",
        title="Runs",
        rows=rows,
        paged=paged,
        alternates=alternates(request),
        sparql_behind=[paged.behind],
    )


def tell_apart(store: Store, rows: list[dict]) -> None:
    """Runs sharing a tag get ``differs``: the header fields whose values differ among
    them, each with this run's value (PRIMAD letter first), and "no run lines" for a
    header loaded without its run. Three ``bm25+rm3`` runs could not be told apart."""
    by_tag: dict[str, list[dict]] = {}
    for r in rows:
        by_tag.setdefault(r.get("tag") or "", []).append(r)
    for group in by_tag.values():
        if len(group) < 2:
            continue
        fields = {r["run"]: header_fields(store, r["run"]) for r in group}
        keys = sorted({k for f in fields.values() for k in f})
        differing = [k for k in keys if len({repr(f.get(k)) for f in fields.values()}) > 1]
        lines = {bool(r.get("runFile")) for r in group}
        for r in group:
            f = fields[r["run"]]
            parts = [_field(k, f.get(k)) for k in differing]
            if len(lines) > 1:
                parts.append("run lines" if r.get("runFile") else "no run lines")
            r["differs"] = "; ".join(parts) or "nothing in its header"


def _field(key: str, value: object) -> str:
    letter = LETTERS.get(key.split(".", 1)[0])
    shown = "—" if value is None else str(value)
    return f"{letter + ' ' if letter else ''}{key}: {shown}"


def header_fields(store: Store, run: str) -> dict[str, object]:
    """The run's ir_metadata header as flat ``section.key: value`` fields (cached)."""
    from reprokg.loaders.ir_metadata.export import graph_to_dict

    def compute() -> dict[str, object]:
        res = store.query(view_query("run-document").bind({"run": run}))
        assert isinstance(res, GraphResult)
        try:
            return _flat(graph_to_dict(res.graph, run))
        except KeyError:
            return {}

    return small_cache.get(store, f"run-fields {run}", compute)


def _flat(data: object, prefix: str = "") -> dict[str, object]:
    if isinstance(data, dict):
        out: dict[str, object] = {}
        for k, v in data.items():
            out.update(_flat(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    if isinstance(data, list) and any(isinstance(x, dict | list) for x in data):
        out = {}
        for i, v in enumerate(data):
            out.update(_flat(v, f"{prefix}[{i}]"))
        return out
    if isinstance(data, list):
        return {prefix: ", ".join(map(str, data))}
    return {prefix: data}


def tree(g: Graph, node: Any, depth: int = 0, seen: frozenset = frozenset()) -> list[dict]:
    """A node's statements as nested items for the PRIMAD card (labels, not IRIs)."""
    items: list[dict[str, object]] = []
    for p, o in sorted(g.predicate_objects(node)):
        if p == RDF.type or p == URIRef(RK + "sequenceOrder") or o in seen:
            continue
        # the ontology's label ("number of cores"), else the local name
        label = vocabulary.label(str(p)) or str(p).rsplit("#", 1)[-1].rsplit("/", 1)[-1]
        nested = isinstance(o, URIRef | BNode) and any(True for _ in g.predicate_objects(o))
        if nested and depth < 4:
            name = (
                g.value(o, URIRef(SCHEMA + "name"))
                or g.value(o, RDFS.label)
                or g.value(o, SKOS.prefLabel)
            )
            items.append(
                {
                    "key": label,
                    "name": str(name) if name else None,
                    "children": tree(g, o, depth + 1, seen | {node}),
                }
            )
        else:
            items.append({"key": label, "value": plain(o), "iri": isinstance(o, URIRef)})
    return items


@router.get("/run")
def run(request: Request, store: ReadStoreDep, iri: str) -> Response:
    try:
        target = str(to_term(Param("iri", "iri"), iri))
    except NamedQueryError as exc:
        raise UsageError(str(exc)) from exc
    p = {"run": target}
    card, tag = cache.get(store, f"run-card {target}", lambda: _card(store, target))
    scores = rows_of(store, "run-scores", p)
    if card is None and not scores:
        raise NotFound(f"no run header is stored for <{target}>")
    if fmt := wants(request):
        return tabular(fmt, scores, SCORE_COLUMNS, "run-scores")
    # the other runs with its tag, and what differs (three bm25+rm3 runs looked the same)
    same = rows_of(store, "runs", {"runTag": tag}) if tag else []
    tell_apart(store, same)
    mine = next((r for r in same if r["run"] == target), {})
    return page(
        request,
        "run.html",
        title=f"Run {tag or target}" + (f" · {mine['file']}" if mine.get("file") else ""),
        iri=target,
        card=card or [],
        differs=mine.get("differs"),
        same_tag=[r for r in same if r["run"] != target],
        scores=scores,
        active="/runs",
        alternates=alternates(request),
        sparql_behind=[sparql_of("run-document", p), sparql_of("run-scores", p)],
    )


def _card(store, target: str) -> tuple[list[dict] | None, str | None]:
    """The PRIMAD card of a run (its header document walked from the run) and its tag;
    kept until the store changes (a header is a few hundred triples walked in Python)."""
    res = store.query(view_query("run-document").bind({"run": target}))
    assert isinstance(res, GraphResult)
    g = res.graph
    if len(g) == 0:
        return None, None
    node = URIRef(target)
    card = []
    for key, label in PRIMAD:
        comp = g.value(node, URIRef(RK + key))
        card.append({"key": key, "label": label, "entries": tree(g, comp) if comp else []})
    tag = g.value(node, URIRef(RK + "runTag"))
    return card, str(tag) if tag is not None else None
