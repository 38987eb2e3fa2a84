"""A full disk under the store (issue 28, finding 8), on a small tmpfs this test mounts.

Before: writes answered a bare 500 ``InternalError``, SPARQL answered 500 while /health
said ok, after space was freed the running server still answered 500 (a restart was
needed), and with 3 MB free the store did not reopen. Now: 507 with a sentence, reads
served, writes resume by themselves once space is freed, the reopened store holds exactly
the acknowledged documents, and an open that lacks room says how much it needs.

Mounting needs root (``mount -t tmpfs``); elsewhere the tests skip, saying so.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from reprokg.core.errors import StorageFull
from tests.conftest import REPO
from tests.service.conftest import http_get, reprokg_serve

TOKEN = "disk-full"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
AUDIT = (REPO / "examples/audits/gcn.yaml").read_text(encoding="utf-8")


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 48 MiB tmpfs of our own (so that filling it fills no one else's disk)."""
    mnt = tmp_path / "tmpfs"
    mnt.mkdir()
    if os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("mounting a tmpfs needs root and mount(8): the disk-full tests skip")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", str(mnt)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def _fill(mnt: Path, leave: int) -> Path:
    """Fill the tmpfs to ``leave`` bytes free with a file (deleted to free the space)."""
    filler = mnt / "filler"
    free = shutil.disk_usage(mnt).free
    with filler.open("ab") as f:
        f.write(b"\0" * max(0, free - leave))
    return filler


def _audit(n: int) -> bytes:
    """A distinct real audit: the bundled GCN audit of another paper (a new source key,
    so a new document rather than a revision), with a long title."""
    return (
        AUDIT.replace("url: https://arxiv.org/abs/1609.02907", f"url: https://example.org/p/{n}")
        .replace(
            "title: Semi-Supervised Classification with Graph Convolutional Networks",
            f"title: Semi-Supervised Classification, audit copy {n} {uuid.uuid4().hex * 20}",
        )
        .encode()
    )


@pytest.mark.slow  # a real server, a disk filled and freed
def test_a_full_disk_is_a_507_reads_go_on_and_writes_resume(tmpfs: Path) -> None:
    store = tmpfs / "kg"
    env = {
        "REPROKG_WRITE_TOKEN": TOKEN,
        "REPROKG_PARSE_WORKERS": "0",
        "REPROKG_ACCESS_LOG": "0",
        # no reserve: the writes meet the full disk itself (RocksDB's ENOSPC)
        "REPROKG_STORE_MIN_FREE_MB": "0",
    }
    acknowledged: set[str] = set()
    with reprokg_serve(store, env) as (port, proc):
        url = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=url, timeout=60) as c:

            def upload(n: int) -> httpx.Response:
                r = c.post(
                    "/documents", params={"name": f"a{n}.yaml"}, content=_audit(n), headers=AUTH
                )
                if r.status_code == 201:
                    assert [d["status"] for d in r.json()["documents"]] == ["added"]
                    acknowledged.update(d["iri"] for d in r.json()["documents"])
                return r

            assert upload(0).status_code == 201
            assert c.get("/sparql", params={"query": "ASK { ?s ?p ?o }"}).status_code == 200
            filler = _fill(tmpfs, leave=256 * 1024)
            statuses = [upload(n).status_code for n in range(1, 80)]
            assert 507 in statuses and set(statuses) <= {201, 507}, statuses
            r = upload(100)
            assert r.status_code == 507, r.text
            detail = r.json()["detail"]
            assert detail["error"] == "StorageFull" and "nothing was written" in detail["message"]
            assert "writes resume by themselves" in detail["message"]
            # reads go on, with what was acknowledged
            listed = c.get("/documents").json()
            assert {d["iri"] for d in listed["documents"]} == acknowledged, (statuses, listed)
            q = "SELECT (COUNT(DISTINCT ?a) AS ?n) WHERE { ?a a ?t }"
            assert c.get("/sparql", params={"query": q}).status_code == 200
            assert http_get(port) == 200
            # space is back: the same server writes again, no restart
            filler.unlink()
            r = upload(200)
            assert r.status_code == 201, r.text
            assert proc.poll() is None
        proc.send_signal(signal.SIGKILL)  # no orderly shutdown: what a crash leaves
        proc.wait(30)
    from reprokg.store import open_store

    with open_store(store) as reopened:
        assert {str(d) for d in reopened.documents()} == acknowledged


def test_writes_keep_a_reserve(tmpfs: Path) -> None:
    """Below ``store_min_free_mb`` a write is refused before RocksDB meets the full disk
    (its error would need a reopen)."""
    from reprokg.core import settings as config
    from reprokg.core.settings import Settings
    from reprokg.store import open_store

    config.configure(Settings(store_min_free_mb=40))
    try:
        with open_store(tmpfs / "kg") as store:  # 48 MiB tmpfs: < 40 MiB once filled
            _fill(tmpfs, leave=30 << 20)
            from rdflib import Graph, Literal, URIRef

            g = Graph()
            g.add((URIRef("http://example.org/s"), URIRef("http://example.org/p"), Literal(1)))
            with pytest.raises(StorageFull, match="less than the 40.0 MiB writes keep"):
                store.add_document("http://example.org/doc", g)
            assert store.documents() == []
            (tmpfs / "filler").unlink()
            store.add_document("http://example.org/doc", g)
            assert len(store.documents()) == 1
    finally:
        config.configure(None)


WRITER = r"""
import os, signal, sys
from rdflib import Graph, Literal, URIRef
from reprokg.store import open_store
store = open_store(sys.argv[1])
for i in range(6):
    g = Graph()
    for j in range(2000):
        g.add((URIRef(f"http://example.org/s/{i}/{j}"), URIRef("http://example.org/p"),
               Literal("x" * 200)))
    store.add_document(f"http://example.org/g/{i}", g)
print("written", flush=True)
os.kill(os.getpid(), signal.SIGKILL)  # the write-ahead log is not replayed yet
"""


@pytest.mark.slow  # a child process writes 12,000 triples first
def test_opening_on_a_nearly_full_disk_says_what_it_needs(tmpfs: Path) -> None:
    """A store whose write-ahead log (~9 MB here) must be replayed, opened with 3 MB
    free: the open fails with the room it needs; with that room it opens with every
    write. Before: a RocksDB IO error, and no hint."""
    from reprokg.store import open_store
    from reprokg.store.disk import wal_bytes

    raw = tmpfs / "kg"
    out = subprocess.run(
        [sys.executable, "-c", WRITER, str(raw)],
        capture_output=True,
        env={**os.environ, "REPROKG_STORE_MIN_FREE_MB": "0"},
    )
    assert b"written" in out.stdout, out.stderr
    wal = wal_bytes(raw / "oxigraph")
    assert wal > 5 << 20
    filler = _fill(tmpfs, leave=3 << 20)
    with pytest.raises(StorageFull) as err:
        open_store(raw)
    message = str(err.value)
    assert "replays its write-ahead log" in message and "free at least" in message
    needed = err.value.details["needed_bytes"]
    assert needed > wal
    filler.unlink()
    _fill(tmpfs, leave=needed)
    with contextlib.closing(open_store(raw)) as store:
        assert len(store.documents()) == 6
