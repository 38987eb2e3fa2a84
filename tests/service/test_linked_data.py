"""Minted IRIs dereference at /id/...: Turtle/JSON-LD by Accept, HTML otherwise."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF, RDFS

from reprokg.core.namespaces import RK
from reprokg.core.settings import Settings
from reprokg.service.app import create_app
from reprokg.store import open_store

BASE = "https://w3id.org/reprokg/id/"
RUN = URIRef(BASE + "run/bm25-robust04")
COLL = URIRef(BASE + "collection/robust04")
OTHER = URIRef(BASE + "run/other")
CPU = BNode("cpu1")
DOC = URIRef(BASE + "doc/" + "c" * 64)


def _data() -> Graph:
    g = Graph()
    g.add((RUN, RDF.type, RK.Run))
    g.add((RUN, RDFS.label, Literal("BM25 on Robust04", lang="en")))
    g.add((RUN, RK.testCollection, COLL))
    g.add((RUN, RK.cpu, CPU))
    g.add((CPU, RK.model, Literal("Xeon E5")))
    g.add((COLL, RDFS.label, Literal("TREC Robust 2004")))
    g.add((OTHER, RK.baselineRun, RUN))
    g.add((OTHER, RK.testCollection, COLL))  # not about RUN: must stay out
    return g


def _expected() -> set[tuple[str, str, str]]:
    """What the description of RUN must hold, written out by hand (bnode labels ignored)."""
    return {
        (str(RUN), str(RDF.type), str(RK.Run)),
        (str(RUN), str(RDFS.label), "BM25 on Robust04"),
        (str(RUN), str(RK.testCollection), str(COLL)),
        (str(RUN), str(RK.cpu), "_"),
        ("_", str(RK.model), "Xeon E5"),
        (str(OTHER), str(RK.baselineRun), str(RUN)),
    }


def _flat(g: Graph) -> set[tuple[str, str, str]]:
    return {
        tuple("_" if isinstance(t, BNode) else str(t) for t in triple)  # type: ignore[misc]
        for triple in g
    }


@pytest.fixture
def client():
    store = open_store(":memory:")
    store.add_document(DOC, _data())
    yield TestClient(create_app(Settings(access_log=False), store=store))
    store.close()


@pytest.mark.parametrize(
    ("accept", "fmt"),
    [
        ("text/turtle", "turtle"),
        ("application/ld+json", "json-ld"),
        ("application/n-triples", "nt"),
        ("application/rdf+xml", "xml"),
        ("text/html;q=0.5, text/turtle", "turtle"),
    ],
)
def test_rdf_by_accept(client, accept, fmt) -> None:
    r = client.get("/id/run/bm25-robust04", headers={"Accept": accept})
    assert r.status_code == 200
    assert r.headers["vary"] == "Accept"
    g = Graph().parse(data=r.content, format=fmt)
    assert _flat(g) == _expected()


def test_html_for_browsers_and_curl(client) -> None:
    for accept in ("text/html,application/xhtml+xml,*/*;q=0.8", "*/*", None):
        headers = {"Accept": accept} if accept else {}
        r = client.get("/id/run/bm25-robust04", headers=headers)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    page = r.text
    assert "<h1>BM25 on Robust04</h1>" in page
    assert "TREC Robust 2004" in page  # the object's label, not its IRI
    hrefs = re.findall(r'href="([^"]+)"', page)
    assert "/id/collection/robust04" in hrefs and "/id/run/other" in hrefs
    assert not [h for h in hrefs if h.startswith(BASE)], "links under the base stay on the service"
    assert "Xeon E5" in page


def test_format_parameter_overrides_accept(client) -> None:
    r = client.get("/id/run/bm25-robust04?format=text/turtle", headers={"Accept": "text/html"})
    assert r.headers["content-type"].startswith("text/turtle")


def test_unknown_iri_is_404(client) -> None:
    assert client.get("/id/run/nope").status_code == 404
    assert client.get("/id/run/%3Cx%3E").status_code == 404


def test_not_acceptable(client) -> None:
    assert client.get("/id/run/bm25-robust04", headers={"Accept": "image/png"}).status_code == 406


def test_document_iris_dereference(client) -> None:
    r = client.get("/id/doc/" + "c" * 64, headers={"Accept": "text/turtle"})
    assert r.status_code == 404  # the graph name itself has no triples here ...
    # ... but a document with provenance about itself does
    store = client.app.state.store
    g = Graph()
    g.add((DOC, RDF.type, RK.Document))
    store.add_document(DOC, g)
    r = client.get("/id/doc/" + "c" * 64, headers={"Accept": "text/turtle"})
    assert r.status_code == 200
    assert (DOC, RDF.type, RK.Document) in Graph().parse(data=r.text, format="turtle")


def test_configured_base() -> None:
    base = "https://example.org/kg/"
    store = open_store(":memory:")
    thing = URIRef(base + "thing/1")
    g = Graph()
    g.add((thing, RDFS.label, Literal("one")))
    store.add_document(URIRef(base + "doc/" + "d" * 64), g)
    client = TestClient(create_app(Settings(base=base, access_log=False), store=store))
    r = client.get("/id/thing/1", headers={"Accept": "text/turtle"})
    assert r.status_code == 200
    assert (thing, RDFS.label, Literal("one")) in Graph().parse(data=r.text, format="turtle")
    store.close()
