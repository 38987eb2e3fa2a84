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
makes an immutable RocksDB checkpoint (``Store.backup``: hard links) whenever the write-ahead log
changed since the last one, and workers open that; old checkpoints are deleted once no worker uses
them. Every write appends to the WAL, so a client that updates and then queries reads its own write.
The price (benchmarks/README.md#figures-once-quoted-in-code): the checkpoint and a reopen on the
first query after a write, and a colder cache for that worker's next few queries; with no writes
nothing is reopened. A store opened read-only (several uvicorn workers, nobody writing through the
service) is opened in place and reopened when its files change.

:class:`InlineQueryRunner` is the fallback for stores without a local directory (the
remote backend, in-memory test stores): it calls ``Store.query(timeout=...)``, whose
limit is best effort.

Results cross the process boundary as plain tuples and become rdflib terms here, so
the service serialises one shape (:mod:`reprokg.store.base` results) whatever ran them.

What a worker bounds, so that no request can hold the server. The SERVICE/LOAD/FROM guard's
rdflib parse runs in the worker, under its time limit
(:func:`reprokg.sparql.guard.inspect_query`; pyparsing takes minutes on a long text:
benchmarks/README.md#figures-once-quoted-in-code). Every answer is cut at
``row_cap`` rows and at ``answer_bytes`` bytes of values, as the rows come from the
engine, so a worker never holds more than that (an uncut answer grew the process tree
several times over); and each worker has ``query_memory_mb`` of address space (``RLIMIT_AS``), so
a value built inside the engine (22 doublings of ``CONCAT``) fails the worker, not the
machine. A worker that dies on a query (a signal) is a 413 for that query.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import shutil
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.term import Identifier

from reprokg.core.errors import (
    Busy,
    QuerySyntaxError,
    QueryTimeout,
    QueryTooCostly,
    Refused,
    StoreError,
)
from reprokg.core.pool import (
    JobCrashed,
    JobOutOfMemory,
    JobTimeout,
    PoolBusy,
    PoolError,
    Worker,
    WorkerPool,
)
from reprokg.core.rdf_parse import parse_rdf
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
from reprokg.store.disk import no_space

log = logging.getLogger("reprokg.sparql")

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
    #: run the SERVICE/FROM guard on the text first, in the worker (the endpoint's
    #: untrusted queries; ``query_has_dataset`` then comes from the guard)
    inspect: bool = False


@dataclass(frozen=True)
class UpdateCheck:
    """An update's SERVICE/LOAD guard, run in a query worker (rdflib's parse, bounded)."""

    sparql: str
    load_allow: tuple[str, ...] = ()


@dataclass(frozen=True)
class AnswerLimits:
    """How much of an answer a worker sends back: rows and bytes of values."""

    rows: int = Settings.row_cap
    bytes: int = Settings.answer_bytes


@dataclass
class RunOutcome:
    """A result plus what the caller must tell the client about it."""

    result: QueryResult
    truncated: bool = False
    row_cap: int = 0
    elapsed: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
    #: the answer was cut at ``answer_bytes`` (``truncated`` is then true as well)
    bytes_cut: bool = False
    answer_bytes: int = 0

    def headers(self) -> dict[str, str]:
        """What the answer says about a cut (the same headers for rows and bytes)."""
        if not self.truncated:
            return {}
        out = {"X-Reprokg-Truncated": "true", "X-Reprokg-Row-Cap": str(self.row_cap)}
        if self.bytes_cut:
            out["X-Reprokg-Byte-Cap"] = str(self.answer_bytes)
        return out


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


def _size(value: Any) -> int:
    """Bytes an encoded term stands for in an answer (its text; a few bytes of markup)."""
    if value is None:
        return 1
    if isinstance(value, str):
        return len(value) + 4
    return sum(len(v) for v in value[1:] if v) + 8


def _execute(store: Any, job: QueryJob, limits: AnswerLimits) -> tuple[str, Any, bool, bool]:
    """Run ``job``: ``(kind, payload, truncated, bytes_cut)``, cut at ``limits`` as the
    rows come (never more than ``limits.bytes`` of values held)."""
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
    cap, budget = limits.rows, limits.bytes
    if isinstance(res, ox.QueryBoolean):
        return ("ask", bool(res), False, False)
    used = 0
    if isinstance(res, ox.QuerySolutions):
        names = [v.value for v in res.variables]
        n = len(names)
        rows: list[tuple] = []
        for sol in res:
            if len(rows) >= cap:
                return ("select", (names, rows), True, False)
            row = tuple(_encode(sol[i]) for i in range(n))
            used += sum(_size(v) for v in row)
            if used > budget:
                return ("select", (names, rows), True, True)
            rows.append(row)
        return ("select", (names, rows), False, False)
    triples: list[ox.Triple] = []
    truncated = cut = False
    for t in res:
        if len(triples) >= cap:
            truncated = True
            break
        used += len(str(t)) + 3
        if used > budget:
            truncated = cut = True
            break
        triples.append(t)
    data = ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES)
    return ("graph", data, truncated, cut)


def _inspected(job: QueryJob) -> QueryJob | tuple[str, str]:
    """``job`` with its dataset flag from the guard, or the guard's refusal."""
    from dataclasses import replace

    from reprokg.sparql.guard import inspect_query

    try:
        info = inspect_query(job.sparql)
    except Refused as exc:
        return ("refused", str(exc))
    except QuerySyntaxError as exc:
        return ("syntax", str(exc))
    return replace(job, inspect=False, query_has_dataset=info.has_dataset)


def _check_update(check: UpdateCheck) -> tuple[str, Any]:
    from reprokg.sparql.guard import inspect_update

    try:
        info = inspect_update(check.sparql, load_allow=check.load_allow)
    except Refused as exc:
        return ("refused", str(exc))
    except QuerySyntaxError as exc:
        return ("syntax", str(exc))
    return ("ok", info)


#: what this worker process has open: (store handle, path, directory signature)
_opened: dict[str, Any] = {"store": None, "path": "", "sig": ()}


def query_job(msg: tuple[QueryJob, AnswerLimits, str, bool] | UpdateCheck) -> tuple[str, Any]:
    """Run one query in a worker process (:class:`~reprokg.core.pool.WorkerPool` job).

    ``(job, limits, path, live)`` → ``("ok" | "syntax" | "refused" | "error", payload)``.
    ``path`` is an immutable snapshot (reopened only when the parent names another one)
    or, with ``live``, a directory that may change (reopened when its files changed). The
    handle stays open between jobs: the worker is a long-lived process. An
    :class:`UpdateCheck` runs the update guard instead (no store needed).
    """
    import pyoxigraph as ox

    if isinstance(msg, UpdateCheck):
        return _check_update(msg)
    job, limits, path, live = msg
    if job.inspect:
        checked = _inspected(job)
        if isinstance(checked, tuple):
            return checked
        job = checked
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
            return ("ok", _execute(_opened["store"], job, limits))
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
        # N-Triples our worker wrote; parsed as any RDF text is
        parse_rdf(payload, "nt", source="the SPARQL worker's answer", graph=g)
    return GraphResult(g)


def _raise_status(status: str, payload: Any) -> None:
    """A worker's refusal as the client's error."""
    if status == "syntax":
        raise QuerySyntaxError(payload)
    if status == "refused":
        raise Refused(payload)
    if status == "error":
        raise StoreError(payload)


class QueryRunner:
    """Runs read queries for the endpoint; subclasses decide where."""

    timeout: float
    row_cap: int
    answer_bytes: int = Settings.answer_bytes

    def run(self, job: QueryJob) -> RunOutcome:
        raise NotImplementedError

    def inspect_update(self, sparql: str, load_allow: tuple[str, ...] = ()) -> Any:
        """The update guard (:func:`reprokg.sparql.guard.inspect_update`) where this runner
        runs queries: an :class:`~reprokg.sparql.guard.Inspection`, or its refusal."""
        from reprokg.sparql.guard import inspect_update

        return inspect_update(sparql, load_allow=load_allow)

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
        self._held: dict[str, int] = {}  # checkpoints an analysis reads
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
            try:
                self.store.flush()
                sig = self._signature()
                self._n += 1
                target = self.root / f"snap-{self._n:06d}"
                self.store.checkpoint(target)
            except (OSError, StoreError) as exc:
                if self._current is None or not no_space(exc):
                    raise
                # a full disk (no room for a checkpoint's files): queries go on reading
                # the last checkpoint; the writes since then were refused or are few
                log.warning("no new query snapshot (%s); reading the previous one", exc)
                return self._current
            self._current, self._sig = str(target), sig
            self.made += 1
            return self._current

    @contextlib.contextmanager
    def held(self) -> Iterator[str]:
        """The current checkpoint, kept from :meth:`collect` while the caller reads it
        (an analysis worker, service/analysis.py)."""
        path = self.current()
        with self._lock:
            self._held[path] = self._held.get(path, 0) + 1
        try:
            yield path
        finally:
            with self._lock:
                self._held[path] -= 1
                if not self._held[path]:
                    del self._held[path]

    def collect(self, in_use: set[str]) -> None:
        """Delete checkpoints that are neither current nor open in a worker."""
        with self._lock:
            keep = in_use | set(self._held) | ({self._current} if self._current else set())
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
        answer_bytes: int = Settings.answer_bytes,
        memory_mb: int = 0,
        start_method: str = "forkserver",
        start_timeout: float = 120.0,
    ) -> None:
        self.snapshots = source if isinstance(source, Snapshots) else None
        # a path when not Snapshots
        self.path = None if self.snapshots else os.fspath(source)  # type: ignore[arg-type]
        self.timeout = timeout
        self.row_cap = row_cap
        self.answer_bytes = answer_bytes
        self.memory_mb = memory_mb
        self.size = workers or max(1, min(4, os.cpu_count() or 1))
        self.killed = 0  # workers killed for overrunning (observability, tests)
        self.pool = WorkerPool(
            "reprokg.sparql.runner:query_job",
            size=self.size,
            timeout=timeout,
            memory_limit=(memory_mb << 20) or None,
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

    def _call(self, payload: Any, limit: float, w: Worker) -> tuple[str, Any]:
        """One job on the acquired worker ``w``; the pool's failures as client errors."""
        try:
            return self.pool.call(w, payload, limit)
        except JobTimeout:
            self.killed += 1
            raise QueryTimeout(f"query stopped after its {limit:g} s time limit") from None
        except (JobCrashed, JobOutOfMemory) as exc:
            # the engine died on it or ran out of its address space: this query's cost
            mib = f" of {self.memory_mb} MiB" if self.memory_mb else ""
            raise QueryTooCostly(
                f"the query engine's process died on this query ({exc}): it needs more than "
                f"a query worker's memory{mib} or stack; the service goes on",
                details={"limit": "query_memory_mb", "limit_value": self.memory_mb},
            ) from None

    def run(
        self, job: QueryJob, *, timeout: float | None = None, row_cap: int | None = None
    ) -> RunOutcome:
        limit = self.timeout if timeout is None else timeout
        limits = AnswerLimits(self.row_cap if row_cap is None else row_cap, self.answer_bytes)
        try:
            with self.pool.acquire(limit) as w:
                t0 = time.perf_counter()
                path, live = self._target(w)
                status, payload = self._call((job, limits, path, live), limit, w)
        except PoolBusy:
            raise Busy(
                f"all {self.size} query workers stayed busy for {limit:g} s; try again",
                headers={"Retry-After": "1"},
            ) from None
        except PoolError as exc:  # a closed runner, a worker that could not start
            raise StoreError(f"query worker failed: {exc}") from None
        elapsed = time.perf_counter() - t0
        _raise_status(status, payload)
        kind, data, truncated, cut = payload
        return RunOutcome(
            _to_result(kind, data),
            truncated,
            limits.rows,
            elapsed,
            bytes_cut=cut,
            answer_bytes=limits.bytes,
        )

    def inspect_update(self, sparql: str, load_allow: tuple[str, ...] = ()) -> Any:
        limit = self.timeout
        try:
            with self.pool.acquire(limit) as w:
                status, payload = self._call(UpdateCheck(sparql, tuple(load_allow)), limit, w)
        except PoolBusy:
            raise Busy(
                f"all {self.size} query workers stayed busy for {limit:g} s; try again",
                headers={"Retry-After": "1"},
            ) from None
        except PoolError as exc:
            raise StoreError(f"query worker failed: {exc}") from None
        _raise_status(status, payload)
        return payload

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
        answer_bytes: int = Settings.answer_bytes,
    ) -> None:
        self.store = store
        self.timeout = timeout
        self.row_cap = row_cap
        self.answer_bytes = answer_bytes

    def run(
        self, job: QueryJob, *, timeout: float | None = None, row_cap: int | None = None
    ) -> RunOutcome:
        limit = self.timeout if timeout is None else timeout
        cap = self.row_cap if row_cap is None else row_cap
        if job.inspect:  # no worker here: a remote or in-memory store (see module doc)
            checked = _inspected(job)
            if isinstance(checked, tuple):
                _raise_status(*checked)
            else:
                job = checked
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
        res, truncated, cut = cut_answer(res, cap, self.answer_bytes)
        return RunOutcome(
            res,
            truncated,
            cap,
            time.perf_counter() - t0,
            bytes_cut=cut,
            answer_bytes=self.answer_bytes,
        )


def cut_answer(res: QueryResult, rows: int, nbytes: int) -> tuple[QueryResult, bool, bool]:
    """``res`` cut at ``rows`` rows (triples) and ``nbytes`` bytes of values, the way a
    worker cuts: ``(result, truncated, bytes_cut)``. For answers already in memory (an
    inline or remote store, a named query): what the client gets stays bounded."""
    if isinstance(res, SelectResult):
        kept: list = []
        used = 0
        for row in res.rows:
            if len(kept) >= rows:
                return SelectResult(res.variables, kept), True, False
            used += sum(len(t) + 4 if t is not None else 1 for t in row)
            if used > nbytes:
                return SelectResult(res.variables, kept), True, True
            kept.append(row)
        return res, False, False
    if isinstance(res, GraphResult):
        g = Graph()
        used = 0
        for i, t in enumerate(res.graph):
            if i >= rows:
                return GraphResult(g), True, False
            used += sum(len(str(x)) for x in t) + 8
            if used > nbytes:
                return GraphResult(g), True, True
            g.add(t)
        return res, False, False
    return res, False, False


def runner_for(
    store: Store,
    *,
    timeout: float,
    row_cap: int,
    workers: int | None = None,
    answer_bytes: int = Settings.answer_bytes,
    memory_mb: int = 0,
) -> QueryRunner:
    """Worker processes for an on-disk pyoxigraph store (reading checkpoints when this
    process writes it, the directory itself when it is opened read-only), else inline."""
    path = store.path if isinstance(store, Checkpoints) else None
    if path is not None and os.path.isdir(path):
        source: Snapshots | str | os.PathLike[str] = path if store.read_only else Snapshots(store)
        return ProcessQueryRunner(
            source,
            workers=workers,
            timeout=timeout,
            row_cap=row_cap,
            answer_bytes=answer_bytes,
            memory_mb=memory_mb,
        )
    return InlineQueryRunner(store, timeout=timeout, row_cap=row_cap, answer_bytes=answer_bytes)


__all__ = [
    "AnswerLimits",
    "InlineQueryRunner",
    "ProcessQueryRunner",
    "QueryJob",
    "QueryRunner",
    "RunOutcome",
    "Snapshots",
    "UpdateCheck",
    "cut_answer",
    "runner_for",
]
