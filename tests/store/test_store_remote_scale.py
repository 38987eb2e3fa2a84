"""Remote engines beyond ~10k documents: requests that do not grow with the documents, and
counters kept in the engine (one version for every client of one engine).

Engines are the ones ``tests/engines.py`` starts (skipped locally when missing, required in
CI). Expected values are the documents the test itself wrote.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from rdflib import BNode, Graph, Literal, URIRef

from reprokg.store import SelectResult, open_store
from reprokg.store import remote as remote_mod
from reprokg.store.remote import RemoteStore
from tests.engines import oxigraph_server, virtuoso_server  # noqa: F401 - fixtures

EX = "http://example.org/scale/"
P = URIRef(EX + "p")

pytestmark = [pytest.mark.slow, pytest.mark.engine]  # engines start once per session (~20 s)


@pytest.fixture(params=["oxigraph-server", "virtuoso"])
def url(request: pytest.FixtureRequest) -> Iterator[str]:
    fixture = "oxigraph_server" if request.param == "oxigraph-server" else "virtuoso_server"
    url = request.getfixturevalue(fixture)
    yield url
    s = open_store(url)
    for g in s.documents():
        s.delete_document(g)
    s.close()


def doc(n: int) -> Graph:
    g = Graph()
    g.add((URIRef(f"{EX}s{n}"), P, Literal(n)))
    return g


def fresh(url: str) -> RemoteStore:
    s = open_store(url)
    assert isinstance(s, RemoteStore)
    for g in s.documents():
        s.delete_document(g)
    return s


def request_sizes(store: RemoteStore, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Record the body size of every request the store sends."""
    sizes: list[int] = []
    post = store._client.post

    def spy(url: str, *, content: bytes = b"", **kw: object):  # type: ignore[no-untyped-def]
        sizes.append(len(content))
        return post(url, content=content, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(store._client, "post", spy)
    return sizes


@pytest.mark.parametrize(
    "sparql",
    [
        f"SELECT ?s WHERE {{ ?s <{P}> ?o }}",
        f"SELECT ?g ?s WHERE {{ GRAPH ?g {{ ?s <{P}> ?o }} }}",
    ],
)
def test_query_request_does_not_grow_with_documents(
    url: str, sparql: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same query at 3 and at 40 documents sends one request of the same size (on main,
    Virtuoso got one ``named-graph-uri`` per document after a listing query)."""
    store = fresh(url)
    store.merged  # noqa: B018 - the merge and counters exist before measuring
    measured = []
    for n in (3, 40):
        for i in range(n):
            store.add_document(f"{EX}g{i}", doc(i))
        sizes = request_sizes(store, monkeypatch)
        res = store.query(sparql)
        monkeypatch.undo()
        assert isinstance(res, SelectResult) and len(res.rows) == n
        measured.append(sizes)
    assert len(measured[0]) == len(measured[1]) == 1
    assert measured[0] == measured[1]
    store.close()


def test_graph_variable_ranges_over_documents_only(url: str) -> None:
    """``GRAPH ?g`` sees the documents, never the merge graph or the engine's system graphs
    (the counters graph holds no triple with the documents' predicate)."""
    store = fresh(url)
    for i in range(3):
        store.add_document(f"{EX}g{i}", doc(i))
    res = store.query(f"SELECT DISTINCT ?g WHERE {{ GRAPH ?g {{ ?s <{P}> ?o }} }} ORDER BY ?g")
    assert isinstance(res, SelectResult)
    assert [str(r[0]) for r in res.rows] == [f"{EX}g{i}" for i in range(3)]
    res = store.query("SELECT (COUNT(DISTINCT ?g) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }")
    assert isinstance(res, SelectResult)
    # the documents, plus (like the embedded store) the counters graph; no system graph
    assert int(res.rows[0][0]) <= 4  # type: ignore[arg-type]
    store.close()


def test_a_write_through_one_client_is_seen_by_another_at_once(url: str) -> None:
    """Two RemoteStore objects (two processes in spirit) read one version and count."""
    writer, reader = fresh(url), open_store(url, read_only=True)
    assert isinstance(reader, RemoteStore)
    before = reader.version()
    assert reader.document_count() == 0
    writer.add_document(f"{EX}g1", doc(1))
    assert reader.version() > before
    assert reader.document_count() == 1
    v = reader.version()
    writer.add_document(f"{EX}g1", doc(2))  # a rewrite: the version moves, the count stays
    assert reader.version() > v
    assert reader.document_count() == 1
    writer.replace_document(f"{EX}g2", doc(3), f"{EX}g1")
    assert reader.document_count() == 1
    assert writer.delete_document(f"{EX}g2")
    assert reader.document_count() == 0
    writer.close()
    reader.close()


def test_counts_survive_folds_updates_and_concurrent_writers(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deltas computed by the engine stay exact with two writers at once; folding keeps
    the count and never moves the version back; a SPARQL Update recounts."""
    monkeypatch.setattr(remote_mod, "FOLD_AT", 5)
    a, b = fresh(url), open_store(url)
    assert isinstance(b, RemoteStore)
    versions: dict[int, list[int]] = {0: [], 8: []}

    def write(store: RemoteStore, start: int) -> None:
        for i in range(start, start + 12):
            store.add_document(f"{EX}g{i % 16}", doc(i))  # overlapping graphs
            versions[start].append(store.version())

    threads = [threading.Thread(target=write, args=(s, k)) for s, k in ((a, 0), (b, 8))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for seen in versions.values():  # each writer reads its own writes: strictly later
        assert seen == sorted(set(seen))
    assert len(a.documents()) == 16  # graphs 0..15, counted by listing them
    assert a.document_count() == b.document_count() == 16
    v = a.version()
    a.update(f'INSERT DATA {{ GRAPH <{EX}extra> {{ <{EX}x> <{P}> "x" }} }}')
    assert b.document_count() == 17
    assert b.version() > v
    a.close()
    b.close()


def test_rebuild_merge_is_one_request_of_constant_size(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``rebuild-merge`` (after a bulk load beside reprokg) sends one request whatever the
    number of documents (on main, Virtuoso's was one ``INSERT`` per document), and the
    merge it builds holds each document triple once and no system graph's triple."""
    store = fresh(url)
    measured = []
    for n in (3, 30):
        for i in range(n):
            store.add_document(f"{EX}g{i}", doc(i % 10))  # 10 distinct triples
        sizes = request_sizes(store, monkeypatch)
        store.rebuild_merge()
        monkeypatch.undo()
        measured.append(sizes)
        res = store.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
        assert isinstance(res, SelectResult)
        assert int(res.rows[0][0]) == min(n, 10)  # type: ignore[arg-type]
        assert store.document_count() == n
    assert measured[0] == measured[1] and len(measured[0]) <= 2
    store.close()


def test_restore_sends_one_request_per_batch_not_per_graph(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``reprokg restore`` into an engine: a dump of 60 documents (one with a blank node)
    goes in a few requests, not one a graph (on main: 60 updates and the folds), and every
    graph, the merge and the document count are what the dump holds."""
    import io

    src = fresh(url)
    for i in range(60):
        src.add_document(f"{EX}g{i}", doc(i))
    odd = Graph()
    odd.add((URIRef(f"{EX}odd"), P, BNode()))
    src.add_document(f"{EX}bnode", odd)
    dump = io.BytesIO()
    src.dump(dump)
    for g in src.documents():
        src.delete_document(g)
    assert src.document_count() == 0
    src.close()

    store = fresh(url)
    store.merged  # noqa: B018 - the merge and counters exist before measuring
    before = store.version()
    sizes = request_sizes(store, monkeypatch)
    store.restore(io.BytesIO(dump.getvalue()))
    monkeypatch.undo()
    assert 2 <= len(sizes) <= 4, sizes  # the 60 plain graphs batched, the blank node alone
    assert store.document_count() == 61
    assert store.version() > before
    assert sorted(str(g) for g in store.documents()) == sorted(
        [f"{EX}g{i}" for i in range(60)] + [f"{EX}bnode"]
    )
    res = store.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ ?s <{P}> ?o }}")  # the merge
    assert isinstance(res, SelectResult) and int(res.rows[0][0]) == 61  # type: ignore[arg-type]
    assert len(store.get_document(f"{EX}g7")) == 1
    store.restore(io.BytesIO(dump.getvalue()))  # again: adds nothing new, counts nothing
    assert store.document_count() == 61
    store.close()
