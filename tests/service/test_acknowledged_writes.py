"""Nothing acknowledged is lost: ``kill -9`` of ``reprokg serve`` mid-load, then a restart.

A short run of ``benchmarks/load/acknowledged.py`` (the full one: 16 clients, 5 minutes):
reads, new documents, revisions, deletes and refused writes from several clients, SIGKILL of
the server's process group in the middle, a restart on the same store. Every write answered
201/204 is what the store holds for its key, no refused write is in the store, and the merged
default graph equals a rebuild. No timing is asserted; the run's length only sets how many
requests there are.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.load.acknowledged import run


@pytest.mark.slow
def test_acknowledged_writes_survive_kill_9_mid_load(tmp_path: Path) -> None:
    out = run(
        tmp_path / "kg",
        clients=6,
        seconds=10,
        kill_at=5,
        kill_after=12,
        then=12,
        seed=1,
        log=tmp_path / "log",
    )
    assert out["problems"] == []
    assert out["merge_equals_rebuild"]
    assert out["acknowledged_writes"] > 0 and out["acknowledged_after_restart"] > 0
    checked = out["keys"] - out["keys_uncertain"]
    assert checked > 0 and out["error_answered_writes"] > 0, out
