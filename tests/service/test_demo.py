"""``reprokg serve --demo``: the bundled examples in a fresh store, served over real HTTP."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import httpx
import pytest

from reprokg.service.demo import load_demo
from reprokg.store import open_store
from tests.conftest import REPO

EXAMPLES = REPO / "examples"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening_sockets(port: int) -> int:
    """How many TCP sockets listen on ``port`` on this machine (Linux ``/proc/net``)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as fh:
            next(fh)
            for line in fh:
                f = line.split()
                if int(f[1].rsplit(":", 1)[1], 16) == port and f[3] == "0A":  # 0A: LISTEN
                    inodes.add(f[9])
    return len(inodes)


def _n_audit_files() -> int:
    return len(list((EXAMPLES / "audits").glob("*.yaml"))) + len(
        list((EXAMPLES / "qra").glob("*.yaml"))
    )


@pytest.mark.slow
def test_load_demo_loads_every_example(tmp_path) -> None:
    store = open_store(str(tmp_path / "kg"))
    counts = load_demo(store)
    assert "rejected" not in counts and "unreadable" not in counts, counts
    res = store.query(
        "PREFIX rk: <https://w3id.org/reprokg/ontology#> SELECT ?kind (COUNT(?g) AS ?n) "
        "WHERE { GRAPH ?g { ?g rk:documentKind ?kind } } GROUP BY ?kind"
    )
    kinds = {str(k): int(n) for k, n in res.rows}
    assert kinds.get("audit") == _n_audit_files()
    if (EXAMPLES / "runs").is_dir():
        assert kinds.get("run", 0) >= 1
    # every stability study analysed and stored (kind stability-analysis), flagged illustrative
    assert kinds.get("stability-analysis") == kinds.get("stability") == 2
    assert counts.get("stability analysis added") == 2
    res = store.query(
        "PREFIX rk: <https://w3id.org/reprokg/ontology#> SELECT ?a WHERE { ?a a "
        "rk:StabilityAnalysis ; rk:isIllustrative true ; rk:analysedStudy ?s . "
        "?s rk:isIllustrative true }"
    )
    assert len(res.rows) == 2
    # the UCI Wine estimate: 11.2785420816569 by the authors' idim and obsdim
    # (tests/intrinsic_dimension/test_oracles.py computes it with both on the same data)
    assert counts.get("intrinsic dimension added") == 1
    res = store.query(
        "PREFIX rk: <https://w3id.org/reprokg/ontology#> SELECT ?id WHERE { "
        "?e rk:intrinsicDimensionValue ?id }"
    )
    assert [round(float(v[0]), 10) for v in res.rows] == [11.2785420817]
    # the seed-variance ranking of the study with several experiments, and the QRA of
    # QRA's worked example (examples/qra) and of the runs' paper, stored
    assert counts.get("critical-difference added") == 1 and counts.get("qra added") == 2
    assert kinds.get("critical-difference") == 1 and kinds.get("qra") == 2
    # idempotent: loading and analysing again adds nothing
    again = set(load_demo(store)) - {"skipped (same source key)"}
    assert again == {
        "unchanged",
        "stability analysis unchanged",
        "intrinsic dimension unchanged",
        "critical-difference unchanged",
        "qra unchanged",
    }
    store.close()


@pytest.fixture
def server(tmp_path):
    """``reprokg serve --demo`` as a user runs it (own process, loopback, free port)."""
    procs = []

    def start(*extra: str) -> str:
        port = _free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("REPROKG_")}
        env["REPROKG_WRITE_TOKEN"] = "demo-token"
        env["REPROKG_DEMO_CACHE"] = str(tmp_path / "demo-cache")  # not the user's ~/.cache
        proc = subprocess.Popen(
            [sys.executable, "-m", "reprokg", "serve", "--demo", "--port", str(port), *extra],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        procs.append(proc)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise AssertionError(f"serve exited: {proc.stderr.read()}")
            try:
                if httpx.get(url + "/health", timeout=2).status_code == 200:
                    return url
            except httpx.HTTPError:
                time.sleep(0.3)
        raise AssertionError("service did not come up")

    def banner() -> list[str]:
        """The lines ``serve`` printed before serving, up to the last example request."""
        lines = []
        for line in procs[-1].stderr:
            lines.append(line.rstrip("\n"))
            if "/sparql' --data-urlencode" in line:
                return lines
        raise AssertionError(f"no banner in {lines}")

    start.banner = banner  # type: ignore[attr-defined]
    yield start
    for proc in procs:
        proc.terminate()
        try:
            out, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        server.last_stderr = err  # type: ignore[attr-defined]


@pytest.mark.slow
def test_serve_demo_end_to_end(server) -> None:
    url = server()
    health = httpx.get(url + "/health").json()
    assert health["demo"] is True and health["documents"] >= _n_audit_files()
    r = httpx.get(url + "/queries/publications-with-attribute", params={"attribute": "S1"})
    rows = r.json()["results"]["bindings"]
    assert {b["publication"]["value"] for b in rows} >= {"https://arxiv.org/abs/1609.02907"}
    audit = rows[0]["audit"]["value"]
    assert audit.startswith("https://w3id.org/reprokg/id/")
    local = "/id/" + audit.removeprefix("https://w3id.org/reprokg/id/")
    page = httpx.get(url + local)
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert httpx.get(url + local, headers={"Accept": "text/turtle"}).status_code == 200
    assert httpx.get(url + "/").status_code == 200
    assert httpx.get(url + "/docs").status_code == 200
    # the seed-003 example analysed end to end: the paths the banner prints answer
    paths = [ln.split(url, 1)[1].rstrip("'") for ln in server.banner() if "/measures/stab" in ln]
    assert any(p.startswith("/measures/stability?study=") for p in paths), paths
    for path in paths:
        r = httpx.get(url + path, timeout=60)
        assert r.status_code == 200, (path, r.text[:200])
    studies = httpx.get(url + "/measures/stability/studies").json()
    (example,) = [s for s in studies if s["title"].startswith("Illustrative")]
    body = httpx.get(url + "/measures/stability", params={"study": example["id"]}).json()
    assert body["n"] == 1083 and body["singular"] is True and len(body["contrasts"]) == 6
    assert "illustrative" in body["warnings"][0]


@pytest.mark.slow
def test_serve_with_several_workers_is_read_only(server) -> None:
    url = server("--workers", "2")
    seen, workers = set(), set()
    for _ in range(40):  # a new connection each time: the kernel picks a worker per connection
        r = httpx.get(url + "/health")
        assert r.status_code == 200 and r.json()["read_only"] is True
        seen.add(r.json()["documents"])
        workers.add(r.json()["worker_pid"])
    assert len(workers) == 2, workers  # both answer (all 40 on one of 2 by chance: 2 ** -39)
    if sys.platform.startswith("linux"):
        # a listening socket per worker, so the kernel balances connections between them;
        # uvicorn's own supervisor shares one (under the benchmark's 16 keep-alive
        # connections one worker then accepted them all and the other sat idle)
        assert _listening_sockets(int(url.rsplit(":", 1)[1])) == 2
    assert len(seen) == 1  # every worker sees the same data
    r = httpx.delete(url + "/documents/" + "0" * 64, headers={"Authorization": "Bearer demo-token"})
    assert r.status_code == 403 and "read-only" in r.json()["detail"]["message"]
    r = httpx.get(url + "/queries/publications-with-attribute", params={"attribute": "S1"})
    assert r.status_code == 200 and r.json()["results"]["bindings"]


@pytest.mark.slow
def test_several_workers_that_cannot_start_stop_the_service(tmp_path) -> None:
    """A worker failing at start (no store there) stops ``serve`` with status 1, no restarts."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REPROKG_")}
    proc = subprocess.run(
        [sys.executable, "-m", "reprokg", "serve", "--store", str(tmp_path / "missing")]
        + ["--port", str(_free_port()), "--workers", "2"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    assert "failed to start" in proc.stderr


@pytest.mark.slow
def test_the_demo_store_is_built_once_and_copied(tmp_path, monkeypatch) -> None:
    """``prepare_demo`` builds the demo store once per fingerprint and copies it into each
    fresh store folder; another fingerprint (changed code or data) builds anew."""
    from rdflib import Graph, Literal, URIRef

    from reprokg.service import demo
    from reprokg.store import open_store

    builds = []

    def fake_build(store) -> tuple[dict[str, int], list[str]]:
        builds.append(1)
        g = Graph()
        g.add((URIRef("urn:x"), URIRef("urn:p"), Literal(len(builds))))
        store.add_document(URIRef(f"urn:doc:{len(builds)}"), g)
        return {"added": 1}, ["/health"]

    monkeypatch.setattr(demo, "build_or_restore", fake_build)
    # without a shipped bundle the package's fingerprint keys the cache
    monkeypatch.setattr("reprokg.service.demo_bundle.bundle_key", lambda: None)
    cache = tmp_path / "cache"
    first, second = tmp_path / "a", tmp_path / "b"
    assert demo.prepare_demo(str(first), cache) == ({"added": 1}, ["/health"])
    assert demo.prepare_demo(str(second), cache) == ({"added": 1}, ["/health"])
    assert len(builds) == 1
    for folder in (first, second):
        with open_store(str(folder)) as store:
            assert [str(d) for d in store.documents()] == ["urn:doc:1"]
    monkeypatch.setattr(demo, "demo_fingerprint", lambda: "changed")
    demo.prepare_demo(str(tmp_path / "c"), cache)
    assert len(builds) == 2
    assert len(list(cache.glob("demo-*"))) == 2
    # with a bundle, its content keys the cache: another bundle builds anew, once
    monkeypatch.setattr("reprokg.service.demo_bundle.bundle_key", lambda: "bundle-x")
    demo.prepare_demo(str(tmp_path / "d"), cache)
    demo.prepare_demo(str(tmp_path / "e"), cache)
    assert len(builds) == 3


def test_the_demo_fingerprint_follows_the_package_files() -> None:
    from reprokg.service.demo import demo_fingerprint

    assert demo_fingerprint() == demo_fingerprint()
    assert len(demo_fingerprint()) == 24
