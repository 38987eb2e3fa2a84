"""The HTML page of ``/id/…``: a resource's statements with labels instead of bare IRIs.

Labels come from the store (``rdfs:label``, ``skos:prefLabel``, ``schema:name``), then
from the package's ontology (terms and concepts: ``S7 — …``), then from what a node *is*
when it has no name of its own: a finding reads as its audit attribute and evidence, a
measure value as its measure and value, a run as its tag, a metric comparison as its
metric and data set. Links to IRIs under the base stay on the service (``/id/…``), with
a link to the web view where there is one (a paper's passport, a run's card).
"""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import HTMLResponse
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF

from reprokg.core.namespaces import new_graph
from reprokg.service.web import vocabulary
from reprokg.service.web.render import href, page, short
from reprokg.service.web.view_queries import view_query
from reprokg.sparql.results import RDF_MEDIA_TYPES
from reprokg.store.base import SelectResult, Store

#: at most this many IRIs are looked up for labels on one page
MAX_LABELLED = 500


def _clip(text: str, n: int = 90) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def labels(store: Store, terms: set[URIRef]) -> dict[URIRef, str]:
    """A display label for each IRI that has one (store, ontology, or what it is)."""
    chosen = sorted(terms)[:MAX_LABELLED]
    out: dict[URIRef, str] = {}
    if not chosen:
        return out
    res = store.query(view_query("labels").bind({"s": [str(t) for t in chosen]}))
    assert isinstance(res, SelectResult)
    for row in res.dicts():
        s, lab = row.get("s"), row.get("l")
        fresh = isinstance(s, URIRef) and (s not in out or getattr(lab, "language", 1) is None)
        if isinstance(lab, Literal) and (fresh or lab.language == "en"):
            out[s] = str(lab)
    for t in chosen:
        if t not in out and (known := vocabulary.label(str(t))):
            out[t] = known
    rest = [t for t in chosen if t not in out]
    if rest:
        res = store.query(view_query("describe").bind({"s": [str(t) for t in rest]}))
        assert isinstance(res, SelectResult)
        for row in res.dicts():
            s = row["s"]
            if s in out or not isinstance(s, URIRef):
                continue
            if "attribute" in row:
                name = vocabulary.label(str(row["attribute"])) or short(str(row["attribute"]))
                evidence = f": {_clip(str(row['evidence']))}" if "evidence" in row else ""
                out[s] = f"finding {name}{evidence}"
            elif "measure" in row:
                parts = [str(row["measure"])]
                parts += [str(row["effectiveness"])] if "effectiveness" in row else []
                value = f" = {float(row['value']):.4g}" if "value" in row else ""
                out[s] = " ".join(parts) + value
            elif "tag" in row:
                out[s] = f"run {row['tag']}"
            elif "metric" in row:
                data = f" on {row['dataSet']}" if "dataSet" in row else ""
                out[s] = f"{row['metric']}{data}"
    return out


def render(request: Request, store: Store, iri: URIRef, graph: Graph, base: str) -> HTMLResponse:
    g = new_graph()
    for t in graph:
        g.add(t)
    iris = {t for t in g.all_nodes() if isinstance(t, URIRef)} | {
        p for p in g.predicates() if isinstance(p, URIRef)
    }
    names = labels(store, iris)

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
        types=[term(o) for o in sorted(g.objects(iri, RDF.type))],
        statements=[
            (term(p), term(o)) for p, o in sorted(g.predicate_objects(iri)) if p != RDF.type
        ],
        referenced=[(term(s), term(p)) for s, p in sorted(g.subject_predicates(iri))],
        rdf_types=RDF_MEDIA_TYPES,
        active="",
    )
