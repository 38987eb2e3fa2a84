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
            raw = s._store  # noqa: SLF001 - every quad, bookkeeping included
            stored[how] = {q for q in raw if q.graph_name != ox.NamedNode(COUNTERS_GRAPH)}
    assert len(stored["bulk"]) >= quads // 2
    assert stored["bulk"] == stored["transaction"]
