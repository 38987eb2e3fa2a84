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
from rdflib import RDF, XSD, Graph, Literal, URIRef

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


# --------------------------------------------------------------------------- /leaderboard

#: 230 runs on one board; the score falls every 9 runs (ties of 9: the tie of runs 99-107
#: crosses the first page's end); every 10th run has a second tag (two rows, one run)
BOARD_RUNS = 230


def _board_score(i: int) -> Literal:
    return Literal(f"{0.9 - (i // 9) / 100:.2f}", datatype=XSD.decimal)


@pytest.fixture(scope="module")
def board_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    from reprokg.core.identifiers import leaderboard_iri
    from reprokg.core.namespaces import MLS
    from reprokg.loaders.qrels import collection_iri
    from reprokg.measures.leaderboard import add_leaderboard

    store = open_store(str(tmp_path_factory.mktemp("board-paging") / "store"))
    g = Graph()
    collection = collection_iri("toy/paging")
    for i in range(BOARD_RUNS):
        run = URIRef(f"https://w3id.org/reprokg/id/run/board-run-{i:03d}")
        score = URIRef(f"https://w3id.org/reprokg/id/score/board-run-{i:03d}")
        g.add((run, RDF.type, RK.Run))
        g.add((run, RK.runTag, Literal(f"board-run-{i:03d}")))
        if i % 10 == 0:
            g.add((run, RK.runTag, Literal(f"board-run-{i:03d}-again")))
        g.add((run, RK.reportedScore, score))
        g.add((score, RK.measureName, Literal("map")))
        g.add((score, MLS.hasValue, _board_score(i)))
        add_leaderboard(g, score, collection, "map")
    assert leaderboard_iri(collection, "map") in set(g.objects(None, RK.onLeaderboard))
    store.add_document("https://w3id.org/reprokg/id/doc/board-paging", g)
    with TestClient(create_app(Settings(access_log=False), store=store)) as c:
        yield c
    store.close()


def _expected_rank(tag: str) -> int:
    """1 + the runs scoring better, written out from the generated scores."""
    i = int(tag.removeprefix("board-run-")[:3])
    return 1 + sum(
        1 for j in range(BOARD_RUNS) if _board_score(j).toPython() > _board_score(i).toPython()
    )


def test_a_leaderboard_pages_its_runs_and_ranks_them_on_the_whole_board(
    board_client: TestClient,
) -> None:
    """The leaderboard page showed its first 100 runs and nothing else: it now says which
    runs of how many it shows, links the next page, and ranks a run on a later page (and
    a tie across a page's end) as the run page does: 1 + the runs scoring better."""
    url = "/leaderboard?collection=toy/paging&measure=map"
    first = board_client.get(url, headers=HTML)
    assert first.status_code == 200, first.text
    # 100 runs, 10 of them with two tags: 110 rows
    assert "110 rows: runs 1-100 of 230" in first.text
    seen: dict[str, int] = {}
    nxt: str | None = url
    pages = 0
    while nxt is not None:
        body = board_client.get(nxt + "&format=json")
        assert body.headers["X-Reprokg-Total"] == "230"
        for row in body.json()["rows"]:
            run = row["run"].rsplit("/", 1)[1]
            assert row["rank"] == _expected_rank(run), (nxt, row)
            seen[run] = row["rank"]
        nxt = _next(board_client.get(nxt, headers=HTML).text)
        pages += 1
    assert pages == 3 and len(seen) == BOARD_RUNS
    # the tie across the first page's end: runs 99-107 share rank 100 on both pages
    assert {seen[f"board-run-{i:03d}"] for i in range(99, 108)} == {100}
    # every row at once ranks the same
    every = board_client.get(url + "&all=true&format=csv")
    rows = list(csv.DictReader(io.StringIO(every.text)))
    assert len({r["run"] for r in rows}) == BOARD_RUNS
    assert all(int(r["rank"]) == seen[r["run"].rsplit("/", 1)[1]] for r in rows)
    # the run page's rank of the same score (run-scores.rq) is the same number
    for tag in ("board-run-000", "board-run-104", "board-run-229"):
        run = f"https://w3id.org/reprokg/id/run/{tag}"
        scores = board_client.get("/run", params={"iri": run, "format": "json"})
        assert scores.status_code == 200, scores.text
        (score,) = scores.json()["rows"]
        assert score["rank"] == seen[tag] == _expected_rank(tag)
