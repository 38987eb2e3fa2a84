"""Analyses over HTTP (``/measures/...``) compute in workers with a time and a memory
limit (issue 28, finding 3's "and the same on every analysis endpoint"): before, an
anonymous ``POST /measures/intrinsic-dimension`` parsed its upload and computed in the
server process, as long and as big as the data made it."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from reprokg.core.settings import Settings
from reprokg.service.app import create_app
from reprokg.store import open_store

URL = "/measures/intrinsic-dimension"
REPO = Path(__file__).resolve().parents[2]
AUDIT = "gcn.yaml"  # a real audit of the bundled examples


def _csv(rows: int, cols: int = 8) -> bytes:
    x = np.random.default_rng(28).random((rows, cols))
    out = io.StringIO()
    out.write(",".join(f"f{i}" for i in range(cols)) + "\n")
    np.savetxt(out, x, delimiter=",", fmt="%.4f")
    return out.getvalue().encode()


@pytest.fixture
def app_with(tmp_path: Path) -> Iterator:
    made: list = []

    def make(**settings: object) -> TestClient:
        store = open_store(tmp_path / f"kg{len(made)}")
        client = TestClient(create_app(Settings(access_log=False, **settings), store=store))
        made.append((client.__enter__(), store))
        return made[-1][0]

    yield make
    for client, store in made:
        client.__exit__(None, None, None)
        store.close()


@pytest.mark.slow  # an analysis worker starts (numpy, scipy) and one is killed
def test_an_analysis_past_its_time_is_stopped_and_the_service_goes_on(app_with) -> None:
    """20,000 rows, exact with per-feature scores: ~4.5 s of computing here; the limit
    is 1 s. Before: computed in the server process, whatever it took."""
    c = app_with(analysis_timeout=1.0, parse_workers=0)
    r = c.post(
        URL,
        files={"data": ("big.csv", _csv(20_000), "text/csv")},
        data={"exact": "true", "features": "true"},
    )
    assert r.status_code == 503, r.text[:300]
    assert "longer than its limit of 1 s (analysis_timeout)" in r.json()["detail"]["message"]
    assert c.get("/health").status_code == 200


@pytest.mark.slow
def test_an_analysis_past_its_memory_is_a_413(app_with) -> None:
    """An address space too small for the worker's libraries: the analysis fails in the
    worker (its own ``RLIMIT_AS``), not in the server, and says which limit."""
    c = app_with(analysis_memory_mb=200, parse_workers=0)
    r = c.post(URL, files={"data": ("small.csv", _csv(50), "text/csv")})
    assert r.status_code == 413, r.text[:300]
    assert "analysis_memory_mb" in r.json()["detail"]["message"]
    assert c.get("/health").status_code == 200


@pytest.mark.slow
def test_an_analysis_in_a_worker_answers_as_in_the_server(app_with, tmp_path: Path) -> None:
    """The same answer from the worker as from the request's thread (an app without the
    service's workers, as the route's own tests mount it)."""
    from fastapi import FastAPI

    from reprokg.service.deps import add_error_handler
    from reprokg.service.routes.intrinsic_dimension import router

    data = _csv(300)
    c = app_with(parse_workers=0)
    worker = c.post(URL, files={"data": ("d.csv", data, "text/csv")}, data={"features": "true"})
    bare = FastAPI()
    add_error_handler(bare)
    bare.state.store = open_store(tmp_path / "bare")
    bare.state.settings = Settings(access_log=False)
    bare.include_router(router)
    inline = TestClient(bare).post(
        URL, files={"data": ("d.csv", data, "text/csv")}, data={"features": "true"}
    )
    bare.state.store.close()
    assert worker.status_code == inline.status_code == 200, worker.text[:300]
    assert worker.json() == inline.json()


@pytest.mark.slow  # parse and analysis workers start twice
def test_workers_come_back_when_the_apps_lifespan_runs_again(tmp_path: Path) -> None:
    """An ASGI lifespan may run more than once per app (schemathesis' ASGI client runs one
    per request). Before: its first end closed the analysis workers for good (every later
    /measures/... a 500, "the analysis workers are closed") and made uploads parse in the
    server process. Now the workers start again with the next lifespan, and between two
    lifespans nothing runs in the server process: a 503."""
    audit = (REPO / "examples" / "audits" / AUDIT).read_bytes()
    store = open_store(tmp_path / "kg")
    app = create_app(Settings(access_log=False, parse_workers=1), store=store)
    try:
        with TestClient(app) as c:
            assert c.post("/validate", params={"name": AUDIT}, content=audit).status_code == 200
        stopped = TestClient(app).post("/validate", params={"name": AUDIT}, content=audit)
        assert stopped.status_code == 503, stopped.text[:300]
        assert "not available" in stopped.json()["detail"]["message"]
        with TestClient(app) as c:
            r = c.post("/validate", params={"name": AUDIT}, content=audit)
            assert r.status_code == 200, r.text[:300]
            r = c.post(URL, files={"data": ("d.csv", _csv(300), "text/csv")})
            assert r.status_code == 200, r.text[:300]
    finally:
        store.close()


@pytest.mark.slow  # parse and analysis workers start
def test_workers_stay_while_another_lifespan_of_the_app_runs(tmp_path: Path) -> None:
    """The same app in two servers at once (the web tests' client and live server): the
    first to stop closed the workers under the other. Before: the other's uploads a 503
    ("the service is stopping") and its analyses a 500; now the workers close with the
    last lifespan."""
    audit = (REPO / "examples" / "audits" / AUDIT).read_bytes()
    store = open_store(tmp_path / "kg")
    app = create_app(Settings(access_log=False, parse_workers=1), store=store)
    try:
        with TestClient(app) as staying:
            with TestClient(app) as leaving:
                ok = leaving.post("/validate", params={"name": AUDIT}, content=audit)
                assert ok.status_code == 200
            r = staying.post("/validate", params={"name": AUDIT}, content=audit)
            assert r.status_code == 200, r.text[:300]
            r = staying.post(URL, files={"data": ("d.csv", _csv(300), "text/csv")})
            assert r.status_code == 200, r.text[:300]
        stopped = TestClient(app).post("/validate", params={"name": AUDIT}, content=audit)
        assert stopped.status_code == 503, stopped.text[:300]
    finally:
        store.close()


@pytest.mark.slow  # an analysis worker starts and is killed
def test_a_comparison_past_the_analysis_timeout_is_stopped(app_with, shared_data: Path) -> None:
    """``POST /comparisons`` computes in an analysis worker too (issue 38): 100,000
    resamples of the real toy runs took 31-72 s in the server's thread pool before,
    whatever ``analysis_timeout`` said; now a 503 once the limit is past."""
    import json
    import time

    toy = shared_data / "trec" / "toy"
    files = {
        "qrels": ("qrels.toy", (toy / "qrels.toy").read_bytes()),
        "orig_base": ("run_a", (toy / "run_a").read_bytes()),
        "orig_adv": ("run_b", (toy / "run_b").read_bytes()),
        "rep_base": ("run_c", (toy / "run_c").read_bytes()),
        "rep_adv": ("run_b", (toy / "run_b").read_bytes()),
    }
    c = app_with(analysis_timeout=1.0, parse_workers=0, write_token="t", max_resamples=100_000)
    started = time.monotonic()
    r = c.post(
        "/comparisons",
        files=files,
        data={"options": json.dumps({"resamples": 100_000})},
        headers={"Authorization": "Bearer t"},
    )
    took = time.monotonic() - started
    assert r.status_code == 503, r.text[:300]
    assert "(analysis_timeout)" in r.json()["detail"]["message"]
    # the worker's start (imports, ~5-9 s on the loaded 2-CPU machine) is not counted in
    # the limit, the computation is; before, the answer came after 31-72 s of computing
    assert took < 30, took
    assert c.get("/documents").json()["count"] == 0  # nothing stored
    assert c.get("/health").status_code == 200


@pytest.mark.slow  # an analysis worker starts
def test_a_comparison_of_stored_documents_computes_in_the_worker(
    app_with, shared_data: Path
) -> None:
    """Runs and qrels named by document id are read from the live store (their lines are
    in its blob folder, which a worker's snapshot does not hold) and compared in the
    worker: the same answer as uploading them."""
    toy = shared_data / "trec" / "toy"
    example = (shared_data / "ir_metadata" / "annotated_run_example.txt").read_bytes()
    sources = {
        "qrels": ("qrels.toy", (toy / "qrels.toy").read_bytes(), {"kind": "qrels"}),
        "orig_base": ("orig.txt", example, {}),
        "rep_base": ("rep.txt", example.replace(b"b: 0.4 ", b"b: 0.7 "), {}),
    }
    c = app_with(parse_workers=0, write_token="t")
    auth = {"Authorization": "Bearer t"}
    ids = {}
    for field, (name, data, params) in sources.items():
        r = c.post(
            "/documents",
            params={"name": name, **params},
            content=data,
            headers={**auth, "content-type": "text/plain"},
        )
        assert r.status_code == 201, r.text[:300]
        ids[field] = r.json()["documents"][0]["id"]
    by_id = c.post("/comparisons", json={**ids, "qrels_collection": "toy"}, headers=auth)
    assert by_id.status_code == 201, by_id.text[:300]
    uploaded = c.post(
        "/comparisons",
        files={f: (name, data) for f, (name, data, _) in sources.items()},
        data={"qrels_collection": "toy"},
        headers=auth,
    )
    assert uploaded.status_code == 201, uploaded.text[:300]
    assert by_id.json()["measures"] == uploaded.json()["measures"]
