"""Mistakes fail loudly (issue 41, the first hour round two).

Before: ``query --store <typo>`` made an empty store and answered "(0 rows)" with exit 0;
a load that wrote nothing left an empty store folder; ``stability --list`` on an empty
store printed nothing; a store held by ``reprokg serve`` gave RocksDB's raw
``LOCK: Resource temporarily unavailable``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reprokg.cli import main
from tests.conftest import REPO

RUN = str(REPO / "examples" / "runs" / "reproduced_run.txt")


def _run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_query_of_a_mistyped_store_is_refused_and_makes_no_folder(
    tmp_path: Path, capsys: Any
) -> None:
    typo = tmp_path / "kgg"
    code, out, err = _run(capsys, "query", "--store", str(typo), "ASK {}")
    assert code == 2
    assert out == ""
    assert f"no store at {typo}" in err
    assert "reprokg load" in err  # which commands make one
    assert not typo.exists()


def test_passport_of_a_mistyped_store_is_refused(tmp_path: Path, capsys: Any) -> None:
    typo = tmp_path / "kgg"
    code, _, err = _run(capsys, "passport", "10.1000/x", "--store", str(typo))
    assert code == 2
    assert f"no store at {typo}" in err
    assert not typo.exists()


def test_a_load_with_a_wrong_kind_leaves_no_store(tmp_path: Path, capsys: Any) -> None:
    store = tmp_path / "new" / "kg"
    code, _, err = _run(capsys, "load", "--store", str(store), "--kind", "survey", RUN)
    assert code == 2
    assert "nothing loaded" in err
    assert not (tmp_path / "new").exists()  # the parent it made is gone too


def test_a_load_that_writes_keeps_its_store(tmp_path: Path, capsys: Any) -> None:
    store = tmp_path / "kg"
    code, _, _ = _run(capsys, "load", "--store", str(store), RUN)
    assert code == 0
    assert (store / "oxigraph").is_dir()


def test_stability_list_of_an_empty_store_says_so(tmp_path: Path, capsys: Any) -> None:
    store = tmp_path / "kg"
    _run(capsys, "load", "--store", str(store), RUN)  # a store, with no study
    code, out, err = _run(capsys, "stability", "--list", "--store", str(store))
    assert code == 0
    assert out == ""
    assert f"no stability studies in {store}" in err


def test_a_named_query_with_no_rows_names_its_parameters(tmp_path: Path, capsys: Any) -> None:
    store = tmp_path / "kg"
    _run(capsys, "load", "--store", str(store), RUN)
    code, out, _ = _run(
        capsys,
        *("query", "--store", str(store), "--name", "find-baselines"),
        *("--param", "collection=https://example.org/none", "--param", "measure=map"),
    )
    assert code == 0
    assert "(0 rows: find-baselines with collection=https://example.org/none, measure=map)" in out


@pytest.mark.slow
def test_a_store_another_process_holds_says_who_and_what_works(tmp_path: Path, capsys: Any) -> None:
    store = tmp_path / "kg"
    _run(capsys, "load", "--store", str(store), RUN)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time, pyoxigraph as ox; s = ox.Store(sys.argv[1]); "
            "print('open', flush=True); time.sleep(60)",
            str(store / "oxigraph"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "open\n"
        code, out, err = _run(capsys, "load", "--store", str(store), RUN)
        assert code == 2
        assert f"in use by process {holder.pid}" in err
        assert "POST /documents" in err and "REPROKG_WRITE_TOKEN" in err
        assert "--read-only" in err
        # what the message promises: a read with --read-only works meanwhile
        code, out, _ = _run(capsys, "query", "--read-only", "--store", str(store), "ASK {}")
        assert (code, out.strip()) == (0, "true")
    finally:
        holder.kill()
        holder.wait()
