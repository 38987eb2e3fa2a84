"""One contract for every store backend: embedded pyoxigraph, Oxigraph server, Virtuoso 7.

Expected values are the triples the test itself wrote; engines are started on loopback
by ``tests/engines.py`` (skipped locally when missing, required in CI).
"""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.compare import isomorphic
from rdflib.namespace import XSD

from reprokg.core.errors import QuerySyntaxError, StoreError
from reprokg.store import AskResult, GraphResult, SelectResult, Store, open_store
from reprokg.store.remote import RemoteStore as _Remote
from tests.engines import oxigraph_server, virtuoso_server  # noqa: F401 - fixtures

EX = "http://example.org/"
G1, G2, G3 = URIRef(EX + "g1"), URIRef(EX + "g2"), URIRef(EX + "g3")
P = URIRef(EX + "p")
Q = URIRef(EX + "q")


def same(a: Graph, b: Graph) -> bool:
    """Isomorphic up to language-tag case (RDF 1.1: tags compare case-insensitively;
    Oxigraph and Virtuoso store them lower-cased)."""

    def norm(g: Graph) -> Graph:
        out = Graph()
        for s, p, o in g:
            if isinstance(o, Literal) and o.language:
                o = Literal(str(o), lang=o.language.lower())
            out.add((s, p, o))
        return out

    return isomorphic(norm(a), norm(b))


def _clear(store: Store) -> None:
    for g in store.documents():
        store.delete_document(g)


#: the SPARQL engines start once per session (tens of seconds): slow, the embedded store not
ENGINE = pytest.mark.slow


@pytest.fixture(
    params=[
        "embedded",
        pytest.param("oxigraph-server", marks=ENGINE),
        pytest.param("virtuoso", marks=ENGINE),
    ]
)
def store(request: pytest.FixtureRequest, tmp_path) -> Iterator[Store]:
    if request.param == "embedded":
        s = open_store(tmp_path / "store")
    else:
        fixture = "oxigraph_server" if request.param == "oxigraph-server" else "virtuoso_server"
        url = request.getfixturevalue(fixture)
        s = open_store(url, blob_dir=tmp_path / "blobs")
        _clear(s)
    try:
        yield s
    finally:
        if request.param != "embedded":
            _clear(s)
        s.close()


def doc(n: int, extra: int = 0) -> Graph:
    g = Graph()
    s = URIRef(f"{EX}s{n}")
    g.add((s, P, Literal(f"value {n}")))
    for i in range(extra):
        g.add((s, Q, Literal(i)))
    return g


def rich_graph() -> Graph:
    """Unicode, language tags, typed literals and a blank node structure."""
    g = Graph()
    s = URIRef(EX + "run")
    b = BNode()
    g.add((s, P, Literal("Ünïcødé — 検索 😀")))
    g.add((s, P, Literal("chat", lang="fr")))
    g.add((s, P, Literal("colour", lang="en-GB")))
    g.add((s, Q, Literal("42", datatype=XSD.integer)))
    # canonical lexical form: engines store numbers by value (Oxigraph writes "0.10" back
    # as "0.1"), which is why loaders keep versions like "3.10" as strings
    g.add((s, Q, Literal("0.5", datatype=XSD.decimal)))
    g.add((s, Q, Literal("3.10")))
    g.add((s, Q, Literal("2024-05-01T12:00:00Z", datatype=XSD.dateTime)))
    g.add((s, Q, Literal("true", datatype=XSD.boolean)))
    g.add((s, Q, Literal("x", datatype=URIRef(EX + "customType"))))
    g.add((s, URIRef(EX + "hasPart"), b))
    g.add((b, P, Literal("inside a blank node")))
    g.add((b, Q, URIRef(EX + "other")))
    return g


def test_add_and_get_roundtrip_rich_terms(store: Store) -> None:
    g = rich_graph()
    store.add_document(G1, g)
    assert store.documents() == [G1]
    back = store.get_document(G1)
    assert len(back) == len(g) == 12
    assert same(back, g)


def test_unicode_and_language_tag_query(store: Store) -> None:
    store.add_document(G1, rich_graph())
    res = store.query(
        f'SELECT ?o WHERE {{ <{EX}run> <{P}> ?o FILTER(langMatches(lang(?o), "fr")) }}'
    )
    assert isinstance(res, SelectResult)
    assert [r[0] for r in res.rows] == [Literal("chat", lang="fr")]
    res = store.query(f'ASK {{ <{EX}run> <{P}> "Ünïcødé — 検索 😀" }}')
    assert res == AskResult(True)


def test_typed_literals_compare_by_value(store: Store) -> None:
    store.add_document(G1, rich_graph())
    res = store.query(f"SELECT ?o WHERE {{ ?s <{Q}> ?o FILTER(isNumeric(?o) && ?o > 41) }}")
    assert isinstance(res, SelectResult)
    assert [r[0] for r in res.rows] == [Literal("42", datatype=XSD.integer)]


def test_blank_nodes_join_within_a_document(store: Store) -> None:
    store.add_document(G1, rich_graph())
    res = store.query(
        f"SELECT ?v ?o WHERE {{ <{EX}run> <{EX}hasPart> ?b . ?b <{P}> ?v . ?b <{Q}> ?o }}"
    )
    assert isinstance(res, SelectResult)
    assert res.rows == [(Literal("inside a blank node"), URIRef(EX + "other"))]


def test_idempotent_readd(store: Store) -> None:
    store.add_document(G1, doc(1, extra=3))
    store.add_document(G1, doc(1, extra=3))
    assert store.documents() == [G1]
    assert store.triple_count() == 4


def test_add_replaces_previous_content_of_same_graph(store: Store) -> None:
    store.add_document(G1, doc(1, extra=5))
    store.add_document(G1, doc(2))
    assert same(store.get_document(G1), doc(2))


def test_replace_document_writes_new_and_drops_old(store: Store) -> None:
    store.add_document(G1, doc(1))
    store.add_document(G2, doc(2))
    store.replace_document(G3, doc(3), G1)
    assert store.documents() == [G2, G3]
    assert same(store.get_document(G3), doc(3))
    assert len(store.get_document(G1)) == 0


def test_write_documents_in_order(store: Store) -> None:
    from reprokg.store.base import DocumentWrite

    store.write_documents([DocumentWrite(G1, list(doc(1))), DocumentWrite(G2, list(doc(2)))])
    assert store.documents() == [G1, G2]
    # a revision of G1 and of that revision, in one call: only the last survives
    store.write_documents(
        [DocumentWrite(G3, list(doc(3)), replaces=G1), DocumentWrite(G1, list(doc(4)), G3)]
    )
    assert store.documents() == [G1, G2]
    assert same(store.get_document(G1), doc(4))
    bad = list(doc(5)) + [(URIRef("bad iri"), P, Literal("x"))]
    with pytest.raises(StoreError):
        store.write_documents([DocumentWrite(G3, list(doc(3))), DocumentWrite(EX + "g5", bad)])
    # every backend: the whole call is one transaction (remote: one update request), and a
    # bad term is found before anything is sent
    assert store.documents() == [G1, G2]


def test_failed_replace_leaves_old_version(store: Store) -> None:
    store.add_document(G1, doc(1))
    bad = doc(3)
    bad.add((URIRef("not an iri with spaces"), P, Literal("x")))
    with pytest.raises(StoreError):
        store.replace_document(G3, bad, G1)
    assert store.documents() == [G1]
    assert same(store.get_document(G1), doc(1))


def test_delete(store: Store) -> None:
    store.add_document(G1, doc(1))
    store.add_document(G2, doc(2))
    assert store.delete_document(G1) is True
    assert store.delete_document(G1) is False
    assert store.documents() == [G2]
    assert store.query(f"ASK {{ <{EX}s1> ?p ?o }}") == AskResult(False)


def test_pages_of_documents_list_each_once(store: Store) -> None:
    """``documents_page`` (what ``GET /documents`` reads instead of every graph) walks the
    documents the store holds, each once across the pages, in an order that does not
    change between reads; a deleted document leaves the pages."""
    from reprokg.store.base import DocumentWrite

    graphs = [URIRef(f"{EX}paged{i:02}") for i in range(23)]
    store.write_documents([DocumentWrite(g, list(doc(i))) for i, g in enumerate(graphs)])
    store.delete_document(graphs[5])
    pages = [store.documents_page(offset, 4) for offset in range(0, 28, 4)]
    assert [len(p) for p in pages] == [4, 4, 4, 4, 4, 2, 0]
    walked = [g for p in pages for g in p]
    assert sorted(walked) == sorted(set(graphs) - {graphs[5]}) == store.documents()
    assert store.documents_page(8, 4) == pages[2]  # the same page read again
    assert store.documents_page(0, 100) == walked


def test_default_graph_is_union_of_documents(store: Store) -> None:
    store.add_document(G1, doc(1, extra=2))
    store.add_document(G2, doc(2, extra=1))
    res = store.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    assert isinstance(res, SelectResult)
    assert int(res.rows[0][0]) == 5
    res = store.query(f"SELECT ?s WHERE {{ ?s <{P}> ?o }} ORDER BY ?s")
    assert [r[0] for r in res.rows] == [URIRef(EX + "s1"), URIRef(EX + "s2")]


@pytest.mark.slow
def test_default_graph_is_a_set(store: Store) -> None:
    """A triple held by two documents is in the default graph once (RDF merge)."""
    shared = (URIRef(EX + "paper"), P, Literal("shared"))
    g1, g2 = doc(1), doc(2)
    g1.add(shared)
    g2.add(shared)
    store.add_document(G1, g1)
    store.add_document(G2, g2)
    n_all = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    n_shared = f"SELECT (COUNT(*) AS ?n) WHERE {{ <{EX}paper> ?p ?o }}"

    def count(q: str) -> int:
        res = store.query(q)
        assert isinstance(res, SelectResult)
        return int(res.rows[0][0])

    assert (count(n_all), count(n_shared)) == (3, 1)
    store.add_document(G1, doc(1))  # revision without the shared triple
    assert (count(n_all), count(n_shared)) == (3, 1)
    store.add_document(G3, g2)
    assert (count(n_all), count(n_shared)) == (3, 1)
    store.delete_document(G2)
    assert (count(n_all), count(n_shared)) == (3, 1)
    buf = io.BytesIO()
    store.dump(buf)
    assert len(buf.getvalue().splitlines()) == 1 + 2  # G1, G3: each quad once
    _clear(store)
    assert count(n_all) == 0
    store.restore(io.BytesIO(buf.getvalue()))
    assert (count(n_all), count(n_shared)) == (3, 1)
    store.delete_document(G3)
    assert (count(n_all), count(n_shared)) == (1, 0)


def test_updates_keep_the_default_graph_a_set(store: Store) -> None:
    """Updates write documents; the merge follows them; the default graph is not writable."""
    shared = f'<{EX}paper> <{P}> "shared"'
    n_all = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"

    def count() -> int:
        res = store.query(n_all)
        assert isinstance(res, SelectResult)
        return int(res.rows[0][0])

    store.add_document(G1, doc(1))
    store.update(f"INSERT DATA {{ GRAPH <{G1}> {{ {shared} }} GRAPH <{G2}> {{ {shared} }} }}")
    assert count() == 2
    store.update(f"DROP SILENT GRAPH <{G1}>")  # constant graph: incremental
    assert count() == 1
    store.update(
        f"DELETE {{ GRAPH ?g {{ ?s ?p ?o }} }} WHERE {{ GRAPH ?g {{ {shared} . ?s ?p ?o }} }}"
    )
    assert count() == 0  # variable graph: full resync
    with pytest.raises(QuerySyntaxError, match="default graph"):
        store.update(f"INSERT DATA {{ {shared} }}")
    assert count() == 0


def test_graph_access_and_explicit_dataset(store: Store) -> None:
    store.add_document(G1, doc(1))
    store.add_document(G2, doc(2))
    res = store.query(f"SELECT ?g ?s WHERE {{ GRAPH ?g {{ ?s <{P}> ?o }} }} ORDER BY ?g")
    assert isinstance(res, SelectResult)
    assert res.rows == [(G1, URIRef(EX + "s1")), (G2, URIRef(EX + "s2"))]
    res = store.query(f"SELECT ?s WHERE {{ ?s <{P}> ?o }}", default_graph_uris=[str(G2)])
    assert [r[0] for r in res.rows] == [URIRef(EX + "s2")]


def test_construct(store: Store) -> None:
    store.add_document(G1, rich_graph())
    res = store.query(f"CONSTRUCT {{ ?s <{P}> ?o }} WHERE {{ ?s <{P}> ?o }}")
    assert isinstance(res, GraphResult)
    assert len(res.graph) == 4


def test_update(store: Store) -> None:
    store.add_document(G1, doc(1))
    store.update(f'INSERT DATA {{ GRAPH <{G1}> {{ <{EX}s9> <{P}> "nine" }} }}')
    assert len(store.get_document(G1)) == 2
    store.update(f"DELETE WHERE {{ GRAPH <{G1}> {{ <{EX}s9> ?p ?o }} }}")
    assert same(store.get_document(G1), doc(1))


def test_bad_query_is_a_syntax_error(store: Store) -> None:
    with pytest.raises(QuerySyntaxError):
        store.query("SELECT ?s WHERE { ?s ?p }")


def test_dump_restore_roundtrip(store: Store, tmp_path) -> None:
    originals = {G1: rich_graph(), G2: doc(2, extra=2)}
    for iri, g in originals.items():
        store.add_document(iri, g)
    for fmt in ("nquads", "trig"):
        buf = io.BytesIO()
        store.dump(buf, fmt)
        target = open_store(tmp_path / f"restored-{fmt}")
        target.restore(io.BytesIO(buf.getvalue()), fmt)
        assert target.documents() == [G1, G2]
        for iri, g in originals.items():
            assert same(target.get_document(iri), g), (fmt, iri)
        target.close()
    # and back into the same backend
    buf = io.BytesIO()
    store.dump(buf)
    _clear(store)
    assert store.documents() == []
    store.restore(io.BytesIO(buf.getvalue()))
    for iri, g in originals.items():
        assert same(store.get_document(iri), g)


@pytest.mark.slow
def test_virtuoso_updates_through_sparql_auth_with_digest(virtuoso_server, tmp_path) -> None:  # noqa: F811
    """The documented production set-up: updates on /sparql-auth as dba (Digest auth)."""
    import httpx

    from reprokg.store.remote import RemoteStore

    s = RemoteStore(
        virtuoso_server,
        update_url=virtuoso_server.replace("/sparql", "/sparql-auth"),
        auth=httpx.DigestAuth("dba", "dba"),
        blob_dir=tmp_path,
    )
    try:
        s.add_document(G1, doc(1))
        assert s.documents() == [G1]
        bad = RemoteStore(
            virtuoso_server,
            update_url=virtuoso_server.replace("/sparql", "/sparql-auth"),
            auth=httpx.DigestAuth("dba", "wrong"),
            blob_dir=tmp_path,
        )
        with pytest.raises(StoreError):
            bad.add_document(G2, doc(2))
        bad.close()
    finally:
        _clear(s)
        s.close()


def test_batch_rewrite_keeps_merge_and_counts(store: Store) -> None:
    """A batch re-writing documents with new content (the batched path: distinct IRIs, no
    blank nodes): the old triples leave the merged default graph unless another document
    holds them, re-writing is idempotent, and the count is the documents written."""
    from reprokg.store.base import DocumentWrite

    first = [DocumentWrite(URIRef(f"{EX}b{i}"), list(doc(i, extra=2))) for i in range(5)]
    store.write_documents(first)
    store.write_documents(first)  # idempotent
    assert store.triple_count() == 15
    shared = (URIRef(f"{EX}s0"), P, Literal("value 0"))  # b0's triple, kept by b9 below
    second = [DocumentWrite(URIRef(f"{EX}b{i}"), list(doc(i + 10))) for i in range(4)]
    store.write_documents([*second, DocumentWrite(URIRef(f"{EX}b9"), [shared])])
    assert store.document_count() == 6  # type: ignore[attr-defined]
    assert store.query(f"ASK {{ <{EX}s1> ?p ?o }}") == AskResult(False)
    assert store.query(f"ASK {{ <{EX}s0> <{EX}p> ?o }}") == AskResult(True)
    assert store.query(f"ASK {{ <{EX}s0> <{EX}q> ?o }}") == AskResult(False)
    assert store.query(f"ASK {{ <{EX}s4> <{EX}q> 1 }}") == AskResult(True)
    rows = store.query("SELECT ?s WHERE { ?s ?p ?o }")
    assert isinstance(rows, SelectResult) and len(rows.rows) == 4 + 1 + 3


@ENGINE
@pytest.mark.parametrize("engine", ["oxigraph_server", "virtuoso_server"])
def test_remote_batch_is_one_request(
    engine: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ingest batch (256 new documents, the ingest's batch size) is ONE update request,
    counted on the wire by an httpx event hook (the counters' fold, a request of its own
    every ``FOLD_AT`` writes, put off here); a batch with a bad term sends nothing."""
    from reprokg.store import remote
    from reprokg.store.base import DocumentWrite
    from reprokg.validation.batching import DEFAULT_BATCH_SIZE

    monkeypatch.setattr(remote, "FOLD_AT", 10_000)

    s = open_store(request.getfixturevalue(engine))
    assert isinstance(s, _Remote)
    _clear(s)
    s.merged  # noqa: B018 - the merge state is read once, before counting
    sent: list[str] = []
    s._client.event_hooks["request"].append(lambda r: sent.append(str(r.url)))
    batch = [
        DocumentWrite(URIRef(f"{EX}n{i}"), list(doc(i, extra=3))) for i in range(DEFAULT_BATCH_SIZE)
    ]
    try:
        s.write_documents(batch)
        assert sent == [s.update_url]
        bad = [DocumentWrite(G1, list(doc(1))), DocumentWrite(G2, [(URIRef("a b"), P, P)])]
        with pytest.raises(StoreError):
            s.write_documents(bad)
        assert sent == [s.update_url]
        assert s.document_count() == DEFAULT_BATCH_SIZE
        assert s.triple_count() == 4 * DEFAULT_BATCH_SIZE
        # beyond the request size the batch is cut (here ~10 documents a request)
        s.batch_bytes = 20_000
        sent.clear()
        s.write_documents([DocumentWrite(w.iri, list(doc(1000 + i))) for i, w in enumerate(batch)])
        assert len(sent) >= 10
        assert s.document_count() == DEFAULT_BATCH_SIZE
        assert s.triple_count() == DEFAULT_BATCH_SIZE
    finally:
        _clear(s)
        s.close()
