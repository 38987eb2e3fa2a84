"""``POST /measures/intrinsic-dimension`` and ``GET /measures/intrinsic-dimension/{id}``:
the service app over a real embedded store (uploads, the token only for saving, limits,
errors, the OpenAPI description)."""

from __future__ import annotations

import io
import math
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from reprokg.core.settings import Settings
from reprokg.intrinsic_dimension import intrinsic_dimension
from reprokg.service.app import create_app
from reprokg.store import open_store
from tests.intrinsic_dimension.conftest import oracle

TOKEN = "s3cret"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
WORKED_CSV = b"f1,f2,f3\n0,0,1\n1,0.5,1\n2,1,1\n3,4,1\n4,4.5,1.2\n5,5,6\n"
URL = "/measures/intrinsic-dimension"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    """One app for the module: only test_save_needs_the_token_then_get_round_trips writes,
    and no other test reads what it stores."""
    tmp_path = tmp_path_factory.mktemp("intrinsic-dimension-api")
    store = open_store(tmp_path / "store")
    app = create_app(Settings(store=str(tmp_path / "store"), write_token=TOKEN), store=store)
    with TestClient(app) as c:
        yield c
    store.close()


def _npy(X: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, X)
    return buf.getvalue()


def test_compute_without_saving_needs_no_token(client: TestClient) -> None:
    r = client.post(URL, files={"data": ("worked.csv", WORKED_CSV)})
    assert r.status_code == 200, r.text
    body = r.json()
    assert list(body)[:10] == [
        "n",
        "d",
        "observable_diameter",
        "discriminability",
        "id",
        "exact",
        "bounds",
        "features",
        "hops",
        "warnings",
    ]
    assert body["stored"] is None
    assert math.isclose(body["id"], 3.305785123966942, rel_tol=1e-12)


def test_save_needs_the_token_then_get_round_trips(client: TestClient) -> None:
    digits = oracle("sklearn.datasets").load_digits().data[:300]
    files = {"data": ("digits300.npy", _npy(digits))}
    form = {"features": "true", "save": "true", "dataset": "https://example.org/digits"}
    assert client.post(URL, files=files, data=form).status_code == 401
    wrong = {"Authorization": "Bearer nope"}
    assert client.post(URL, files=files, data=form, headers=wrong).status_code == 403
    r = client.post(URL, files=files, data=form, headers=AUTH)
    assert r.status_code == 201, r.text
    body = r.json()
    assert math.isclose(body["id"], intrinsic_dimension(digits), rel_tol=1e-12)
    stored = body["stored"]
    assert stored["status"] == "added" and stored["dataset"] == "https://example.org/digits"
    assert stored["data_file"]["name"] == "digits300.npy"
    assert len(stored["data_file"]["sha256"]) == 64 and stored["score"] == "fscod"
    got = client.get(f"{URL}/{stored['result_id']}")
    assert got.status_code == 200
    again = got.json()
    assert again["stored"]["status"] == "stored"
    assert {k: v for k, v in again.items() if k != "stored"} == {
        k: v for k, v in body.items() if k != "stored"
    }
    # the same upload again is unchanged
    r2 = client.post(URL, files=files, data=form, headers=AUTH)
    assert r2.status_code == 201 and r2.json()["stored"]["status"] == "unchanged"


def test_support_graph_and_columns(client: TestClient) -> None:
    X = np.random.default_rng(0).normal(size=(50, 3))
    edges = "".join(f"{i},{(i + 1) % 50}\n" for i in range(50)).encode()
    r = client.post(
        URL,
        files={"data": ("x.npy", _npy(X)), "graph": ("edges.csv", edges)},
        data={"hops": "1", "support": "10", "columns": "0,2"},
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["d"] == 2 and body["exact"] is False and list(body["hops"]) == ["0", "1"]
    lo, hi = body["bounds"]["id"]
    assert lo <= intrinsic_dimension(X[:, [0, 2]]) <= hi


@pytest.mark.parametrize(
    ("files", "data", "status", "needle"),
    [
        ({"data": ("w.csv", b"a,b\n1,x\n2,y\n")}, {}, 400, "non-numeric"),
        ({"data": ("w.parquet", b"PAR1")}, {}, 400, "unknown data format"),
        ({"data": ("w.csv", WORKED_CSV)}, {"hops": "1"}, 400, "hops and graph"),
        ({"data": ("w.csv", WORKED_CSV)}, {"dataset": "cora"}, 400, "neither a DOI"),
        ({"data": ("w.csv", WORKED_CSV)}, {"support": "1"}, 422, ""),
        (
            {"data": ("w.csv", WORKED_CSV), "graph": ("e.csv", b"0,1\n1,9\n")},
            {"hops": "1"},
            400,
            "outside 0..5",
        ),
    ],
)
def test_errors(client: TestClient, files, data, status: int, needle: str) -> None:
    r = client.post(URL, files=files, data=data)
    assert r.status_code == status, r.text
    assert needle in r.text


@pytest.mark.slow
def test_size_limit_and_unknown_result(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s")
    app = create_app(Settings(write_token=TOKEN, max_body_bytes=2000), store=store)
    with TestClient(app) as c:
        big = b"a,b\n" + b"1,2\n" * 1000
        assert c.post(URL, files={"data": ("big.csv", big)}).status_code == 413
        assert c.get(f"{URL}/{'0' * 20}").status_code == 404
        assert c.get(f"{URL}/nope").status_code == 404
        spec = c.get("/openapi.json").json()["paths"]
        post = spec[URL]["post"]
        assert {"200", "201", "400", "401", "403", "413", "422"} <= set(post["responses"])
        assert "404" in spec[URL + "/{result_id}"]["get"]["responses"]
    store.close()
