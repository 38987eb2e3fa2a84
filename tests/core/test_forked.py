"""core/forked: a computation in a forked child gives what the same call gives here.

Each scenario runs in a fresh interpreter: a forked child is only started by a process
with no other Python thread, and pytest's process may hold some.
"""

from __future__ import annotations

import doctest
import json
import subprocess
import sys

import pytest

from reprokg.core import forked

SCENARIOS = r"""
import json, os, threading
from reprokg.core.forked import can_fork, in_child

parent = os.getpid()
out = {"can_fork": can_fork()}

later = in_child(os.getpid)
out["forked"] = later.forked
out["ran_elsewhere"] = later.result() != parent

def dies_in_the_child():
    if os.getpid() != parent:
        os._exit(3)
    return "computed here"
out["after_the_child_died"] = in_child(dies_in_the_child).result()

def fails():
    raise ValueError("run2:7: score: expected a number")
try:
    in_child(fails).result()
except ValueError as e:
    out["error"] = str(e)

class TwoArguments(Exception):
    def __init__(self, a, b):  # unpickling calls it with the message only: it fails
        super().__init__(f"{a} and {b}")
def fails_oddly():
    raise TwoArguments("one", "two")
try:
    in_child(fails_oddly).result()
except TwoArguments as e:
    out["odd_error"] = str(e)

late = in_child(os.getpid)
late.discard()
out["after_discard"] = late.result() == parent

stop = threading.Event()
thread = threading.Thread(target=stop.wait)
thread.start()
calls = []
with_thread = in_child(lambda: calls.append(1) or os.getpid())
out["with_a_thread_forked"] = with_thread.forked
out["deferred_until_asked"] = calls == []
out["with_a_thread_here"] = with_thread.result() == parent and calls == [1]
stop.set()
thread.join()
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def outcome() -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", SCENARIOS], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_the_docstring_example_runs():
    result = doctest.testmod(forked)
    assert result.attempted >= 1 and result.failed == 0


def test_the_child_computes_on_another_process(outcome: dict):
    if not outcome["can_fork"]:
        pytest.skip("not Linux, or one CPU: in_child computes in the parent here")
    assert outcome["forked"] is True
    assert outcome["ran_elsewhere"] is True


def test_what_the_child_cannot_deliver_is_computed_here(outcome: dict):
    # a child that dies without a result, an exception that does not unpickle, a
    # discarded child: the parent's own call answers, with the parent's own exception
    assert outcome["after_the_child_died"] == "computed here"
    assert outcome["odd_error"] == "one and two"
    assert outcome["after_discard"] is True


def test_an_exception_in_the_child_is_raised_here(outcome: dict):
    assert outcome["error"] == "run2:7: score: expected a number"


def test_no_fork_while_another_thread_runs(outcome: dict):
    assert outcome["with_a_thread_forked"] is False
    assert outcome["deferred_until_asked"] is True
    assert outcome["with_a_thread_here"] is True


@pytest.mark.parametrize(
    ("loadavg", "idle"),
    [
        (b"0.52 0.61 0.70 1/183 4242\n", True),  # only this process runnable
        (b"2.10 1.90 2.30 2/190 4242\n", False),  # another task holds the other core
        (b"7.80 8.10 8.00 9/260 4242\n", False),
        (b"garbage\n", True),  # unreadable: as before, fork
    ],
)
def test_cpu_idle_reads_the_runnable_tasks(tmp_path, monkeypatch, loadavg: bytes, idle: bool):
    f = tmp_path / "loadavg"
    f.write_bytes(loadavg)
    monkeypatch.setattr(forked, "LOADAVG", str(f))
    monkeypatch.setattr(forked.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert forked.cpu_idle() is idle


def test_a_missing_load_figure_counts_as_idle(tmp_path, monkeypatch):
    monkeypatch.setattr(forked, "LOADAVG", str(tmp_path / "none"))
    assert forked.cpu_idle() is True


def test_when_idle_on_a_busy_machine_computes_here(monkeypatch):
    monkeypatch.setattr(forked, "can_fork", lambda: True)
    monkeypatch.setattr(forked, "cpu_idle", lambda: False)
    calls = []
    later = forked.in_child(lambda: calls.append(1) or 42, when_idle=True)
    assert later.forked is False and calls == []  # nothing forked, nothing computed yet
    assert later.result() == 42 and calls == [1]
