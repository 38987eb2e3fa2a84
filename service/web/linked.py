"""The HTML page of ``/id/…``: a resource's statements with labels instead of bare IRIs
(:mod:`reprokg.service.web.labels`). Links to IRIs under the base stay on the service
(``/id/…``), with a link to the web view where there is one (a paper's passport, a run's
card).
"""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import HTMLResponse
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF

from reprokg.core.namespaces import new_graph
from reprokg.service.web.labels import labels
from reprokg.service.web.render import href, page, short
from reprokg.sparql.result_formats import RDF_MEDIA_TYPES
from reprokg.store.base import Store


def render(request: Request, store: Store, iri: URIRef, graph: Graph, base: str) -> HTMLResponse:
    g = new_graph()
    for t in graph:
        g.add(t)
    iris = {t for t in g.all_nodes() if isinstance(t, URIRef)} | {
        p for p in g.predicates() if isinstance(p, URIRef)
    }
    found = labels(store, [str(i) for i in iris], base)
    names = {URIRef(k): v for k, v in found.items()}

    def local(t: URIRef) -> str:
        s = str(t)
        return "/id/" + s[len(base) :] if s.startswith(base) else s

    def term(t: object) -> dict:
        if isinstance(t, URIRef):
            return {"iri": str(t), "text": names.get(t) or short(str(t)), "href": local(t)}
        if isinstance(t, BNode):
            return {
                "node": [(term(p), term(o)) for p, o in sorted(g.predicate_objects(t))],
            }
        assert isinstance(t, Literal)
        return {"literal": str(t), "lang": t.language}

    view = href(str(iri), base)
    return page(
        request,
        "id.html",
        title=names.get(iri) or str(iri),
        iri=str(iri),
        view=view if view and not view.startswith(("/id/", "http")) else None,
        # rdflib orders its terms (Identifier.__lt__); the stub's Node does not say so
        types=[term(o) for o in sorted(g.objects(iri, RDF.type))],  # type: ignore[type-var]
        statements=[
            (term(p), term(o)) for p, o in sorted(g.predicate_objects(iri)) if p != RDF.type
        ],
        referenced=[(term(s), term(p)) for s, p in sorted(g.subject_predicates(iri))],
        rdf_types=RDF_MEDIA_TYPES,
        active="",
    )
