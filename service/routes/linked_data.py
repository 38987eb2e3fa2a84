"""Linked data: every IRI minted under the base dereferences at ``/id/{path}``.

RDF (Turtle, JSON-LD, N-Triples, RDF/XML) by ``Accept``; a readable HTML page otherwise.
The view is DESCRIBE-like: the resource's own triples, the blank nodes it points to (one
level, as in a concise bounded description) and the triples that point at it. The HTML
page (:mod:`reprokg.service.web.linked`) shows labels instead of bare IRIs.
"""

from __future__ import annotations

import re

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from rdflib import Graph, URIRef
from rdflib.namespace import RDFS, SKOS

from reprokg.core.errors import NotFound, QuerySyntaxError
from reprokg.core.namespaces import SCHEMA
from reprokg.service.deps import ReadStoreDep, SettingsDep, error_responses
from reprokg.sparql.result_formats import RDF_MEDIA_TYPES, negotiate, serialise_graph
from reprokg.store.base import GraphResult, Store

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
#: a document id or a prefix of one, as ``reprokg list`` and every ``--save`` print it
_SHORT_ID = re.compile("[0-9a-fA-F]{4,64}")


def _carried(store: Store, ident: str, base: str, request: Request) -> Response:
    """``/id/0925391c``: 303 to the page of what the document is about (the one resolver,
    :func:`reprokg.store.catalog.resolve`; an ambiguous prefix is a 400 naming them)."""
    from fastapi.responses import RedirectResponse

    from reprokg.store.catalog import resolve

    found = resolve(store, ident, base=base)
    target = str(found.target)
    if not target.startswith(base):  # a DOI or an ORCID: the document's own page
        target = str(found.document)
    url = "/id/" + target.removeprefix(base)
    if request.url.query:
        url += "?" + request.url.query
    return RedirectResponse(url, status_code=303)


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
    response_class=Response,
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
    if "/" not in path and _SHORT_ID.fullmatch(path):  # an id a command printed
        return _carried(store, path, settings.base, request)
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
    from reprokg.service.web.linked import render  # the page, with labels (web views)

    html = render(request, store, iri, graph, settings.base)
    html.headers.update(headers)
    return html
