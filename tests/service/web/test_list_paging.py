"""Issue 39: the list views' LIMITs never cut silently.

``/runs`` (LIMIT 100) and ``/search`` (LIMIT 50) showed their first rows, and their
CSV/JSON the same, with nothing saying more existed. On a store with 130 runs and 60
matching papers: the page says "100 of 130 rows", links the next page, offers every row
as CSV/JSON, and the pages together hold every row.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from rdflib import RDF, Graph, Literal, URIRef

from reprokg.core.namespaces import RK, SCHEMA
from reprokg.core.settings import Settings
from reprokg.service.app import create_app
from reprokg.store import open_store

RUNS = {f"paging-run-{i:03d}" for i in range(130)}
PAPERS = {f"Paging paper {i:02d}" for i in range(60)}
HTML = {"accept": "text/html"}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    path: Path = tmp_path_factory.mktemp("list-paging") / "store"
    store = open_store(str(path))
    g = Graph()
    for tag in sorted(RUNS):
        run = URIRef(f"https://w3id.org/reprokg/id/run/{tag}")
        g.add((run, RDF.type, RK.Run))
        g.add((run, RK.runTag, Literal(tag)))
    for title in sorted(PAPERS):
        paper = URIRef(f"https://w3id.org/reprokg/id/paper/{title.replace(' ', '-')}")
        g.add((paper, RDF.type, SCHEMA.ScholarlyArticle))
        g.add((paper, SCHEMA.name, Literal(title)))
    store.add_document("https://w3id.org/reprokg/id/doc/list-paging", g)
    with TestClient(create_app(Settings(access_log=False), store=store)) as c:
        yield c
    store.close()


def _next(html: str) -> str | None:
    m = re.search(r'<a href="([^"]+)" rel="next">', html)
    return m[1].replace("&amp;", "&") if m else None


@pytest.mark.slow
def test_runs_view_says_n_of_m_and_pages_reach_every_run(client: TestClient) -> None:
    r = client.get("/runs", headers=HTML)
    assert r.status_code == 200, r.text
    assert "100 rows: runs 1-100 of 130" in r.text  # a page of runs, one row each
    nxt = _next(r.text)
    assert nxt is not None and "offset=100" in nxt
    r2 = client.get(nxt, headers=HTML)
    assert "30 rows: runs 101-130 of 130" in r2.text and _next(r2.text) is None
    tags = [row["tag"] for row in client.get("/runs?format=json").json()["rows"]]
    tags += [row["tag"] for row in client.get(nxt + "&format=json").json()["rows"]]
    assert len(tags) == 130 and set(tags) == RUNS


def test_runs_downloads_say_truncated_and_all_gives_every_run(client: TestClient) -> None:
    page = client.get("/runs?format=csv")
    assert page.headers["X-Reprokg-Truncated"] == "true"
    assert page.headers["X-Reprokg-Total"] == "130"
    every = client.get("/runs?all=true&format=csv")
    rows = list(csv.DictReader(io.StringIO(every.text)))
    assert {row["tag"] for row in rows} == RUNS and len(rows) == 130
    assert "X-Reprokg-Truncated" not in every.headers


def test_search_says_how_many_match(client: TestClient) -> None:
    r = client.get("/search", params={"q": "paging paper"}, headers=HTML)
    assert r.status_code == 200, r.text
    assert "60 matches" in r.text and "50 of 60 rows (1-50)" in r.text
    every = client.get("/search", params={"q": "paging paper", "all": "true", "format": "json"})
    assert {row["label"] for row in every.json()["rows"]} == PAPERS
