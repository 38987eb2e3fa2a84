"""The passport pages the runs naming a paper, with their count (issue: bounded answers at
scale): every view (the domain function, ``/paper``, ``reprokg passport``) shows a page and
how many there are, the pages partition the whole list, and the count equals the runs.

The paged store is generated here (each run's document stated in N-Quads, so the expected
runs are known without the code under test); the count's shortcut (research goals counted
for runs) is held against a plain count of runs on the real run headers.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from reprokg.cli import main
from reprokg.evidence.passport import RUNS_PAGE, passport
from reprokg.ingest import ingest_paths
from reprokg.store import open_store

PAPER = "https://doi.org/10.1007/978-3-030-15712-8_26"
RK = "https://w3id.org/reprokg/ontology#"
ID = "https://w3id.org/reprokg/id/"
CITING = 250
#: runs that also name an earlier run as their baseline (each one more (run, relation) pair)
BASELINES = (1, 101, 201)
#: a person (a valid ORCID iD) who made the first PERSON_RUNS runs
PERSON = "https://orcid.org/0000-0002-1825-0097"
PERSON_RUNS = 130
CITES = "cites it as research goal"
USES = "uses one of its runs as baseline"


def _run(i: int) -> str:
    return f"{ID}run/paging{i:04d}"


def _nquads() -> str:
    lines = []
    for i in range(CITING):
        g, run, goal = f"<{ID}document/paging{i:04d}>", f"<{_run(i)}>", f"<{_run(i)}/goal>"
        lines += [
            f"{run} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{RK}Run> {g} .",
            f"{run} <{RK}researchGoal> {goal} {g} .",
            f"{goal} <{RK}publication> <{PAPER}> {g} .",
            f'<{PAPER}> <{RK}doiAsWritten> "10.1007/978-3-030-15712-8_26" {g} .',
            f'{run} <{RK}runTag> "tag-{i:04d}" {g} .',
        ]
        if i < PERSON_RUNS:  # a run names its actor twice: one row a run all the same
            actor = f"<{_run(i)}/actor>"
            lines += [
                f"{run} <http://www.w3.org/ns/prov#wasAssociatedWith> <{PERSON}> {g} .",
                f"{run} <{RK}actor> {actor} {g} .",
                f"{actor} <{RK}person> <{PERSON}> {g} .",
            ]
        if i in BASELINES:
            ev = f"<{_run(i)}/evaluation>"
            lines += [
                f"{goal} <{RK}evaluation> {ev} {g} .",
                f'{ev} <{RK}baselineRunTag> "tag-{i - 1:04d}" {g} .',
            ]
    return "\n".join(lines) + "\n"


#: what the generated store states: every run cites the paper; three use a run of it
EXPECTED = {(_run(i), CITES) for i in range(CITING)} | {(_run(i), USES) for i in BASELINES}


def _cli(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(list(args))
    return code, out.getvalue()


@pytest.fixture(scope="module")
def paged_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("paging")
    (d / "runs.nq").write_text(_nquads(), encoding="utf-8")
    code, out = _cli("restore", str(d / "runs.nq"), "--store", str(d / "store"))
    assert code == 0, out
    return d / "store"


def _pairs(rows: list[dict]) -> set[tuple[str, str]]:
    return {(str(r["run"]), str(r["relation"])) for r in rows}


def test_the_pages_partition_the_runs_and_say_how_many(paged_store: Path) -> None:
    with open_store(paged_store, read_only=True) as store:
        seen: list[tuple[str, str]] = []
        offset: int | None = 0
        sentences = []
        while offset is not None:
            found = passport(store, PAPER, runs_offset=offset)
            pg = found.runs_page
            assert pg is not None and pg.total == len(EXPECTED) == 253
            rows = found.parts["runs"]
            assert len(_pairs(rows)) <= RUNS_PAGE
            seen += sorted(_pairs(rows))
            sentences.append(pg.sentence())
            offset = pg.next_offset
    assert len(seen) == len(set(seen)) == 253  # no run twice, none left out
    assert set(seen) == EXPECTED
    assert sentences == [
        "100 rows: runs 1-100 of 253",
        "100 rows: runs 101-200 of 253",
        "53 rows: runs 201-253 of 253",
    ]


def test_every_run_when_asked_and_the_count_is_the_total(paged_store: Path) -> None:
    with open_store(paged_store, read_only=True) as store:
        whole = passport(store, PAPER, runs_limit=None)
        first = passport(store, PAPER)
    assert _pairs(whole.parts["runs"]) == EXPECTED
    assert whole.runs_page is not None and not whole.runs_page.truncated
    runs = {c.key: c.n for c in first.counts()}["runs"]
    assert runs == 253  # the count says the whole, not the page's 100


def test_the_web_page_and_the_command_show_the_page_and_the_count(paged_store: Path) -> None:
    from fastapi.testclient import TestClient

    from reprokg.core.settings import Settings
    from reprokg.service.app import create_app

    app = create_app(Settings(store=str(paged_store), read_only=True))
    with TestClient(app) as client:
        html = client.get("/paper", params={"iri": PAPER}).text
        assert "100 rows: runs 1-100 of 253" in html
        assert "runs_offset=100#runs" in html  # the next page's link
        last = client.get("/paper", params={"iri": PAPER, "runs_offset": 200}).text
        assert "53 rows: runs 201-253 of 253" in last and "runs_offset=100#runs" in last
        data = client.get("/paper", params={"iri": PAPER, "format": "json"}).json()
        csv = client.get("/paper", params={"iri": PAPER, "format": "csv"})
        assert csv.headers["X-Reprokg-Runs-Total"] == "253"
        assert "runs_offset=100" in csv.headers["X-Reprokg-Truncated"]
    assert data["runs_page"]["total"] == 253 and data["runs_page"]["next_offset"] == 100
    code, out = _cli("passport", PAPER, "--store", str(paged_store), "--format", "json")
    assert code == 0 and json.loads(out)["runs_page"]["total"] == 253
    code, out = _cli(
        "passport", PAPER, "--store", str(paged_store), "--format", "json", "--all-runs"
    )
    assert code == 0 and _pairs(json.loads(out)["runs"]) == EXPECTED
    code, out = _cli("passport", PAPER, "--store", str(paged_store))
    assert code == 0 and "253 runs whose ir_metadata header names it" in out


def test_research_goals_and_runs_are_as_many_on_the_real_run_headers(
    shared_data: Path, tmp_path: Path
) -> None:
    """The count reads goals for runs (paper-runs-count.rq): on the field's run headers
    (ir_metadata's annotated example, the tour's runs), each paper they name has as many
    goals naming it as runs, counted by a plain query of the runs."""
    runs = Path(__file__).resolve().parents[2] / "examples" / "runs"
    paths = [shared_data / "ir_metadata" / "annotated_run_example.txt"]
    paths += [p for p in sorted(runs.iterdir()) if p.suffix == ".txt" or p.name == "run_a"]
    with open_store(tmp_path / "s") as store:
        ingest_paths(store, paths, kind="run")
        papers = store.query(f"SELECT DISTINCT ?p WHERE {{ ?g <{RK}publication> ?p }}").rows
        assert papers
        for (paper,) in papers:
            runs_n = store.query(
                f"SELECT (COUNT(DISTINCT ?r) AS ?n) WHERE {{ ?r <{RK}researchGoal> ?g . "
                f"?g <{RK}publication> <{paper}> }}"
            ).rows[0][0]
            pages = passport(store, str(paper), runs_limit=None)
            assert pages.runs_page is not None
            cites = {r for r, rel in _pairs(pages.parts["runs"]) if rel == CITES}
            assert len(cites) == int(runs_n)
            uses = {r for r, rel in _pairs(pages.parts["runs"]) if rel == USES}
            assert pages.runs_page.total == int(runs_n) + len(uses)


def test_a_persons_works_are_paged_with_their_count(paged_store: Path) -> None:
    """``/person`` pages what the person did (a run named twice as its actor is one work)."""
    from fastapi.testclient import TestClient

    from reprokg.core.settings import Settings
    from reprokg.service.app import create_app

    app = create_app(Settings(store=str(paged_store), read_only=True))
    with TestClient(app) as client:
        html = client.get("/person", params={"orcid": PERSON[-19:]}).text
        assert "100 rows: works 1-100 of 130" in html
        first = client.get("/person", params={"orcid": PERSON[-19:], "format": "json"})
        assert first.headers["X-Reprokg-Total"] == "130"
        rest = client.get(
            "/person", params={"orcid": PERSON[-19:], "offset": 100, "format": "json"}
        )
    things = [r["thing"] for r in first.json()["rows"] + rest.json()["rows"]]
    assert sorted(things) == sorted(_run(i) for i in range(PERSON_RUNS))
