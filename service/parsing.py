"""Uploads are parsed and validated in pre-forked worker processes, never in the server.

One upload must not take the service down: a C parser that overflows its stack on a
crafted file, a quadratic loop, a memory blow-up. The input limits
(:mod:`reprokg.loaders.reading.limits`) refuse what we know to be dangerous before any parser sees
it; this is the second wall for what we do not know yet. ``POST /validate`` and
``POST /documents`` hand the raw bytes to :func:`parse_job` in a
:class:`~reprokg.core.pool.WorkerPool` (``parse_workers`` processes, ``parse_timeout``
seconds and ``parse_memory_mb`` of address space each) and get reports and documents back;
the server only writes. A worker that dies or overruns is replaced while the others go on
serving, and the request gets a sentence: 400 (the parser died on this input), 413 (it
needed more time or memory than allowed) or 503 (every worker busy; ``Retry-After``).

``parse_workers = 0`` parses in the request's thread instead (tests, embedding).

``POST /shacl`` (anyone's shapes against anyone's data) is a workload of its own: its own
pool of the same job (``shacl_workers`` processes, ``shacl_timeout``, ``shacl_memory_mb``,
``shacl_wait`` to get one, ``SHACL_NICE``), so that shapes built to run for ever never hold
a worker, or the CPU, that a token holder's upload needs; the error mapping is the same
for both (:meth:`ParsePool._run`, each naming its own settings). ``reprokg shacl`` runs its
validation in such a pool too.

This is the one upload path: every route that reads an uploaded file calls
:meth:`ParsePool.parse` (or, in a worker, :func:`parse_uploads`), which loads each file
with :func:`reprokg.loaders.load_source` and validates the documents.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reprokg.core.document import Document, pack, unpack
from reprokg.core.errors import Busy, ParserCrashed, TooCostly
from reprokg.core.pool import (
    WORKER_NICE,
    JobCrashed,
    JobFailed,
    JobOutOfMemory,
    JobTimeout,
    LazyPool,
    PoolBusy,
    PoolClosed,
    PoolError,
    WorkerPool,
    preload,
)
from reprokg.core.settings import Settings, configure, settings

if TYPE_CHECKING:  # the app starts without the validation engine; workers preload it
    from reprokg.validation.batching import Validated
    from reprokg.validation.report import Report

log = logging.getLogger("reprokg.service")

#: modules the forkserver imports once, so a replacement parse worker starts warm
PRELOAD = ("reprokg.service.parsing", "reprokg.loaders", "reprokg.validation.batching", "yaml")
#: jobs after which a parse worker is replaced by a fresh process (heap fragmentation)
MAX_JOBS = 1_000


@dataclass(frozen=True)
class _Budget:
    """One pool's limits, as its errors name them."""

    workers: int
    timeout: float
    memory_mb: int
    wait: float | None
    #: the settings that hold them, named in the errors
    timeout_setting: str
    memory_setting: str
    #: what the workers do, and what they are called, in sentences
    what: str
    processes: str
    name: str
    nice: int = WORKER_NICE


#: how much lower than an upload's parse worker a SHACL worker's CPU priority is: user
#: shapes may be built to burn the CPU, and a token holder's upload comes first
SHACL_NICE = WORKER_NICE + 10


class ParsePool:
    """The app's parse workers, started on first use (or by :meth:`start` at start-up),
    and beside them the SHACL workers of ``POST /shacl``: a workload of its own (its own
    processes, time, memory and wait: the ``shacl_*`` settings), so anonymous validation
    never holds a worker, or the CPU, an upload needs."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        s = settings
        #: what the workers need of the settings (no secrets cross the pipe)
        self._job_settings = settings.with_(write_token=None, sparql_password="")
        self._parse = _Budget(
            s.parse_workers,
            s.parse_timeout,
            s.parse_memory_mb,
            None,
            "parse_timeout",
            "parse_memory_mb",
            "parsing and validating",
            "parser processes",
            "reprokg-parse-worker",
        )
        self._shacl = _Budget(
            s.shacl_workers,
            s.shacl_timeout,
            s.shacl_memory_mb,
            s.shacl_wait,
            "shacl_timeout",
            "shacl_memory_mb",
            "parsing and validating against the shapes",
            "SHACL processes",
            "reprokg-shacl-worker",
            SHACL_NICE,
        )
        self._workers = LazyPool(lambda: _start(self._parse))
        self._shacl_workers = LazyPool(lambda: _start(self._shacl))

    @property
    def enabled(self) -> bool:
        return self.settings.parse_workers > 0

    def start(self) -> WorkerPool | None:
        """The upload workers, or ``None`` when ``parse_workers`` is 0 (parsed here, by
        choice). Closed (the app stopping), it raises :class:`~reprokg.core.pool.PoolClosed`."""
        return self._workers.get() if self.enabled else None

    def open(self) -> None:
        self._workers.open()
        self._shacl_workers.open()

    def close(self) -> None:
        self._workers.close()
        self._shacl_workers.close()

    def parse(self, sources: Sequence[tuple[str, bytes]], kind: str | None) -> list[Validated]:
        """:func:`parse_uploads` run in a worker (or here when ``parse_workers`` is 0): each
        upload's documents with their reports."""
        out = self._run(self._workers, self._parse, "load", sources, kind)
        if out is None:
            return parse_uploads(sources, kind)
        from reprokg.validation.batching import Validated

        return [Validated(unpack(d), r) for d, r in out]

    def shacl(self, sources: Sequence[tuple[str, bytes]]) -> list[Report]:
        """Any shapes against any data (``sources[0]`` the shapes graph, the rest data
        graphs; ``POST /shacl``), in a SHACL worker (here when ``shacl_workers`` is 0)."""
        out = self._run(self._shacl_workers, self._shacl, "shacl", sources, None)
        return validate_shacl(sources) if out is None else out

    def _run(
        self,
        workers: LazyPool,
        budget: _Budget,
        job: str,
        sources: Sequence[tuple[str, bytes]],
        kind: str | None,
    ) -> Any:
        """:func:`parse_job` in a worker of ``workers``, or ``None`` when the budget has no
        workers. Failures of the worker become the errors a client should see; the job's
        own errors (``LoadError``, ``ShapesError``) come back as themselves."""
        if budget.workers <= 0:
            return None
        try:
            pool = workers.get()
        except PoolClosed as exc:
            raise Busy(f"the {budget.processes} are not available: {exc}") from None
        names = ", ".join(name for name, _ in sources)[:200] or None
        try:
            return pool.run((job, list(sources), kind, self._job_settings))
        except PoolBusy:
            raise Busy(
                f"all {pool.size} {budget.processes} stayed busy for {pool.wait:g} s; try again",
                headers={"Retry-After": "5"},
            ) from None
        except JobTimeout:
            log.warning("%s killed after %gs on %s", budget.name, pool.timeout, names)
            raise TooCostly(
                f"{budget.what} took longer than the limit of {pool.timeout:g} s "
                f"({budget.timeout_setting}); nothing was stored",
                source=names,
                details={"limit": budget.timeout_setting, "limit_value": pool.timeout},
            ) from None
        except JobOutOfMemory:
            mib = budget.memory_mb
            log.warning("%s out of memory on %s", budget.name, names)
            raise TooCostly(
                f"{budget.what} needs more than the memory limit of its process ({mib} MiB); "
                "nothing was stored",
                source=names,
                details={"limit": budget.memory_setting, "limit_value": mib},
            ) from None
        except JobCrashed as exc:
            log.error("%s died on %s: %s", budget.name, names, exc)
            raise ParserCrashed(
                f"the {budget.processes[:-2]} died on this input ({exc}); nothing was "
                "stored, and the service goes on",
                source=names,
            ) from None
        except JobFailed as exc:
            log.error("%s failed on %s: %s", budget.name, names, exc.remote_traceback)
            raise RuntimeError(f"{budget.name} failed: {exc}") from None
        except PoolError as exc:  # closed, or no worker could start
            raise Busy(f"the {budget.processes} are not available: {exc}") from None


def _start(budget: _Budget) -> WorkerPool:
    return WorkerPool(
        "reprokg.service.parsing:parse_job",
        size=budget.workers,
        timeout=budget.timeout,
        wait=budget.wait,
        memory_limit=(budget.memory_mb << 20) or None,
        max_jobs=MAX_JOBS,
        preload_modules=PRELOAD,
        name=budget.name,
        nice=budget.nice,
    )


def load_uploads(sources: Sequence[tuple[str, bytes]], kind: str | None) -> list[Document]:
    """The documents of uploaded ``(file name, bytes)`` (:func:`reprokg.loaders.load_source`
    each; an unknown ``kind`` is refused before any file is read)."""
    from reprokg import loaders

    if kind is not None:
        loaders.loader_for(kind)
    return [doc for name, data in sources for doc in loaders.load_source(name, data, kind)]


def parse_uploads(sources: Sequence[tuple[str, bytes]], kind: str | None) -> list[Validated]:
    """Load and validate uploads, each document with its report."""
    from reprokg.validation.batching import validate

    return validate(load_uploads(sources, kind))


def validate_shacl(sources: Sequence[tuple[str, bytes]]) -> list[Report]:
    """A user's shapes (``sources[0]``) against their data graphs (the rest)."""
    from reprokg.validation.shacl import validate_sources

    return validate_sources(sources)


def parse_job(payload: tuple[Any, ...]) -> Any:
    """The job of the parse workers: ``(job, sources, kind, settings)`` in (the service's
    settings: its input limits, base and engine, which the worker's environment may not
    have). ``job`` ``"load"``: :func:`parse_uploads`, each document packed for the pipe
    (:func:`reprokg.core.document.pack`) with its report out; ``"shacl"``:
    :func:`validate_shacl`'s reports out."""
    job, sources, kind, job_settings = payload
    if job_settings is not None and job_settings != settings():
        configure(job_settings)
    if job == "shacl":
        return validate_shacl(sources)
    return [(pack(v.document), v.report) for v in parse_uploads(sources, kind)]


__all__ = [
    "PRELOAD",
    "ParsePool",
    "load_uploads",
    "parse_job",
    "parse_uploads",
    "preload",
    "validate_shacl",
]
