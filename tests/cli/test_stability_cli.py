"""``reprokg stability`` on an embedded store: table, JSON, charts, --save and the errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reprokg.cli import main
from reprokg.stability.simulate import EXAMPLE_TITLE
from tests.stability.stores import SMALL_TITLE, build_store

pytestmark = pytest.mark.slow  # the stability store its fixture loads


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("stability-cli") / "store"
    build_store(d).close()
    return d


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["stability", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_is_the_analysis_of_the_store(store_dir: Path, capsys) -> None:
    from reprokg.stability.study import analyse_study
    from reprokg.store import open_store

    code, out, _ = _run(
        capsys, "--store", str(store_dir), "--study", SMALL_TITLE, "--format", "json"
    )
    assert code == 0
    printed = json.loads(out)
    with open_store(store_dir, read_only=True) as store:
        assert printed == analyse_study(store, SMALL_TITLE).result.to_json()
    code, out, _ = _run(
        capsys, "--store", str(store_dir), "--study", SMALL_TITLE, "--ml", "--alpha", "0.1",
        "--pair", "a:b", "--format", "json",
    )  # fmt: skip
    ml = json.loads(out)
    assert ml["method"] == "ML" and list(ml["contrasts"]) == ["a - b"]
    assert "alpha = 0.1" in ml["hypotheses"]["H1"]["test"]


def test_table_charts_and_save(store_dir: Path, tmp_path: Path, capsys) -> None:
    charts = tmp_path / "charts"
    argv = ["--store", str(store_dir), "--study", EXAMPLE_TITLE, "--charts", str(charts)]
    code, out, err = _run(capsys, *argv, "--save")
    assert code == 0
    for section in ("Fixed effects", "Variance components", "Random effects (LRT, ranova)",
                    "Type III F test", "Contrasts (a - b)", "Hypotheses", "Warnings"):  # fmt: skip
        assert section in out, section
    assert "m-net-adam-1 - m-net-adam-2" in out
    assert "illustrative (rk:isIllustrative true)" in out
    assert re.search(r"saved stability analysis as [0-9a-f]{8,} \(https://\S+, added\)", err)
    names = {p.name for p in charts.iterdir()}
    assert len(names) == 2 and {n.rsplit(".", 1)[1] for n in names} == {"svg", "png"}
    code, _, err = _run(capsys, *argv, "--save")
    assert code == 0 and ", unchanged)" in err  # the same observations again: idempotent


def test_list(store_dir: Path, capsys) -> None:
    code, out, _ = _run(capsys, "--store", str(store_dir), "--list")
    assert code == 0 and SMALL_TITLE in out and "(illustrative)" in out
    code, out, _ = _run(capsys, "--store", str(store_dir), "--list", "--format", "json")
    assert {s["title"] for s in json.loads(out)} >= {SMALL_TITLE, EXAMPLE_TITLE}


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        ([], "3 stability studies in the store"),
        (["--study", "nope"], "no stability study 'nope'"),
        (["--study", SMALL_TITLE, "--alpha", "1.5"], "alpha must be"),
        (["--study", SMALL_TITLE, "--metric", "f1"], "no observations of metric 'f1'"),
        (["--study", SMALL_TITLE, "--pair", "ab"], "--pair expects A:B"),
    ],
)
def test_errors_are_one_line_and_exit_2(store_dir: Path, capsys, argv, needle) -> None:
    code, out, err = _run(capsys, "--store", str(store_dir), *argv)
    assert code == 2 and out == ""
    assert err.startswith("reprokg stability: ") and needle in err and err.count("\n") == 1
