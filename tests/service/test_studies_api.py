"""``GET /measures/studies`` and ``GET /measures/studies/{name}`` over the bundled examples."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from reprokg.service.deps import add_error_handler
from reprokg.studies.registry import REGISTRY
from tests.conftest import REPO

pytestmark = pytest.mark.slow  # the studies' store its fixture loads


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from reprokg.store import open_store
    from tests.studies.stores import load_into

    s = open_store(tmp_path_factory.mktemp("studies-api") / "store")
    load_into(s, [REPO / "examples" / "survey", REPO / "examples" / "audits"])
    yield s
    s.close()


@pytest.fixture(scope="module")
def client(store: Any) -> TestClient:
    from reprokg.service.routes.studies import router

    app = FastAPI()
    add_error_handler(app)
    app.state.store = store
    app.include_router(router)
    return TestClient(app)


def test_list(client: TestClient) -> None:
    body = client.get("/measures/studies").json()
    assert [s["name"] for s in body["studies"]] == list(REGISTRY)
    sig = body["studies"][0]
    assert sig["publication"] == "https://doi.org/10.1145/3386569.3392413"
    assert [m["name"] for m in sig["methods"]] == ["published", "corrected"]
    assert sig["options"]["dataset"]["default"] == "consolidated"


@pytest.mark.parametrize("name", list(REGISTRY))
def test_each_study_is_its_run_on_the_store(client: TestClient, store: Any, name: str) -> None:
    r = client.get(f"/measures/studies/{name}")
    assert r.status_code == 200, r.text
    import json

    assert r.json() == json.loads(json.dumps(REGISTRY[name].run(store).to_json(), default=str))


def test_methods_and_options_as_query_parameters(client: TestClient) -> None:
    r = client.get("/measures/studies/siggraph2020", params={"method": "corrected"})
    assert r.json()["method"] == "corrected"
    r = client.get("/measures/studies/siggraph2020", params={"dataset": "both"})
    assert set(r.json()) == {"consolidated", "per-paper"}
    r = client.get("/measures/studies/audits", params={"almost_all": "0.5"})
    assert r.json()["derived"]["thresholds"]["almost_all"] == 0.5


@pytest.mark.parametrize(
    ("path", "params", "status", "text"),
    [
        ("/measures/studies/nope", {}, 404, "no study 'nope'"),
        ("/measures/studies/gk2018", {"method": "corrected"}, 400, "no method 'corrected'"),
        ("/measures/studies/audits", {"colour": "red"}, 400, "no option colour"),
        ("/measures/studies/audits", {"strong": "lots"}, 400, "must be a number"),
        ("/measures/studies/siggraph2020", {"dataset": "nope"}, 400, "dataset must be"),
    ],
)
def test_errors_name_what_is_known(
    client: TestClient, path: str, params: dict, status: int, text: str
) -> None:
    r = client.get(path, params=params)
    assert r.status_code == status, r.text
    assert text in r.json()["detail"]["message"]


def test_the_app_serves_the_routes_and_documents_them() -> None:
    from reprokg.service.app import create_app

    app = create_app(store=_EmptyStore())
    paths = app.openapi()["paths"]
    assert {"/measures/studies", "/measures/studies/{name}", "/measures/survey"} <= set(paths)
    spec = paths["/measures/studies/{name}"]["get"]
    assert {"200", "400", "404"} <= set(spec["responses"])
    assert "degrees" in spec["responses"]["200"]["description"]


class _EmptyStore:
    """Enough of a store for building the app (no request is made)."""

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(name)
