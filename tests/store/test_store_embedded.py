"""Embedded-store specifics: open_store specs, read-only, backup, blobs, query time limits."""

from __future__ import annotations

import hashlib

import pytest
from rdflib import Graph, Literal, URIRef

from reprokg.core.errors import QueryTimeout, StoreError
from reprokg.store import open_store
from reprokg.store.oxigraph import OxigraphStore

EX = "http://example.org/"


def small(n: int) -> Graph:
    g = Graph()
    for i in range(n):
        g.add((URIRef(f"{EX}s{i}"), URIRef(EX + "p"), Literal(i)))
    return g


def test_directory_spec_layout(tmp_path) -> None:
    with open_store(tmp_path / "kg") as s:
        assert isinstance(s, OxigraphStore)
        s.add_document(EX + "g", small(2))
        s.store_blob(b"x")
    assert (tmp_path / "kg" / "oxigraph" / "CURRENT").is_file()
    sha = hashlib.sha256(b"x").hexdigest()
    assert (tmp_path / "kg" / "blobs" / sha[:2] / sha).read_bytes() == b"x"


def test_env_default_and_memory(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("REPROKG_STORE", str(tmp_path / "fromenv"))
    with open_store() as s:
        s.add_document(EX + "g", small(1))
    assert (tmp_path / "fromenv" / "oxigraph").is_dir()
    with open_store(":memory:") as m:
        assert m.documents() == []


def test_bare_oxigraph_directory_is_opened_as_is(tmp_path) -> None:
    import pyoxigraph as ox

    raw = ox.Store(str(tmp_path / "raw"))
    raw.add(
        ox.Quad(
            ox.NamedNode(EX + "s"), ox.NamedNode(EX + "p"), ox.Literal("o"), ox.NamedNode(EX + "g")
        )
    )
    raw.flush()
    del raw
    with open_store(tmp_path / "raw") as s:
        assert s.documents() == [URIRef(EX + "g")]


def test_read_only_reads_and_refuses_writes(tmp_path) -> None:
    with open_store(tmp_path / "kg") as s:
        s.add_document(EX + "g", small(3))
    with open_store(tmp_path / "kg", read_only=True) as ro:
        assert ro.triple_count() == 3
        with pytest.raises(StoreError):
            ro.add_document(EX + "g2", small(1))
        with pytest.raises(StoreError):
            ro.update(f'INSERT DATA {{ <{EX}a> <{EX}b> "c" }}')
    with pytest.raises(StoreError):
        open_store(tmp_path / "missing", read_only=True)


def test_backup_is_an_openable_store_with_blobs(tmp_path) -> None:
    with open_store(tmp_path / "kg") as s:
        s.add_document(EX + "g", small(4))
        sha = s.store_blob(b"run lines")
        s.backup(tmp_path / "bak")
        with pytest.raises(StoreError):
            s.backup(tmp_path / "bak")  # never overwrites
        s.add_document(EX + "later", small(1))
    with open_store(tmp_path / "bak", read_only=True) as b:
        assert b.documents() == [URIRef(EX + "g")]
        assert b.triple_count() == 4
        assert b.get_blob(sha) == b"run lines"


def test_blob_names_are_sha256_and_unknown_is_none(tmp_path) -> None:
    with open_store(tmp_path / "kg") as s:
        a = s.store_blob(b"same")
        assert s.store_blob(b"same") == a == hashlib.sha256(b"same").hexdigest()
        assert s.get_blob("0" * 64) is None
        assert s.get_blob("../../etc/passwd") is None


@pytest.mark.slow
def test_query_time_limit_raises(tmp_path) -> None:
    with open_store(tmp_path / "kg") as s:
        s.add_document(EX + "g", small(3000))
        # a 9-million-row cross product, streamed: stopped at the limit, not finished
        with pytest.raises(QueryTimeout):
            s.query("SELECT * WHERE { ?a ?p ?x . ?b ?q ?y }", timeout=0.2)
        # the store still answers afterwards
        assert s.query(f"ASK {{ <{EX}s1> ?p ?o }}").value is True


def test_url_spec_opens_remote_with_dialect(tmp_path) -> None:
    from reprokg.store.remote import RemoteStore

    s = open_store("virtuoso+http://127.0.0.1:9/sparql", blob_dir=tmp_path / "b")
    assert isinstance(s, RemoteStore)
    assert s.dialect == "virtuoso" and s.url == "http://127.0.0.1:9/sparql"
    with pytest.raises(StoreError):
        s.documents()  # nothing listens on port 9
    s.close()


@pytest.mark.slow
@pytest.mark.parametrize("blank", [False, True], ids=["n-quads", "quad-objects"])
def test_bulk_and_transactional_writes_store_the_same(
    mlrc_docs, tmp_path, monkeypatch, blank
) -> None:
    """A batch of new documents from ``BULK_MIN_QUADS`` quads goes to pyoxigraph's bulk
    loader instead of a transaction (store/oxigraph.py): the same quads either way, on the
    71 real MLRC headers with their provenance (and, for the Quad-object form a blank node
    forces, one document with a blank node added)."""
    from datetime import UTC, datetime

    import pyoxigraph as ox
    from rdflib import BNode

    import reprokg.store.oxigraph as embedded
    from reprokg.ingest import provenance_triples
    from reprokg.store.base import DocumentWrite
    from reprokg.store.merge import COUNTERS_GRAPH

    when = datetime(2026, 11, 26, tzinfo=UTC)
    writes = [
        DocumentWrite(d.iri, [*d.graph, *provenance_triples(d, when=when)]) for d in mlrc_docs
    ]
    if blank:
        b = BNode("b0")
        writes.append(DocumentWrite(URIRef(EX + "g-blank"), [(b, URIRef(EX + "p"), Literal("x"))]))
    quads = 2 * sum(len(w.triples) for w in writes)
    stored = {}
    for how, threshold in (("transaction", quads + 10), ("bulk", quads)):
        monkeypatch.setattr(embedded, "BULK_MIN_QUADS", threshold)
        with open_store(tmp_path / how) as s:
            s.write_documents(writes)
            assert s.document_count() == len(writes)  # the count's delta in the same call
            raw = s._store
            stored[how] = {q for q in raw if q.graph_name != ox.NamedNode(COUNTERS_GRAPH)}
    assert len(stored["bulk"]) >= quads // 2
    assert stored["bulk"] == stored["transaction"]


@pytest.mark.slow
def test_bulk_and_transactional_restores_store_the_same(mlrc_docs, tmp_path, monkeypatch) -> None:
    """A restore from ``BULK_MIN_QUADS`` quads is one streamed call of pyoxigraph's bulk
    loader (store/oxigraph.py): the same quads as the transaction, the same document count,
    on a dump of the 71 real MLRC headers with their provenance, plus what a restore moves
    or drops: a blank node, a default-graph triple (a pre-merge dump) and a quad of a
    reserved graph."""
    import io

    import pyoxigraph as ox

    import reprokg.store.oxigraph as embedded
    from reprokg.ingest import ingest
    from reprokg.store.merge import COUNTERS_GRAPH, LEGACY_DEFAULT_GRAPH, RANKS_GRAPH

    with open_store(":memory:") as source:
        assert ingest(source, mlrc_docs).count("added") == len(mlrc_docs)
        buf = io.BytesIO()
        source.dump(buf)
    extra = (
        f'_:b0 <{EX}p> "blank" <{EX}g-blank> .\n'
        f'<{EX}pre-merge> <{EX}p> "own" .\n'
        f'<{EX}board> <{EX}p> "not restored" <{RANKS_GRAPH}> .\n'
    )
    dump = buf.getvalue() + extra.encode()
    quads = dump.count(b"\n")
    stored = {}
    for how, threshold in (("transaction", quads + 10), ("bulk", 1)):
        monkeypatch.setattr(embedded, "BULK_MIN_QUADS", threshold)
        with open_store(tmp_path / how) as s:
            s.restore(io.BytesIO(dump))
            assert ("restore" in s.maintenance) == (how == "bulk")
            assert s.document_count() == len(mlrc_docs) + 2  # g-blank and the legacy graph
            raw = s._store
            stored[how] = {q for q in raw if q.graph_name != ox.NamedNode(COUNTERS_GRAPH)}
            del raw  # it would keep the database locked
        with open_store(tmp_path / how) as s:  # the count as stored, not as kept in memory
            assert s.document_count() == len(mlrc_docs) + 2
    legacy = ox.NamedNode(LEGACY_DEFAULT_GRAPH)
    assert (
        ox.Quad(ox.NamedNode(EX + "pre-merge"), ox.NamedNode(EX + "p"), ox.Literal("own"), legacy)
        in stored["bulk"]
    )
    assert not any(q.object == ox.Literal("not restored") for q in stored["bulk"])
    assert any(
        isinstance(q.subject, ox.BlankNode) and q.graph_name == ox.DefaultGraph()
        for q in stored["bulk"]
    )
    assert len(stored["bulk"]) >= quads
    assert stored["bulk"] == stored["transaction"]


def test_a_store_reopens_while_a_closed_handle_waits_for_collection(tmp_path) -> None:
    """pyoxigraph releases RocksDB's lock when a handle is collected; a reference cycle
    holding a lazy result kept it past ``close()`` and the next open in the same process
    failed ("lock hold by current process": a flaky test of the disputes API did so)."""
    import gc

    enabled = gc.isenabled()
    gc.disable()  # the cycle must survive until the reopen
    try:
        store = open_store(tmp_path / "kg")
        store.add_document(EX + "g", small(2))
        cycle: list = [store.native_query("SELECT * WHERE { ?s ?p ?o }")]
        cycle.append(cycle)
        del cycle
        store.close()
        again = open_store(tmp_path / "kg")
        assert again.documents() == [URIRef(EX + "g")]
        again.close()
    finally:
        if enabled:
            gc.enable()
