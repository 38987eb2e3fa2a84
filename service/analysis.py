"""Analyses over HTTP (``/measures/...``) computed in worker processes with a time and a
memory limit, as SPARQL queries and uploads are.

An analysis reads the store's data (the survey, the stability studies, the published
studies) or an uploaded file (intrinsic dimension) and computes with pandas, statsmodels,
scipy, numpy or R: memory and time grow with the data, and an anonymous client chooses
the upload. So a route hands the computation to :class:`Analyses` (the dependency
:data:`AnalysesDep`): ``analyses.run(fn, *args)`` calls ``fn(store, *args)`` in a worker
of a :class:`~reprokg.core.pool.WorkerPool` (``analysis_timeout`` seconds,
``analysis_memory_mb`` of address space), where ``store`` is the data as the SPARQL
workers read it (the current checkpoint, or the directory of a store opened read-only),
opened read-only in the worker. ``fn`` and its result cross the pipe pickled: ``fn`` is a
module-level function (or a method of a registered study). Past the time limit the
worker is killed (503); out of memory or dead, the analysis is a 413; the service goes on.

A store the workers cannot open (a remote endpoint, an in-memory test store) is read in
the request's thread instead, as the SPARQL endpoint does for it.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from typing import Annotated, Any

from fastapi import Depends, Request

from reprokg.core.errors import Busy, QueryTimeout, QueryTooCostly, StoreError
from reprokg.core.pool import (
    JobCrashed,
    JobOutOfMemory,
    JobTimeout,
    LazyPool,
    PoolBusy,
    PoolClosed,
    PoolError,
    WorkerPool,
)
from reprokg.core.settings import Settings

log = logging.getLogger("reprokg.service")

#: analysis workers per server process (each may hold ``analysis_memory_mb``)
WORKERS = 1
#: jobs after which an analysis worker is replaced (pandas and R grow their heaps)
MAX_JOBS = 200

#: the store a worker has open: (path, store)
_opened: dict[str, Any] = {"path": None, "store": None}


def analysis_job(payload: tuple[Callable[..., Any], str | None, tuple, dict]) -> Any:
    """Run one analysis in a worker (a :class:`~reprokg.core.pool.WorkerPool` job):
    ``fn(store, *args, **kwargs)`` with the store at ``path`` opened read-only (kept
    open while the path stays the same), or ``fn(*args, **kwargs)`` without a path."""
    try:
        return _analysis(*payload)
    except (ImportError, OSError) as exc:
        # a library that cannot be mapped into the address space left is out of memory
        if "failed to map segment" in str(exc) or "Cannot allocate memory" in str(exc):
            raise MemoryError(str(exc)) from None
        raise


def _analysis(fn: Callable[..., Any], path: str | None, args: tuple, kwargs: dict) -> Any:
    if path is None:
        return fn(*args, **kwargs)
    if _opened["path"] != path:
        from reprokg.store import open_store

        old, _opened["store"], _opened["path"] = _opened["store"], None, None
        if old is not None:
            with contextlib.suppress(Exception):
                old.close()
        _opened["store"], _opened["path"] = open_store(path, read_only=True), path
    return fn(_opened["store"], *args, **kwargs)


class Analyses:
    """The app's analysis workers, started on first use."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._workers = LazyPool(self._start)

    def _start(self) -> WorkerPool:
        s = self.settings
        return WorkerPool(
            "reprokg.service.analysis:analysis_job",
            size=WORKERS,
            timeout=s.analysis_timeout,
            memory_limit=(s.analysis_memory_mb << 20) or None,
            max_jobs=MAX_JOBS,
            name="reprokg-analysis-worker",
        )

    def open(self) -> None:
        self._workers.open()

    def close(self) -> None:
        self._workers.close()

    def run(self, request: Request, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``fn(store, *args, **kwargs)`` in an analysis worker over the store's data."""
        with _data_path(request) as path:
            if path is None:  # no directory a worker could open: here
                return fn(request.app.state.store, *args, **kwargs)
            return self._call((fn, path, args, kwargs))

    def compute(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` in an analysis worker (no store: an upload's data)."""
        return self._call((fn, None, args, kwargs))

    def _call(self, payload: tuple) -> Any:
        s = self.settings
        try:
            pool = self._workers.get()
        except PoolClosed as exc:
            raise Busy(f"the analysis workers are not available: {exc}") from None
        try:
            return pool.run(payload)
        except PoolBusy:
            raise QueryTimeout(
                f"the analysis worker stayed busy for {pool.wait:g} s; try again",
                headers={"Retry-After": "10"},
            ) from None
        except JobTimeout:
            raise QueryTimeout(
                f"the analysis took longer than its limit of {s.analysis_timeout:g} s "
                "(analysis_timeout) and was stopped"
            ) from None
        except (JobOutOfMemory, JobCrashed) as exc:
            log.warning("analysis worker: %s", exc)
            raise QueryTooCostly(
                f"the analysis needs more than an analysis worker's memory "
                f"({s.analysis_memory_mb} MiB, analysis_memory_mb): {exc}; the service goes on",
                details={"limit": "analysis_memory_mb", "limit_value": s.analysis_memory_mb},
            ) from None
        except PoolError as exc:
            raise StoreError(f"analysis worker failed: {exc}") from None


@contextlib.contextmanager
def _data_path(request: Request) -> Iterator[str | None]:
    """The directory the workers read the store from (the current checkpoint, held
    while the analysis runs, or a read-only store's own directory), else ``None``."""
    from reprokg.sparql.runner import ProcessQueryRunner

    holder = getattr(request.app.state, "query_runner", None)
    runner = holder.get() if holder is not None else None
    if not isinstance(runner, ProcessQueryRunner):
        yield None
    elif runner.snapshots is not None:
        with runner.snapshots.held() as path:
            yield path
    else:
        yield runner.path


class InlineAnalyses:
    """In the request's thread: for an app that mounts our routers without the service's
    workers (tests, embedding)."""

    def run(self, request: Request, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return fn(request.app.state.store, *args, **kwargs)

    def compute(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)


def get_analyses(request: Request) -> Analyses | InlineAnalyses:
    """The app's analysis workers (made by ``create_app``), else in the request's thread."""
    return getattr(request.app.state, "analyses", None) or InlineAnalyses()


#: routes that compute take this dependency (``analyses.run(request, fn, ...)``)
AnalysesDep = Annotated[Analyses | InlineAnalyses, Depends(get_analyses)]


__all__ = ["Analyses", "AnalysesDep", "InlineAnalyses", "analysis_job", "get_analyses"]
