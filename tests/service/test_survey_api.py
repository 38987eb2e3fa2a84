"""``GET /measures/survey`` and its charts, in a tiny FastAPI app over the survey store."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from reprokg.service.deps import add_error_handler
from reprokg.studies.siggraph2020 import BH_FAMILY, TEST_IDS
from tests.conftest import need
from tests.survey.test_survey_analysis import build_survey_store

pytestmark = pytest.mark.slow  # the survey store its fixture loads (a minute here)


@pytest.fixture(scope="module")
def client(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    graphics = shared_data / "replicability_graphics"
    need((graphics / "consolidatedData.json").is_file(), "consolidatedData.json is missing")
    store = build_survey_store(graphics, tmp_path_factory.mktemp("survey-api-store"))
    from reprokg.service.routes.survey import router

    app = FastAPI()

    add_error_handler(app)
    app.state.store = store
    app.include_router(router)
    return TestClient(app)


def test_measures_survey_json_shape(client: TestClient) -> None:
    r = client.get("/measures/survey")
    assert r.status_code == 200
    body: dict[str, Any] = r.json()
    assert set(body["sharing"]["by_year"]) == {"2014", "2016", "2018"}
    y = body["sharing"]["by_year"]["2018"]
    assert set(y) == {"k", "n", "rate", "ci95"}
    assert 0 <= y["ci95"][0] <= y["rate"] <= y["ci95"][1] <= 1
    assert list(body["tests"]) == list(TEST_IDS)
    assert body["method"] == "published"
    for tid, t in body["tests"].items():
        assert {"method", "statistic", "p", "n", "provenance"} <= set(t)
        if tid in BH_FAMILY:
            assert t["p"] <= t["p_adjusted"] <= 1
        else:
            assert "p_adjusted" not in t
    assert set(body["citations"]["2014"]) >= {"code", "no_code"}
    assert body["counts"]["total"]["papers"] == 374
    assert "SELECT" in body["sharing"]["provenance"]["sparql"]


def test_measures_survey_both_datasets(client: TestClient) -> None:
    body = client.get("/measures/survey", params={"dataset": "both"}).json()
    assert set(body) == {"consolidated", "per-paper"}
    assert body["per-paper"]["counts"]["total"]["papers"] == 454
    assert "2019" in body["per-paper"]["sharing"]["by_year"]


def test_measures_survey_rejects_unknown_dataset(client: TestClient) -> None:
    assert client.get("/measures/survey", params={"dataset": "nope"}).status_code == 422


def test_measures_survey_method_corrected(client: TestClient) -> None:
    pub = client.get("/measures/survey").json()["tests"]
    cor = client.get("/measures/survey", params={"method": "corrected"}).json()["tests"]
    assert (pub["score_by_year"]["n"], cor["score_by_year"]["n"]) == (126, 122)
    assert (pub["anova2_topic"]["n"], cor["anova2_topic"]["n"]) == (374, 129)


@pytest.mark.parametrize("name", ["sharing_by_year", "sharing_by_topic", "citations"])
def test_charts_svg_and_png(client: TestClient, name: str) -> None:
    svg = client.get(f"/measures/survey/charts/{name}")
    assert svg.status_code == 200
    assert svg.headers["content-type"].startswith("image/svg+xml")
    root = ET.fromstring(svg.content)
    assert root.tag.endswith("svg")
    assert b"2014" in svg.content or name == "sharing_by_topic"  # text kept as text
    png = client.get(f"/measures/survey/charts/{name}.png")
    assert png.status_code == 200
    assert png.headers["content-type"] == "image/png"
    assert png.content[:8] == b"\x89PNG\r\n\x1a\n"


def test_unknown_chart_is_404(client: TestClient) -> None:
    assert client.get("/measures/survey/charts/pie").status_code == 404
