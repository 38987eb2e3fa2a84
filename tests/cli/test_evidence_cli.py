"""``reprokg evidence load`` walks files as ``reprokg load`` does (tests/cli/test_cli_files.py):
an unreadable file, a named pipe or a file no evidence loader claims is one line naming it,
never a traceback, and every good file is still loaded with its summary."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from reprokg.cli import main
from tests.cli.conftest import make_unreadable
from tests.conftest import REPO

EVIDENCE = REPO / "examples" / "evidence"  # real subsets of the three sources (README there)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def folder(tmp_path: Path, shared_data: Path) -> Path:
    """The ReScience subset and one real results page (a ``.md`` file, which a folder walk
    otherwise leaves out as documentation), with the pages' README beside them."""
    f = tmp_path / "evidence"
    f.mkdir()
    shutil.copy(EVIDENCE / "rescience" / "published.bib", f / "published.bib")
    shutil.copy(shared_data / "artifact_evaluation/sysartifacts/sosp2023-results.md", f)
    (f / "README.md").write_text("# notes\n\n| Badges | Awarded Badges |\n")
    return f


def _sources(out: str) -> list[str]:
    return [json.loads(out)["files"][i]["source"] for i in range(len(json.loads(out)["files"]))]


def test_a_folder_reads_results_pages_and_not_its_readme(capsys, folder: Path) -> None:
    code, out, err = run(capsys, "evidence", "load", "--dry-run", "--format", "json", str(folder))
    assert code == 0, err
    assert _sources(out) == [str(folder / "published.bib"), str(folder / "sosp2023-results.md")]
    assert json.loads(out)["unclaimed"] == []


@pytest.mark.slow
def test_an_unreadable_file_does_not_stop_the_load(
    capsys, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The old walk read files outside any error handling: a ``PermissionError`` traceback
    and nothing stored. (As root a file cannot be made unreadable, so the read fails here as
    it does for a user without the permission.)"""
    locked = folder / "published.bib"
    make_unreadable(monkeypatch, locked)
    store = folder.parent / "kg"
    code, out, err = run(capsys, "evidence", "load", "--store", str(store), str(folder))
    assert code == 2
    assert f"error: {locked}: cannot read file: Permission denied" in err
    assert "Traceback" not in err
    # the results page was still read, summarised and stored
    assert f"{folder / 'sosp2023-results.md'} (artifact-evaluation)" in out
    assert " 0 added" not in out and "rejected" not in err
    code, out, _ = run(capsys, "evidence", "load", "--dry-run", "--format", "json", str(folder))
    assert code == 2
    (error,) = json.loads(out)["errors"]
    assert (
        error["source"] == str(locked) and error["message"] == "cannot read file: Permission denied"
    )


def test_a_named_fifo_is_one_line_and_a_fifo_in_a_folder_is_skipped(capsys, folder: Path) -> None:
    """The old walk called a named pipe "no such file or directory" (``is_file`` is false)
    and would have opened one found in a folder."""
    fifo = folder / "pipe.bib"
    os.mkfifo(fifo)
    code, _, err = run(capsys, "evidence", "load", "--dry-run", str(fifo))
    assert code == 2
    assert f"error: {fifo}: not a regular file but a named pipe (FIFO); expected a file" in err
    assert "no such file" not in err
    code, out, err = run(capsys, "evidence", "load", "--dry-run", str(folder))
    assert code == 0
    assert f"skipped: {fifo}: not a regular file but a named pipe (FIFO); skipped" in err
    assert f"{folder / 'published.bib'} (rescience): 29 record(s)" in out


def test_unclaimed_files_are_named_with_the_loaders_tried(capsys, folder: Path) -> None:
    audit = REPO / "examples" / "audits" / "gcn.yaml"  # a source, but not evidence
    shutil.copy(audit, folder / "gcn.yaml")
    code, out, err = run(capsys, "evidence", "load", "--dry-run", str(folder))
    assert code == 0
    assert (
        "skipped 1 file(s) no loader claims (tried artifact-evaluation, "
        "artifact-availability, rescience, re-execution):" in err
    )
    assert f"  {folder / 'gcn.yaml'}: no loader claims this file" in err
    code, _, err = run(capsys, "evidence", "load", "--dry-run", str(audit))
    assert code == 2
    assert f"error: {audit}: no loader claims this file (tried artifact-evaluation" in err


def test_missing_paths_are_named_before_a_store_is_made(capsys, tmp_path: Path) -> None:
    store = tmp_path / "kg"
    code, _, err = run(
        capsys, "evidence", "load", "--store", str(store), str(tmp_path / "a"), str(tmp_path / "b")
    )
    assert code == 2
    assert f"no such file or directory: {tmp_path / 'a'}, {tmp_path / 'b'}" in err
    assert not store.exists()
