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

out["big_result"] = len(in_child(lambda: b"x" * (8 << 20)).result()) == 8 << 20
from reprokg.core import forked
from reprokg.core.forked import in_child_steps
memory_file = forked._memory_file
forked._memory_file = lambda: None  # no file in memory (not Linux): through the pipe
out["big_result_piped"] = len(in_child(lambda: b"x" * (8 << 20)).result()) == 8 << 20
forked._memory_file = memory_file

# each step arrives as it is yielded: the second waits for a file the parent writes only
# once it has the first (were the steps sent together, the first would never arrive)
import tempfile, time
marker = os.path.join(tempfile.mkdtemp(), "first-step-received")
def two_steps():
    yield os.getpid()
    deadline = time.monotonic() + 30
    while not os.path.exists(marker) and time.monotonic() < deadline:
        time.sleep(0.01)
    yield os.path.exists(marker)
first, second = in_child_steps(two_steps, 2)
out["first_step_elsewhere"] = first.result() != parent
open(marker, "w").close()
out["second_step_after_the_first"] = second.result() is True

# a child that dies after the first step: the second is computed here
def dies_after_one():
    yield "from wherever"
    if os.getpid() != parent:
        os._exit(3)
    yield "second, computed here"
a, b = in_child_steps(dies_after_one, 2)
out["after_dying_mid_way"] = [a.result(), b.result()]

# an exception at a step is that step's and every later step's
def fails_at_first():
    raise ValueError("no run lines")
    yield
errors = []
for step in in_child_steps(fails_at_first, 2):
    try:
        step.result()
    except ValueError as e:
        errors.append(str(e))
out["step_errors"] = errors

# every step discarded: the child is killed once and reaped once; the values computed here
def slow_second():
    yield 1
    if os.getpid() != parent:
        time.sleep(60)
    yield 2
a, b = in_child_steps(slow_second, 2)
a.discard()
b.discard()
out["discarded_steps"] = [a.result(), b.result()]

# every child is reaped: one still exiting when its result was read is reaped later
for later in [in_child(os.getpid) for _ in range(3)]:
    later.result()
deadline = time.monotonic() + 30
while forked._exiting and time.monotonic() < deadline:  # reaped at the next fork
    time.sleep(0.01)
    forked._reap_exited()
out["reaped_later"] = not forked._exiting
for later in [in_child(os.getpid) for _ in range(3)]:
    later.result()
forked.wait_for_children()  # what the command does before it exits
try:
    os.waitpid(-1, os.WNOHANG)
    out["children_left"] = True
except ChildProcessError:
    out["children_left"] = False

# with another thread running, nothing forks: the steps run here, one per value asked for
stop = threading.Event()
thread = threading.Thread(target=stop.wait)
thread.start()
ran = []
def counted():
    ran.append(1)
    yield "a"
    ran.append(2)
    yield "b"
here = in_child_steps(counted, 2)
out["steps_deferred"] = ran == [] and not here[0].forked
out["steps_here"] = [here[0].result(), list(ran), here[1].result(), list(ran)]
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


def _needs_a_fork(outcome: dict) -> None:
    if not outcome["can_fork"]:
        pytest.skip("not Linux, or one CPU: in_child computes in the parent here")


def test_the_docstring_example_runs():
    result = doctest.testmod(forked)
    assert result.attempted >= 1 and result.failed == 0


def test_the_child_computes_on_another_process(outcome: dict):
    _needs_a_fork(outcome)
    assert outcome["forked"] is True
    assert outcome["ran_elsewhere"] is True


def test_what_the_child_cannot_deliver_is_computed_here(outcome: dict):
    # a child that dies without a result, an exception that does not unpickle, a
    # discarded child: the parent's own call answers, with the parent's own exception
    assert outcome["after_the_child_died"] == "computed here"
    assert outcome["odd_error"] == "one and two"
    assert outcome["after_discard"] is True


def test_a_result_larger_than_the_pipe_arrives_whole(outcome: dict):
    # written to a file in memory, or (where there is none) through the pipe
    assert outcome["big_result"] is True
    assert outcome["big_result_piped"] is True


def test_each_step_arrives_as_it_is_yielded(outcome: dict):
    _needs_a_fork(outcome)
    assert outcome["first_step_elsewhere"] is True
    assert outcome["second_step_after_the_first"] is True


def test_steps_the_child_cannot_deliver_are_computed_here(outcome: dict):
    assert outcome["after_dying_mid_way"] == ["from wherever", "second, computed here"]
    assert outcome["step_errors"] == ["no run lines", "no run lines"]
    assert outcome["discarded_steps"] == [1, 2]


def test_without_a_fork_the_steps_run_here_when_asked(outcome: dict):
    assert outcome["steps_deferred"] is True
    assert outcome["steps_here"] == ["a", [1], "b", [1, 2]]


def test_every_child_is_reaped(outcome: dict):
    # the parent reads a result without waiting for the child's exit; none is left behind
    assert outcome["reaped_later"] is True
    assert outcome["children_left"] is False


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
