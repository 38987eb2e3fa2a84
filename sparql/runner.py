"""Run read queries with a time limit that really stops them, and a cap on result rows.

pyoxigraph cannot interrupt a query from Python once evaluation is inside one ``next()``
(a big join or ORDER BY before the first row), and a thread cannot be killed. So
:class:`ProcessQueryRunner` keeps a small pool of worker processes, each holding a
``pyoxigraph.Store.read_only`` handle; a worker that overruns the limit is killed
(SIGKILL) and replaced in the background while the other workers go on serving.

What the workers open. pyoxigraph calls reading a directory that another process is
writing "undefined behaviour", and measured here it is: a worker reopening the live
directory under a steady write load failed with ``Corruption: … .sst: No such file``
and hung once. So for a store this process writes (:class:`Snapshots`), the runner
makes an immutable RocksDB checkpoint (``Store.backup``: hard links, 40–180 ms at 1M
triples) whenever the write-ahead log changed since the last one, and workers open
that; old checkpoints are deleted once no worker uses them. Every write appends to the
WAL, so a client that updates and then queries reads its own write. The price, measured
at 1M triples: the checkpoint (40–180 ms) and a reopen (30–55 ms) on the first query
after a write, and a colder cache for that worker's next few queries; with no writes
nothing is reopened. A store opened read-only (several uvicorn workers, nobody
writing through the service) is opened in place and reopened when its files change.

:class:`InlineQueryRunner` is the fallback for stores without a local directory (the
remote backend, in-memory test stores): it calls ``Store.query(timeout=...)``, whose
limit is best effort.

Results cross the process boundary as plain tuples and become rdflib terms here, so
the service serialises one shape (:mod:`reprokg.store.base` results) whatever ran them.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.term import Identifier

from reprokg.core.errors import Busy, QuerySyntaxError, QueryTimeout, StoreError
from reprokg.core.pool import JobCrashed, JobTimeout, PoolBusy, PoolError, Worker, WorkerPool
from reprokg.core.settings import Settings
from reprokg.store.base import (
    AskResult,
    Checkpoints,
    Counters,
    GraphResult,
    QueryResult,
    SelectResult,
    Store,
)

_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"


@dataclass(frozen=True)
class QueryJob:
    """One read query and the dataset it runs on."""

    sparql: str
    default_graph_uris: tuple[str, ...] = ()
    named_graph_uris: tuple[str, ...] = ()
    #: the query names its own dataset (FROM / FROM NAMED): do not force the union
    query_has_dataset: bool = False
    base_iri: str | None = None


@dataclass
class RunOutcome:
    """A result plus what the caller must tell the client about it."""

    result: QueryResult
    truncated: bool = False
    row_cap: int = 0
    elapsed: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


# --- the worker side -----------------------------------------------------------------


def _dir_signature(path: str, *, wal_only: bool = False) -> tuple[tuple[str, int, int], ...]:
    """Names, sizes and mtimes of a RocksDB directory's files.

    With ``wal_only``: the write-ahead logs (``*.log``; every committed transaction
    appends to one) and the ``MANIFEST`` (changed by bulk loads, which bypass the WAL,
    and by flushes/compactions, which cost a spurious checkpoint but never a stale one).
    """
    try:
        return tuple(
            sorted(
                (e.name, st.st_size, st.st_mtime_ns)
                for e in os.scandir(path)
                if e.name != "LOG"
                and not e.name.startswith("LOG.old")
                and (not wal_only or e.name.endswith(".log") or e.name.startswith("MANIFEST"))
                for st in (e.stat(),)
            )
        )
    except OSError:
        return ()


def _encode(term: Any) -> Any:
    import pyoxigraph as ox

    if term is None:
        return None
    if isinstance(term, ox.NamedNode):
        return term.value
    if isinstance(term, ox.BlankNode):
        return ("b", term.value)
    if isinstance(term, ox.Literal):
        if term.language:
            return ("l", term.value, None, term.language)
        dt = term.datatype.value
        return ("l", term.value, None if dt == _XSD_STRING else dt, None)
    return ("l", str(term), None, None)  # RDF-star triple terms: shown as text


def _execute(store: Any, job: QueryJob, cap: int) -> tuple[str, Any, bool]:
    import pyoxigraph as ox

    kwargs: dict[str, Any] = {"base_iri": job.base_iri}
    if job.default_graph_uris or job.named_graph_uris:
        # Protocol dataset: replaces the query's FROM/FROM NAMED; unnamed parts are empty.
        kwargs["default_graph"] = [ox.NamedNode(u) for u in job.default_graph_uris]
        kwargs["named_graphs"] = [ox.NamedNode(u) for u in job.named_graph_uris]
    elif not job.query_has_dataset:
        # the merged default graph when the store keeps one (a set, each triple once);
        # pyoxigraph's union flag (repeats shared triples) only for a pre-merge store
        from reprokg.store.oxigraph import has_merge, union_kwargs

        kwargs.update(union_kwargs(has_merge(store)))
    res = store.query(job.sparql, **kwargs)
    if isinstance(res, ox.QueryBoolean):
        return ("ask", bool(res), False)
    if isinstance(res, ox.QuerySolutions):
        names = [v.value for v in res.variables]
        n = len(names)
        rows: list[tuple] = []
        truncated = False
        for sol in res:
            if len(rows) >= cap:
                truncated = True
                break
            rows.append(tuple(_encode(sol[i]) for i in range(n)))
        return ("select", (names, rows), truncated)
    triples: list[ox.Triple] = []
    truncated = False
    for t in res:
        if len(triples) >= cap:
            truncated = True
            break
        triples.append(t)
    data = ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES)
    return ("graph", data, truncated)


#: what this worker process has open: (store handle, path, directory signature)
_opened: dict[str, Any] = {"store": None, "path": "", "sig": ()}


def query_job(msg: tuple[QueryJob, int, str, bool]) -> tuple[str, Any]:
    """Run one query in a worker process (:class:`~reprokg.core.pool.WorkerPool` job).

    ``(job, cap, path, live)`` → ``("ok" | "syntax" | "error", payload)``. ``path`` is an
    immutable snapshot (reopened only when the parent names another one) or, with
    ``live``, a directory that may change (reopened when its files changed). The handle
    stays open between jobs: the worker is a long-lived process.
    """
    import pyoxigraph as ox

    job, cap, path, live = msg
    reply: tuple[str, Any] = ("error", "not run")
    for attempt in range(2):
        try:
            now = _dir_signature(path) if live else ()
            if (
                _opened["store"] is None
                or path != _opened["path"]
                or now != _opened["sig"]
                or attempt
            ):
                _opened["store"] = None
                _opened["store"] = ox.Store.read_only(path)
                _opened["path"], _opened["sig"] = path, now
            return ("ok", _execute(_opened["store"], job, cap))
        except SyntaxError as exc:
            return ("syntax", str(exc))
        except OSError as exc:
            reply = ("error", f"{type(exc).__name__}: {exc}")
        except Exception as exc:  # noqa: BLE001 - reported to the parent
            return ("error", f"{type(exc).__name__}: {exc}")
    return reply


# --- the parent side ------------------------------------------------------------------


def _decode(t: Any) -> Identifier | None:
    if t is None:
        return None
    if isinstance(t, str):
        return URIRef(t)
    if t[0] == "b":
        return BNode(t[1])
    _, value, dt, lang = t
    if lang:
        return Literal(value, lang=lang)
    if dt is None:
        return Literal(value)
    # normalize=False: keep the lexical form the engine returned (rdflib would turn
    # "1.0E6"^^xsd:double into "1000000.0").
    return Literal(value, datatype=URIRef(dt), normalize=False)


def _to_result(kind: str, payload: Any) -> QueryResult:
    if kind == "ask":
        return AskResult(bool(payload))
    if kind == "select":
        names, rows = payload
        return SelectResult(list(names), [tuple(_decode(t) for t in row) for row in rows])
    g = Graph()
    if payload:
        g.parse(
            data=payload.decode("utf-8") if isinstance(payload, bytes) else payload, format="nt"
        )
    return GraphResult(g)


class QueryRunner:
    """Runs read queries for the endpoint; subclasses decide where."""

    timeout: float
    row_cap: int

    def run(self, job: QueryJob) -> RunOutcome:
        raise NotImplementedError

    def close(self) -> None:
        """Stop workers."""


def _remove_orphans(base: Path) -> None:
    """Delete checkpoint folders of server processes that died without cleaning up."""
    if not base.is_dir():
        return
    for d in base.iterdir():
        if not d.name.isdigit():
            continue
        try:
            os.kill(int(d.name), 0)
        except ProcessLookupError:
            shutil.rmtree(d, ignore_errors=True)
        except PermissionError:  # someone else's live process
            pass


class Snapshots:
    """Immutable checkpoints of a store this process writes, for read-only workers.

    :meth:`current` returns the newest checkpoint directory, making a new one first when
    the store's write-ahead log changed since the last (so every committed write is in
    the checkpoint a later query opens). :meth:`collect` deletes checkpoints no worker
    has open. Checkpoints live next to the database (hard links need one file system):
    ``<db>.sparql-snapshots/<pid>/``.
    """

    def __init__(self, store: Store, root: str | os.PathLike[str] | None = None) -> None:
        if not isinstance(store, Checkpoints) or store.path is None:
            raise StoreError("snapshots need a store on disk that makes checkpoints")
        self.store = store
        self.db = os.fspath(store.path)
        base = Path(root or f"{self.db}.sparql-snapshots")
        self.root = base / str(os.getpid())
        _remove_orphans(base)
        shutil.rmtree(self.root, ignore_errors=True)
        self.root.mkdir(parents=True)
        self._lock = threading.Lock()
        self._current: str | None = None
        self._sig: tuple = ()
        self._n = 0
        self.made = 0  # checkpoints made (observability, benchmarks)
        atexit.register(self.close)  # a server stopped without closing its runner

    def _signature(self) -> tuple:
        """What changes when the store was written: its version where it keeps one
        (``Counters``: every write through the store, raw bulk writes included, moves it;
        RocksDB's background flushes and compactions do not), else its WAL and MANIFEST."""
        if isinstance(self.store, Counters):
            return ("version", self.store.version())
        return _dir_signature(self.db, wal_only=True)

    def current(self) -> str:
        with self._lock:
            sig = self._signature()
            if self._current is not None and sig == self._sig:
                return self._current
            # Flush first so the checkpoint itself does not switch the WAL (which would
            # look like a write next time); a write landing after ``sig`` is read only
            # makes the next call take one more checkpoint, never a stale one.
            self.store.flush()
            sig = self._signature()
            self._n += 1
            target = self.root / f"snap-{self._n:06d}"
            self.store.checkpoint(target)
            self._current, self._sig = str(target), sig
            self.made += 1
            return self._current

    def collect(self, in_use: set[str]) -> None:
        """Delete checkpoints that are neither current nor open in a worker."""
        with self._lock:
            keep = in_use | ({self._current} if self._current else set())
            for d in self.root.iterdir():
                if str(d) not in keep:
                    shutil.rmtree(d, ignore_errors=True)

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
        with contextlib.suppress(OSError):
            self.root.parent.rmdir()  # only when no other process uses it


class ProcessQueryRunner(QueryRunner):
    """A pool of worker processes over an on-disk pyoxigraph store; overrunning workers die.

    ``source`` is a :class:`Snapshots` (a store this process writes: workers read
    checkpoints) or a directory path (a store nobody writes through this process:
    opened in place, reopened when its files change). ``workers`` processes (default:
    CPU count, at most 4) are started at construction with the ``forkserver`` context
    (no thread state of the server is copied; replacements fork from a warm server) and
    the constructor waits until they are ready (:class:`~reprokg.core.pool.WorkerPool`,
    shared with the service's upload parsing). A request waits for a free worker at
    most ``timeout`` seconds (:class:`Busy` after that); the query then gets
    ``timeout`` seconds (:class:`QueryTimeout` after that, and the worker is killed).
    """

    def __init__(
        self,
        source: Snapshots | str | os.PathLike[str],
        *,
        workers: int | None = None,
        timeout: float = Settings.query_timeout,
        row_cap: int = Settings.row_cap,
        start_method: str = "forkserver",
        start_timeout: float = 120.0,
    ) -> None:
        self.snapshots = source if isinstance(source, Snapshots) else None
        self.path = None if self.snapshots else os.fspath(source)  # type: ignore[arg-type]
        self.timeout = timeout
        self.row_cap = row_cap
        self.size = workers or max(1, min(4, os.cpu_count() or 1))
        self.killed = 0  # workers killed for overrunning (observability, tests)
        self.pool = WorkerPool(
            "reprokg.sparql.runner:query_job",
            size=self.size,
            timeout=timeout,
            start_method=start_method,
            preload_modules=("pyoxigraph",),
            start_timeout=start_timeout,
            name="reprokg-query-worker",
        )

    @property
    def _all(self) -> list[Worker]:
        """The live worker processes (tests look at their pids)."""
        return self.pool.workers()

    def _target(self, w: Worker) -> tuple[str, bool]:
        """The directory the worker must read, and whether it may change under it."""
        if self.snapshots is None:
            assert self.path is not None
            return self.path, True
        snap = self.snapshots.current()
        if w.state.get("snapshot") != snap:
            w.state["snapshot"] = snap
            in_use = {x.state["snapshot"] for x in self.pool.workers() if "snapshot" in x.state}
            self.snapshots.collect(in_use)
        return snap, False

    def run(
        self, job: QueryJob, *, timeout: float | None = None, row_cap: int | None = None
    ) -> RunOutcome:
        limit = self.timeout if timeout is None else timeout
        cap = self.row_cap if row_cap is None else row_cap
        try:
            with self.pool.acquire(limit) as w:
                t0 = time.perf_counter()
                path, live = self._target(w)
                status, payload = self.pool.call(w, (job, cap, path, live), limit)
        except PoolBusy:
            raise Busy(
                f"all {self.size} query workers stayed busy for {limit:g} s; try again",
                headers={"Retry-After": "1"},
            ) from None
        except JobTimeout:
            self.killed += 1
            raise QueryTimeout(f"query stopped after its {limit:g} s time limit") from None
        except JobCrashed as exc:  # the engine died on it (e.g. its parser's stack)
            raise StoreError(f"the query engine's process died on this query ({exc})") from None
        except PoolError as exc:  # out of memory, a closed runner
            raise StoreError(f"query worker failed: {exc}") from None
        elapsed = time.perf_counter() - t0
        if status == "syntax":
            raise QuerySyntaxError(payload)
        if status == "error":
            raise StoreError(payload)
        kind, data, truncated = payload
        return RunOutcome(_to_result(kind, data), truncated, cap, elapsed)

    def close(self) -> None:
        self.pool.close()
        if self.snapshots is not None:
            self.snapshots.close()


class InlineQueryRunner(QueryRunner):
    """Calls ``store.query`` in the calling thread (remote or in-memory stores)."""

    def __init__(
        self,
        store: Store,
        *,
        timeout: float = Settings.query_timeout,
        row_cap: int = Settings.row_cap,
    ) -> None:
        self.store = store
        self.timeout = timeout
        self.row_cap = row_cap

    def run(
        self, job: QueryJob, *, timeout: float | None = None, row_cap: int | None = None
    ) -> RunOutcome:
        limit = self.timeout if timeout is None else timeout
        cap = self.row_cap if row_cap is None else row_cap
        text = job.sparql
        if job.base_iri:
            text = f"BASE <{job.base_iri}>\n{text}"
        t0 = time.perf_counter()
        res = self.store.query(
            text,
            default_graph_uris=job.default_graph_uris,
            named_graph_uris=job.named_graph_uris,
            timeout=limit,
        )
        truncated = False
        if isinstance(res, SelectResult) and len(res.rows) > cap:
            res = SelectResult(res.variables, res.rows[:cap])
            truncated = True
        elif isinstance(res, GraphResult) and len(res.graph) > cap:
            g = Graph()
            for i, t in enumerate(res.graph):
                if i >= cap:
                    break
                g.add(t)
            res, truncated = GraphResult(g), True
        return RunOutcome(res, truncated, cap, time.perf_counter() - t0)


def runner_for(
    store: Store, *, timeout: float, row_cap: int, workers: int | None = None
) -> QueryRunner:
    """Worker processes for an on-disk pyoxigraph store (reading checkpoints when this
    process writes it, the directory itself when it is opened read-only), else inline."""
    path = store.path if isinstance(store, Checkpoints) else None
    if path is not None and os.path.isdir(path):
        source: Snapshots | str | os.PathLike[str] = path if store.read_only else Snapshots(store)
        return ProcessQueryRunner(source, workers=workers, timeout=timeout, row_cap=row_cap)
    return InlineQueryRunner(store, timeout=timeout, row_cap=row_cap)


__all__ = [
    "InlineQueryRunner",
    "ProcessQueryRunner",
    "QueryJob",
    "QueryRunner",
    "RunOutcome",
    "Snapshots",
    "runner_for",
]
