"""The document count and store version the embedded store keeps as it writes
(store/counters.py): right after every kind of write, across reopening, folding and
stores made before they existed; ``/health`` reads them without a scan."""

from __future__ import annotations

import io
from pathlib import Path

import pyoxigraph as ox
import pytest
from fastapi.testclient import TestClient
from rdflib import BNode, Graph, Literal, URIRef

import reprokg.store.counters as counters
from reprokg.core.settings import Settings
from reprokg.service.app import create_app
from reprokg.store.base import Counters, DocumentWrite, Liveness
from reprokg.store.merge import COUNTERS_MARKER
from reprokg.store.oxigraph import OxigraphStore

EX = "http://example.org/"


def _g(i: int, extra: str = "") -> Graph:
    g = Graph()
    g.add((URIRef(f"{EX}s{i}"), URIRef(EX + "p"), Literal(f"v{i}{extra}")))
    g.add((URIRef(EX + "shared"), URIRef(EX + "p"), Literal("same in all")))
    return g


def _doc(i: int) -> URIRef:
    return URIRef(f"{EX}doc{i}")


def _check(store: OxigraphStore, versions: list[int]) -> None:
    assert store.document_count() == len(store.documents())
    if versions:
        assert store.version() > versions[-1], "a write left the version as it was"
    versions.append(store.version())


@pytest.mark.slow
def test_every_write_path_keeps_the_count_and_moves_the_version(tmp_path: Path) -> None:
    store = OxigraphStore(tmp_path / "db")
    assert isinstance(store, Counters) and isinstance(store, Liveness)
    v: list[int] = []
    _check(store, [])
    v.append(store.version())
    store.add_document(_doc(1), _g(1))  # new graph: load
    _check(store, v)
    store.add_document(_doc(1), _g(1, "x"))  # same graph rewritten: update path
    _check(store, v)
    store.replace_document(_doc(2), _g(2), _doc(1))  # a revision
    _check(store, v)
    blank = _g(3)
    blank.add((BNode("b"), URIRef(EX + "p"), Literal("blank")))
    store.write_documents(
        [DocumentWrite(_doc(3), list(blank)), DocumentWrite(_doc(4), list(_g(4)))]
    )  # a fresh batch with a blank node: extend
    _check(store, v)
    store.write_documents(
        [DocumentWrite(_doc(5), list(_g(5)), _doc(4)), DocumentWrite(_doc(6), list(_g(6)))]
    )
    _check(store, v)
    assert store.delete_document(_doc(3))
    _check(store, v)
    assert not store.delete_document(_doc(3))  # nothing written: version stays
    assert store.version() == v[-1]
    store.update(f'INSERT DATA {{ GRAPH <{EX}doc7> {{ <{EX}a> <{EX}p> "u" }} }}')
    _check(store, v)
    store.update(f"DROP GRAPH <{EX}doc7>")
    _check(store, v)
    store.update(f'INSERT {{ GRAPH ?g {{ <{EX}a> <{EX}p> "all" }} }} WHERE {{ GRAPH ?g {{ }} }}')
    _check(store, v)  # written graphs unknown: a recount
    dump = io.BytesIO()
    store.dump(dump)
    other = OxigraphStore(None)
    other.restore(io.BytesIO(dump.getvalue()))
    assert other.document_count() == store.document_count() == len(other.documents())
    store.rebuild_merge()
    _check(store, v)
    store.update("DROP ALL")
    _check(store, v)
    assert store.document_count() == 0
    store.add_document(_doc(9), _g(9))
    _check(store, v)
    count, version = store.document_count(), store.version()
    store.close()
    again = OxigraphStore(tmp_path / "db")
    assert (again.document_count(), again.version()) == (count, version)
    again.close()
    ro = OxigraphStore(tmp_path / "db", read_only=True)
    assert (ro.document_count(), ro.version()) == (count, version)
    ro.close()


def test_deltas_are_folded_and_the_figures_survive(tmp_path: Path) -> None:
    store = OxigraphStore(tmp_path / "db")
    for i in range(counters.FOLD_AT + 40):
        store.add_document(_doc(i), _g(i))
    for i in range(0, 30, 3):
        store.delete_document(_doc(i))
    deltas = store._store.quads_for_pattern(None, counters._DELTA, None, counters._G)
    n_deltas = sum(1 for _ in deltas)
    del deltas  # an iterator keeps the database open
    assert n_deltas <= counters.FOLD_AT + 1
    count, version = store.document_count(), store.version()
    assert count == len(store.documents()) == counters.FOLD_AT + 30
    store.close()
    again = OxigraphStore(tmp_path / "db")
    assert (again.document_count(), again.version()) == (count, version)
    again.close()


def test_store_without_counters_is_counted_on_open(tmp_path: Path) -> None:
    store = OxigraphStore(tmp_path / "db")
    for i in range(5):
        store.add_document(_doc(i), _g(i))
    store._store.update(f"DROP GRAPH <{COUNTERS_MARKER}> ; DROP GRAPH <{counters.COUNTERS_GRAPH}>")
    store.close()
    ro = OxigraphStore(tmp_path / "db", read_only=True)
    assert ro.document_count() == 5
    ro.close()
    rw = OxigraphStore(tmp_path / "db")
    assert rw.document_count() == 5 and rw.version() >= 1
    rw.add_document(_doc(9), _g(9))
    assert rw.document_count() == 6
    rw.close()


class _CountingRaw:
    """A pyoxigraph store stand-in that records every call made on it."""

    def __init__(self, inner: ox.Store) -> None:
        self.inner = inner
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> object:
        self.calls.append(name)
        return getattr(self.inner, name)

    def __iter__(self):
        self.calls.append("__iter__")
        return iter(self.inner)


def test_health_reads_no_document(tmp_path: Path) -> None:
    store = OxigraphStore(tmp_path / "db")
    for i in range(20):
        store.add_document(_doc(i), _g(i))
    spy = _CountingRaw(store._store)
    store._store = spy  # every store call from here on is recorded

    def no_scan(*_a: object, **_k: object) -> None:
        raise AssertionError("/health scanned the store")

    store.documents = no_scan  # type: ignore[method-assign]
    store.query = no_scan  # type: ignore[method-assign]
    store.triple_count = no_scan  # type: ignore[method-assign]
    client = TestClient(create_app(Settings(access_log=False), store=store))
    for _ in range(3):
        body = client.get("/health").json()
        assert body["status"] == "ok" and body["documents"] == 20
    assert spy.calls == ["contains_named_graph"] * 3  # one point lookup a call
    store._store = spy.inner
    store.close()


def test_health_of_a_closed_store_is_unavailable(tmp_path: Path) -> None:
    store = OxigraphStore(tmp_path / "db")
    client = TestClient(create_app(Settings(access_log=False), store=store))
    assert client.get("/health").status_code == 200
    store.close()
    r = client.get("/health")
    assert r.status_code == 503 and r.json()["store"] == "unreachable"


@pytest.mark.parametrize("read_only", [False, True])
def test_in_memory_copy_keeps_the_figures(tmp_path: Path, read_only: bool) -> None:
    with OxigraphStore(tmp_path / "db") as store:
        for i in range(4):
            store.add_document(_doc(i), _g(i))
        expected = (store.document_count(), store.version())
    src = OxigraphStore(tmp_path / "db", read_only=read_only)
    mirror = src.in_memory_copy()
    assert (mirror.document_count(), mirror.version()) == expected
    assert mirror.merged and len(mirror.documents()) == 4
    src.close()
