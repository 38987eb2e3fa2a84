"""Stateless replicas: two ``reprokg serve`` processes (separate ports, as separate hosts
would be) over one remote engine answer the same after each write commits.

The engines are those ``tests/engines.py`` starts (skipped locally when missing, required
in CI). Expected values are what the test wrote: the i-th upload makes i documents and
puts run tag ``replica-run-i`` on the runs page.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from reprokg.store import open_store
from tests.engines import oxigraph_server, virtuoso_server  # noqa: F401 - fixtures
from tests.service.conftest import reprokg_serve

TOKEN = "replica-token"
RUN = Path(__file__).parents[2] / "examples" / "runs" / "annotated_run_example.txt"

pytestmark = [pytest.mark.slow, pytest.mark.engine]  # engines, two service processes (~40 s)


@pytest.fixture(params=["oxigraph-server", "virtuoso"])
def replicas(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[list[str]]:
    fixture = "oxigraph_server" if request.param == "oxigraph-server" else "virtuoso_server"
    url = request.getfixturevalue(fixture)
    with open_store(url) as s:  # the session's engine: start empty
        for g in s.documents():
            s.delete_document(g)
    env = {
        "REPROKG_BLOB_DIR": str(tmp_path / "blobs"),  # shared by the replicas, as it must be
        "REPROKG_WRITE_TOKEN": TOKEN,
        "REPROKG_PARSE_WORKERS": "1",
        "REPROKG_ACCESS_LOG": "0",
    }
    try:
        with contextlib.ExitStack() as started:
            ports = [started.enter_context(reprokg_serve(url, env))[0] for _ in range(2)]
            yield [f"http://127.0.0.1:{port}" for port in ports]
    finally:
        with open_store(url) as s:
            for g in s.documents():
                s.delete_document(g)


def view(base: str) -> tuple[int, int, str]:
    """(documents, store version) from /health and the runs page, read by one replica."""
    health = httpx.get(base + "/health", timeout=30).json()
    runs = httpx.get(base + "/runs", timeout=60)
    assert runs.status_code == 200, runs.text[:500]
    return health["documents"], health["store_version"], runs.text


def test_two_replicas_answer_alike_after_each_write(replicas: list[str]) -> None:
    """No cache serves an answer older than the engine's last commit on either replica."""
    writer, other = replicas
    text = RUN.read_text()
    assert "tag: bm25+rm3" in text
    for replica in replicas:  # both fill their caches before the first write
        docs, _, page = view(replica)
        assert docs == 0 and "replica-run-" not in page
    seen_versions: list[int] = []
    polled: dict[str, list[int]] = {base: [] for base in replicas}
    writing = threading.Event()

    def poll() -> None:  # both replicas read while the writer ingests
        while not writing.is_set():
            for base in replicas:
                polled[base].append(httpx.get(base + "/health", timeout=30).json()["documents"])

    reader = threading.Thread(target=poll)
    reader.start()
    try:
        write_and_compare(writer, other, text, seen_versions)
    finally:
        writing.set()
        reader.join()
    assert seen_versions == sorted(set(seen_versions))
    for counts in polled.values():  # no replica ever answers older than it did before
        assert counts == sorted(counts) and counts, counts


def write_and_compare(writer: str, other: str, text: str, seen_versions: list[int]) -> None:
    """Upload three runs through ``writer``; after each commits, both replicas agree."""
    for i in range(1, 4):
        body = text.replace("tag: bm25+rm3", f"tag: replica-run-{i}").encode()
        r = httpx.post(
            writer + "/documents",
            params={"name": f"replica-{i}.run"},
            content=body,
            headers={"Content-Type": "text/plain", "Authorization": f"Bearer {TOKEN}"},
            timeout=120,
        )
        assert r.status_code in (200, 201), r.text[:1000]
        answers = [view(replica) for replica in (other, writer)]  # the reader first
        for docs, _version, page in answers:
            assert docs == i, json.dumps([a[:2] for a in answers])
            for j in range(1, i + 1):
                assert f"replica-run-{j}" in page
        assert answers[0][1] == answers[1][1]  # one version: the engine's
        seen_versions.append(answers[0][1])
