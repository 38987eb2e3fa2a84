"""The query runner really stops runaway queries and keeps serving; workers see new writes."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from rdflib import Graph, Literal, URIRef

from reprokg.core.errors import QueryTimeout
from reprokg.sparql.runner import ProcessQueryRunner, QueryJob, Snapshots
from reprokg.store.base import AskResult, SelectResult
from tests.sparql_testapp import SparqlApp, make_app

pytestmark = pytest.mark.slow  # worker processes started per test

EX = "http://example.org/"
#: 3 000 triples joined three times with themselves: 2.7e10 rows, never finishes.
RUNAWAY = "SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"


def _data(n: int = 3000) -> Graph:
    g = Graph()
    for i in range(n):
        g.add((URIRef(f"{EX}s{i}"), URIRef(f"{EX}p{i % 7}"), Literal(i)))
    return g


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparqlApp]:
    app = make_app(tmp_path_factory.mktemp("slow") / "store", timeout=1.5, workers=2)
    app.store.add_document(f"{EX}doc/big", _data())
    yield app
    app.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_runaway_query_is_stopped_while_others_are_served(svc: SparqlApp) -> None:
    client = TestClient(svc.app)
    assert client.get("/sparql", params={"query": "ASK {}"}).status_code == 200
    runner = svc.router.sparql_runner.get()  # type: ignore[attr-defined]
    assert isinstance(runner, ProcessQueryRunner)
    pids_before = {w.proc.pid for w in runner._all}
    killed_before = runner.killed

    order: list[str] = []
    slow_status: list[int] = []
    started = threading.Event()

    def slow() -> None:
        started.set()
        r = client.get("/sparql", params={"query": RUNAWAY})
        slow_status.append(r.status_code)
        order.append("slow")

    t = threading.Thread(target=slow)
    t.start()
    started.wait()
    # a simple query on the other worker answers while the runaway one is still running
    r = client.get("/sparql", params={"query": f"SELECT (COUNT(*) AS ?n) {{ <{EX}s5> ?p ?o }}"})
    order.append("simple")
    t.join(30)
    assert not t.is_alive()
    assert r.status_code == 200
    assert r.json()["results"]["bindings"][0]["n"]["value"] == "1"
    assert order == ["simple", "slow"]
    assert slow_status == [503]
    assert runner.killed == killed_before + 1
    dead = pids_before - {w.proc.pid for w in runner._all}
    assert len(dead) == 1 and not _alive(dead.pop())
    # the pool is back to full strength and answers
    for _ in range(3):
        assert client.get("/sparql", params={"query": "ASK { ?s ?p ?o }"}).json()["boolean"]


def test_runner_direct_timeout_and_recovery(tmp_path) -> None:
    from tests.sparql_testapp import open_test_store

    store = open_test_store(tmp_path / "s")
    store.add_document(f"{EX}doc/big", _data())
    runner = ProcessQueryRunner(Snapshots(store), workers=1, timeout=1.0)
    try:
        with pytest.raises(QueryTimeout):
            runner.run(QueryJob(RUNAWAY))
        res = runner.run(QueryJob("ASK { ?s ?p ?o }"), timeout=30)
        assert isinstance(res.result, AskResult) and res.result.value
    finally:
        runner.close()
        store.close()


def test_workers_see_later_writes(tmp_path) -> None:
    from tests.sparql_testapp import open_test_store

    store = open_test_store(tmp_path / "s")
    runner = ProcessQueryRunner(Snapshots(store), workers=1, timeout=10)
    q = QueryJob("SELECT (COUNT(*) AS ?n) { ?s ?p ?o }")
    try:
        for expected in (0, 10, 20):
            res = runner.run(q).result
            assert isinstance(res, SelectResult)
            assert int(res.rows[0][0]) == expected
            g = Graph()
            for i in range(10):
                g.add((URIRef(f"{EX}n{expected + i}"), URIRef(f"{EX}p"), Literal(i)))
            store.add_document(f"{EX}doc/{expected}", g)
        store.delete_document(f"{EX}doc/0")
        res = runner.run(q).result
        assert int(res.rows[0][0]) == 20
        # a bulk load bypasses the write-ahead log; it must be seen all the same (a
        # restore of BULK_MIN_QUADS quads or more is one call of pyoxigraph's bulk loader)
        import io

        import pyoxigraph as ox

        from reprokg.store.oxigraph import BULK_MIN_QUADS

        g = ox.NamedNode(f"{EX}doc/bulk")
        quads = [
            ox.Quad(ox.NamedNode(f"{EX}b{i}"), ox.NamedNode(f"{EX}p"), ox.Literal(i), g)
            for i in range(BULK_MIN_QUADS)
        ]
        store.restore(io.BytesIO(ox.serialize(quads, format=ox.RdfFormat.N_QUADS)))
        res = runner.run(q).result
        assert int(res.rows[0][0]) == 20 + BULK_MIN_QUADS
        store.delete_document(g.value)
        assert int(runner.run(q).result.rows[0][0]) == 20
        snaps = runner.snapshots
        assert snaps is not None
        made = snaps.made
        runner.run(q)  # nothing written since: no new checkpoint
        assert snaps.made == made
        # checkpoints nobody has open are deleted: one worker → only the current one left
        assert len(list(snaps.root.iterdir())) == 1
    finally:
        runner.close()
        store.close()
    assert not snaps.root.exists()


def test_read_only_store_is_read_in_place(tmp_path) -> None:
    from tests.sparql_testapp import open_test_store

    store = open_test_store(tmp_path / "s")
    store.add_document(f"{EX}doc/1", _data(10))
    store.close()
    from reprokg.sparql.runner import runner_for
    from reprokg.store import open_store

    ro = open_store(str(tmp_path / "s"), read_only=True)
    runner = runner_for(ro, timeout=10, row_cap=100, workers=1)
    try:
        assert isinstance(runner, ProcessQueryRunner) and runner.snapshots is None
        res = runner.run(QueryJob("SELECT (COUNT(*) AS ?n) { ?s ?p ?o }")).result
        assert int(res.rows[0][0]) == 10
    finally:
        runner.close()


def test_row_cap_and_lexical_forms_survive_the_process_hop(tmp_path) -> None:
    from tests.sparql_testapp import open_test_store

    store = open_test_store(tmp_path / "s")
    store.update(
        "INSERT DATA { GRAPH <http://g/> { <http://s> <http://p> "
        '"2020-01-01T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime>, '
        '"x"@en-GB, "plain", _:b } }'
    )
    runner = ProcessQueryRunner(Snapshots(store), workers=1, timeout=10, row_cap=3)
    try:
        out = runner.run(QueryJob("SELECT ?o { ?s ?p ?o } ORDER BY STR(?o)"))
        assert out.truncated and out.row_cap == 3
        assert len(out.result.rows) == 3
        out = runner.run(QueryJob("SELECT ?o { ?s ?p ?o FILTER(isLiteral(?o)) }"), row_cap=10)
        got = {o for (o,) in out.result.rows}
        assert Literal("x", lang="en-gb") in got or Literal("x", lang="en-GB") in got
        assert Literal("plain") in got
        # as the engine wrote it: rdflib's default normalisation would give "+00:00"
        assert "2020-01-01T00:00:00Z" in {str(o) for o in got}
        assert not out.truncated
    finally:
        runner.close()
        store.close()


def test_checkpoints_of_dead_processes_are_removed(tmp_path) -> None:
    from tests.sparql_testapp import open_test_store

    store = open_test_store(tmp_path / "s")
    base = Path(f"{store.path}.sparql-snapshots")
    orphan = base / "999999999" / "snap-000001"  # no such pid
    orphan.mkdir(parents=True)
    live = base / str(os.getppid()) / "snap-000001"  # a process that exists
    live.mkdir(parents=True)
    snaps = Snapshots(store)
    try:
        assert not orphan.parent.exists()
        assert live.exists()
    finally:
        snaps.close()
        store.close()
