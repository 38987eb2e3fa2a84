"""``GET /measures/stability`` (JSON), ``/studies`` and the chart, in the service's app."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from reprokg.stability.simulate import EXAMPLE_TITLE
from tests.stability.stores import SMALL_TITLE, build_store

pytestmark = pytest.mark.slow  # the stability store its fixture loads

TOP_KEYS = [
    "study", "n", "model", "method", "singular", "loglik", "fixed_effects",
    "variance_components", "random_effects_tests", "anova", "contrasts", "hypotheses",
    "warnings",
]  # fmt: skip


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Any:
    s = build_store(Path(tmp_path_factory.mktemp("stability-api")) / "store")
    yield s
    s.close()


@pytest.fixture(scope="module")
def client(store: Any) -> TestClient:
    from reprokg.core.settings import Settings
    from reprokg.service.app import create_app

    return TestClient(create_app(Settings.from_env(), store=store))


def _study_id(client: TestClient, title: str) -> str:
    (s,) = [s for s in client.get("/measures/stability/studies").json() if s["title"] == title]
    return s["id"]


def test_studies(client: TestClient) -> None:
    r = client.get("/measures/stability/studies")
    assert r.status_code == 200
    studies = {s["title"]: s for s in r.json()}
    assert studies[EXAMPLE_TITLE]["illustrative"] is True
    assert set(studies[SMALL_TITLE]) == {"study", "id", "title", "illustrative", "documents"}


def test_analysis_json_is_the_issues_shape_and_the_library_result(
    client: TestClient, store: Any
) -> None:
    from reprokg.stability.study import analyse_study

    sid = _study_id(client, SMALL_TITLE)
    r = client.get("/measures/stability", params={"study": sid})
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    body = r.json()
    assert list(body) == TOP_KEYS
    assert body == analyse_study(store, sid).result.to_json()
    ml = client.get("/measures/stability", params={"study": sid, "method": "ML", "alpha": 0.1})
    assert ml.json()["method"] == "ML" and "alpha = 0.1" in ml.json()["hypotheses"]["H2"]["test"]
    pairs = client.get("/measures/stability", params=[("study", sid), ("pair", "a:c")])
    assert list(pairs.json()["contrasts"]) == ["a - c"]


def test_illustrative_example_says_so(client: TestClient) -> None:
    body = client.get("/measures/stability", params={"study": EXAMPLE_TITLE}).json()
    assert body["warnings"][0].startswith("The observations of this study are illustrative")
    assert body["singular"] is True and len(body["contrasts"]) == 6


@pytest.mark.slow
@pytest.mark.parametrize("fmt, magic", [("svg", b"<?xml"), ("png", b"\x89PNG")])
def test_chart(client: TestClient, fmt: str, magic: bytes) -> None:
    r = client.get(f"/measures/stability/chart.{fmt}", params={"study": EXAMPLE_TITLE})
    assert r.status_code == 200 and r.content.startswith(magic)
    assert r.headers["content-type"].startswith("image/")


@pytest.mark.parametrize(
    ("params", "status", "error"),
    [
        ({}, 400, "UsageError"),  # three studies: which?
        ({"study": "nope"}, 404, "NotFound"),
        ({"study": SMALL_TITLE, "alpha": 0}, 400, "UsageError"),
        ({"study": SMALL_TITLE, "metric": "f1"}, 400, "UsageError"),
        ({"study": SMALL_TITLE, "pair": "ab"}, 400, "UsageError"),
    ],
)
def test_errors_are_the_error_tree(
    client: TestClient, params: dict, status: int, error: str
) -> None:
    r = client.get("/measures/stability", params=params)
    assert r.status_code == status
    assert r.json()["detail"]["error"] == error and r.json()["detail"]["message"]


def test_response_is_documented(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    op = spec["paths"]["/measures/stability"]["get"]
    ref = op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    schema = spec["components"]["schemas"][ref.rsplit("/", 1)[1]]
    assert list(schema["properties"]) == TOP_KEYS
    assert {p["name"] for p in op["parameters"]} == {"study", "method", "alpha", "metric", "pair"}
    assert "/measures/stability/chart.{fmt}" in spec["paths"]
