"""``reprokg intrinsic-dimension``: the issue's JSON, the table, --save on a real embedded
store queried back, clean errors, and the progress bar (terminals only)."""

from __future__ import annotations

import io
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from reprokg.cli import main
from reprokg.cli.intrinsic_dimension import ProgressBar
from reprokg.intrinsic_dimension import intrinsic_dimension
from reprokg.store import open_store

KEYS = [
    "n",
    "d",
    "observable_diameter",
    "discriminability",
    "id",
    "exact",
    "bounds",
    "features",
    "hops",
    "warnings",
]
WORKED_CSV = "f1,f2,f3,label\n0,0,1,a\n1,0.5,1,a\n2,1,1,b\n3,4,1,b\n4,4.5,1.2,c\n5,5,6,c\n"


@pytest.fixture()
def worked(tmp_path: Path) -> Path:
    p = tmp_path / "worked.csv"
    p.write_text(WORKED_CSV)
    return p


def _json(argv: list[str], capsys) -> dict:
    assert main(["intrinsic-dimension", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_worked_example_json(worked: Path, capsys) -> None:
    out = _json([str(worked), "--columns", "f1,f2,f3"], capsys)
    assert list(out) == KEYS
    assert out["observable_diameter"] == 5.0
    assert math.isclose(out["discriminability"], 0.55, rel_tol=1e-12)
    assert math.isclose(out["id"], 3.305785123966942, rel_tol=1e-12)
    assert out["exact"] is True and out["bounds"] is None and out["features"] is None


def test_worked_example_bounds_and_features(worked: Path, capsys) -> None:
    out = _json(
        [str(worked), "--columns", "f1", "f2", "f3", "--support", "2", "--features"], capsys
    )
    assert out["exact"] is False and out["id"] is None
    assert out["bounds"]["support"] == [2, 6]
    out = _json([str(worked), "--columns", "f1,f2,f3", "--features", "--score", "range"], capsys)
    assert [out["features"][f]["delta"] for f in ("f1", "f2", "f3")] == pytest.approx(
        [0.5, 0.5, 0.17333333333333334], rel=1e-12
    )
    assert out["features"]["f3"]["rank"] == 1
    assert out["features"]["f3"]["id"] == pytest.approx(33.284024, rel=1e-7)


def test_support_with_exact_refines(tmp_path: Path, capsys) -> None:
    X = np.random.default_rng(3).normal(size=(300, 4))
    np.save(tmp_path / "g.npy", X)
    out = _json([str(tmp_path / "g.npy"), "--support", "12", "--exact"], capsys)
    assert out["exact"] is True and out["bounds"] is not None
    assert math.isclose(out["id"], intrinsic_dimension(X), rel_tol=1e-12)
    lo, hi = out["bounds"]["id"]
    assert lo <= out["id"] <= hi


def test_hops_from_an_edge_file(tmp_path: Path, capsys) -> None:
    X = np.random.default_rng(2).normal(size=(30, 3))
    np.save(tmp_path / "x.npy", X)
    (tmp_path / "e.csv").write_text(
        "src,dst\n" + "".join(f"{i},{(i + 1) % 30}\n" for i in range(30))
    )
    out = _json(
        [str(tmp_path / "x.npy"), "--hops", "2", "--graph", str(tmp_path / "e.csv")], capsys
    )
    assert list(out["hops"]) == ["0", "1", "2"]
    assert out["hops"]["0"] == pytest.approx(out["id"], rel=1e-12)


def test_table_output(worked: Path, capsys) -> None:
    assert main(["intrinsic-dimension", str(worked), "--columns", "f1,f2,f3", "--features"]) == 0
    text = capsys.readouterr().out
    assert "intrinsic dimension  3.30578512396694" in text
    assert "discard curve" in text and "rank" in text
    first = next(ln for ln in text.splitlines() if ln.strip().startswith("1  "))
    assert "f3" in first  # FSCOD ranks the step-like feature first


def test_save_then_query(worked: Path, tmp_path: Path, capsys) -> None:
    store = tmp_path / "store"
    argv = ["intrinsic-dimension", str(worked), "--columns", "f1,f2,f3", "--features"]
    assert main([*argv, "--save", "--store", str(store), "--dataset", "10.1000/Worked"]) == 0
    err = capsys.readouterr().err
    assert re.match(r"added: [0-9a-f]{8,} https://w3id.org/reprokg/id/intrinsic-dimension/", err)
    assert main([*argv, "--save", "--store", str(store), "--dataset", "10.1000/Worked"]) == 0
    assert capsys.readouterr().err.startswith("unchanged: ")
    assert (
        main(
            [
                "query",
                "--store",
                str(store),
                "--name",
                "datasets-by-intrinsic-dimension",
                "--param",
                "min=3.3",
                "--format",
                "json",
            ]
        )
        == 0
    )
    [row] = json.loads(capsys.readouterr().out)["results"]["bindings"]
    assert row["dataset"]["value"] == "https://doi.org/10.1000/worked"
    assert float(row["id"]["value"]) == pytest.approx(3.305785123966942, rel=1e-15)
    with open_store(store, read_only=True) as s:
        assert len(s.documents()) == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "non-numeric column(s) ['label']"),
        (["--columns", "f1,nope"], "no such column(s) ['nope']"),
        (["--hops", "1"], "--hops K and --graph EDGES go together"),
        (["--support", "1"], "--support needs at least 2 points"),
        (["--dataset", "cora"], "neither a DOI"),
    ],
)
def test_errors_are_one_line(worked: Path, argv: list[str], message: str, capsys) -> None:
    assert main(["intrinsic-dimension", str(worked), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and message in err
    assert err.startswith("reprokg intrinsic-dimension: ")


def test_missing_file(tmp_path: Path, capsys) -> None:
    assert main(["intrinsic-dimension", str(tmp_path / "nope.csv")]) == 2
    assert "nope.csv: no such file" in capsys.readouterr().err


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_progress_bar_only_on_a_terminal_and_only_when_long() -> None:
    quiet = ProgressBar(_Stream(False), delay=0.0, interval=0.0)
    quiet("exact", 5, 10)
    quiet.close()
    assert quiet.stream.getvalue() == ""
    short = ProgressBar(_Stream(True), delay=3600.0)
    short("exact", 5, 10)
    short.close()
    assert short.stream.getvalue() == ""
    bar = ProgressBar(_Stream(True), delay=0.0, interval=0.0, width=10)
    bar("support", 5, 10)
    bar("support", 10, 10)
    bar.close()
    text = bar.stream.getvalue()
    assert "\r   support [#####     ]  50.0%" in text
    assert "[##########] 100.0%" in text and text.endswith("\n")


def test_an_npy_needs_numpy_alone(tmp_path: Path) -> None:
    """As users run it: reading an .npy and computing its ID loads neither pandas nor scipy
    nor rdflib (a CSV loads pandas, --hops scipy, --save the store)."""
    import subprocess
    import sys

    np.save(tmp_path / "x.npy", np.random.default_rng(0).normal(size=(50, 3)))
    code = (
        "import sys, contextlib, io\n"
        "from reprokg.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['intrinsic-dimension', {str(tmp_path / 'x.npy')!r}]) == 0\n"
        "print(sorted(m for m in ('pandas', 'scipy', 'rdflib', 'pyoxigraph') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_saved_data_set_keeps_the_name_it_is_given(worked: Path, tmp_path: Path) -> None:
    """``--dataset-name`` is stored as the data set's rk:dataSetName (what the
    /intrinsic-dimension page titles the estimate by, issue 41)."""
    store = tmp_path / "store"
    argv = ["intrinsic-dimension", str(worked), "--columns", "f1,f2,f3", "--save"]
    argv += ["--store", str(store), "--dataset", "10.1000/Worked", "--dataset-name", "Worked"]
    assert main(argv) == 0
    with open_store(str(store), read_only=True) as s:
        names = s.query(
            "SELECT ?n WHERE { <https://doi.org/10.1000/worked> "
            "<https://w3id.org/reprokg/ontology#dataSetName> ?n }"
        ).rows
    assert [str(n) for (n,) in names] == ["Worked"]
