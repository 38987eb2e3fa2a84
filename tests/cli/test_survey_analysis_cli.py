"""``reprokg survey-stats`` (= ``reprokg study siggraph2020``) on a small embedded store:
table, JSON, charts and --save."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reprokg.cli import main
from reprokg.studies.registry import SIGGRAPH2020
from tests.conftest import need

pytestmark = pytest.mark.slow  # the survey store its fixture loads


@pytest.fixture(scope="module")
def store_dir(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 2014 and 2016 papers of the consolidated data (enough for every test but 2018)."""
    src = shared_data / "replicability_graphics" / "consolidatedData.json"
    need(src.is_file(), "consolidatedData.json is missing")
    try:
        from reprokg.loaders import replicability_graphics as loader
    except ImportError:
        need(False, "the survey loader is not there yet")
    from reprokg.store import open_store

    rows = [r for r in json.loads(src.read_text("utf-8")) if r["Year"] in (2014, 2016)]
    d = tmp_path_factory.mktemp("survey-cli") / "store"
    with open_store(d) as store:
        for doc in loader.load(json.dumps(rows).encode(), "consolidatedData.json"):
            store.add_document(doc.iri, doc.graph)
    return d


def test_json_output_is_the_analysis_of_the_store(store_dir: Path, capsys) -> None:
    assert main(["survey-stats", "--store", str(store_dir), "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    from reprokg.store import open_store

    with open_store(store_dir, read_only=True) as store:
        direct = SIGGRAPH2020.run(store).to_json()
    assert printed["sharing"]["by_year"] == direct["sharing"]["by_year"]
    assert printed["method"] == "published"
    assert printed["tests"]["score_by_year"]["n"] == direct["tests"]["score_by_year"]["n"]
    assert set(printed["sharing"]["by_year"]) == {"2014", "2016"}
    assert printed["counts"]["total"]["papers"] == 127 + 119
    # no 2018 papers: the tests needing 2018 are absent, the rest adjusted among themselves
    assert "sharing_2014_vs_2018" not in printed["tests"]
    assert printed["tests"]["sharing_2014_vs_2016"]["p_adjusted"] is not None


def test_table_charts_and_save(store_dir: Path, tmp_path: Path, capsys) -> None:
    charts = tmp_path / "charts"
    code = main(["survey-stats", "--store", str(store_dir), "--charts", str(charts), "--save"])
    assert code == 0
    out, err = capsys.readouterr()
    assert "Code or binary shared" in out and "sharing_2014_vs_2016" in out
    assert re.search(
        r"saved siggraph2020 \(published\) as [0-9a-f]{8,} \(https://\S+, added\)", err
    )
    assert {p.name for p in charts.iterdir()} >= {
        "consolidated-sharing_by_year.svg",
        "consolidated-sharing_by_year.png",
        "consolidated-citations.png",
    }
    from reprokg.store import open_store

    with open_store(store_dir, read_only=True) as store:
        res = store.query(
            "PREFIX rk: <https://w3id.org/reprokg/ontology#> "
            'SELECT ?d WHERE { GRAPH ?d { ?d rk:documentKind "study-result" } }'
        )
        assert len(res.rows) == 1
    # the same result again changes nothing
    assert main(["survey-stats", "--store", str(store_dir), "--save"]) == 0
    assert ", unchanged)" in capsys.readouterr().err


def test_missing_or_empty_store_says_so(tmp_path: Path, capsys) -> None:
    assert main(["survey-stats", "--store", str(tmp_path / "nothing")]) == 2
    assert "no store" in capsys.readouterr().err
    from reprokg.store import open_store

    open_store(tmp_path / "empty").close()
    assert main(["survey-stats", "--store", str(tmp_path / "empty")]) == 1
    assert "no data of study siggraph2020 in the store" in capsys.readouterr().out
