"""``POST /comparisons`` / ``GET /comparisons/{id}`` in a tiny FastAPI app over a temp store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from reprokg.core.settings import Settings
from reprokg.ingest import ingest
from reprokg.loaders import qrels as qrels_loader
from reprokg.measures.inputs import run_from_bytes
from reprokg.service.deps import add_error_handler
from reprokg.service.routes import comparisons
from reprokg.store import open_store

TOKEN = "s3cret"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture()
def app(tmp_path: Path):
    store = open_store(tmp_path / "store")
    app = FastAPI()
    add_error_handler(app)
    app.state.store = store
    app.state.settings = Settings(write_token=TOKEN)
    app.include_router(comparisons.router)
    yield app
    store.close()


@pytest.fixture(scope="module")
def toy(shared_data: Path) -> Path:
    return shared_data / "trec" / "toy"


def files_for(toy: Path) -> dict:
    return {
        "qrels": ("qrels.toy", (toy / "qrels.toy").read_bytes()),
        "orig_base": ("run_a", (toy / "run_a").read_bytes()),
        "orig_adv": ("run_b", (toy / "run_b").read_bytes()),
        "rep_base": ("run_c", (toy / "run_c").read_bytes()),
        "rep_adv": ("run_b", (toy / "run_b").read_bytes()),
    }


@pytest.mark.slow
def test_upload_then_get_round_trip(app, toy: Path):
    client = TestClient(app)
    r = client.post("/comparisons", files=files_for(toy), headers=AUTH)
    assert r.status_code == 201, r.text
    posted = r.json()
    assert posted["kind"] == "same-collection" and posted["primad"] is None
    assert posted["iri"].endswith("/comparison/" + posted["id"])
    assert {"ktu", "rbo", "rmse", "nrmse", "pvalue", "er", "dri"} <= set(posted["measures"])
    assert {"dz", "wilcoxon_adjusted", "mean_diff_low"} <= set(posted["measures"])
    g = client.get(f"/comparisons/{posted['id']}")
    assert g.status_code == 200
    got = g.json()
    # the graph holds every value: the JSON rebuilt from triples equals what POST answered
    assert got["measures"] == posted["measures"]
    assert json.dumps(got["measures"]) == json.dumps(posted["measures"])  # same key order
    assert sorted(got["warnings"]) == sorted(posted["warnings"])
    assert got["options"] == posted["options"]
    assert (got["kind"], got["primad"]) == (posted["kind"], posted["primad"])


@pytest.mark.slow
def test_by_document_ids(app, toy: Path, shared_data: Path):
    store = app.state.store
    example = (shared_data / "ir_metadata" / "annotated_run_example.txt").read_bytes()
    orig = run_from_bytes(example, "orig.txt").source
    rep = run_from_bytes(example.replace(b"b: 0.4 ", b"b: 0.7 "), "rep.txt").source
    q = qrels_loader.load((toy / "qrels.toy").read_bytes(), "qrels.toy", collection="toy")[0]
    result = ingest(store, [q, orig, rep])
    assert result.count("rejected") == 0, result.summary()
    body = {"qrels": q.sha256, "orig_base": str(orig.iri), "rep_base": f"doc/{rep.sha256}"}
    r = TestClient(app).post("/comparisons", json=body, headers=AUTH)
    assert r.status_code == 201, r.text
    assert r.json()["primad"] == "priMad"
    assert TestClient(app).get(f"/comparisons/{r.json()['id']}").json()["primad"] == "priMad"


def test_errors(app, toy: Path):
    client = TestClient(app)
    assert client.post("/comparisons", json={}).status_code == 401
    # unreadable input is a LoadError: 400 with its message, as on every route
    r = client.post("/comparisons", json={"qrels": "0" * 64}, headers=AUTH)
    assert r.status_code == 400 and "is not one qrels file" in r.json()["detail"]["message"]
    r = client.post("/comparisons", json={"nonsense": 1}, headers=AUTH)
    assert r.status_code == 400 and "nonsense" in r.json()["detail"]["message"]
    files = files_for(toy)
    files["orig_base"] = ("bad.run", b"1 Q0 d 1 notanumber t\n")
    r = client.post("/comparisons", files=files, headers=AUTH)
    assert r.status_code == 400 and r.json()["detail"]["line"] == 1
    assert client.get("/comparisons/doesnotexist").status_code == 404


@pytest.mark.slow  # three comparisons computed and stored
def test_statistics_options_and_their_limit(app, toy: Path):
    """compare's statistics options over HTTP: the correction, resamples and seed asked for
    are the ones used (and stored); resamples past the service's max_resamples, or an
    unknown correction, are a 400 naming the option, and nothing is stored."""
    client = TestClient(app)
    options = {"correction": "BH", "resamples": 999, "seed": 7, "level": 0.9}
    data = {"options": json.dumps(options)}
    r = client.post("/comparisons", files=files_for(toy), data=data, headers=AUTH)
    assert r.status_code == 201, r.text
    posted = r.json()
    assert {k: posted["options"][k] for k in options} == options
    assert client.get(f"/comparisons/{posted['id']}").json()["options"] == posted["options"]
    app.state.settings = Settings(write_token=TOKEN, max_resamples=500)
    for bad, field in (({"resamples": 999}, "resamples"), ({"correction": "luck"}, "correction")):
        r = client.post(
            "/comparisons", files=files_for(toy), data={"options": json.dumps(bad)}, headers=AUTH
        )
        assert r.status_code == 400, r.text
        assert r.json()["detail"]["field"] == f"options.{field}"
    r = client.post(
        "/comparisons",
        files=files_for(toy),
        data={"options": json.dumps({"resamples": 501})},
        headers=AUTH,
    )
    assert "500" in r.json()["detail"]["message"]
