"""A computation handed to a forked child process, its result read back when needed.

``reprokg compare`` evaluates four runs with pytrec_eval, which holds the GIL, so threads
cannot share that work on two cores. A forked child starts with the parent's memory (copied
on write, nothing pickled on the way in), computes on the second core while the parent
goes on, and sends back only its result, pickled into a file in memory (closing its end of
a pipe says it is written). :func:`in_child_steps` sends back each value a generator yields
as soon as it is yielded: ``reprokg compare``'s child hands back the advanced runs it read,
then goes on to compute their side of the comparison.

Forking is used only where it is safe and cheap: Linux, at least two usable CPUs and no
other Python thread (a thread holding a lock at the fork would leave it held in the
child). Elsewhere, or when the child dies without a result, the computation runs in the
parent when the result is asked for, so the result never depends on the fork:

>>> later = in_child(lambda: sum(range(10)))
>>> later.result()
45
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from functools import partial
from typing import Generic, TypeVar, cast

T = TypeVar("T")


def can_fork() -> bool:
    """Whether :func:`in_child` forks here (else it defers the call to the parent)."""
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return False
    if threading.active_count() != 1:
        return False
    return len(os.sched_getaffinity(0)) >= 2


#: the kernel's load figures; the fourth field is "runnable tasks/all tasks", right now
LOADAVG = "/proc/loadavg"


def cpu_idle() -> bool:
    """Whether a CPU is free right now: fewer runnable tasks (this one included) than
    usable CPUs. On a busy machine a forked child only shares this process's core, and
    costs CPU and wall time against one process (copy-on-write faults, the child's runs
    pickled back; benchmarks/README.md#figures-once-quoted-in-code). True where the figure cannot be
    read."""
    try:
        with open(LOADAVG, "rb") as f:
            runnable = int(f.read().split()[3].split(b"/")[0])
        return runnable < len(os.sched_getaffinity(0))
    except (OSError, ValueError, IndexError, AttributeError):
        return True


class Later(Generic[T]):
    """The result of ``fn``: computed by a forked child, or here when first asked for."""

    def __init__(
        self,
        fn: Callable[[], T],
        child: _Child | None = None,
        fd: int | None = None,
        shared: int | None = None,
    ):
        self._fn = fn
        #: the child computing it (shared by the results of its steps)
        self._child = child
        self._fd = fd
        #: the file in memory the child writes this result to (else the pipe carries it)
        self._shared = shared
        self._done = False
        self._outcome: tuple[bool, object] = (True, None)

    @property
    def forked(self) -> bool:
        return self._child is not None

    def result(self) -> T:
        """The value (an exception raised by ``fn`` in the child is raised here)."""
        if not self._done:
            self._outcome = self._collect()
            self._done = True
        ok, value = self._outcome
        if not ok:
            assert isinstance(value, BaseException)  # _collect's failure is the child's exception
            raise value
        return cast(T, value)  # the child's fn returned a T

    def _collect(self) -> tuple[bool, object]:
        if self._child is None or self._fd is None:
            return self._call()
        chunks = []
        try:
            while chunk := os.read(self._fd, 1 << 20):  # to its end: the result is written
                chunks.append(chunk)
            if not chunks and self._shared is not None:
                size = os.fstat(self._shared).st_size
                chunks.append(os.pread(self._shared, size, 0) if size else b"")
        finally:
            self._close()
            self._child.reap()
        try:
            return pickle.loads(b"".join(chunks))
        except Exception:  # noqa: BLE001 - no result (the child was killed or ran out of
            return self._call()  # memory, or its outcome does not pickle): computed here

    def discard(self) -> None:
        """End the child without reading its result (the parent failed meanwhile); a
        later :meth:`result` computes it here."""
        if not self._done and self._child is not None and self._fd is not None:
            self._child.kill()
            self._close()
        self._child = self._fd = None

    def _close(self) -> None:
        for fd in (self._fd, self._shared):
            if fd is not None:
                os.close(fd)
        self._shared = None

    def _call(self) -> tuple[bool, object]:
        try:
            return True, self._fn()
        except Exception as e:  # noqa: BLE001 - raised by result(), as the child's is
            return False, e


def in_child(fn: Callable[[], T], *, when_idle: bool = False) -> Later[T]:
    """Start ``fn()`` in a forked child; its result is ``.result()`` of the return value.

    ``fn`` must not change anything the parent relies on (the child's changes to memory,
    open files or the store are not the parent's). Its result and its exception travel
    pickled; one that does not pickle is computed again by the parent. ``when_idle``:
    fork only while a CPU is free (:func:`cpu_idle`), else compute here when asked.
    """
    if not can_fork() or (when_idle and not cpu_idle()):
        return Later(fn)

    def one() -> Iterator[T]:
        yield fn()

    return cast(Later[T], _fork(one, 1, fallback=[fn])[0])


def in_child_steps(
    steps: Callable[[], Iterator[object]], count: int, *, when_idle: bool = False
) -> list[Later[object]]:
    """The first ``count`` values the generator ``steps()`` yields, computed by one forked
    child: each is sent back as soon as it is yielded, so the parent can use the first
    while the child computes the next. What the child does not deliver (it died, a value
    does not pickle) is computed here by running ``steps()`` again, as far as needed;
    without a fork, ``steps()`` runs here, one step per value asked for. An exception at a
    step is that step's (and every later step's) result.
    """
    here = _Steps(steps)
    fallback: list[Callable[[], object]] = [partial(here.value, i) for i in range(count)]
    if not can_fork() or (when_idle and not cpu_idle()):
        return [Later(f) for f in fallback]
    return _fork(steps, count, fallback)


class _Steps:
    """``steps()`` run in this process, step by step, each value kept."""

    def __init__(self, steps: Callable[[], Iterator[object]]):
        self._steps = steps
        self._it: Iterator[object] | None = None
        self._values: list[object] = []
        self._error: Exception | None = None

    def value(self, i: int) -> object:
        if self._it is None:
            self._it = iter(self._steps())
        while len(self._values) <= i:
            if self._error is not None:
                raise self._error
            try:
                self._values.append(next(self._it))
            except StopIteration:
                self._error = ValueError(f"the steps gave {len(self._values)} values, not {i + 1}")
            except Exception as e:  # noqa: BLE001 - this step's and every later step's
                self._error = e
        return self._values[i]


def _fork(
    steps: Callable[[], Iterator[object]], count: int, fallback: list[Callable[[], object]]
) -> list[Later[object]]:
    _reap_exited()
    shared = [_memory_file() for _ in range(count)]
    pipes = [os.pipe() for _ in range(count)]
    pid = os.fork()
    if pid == 0:  # the child: compute, write, and leave without the parent's exit handlers
        try:
            for read_fd, _ in pipes:
                os.close(read_fd)
            here = _Steps(steps)
            for i, (_, write_fd) in enumerate(pipes):
                payload = _payload(partial(here.value, i))
                view = memoryview(payload)
                out = write_fd if shared[i] is None else shared[i]
                while view:
                    # shared[i] is an fd when not None
                    view = view[os.write(out, view) :]  # type: ignore[arg-type]
                # this step's end now, not when the child exits (and the kernel has taken
                # down its copy of the parent's memory)
                os.close(write_fd)
        finally:
            os._exit(0)
    for _, write_fd in pipes:
        os.close(write_fd)
    child = _Child(pid)
    return [Later(fallback[i], child, read_fd, shared[i]) for i, (read_fd, _) in enumerate(pipes)]


def _memory_file() -> int | None:
    """A file in memory for a child's result (Linux): written at once, where a pipe holds
    a pipe's buffer until the parent reads it (a run's result crosses in many steps)."""
    try:
        return os.memfd_create("reprokg-result", os.MFD_CLOEXEC)
    except (AttributeError, OSError):
        return None


class _Child:
    """A forked child: killed at most while it runs, reaped once (its pid may be another
    process's afterwards)."""

    def __init__(self, pid: int):
        self.pid = pid
        self.reaped = False

    def kill(self) -> None:
        """End it at once (it holds nothing to clean up: it leaves with ``os._exit``)."""
        if not self.reaped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self.reap()

    def reap(self) -> None:
        """Collect its exit status if it has exited, else later: a child that has sent its
        result is still taking down its copy of this process's memory for a few ms, and
        the parent need not wait for that."""
        if self.reaped:
            return
        try:
            done, _ = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            done = self.pid  # reaped elsewhere
        if done:
            self.reaped = True
            _exiting.discard(self)
        else:
            _exiting.add(self)


#: children whose result was read but that had not exited yet (reaped later)
_exiting: set[_Child] = set()


def _reap_exited() -> None:
    """Reap the children left exiting (no zombies build up in a long-lived process)."""
    for child in list(_exiting):
        child.reap()


def wait_for_children() -> None:
    """Wait for the children still exiting: for a process about to exit, so none is left to
    init and their CPU time is counted with the process's own (``wait4``, ``time``)."""
    while _exiting:
        child = _exiting.pop()
        if not child.reaped:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(child.pid, 0)
            child.reaped = True


def _payload(fn: Callable[[], object]) -> bytes:
    """The pickled outcome of ``fn()``; empty (the parent computes it) when it does not
    pickle, so the parent raises the very exception a call in the parent raises."""
    try:
        outcome: tuple[bool, object] = (True, fn())
    except Exception as e:  # noqa: BLE001 - sent to the parent, which raises it
        outcome = (False, e)
    try:
        payload = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
        if not outcome[0]:
            pickle.loads(payload)  # an exception must also unpickle (its args may not fit)
    except Exception:  # noqa: BLE001
        return b""
    return payload
