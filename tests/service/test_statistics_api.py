"""``/measures/qra`` and ``/measures/stability/compare|cd`` in the service's app over one
embedded store holding QRA's worked example (six audits) and the bundled stability study:
the numbers are the command's (the paper's Table 4; the library's on the graph), GET never
writes, POST writes only with ``save`` and the bearer token, and what is stored is the
answer's result."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from reprokg.cli import main
from tests.conftest import REPO

pytestmark = pytest.mark.slow  # loads the stability study into a store

TOKEN = "s3cret"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
NTS = "10.18653/v1/P17-2014"
#: (measure, system) -> CV* in Table 4 of Belz, Popović & Mille (2022)
TABLE_4 = {
    ("BLEU", "NTS_def"): 1.562,
    ("SARI", "NTS_def"): 2.487,
    ("BLEU", "NTS-w2v_def"): 4.176,
    ("SARI", "NTS-w2v_def"): 3.572,
}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from reprokg.core.settings import Settings
    from reprokg.service.app import create_app
    from reprokg.store import open_store

    path = tmp_path_factory.mktemp("statistics-api") / "store"
    csv = REPO / "examples" / "stability" / "fewshot_seed003.csv"
    audits = REPO / "examples" / "qra"
    assert main(["load", "-q", "--store", str(path), str(csv), str(audits)]) == 0
    store = open_store(path)
    yield TestClient(create_app(Settings.from_env(write_token=TOKEN), store=store))
    store.close()


def _kinds(client: TestClient) -> dict[str, int]:
    rows = client.app.state.store.query(
        "SELECT ?k (COUNT(?g) AS ?n) WHERE { GRAPH ?g { ?g "
        "<https://w3id.org/reprokg/ontology#documentKind> ?k } } GROUP BY ?k"
    ).rows
    return {str(k): int(n) for k, n in rows}


def test_qra_of_the_worked_example(client: TestClient) -> None:
    r = client.get("/measures/qra", params={"paper": NTS})
    assert r.status_code == 200, r.text
    got = {(q["measure"], q["parts"]["system"]): q["cv_star"] for q in r.json()["quantities"]}
    assert {k: round(v, 3) for k, v in got.items()} == TABLE_4
    assert r.json()["stored"] is None and "qra" not in _kinds(client)
    assert client.post("/measures/qra", json={"paper": NTS, "save": True}).status_code == 401
    r = client.post(
        "/measures/qra", json={"paper": NTS, "measures": ["SARI"], "save": True}, headers=AUTH
    )
    assert r.status_code == 201, r.text
    stored = r.json()["stored"]
    assert stored["status"] == "added" and _kinds(client)["qra"] == 1
    from reprokg.measures.qra_document import stored_quantities

    quantities = stored_quantities(client.app.state.store, "https://doi.org/10.18653/v1/p17-2014")
    assert {q["qra"] for q in quantities} == {stored["iri"]}
    assert sorted(round(q["cvStar"], 3) for q in quantities) == [2.487, 3.572]
    # computing without saving needs no token
    assert client.post("/measures/qra", json={"measures": ["SARI"]}).status_code == 200


def test_qra_errors(client: TestClient) -> None:
    assert client.get("/measures/qra").status_code == 400  # neither a paper nor a measure
    r = client.get("/measures/qra", params={"paper": "not a doi"})
    assert r.status_code == 400 and "not a DOI" in r.json()["detail"]["message"]
    assert client.get("/measures/qra", params={"paper": NTS, "level": 2}).status_code == 422
    r = client.get("/measures/qra", params={"paper": NTS, "scale_min": "BLEU=x"})
    assert r.status_code == 400 and "MEASURE=MIN" in r.json()["detail"]["message"]


def test_seed_comparison_and_critical_difference(client: TestClient) -> None:
    from reprokg.stability.seed_variance import seed_variance

    pair = {"a": "tadam-adam-1", "b": "m-net-adam-1"}
    r = client.get("/measures/stability/compare", params=pair)
    assert r.status_code == 200, r.text
    body = r.json()
    out, _ = seed_variance(client.app.state.store, None, compare=(pair["a"], pair["b"]))
    assert body["p_a_beats_b"] == out["compare"]["p_a_beats_b"]
    assert body["aso"] == out["compare"]["aso"] and body["notes"] == out["notes"]
    assert body["stored"] is None  # not saved: null, as the answer's schema says
    r = client.get("/measures/stability/cd", params={"block": "configuration"})
    assert r.status_code == 200 and r.json()["blocks"] == 5
    assert "seed-comparison" not in _kinds(client)
    assert client.post("/measures/stability/compare", json=pair | {"save": True}).status_code == 401
    r = client.post("/measures/stability/compare", json=pair | {"save": True}, headers=AUTH)
    assert r.status_code == 201 and r.json()["stored"]["status"] == "added"
    r = client.post("/measures/stability/cd", json={"save": True}, headers=AUTH)
    assert (
        r.status_code == 201
        and r.json()["average_ranks"]
        == client.get("/measures/stability/cd").json()["average_ranks"]
    )
    kinds = _kinds(client)
    assert kinds["seed-comparison"] == 1 and kinds["critical-difference"] == 1
    svg = client.get("/measures/stability/cd.svg")
    assert svg.headers["content-type"].startswith("image/svg+xml")
    assert "<script" not in svg.text and "tadam-adam-1" in svg.text
    r = client.get("/measures/stability/compare", params={"a": "nope", "b": "tadam-adam-1"})
    assert r.status_code == 400 and "tadam-adam-1" in r.json()["detail"]["message"]
