"""A load killed mid-way (SIGKILL) leaves every stored document complete and consistent.

A child process ingests large documents — new ones and revisions of earlier ones —
and reports each finished write; the parent kills it at a random point, reopens the
store and checks: every graph holds exactly the items it declares plus its
provenance, each source key has exactly one graph, and every write the child
reported is there. Three kill/reopen rounds run on the same store.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter

import pytest
from rdflib import Literal, URIRef

from reprokg.core.namespaces import RK
from reprokg.store import open_store
from reprokg.store.base import Counters
from reprokg.store.oxigraph import BULK_MIN_QUADS

EX = "http://example.org/"

#: what both children share: the store, and a large document that declares its item count
CHILD_PRELUDE = textwrap.dedent(
    """
    import sys
    from rdflib import Graph, Literal, URIRef
    from reprokg.core.document import Document
    from reprokg.ingest import ingest
    from reprokg.store import open_store

    EX = "http://example.org/"
    store = open_store(sys.argv[1])
    round_ = int(sys.argv[2])

    def make_doc(key, i, tag):
        n = 1500 + (i * 37) % 1000
        g = Graph()
        s = URIRef(EX + key)
        g.add((s, URIRef(EX + "declares"), Literal(n)))
        for j in range(n):
            g.add((s, URIRef(EX + "item"), Literal(f"{tag}-{j}")))
        return Document(kind="crashtest", graph=g, source_name=key + ".txt",
                        source_bytes=tag.encode(), loader="crash", loader_version="0",
                        source_key=key, subject=s)
    """
)

CHILD = CHILD_PRELUDE + textwrap.dedent(
    """
    i = 0
    while True:
        key = f"key{i % 7}"  # keys repeat: most writes are revisions (drop old + add new)
        doc = make_doc(key, i, f"{round_}-{i}")
        res = ingest(store, [doc])
        print(res.documents[0].status, doc.iri, flush=True)
        i += 1
    """
)


def _spawn(child: str, *args: object) -> subprocess.Popen:
    """A child Python process running ``child`` with ``args``, its lines read as written."""
    return subprocess.Popen(
        [sys.executable, "-c", child, *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


#: the default graph is exactly the merge of the documents (graphs with provenance)
MERGE_HAS_EVERY_DOCUMENT_TRIPLE = (
    "ASK { FILTER NOT EXISTS { GRAPH ?g { ?g a <https://w3id.org/reprokg/ontology#Document> . "
    "?s ?p ?o } FILTER NOT EXISTS { ?s ?p ?o } } }"
)
MERGE_HAS_ONLY_DOCUMENT_TRIPLES = (
    "ASK { FILTER NOT EXISTS { ?s ?p ?o FILTER NOT EXISTS { GRAPH ?g { "
    "?g a <https://w3id.org/reprokg/ontology#Document> . ?s ?p ?o } } } }"
)


def _check(store_dir, reported: list[str]) -> int:
    store = open_store(store_dir)
    try:
        graphs = store.documents()
        keys = Counter()
        for g in graphs:
            graph = store.get_document(g)
            key = graph.value(g, RK.sourceKey)
            assert key is not None, f"{g}: provenance missing"
            keys[str(key)] += 1
            subject = URIRef(EX + str(key))
            declared = int(graph.value(subject, URIRef(EX + "declares")))
            items = len(list(graph.objects(subject, URIRef(EX + "item"))))
            assert items == declared, f"{g}: {items} items, declares {declared}"
            assert graph.value(g, RK.sourceSha256) == Literal(str(g).rsplit("/", 1)[-1])
        assert all(c == 1 for c in keys.values()), f"a source key has several graphs: {keys}"
        # the document count kept with the writes (store/counters.py) never drifts
        assert isinstance(store, Counters) and store.document_count() == len(graphs)
        # per key, the last write the child reported is stored — unless the write in
        # flight at the kill (number len(reported), same key) replaced it after committing
        in_flight_key = f"key{len(reported) % 7}"
        last: dict[str, str] = {}
        for i, line in enumerate(reported):
            last[f"key{i % 7}"] = line.split()[1]
        stored = {str(g) for g in graphs}
        for key, iri in last.items():
            if key != in_flight_key:
                assert iri in stored, f"reported write {iri} ({key}) lost"
        return len(graphs)
    finally:
        store.close()


@pytest.mark.slow
def test_kill_during_load_leaves_store_consistent(tmp_path) -> None:
    store_dir = tmp_path / "store"
    rng = random.Random(7)
    for round_ in range(3):
        proc = _spawn(CHILD, store_dir, round_)
        reported: list[str] = []
        target = rng.randint(5, 12)
        try:
            while len(reported) < target:
                line = proc.stdout.readline()
                assert line, f"child died: {proc.stderr.read()}"
                reported.append(line.strip())
            time.sleep(rng.uniform(0.0, 0.15))  # land somewhere inside the next write
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        n = _check(store_dir, reported)
        assert 1 <= n <= 7


BULK_CHILD = CHILD_PRELUDE + textwrap.dedent(
    """
    batch = int(sys.argv[3])

    def docs():
        i = 0
        while True:  # new source keys only: every batch is written by the bulk loader
            key = f"r{round_}-{i}"
            yield make_doc(key, i, key)
            i += 1

    def progress(done, _seen, name):
        print(done, name, flush=True)

    ingest(store, docs(), batch_size=batch, progress=progress)
    """
)


@pytest.mark.slow
def test_kill_during_bulk_load_keeps_whole_batches(tmp_path) -> None:
    """Batches of new documents go through pyoxigraph's bulk loader (one RocksDB ingest
    per batch, store/oxigraph.py): killed anywhere, a batch is stored whole or not at all,
    the merge and the document count follow, and the loader's files are cleaned up."""
    store_dir = tmp_path / "store"
    rng = random.Random(11)
    batch = 4
    assert 2 * batch * 1500 >= BULK_MIN_QUADS  # every batch goes to the bulk loader
    stored_before = 0
    for round_ in range(3):
        proc = _spawn(BULK_CHILD, store_dir, round_, batch)
        reported: list[str] = []
        target = batch * rng.randint(2, 5)
        try:
            while len(reported) < target:
                line = proc.stdout.readline()
                assert line, f"child died: {proc.stderr.read()}"
                reported.append(line.split()[1])
            time.sleep(rng.uniform(0.0, 0.3))  # somewhere inside a later batch's write
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        n = _check(store_dir, [])
        assert (n - stored_before) % batch == 0, f"round {round_}: part of a batch stored"
        assert n - stored_before >= len(reported)
        store = open_store(store_dir)
        try:
            sources = {
                str(store.get_document(g).value(g, RK.sourceFileName)) for g in store.documents()
            }
            assert set(reported) <= sources, "a write reported as committed is missing"
            assert store.query(MERGE_HAS_EVERY_DOCUMENT_TRIPLE).value is True
            assert store.query(MERGE_HAS_ONLY_DOCUMENT_TRIPLES).value is True
        finally:
            store.close()
        assert not list(store_dir.rglob("bulk-*.sst")), "bulk loader files left behind"
        stored_before = n


RESTORE_CHILD = CHILD_PRELUDE + textwrap.dedent(
    """
    import io
    n = int(sys.argv[3])
    staging = open_store(":memory:")
    keys = [f"r{round_}-{i}" for i in range(n)]
    ingest(staging, [make_doc(key, i, key) for i, key in enumerate(keys)])
    dump = io.BytesIO()
    staging.dump(dump)

    class Halfway(io.BytesIO):
        \"\"\"Says when the restore has read half of the dump (inside the bulk call).\"\"\"
        said = False

        def read(self, size=-1):
            out = super().read(size)
            if not self.said and self.tell() >= len(self.getvalue()) // 2:
                print("halfway", flush=True)
                self.said = True
            return out

    print("ready", flush=True)
    store.restore(Halfway(dump.getvalue()))
    print("restored", flush=True)
    """
)


@pytest.mark.slow
def test_kill_during_a_bulk_restore_restores_all_or_nothing(tmp_path) -> None:
    """A big restore is one call of pyoxigraph's bulk loader (store/oxigraph.py): killed
    when it has read half of the dump, nothing of it is stored; killed anywhere, the dump
    is stored whole or not at all. The merge and the document count are right on the next
    open, the ranks (suspended around the restore) are kept again, no loader files are
    left behind."""
    from reprokg.store import leaderboard_ranks

    store_dir = tmp_path / "store"
    rng = random.Random(13)
    n = 20
    assert n * 1500 // 2 >= BULK_MIN_QUADS  # the dump goes to the bulk loader
    stored_before = 0
    for round_, kill_at in enumerate(["halfway", "anywhere", "never", "halfway"]):
        proc = _spawn(RESTORE_CHILD, store_dir, round_, n)
        try:
            line = proc.stdout.readline()
            assert line.strip() == "ready", f"child died: {proc.stderr.read()}"
            if kill_at == "halfway":
                assert proc.stdout.readline().strip() == "halfway", proc.stderr.read()
            elif kill_at == "anywhere":
                time.sleep(rng.uniform(0.0, 1.0))
            else:
                proc.wait(timeout=120)
        finally:
            if proc.returncode is None:
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        restored = "restored" in proc.stdout.read()
        assert restored == (proc.returncode == 0), proc.stderr.read()
        stored = _check(store_dir, [])  # whole documents, the count as stored
        expected = {"halfway": (0,), "anywhere": (0, n), "never": (n,)}[kill_at]
        assert stored - stored_before in expected, f"round {round_} ({kill_at})"
        store = open_store(store_dir)
        try:
            assert store.query(MERGE_HAS_EVERY_DOCUMENT_TRIPLE).value is True
            assert store.query(MERGE_HAS_ONLY_DOCUMENT_TRIPLES).value is True
            assert leaderboard_ranks.maintained(store._store)
        finally:
            store.close()
        assert not list(store_dir.rglob("bulk-*.sst")), "bulk loader files left behind"
        stored_before = stored
