"""Named queries over HTTP (and the CLI) on real data: audits, a run header, survey rows.

Expected values come from the source files read independently here (YAML/JSON), not
from the code under test.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient

from reprokg.core.settings import Settings
from reprokg.service.app import create_app
from reprokg.store import open_store
from tests.conftest import REPO, SHARED_DATA

N_SURVEY = 60
SHARED_RUN = SHARED_DATA / "ir_metadata" / "annotated_run_example.txt"
RUN_DOI = "10.1007/978-3-030-15712-8_26"  # annotated_run_example.txt, research goal
RUN_ORCID = "0000-0002-0661-7189"  # its actor
TOPIC = {"Animation": "AnimationSimulation", "Image": "Images", "Virtual Reality": "VirtualReality"}


SCORES_DOC = "https://w3id.org/reprokg/id/doc/test-scores"
OTHER_RUN = "https://w3id.org/reprokg/id/run/test-other"


def _scores():
    """Scores as a comparison document writes them: the real run 0.31 map, another run 0.25."""
    from rdflib import Graph, Literal, URIRef
    from rdflib.namespace import RDF, XSD

    from reprokg.core.namespaces import MLS, RK
    from reprokg.loaders.qrels import collection_iri
    from reprokg.measures.leaderboard import add_leaderboard

    g = Graph()
    real = next(iter(_real_run()))
    other = URIRef(OTHER_RUN)
    g.add((other, RDF.type, RK.Run))
    g.add((other, RK.runTag, Literal("other")))
    g.add((other, RK.data, URIRef(OTHER_RUN + "/data")))
    g.add((URIRef(OTHER_RUN + "/data"), RK.testCollection, URIRef(OTHER_RUN + "/tc")))
    g.add((URIRef(OTHER_RUN + "/tc"), RK.irDatasetsId, Literal("https://ir-datasets.com/nyt")))
    # as the ir_metadata loader links it: the shared node minted from the ir_datasets id
    g.add((URIRef(OTHER_RUN + "/tc"), RK.collection, collection_iri("https://ir-datasets.com/nyt")))
    for run, measure, value in (
        (real, "map", "0.31"),
        (other, "map", "0.25"),
        (other, "P_10", "0.4"),
    ):
        v = URIRef(f"{run}/score-{measure}")
        g.add((run, RK.reportedScore, v))
        g.add((v, RK.measureName, Literal(measure)))
        g.add((v, MLS.hasValue, Literal(value, datatype=XSD.decimal)))
        add_leaderboard(g, v, collection_iri("https://ir-datasets.com/nyt"), measure)
    # a score on another collection's leaderboard is not a baseline on this one
    v = URIRef(f"{OTHER_RUN}/score-elsewhere")
    g.add((other, RK.reportedScore, v))
    g.add((v, RK.measureName, Literal("map")))
    g.add((v, MLS.hasValue, Literal("0.99", datatype=XSD.decimal)))
    add_leaderboard(g, v, collection_iri("https://ir-datasets.com/robust04"), "map")
    return g


def _real_run():
    from reprokg.loaders.files import load_path

    doc = load_path(SHARED_RUN)[0]
    return [doc.subject]


@pytest.fixture(scope="module")
def sources(shared_data: Path, tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("nq")
    rows = json.loads(
        (shared_data / "replicability_graphics" / "consolidatedData.json").read_text()
    )
    survey = tmp / "consolidated_subset.json"
    survey.write_text(json.dumps(rows[:N_SURVEY]))
    return {
        "survey": survey,
        "run": shared_data / "ir_metadata" / "annotated_run_example.txt",
        "audits": REPO / "examples" / "audits",
        "store": tmp / "store",
    }


@pytest.fixture(scope="module")
def client(sources):
    from reprokg.ingest import ingest_paths

    store = open_store(str(sources["store"]))
    result = ingest_paths(store, [sources["survey"], sources["run"], sources["audits"]])
    assert result.documents and all(d.status == "added" for d in result.documents)
    store.add_document(SCORES_DOC, _scores())
    yield TestClient(create_app(Settings(access_log=False), store=store))
    store.close()


def _rows(r) -> list[dict[str, str]]:
    assert r.status_code == 200, r.text
    body = r.json()
    return [{k: v["value"] for k, v in b.items()} for b in body["results"]["bindings"]]


def test_list(client) -> None:
    body = client.get("/queries").json()
    names = {q["name"] for q in body["queries"]}
    assert {
        "find-baselines",
        "reproductions-of-doi",
        "by-orcid",
        "publications-with-attribute",
        "survey-code-availability",
    } <= names
    fb = next(q for q in body["queries"] if q["name"] == "find-baselines")
    assert {p["name"]: p["optional"] for p in fb["params"]} == {
        "collection": False,
        "measure": False,
        "toolkit": True,
        "method": True,
        "platform": True,
        "above": True,
        "limit": True,
        "offset": True,
    }


def test_survey_code_availability_matches_the_json(client, sources) -> None:
    rows = json.loads(sources["survey"].read_text())
    papers: dict[tuple[int, str], set] = defaultdict(set)
    shared: dict[tuple[int, str], set] = defaultdict(set)
    for row in rows:
        key = (int(row["Year"]), TOPIC.get(row["Topic"], row["Topic"]))
        papers[key].add(row["DOI"].lower())
        if row["Is the code or software publicly available ?"] == "Yes":
            shared[key].add(row["DOI"].lower())
    got = _rows(client.get("/queries/survey-code-availability"))
    assert {(int(r["year"]), r["topic"]): int(r["papers"]) for r in got} == {
        k: len(v) for k, v in papers.items()
    }
    assert {(int(r["year"]), r["topic"]): int(r["codeShared"]) for r in got} == {
        k: len(shared[k]) for k in papers
    }
    only_2016 = _rows(client.get("/queries/survey-code-availability?year=2016"))
    assert {r["year"] for r in only_2016} == {"2016"}


def test_publications_with_attribute_matches_the_audit_files(client, sources) -> None:
    expected: dict[str, set[str]] = defaultdict(set)
    for f in sorted(sources["audits"].glob("*.yaml")):
        audit = yaml.safe_load(f.read_text())
        pub = audit["publication"]
        iri = f"https://doi.org/{pub['doi'].lower()}" if pub.get("doi") else pub["url"]
        for finding in audit.get("findings", []):
            expected[finding["attribute"]].add(iri)
    assert expected["S1"], "the example audits have S1 findings"
    for attribute in ("S1", "S7", "R5", "s1"):
        got = {
            r["publication"]
            for r in _rows(
                client.get("/queries/publications-with-attribute", params={"attribute": attribute})
            )
        }
        assert got == expected[attribute.upper()], attribute


@pytest.mark.parametrize(
    "spelling", [RUN_DOI, RUN_DOI.upper(), f"doi:{RUN_DOI}", f"https://dx.doi.org/{RUN_DOI}"]
)
def test_reproductions_of_doi_accepts_every_spelling(client, spelling) -> None:
    rows = _rows(client.get("/queries/reproductions-of-doi", params={"doi": spelling}))
    assert [(r["relation"], r.get("tag")) for r in rows] == [("research goal", "bm25+rm3")]


def test_by_orcid(client) -> None:
    rows = _rows(client.get("/queries/by-orcid", params={"orcid": RUN_ORCID}))
    types = {r["type"].rsplit("#", 1)[-1] for r in rows}
    assert {"Run", "Actor"} <= types
    r = client.get("/queries/by-orcid", params={"orcid": "0000-0002-0661-7188"})
    assert r.status_code == 400 and "MOD 11-2" in r.json()["detail"]["message"]


def test_find_baselines_filters_and_formats(client) -> None:
    params = {"collection": "https://ir-datasets.com/nyt", "measure": "map"}
    rows = _rows(client.get("/queries/find-baselines", params=params))
    assert [(r["tag"], r["score"]) for r in rows] == [("bm25+rm3", "0.31"), ("other", "0.25")]
    # only the real run's header names a toolkit (anserini) and an OS distribution
    rows = _rows(client.get("/queries/find-baselines", params={**params, "toolkit": "anserini"}))
    assert [r["tag"] for r in rows] == ["bm25+rm3"]
    assert (
        _rows(client.get("/queries/find-baselines", params={**params, "toolkit": "terrier"})) == []
    )
    rows = _rows(
        client.get("/queries/find-baselines", params={**params, "platform": "Ubuntu 18.04.5 LTS"})
    )
    assert [r["tag"] for r in rows] == ["bm25+rm3"]
    rows = _rows(client.get("/queries/find-baselines", params={**params, "measure": "P_10"}))
    assert [r["tag"] for r in rows] == ["other"]
    assert _rows(client.get("/queries/find-baselines", params={**params, "measure": "ndcg"})) == []
    r = client.get("/queries/find-baselines", params=params, headers={"Accept": "text/csv"})
    assert r.headers["content-type"].startswith("text/csv")
    assert [row[1] for row in csv.reader(io.StringIO(r.text))] == ["tag", "bm25+rm3", "other"]
    r = client.get("/queries/find-baselines", params={**params, "format": "csv"})
    assert r.text.startswith("run,tag,score,measure,collection\r\n")
    r = client.get("/queries/find-baselines", params=params, headers={"Accept": "image/png"})
    assert r.status_code == 406
    rows = _rows(client.get("/queries/find-baselines", params={**params, "limit": "1"}))
    assert [r["tag"] for r in rows] == ["bm25+rm3"]
    for bad in ("0", "1001", "ten", "1 } LIMIT 5"):
        r = client.get("/queries/find-baselines", params={**params, "limit": bad})
        assert r.status_code == 400, bad


def test_find_baselines_pages_by_run_and_says_of_how_many(client) -> None:
    """Issue 39: find-baselines' LIMIT counts runs (a sub-select's); a page says which runs
    of how many the board has, from the store's ranks or counted (the same number), and
    ``offset`` reaches the next run."""
    from reprokg.sparql import named, ranked

    params = {"collection": "https://ir-datasets.com/nyt", "measure": "map", "limit": "1"}
    r = client.get("/queries/find-baselines", params=params)
    page = r.json()["page"]
    assert (page["unit"], page["total"], page["truncated"], page["next_offset"]) == (
        "runs",
        2,
        True,
        1,
    )
    rows = _rows(client.get(page["next"]))
    assert [x["tag"] for x in rows] == ["other"]
    last = client.get("/queries/find-baselines", params={**params, "offset": "1"}).json()
    assert last["page"]["truncated"] is False and "next" not in last["page"]
    # the ranks' total is the count's
    store = client.app.state.store
    q = named.get_query("find-baselines")
    counted = named.page_of(store, q, params, 1).total
    assert counted == 2 and ranked.known_total(q, params, store) == counted


@pytest.mark.slow
@pytest.mark.parametrize(
    "attack",
    [
        'S1" } ; DROP ALL ; #',
        'S1" . } UNION { ?publication ?p ?o } #',
        "S1'\n} INSERT DATA { <http://e/s> <http://e/p> <http://e/o> }",
        '\\" ) } #',
    ],
)
def test_injection_attempts_fail_harmlessly(client, attack) -> None:
    store = client.app.state.store
    before = store.triple_count()
    r = client.get("/queries/publications-with-attribute", params={"attribute": attack})
    assert r.status_code == 200 and _rows(r) == []
    assert store.triple_count() == before


def test_bad_requests(client) -> None:
    assert client.get("/queries/nope").status_code == 404
    r = client.get("/queries/reproductions-of-doi", params={"doi": "not a doi"})
    assert r.status_code == 400
    r = client.get("/queries/reproductions-of-doi")
    assert r.status_code == 400 and "needs parameter 'doi'" in r.json()["detail"]["message"]
    r = client.get("/queries/by-orcid", params={"orcid": RUN_ORCID, "extra": "1"})
    assert r.status_code == 400
    r = client.get("/queries/survey-code-availability", params={"year": "2016 || true"})
    assert r.status_code == 400


@pytest.mark.slow
def test_cli_named_query(sources, client) -> None:
    client.app.state.store.flush()
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "reprokg",
            "query",
            "--store",
            str(sources["store"]),
            "--read-only",
            "--name",
            "reproductions-of-doi",
            "--param",
            f"doi=doi:{RUN_DOI}",
            "--format",
            "csv",
        ],
        capture_output=True,
        text=True,
        cwd="/",
    )
    assert out.returncode == 0, out.stderr
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert [(r["relation"], r["tag"]) for r in rows] == [("research goal", "bm25+rm3")]
