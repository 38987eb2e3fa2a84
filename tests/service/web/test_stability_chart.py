"""The /stability chart reads the analysis's observations query and charts each metric on
its own: a study observing two metrics (an accuracy near 0.7 and a loss near 10) gives two
charts whose means are the per-metric means, never the two pooled."""

from __future__ import annotations

import re
from typing import Any

import pandas as pd
import pytest
from fastapi.testclient import TestClient

from tests.stability.stores import build_store, small_frame, study_csv

pytestmark = pytest.mark.slow  # the stability store its fixture loads

TITLE = "Two metrics (test data)"


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    acc = small_frame()
    loss = acc.assign(metric="loss", value=acc["value"] * 10 + 3)
    return pd.concat([acc, loss], ignore_index=True)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory, frame: pd.DataFrame) -> Any:
    from reprokg.core.settings import Settings
    from reprokg.ingest import ingest
    from reprokg.loaders import stability
    from reprokg.service.app import create_app

    store = build_store(tmp_path_factory.mktemp("two-metrics"), small=False, examples=False)
    assert ingest(store, stability.load(study_csv(frame, TITLE), "two.csv")).count("added") == 1
    with TestClient(create_app(Settings.from_env(), store=store)) as c:
        yield c
    store.close()


def test_one_chart_per_metric_with_that_metrics_means(client: Any, frame: pd.DataFrame) -> None:
    page = client.get("/stability", headers={"accept": "text/html"})
    assert page.status_code == 200
    descs = re.findall(r"<title[^>]*>([^<]*)</title><desc[^>]*>([^<]*)</desc>", page.text)
    charts = {t.split(":", 1)[0]: d for t, d in descs if "mean per experiment" in t}
    assert set(charts) == {"accuracy", "loss"}
    for metric, desc in charts.items():
        means = (
            frame[frame["metric"] == metric].groupby("experiment")["value"].agg(["mean", "size"])
        )
        want = {e: (f"{m:.4g}", int(n)) for e, (m, n) in means.iterrows()}
        got = {
            e: (m, int(n))
            for e, m, n in re.findall(r"(\w+): (\S+) \(95% CI [^,]*, n=(\d+)\)", desc)
        }
        assert got == want
    # the SPARQL behind the page is the analysis's own observations query
    assert "A stability study: observations" in page.text
