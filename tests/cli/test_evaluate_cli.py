"""``reprokg evaluate RUN… --qrels Q [--save]``: reported measures onto the leaderboards.

Expected values are read off the bundled toy qrels by hand: the annotated example's run
lines rank doc1..doc10 / doc11..doc20 / doc21..doc30 first on topics 1-3, whose relevant
documents include doc1-4, doc11-16 and doc21-25 (10 relevant each), so AP = 0.4, 0.6,
0.5 (mean 0.5) and P@10 = 0.4, 0.6, 0.5 (mean 0.5).
"""

from __future__ import annotations

import json

import pytest

from reprokg.cli import main
from reprokg.store import open_store
from tests.conftest import REPO

RUNS = REPO / "examples" / "runs"


def test_evaluate_prints_reported_measures(capsys) -> None:
    rc = main(
        [
            "evaluate",
            str(RUNS / "annotated_run_example.txt"),
            "--qrels",
            str(RUNS / "qrels.toy"),
            "--format",
            "json",
        ]
    )
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    (run,) = out["runs"]
    assert run["tag"] == "bm25+rm3"
    assert run["scores"]["map"] == {"ir_measures": "AP", "value": pytest.approx(0.5)}
    assert run["scores"]["P_10"] == {"ir_measures": "P@10", "value": pytest.approx(0.5)}
    # the collection the header names (data.test collection.ir_datasets), not a hash IRI
    assert run["leaderboard_collection"] == "https://ir-datasets.com/nyt"


def test_evaluate_names_the_collection_as_the_header_writes_it(capsys) -> None:
    """The text output names the run's collection by its ir_datasets IRI (issue 41)."""
    runs = [str(RUNS / "annotated_run_example.txt"), "--qrels", str(RUNS / "qrels.toy")]
    assert main(["evaluate", *runs]) == 0
    out = capsys.readouterr().out
    assert "bm25+rm3  (https://ir-datasets.com/nyt)" in out
    assert "/collection/" not in out


@pytest.mark.slow
def test_evaluate_save_puts_runs_on_the_leaderboard_once(tmp_path, capsys) -> None:
    store_dir = str(tmp_path / "kg")
    args = ["--qrels", str(RUNS / "qrels.toy"), "--save", "--store", store_dir]
    runs = [str(RUNS / "annotated_run_example.txt"), str(RUNS / "reproduced_run.txt")]
    assert main(["evaluate", *runs, *args]) == 0
    # the same again changes nothing; compare of the same runs writes the same scores
    assert main(["evaluate", *runs, *args]) == 0
    assert (
        main(
            [
                "compare",
                "--qrels",
                str(RUNS / "qrels.toy"),
                "--orig-base",
                runs[0],
                "--rep-base",
                runs[1],
                "--save",
                "--store",
                store_dir,
                "--measures",
                "AP",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert (
        main(
            [
                "query",
                "--store",
                store_dir,
                "--name",
                "find-baselines",
                "--param",
                "collection=https://ir-datasets.com/nyt",
                "--param",
                "measure=map",
                "--format",
                "json",
            ]
        )
        == 0
    )
    rows = json.loads(capsys.readouterr().out)["results"]["bindings"]
    assert [(r["tag"]["value"], round(float(r["score"]["value"]), 4)) for r in rows] == [
        ("bm25+rm3", 0.5),
        ("bm25+rm3-rerun", 0.4143),
    ]
    # the collection printed is the one passed (issue 41), and the bare id finds the same
    assert {r["collection"]["value"] for r in rows} == {"https://ir-datasets.com/nyt"}
    find = ["query", "--store", store_dir, "--name", "find-baselines", "--format", "json"]
    assert main([*find, "--param", "collection=nyt", "--param", "measure=map"]) == 0
    assert len(json.loads(capsys.readouterr().out)["results"]["bindings"]) == 2
    with open_store(store_dir, read_only=True) as store:
        kinds = {
            str(k)
            for (k,) in store.query(
                "SELECT DISTINCT ?k WHERE "
                "{ ?g <https://w3id.org/reprokg/ontology#documentKind> ?k }"
            ).rows
        }
    assert {"evaluation", "comparison", "run", "qrels"} <= kinds


def test_evaluate_refuses_a_run_without_header(capsys) -> None:
    rc = main(["evaluate", str(RUNS / "run_a"), "--qrels", str(RUNS / "qrels.toy")])
    assert rc == 2
    assert "no ir_metadata header" in capsys.readouterr().err
