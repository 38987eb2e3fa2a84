"""The merged default graph rebuilt in bulk (store/bulk.py): the same merge as the one
transaction it replaces, and a rebuild killed midway (SIGKILL) is redone on the next
writable open, leaving no temporary files."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pyoxigraph as ox
import pytest

from reprokg.store.bulk import TMP_PREFIX, tsv_to_ntriples
from reprokg.store.merge import (
    KEEP_LEGACY_OP,
    LEGACY_DEFAULT_GRAPH,
    MARK_MERGED,
    MERGED_MARKER,
    RESERVED_GRAPHS,
    RESYNC_OPS,
    STALE_MARKER,
)
from reprokg.store.oxigraph import OxigraphStore

EX = "http://example.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"

CHILD = textwrap.dedent(
    """
    import sys
    from reprokg.store.oxigraph import OxigraphStore
    print("start", flush=True)
    store = OxigraphStore(sys.argv[1])  # no marker: the open rebuilds the merge in bulk
    print("done", flush=True)
    """
)


def _make_unmerged(path: Path, n: int = 30_000) -> None:
    """A store written by raw pyoxigraph: document graphs, no merge, no marker; shared
    triples, literals of every short TSV form, a blank node, one default-graph triple of
    its own (kept as legacy data)."""
    s = ox.Store(str(path))
    p = ox.NamedNode(EX + "p")
    quads = []
    for i in range(n):
        g = ox.NamedNode(f"{EX}g{i % 300}")
        quads.append(ox.Quad(ox.NamedNode(f"{EX}s{i % 7000}"), p, ox.Literal(str(i % 911)), g))
    g1 = ox.NamedNode(EX + "g1")
    odd = [
        ox.Literal("7", datatype=ox.NamedNode(XSD + "integer")),
        ox.Literal("007", datatype=ox.NamedNode(XSD + "integer")),
        ox.Literal("-1.50", datatype=ox.NamedNode(XSD + "decimal")),
        ox.Literal("1.5E3", datatype=ox.NamedNode(XSD + "double")),
        ox.Literal("true", datatype=ox.NamedNode(XSD + "boolean")),
        ox.Literal('tab\there\nnewline "quoted" > _:notblank'),
        ox.Literal("chat", language="fr"),
        ox.Literal("x", datatype=ox.NamedNode(EX + "custom")),
    ]
    quads += [ox.Quad(ox.NamedNode(EX + "odd"), p, o, g1) for o in odd]
    b = ox.BlankNode("b1")  # the same label in every store made here
    quads.append(ox.Quad(b, p, ox.Literal("blank subject"), g1))
    quads.append(ox.Quad(ox.NamedNode(EX + "has"), p, b, ox.NamedNode(EX + "g2")))
    quads.append(ox.Quad(ox.NamedNode(EX + "stray"), p, ox.Literal("legacy"), ox.DefaultGraph()))
    # a graph named by a blank node (a raw write): merged like any graph (store/merge.py)
    quads.append(ox.Quad(ox.NamedNode(EX + "in"), p, ox.Literal("blank graph"), ox.BlankNode("g")))
    s.bulk_extend(quads)
    s.flush()
    del s


def _default_set(path: Path) -> set[tuple[str, str, str]]:
    s = ox.Store.read_only(str(path))
    try:
        return {
            (str(q.subject), str(q.predicate), str(q.object))
            for q in s.quads_for_pattern(None, None, None, ox.DefaultGraph())
        }
    finally:
        del s


def _named_set(path: Path) -> set[tuple[str, str, str]]:
    """The merge by definition: every triple of a named graph that is not bookkeeping."""
    s = ox.Store.read_only(str(path))
    try:
        return {
            (str(q.subject), str(q.predicate), str(q.object))
            for q in s
            if isinstance(q.graph_name, ox.BlankNode)
            or (
                isinstance(q.graph_name, ox.NamedNode) and q.graph_name.value not in RESERVED_GRAPHS
            )
        }
    finally:
        del s


def _transactional_merge(path: Path) -> None:
    """The rebuild as it was before the bulk one: one SPARQL Update transaction."""
    s = ox.Store(str(path))
    s.update(" ;\n".join([KEEP_LEGACY_OP, *RESYNC_OPS, *MARK_MERGED]))
    s.flush()
    del s


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> set[tuple[str, str, str]]:
    ref = tmp_path_factory.mktemp("ref") / "oxigraph"
    _make_unmerged(ref)
    _transactional_merge(ref)
    return _default_set(ref)


@pytest.mark.slow
def test_bulk_rebuild_gives_the_transactional_merge(tmp_path: Path, reference) -> None:
    d = tmp_path / "oxigraph"
    _make_unmerged(d)
    store = OxigraphStore(d)
    info = store.maintenance["merge"]
    assert info["graphs"] == 301 and info["blank_triples"] == 2
    assert info["blank_named_graphs"] is True
    assert (f"<{EX}in>", f"<{EX}p>", '"blank graph"') in reference
    legacy = store.get_document(LEGACY_DEFAULT_GRAPH)
    assert len(legacy) == 1  # the store's own default triple, kept
    store.close()
    assert _default_set(d) == reference == _named_set(d)
    assert not list(d.glob(TMP_PREFIX + "*")) and not list(d.glob("bulk-*.sst"))
    # rebuilt again on demand (reprokg rebuild-merge): the same merge
    store = OxigraphStore(d)
    store.rebuild_merge()
    store.close()
    assert _default_set(d) == reference


@pytest.mark.slow
def test_rebuild_killed_midway_is_redone_on_open(tmp_path: Path, reference) -> None:
    timing = tmp_path / "timing"
    _make_unmerged(timing)
    t0 = time.perf_counter()
    OxigraphStore(timing).close()
    took = time.perf_counter() - t0
    rng = random.Random(17)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    stale_seen = 0
    for round_ in range(4):
        d = tmp_path / f"killed-{round_}"
        _make_unmerged(d)
        proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(d)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        try:
            assert proc.stdout.readline().strip() == b"start"  # imports done
            if round_ < 2:  # inside for certain: as soon as the rebuild's temp files exist
                deadline = time.monotonic() + 120
                while not list(d.glob(TMP_PREFIX + "*")) and proc.poll() is None:
                    assert time.monotonic() < deadline
                    time.sleep(0.0005)
            else:  # anywhere in the open (the rebuild, then counters and ranks)
                time.sleep(rng.uniform(0.0, took))
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        raw = ox.Store.read_only(str(d))
        stale_seen += raw.contains_named_graph(ox.NamedNode(STALE_MARKER))
        del raw
        store = OxigraphStore(d)  # the writable open repairs
        assert store.merged
        store.close()
        assert not list(d.glob(TMP_PREFIX + "*")) and not list(d.glob("bulk-*.sst"))
        assert _default_set(d) == reference
        raw = ox.Store.read_only(str(d))
        assert raw.contains_named_graph(ox.NamedNode(MERGED_MARKER))
        assert not raw.contains_named_graph(ox.NamedNode(STALE_MARKER))
        del raw
    assert stale_seen, "no kill landed inside a rebuild"


def test_tsv_short_forms_become_ntriples(tmp_path: Path) -> None:
    tsv = tmp_path / "r.tsv"
    tsv.write_bytes(
        b"?s\t?p\t?o\n"
        b"<http://a>\t<http://p>\t-12\n"
        b"<http://a>\t<http://p>\t.5\n"
        b"<http://a>\t<http://p>\t1.0e-3\n"
        b"<http://a>\t<http://p>\tfalse\n"
        b"<http://a>\t<http://p>\t+07\n"
        b"<http://a>\t<http://p>\t1.E3\n"
        b'<http://a>\t<http://p>\t"a\\tb"@en\n'
    )
    nt = tmp_path / "r.nt"
    tsv_to_ntriples(tsv, nt)
    got = [str(t.object) for t in ox.parse(path=str(nt), format=ox.RdfFormat.N_TRIPLES)]
    assert got == [
        f'"-12"^^<{XSD}integer>',
        f'".5"^^<{XSD}decimal>',
        f'"1.0e-3"^^<{XSD}double>',
        f'"false"^^<{XSD}boolean>',
        f'"+07"^^<{XSD}integer>',
        f'"1.E3"^^<{XSD}double>',
        '"a\\tb"@en',
    ]


@pytest.mark.parametrize(
    ("text", "found"),
    [(b"abcd_:ef", True), (b"abc_:", True), (b"___:", True), (b"abc_", False), (b"", False)],
)
def test_blank_node_scan_sees_across_chunks(tmp_path: Path, monkeypatch, text, found) -> None:
    """split_blank skips the rewrite when no ``_:`` is in the file: the scan must see one
    that straddles two chunks (4-byte chunks here)."""
    from reprokg.store import bulk

    monkeypatch.setattr(bulk, "_CHUNK", 4)
    f = tmp_path / "t.nt"
    f.write_bytes(text)
    assert bulk._contains(str(f), b"_:") is found
