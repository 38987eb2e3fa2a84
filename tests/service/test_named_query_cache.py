"""The named-query result cache (sparql/cache.py) in the service: a repeated request is a
hit, any write invalidates it (the key holds the store version), and it can be turned off.
find-baselines answers from the store's leaderboard ranks the same rows as its template."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import XSD

from reprokg.core.identifiers import leaderboard_iri
from reprokg.core.namespaces import RK
from reprokg.core.settings import Settings
from reprokg.loaders.qrels import collection_iri
from reprokg.service.app import create_app
from reprokg.sparql.cache import ResultCache
from reprokg.store.oxigraph import OxigraphStore

EX = "http://example.org/"
MLS_VALUE = URIRef("http://www.w3.org/ns/mls#hasValue")
URL = "/queries/find-baselines?collection=toy/a&measure=map"


def _score(run: int, x: str) -> Graph:
    g = Graph()
    v = URIRef(f"{EX}score{run}")
    g.add((URIRef(f"{EX}run{run}"), RK.reportedScore, v))
    g.add((v, RK.onLeaderboard, leaderboard_iri(collection_iri("toy/a"), "map")))
    g.add((v, MLS_VALUE, Literal(x, datatype=XSD.decimal)))
    return g


def _runs(resp) -> list[str]:
    return [b["run"]["value"] for b in resp.json()["results"]["bindings"]]


@pytest.mark.slow
def test_hits_until_a_write(tmp_path: Path) -> None:
    store = OxigraphStore(tmp_path / "db")
    store.add_document(URIRef(EX + "d1"), _score(1, "0.5"))
    store.add_document(URIRef(EX + "d2"), _score(2, "0.7"))
    client = TestClient(create_app(Settings(access_log=False), store=store))
    first = client.get(URL)
    assert first.status_code == 200 and first.headers["X-Reprokg-Cache"] == "miss"
    assert _runs(first) == [EX + "run2", EX + "run1"]
    second = client.get(URL)
    assert second.headers["X-Reprokg-Cache"] == "hit" and second.content == first.content
    assert client.get(URL + "&format=csv").headers["X-Reprokg-Cache"] == "miss"  # own key
    store.add_document(URIRef(EX + "d3"), _score(3, "0.9"))  # any write: a new version
    third = client.get(URL)
    assert third.headers["X-Reprokg-Cache"] == "miss"
    assert _runs(third) == [EX + "run3", EX + "run2", EX + "run1"]
    store.delete_document(URIRef(EX + "d2"))
    assert _runs(client.get(URL)) == [EX + "run3", EX + "run1"]
    store.close()


@pytest.mark.slow
def test_cache_off(tmp_path: Path) -> None:
    store = OxigraphStore(tmp_path / "db")
    store.add_document(URIRef(EX + "d1"), _score(1, "0.5"))
    client = TestClient(create_app(Settings(access_log=False, named_query_cache_mb=0), store=store))
    assert client.get(URL).headers["X-Reprokg-Cache"] == "off"
    assert client.get(URL).headers["X-Reprokg-Cache"] == "off"
    store.close()


def test_lru_bounds() -> None:
    cache = ResultCache(max_bytes=1 << 20, max_entries=2)
    store = OxigraphStore()
    keys = [cache.key(store, "q", i) for i in range(3)]
    for i, k in enumerate(keys):
        cache.put(k, b"x" * 10, f"t{i}")
    assert (
        len(cache) == 2
        and cache.get(keys[0]) is None
        and cache.get(keys[2]) == (b"x" * 10, "t2", ())
    )
    cache.put(keys[0], b"y" * ((1 << 20) // 16 + 1), "big")  # beyond a sixteenth: not kept
    assert cache.get(keys[0]) is None
    assert cache.key(object(), "q") is None  # no version: not cacheable
