"""Pre-forked worker processes that run jobs where a crash or a runaway cannot hurt the server.

The mechanism both kinds of untrusted work use: SPARQL queries (:mod:`reprokg.sparql.runner`,
because pyoxigraph cannot interrupt a query from Python) and uploads parsed and validated
for the service (``reprokg.service.parsing.parse_job``, because a parser may crash, loop or eat
memory on hostile input). A :class:`WorkerPool` keeps ``size`` processes, each running a
module-level ``job(payload)`` function (``"module:function"``) in a loop behind its own
pipe:

* processes come from a ``forkserver`` (no thread state of the server is copied;
  replacements fork from a warm server that imported :func:`preload`'s modules once);
* a request waits at most ``wait`` seconds for a free worker (:class:`PoolBusy`), then the
  job gets ``timeout`` seconds; the parent kills an overrunning worker (:class:`JobTimeout`);
* ``memory_limit`` is the worker's address space (``RLIMIT_AS``): an allocation over it fails
  inside the worker (:class:`JobOutOfMemory`) instead of the kernel's OOM killer picking a
  victim, possibly the server;
* ``nice`` lowers the worker's CPU priority: busy workers (a slow parse, a heavy query)
  leave the server's event loop the CPU it needs to answer everyone else at once;
* a worker that dies mid-job (a signal: a C parser's stack overflow) is :class:`JobCrashed`;
  dead, killed and worn-out (``max_jobs``) workers are replaced in the background while the
  others go on serving;
* the job's own exceptions come back pickled as themselves (a ``LoadError`` keeps its file,
  line and column); one that does not pickle is :class:`JobFailed`.

The pool's exceptions are not user errors: each caller turns them into the
:class:`~reprokg.core.errors.ReprokgError` its clients should see (a query that overran is
a 503, an upload that overran is a 413).
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing as mp
import os
import queue
import resource
import signal
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any


class PoolError(Exception):
    """A job did not produce a result (the caller maps it to what its clients see)."""


class PoolBusy(PoolError):
    """Every worker stayed busy for the whole wait."""


class JobTimeout(PoolError):
    """The job overran its time limit; its worker was killed."""


class JobCrashed(PoolError):
    """The worker died during the job (a signal, or ``exit``); ``exitcode`` says how."""

    def __init__(self, message: str, exitcode: int | None = None) -> None:
        super().__init__(message)
        self.exitcode = exitcode


class JobOutOfMemory(PoolError):
    """The job raised ``MemoryError`` under the worker's address-space limit."""


class JobFailed(PoolError):
    """The job raised an exception that could not be sent back as itself."""

    def __init__(self, message: str, remote_traceback: str = "") -> None:
        super().__init__(message)
        self.remote_traceback = remote_traceback


#: how much lower a worker's CPU priority is than the server's (``nice``): with workers
#: at the server's priority, busy workers delay ``/health`` on a loaded machine
#: (benchmarks/README.md#figures-once-quoted-in-code; docs/security.md)
WORKER_NICE = 5

#: modules the forkserver imports once, for every pool of this process (set before the
#: first pool starts the server; a later call only applies to a server not yet running)
_PRELOAD: list[str] = ["__main__"]


def preload(*modules: str) -> None:
    """Have the forkserver import ``modules`` once, so workers fork warm from it."""
    for m in modules:
        if m not in _PRELOAD:
            _PRELOAD.append(m)
    mp.get_context("forkserver").set_forkserver_preload(list(_PRELOAD))


# --- the worker side -----------------------------------------------------------------


def _resolve(target: str) -> Any:
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def _worker_main(conn: Connection, target: str, memory_limit: int | None, nice: int = 0) -> None:
    """Serve payloads until the pipe closes; reply ``(status, value)``.

    ``status``: ``ok`` (the job's return value), ``raise`` (the job's exception, pickled as
    itself), ``memory`` (``MemoryError``) or ``error`` (the text of an exception or value
    that does not pickle).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in the terminal is the server's
    if memory_limit:
        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)
    try:
        job = _resolve(target)
        conn.send(("ready", os.getpid()))
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which gives up
        with contextlib.suppress(OSError):
            conn.send(("error", f"{type(exc).__name__}: {exc}"))
        return
    while True:
        try:
            payload = conn.recv()
        except (EOFError, OSError):
            return
        if payload is None:
            return
        try:
            reply: tuple[str, Any] = ("ok", job(payload))
        except MemoryError:
            reply = ("memory", "MemoryError")
        except RecursionError as exc:  # its traceback is thousands of frames: text only
            reply = ("error", f"RecursionError: {exc}")
        except Exception as exc:  # noqa: BLE001 - sent back to the parent
            reply = ("raise", exc)
        try:
            conn.send(reply)
        except MemoryError:
            conn.send(("memory", "MemoryError while sending the result"))
        except (BrokenPipeError, OSError):
            return
        except Exception as exc:  # noqa: BLE001 - an unpicklable exception or value
            conn.send(("error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"))


# --- the parent side ------------------------------------------------------------------


class Worker:
    """One worker process; ``state`` is the caller's bookkeeping about it (what it has open)."""

    def __init__(
        self, ctx: Any, target: str, memory_limit: int | None, name: str, nice: int = 0
    ) -> None:
        self.conn, child = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(
            target=_worker_main, args=(child, target, memory_limit, nice), daemon=True, name=name
        )
        self.proc.start()
        child.close()
        self.jobs = 0
        self.state: dict[str, Any] = {}

    @property
    def pid(self) -> int | None:
        return self.proc.pid

    def wait_ready(self, timeout: float) -> None:
        """Block until the worker has imported its job and said so (start-up is not charged
        to the first job's time limit)."""
        if not self.conn.poll(timeout):
            self.kill()
            raise PoolError(f"worker did not start within {timeout:g} s")
        msg = self.conn.recv()
        if not (isinstance(msg, tuple) and msg and msg[0] == "ready"):
            self.kill()
            raise PoolError(f"worker failed to start: {msg!r}")

    def kill(self) -> None:
        try:
            self.proc.kill()
            self.proc.join(5)
        finally:
            self.conn.close()

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.send(None)
        self.proc.join(2)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(2)
        self.conn.close()


@dataclass
class PoolStats:
    """Counters for logs, benchmarks and tests."""

    jobs: int = 0
    timeouts: int = 0
    crashes: int = 0
    out_of_memory: int = 0
    recycled: int = 0
    started: int = 0
    #: exit codes of crashed workers (negative: the signal)
    exitcodes: list[int | None] = field(default_factory=list)


class WorkerPool:
    """``size`` warm processes running ``target`` (``"module:function"``) on payloads."""

    def __init__(
        self,
        target: str,
        *,
        size: int = 2,
        timeout: float = 30.0,
        wait: float | None = None,
        memory_limit: int | None = None,
        max_jobs: int = 0,
        start_method: str = "forkserver",
        preload_modules: Iterable[str] = (),
        start_timeout: float = 120.0,
        name: str = "reprokg-worker",
        nice: int = WORKER_NICE,
    ) -> None:
        self.target = target
        self.nice = nice
        self.size = max(1, size)
        self.timeout = timeout
        self.wait = timeout if wait is None else wait
        self.memory_limit = memory_limit
        #: jobs after which a worker is replaced by a fresh one (0: never)
        self.max_jobs = max_jobs
        self.name = name
        self.stats = PoolStats()
        self._ctx = mp.get_context(start_method)
        if start_method == "forkserver":
            preload(target.partition(":")[0], *preload_modules)
        self._idle: queue.Queue[Worker] = queue.Queue()
        self._all: set[Worker] = set()
        self._lock = threading.Lock()
        self._closed = False
        #: replacements starting in the background (:meth:`close` waits for them)
        self._respawns: list[threading.Thread] = []
        started = [self._new_worker() for _ in range(self.size)]
        try:
            for w in started:
                w.wait_ready(start_timeout)
                self._all.add(w)
                self._idle.put(w)
        except PoolError:
            for w in started:
                w.kill()
            raise

    # --- workers ---------------------------------------------------------------------

    def _new_worker(self) -> Worker:
        self.stats.started += 1
        return Worker(self._ctx, self.target, self.memory_limit, self.name, self.nice)

    def _add_worker(self) -> None:
        if self._closed:
            return
        w = self._new_worker()
        try:
            w.wait_ready(120)
        except PoolError:
            return
        with self._lock:
            if self._closed:
                w.stop()
                return
            self._all.add(w)
        self._idle.put(w)

    def _replace(self, dead: Worker, *, graceful: bool = False) -> None:
        with self._lock:
            self._all.discard(dead)
        if graceful:
            dead.stop()
        t = threading.Thread(target=self._add_worker, name=f"{self.name}-respawn", daemon=True)
        with self._lock:
            self._respawns = [r for r in self._respawns if r.is_alive()] + [t]
        t.start()

    def workers(self) -> list[Worker]:
        """The live workers (a snapshot)."""
        with self._lock:
            return list(self._all)

    # --- jobs ------------------------------------------------------------------------

    @contextlib.contextmanager
    def acquire(self, wait: float | None = None) -> Iterator[Worker]:
        """A free worker for the caller's own :meth:`call` (it goes back to the pool after,
        unless a call killed it)."""
        if self._closed:
            raise PoolError("worker pool is closed")
        try:
            w = self._idle.get(timeout=self.wait if wait is None else wait)
        except queue.Empty:
            raise PoolBusy(
                f"all {self.size} workers stayed busy for {self.wait if wait is None else wait:g} s"
            ) from None
        try:
            yield w
        finally:
            if w.state.get("dead"):
                pass
            elif self.max_jobs and w.jobs >= self.max_jobs:
                self.stats.recycled += 1
                self._replace(w, graceful=True)
            else:
                self._idle.put(w)

    def call(self, w: Worker, payload: Any, timeout: float | None = None) -> Any:
        """Run one job on the acquired worker ``w``: its result, its own exception re-raised,
        or a :class:`PoolError`."""
        limit = self.timeout if timeout is None else timeout
        self.stats.jobs += 1
        w.jobs += 1
        try:
            w.conn.send(payload)
            if not w.conn.poll(limit):
                raise TimeoutError
            status, value = w.conn.recv()
        except TimeoutError:
            self.stats.timeouts += 1
            self._discard(w, kill=True)
            raise JobTimeout(f"the job ran past its time limit of {limit:g} s") from None
        except (EOFError, OSError):
            w.proc.join(1)
            code = w.proc.exitcode
            self._discard(w, kill=True)
            self.stats.crashes += 1
            self.stats.exitcodes.append(code)
            how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
            raise JobCrashed(f"the worker process died ({how})", code) from None
        if status == "memory":
            self.stats.out_of_memory += 1
            self._discard(w, kill=False)  # a fresh heap for the next job
            raise JobOutOfMemory(
                f"the job needed more than the worker's memory limit "
                f"({(self.memory_limit or 0) >> 20} MiB)"
            )
        if status == "ok":
            return value
        if status == "raise":
            raise value
        text = str(value)
        raise JobFailed(text.split("\n", 1)[0], text)

    def _discard(self, w: Worker, *, kill: bool) -> None:
        w.state["dead"] = True
        if kill:
            w.kill()
        self._replace(w, graceful=not kill)

    def run(self, payload: Any, *, timeout: float | None = None, wait: float | None = None) -> Any:
        """Run one job on the next free worker (see :meth:`call`)."""
        with self.acquire(wait) as w:
            return self.call(w, payload, timeout)

    def close(self, respawn_wait: float = 10.0) -> None:
        """Stop the workers; a replacement still starting is waited for (up to
        ``respawn_wait`` seconds) and stopped: a process exiting while the forkserver
        hands a new worker its start-up data leaves that worker a traceback on stderr
        (``reprokg shacl`` right after a worker it killed)."""
        self._closed = True
        with self._lock:
            workers = list(self._all)
            self._all.clear()
            respawns = list(self._respawns)
        for w in workers:
            w.stop()
        for t in respawns:
            t.join(respawn_wait)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = [
    "JobCrashed",
    "JobFailed",
    "JobOutOfMemory",
    "JobTimeout",
    "PoolBusy",
    "PoolError",
    "PoolStats",
    "Worker",
    "WorkerPool",
    "preload",
]


class PoolClosed(PoolError):
    """The pool was closed (its app is stopping): no job starts, none runs inline."""


class LazyPool:
    """A :class:`WorkerPool` started on first use, closed with its app and opened again
    when the app starts again (an ASGI lifespan may run more than once per app: a test
    client per request does so). While closed, :meth:`get` raises :class:`PoolClosed`, so
    a caller never falls back to running untrusted work in its own process."""

    def __init__(self, make: Callable[[], WorkerPool]) -> None:
        self._make = make
        self._pool: WorkerPool | None = None
        self._lock = threading.Lock()
        self._closed = False

    def get(self) -> WorkerPool:
        if self._closed:
            raise PoolClosed("the worker processes are closed: the service is stopping")
        if self._pool is None:
            with self._lock:
                if self._pool is None:
                    self._pool = self._make()
        return self._pool

    def open(self) -> None:
        self._closed = False

    def close(self) -> None:
        self._closed = True
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()
