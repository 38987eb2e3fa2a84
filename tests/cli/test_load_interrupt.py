"""Ctrl+C during ``reprokg load`` says what was written and that a rerun resumes (issue 41).

Before: the load exited 130 without a word. Each document is written whole or not at all
(the batch being written finishes first), and ingest is idempotent (a stored document comes
back ``unchanged``), so the same command again completes the load.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO

RUN = REPO / "examples" / "runs" / "annotated_run_example.txt"
FILES = 200
BATCH = 5
#: blobs one run header keeps: its file as read and its run lines (an attachment)
BLOBS_PER_RUN = 2


@pytest.mark.slow  # a child process loading 200 runs, interrupted, then loaded again
def test_ctrl_c_says_what_was_written_and_a_rerun_resumes(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    text = RUN.read_text()
    for i in range(FILES):  # a different last line: a different document each
        (folder / f"run{i:03}.txt").write_text(text + f"3 Q0 extra{i} 11 0 ipm-repro\n")
    store = tmp_path / "kg"
    argv = [sys.executable, "-m", "reprokg", "load", "-q", "--batch-size", str(BATCH)]
    argv += ["--store", str(store), str(folder)]
    env = {**os.environ, "PYTHONPATH": str(REPO.parent)}
    child = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    # the originals (blobs) of batch k+1 are stored only after batch k's graphs are: more
    # finished blobs than one batch keeps means documents are in the store (a blob being
    # written is a ``.tmp-`` file beside them, not counted)
    blobs = store / "blobs"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and child.poll() is None:
        if blobs.is_dir() and _finished(blobs) > BATCH * BLOBS_PER_RUN:
            break
        time.sleep(0.05)
    assert child.poll() is None, "the load ended before it could be interrupted"
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=120)
    assert child.returncode == 130, err
    said = re.search(r"interrupted: (\d+) new document\(s\) stored in (\S+) before Ctrl\+C", err)
    assert said, err
    stored = int(said.group(1))
    assert said.group(2) == str(store)
    assert 0 < stored < FILES
    assert "run the same command again to resume" in err
    assert "Traceback" not in err

    rerun = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    # every file once: what the interrupted load stored comes back unchanged
    assert f"{FILES - stored} added, {stored} unchanged, 0 revised, 0 rejected" in rerun.stdout
    assert _finished(blobs) == FILES * BLOBS_PER_RUN  # what the trigger above counts on


def _finished(blobs: Path) -> int:
    return sum(1 for p in blobs.rglob("*") if p.is_file() and not p.name.startswith(".tmp-"))
