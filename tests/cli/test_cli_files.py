"""``reprokg load`` / ``validate`` never crash or hang on a file, and name every file they
did not load (issue 28 item 9, issue 27's first hour)."""

from __future__ import annotations

import os
import shutil
import socket
import threading
from pathlib import Path

import pytest

from reprokg.cli import main
from tests.cli.conftest import make_unreadable
from tests.conftest import REPO

AUDITS = REPO / "examples" / "audits"  # four real audits of seed 000 (GCN, GraphSAGE, …)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def audits(tmp_path: Path) -> Path:
    folder = tmp_path / "audits"
    shutil.copytree(AUDITS, folder)
    return folder


def _unblock_after(fifo: Path, seconds: float) -> threading.Timer:
    """A safety valve for the old code, which opened the pipe and waited for a writer for
    ever: after ``seconds`` a writer opens and closes it, so the test fails instead of
    hanging (opening read-write does not block on Linux)."""

    def unblock() -> None:
        os.close(os.open(fifo, os.O_RDWR))

    timer = threading.Timer(seconds, unblock)
    timer.daemon = True
    timer.start()
    return timer


def test_validate_of_a_named_fifo_is_one_line_not_a_hang(capsys, tmp_path: Path) -> None:
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    timer = _unblock_after(fifo, 20)
    try:
        code, out, err = run(capsys, "validate", str(fifo))
    finally:
        timer.cancel()
    assert code == 2
    assert f"{fifo}: not a regular file but a named pipe (FIFO); expected a file" in out
    assert "Violation" not in out


def test_load_of_a_named_device_is_one_line(capsys, tmp_path: Path) -> None:
    code, _, err = run(capsys, "load", os.devnull, "--store", str(tmp_path / "kg"))
    assert code == 2
    assert f"error: {os.devnull}: not a regular file but a character device" in err


def test_a_folder_with_special_files_loads_every_good_document(capsys, audits: Path) -> None:
    os.mkfifo(audits / "pipe.yaml")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(audits / "socket.yaml"))
    timer = _unblock_after(audits / "pipe.yaml", 20)
    try:
        code, out, err = run(capsys, "load", str(audits), "--store", str(audits.parent / "kg"))
    finally:
        timer.cancel()
        sock.close()
    assert code == 0, err
    assert "4 added" in out
    assert f"skipped: {audits / 'pipe.yaml'}: not a regular file but a named pipe" in err
    assert f"skipped: {audits / 'socket.yaml'}: not a regular file but a socket" in err


def test_an_unreadable_file_does_not_stop_the_load(
    capsys,
    audits: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The old walk read files outside its error handling: a ``PermissionError`` traceback
    and a part-written load. (As root a file cannot be made unreadable, so the read
    fails here as it does for a user without the permission.)"""
    locked = audits / "gcn.yaml"
    make_unreadable(monkeypatch, locked)
    code, out, err = run(capsys, "load", str(audits), "--store", str(audits.parent / "kg"))
    assert code == 2
    assert "3 added" in out and "1 unreadable source(s)" in out
    assert f"error: {locked}: cannot read file: Permission denied" in err
    code, out, _ = run(
        capsys,
        "query",
        "SELECT (COUNT(DISTINCT ?g) AS ?n) "
        "WHERE { GRAPH ?g { ?g a <https://w3id.org/reprokg/ontology#Document> } }",
        "--store",
        str(audits.parent / "kg"),
        "--format",
        "csv",
    )
    assert out.splitlines()[1] == "3"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_a_file_without_read_permission(capsys, audits: Path) -> None:
    locked = audits / "gcn.yaml"
    locked.chmod(0)
    code, out, err = run(capsys, "validate", str(audits))
    assert code == 2 and f"error: {locked}: cannot read file: Permission denied" in out


def test_unclaimed_files_are_named_and_nothing_loaded_exits_non_zero(
    capsys, tmp_path: Path
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    for i in range(250):
        (folder / f"note{i:03d}.txt").write_text(f"just some words, number {i}\n")
    store = tmp_path / "kg"
    code, out, err = run(capsys, "load", str(folder), "--store", str(store))
    assert code == 2
    assert "skipped 250 file(s) no loader claims (tried run, mlrc, audit" in err
    assert f"  {folder / 'note000.txt'}: no loader claims this file" in err
    assert f"  {folder / 'note009.txt'}" in err and "note010.txt" not in err
    assert "… and 240 more (-v names them all)" in err
    assert "nothing loaded" in err
    code, _, err = run(capsys, "load", str(folder), "--store", str(store), "-v")
    assert code == 2 and sum(f"{folder / 'note'}" in line for line in err.splitlines()) == 250
    code, _, err = run(capsys, "validate", str(folder))
    assert code == 2 and "skipped 250 file(s)" in err and "nothing validated" in err


def test_unclaimed_files_beside_good_ones_are_named(capsys, audits: Path) -> None:
    (audits / "notes.txt").write_text("just some words\n")
    code, out, err = run(capsys, "load", str(audits), "--store", str(audits.parent / "kg"))
    assert code == 0
    assert "4 added" in out and "1 file(s) no loader claims" in out
    assert f"  {audits / 'notes.txt'}: no loader claims this file" in err


def test_load_names_every_missing_path_and_creates_no_store(capsys, tmp_path: Path) -> None:
    store = tmp_path / "kg"
    code, _, err = run(
        capsys, "load", str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml"), "--store", str(store)
    )
    assert code == 2
    assert f"no such file or directory: {tmp_path / 'a.yaml'}, {tmp_path / 'b.yaml'}" in err
    assert not store.exists()


def test_validate_of_a_missing_file_says_it_is_missing(capsys, tmp_path: Path) -> None:
    code, out, err = run(capsys, "validate", str(tmp_path / "missing.txt"))
    assert code == 2
    assert err.strip() == f"reprokg validate: no such file or directory: {tmp_path / 'missing.txt'}"
    assert "Violation" not in out + err


def test_an_audit_of_an_unknown_version_gets_the_audit_loaders_error(
    capsys, tmp_path: Path
) -> None:
    bad = tmp_path / "gcn.yaml"
    bad.write_bytes((AUDITS / "gcn.yaml").read_bytes().replace(b"\naudit: 1\n", b"\naudit: 99\n"))
    code, out, _ = run(capsys, "validate", str(bad))
    assert code == 2
    assert f"{bad}:2 [audit]: 99 is not allowed here; expected one of: 1" in out
    assert "cannot tell" not in out and "no loader claims" not in out


def test_an_unknown_kind_is_refused_before_a_store_is_made(capsys, audits: Path) -> None:
    store = audits.parent / "kg"
    code, _, err = run(capsys, "load", str(audits), "--kind", "nosuch", "--store", str(store))
    assert code == 2 and "no loader for kind 'nosuch'" in err
    assert not store.exists()
