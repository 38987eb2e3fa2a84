"""The views' caches follow the store: a document written after a page was served shows
on the next request (the papers index keys on the store's write counter)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF

from reprokg.core.settings import Settings
from reprokg.service.app import create_app
from reprokg.service.web.render import GenerationCache
from reprokg.store import open_store

SCHEMA = "http://schema.org/"


def _paper(n: int) -> Graph:
    g = Graph()
    p = URIRef(f"https://doi.org/10.5555/cache.{n}")
    g.add((p, RDF.type, URIRef(SCHEMA + "ScholarlyArticle")))
    g.add((p, URIRef(SCHEMA + "name"), Literal(f"Paper {n}")))
    return g


@pytest.mark.slow
def test_a_new_document_shows_on_the_next_request() -> None:
    store = open_store(":memory:")
    store.add_document("https://w3id.org/reprokg/id/doc/" + "a" * 64, _paper(1))
    app = create_app(Settings(store=":memory:", access_log=False), store=store)
    with TestClient(app) as client:
        first = client.get("/papers?format=json").json()["rows"]
        assert [r["title"] for r in first] == ["Paper 1"]
        store.add_document("https://w3id.org/reprokg/id/doc/" + "b" * 64, _paper(2))
        second = client.get("/papers?format=json").json()["rows"]
        assert [r["title"] for r in second] == ["Paper 1", "Paper 2"]
        home = {r["what"]: r["n"] for r in client.get("/?format=json").json()["rows"]}
        assert home["papers"] == 2


def test_the_cache_is_bounded() -> None:
    store = open_store(":memory:")
    cache = GenerationCache()
    cache.size = 3
    for i in range(10):
        assert cache.get(store, f"k{i}", lambda i=i: i) == i
    assert len(cache._values) == 3
