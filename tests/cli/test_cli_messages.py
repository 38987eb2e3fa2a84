"""Every command that writes says what it wrote and where (issue 27, the first hour).

Before: ``compare --save``, ``evaluate --save``, ``dump -o`` and ``annotate -o`` wrote
silently; ``study --save`` printed its note on stdout, inside the JSON of
``--format json``. The notes go to stderr, so stdout stays the command's data.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from reprokg.cli import main
from tests.conftest import REPO

RUNS = REPO / "examples" / "runs"
ORIGINAL = str(RUNS / "annotated_run_example.txt")
REPRODUCED = str(RUNS / "reproduced_run.txt")
QRELS = str(RUNS / "qrels.toy")


@pytest.fixture
def store(tmp_path: Path) -> str:
    return str(tmp_path / "kg")


def _run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
def test_compare_save_names_the_comparison_and_the_store(store: str, capsys: Any) -> None:
    code, out, err = _run(
        capsys,
        *("compare", "--qrels", QRELS, "--orig-base", ORIGINAL, "--rep-base", REPRODUCED),
        *("--save", "--store", store, "--format", "json"),
    )
    assert code == 0, err
    iri = json.loads(out)["iri"]  # stdout is the JSON alone
    said = re.search(r"saved the comparison as ([0-9a-f]{8,}) \((\S+)\) in the store (\S+)", err)
    assert said and said.group(2) == iri and said.group(3) == store, err
    code, out, err = _run(capsys, "list", "--store", store, "--kind", "comparison")
    assert said.group(1) in out  # the short id, as reprokg list shows it


@pytest.mark.slow
def test_evaluate_save_names_the_evaluation_and_the_store(store: str, capsys: Any) -> None:
    code, out, err = _run(
        capsys,
        "evaluate",
        ORIGINAL,
        "--qrels",
        QRELS,
        "--save",
        "--store",
        store,
        "--format",
        "json",
    )
    assert code == 0, err
    data = json.loads(out)
    assert f"saved the evaluation as {data['id']} ({data['iri']}) in the store {store}" in err


def test_load_dump_restore_and_backup_name_their_files_and_stores(
    store: str, tmp_path: Path, capsys: Any
) -> None:
    code, out, _ = _run(capsys, "load", "--store", store, ORIGINAL)
    assert code == 0 and out.strip().endswith(f"(store: {store})")
    dump = tmp_path / "all.nq"
    code, out, err = _run(capsys, "dump", "--store", store, "-o", str(dump))
    assert code == 0 and out == ""
    assert dump.stat().st_size > 0
    assert f"wrote {dump}: 1 document(s) of the store {store}" in err
    assert f"{dump.stat().st_size:,} bytes of nquads" in err
    code, out, err = _run(capsys, "dump", "--store", store)  # to stdout: the data only
    assert code == 0 and "wrote" not in err and out.startswith("<")
    copy = str(tmp_path / "copy")
    code, out, _ = _run(capsys, "restore", "--store", copy, str(dump))
    assert code == 0 and f"restored {dump} into the store {copy}: 1 document(s)" in out
    target = tmp_path / "snapshot"
    code, out, _ = _run(capsys, "backup", "--store", store, str(target))
    assert code == 0 and f"backup of the store {store} written to {target}" in out


def test_dump_to_an_unwritable_place_says_so(store: str, tmp_path: Path, capsys: Any) -> None:
    _run(capsys, "load", "--store", store, ORIGINAL)
    code, _, err = _run(capsys, "dump", "--store", store, "-o", str(tmp_path / "no" / "x.nq"))
    assert code == 2 and f"cannot write {tmp_path / 'no' / 'x.nq'}" in err


def test_annotate_output_names_the_file(tmp_path: Path, capsys: Any) -> None:
    out_file = tmp_path / "run_a.annotated"
    code, out, err = _run(
        capsys,
        *("annotate", str(RUNS / "run_a"), "--metadata", str(RUNS / "metadata.yaml")),
        *("-o", str(out_file)),
    )
    assert code == 0 and out == ""
    assert out_file.read_text(encoding="utf-8").startswith("# ir_metadata.start")
    assert f"wrote {out_file}: {RUNS / 'run_a'} with its ir_metadata header" in err


@pytest.mark.slow
def test_study_json_stays_json_with_save_and_charts(
    store: str, tmp_path: Path, capsys: Any
) -> None:
    assert main(["load", "--store", store, str(REPO / "examples" / "audits")]) == 0
    capsys.readouterr()
    charts = tmp_path / "charts"
    code, out, err = _run(
        capsys,
        *("study", "audits", "--store", store, "--format", "json"),
        *("--save", "--charts", str(charts)),
    )
    assert code == 0, err
    assert "n_audits" in json.loads(out)  # the note no longer lands inside the JSON
    assert re.search(r"saved audits \(published\) as [0-9a-f]{8,} \(https://", err)
    assert f"in the store {store}" in err
    written = sorted(p.name for p in charts.iterdir())
    assert written and f"wrote {len(written)} chart(s) to {charts}: " in err
    assert all(name in err for name in written)
