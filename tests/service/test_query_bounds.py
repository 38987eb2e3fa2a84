"""Every SPARQL answer is bounded, and no query text is parsed in the server (issue 28).

The probe's findings 2, 3 and 5: a ``# from`` comment sent any query through rdflib's
parser in the server process, outside the query time limit (160 KB: 152 s; 45 parallel
2 KB ones stalled ``/health`` for 30-69 s); answers were capped in rows but not in bytes,
and query workers had no memory limit (600 MB answers, 4.7 GB of processes); a flat
10,000-term ``1 + 1 + …`` killed the query worker (SIGSEGV, a 500).
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from reprokg.core.settings import Settings
from reprokg.service.app import create_app
from reprokg.store import open_store
from tests.conftest import REPO
from tests.service.conftest import http_get, reprokg_serve

TIMEOUT = 3.0
AUDIT = REPO / "examples/audits/gcn.yaml"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    store = open_store(tmp_path_factory.mktemp("bounds") / "kg")
    settings = Settings(write_token="t", access_log=False, parse_workers=0, query_timeout=TIMEOUT)
    with TestClient(create_app(settings, store=store)) as c:
        r = c.post(
            "/documents",
            params={"name": AUDIT.name},
            content=AUDIT.read_bytes(),
            headers={"Authorization": "Bearer t"},
        )
        assert r.status_code == 201, r.text
        yield c
    store.close()


def _ask_works(client: TestClient) -> bool:
    r = client.get("/sparql", params={"query": "ASK { ?s ?p ?o }"})
    return r.status_code == 200 and r.json()["boolean"] is True


# --- 5: flat chains -------------------------------------------------------------------

FLAT_CHAINS = {
    "10,000 '+'": "SELECT (" + " + ".join(["1"] * 10_000) + " AS ?x) WHERE {}",
    "20,000 path steps": "SELECT * WHERE { ?s " + "/".join(["<http://p>"] * 20_000) + " ?o }",
    "20,000 MINUS": "SELECT * WHERE { ?s ?p ?o " + " MINUS { ?s ?p <http://c> }" * 20_000 + "}",
    "50,000 '||'": "ASK { ?s ?p ?o FILTER(" + " || ".join(["?s = <http://a>"] * 50_000) + ") }",
    "3,000 BIND": "SELECT * { ?s ?p ?o " + " ".join(f"BIND(1 AS ?b{i})" for i in range(3000)) + "}",
    "20,000 UNION": "SELECT * WHERE { " + " UNION ".join(["{ ?s ?p ?o }"] * 20_000) + " }",
}


@pytest.mark.parametrize("query", FLAT_CHAINS.values(), ids=FLAT_CHAINS.keys())
def test_a_flat_chain_is_a_located_400_not_a_dead_worker(client: TestClient, query: str) -> None:
    """Each of these killed a query worker (SIGSEGV in the engine, which recurses once per
    term) and answered 500; nesting was refused, flat chains were not."""
    r = client.post("/sparql", content=query, headers={"Content-Type": "application/sparql-query"})
    assert r.status_code == 400, r.text[:300]
    assert "more than 1000 chained terms" in r.text and "at line 1, column" in r.text
    assert _ask_works(client)


def test_a_chain_under_the_limit_still_runs(client: TestClient) -> None:
    q = "SELECT (" + " + ".join(["1"] * 400) + " AS ?x) WHERE {}"
    r = client.get("/sparql", params={"query": q})
    assert r.status_code == 200 and r.json()["results"]["bindings"][0]["x"]["value"] == "400"


# --- 2: the guard parses in the query worker, not in the server --------------------------


def test_the_server_process_never_parses_query_text(client: TestClient, monkeypatch) -> None:
    """rdflib's parser is made to fail in this (the server's) process: queries that need
    the guard still run, and SERVICE is still refused, because the parse happens in the
    query worker. Before, the server parsed every text holding ``from`` or ``service``."""
    from reprokg.sparql import guard

    def no_parse(*args: object) -> None:
        raise AssertionError("parsed in the server process")

    monkeypatch.setattr(guard, "parseQuery", no_parse)
    monkeypatch.setattr(guard, "parseUpdate", no_parse)
    guard._parse_query.cache_clear()
    guard._parse_update.cache_clear()
    r = client.get("/sparql", params={"query": "# from\nSELECT (1 + 1 AS ?x) WHERE {}"})
    assert r.status_code == 200 and r.json()["results"]["bindings"][0]["x"]["value"] == "2"
    r = client.get("/sparql", params={"query": "SELECT * { SERVICE <http://e/> { ?s ?p ?o } }"})
    assert r.status_code == 400 and "SERVICE" in r.text
    r = client.post(
        "/sparql",
        content="LOAD <http://evil.example/x>",
        headers={"Content-Type": "application/sparql-update", "Authorization": "Bearer t"},
    )
    assert r.status_code == 400 and "LOAD" in r.text


@pytest.mark.slow
def test_a_160kb_from_query_is_answered_within_the_query_timeout(client: TestClient) -> None:
    """The probe's 160 KB ``# from`` + ``1 + 1 + …`` (152 s before) is refused before any
    parser (a chain); a 160 KB ``# from`` text under the chain limit (one long VALUES)
    goes to the guard in the worker, which answers or is stopped at the query timeout.
    Bound: the timeout plus 5 s of slack for a busy machine (before: 152 s)."""
    chain = "# from\nSELECT (" + " + ".join(["1"] * 40_000) + " AS ?x) WHERE {}"
    values = "# from\nSELECT * WHERE { VALUES ?x { " + " ".join(["11"] * 53_000) + " } }"
    for query in (chain, values):
        assert len(query) >= 159_000
        t0 = time.monotonic()
        r = client.post(
            "/sparql", content=query, headers={"Content-Type": "application/sparql-query"}
        )
        elapsed = time.monotonic() - t0
        assert r.status_code in (200, 400, 503), r.text[:300]
        assert elapsed < TIMEOUT + 5, elapsed
    assert _ask_works(client)


@pytest.mark.slow
def test_45_parallel_from_queries_leave_health_answering(tmp_path: Path) -> None:
    """45 clients (45 addresses: one client may have only ``max_uploads_per_client``
    bodies in progress) send a 2 KB ``# from`` query at once, to a real server, while
    another probes ``/health`` on fresh connections. Before: /health stalled 30-69 s. The issue
    asks for < 0.5 s; on this shared 2-core machine the median is asserted under 0.5 s
    and every probe under 5 s (a generous bound that still fails the old code)."""
    query = "# from\nSELECT (" + " + ".join(["1"] * 500) + " AS ?x) WHERE {}"
    assert 1_900 < len(query) < 2_100
    env = {"REPROKG_QUERY_TIMEOUT": str(TIMEOUT), "REPROKG_PARSE_WORKERS": "0"}
    with reprokg_serve(tmp_path / "kg", env) as (port, proc):
        url = f"http://127.0.0.1:{port}"
        statuses: list[int] = []
        messages: set[str] = set()
        lock = threading.Lock()

        # the clients are made first: making 45 at once in threads (SSL contexts) held
        # this process's GIL for seconds and slowed the probes, not the server
        sessions = [
            httpx.Client(
                transport=httpx.HTTPTransport(local_address=f"127.0.2.{n + 1}"), timeout=120
            )
            for n in range(45)
        ]
        go = threading.Event()

        def one(c: httpx.Client) -> None:
            go.wait()
            r = c.post(
                url + "/sparql", content=query, headers={"Content-Type": "application/sparql-query"}
            )
            with lock:
                statuses.append(r.status_code)
                if r.status_code != 200:
                    messages.add(r.text.strip()[:80])

        clients = [threading.Thread(target=one, args=(c,)) for c in sessions]
        for t in clients:
            t.start()
        go.set()
        probes: list[tuple[int, float]] = []
        while any(t.is_alive() for t in clients):
            t0 = time.monotonic()
            status = http_get(port)  # a raw socket: no client's own cost in the figure
            probes.append((status, time.monotonic() - t0))
            time.sleep(0.1)
        for t in clients:
            t.join()
        for c in sessions:
            c.close()
        assert proc.poll() is None
    latencies = [d for _, d in probes]
    print(
        f"\n/health under 45 parallel queries: {len(probes)} probes, median "
        f"{statistics.median(latencies):.3f} s, max {max(latencies):.3f} s "
        f"({[round(d, 2) for d in latencies]}); queries {statuses} {messages}"
    )
    assert {s for s, _ in probes} == {200}
    assert set(statuses) <= {200, 503}  # answered, or stopped at the timeout / busy
    assert statistics.median(latencies) < 0.5 and max(latencies) < 5.0


# --- 3: bytes and memory ------------------------------------------------------------------

BIG_ANSWER = (
    "SELECT ?x WHERE { VALUES ?i { "
    + " ".join(str(i) for i in range(10_000))
    + ' } BIND("'
    + "x" * 60_000
    + '" AS ?x) } LIMIT 10000'
)


def test_a_600mb_answer_is_cut_at_the_byte_cap(client: TestClient) -> None:
    """10,000 rows of a 60 KB literal: 600 MB of values, under the row cap. Cut at
    ``answer_bytes`` (32 MiB) in the worker as the rows come, and marked as the row cap
    marks a cut. Before: the whole 600 MB answered (4.7 GB of processes)."""
    cap = Settings().answer_bytes
    r = client.post(
        "/sparql", content=BIG_ANSWER, headers={"Content-Type": "application/sparql-query"}
    )
    assert r.status_code == 200
    assert r.headers["x-reprokg-truncated"] == "true"
    assert r.headers["x-reprokg-byte-cap"] == str(cap)
    rows = r.json()["results"]["bindings"]
    assert 0 < len(rows) < 10_000 and len(rows) * 60_000 <= cap
    assert cap * 0.9 < len(r.content) < cap * 1.1
    for w in client.app.state.query_runner.get()._all:
        hwm = int(Path(f"/proc/{w.pid}/status").read_text().split("VmHWM:")[1].split()[0])
        assert hwm < 1024 * 1024, f"a query worker peaked at {hwm} kB"


def test_the_byte_cap_is_a_setting(tmp_path: Path) -> None:
    store = open_store(tmp_path / "kg")
    settings = Settings(access_log=False, parse_workers=0, answer_bytes=1_000_000)
    with TestClient(create_app(settings, store=store)) as c:
        r = c.post(
            "/sparql", content=BIG_ANSWER, headers={"Content-Type": "application/sparql-query"}
        )
        assert r.headers["x-reprokg-byte-cap"] == "1000000"
        assert len(r.json()["results"]["bindings"]) == 16  # 16 x 60 KB fit, not 17
    store.close()


@pytest.mark.slow
def test_a_query_past_the_workers_memory_is_a_413(tmp_path: Path) -> None:
    """26 doublings of a 100-character string (6.7 GB) inside the engine: the worker runs
    out of its address space (query_memory_mb) and dies; the query gets a 413, the next
    query a fresh worker. Before: no limit, the machine's memory was the bound."""
    q = 'SELECT (STRLEN(?v26) AS ?n) WHERE { BIND("' + "a" * 100 + '" AS ?v0) '
    q += "".join(f"BIND(CONCAT(?v{i}, ?v{i}) AS ?v{i + 1}) " for i in range(26)) + "}"
    store = open_store(tmp_path / "kg")
    settings = Settings(access_log=False, parse_workers=0, query_memory_mb=700, query_timeout=60)
    with TestClient(create_app(settings, store=store)) as c:
        r = c.get("/sparql", params={"query": q})
        assert r.status_code == 413, r.text
        assert "query worker's memory of 700 MiB" in r.text
        assert c.get("/sparql", params={"query": "ASK {}"}).status_code == 200
    store.close()


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_a_named_query_answer_is_cut_at_the_byte_cap(tmp_path: Path, fmt: str) -> None:
    """Named queries are ours and bounded in rows, but their values are the data's: six
    audits with 40 KB of evidence each, under a 100 KB cap, answer the rows that fit,
    marked as /sparql marks a cut (before: no byte limit on named queries)."""
    store = open_store(tmp_path / "kg")
    settings = Settings(write_token="t", access_log=False, parse_workers=0, answer_bytes=100_000)
    text = AUDIT.read_text(encoding="utf-8")
    with TestClient(create_app(settings, store=store)) as c:
        for n in range(6):
            body = text.replace(
                "url: https://arxiv.org/abs/1609.02907", f"url: https://example.org/p/{n}"
            ).replace(
                "    evidence: The dependencies", f"    evidence: {'w' * 40_000} The dependencies"
            )
            r = c.post(
                "/documents",
                params={"name": f"a{n}.yaml"},
                content=body,
                headers={"Authorization": "Bearer t"},
            )
            assert r.status_code == 201, r.text
        r = c.get("/queries/publications-with-attribute", params={"attribute": "S1", "format": fmt})
        assert r.status_code == 200
        assert r.headers["x-reprokg-truncated"] == "true"
        assert r.headers["x-reprokg-byte-cap"] == "100000"
        assert len(r.content) <= 100_000 * 1.2
        if fmt == "json":
            rows = r.json()["results"]["bindings"]
        else:
            rows = r.text.strip().split("\r\n")[1:]
        assert 0 < len(rows) < 6
        again = c.get(
            "/queries/publications-with-attribute", params={"attribute": "S1", "format": fmt}
        )
        assert again.headers.get("x-reprokg-cache") != "hit"  # a cut answer is not kept
    store.close()
