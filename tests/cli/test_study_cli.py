"""``reprokg study`` on an embedded store of the bundled examples (what ``serve --demo``
loads, and ReproDB's link checks): list, each study as table and JSON, charts, --save
twice, errors."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from reprokg.cli import main
from reprokg.studies.registry import REGISTRY
from tests.conftest import REPO

pytestmark = pytest.mark.slow  # the studies' stores its fixtures load


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    from reprokg.store import open_store
    from tests.studies.stores import load_into

    d = tmp_path_factory.mktemp("study-cli") / "store"
    with open_store(d) as store:
        load_into(
            store,
            [REPO / "examples" / f for f in ("survey", "audits", "evidence")]
            # ReproDB's link checks, which artifact-permanence joins to the examples' artifacts
            + [shared_data / "artifact_evaluation" / "reprodb" / "artifact_availability.json"],
        )
    return d


def _json(capsys: Any) -> Any:
    return json.loads(capsys.readouterr().out)


def test_list_names_every_study(capsys: Any) -> None:
    assert main(["study", "list"]) == 0
    out = capsys.readouterr().out
    for name in REGISTRY:
        assert name in out
    assert main(["study", "list", "--format", "json"]) == 0
    listed = _json(capsys)
    assert [s["name"] for s in listed] == list(REGISTRY)
    assert listed[0]["methods"][0]["name"] == "published" and listed[0]["methods"][0]["rules"]


@pytest.mark.parametrize("name", list(REGISTRY))
def test_json_is_the_study_run_on_the_store(store_dir: Path, name: str, capsys: Any) -> None:
    assert main(["study", name, "--store", str(store_dir), "--format", "json"]) == 0
    printed = _json(capsys)
    from reprokg.store import open_store

    with open_store(store_dir, read_only=True) as store:
        direct = REGISTRY[name].run(store).to_json()
    assert printed == json.loads(json.dumps(direct, default=str))
    assert printed["method"] == "published"


def test_issue_keys(store_dir: Path, capsys: Any) -> None:
    args = ["--store", str(store_dir), "--format", "json"]
    assert main(["study", "siggraph2020", *args]) == 0
    sig = _json(capsys)
    assert {"anova2_year", "anova2_topic", "anova2_industry"} <= set(sig["tests"])
    assert main(["study", "gk2018", *args]) == 0
    gk = _json(capsys)
    assert set(gk["degrees"]) == {"R1D", "R2D", "R3D", "DataD", "ExpD"}
    assert set(gk["degrees"]["R1D"]) >= {"mean", "variance"} and set(gk["satisfied"]) == {
        "R1",
        "R2",
        "R3",
    }
    assert main(["study", "pwc-checklist-2019", *args]) == 0
    pwc = _json(capsys)
    assert set(pwc["by_score"]) == {"0", "1", "2", "3", "4", "5"}
    assert set(pwc["by_score"]["5"]) == {
        "n",
        "proportion",
        "min",
        "q1",
        "median",
        "mean",
        "q3",
        "max",
    }
    assert set(pwc["rlm"]["results"]) == {"estimate", "se", "t"}
    assert set(pwc["wilcoxon"]) == {f"5 vs {k}" for k in range(5)}
    assert {"statistic", "p"} <= set(pwc["wilcoxon"]["5 vs 0"])
    assert main(["study", "audits", *args]) == 0
    au = _json(capsys)
    assert {"n_audits", "frequencies", "order", "concepts", "derived"} <= set(au)
    assert set(au["concepts"][0]) == {"extent", "intent"}


@pytest.mark.slow
def test_table_charts_and_save_twice(store_dir: Path, tmp_path: Path, capsys: Any) -> None:
    charts = tmp_path / "charts"
    for name in REGISTRY:
        args = ["study", name, "--store", str(store_dir), "--charts", str(charts), "--save"]
        assert main(args) == 0, name
        err = capsys.readouterr().err  # stdout stays the result (JSON with --format json)
        assert re.search(
            rf"saved {name} \(published\) as [0-9a-f]{{8,}} \(https://\S+, added\)", err
        )
        assert f"in the store {store_dir}" in err
        assert f"chart(s) to {charts}: " in err
        assert main(args) == 0
        assert ", unchanged)" in capsys.readouterr().err
    names = {p.name for p in charts.iterdir()}
    assert {
        "consolidated-sharing_by_year.svg",
        "gk2018-degrees_by_conference.png",
        "pwc-checklist-2019-median_stars_by_ticks.svg",
        "audits-hasse.svg",
        "audits-attribute_frequencies.png",
        "grsi-stamps-code_shared.svg",
    } <= names
    assert all((charts / n).stat().st_size > 1000 for n in names)


def test_methods_options_and_errors(store_dir: Path, capsys: Any) -> None:
    s = ["--store", str(store_dir)]
    assert main(["study", "siggraph2020", *s, "--method", "corrected", "--format", "json"]) == 0
    assert _json(capsys)["method"] == "corrected"
    assert main(["study", "audits", *s, "--param", "small_max=0.05", "--format", "json"]) == 0
    assert _json(capsys)["derived"]["thresholds"]["small_max"] == 0.05
    assert main(["study", "gk2018", *s, "--method", "corrected"]) == 2
    assert "has no method 'corrected'" in capsys.readouterr().err
    assert main(["study", "nope", *s]) == 2
    assert "no study 'nope'" in capsys.readouterr().err
    assert main(["study", "audits", *s, "--param", "small_max"]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err


def test_empty_store_says_so(tmp_path: Path, capsys: Any) -> None:
    from reprokg.store import open_store

    open_store(tmp_path / "empty").close()
    assert main(["study", "pwc-checklist-2019", "--store", str(tmp_path / "empty")]) == 1
    assert "no data of study pwc-checklist-2019" in capsys.readouterr().out
