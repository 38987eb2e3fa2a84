"""The default graph is the RDF merge of the documents: a set, each triple once.

pyoxigraph 0.5's ``use_default_graph_as_union`` repeats a triple once per graph that
holds it (oxigraph #1919); the embedded store keeps the merge in its real default graph
instead. Expected values are the triples the tests wrote, the source JSON files read
here independently, or sets computed from the raw quads with plain Python.
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pyoxigraph as ox
import pytest
from rdflib import BNode, Graph, Literal, URIRef

from reprokg.core.errors import QuerySyntaxError
from reprokg.store import open_store
from reprokg.store.base import DocumentWrite, SelectResult, Store
from reprokg.store.merge import (
    LEGACY_DEFAULT_GRAPH,
    MERGED_MARKER,
    RESERVED_GRAPHS,
    STALE_MARKER,
)
from reprokg.store.oxigraph import OxigraphStore
from tests.conftest import REPO

EX = "http://example.org/"
G1, G2, G3 = URIRef(EX + "g1"), URIRef(EX + "g2"), URIRef(EX + "g3")
P, Q = URIRef(EX + "p"), URIRef(EX + "q")
SHARED = (URIRef(EX + "paper"), P, Literal("shared"))
COUNT_ALL = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"


def graph(*triples: tuple) -> Graph:
    g = Graph()
    for t in triples:
        g.add(t)
    return g


def own(n: int) -> tuple:
    return (URIRef(f"{EX}s{n}"), Q, Literal(n))


def count(store: Store, sparql: str = COUNT_ALL) -> int:
    res = store.query(sparql)
    assert isinstance(res, SelectResult)
    return int(res.rows[0][0])


def count_about(store: Store, local: str) -> int:
    return count(store, f"SELECT (COUNT(*) AS ?n) WHERE {{ <{EX}{local}> ?p ?o }}")


def count_shared(store: Store) -> int:
    return count(store, f"SELECT (COUNT(*) AS ?n) WHERE {{ <{EX}paper> <{P}> ?o }}")


def merge_is_exact(raw: ox.Store) -> None:
    """The default graph equals the set of triples of all document graphs (plain Python;
    the store's bookkeeping graphs are not merged)."""
    default, named = set(), set()
    for q in raw:
        t = (q.subject, q.predicate, q.object)
        if isinstance(q.graph_name, ox.DefaultGraph):
            default.add(t)
        elif q.graph_name.value not in RESERVED_GRAPHS:
            named.add(t)
    assert default == named, (len(default - named), len(named - default))


@pytest.fixture(params=["disk", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> OxigraphStore:
    s = open_store(tmp_path / "store" if request.param == "disk" else ":memory:")
    assert isinstance(s, OxigraphStore)
    yield s
    s.close()


# --- the four cases of the brief ----------------------------------------------------


def test_triple_shared_by_two_documents_counts_once(store: OxigraphStore) -> None:
    store.add_document(G1, graph(SHARED, own(1)))
    store.add_document(G2, graph(SHARED, own(2)))
    assert count_shared(store) == 1
    assert count(store) == 3  # shared + s1 + s2
    # the documents still hold it each (named graphs are untouched)
    both = f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH ?g {{ <{EX}paper> <{P}> ?o }} }}"
    assert count(store, both) == 2
    merge_is_exact(store._store)


def test_deleting_one_of_two_keeps_the_triple_deleting_both_removes_it(
    store: OxigraphStore,
) -> None:
    store.add_document(G1, graph(SHARED, own(1)))
    store.add_document(G2, graph(SHARED, own(2)))
    assert store.delete_document(G1)
    assert count_shared(store) == 1
    assert count(store) == 2  # shared + s2; s1 left with G1
    assert store.delete_document(G2)
    assert count_shared(store) == 0
    assert count(store) == 0
    assert store.documents() == []
    merge_is_exact(store._store)


def test_replace_drops_stale_triples_and_keeps_shared_ones(store: OxigraphStore) -> None:
    store.add_document(G1, graph(SHARED, own(1)))
    store.add_document(G2, graph(SHARED, own(2)))
    store.add_document(G1, graph(own(11)))  # new content of G1: no longer has SHARED
    assert count_shared(store) == 1  # G2 still holds it
    assert count_about(store, "s1") == 0
    assert count(store) == 3  # shared, s2, s11
    # a revision under a new IRI drops the old one from the merge too
    store.replace_document(G3, graph(own(3)), G2)
    assert count_shared(store) == 0
    assert count(store) == 2  # s11, s3
    assert store.documents() == [G1, G3]
    merge_is_exact(store._store)


def test_write_documents_batches_keep_the_merge(store: OxigraphStore) -> None:
    store.write_documents(  # all new: one extend
        [DocumentWrite(G1, graph(SHARED, own(1))), DocumentWrite(G2, graph(SHARED, own(2)))]
    )
    assert count_shared(store) == 1
    store.write_documents(  # revisions: one update, in order
        [
            DocumentWrite(G3, graph(SHARED, own(3)), replaces=G1),
            DocumentWrite(G2, graph(own(22))),
        ]
    )
    assert count_shared(store) == 1  # G3 holds it now
    assert count(store) == 3
    store.write_documents([DocumentWrite(G3, graph(own(3)))])
    assert count_shared(store) == 0
    merge_is_exact(store._store)


def test_blank_nodes_of_a_revision_join_in_the_merge(store: OxigraphStore) -> None:
    store.add_document(G1, graph(own(1)))
    for round_ in range(2):  # the second write takes the replace path (INSERT DATA)
        b = BNode()
        store.add_document(G1, graph((b, P, Literal("x")), (b, Q, Literal(round_))))
        q = f'SELECT (COUNT(*) AS ?n) WHERE {{ ?b <{P}> "x" ; <{Q}> ?v }}'
        assert count(store, q) == 1
    merge_is_exact(store._store)


# --- real data --------------------------------------------------------------------


def _doi_key(text: str) -> str:
    return re.sub(r"^(doi:|https?://(dx\.)?doi\.org/)", "", text.strip(), flags=re.I).lower()


@pytest.mark.slow
def test_survey_examples_each_article_once(tmp_path: Path) -> None:
    """Both replicability.graphics formats describe the same papers by DOI."""
    from reprokg.ingest import ingest_paths

    survey = REPO / "examples" / "survey"
    files = [survey / "consolidatedData-subset.json", *sorted(survey.glob("per_paper/*/*.json"))]
    dois = {
        _doi_key(str(rec["DOI"]))
        for f in files
        for rec in json.loads(f.read_text(encoding="utf-8"))
        if str(rec.get("DOI") or "").strip()
    }
    assert len(dois) < 125 + 18  # the formats really share DOIs (else the test is moot)
    store = open_store(tmp_path / "store")
    try:
        res = ingest_paths(store, [files[0], survey / "per_paper"])
        assert not res.errors
        q = (
            "SELECT (COUNT(*) AS ?n) (COUNT(DISTINCT ?s) AS ?d) "
            "WHERE { ?s a <http://schema.org/ScholarlyArticle> }"
        )
        r = store.query(q)
        assert isinstance(r, SelectResult)
        n, d = (int(x) for x in r.rows[0])
        assert n == d == len(dois)
        # COUNT(*) over every triple equals the number of distinct triples
        distinct = {
            (x.subject, x.predicate, x.object)
            for x in store._store
            if isinstance(x.graph_name, ox.NamedNode) and x.graph_name.value not in RESERVED_GRAPHS
        }
        assert count(store) == len(distinct)
    finally:
        store.close()


# --- stores made before the merge, crashes, dump / restore / backup -----------------


def _pre_merge_store(path: Path) -> None:
    """A store as reprokg wrote it before the merge: named graphs only (+ one triple a
    user once inserted into the default graph), no marker."""
    raw = ox.Store(str(path))
    g1, g2 = ox.NamedNode(str(G1)), ox.NamedNode(str(G2))
    s, p = ox.NamedNode(EX + "paper"), ox.NamedNode(str(P))
    raw.extend(
        [
            ox.Quad(s, p, ox.Literal("shared"), g1),
            ox.Quad(s, p, ox.Literal("shared"), g2),
            ox.Quad(ox.NamedNode(EX + "s1"), p, ox.Literal("one"), g1),
            ox.Quad(ox.NamedNode(EX + "user"), p, ox.Literal("typed into the default graph")),
        ]
    )
    raw.flush()
    del raw


def test_pre_merge_store_is_merged_when_opened_writable(tmp_path: Path) -> None:
    _pre_merge_store(tmp_path / "db")
    # read-only: cannot build it, falls back to the union (still sees every document)
    ro = OxigraphStore(tmp_path / "db", read_only=True)
    assert not ro.merged
    assert count_about(ro, "s1") == 1
    ro.close()
    del ro
    s = OxigraphStore(tmp_path / "db")
    try:
        assert s.merged
        assert count_shared(s) == 1
        # the user's default-graph triple is kept, in a named graph of its own
        assert URIRef(LEGACY_DEFAULT_GRAPH) in s.documents()
        assert count(s) == 3  # shared, s1, user triple
        merge_is_exact(s._store)
    finally:
        s.close()


def test_stale_merge_after_a_crash_is_resynchronised(tmp_path: Path) -> None:
    """A crash between an update and its resync: the stale default triple is dropped,
    not kept as legacy data."""
    raw = ox.Store(str(tmp_path / "db"))
    g1 = ox.NamedNode(str(G1))
    p = ox.NamedNode(str(P))
    raw.extend(
        [
            ox.Quad(ox.NamedNode(EX + "s1"), p, ox.Literal("one"), g1),
            ox.Quad(ox.NamedNode(EX + "s1"), p, ox.Literal("one")),
            ox.Quad(ox.NamedNode(EX + "gone"), p, ox.Literal("deleted by the update")),
        ]
    )
    raw.add_graph(ox.NamedNode(STALE_MARKER))
    del raw
    s = OxigraphStore(tmp_path / "db")
    try:
        assert s.merged
        assert s.documents() == [G1]
        assert count(s) == 1
        merge_is_exact(s._store)
    finally:
        s.close()


@pytest.fixture(params=["transaction", "bulk"])
def restore_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """A restore from ``BULK_MIN_QUADS`` quads is one call of the bulk loader, a smaller
    one a transaction: both paths, on the same dumps."""
    import reprokg.store.oxigraph as embedded

    if request.param == "bulk":
        monkeypatch.setattr(embedded, "BULK_MIN_QUADS", 1)
    return request.param


@pytest.mark.slow
def test_dump_holds_the_documents_once_and_restore_rebuilds_the_merge(
    store: OxigraphStore, restore_path: str, tmp_path: Path
) -> None:
    store.add_document(G1, graph(SHARED, own(1)))
    store.add_document(G2, graph(SHARED, own(2)))
    buf = io.BytesIO()
    store.dump(buf)
    quads = list(ox.parse(buf.getvalue(), ox.RdfFormat.N_QUADS))
    assert len(quads) == 4  # 2 per document, no default-graph copy
    assert all(isinstance(q.graph_name, ox.NamedNode) for q in quads)
    target = OxigraphStore(None if store.path is None else tmp_path / "target")
    target.restore(io.BytesIO(buf.getvalue()))
    assert target.documents() == [G1, G2]
    assert target.document_count() == 2  # the count's delta rides in the same write
    assert count_shared(target) == 1
    assert count(target) == 3
    merge_is_exact(target._store)
    # restore adds: restoring again changes nothing
    target.restore(io.BytesIO(buf.getvalue()))
    assert count(target) == 3
    assert target.document_count() == 2
    target.close()


def test_restore_of_a_dump_with_default_graph_quads_keeps_them(
    tmp_path: Path, restore_path: str
) -> None:
    dump = (
        f'<{EX}paper> <{P}> "shared" <{G1}> .\n'
        f'<{EX}paper> <{P}> "shared" .\n'
        f'<{EX}user> <{P}> "own" .\n'
    ).encode()
    s = OxigraphStore(None)
    s.restore(io.BytesIO(dump))
    assert s.documents() == [G1, URIRef(LEGACY_DEFAULT_GRAPH)]
    assert s.document_count() == 2
    assert count(s) == 2
    merge_is_exact(s._store)


def test_backup_opens_merged(tmp_path: Path) -> None:
    s = open_store(tmp_path / "store")
    s.add_document(G1, graph(SHARED, own(1)))
    s.add_document(G2, graph(SHARED))
    s.backup(tmp_path / "bk")
    s.close()
    b = open_store(tmp_path / "bk", read_only=True)
    try:
        assert isinstance(b, OxigraphStore) and b.merged
        assert count(b) == 2
    finally:
        b.close()


# --- SPARQL Update policy ----------------------------------------------------------


@pytest.mark.parametrize(
    "update",
    [
        f'INSERT DATA {{ <{EX}x> <{P}> "y" }}',
        f'DELETE DATA {{ <{EX}paper> <{P}> "shared" }}',
        "DELETE WHERE { ?s ?p ?o }",
        f'INSERT {{ ?s <{Q}> "z" }} WHERE {{ ?s ?p ?o }}',
        f"DELETE {{ ?s ?p ?o }} INSERT {{ GRAPH <{G3}> {{ ?s ?p ?o }} }} WHERE {{ ?s ?p ?o }}",
        "CLEAR DEFAULT",
        "DROP DEFAULT",
        f"COPY <{G1}> TO DEFAULT",
        f"ADD <{G1}> TO DEFAULT",
        f"MOVE DEFAULT TO <{G3}>",
        "LOAD <http://example.org/data.ttl>",
    ],
)
def test_updates_writing_the_default_graph_are_refused(store: OxigraphStore, update: str) -> None:
    store.add_document(G1, graph(SHARED, own(1)))
    with pytest.raises(QuerySyntaxError, match="default graph"):
        store.update(update)
    assert count(store) == 2
    assert store.documents() == [G1]
    merge_is_exact(store._store)


def test_updates_on_named_graphs_are_followed_by_the_merge(store: OxigraphStore) -> None:
    store.add_document(G1, graph(SHARED, own(1)))
    store.update(f'INSERT DATA {{ GRAPH <{G2}> {{ <{EX}paper> <{P}> "shared" }} }}')
    assert count_shared(store) == 1
    store.update(f"DELETE WHERE {{ GRAPH <{G1}> {{ <{EX}paper> ?p ?o }} }}")
    assert count_shared(store) == 1  # G2 holds it
    store.update(f"DROP GRAPH <{G2}>")
    assert count_shared(store) == 0
    # a WHERE without GRAPH reads the merge (s1 q 1 is in G1)
    store.update(f'INSERT {{ GRAPH <{G3}> {{ ?s <{P}> "copy" }} }} WHERE {{ ?s <{Q}> 1 }}')
    assert count(store, f'SELECT (COUNT(*) AS ?n) WHERE {{ ?s <{P}> "copy" }}') == 1
    # WITH names the graph a template without GRAPH writes (and the WHERE reads)
    store.update(f'WITH <{G3}> INSERT {{ ?s <{P}> "again" }} WHERE {{ ?s <{P}> "copy" }}')
    assert count(store, f'SELECT (COUNT(*) AS ?n) WHERE {{ ?s <{P}> "again" }}') == 1
    store.update(f"COPY <{G3}> TO <{G2}>")
    assert count(store, f'SELECT (COUNT(*) AS ?n) WHERE {{ ?s <{P}> "copy" }}') == 1
    merge_is_exact(store._store)
    store.update("DROP ALL")
    assert count(store) == 0
    assert store.merged and store._store.contains_named_graph(ox.NamedNode(MERGED_MARKER))
    store.add_document(G1, graph(SHARED))
    assert count(store) == 1
    merge_is_exact(store._store)


@pytest.mark.parametrize(
    ("update", "expected"),
    [
        (f"INSERT DATA {{ GRAPH <{G1}> {{ <{EX}a> <{P}> 1 }} }}", {G1}),
        (f"DELETE WHERE {{ GRAPH <{G2}> {{ ?s ?p ?o }} }} ; DROP SILENT GRAPH <{G3}>", {G2, G3}),
        (f'WITH <{G1}> DELETE {{ ?s ?p ?o }} INSERT {{ ?s ?p "n" }} WHERE {{ ?s ?p ?o }}', {G1}),
        (f"MOVE <{G1}> TO <{G2}>", {G1, G2}),
        (f"COPY DEFAULT TO <{G2}>", {G2}),
        (f"LOAD <{EX}x.ttl> INTO GRAPH <{G3}>", {G3}),
        (f"CREATE GRAPH <{G3}>", set()),
        ("DELETE { GRAPH ?g { ?s ?p ?o } } WHERE { GRAPH ?g { ?s ?p ?o } }", None),
        ("DROP ALL", None),
        ("CLEAR NAMED", None),
    ],
)
def test_written_graphs_of_an_update(update: str, expected: set | None) -> None:
    from reprokg.store.merge import written_graphs

    got = written_graphs(update)
    assert got == (None if expected is None else {str(g) for g in expected})


def test_updates_with_variable_graphs_and_moves_keep_the_merge(store: OxigraphStore) -> None:
    store.add_document(G1, graph(SHARED, own(1)))
    store.add_document(G2, graph(SHARED, own(2)))
    store.update(f"MOVE <{G1}> TO <{G3}>")  # G3 := G1's triples, G1 gone
    assert store.documents() == [G2, G3]
    assert (count(store), count_shared(store)) == (3, 1)
    pattern = f"GRAPH ?g {{ <{EX}paper> ?p ?o }}"
    store.update(f"DELETE {{ {pattern} }} WHERE {{ {pattern} }}")
    assert (count(store), count_shared(store)) == (2, 0)
    merge_is_exact(store._store)


def test_crash_inside_an_update_is_recovered_on_open(tmp_path: Path) -> None:
    """Killed after the update committed, before the merge followed: the scratch copy
    is dropped, the merge re-synchronised, nothing resurrected."""
    from reprokg.store.merge import SCRATCH_GRAPH, UpdatePlan

    s = open_store(tmp_path / "store")
    s.add_document(G1, graph(SHARED, own(1)))
    s.add_document(G2, graph(SHARED))
    update = f"DROP GRAPH <{G1}> ; DROP GRAPH <{G2}>"
    plan = UpdatePlan.of(update)
    raw = s._store  # the pyoxigraph store itself: no bookkeeping
    raw.update(plan.before)
    raw.update(update)
    assert raw.contains_named_graph(ox.NamedNode(SCRATCH_GRAPH))
    del raw
    s.close()
    s = open_store(tmp_path / "store")
    try:
        assert s.documents() == []
        assert count(s) == 0
        assert not s._store.contains_named_graph(ox.NamedNode(SCRATCH_GRAPH))
        assert s._store.contains_named_graph(ox.NamedNode(MERGED_MARKER))
        merge_is_exact(s._store)
    finally:
        s.close()


def test_failed_update_leaves_the_merge_marked_complete(store: OxigraphStore) -> None:
    store.add_document(G1, graph(SHARED))
    with pytest.raises(QuerySyntaxError):
        store.update("INSERT DATA { GRAPH <urn:g> { <urn:a> <urn:b> } }")
    assert store._store.contains_named_graph(ox.NamedNode(MERGED_MARKER))
    assert not store._store.contains_named_graph(ox.NamedNode(STALE_MARKER))
    assert store.documents() == [G1]


# --- other readers: worker processes, in-memory mirror ------------------


@pytest.mark.slow
def test_worker_processes_and_memory_mirror_count_once(tmp_path: Path) -> None:
    from reprokg.service.app import memory_mirror
    from reprokg.sparql.runner import ProcessQueryRunner, QueryJob, Snapshots

    s = open_store(tmp_path / "store")
    s.add_document(G1, graph(SHARED, own(1)))
    s.add_document(G2, graph(SHARED, own(2)))
    runner = ProcessQueryRunner(Snapshots(s), workers=1, timeout=30)
    try:
        res = runner.run(QueryJob(COUNT_ALL)).result
        assert isinstance(res, SelectResult) and int(res.rows[0][0]) == 3
    finally:
        runner.close()
        s.close()
    ro = open_store(tmp_path / "store", read_only=True)
    mirror = memory_mirror(ro)
    assert mirror is not None and count(mirror) == 3
    merge_is_exact(mirror._store)
    ro.close()
    del ro
    # a pre-merge store served read-only: the mirror builds the merge in memory
    _pre_merge_store(tmp_path / "old")
    old = OxigraphStore(tmp_path / "old", read_only=True)
    mirror = memory_mirror(old)
    assert mirror is not None and count_shared(mirror) == 1 and count(mirror) == 3
    old.close()


# --- crash atomicity --------------------------------------------------------------

CHILD = textwrap.dedent(
    """
    import sys
    from rdflib import Graph, Literal, URIRef
    from reprokg.store import open_store
    from reprokg.store.base import DocumentWrite

    EX = "http://example.org/"
    store = open_store(sys.argv[1])
    i = 0
    while True:
        writes = []
        for k in range(3):
            g = Graph()
            for j in range(400):  # shared with other documents: same triples, other graphs
                g.add((URIRef(f"{EX}shared{j % 97}"), URIRef(EX + "p"), Literal(j % 13)))
                g.add((URIRef(f"{EX}own{i}-{k}"), URIRef(EX + "q"), Literal(j)))
            writes.append(DocumentWrite(URIRef(f"{EX}doc{(i + k) % 5}"), g))
        store.write_documents(writes)
        if i % 4 == 3:
            store.delete_document(f"{EX}doc{i % 5}")
        print(i, flush=True)
        i += 1
    """
)


@pytest.mark.slow
def test_kill_during_writes_leaves_the_merge_exact(tmp_path: Path) -> None:
    rnd = random.Random(1919)
    store_dir = tmp_path / "store"
    open_store(store_dir).close()
    for _ in range(3):
        proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(store_dir)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        assert proc.stdout is not None
        for _ in range(rnd.randint(2, 6)):
            line = proc.stdout.readline()
            assert line, proc.stderr.read().decode() if proc.stderr else "child died"
        time.sleep(rnd.random() * 0.3)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        raw = ox.Store.read_only(str(store_dir / "oxigraph"))
        assert raw.contains_named_graph(ox.NamedNode(MERGED_MARKER))
        merge_is_exact(raw)
        del raw


def test_cli_rebuild_merge_repairs_raw_writes(tmp_path: Path, capsys) -> None:
    from reprokg.cli import main

    store_dir = tmp_path / "store"
    s = open_store(store_dir)
    s.add_document(G1, graph(SHARED, own(1)))
    s.close()
    raw = ox.Store(str(store_dir / "oxigraph"))  # bypasses the merge (marker stays)
    raw.add(
        ox.Quad(
            ox.NamedNode(EX + "s5"), ox.NamedNode(str(Q)), ox.Literal("5"), ox.NamedNode(str(G2))
        )
    )
    del raw
    assert main(["rebuild-merge", "--store", str(store_dir)]) == 0
    assert "3 distinct triple(s) from 2 document(s)" in capsys.readouterr().out
    s = open_store(store_dir, read_only=True)
    try:
        assert count(s) == 3
        merge_is_exact(s._store)
    finally:
        s.close()


def test_cli_rebuild_merge_of_a_bulk_loaded_store_builds_it_once(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store bulk-loaded by pyoxigraph has no merge: opening it builds one, so the
    command does not build it a second time (at 10M triples a rebuild takes minutes)."""
    from reprokg.cli import main

    store_dir = tmp_path / "store"
    store_dir.mkdir()
    raw = ox.Store(str(store_dir / "oxigraph"))
    raw.bulk_load(
        f'<{EX}paper> <{P}> "shared" <{G1}> .\n<{EX}paper> <{P}> "shared" <{G2}> .\n'.encode(),
        format=ox.RdfFormat.N_QUADS,
    )
    del raw
    calls = []
    rebuild = OxigraphStore.rebuild_merge
    monkeypatch.setattr(
        OxigraphStore, "rebuild_merge", lambda self: calls.append(1) or rebuild(self)
    )
    assert main(["rebuild-merge", "--store", str(store_dir)]) == 0
    assert "1 distinct triple(s) from 2 document(s)" in capsys.readouterr().out
    assert len(calls) == 1
    s = open_store(store_dir, read_only=True)
    try:
        merge_is_exact(s._store)
    finally:
        s.close()
