"""``/evidence``: works counted by outcome, kind of evidence, venue, year and source, each
count a link to the papers list showing exactly those works.

Two stores: the demo (every bundled example, computed verdicts included) and the real
evidence subsets alone (``examples/evidence``: ReproDB, ReScience C, the Dataverse R
study), whose counts are held to numbers read here from the raw files with ``json`` and
``csv``, not through the loaders.
"""

from __future__ import annotations

import csv
import html as html_lib
import json
import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from reprokg.evidence.assessments import Summary
from reprokg.evidence.outcomes import WorkOutcome
from reprokg.service.web.papers import Filters, PaperIndex, select
from tests.conftest import REPO

EVIDENCE = REPO / "examples" / "evidence"
LINK = re.compile(r'<a href="(/papers[^"]*)"[^>]*>(\d+)</a>')
LISTED = re.compile(r'id="count"[^>]*>(\d+) of (\d+) papers')


def linked_counts(page: str) -> list[tuple[str, int]]:
    return [(html_lib.unescape(url), int(n)) for url, n in LINK.findall(page)]


def listed(client: TestClient, url: str) -> int:
    m = LISTED.search(client.get(url).text)
    assert m, url
    return int(m.group(1))


def assert_every_link_lists_its_count(client: TestClient) -> list[tuple[str, int]]:
    page = client.get("/evidence")
    assert page.status_code == 200
    links = linked_counts(page.text)
    assert links
    wrong = [(url, n, listed(client, url)) for url, n in links if listed(client, url) != n]
    assert not wrong
    return links


# --------------------------------------------------------------------------- the demo


@pytest.mark.slow
def test_every_count_of_the_demo_is_the_papers_it_links_to(client) -> None:
    links = assert_every_link_lists_its_count(client)
    # the kinds of evidence the demo holds each have a row and a link
    urls = {u for u, _ in links}
    for kind in ("committee", "replication", "re-execution", "computed"):
        assert f"/papers?kind={kind}" in urls, kind


def test_the_demo_s_totals_add_up_and_csv_is_json(client) -> None:
    j = client.get("/evidence?format=json").json()
    totals = {r["row"]: r["works"] for r in j["rows"] if r["table"] == "papers"}
    everything = listed(client, "/papers")
    assert totals["papers listed"] == everything
    assert totals["assessed"] + totals["no source assesses it"] == everything
    body = client.get("/evidence?format=csv").text
    assert len(list(csv.reader(body.splitlines()))) == len(j["rows"]) + 1
    page = client.get("/evidence").text
    assert '<a href="/evidence"' in page  # in the menu
    assert "The SPARQL behind this page" in page and "Was it reproduced?" in page


# --------------------------------------------------------------------------- real data


@pytest.fixture(scope="module")
def evidence_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    from reprokg.cli import main
    from reprokg.core.settings import Settings
    from reprokg.service.app import create_app
    from reprokg.store import open_store

    d = tmp_path_factory.mktemp("evidence") / "kg"
    assert main(["evidence", "load", str(EVIDENCE), "--store", str(d)]) == 0
    store = open_store(str(d))
    with TestClient(create_app(Settings(store=str(d), access_log=False), store=store)) as c:
        yield c
    store.close()


def overview(client: TestClient) -> dict[tuple[str, str, str], int]:
    rows = client.get("/evidence?format=json").json()["rows"]
    return {(r["table"], r["key"], r["outcome"]): r["works"] for r in rows}


def reprodb() -> list[dict]:
    return json.loads((EVIDENCE / "reprodb" / "artifacts.json").read_text(encoding="utf-8"))


def paper(record: dict) -> str:
    """A record's paper: its paper's DOI, else its title (docs/architecture.md: a paper
    without a DOI is minted from venue, year and title)."""
    return record["paper_url"] or f"{record['conference']} {record['year']} {record['title']}"


def has_results_badge(record: dict) -> bool:
    """ACM's "Results Reproduced" and USENIX's "ROR-R" (docs/badge-normalisation.md)."""
    return bool({"reproduced", "ROR-R"} & set(record["badges"]))


@pytest.mark.slow
def test_real_counts_are_the_raw_files(evidence_client: TestClient) -> None:
    got = overview(evidence_client)
    records = reprodb()
    papers = {paper(r) for r in records}
    reproduced = {paper(r) for r in records if has_results_badge(r)}
    # ReproDB: one committee decision per paper, a results badge or not assessed
    assert got[("kind", "committee", "")] == len(papers) == 68
    assert got[("kind", "committee", "reproduced")] == len(reproduced)
    assert got[("kind", "committee", "not-attempted")] == len(papers - reproduced)
    assert got[("source", "artifact-evaluation", "")] == len(papers)
    for venue in {r["conference"] for r in records}:  # the only source naming venues
        mine = [r for r in records if r["conference"] == venue]
        assert got[("venue", venue, "")] == len({paper(r) for r in mine}), venue
        n = len({paper(r) for r in mine if has_results_badge(r)})
        assert got[("venue", venue, "reproduced")] == n, venue
    # the Dataverse R study: one replication package per DOI of its run logs
    dois = set()
    for f in (EVIDENCE / "dataverse-r").glob("run_log_*.csv"):
        if not f.name.endswith("_download.csv"):
            dois |= {row[0] for row in csv.reader(f.open(encoding="utf-8"), delimiter="\t")}
    assert got[("kind", "re-execution", "")] == got[("source", "re-execution", "")] == len(dois)
    # ReScience C: every failed replication ([¬Re], [¬Rp]) and the original it names
    bib = (EVIDENCE / "rescience" / "published.bib").read_text(encoding="utf-8")
    failed = len(re.findall(r"title\s*=\s*\{\{\[¬R[ep]\]", bib))
    assert got[("source", "rescience", "not-reproduced")] == 2 * failed == 16


@pytest.mark.slow
def test_every_real_count_is_the_papers_it_links_to(evidence_client: TestClient) -> None:
    assert_every_link_lists_its_count(evidence_client)


# --------------------------------------------------------------------------- the filters


def _work(iri: str, *answers: tuple[str, str, str]) -> WorkOutcome:
    summary = Summary(
        claims=[], decisions=len(answers), records=0, superseded=0, disputed=0, sources=[]
    )
    return WorkOutcome(iri, summary, frozenset(d for _, d, _ in answers), frozenset(answers))


def test_kind_and_outcome_filters_match_one_assessment() -> None:
    """A work a committee did not assess (no results badge) but a replication reproduced is
    not "reproduced by a committee": the filters given together hold for one assessment."""
    rows = [{"paper": f"https://doi.org/10.1/{p}", "key": "paper", "value": ""} for p in "ab"]
    works = {
        "https://doi.org/10.1/a": _work(
            "https://doi.org/10.1/a",
            ("committee", "artifact-evaluation", "not-attempted"),
            ("replication", "rescience", "reproduced"),
        ),
        "https://doi.org/10.1/b": _work(
            "https://doi.org/10.1/b", ("committee", "artifact-evaluation", "reproduced")
        ),
    }
    index = PaperIndex(rows, works)
    want = {
        Filters(kind="committee", outcome="reproduced"): ["b"],
        Filters(kind="committee"): ["a", "b"],
        Filters(outcome="reproduced"): ["a", "b"],
        Filters(assessed_in="rescience", outcome="not-attempted"): [],
        Filters(assessed="yes"): ["a", "b"],
        Filters(assessed="no"): [],
    }
    for filters, papers in want.items():
        expected = [f"https://doi.org/10.1/{p}" for p in papers]
        assert [r.iri for r in index.select(filters)] == expected, filters
        assert [r.iri for r in select(index.ordered(), filters)] == expected, filters


def test_a_doi_stays_on_one_line() -> None:
    """The DOI column broke anywhere (``overflow-wrap: anywhere`` on every link in a cell),
    a character or word per line in a narrow column: the DOI cell is kept whole."""
    css = (REPO / "service" / "web" / "static" / "web.css").read_text(encoding="utf-8")
    rule = re.search(r"td\.doi[^{]*\{([^}]*)\}", css)
    assert rule and "white-space: nowrap" in rule.group(1)
    template = (REPO / "service" / "web" / "templates" / "papers.html").read_text(encoding="utf-8")
    assert 'data-label="DOI" class="doi"' in template
