"""``/sources`` and ``/sources/{name}``: each source's documents, records, works, outcomes
and joins, held to numbers read here from the raw files (``json``, ``csv``, regular
expressions), never through the loaders.

The store holds the real evidence subsets (``examples/evidence``: ReproDB, ReScience C, the
Dataverse R study) and one real results page the ReproDB subset consolidates
(sysartifacts' OSDI 2023 ``results.md``, ../shared/data): two sources of one document kind
that hold the same works.
"""

from __future__ import annotations

import csv
import hashlib
import html as html_lib
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.conftest import REPO

EVIDENCE = REPO / "examples" / "evidence"
RESULTS_PAGE = "artifact_evaluation/sysartifacts/osdi2023-results.md"
LINK = re.compile(r'<a href="(/papers[^"]*)"[^>]*>(\d+)</a>')
LISTED = re.compile(r'id="count"[^>]*>(\d+) of (\d+) papers')
#: a results-page row: "| [title](url) | badges | links |"
ROW = re.compile(r"^\| \[(.+?)\]\(", re.M)
#: ReScience C's label, in front of a title: "[Re] <the original's title>" (its author guide)
LABEL = re.compile(r"^\[[~¬]?R[ep]\]\s*(.*)$")
#: the tests on the loaded store (loading it takes ~6 s, once per module)
SLOW = pytest.mark.slow


@pytest.fixture(scope="module")
def sources_client(
    tmp_path_factory: pytest.TempPathFactory, shared_data: Path
) -> Iterator[TestClient]:
    from reprokg.cli import main
    from reprokg.core.settings import Settings
    from reprokg.service.app import create_app
    from reprokg.store import open_store

    folder = tmp_path_factory.mktemp("sources")
    shutil.copytree(EVIDENCE, folder / "evidence")
    (folder / "evidence" / "pages").mkdir()
    shutil.copy(shared_data / RESULTS_PAGE, folder / "evidence" / "pages")
    d = folder / "kg"
    assert main(["evidence", "load", str(folder / "evidence"), "--store", str(d)]) == 0
    assert main(["evidence", "match", "--store", str(d)]) == 0
    store = open_store(str(d))
    with TestClient(create_app(Settings(store=str(d), access_log=False), store=store)) as c:
        yield c
    store.close()


def norm(title: str) -> str:
    return " ".join(title.lower().split())


def reprodb() -> list[dict]:
    return json.loads((EVIDENCE / "reprodb" / "artifacts.json").read_text(encoding="utf-8"))


def paper(record: dict) -> str:
    """A ReproDB record's paper: its DOI, else venue, year and title (docs/architecture.md)."""
    return record["paper_url"] or f"{record['conference']} {record['year']} {norm(record['title'])}"


def page_titles(shared_data: Path) -> list[str]:
    return ROW.findall((shared_data / RESULTS_PAGE).read_text(encoding="utf-8"))


def bib_titles() -> list[str]:
    bib = (EVIDENCE / "rescience" / "published.bib").read_text(encoding="utf-8")
    return re.findall(r"^\s*title\s*=\s*\{\{(.*)\}\},?$", bib, re.M)


def detail(client: TestClient, name: str) -> dict[tuple[str, str], dict]:
    rows = client.get(f"/sources/{name}?format=json").json()["rows"]
    return {(r["table"], r["key"]): r for r in rows}


@SLOW
def test_the_sources_are_the_raw_files(sources_client: TestClient, shared_data: Path) -> None:
    got = {r["source"]: r for r in sources_client.get("/sources?format=json").json()["rows"]}
    assert list(got) == ["reprodb", "results-pages", "rescience", "dataverse-r"]
    # ReproDB: one document per artifact, one work per paper
    records = reprodb()
    assert got["reprodb"]["documents"] == got["reprodb"]["records"] == len(records) == 68
    assert got["reprodb"]["works"] == len({paper(r) for r in records})
    assert got["reprodb"]["files"] == "artifacts.json"
    # the results page: one document and one work per row of its table
    rows = page_titles(shared_data)
    assert got["results-pages"]["documents"] == got["results-pages"]["works"] == len(rows) == 32
    # ReScience C: one document per entry; its works are the reports and the originals a
    # title names after its label ("[Re] <title>", at least two words)
    titles = bib_titles()
    originals = [t for t in titles if (m := LABEL.match(t)) and len(m.group(1).split()) >= 2]
    assert got["rescience"]["documents"] == len(titles) == 29
    assert got["rescience"]["works"] == got["rescience"]["records"] == len(titles) + len(originals)
    # the Dataverse R study: one document per distinct log (identical download logs are one),
    # a record per package a log names, a work per package DOI
    logs: dict[str, set[str]] = {}
    for f in sorted((EVIDENCE / "dataverse-r").glob("run_log_*.csv")):
        text = f.read_text(encoding="utf-8")
        dois = {row[0] for row in csv.reader(text.splitlines(), delimiter="\t") if row}
        logs.setdefault(hashlib.sha256(text.encode()).hexdigest(), dois)
    assert got["dataverse-r"]["documents"] == len(logs) == 8
    assert got["dataverse-r"]["records"] == sum(len(d) for d in logs.values())
    assert got["dataverse-r"]["works"] == len(set().union(*logs.values())) == 12


@SLOW
def test_a_source_s_outcomes_and_joins_are_the_raw_files(
    sources_client: TestClient, shared_data: Path
) -> None:
    records = reprodb()
    got = detail(sources_client, "reprodb")
    # a committee decision per paper: a results badge (ACM "reproduced", IEEE "ROR-R") or none
    reproduced = {paper(r) for r in records if {"reproduced", "ROR-R"} & set(r["badges"])}
    assert got[("outcome", "reproduced")]["works"] == len(reproduced) == 39
    assert got[("outcome", "not-attempted")]["works"] == len(records) - len(reproduced)
    assert got[("kind", "committee")]["works"] == len(records)
    for venue in {r["conference"] for r in records}:
        n = len({paper(r) for r in records if r["conference"] == venue})
        assert got[("venue", venue)]["works"] == n, venue
    for year in {r["year"] for r in records}:
        n = len({paper(r) for r in records if r["year"] == year})
        assert got[("year", str(year))]["works"] == n, year
    # joins: the results page's rows are ReproDB's OSDI 2023 papers (by title), one node each
    osdi = {norm(r["title"]) for r in records if (r["conference"], r["year"]) == ("OSDI", 2023)}
    both = osdi & {norm(t) for t in page_titles(shared_data)}
    assert got[("shared-works", "results-pages")]["works"] == len(both) == 32
    assert got[("shared-works", "rescience")]["works"] == 0
    assert got[("accepted-links", "rescience")]["works"] == 0
    page = detail(sources_client, "results-pages")
    assert page[("shared-works", "reprodb")]["works"] == 32
    text = (shared_data / RESULTS_PAGE).read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if ROW.match(line)]
    assert page[("outcome", "reproduced")]["works"] == sum('id="rr"' in r for r in rows) == 27
    rescience = detail(sources_client, "rescience")
    failed = [t for t in bib_titles() if re.match(r"\[¬R[ep]\]", t)]
    assert rescience[("outcome", "not-reproduced")]["works"] == 2 * len(failed) == 16


@SLOW
def test_every_linked_count_is_the_papers_it_links_to(sources_client: TestClient) -> None:
    """Each number that links to /papers is the count the list shows there; the works two
    sources of different kinds both hold link through the new ``also_source`` filter."""
    pages = ["/sources"] + [f"/sources/{n}" for n in ("reprodb", "rescience", "dataverse-r")]
    links = []
    for url in pages:
        r = sources_client.get(url)
        assert r.status_code == 200
        links += [(html_lib.unescape(u), int(n)) for u, n in LINK.findall(r.text)]
    assert len(links) > 10
    for url, n in links:
        m = LISTED.search(sources_client.get(url).text)
        assert m and int(m.group(1)) == n, url
    # ReproDB and the results page are one kind: the list cannot tell their works apart
    page = detail(sources_client, "results-pages")
    assert page[("shared-works", "reprodb")]["papers_filters"] is None
    assert page[("source", "works")]["papers_filters"] is None


def test_the_papers_list_filters_works_two_sources_hold() -> None:
    """``also_source``: the works /sources/{name} counts as held by both sources."""
    from reprokg.service.web.papers import Filters, PaperIndex, select

    rows = [
        {"paper": f"https://doi.org/10.1/{p}", "key": "source", "value": s}
        for p, s in (("a", "gk2018"), ("a", "rescience"), ("b", "gk2018"), ("c", "rescience"))
    ]
    index = PaperIndex(rows)
    both = Filters(source="gk2018", also_source="rescience")
    assert [r.iri for r in index.select(both)] == ["https://doi.org/10.1/a"]
    assert [r.iri for r in select(index.ordered(), both)] == ["https://doi.org/10.1/a"]


@SLOW
def test_an_unknown_source_is_404(sources_client: TestClient) -> None:
    r = sources_client.get("/sources/gk2018")
    assert r.status_code == 404 and "reprodb" in r.text


@SLOW
def test_the_menu_lists_sources_after_evidence(sources_client: TestClient) -> None:
    page = sources_client.get("/sources").text
    assert page.index('href="/evidence"') < page.index('href="/sources"')
    assert 'href="/sources/dataverse-r"' in page and "The SPARQL behind this page" in page
