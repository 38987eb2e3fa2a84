"""Linked data: every IRI minted under the base dereferences at ``/id/{path}``.

RDF (Turtle, JSON-LD, N-Triples, RDF/XML) by ``Accept``; a readable HTML page otherwise.
The view is DESCRIBE-like: the resource's own triples, the blank nodes it points to (one
level, as in a concise bounded description) and the triples that point at it. The HTML
page (:mod:`reprokg.service.web.linked`) shows labels instead of bare IRIs.
"""

from __future__ import annotations

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from rdflib import Graph, URIRef
from rdflib.namespace import RDFS, SKOS

from reprokg.core.errors import NotFound
from reprokg.core.namespaces import SCHEMA
from reprokg.service.deps import ReadStoreDep, SettingsDep
from reprokg.sparql.results import RDF_MEDIA_TYPES, negotiate, serialise_graph
from reprokg.store.base import GraphResult, Store

router = APIRouter(tags=["linked data"])

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


@router.get(
    "/id/{path:path}",
    summary="Dereference an instance IRI minted under the base",
    responses={200: {"content": {t: {} for t in OFFERS}}},
)
def dereference(
    path: str,
    request: Request,
    store: ReadStoreDep,
    settings: SettingsDep,
    format: str | None = Query(None, description="a media type, overriding Accept"),
) -> Response:
    iri = URIRef(settings.base + path)
    if any(c in path for c in ' <>"{}|\\^`'):
        raise NotFound("not an IRI path")
    media = negotiate(format or request.headers.get("accept"), OFFERS, aliases={})
    graph = describe(store, iri)
    if len(graph) == 0:
        raise NotFound(f"nothing is known about <{iri}>")
    headers = {"Vary": "Accept"}
    if media != "text/html":
        return Response(serialise_graph(graph, media), media_type=media, headers=headers)
    from reprokg.service.web.linked import render  # the page, with labels (web views)

    html = render(request, store, iri, graph, settings.base)
    html.headers.update(headers)
    return html
