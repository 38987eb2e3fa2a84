"""A computation handed to a forked child process, its result read back when needed.

``reprokg compare`` evaluates four runs with pytrec_eval, which holds the GIL, so threads
cannot share that work (issue 12). A forked child starts with the parent's memory (copied
on write, nothing pickled on the way in), computes on the second core while the parent
goes on, and sends back only its result, pickled through a pipe.

Forking is used only where it is safe and cheap: Linux, at least two usable CPUs and no
other Python thread (a thread holding a lock at the fork would leave it held in the
child). Elsewhere, or when the child dies without a result, the computation runs in the
parent when the result is asked for, so the result never depends on the fork:

>>> later = in_child(lambda: sum(range(10)))
>>> later.result()
45
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

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
    usable CPUs. On a busy machine a forked child only shares this process's core: in
    ``reprokg compare`` at load 2.4-4.3 on two cores it cost +0.18 s of CPU (copy-on-write
    faults, the child's runs pickled back) and +0.45 s of wall time against one process
    (benchmarks/README.md). True where the figure cannot be read."""
    try:
        with open(LOADAVG, "rb") as f:
            runnable = int(f.read().split()[3].split(b"/")[0])
        return runnable < len(os.sched_getaffinity(0))
    except (OSError, ValueError, IndexError, AttributeError):
        return True


class Later(Generic[T]):
    """The result of ``fn``: computed by a forked child, or here when first asked for."""

    def __init__(self, fn: Callable[[], T], pid: int | None = None, fd: int | None = None):
        self._fn = fn
        self._pid = pid
        self._fd = fd
        self._done = False
        self._outcome: tuple[bool, object] = (True, None)

    @property
    def forked(self) -> bool:
        return self._pid is not None

    def result(self) -> T:
        """The value (an exception raised by ``fn`` in the child is raised here)."""
        if not self._done:
            self._outcome = self._collect()
            self._done = True
        ok, value = self._outcome
        if not ok:
            raise value  # type: ignore[misc]
        return value  # type: ignore[return-value]

    def _collect(self) -> tuple[bool, object]:
        if self._pid is None or self._fd is None:
            return self._call()
        chunks = []
        try:
            while chunk := os.read(self._fd, 1 << 20):
                chunks.append(chunk)
        finally:
            os.close(self._fd)
            os.waitpid(self._pid, 0)
        try:
            return pickle.loads(b"".join(chunks))
        except Exception:  # noqa: BLE001 - no result (the child was killed or ran out of
            return self._call()  # memory, or its outcome does not pickle): computed here

    def discard(self) -> None:
        """End the child without reading its result (the parent failed meanwhile); a
        later :meth:`result` computes it here."""
        if not self._done and self._pid is not None and self._fd is not None:
            os.kill(self._pid, signal.SIGKILL)  # it holds nothing to clean up: os._exit
            os.close(self._fd)
            os.waitpid(self._pid, 0)
        self._pid = self._fd = None

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
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, write, and leave without the parent's exit handlers
        try:
            os.close(read_fd)
            payload = _payload(fn)
            view = memoryview(payload)
            while view:
                view = view[os.write(write_fd, view) :]
        finally:
            os._exit(0)
    os.close(write_fd)
    return Later(fn, pid, read_fd)


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
