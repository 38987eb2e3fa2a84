"""Issue 39: a named query's LIMIT never cuts silently.

A store with 1,100 assessments (more than reproduction-assessments' LIMIT of 1,000):
the CLI says "1,000 of 1,100 rows" and how to get the rest, the HTTP answer carries the
total, ``truncated`` and a next link, paging reaches every row, and ``--all`` /
``all=true`` give them all (up to the row cap, which says when it cuts). On main the CLI
printed "(1000 rows)" and the HTTP answer said nothing.
"""

from __future__ import annotations

import contextlib
import csv
import io
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from rdflib import Graph, URIRef

from reprokg.cli import main
from reprokg.core.namespaces import RK
from reprokg.core.settings import Settings
from reprokg.service.app import create_app
from reprokg.store import open_store

N = 1_100
DOIS = {f"https://doi.org/10.9999/paging.{i:05d}" for i in range(N)}


def _assessments() -> Graph:
    """One assessment per DOI (the rows the query answers: one each)."""
    g = Graph()
    for i, doi in enumerate(sorted(DOIS)):
        a = URIRef(f"https://w3id.org/reprokg/id/assessment/paging-{i}")
        g.add((a, RK.outcome, RK.OutcomeReproduced))
        g.add((a, RK.assessedWork, URIRef(doi)))
    return g


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("paging") / "store"
    store = open_store(str(path))
    store.add_document("https://w3id.org/reprokg/id/doc/paging", _assessments())
    store.close()
    return path


def _cli(store_dir: Path, *args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(
            ["query", "--store", str(store_dir), "--read-only"]
            + ["--name", "reproduction-assessments", *args]
        )
    assert code == 0, err.getvalue()
    return out.getvalue(), err.getvalue()


def _csv_dois(text: str) -> list[str]:
    return [r["doi"] for r in csv.DictReader(io.StringIO(text))]


def test_cli_table_says_n_of_m_and_how_to_get_the_rest(store_dir: Path) -> None:
    out, _ = _cli(store_dir)
    assert out.rstrip().splitlines()[-1] == (
        "(1,000 of 1,100 rows (1-1,000); next page: --param offset=1000; every row: --all)"
    )


def test_cli_pages_and_all_reach_every_row(store_dir: Path) -> None:
    first, note = _cli(store_dir, "--format", "csv")
    assert "1,000 of 1,100 rows" in note  # stderr: stdout stays the CSV
    second, note2 = _cli(store_dir, "--format", "csv", "--param", "offset=1000")
    assert note2 == ""  # the last page is not cut
    pages = _csv_dois(first) + _csv_dois(second)
    assert len(pages) == N and set(pages) == DOIS
    every, note3 = _cli(store_dir, "--format", "csv", "--all")
    assert sorted(_csv_dois(every)) == sorted(DOIS) and note3 == ""
    last, _ = _cli(store_dir, "--param", "offset=1000")
    assert last.rstrip().splitlines()[-1] == "(100 of 1,100 rows (1,001-1,100))"


@pytest.fixture(scope="module", params=["inline", "runner"])
def client(store_dir: Path, request):
    """Both answer paths: named queries run inline (pyoxigraph writes the JSON) and
    through the query runner's workers (rdflib's results)."""
    settings = Settings(
        access_log=False, row_cap=1_050, named_queries_inline=request.param == "inline"
    )
    store = open_store(str(store_dir), read_only=True)
    with TestClient(create_app(settings, store=store)) as c:
        yield c
    store.close()


def _dois(body: dict) -> list[str]:
    return [b["doi"]["value"] for b in body["results"]["bindings"]]


def test_http_json_says_truncated_with_total_and_next(client: TestClient) -> None:
    r = client.get("/queries/reproduction-assessments")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["page"]["total"] == N and body["page"]["truncated"] is True
    assert body["page"]["rows"] == len(body["results"]["bindings"]) == 1000
    assert r.headers["X-Reprokg-Total"] == "1100"
    assert r.headers["X-Reprokg-Truncated"] == "true"
    nxt = body["page"]["next"]
    assert "offset=1000" in nxt and r.headers["Link"] == f'<{nxt}>; rel="next"'
    r2 = client.get(nxt)
    page2 = r2.json()
    assert page2["page"]["truncated"] is False and "Link" not in r2.headers
    got = _dois(body) + _dois(page2)
    assert len(got) == N and set(got) == DOIS


def test_http_csv_all_gives_every_row_up_to_the_row_cap(client: TestClient) -> None:
    r = client.get("/queries/reproduction-assessments", params={"format": "csv", "all": "true"})
    assert r.status_code == 200, r.text
    rows = _csv_dois(r.text)
    # the row cap (1,050 here) cuts, and says so: never silently
    assert len(rows) == 1_050 and set(rows) <= DOIS
    assert r.headers["X-Reprokg-Truncated"] == "rows capped at 1050"
    assert r.headers["X-Reprokg-Total"] == "1100"


def test_http_page_under_the_limit_is_not_truncated(client: TestClient) -> None:
    r = client.get("/queries/reproduction-assessments", params={"limit": "5", "offset": "1098"})
    body = r.json()
    assert len(body["results"]["bindings"]) == 2
    assert body["page"]["truncated"] is False and body["page"]["total"] == N
    assert "X-Reprokg-Truncated" not in r.headers


@pytest.mark.slow
def test_web_table_says_n_of_m_with_pages_and_downloads(client: TestClient) -> None:
    r = client.get("/queries/reproduction-assessments/table", headers={"accept": "text/html"})
    assert r.status_code == 200, r.text
    assert "1,000 of 1,100 rows (1-1,000)" in r.text
    assert "offset=1000" in r.text  # the next page
    assert "all=true" in r.text  # the whole answer as CSV / JSON
    r = client.get(
        "/queries/reproduction-assessments/table", params={"all": "true", "format": "csv"}
    )
    assert len(r.text.strip().splitlines()) == 1 + 1_050  # the row cap, said in the page
