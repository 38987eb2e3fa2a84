"""Linked data: every IRI minted under the base dereferences at ``/id/{path}``.

RDF (Turtle, JSON-LD, N-Triples, RDF/XML) by ``Accept``; a readable HTML page otherwise.
The view is DESCRIBE-like: the resource's own triples, the blank nodes it points to (one
level, as in a concise bounded description) and the triples that point at it.
"""

from __future__ import annotations

import html
import re

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF, RDFS, SKOS

from reprokg.core.errors import NotFound, QuerySyntaxError
from reprokg.core.namespaces import SCHEMA, new_graph
from reprokg.service.deps import ReadStoreDep, SettingsDep, error_responses
from reprokg.sparql.results import RDF_MEDIA_TYPES, negotiate, serialise_graph
from reprokg.store.base import GraphResult, SelectResult, Store

router = APIRouter(tags=["linked data"])

#: the characters of an IRI path (RFC 3987 ``ipath``: unreserved, sub-delims, ``:@/``,
#: percent-encodings and the UCS ranges IRIs allow), nothing else
_IRI_PATH = re.compile(
    "(?:[A-Za-z0-9\\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2}"
    "|[\u00a0-\ud7ff\uf900-\ufdcf\ufdf0-\uffef"
    "\U00010000-\U0001fffd\U00020000-\U0002fffd\U00030000-\U0003fffd"
    "\U00040000-\U0004fffd\U00050000-\U0005fffd\U00060000-\U0006fffd"
    "\U00070000-\U0007fffd\U00080000-\U0008fffd\U00090000-\U0009fffd"
    "\U000a0000-\U000afffd\U000b0000-\U000bfffd\U000c0000-\U000cfffd"
    "\U000d0000-\U000dfffd\U000e1000-\U000efffd])+"
)

OFFERS = ["text/html", *RDF_MEDIA_TYPES]
LABEL_PROPS = (RDFS.label, SKOS.prefLabel, SCHEMA.name, SCHEMA.headline)


def describe(store: Store, iri: URIRef) -> Graph:
    """Triples about ``iri``, its blank-node objects (one level) and incoming links."""
    n = iri.n3()
    q = f"""CONSTRUCT {{ {n} ?p ?o . ?o ?bp ?bo . ?s ?ip {n} }} WHERE {{
  {{ {n} ?p ?o OPTIONAL {{ FILTER(isBlank(?o)) ?o ?bp ?bo }} }}
  UNION {{ ?s ?ip {n} }}
}}"""
    res = store.query(q)
    assert isinstance(res, GraphResult)
    return res.graph


def labels(store: Store, terms: set[URIRef]) -> dict[URIRef, str]:
    """A display label for each IRI that has one (rdfs:label, skos:prefLabel, schema:name)."""
    if not terms:
        return {}
    values = " ".join(t.n3() for t in sorted(terms)[:500])
    props = " ".join(p.n3() for p in LABEL_PROPS)
    q = f"""SELECT ?s ?l WHERE {{ VALUES ?s {{ {values} }} VALUES ?p {{ {props} }} ?s ?p ?l }}"""
    res = store.query(q)
    assert isinstance(res, SelectResult)
    out: dict[URIRef, str] = {}
    for row in res.dicts():
        lab = row.get("l")
        s = row["s"]
        if (
            isinstance(s, URIRef)
            and isinstance(lab, Literal)
            and (s not in out or lab.language in (None, "en"))
        ):
            out[s] = str(lab)
    return out


@router.get(
    "/id/{path:path}",
    summary="Dereference an instance IRI minted under the base",
    responses={
        200: {"content": {t: {} for t in OFFERS}},
        **error_responses(404, 406),
    },
)
def dereference(
    path: str,
    request: Request,
    store: ReadStoreDep,
    settings: SettingsDep,
    format: str | None = Query(None, description="a media type, overriding Accept"),
) -> Response:
    if not _IRI_PATH.fullmatch(path):
        # control characters, spaces, <>"{}|\^` and the like make no IRI (the store
        # refused the query with a syntax error: a 500 before)
        raise NotFound("not an IRI path")
    iri = URIRef(settings.base + path)
    media = negotiate(format or request.headers.get("accept"), OFFERS, aliases={})
    try:
        graph = describe(store, iri)
    except QuerySyntaxError:  # an IRI the engine still refuses: nothing is known about it
        raise NotFound("not an IRI path") from None
    if len(graph) == 0:
        raise NotFound(f"nothing is known about <{iri}>")
    headers = {"Vary": "Accept"}
    if media != "text/html":
        return Response(serialise_graph(graph, media), media_type=media, headers=headers)
    return HTMLResponse(render_html(store, iri, graph, settings.base), headers=headers)


def _local(iri: str, base: str) -> str | None:
    return "/id/" + iri[len(base) :] if iri.startswith(base) else None


def render_html(store: Store, iri: URIRef, graph: Graph, base: str) -> str:
    g = new_graph()
    for t in graph:
        g.add(t)
    iris = {t for t in g.all_nodes() if isinstance(t, URIRef)} | set(g.predicates())
    names = labels(store, iris)  # type: ignore[arg-type]

    def term(t: object) -> str:
        if isinstance(t, URIRef):
            text = names.get(t) or _qname(g, t)
            href = _local(str(t), base) or str(t)
            tip = html.escape(str(t))
            return f'<a href="{html.escape(href)}" title="{tip}">{html.escape(text)}</a>'
        if isinstance(t, BNode):
            return (
                "["
                + "; ".join(f"{term(p)} {term(o)}" for p, o in sorted(g.predicate_objects(t)))
                + "]"
            )
        assert isinstance(t, Literal)
        suffix = f" @{t.language}" if t.language else ""
        return f"<span>{html.escape(str(t))}</span>{html.escape(suffix)}"

    title = names.get(iri) or str(iri)
    types = ", ".join(term(o) for o in sorted(g.objects(iri, RDF.type)))
    out_rows = "".join(
        f"<tr><td>{term(p)}</td><td>{term(o)}</td></tr>"
        for p, o in sorted(g.predicate_objects(iri))
        if p != RDF.type
    )
    in_rows = "".join(
        f"<tr><td>{term(s)}</td><td>{term(p)}</td></tr>"
        for s, p in sorted(g.subject_predicates(iri))
    )
    alt = "".join(
        f'<a href="?format={html.escape(m)}" rel="alternate" type="{m}">{m}</a> '
        for m in RDF_MEDIA_TYPES
    )
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>{html.escape(title)}</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}
td{{padding:.2em .6em;vertical-align:top}}</style>
</head><body>
<p><a href="/">reprokg</a></p>
<h1>{html.escape(title)}</h1>
<p><code>{html.escape(str(iri))}</code></p>
<p>Type: {types or "—"}</p>
<h2>Statements</h2><table>{out_rows}</table>
<h2>Referenced by</h2><table>{in_rows or "<tr><td>—</td></tr>"}</table>
<p>Also as RDF (send an Accept header): {alt}</p>
</body></html>"""


def _qname(g: Graph, iri: URIRef) -> str:
    try:
        return g.namespace_manager.normalizeUri(iri)
    except Exception:
        return str(iri)
