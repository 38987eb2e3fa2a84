"""Every command that counts warnings prints them (issue 41).

Before: ``reprokg import`` (even with ``-v``) and ``evidence load`` printed "N warning(s)"
and not the warnings; ``load`` printed every one however many. Now load, import and
evidence load share one helper (``reprokg.cli.base.print_warnings``/``warnings_json``):
the first ten in text and JSON alike, ``--all`` for the rest, and "… and N more (--all)".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reprokg.cli import main
from tests.conftest import REPO

CRATE = REPO / "tests" / "exchange" / "data" / "crates" / "provenance-revsort"
EVIDENCE = REPO / "examples" / "evidence"
RUN = REPO / "examples" / "runs" / "annotated_run_example.txt"


def _run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_import_prints_its_warnings(tmp_path: Path, capsys: Any) -> None:
    store = str(tmp_path / "kg")
    code, out, err = _run(capsys, "import", "rocrate", str(CRATE), "--store", store)
    assert code == 0, err
    # the crate records three executions (CreateAction) and no paper's DOI for any:
    # one "no publication DOI" warning each, named with the action's id
    actions = (CRATE / "ro-crate-metadata.json").read_text().count('"CreateAction"')
    assert actions == 3
    doi = [line for line in err.splitlines() if "Warning:" in line and "publication DOI" in line]
    assert len(doi) == actions
    assert all("ro-crate-metadata.json#" in line for line in doi)
    stated = int(out.rsplit(" warning(s)", 1)[0].rsplit(" ", 1)[-1])
    assert sum("Warning:" in line for line in err.splitlines()) == stated


def test_import_json_carries_the_warnings(tmp_path: Path, capsys: Any) -> None:
    store = str(tmp_path / "kg")
    argv = ["import", "rocrate", str(CRATE), "--store", store, "--format-out", "json"]
    code, out, err = _run(capsys, *argv)
    assert code == 0, err
    data = json.loads(out)  # stdout is one JSON value (the summary line went to stderr)
    assert sum("publication DOI" in w["message"] for w in data["warnings"]) == 3
    assert data["warning_count"] == len(data["warnings"]) + data["warnings_more"]
    assert {d["kind"] for d in data["documents"]} == {"run"} and len(data["documents"]) == 3


@pytest.mark.slow  # loads every example of evidence twice
def test_evidence_load_prints_its_warnings_in_text_and_json(tmp_path: Path, capsys: Any) -> None:
    store = str(tmp_path / "kg")
    code, out, err = _run(capsys, "evidence", "load", "--store", store, str(EVIDENCE))
    assert code == 0, err
    # examples/evidence/rescience/published.bib, entry Weinman:2020: code_doi = {11084/23333}
    assert "{11084/23333}" in (EVIDENCE / "rescience" / "published.bib").read_text()
    assert any(
        "Warning:" in line and "Weinman:2020" in line and "'11084/23333' is not a DOI" in line
        for line in err.splitlines()
    )
    argv = ["evidence", "load", "--store", store, str(EVIDENCE), "--format", "json"]
    code, out, err = _run(capsys, *argv)
    data = json.loads(out)
    assert any("'11084/23333' is not a DOI" in w["message"] for w in data["warnings"])


def test_more_than_ten_warnings_show_ten_and_say_how_to_see_the_rest(
    tmp_path: Path, capsys: Any
) -> None:
    # twelve copies of a run whose header tag (bm25+rm3) is not its lines' (ipm-repro):
    # one warning each, twelve in all
    text = RUN.read_text()
    assert "tag: bm25+rm3" in text and text.rstrip().endswith("ipm-repro")
    folder = tmp_path / "runs"
    folder.mkdir()
    for i in range(12):
        (folder / f"run{i:02}.txt").write_text(text + f"3 Q0 extra{i} 11 0 ipm-repro\n")
    store = str(tmp_path / "kg")
    code, out, err = _run(capsys, "load", "-q", "--store", store, str(folder))
    assert code == 0, err
    warned = [line for line in err.splitlines() if "Warning: tag:" in line]
    assert len(warned) == 10
    assert "… and 2 more (--all)" in err.splitlines()
    code, out, err = _run(capsys, "load", "-q", "--all", "--store", store, str(folder))
    assert sum("Warning: tag:" in line for line in err.splitlines()) == 12
    assert "more (--all)" not in err
