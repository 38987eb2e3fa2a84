"""A reader that goes away (``reprokg passport … | head``) ends a command quietly (issue 38):
before, ``BrokenPipeError`` escaped the handler as a traceback on stderr."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

#: the status of a command whose reader closed the pipe (128 + SIGPIPE), or 0 when it had
#: written everything before the reader went
QUIET = (0, 141)


def _reprokg(*args: str, read: int) -> tuple[int, str]:
    """Run ``reprokg ARGS`` with its stdout a pipe we read ``read`` bytes of, then close
    (0: closed before the command writes, as after ``head`` exited); (status, stderr)."""
    env = {**os.environ, "PYTHONPATH": str(REPO.parent)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "reprokg", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdout is not None and proc.stderr is not None
    if read:
        proc.stdout.read(read)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    return proc.wait(timeout=120), err


@pytest.fixture(scope="module")
def passport_store(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding one real survey record (a SIGGRAPH 2014 paper)."""
    from reprokg.ingest import ingest_paths
    from reprokg.store import open_store

    record = shared_data / "replicability_graphics/per_paper/siggraph-2014"
    store_dir = tmp_path_factory.mktemp("passport") / "kg"
    with open_store(store_dir) as store:
        ingest_paths(store, [record / "10.1145-2601097.2601113.json"])
    return store_dir


@pytest.mark.slow  # a command-line process per case
@pytest.mark.parametrize("read", [0, 10], ids=["closed-at-once", "head-c-10"])
def test_passport_into_a_closed_pipe_ends_quietly(passport_store: Path, read: int) -> None:
    status, err = _reprokg(
        "passport", "10.1145/2601097.2601113", "--store", str(passport_store), read=read
    )
    assert status in QUIET, err
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    if not read:
        assert status == 141  # nothing could be written: the shell's SIGPIPE status


@pytest.mark.slow
@pytest.mark.parametrize("read", [0, 10], ids=["closed-at-once", "head-c-10"])
def test_compare_into_a_closed_pipe_ends_quietly(shared_data: Path, read: int) -> None:
    """37 KB of JSON (the real toy runs): the reader leaves while it is written."""
    toy = shared_data / "trec" / "toy"
    status, err = _reprokg(
        "compare",
        "--qrels",
        str(toy / "qrels.toy"),
        "--orig-base",
        str(toy / "run_a"),
        "--rep-base",
        str(toy / "run_c"),
        "--format",
        "json",
        read=read,
    )
    assert status in QUIET, err
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
