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
import multiprocessing as mp
import os
import queue
import shutil
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.term import Identifier

from reprokg.core.errors import Busy, QuerySyntaxError, QueryTimeout, StoreError
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
        rows = []
        truncated = False
        for sol in res:
            if len(rows) >= cap:
                truncated = True
                break
            rows.append(tuple(_encode(sol[i]) for i in range(n)))
        return ("select", (names, rows), truncated)
    triples = []
    truncated = False
    for t in res:
        if len(triples) >= cap:
            truncated = True
            break
        triples.append(t)
    data = ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES)
    return ("graph", data, truncated)


def _worker_main(conn: Connection) -> None:
    """Serve jobs until the pipe closes.

    ``("run", job, cap, path, live)`` → ``("ok" | "syntax" | "error", payload)``. ``path``
    is an immutable snapshot (reopened only when the parent names another one) or, with
    ``live``, a directory that may change (reopened when its files changed).
    """
    import pyoxigraph as ox

    store = None
    opened = ""
    sig: tuple = ()
    try:
        conn.send(("ready", os.getpid()))
    except OSError:
        return
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        _, job, cap, path, live = msg
        reply: tuple
        for attempt in range(2):
            try:
                now = _dir_signature(path) if live else ()
                if store is None or path != opened or now != sig or attempt:
                    store = None
                    store = ox.Store.read_only(path)
                    opened, sig = path, now
                reply = ("ok", _execute(store, job, cap))
                break
            except SyntaxError as exc:
                reply = ("syntax", str(exc))
                break
            except OSError as exc:
                reply = ("error", f"{type(exc).__name__}: {exc}")
            except Exception as exc:  # noqa: BLE001 - reported to the parent
                reply = ("error", f"{type(exc).__name__}: {exc}")
                break
        try:
            conn.send(reply)
        except (BrokenPipeError, OSError):
            return


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

    def close(self) -> None:  # noqa: B027 - optional hook
        """Stop workers."""


class _Worker:
    def __init__(self, ctx: Any) -> None:
        self.conn, child = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(
            target=_worker_main, args=(child,), daemon=True, name="reprokg-query-worker"
        )
        self.proc.start()
        child.close()
        self.snapshot: str | None = None  # what it has open (snapshots are kept until unused)

    def wait_ready(self, timeout: float) -> None:
        """Block until the worker has imported pyoxigraph and said so (start-up is not
        charged to the first query's time limit)."""
        if not self.conn.poll(timeout):
            self.kill()
            raise StoreError(f"query worker did not start within {timeout:g} s")
        msg = self.conn.recv()
        if not (isinstance(msg, tuple) and msg and msg[0] == "ready"):
            self.kill()
            raise StoreError(f"query worker sent {msg!r} instead of ready")

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
        db = store.path if isinstance(store, Checkpoints) else None
        if db is None:
            raise StoreError("snapshots need a store on disk that makes checkpoints")
        self.store = store
        self.db = os.fspath(db)
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
    the constructor waits until they are ready. A request waits for a free worker at
    most ``timeout`` seconds (:class:`Busy` after that); the query then gets
    ``timeout`` seconds (:class:`QueryTimeout` after that, and the worker is killed).
    """

    def __init__(
        self,
        source: Snapshots | str | os.PathLike[str],
        *,
        workers: int | None = None,
        timeout: float = 10.0,
        row_cap: int = 10_000,
        start_method: str = "forkserver",
        start_timeout: float = 120.0,
    ) -> None:
        self.snapshots = source if isinstance(source, Snapshots) else None
        self.path = None if self.snapshots else os.fspath(source)  # type: ignore[arg-type]
        self.timeout = timeout
        self.row_cap = row_cap
        self.size = workers or max(1, min(4, os.cpu_count() or 1))
        self._ctx = mp.get_context(start_method)
        if start_method == "forkserver":
            # "__main__" too: the server imports the main module once, so forked workers
            # skip re-importing it (multiprocessing does that per child otherwise).
            self._ctx.set_forkserver_preload(["__main__", "pyoxigraph", "reprokg.sparql.runner"])
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._all: set[_Worker] = set()
        self._lock = threading.Lock()
        self._closed = False
        self.killed = 0  # workers killed for overrunning (observability, tests)
        started = [_Worker(self._ctx) for _ in range(self.size)]
        for w in started:
            w.wait_ready(start_timeout)
            self._all.add(w)
            self._idle.put(w)

    def _add_worker(self) -> None:
        if self._closed:
            return
        w = _Worker(self._ctx)
        try:
            w.wait_ready(120)
        except StoreError:
            return
        with self._lock:
            if self._closed:
                w.stop()
                return
            self._all.add(w)
        self._idle.put(w)

    def _replace(self, dead: _Worker) -> None:
        with self._lock:
            self._all.discard(dead)
        threading.Thread(
            target=self._add_worker, name="reprokg-worker-respawn", daemon=True
        ).start()

    def _target(self, w: _Worker) -> tuple[str, bool]:
        """The directory the worker must read, and whether it may change under it."""
        if self.snapshots is None:
            assert self.path is not None
            return self.path, True
        snap = self.snapshots.current()
        if w.snapshot != snap:
            w.snapshot = snap
            with self._lock:
                in_use = {x.snapshot for x in self._all if x.snapshot}
            self.snapshots.collect(in_use)
        return snap, False

    def run(
        self, job: QueryJob, *, timeout: float | None = None, row_cap: int | None = None
    ) -> RunOutcome:
        limit = self.timeout if timeout is None else timeout
        cap = self.row_cap if row_cap is None else row_cap
        if self._closed:
            raise StoreError("query runner is closed")
        try:
            w = self._idle.get(timeout=limit)
        except queue.Empty:
            raise Busy(
                f"all {self.size} query workers stayed busy for {limit:g} s; try again",
                headers={"Retry-After": "1"},
            ) from None
        t0 = time.perf_counter()
        try:
            path, live = self._target(w)
        except Exception:
            self._idle.put(w)
            raise
        try:
            w.conn.send(("run", job, cap, path, live))
            if not w.conn.poll(limit):
                raise TimeoutError
            status, payload = w.conn.recv()
        except TimeoutError:
            self.killed += 1
            w.kill()
            self._replace(w)
            raise QueryTimeout(f"query stopped after its {limit:g} s time limit") from None
        except (EOFError, OSError) as exc:  # the worker died (e.g. out of memory)
            w.kill()
            self._replace(w)
            raise StoreError(f"query worker failed: {exc or 'died'}") from None
        self._idle.put(w)
        elapsed = time.perf_counter() - t0
        if status == "syntax":
            raise QuerySyntaxError(payload)
        if status == "error":
            raise StoreError(payload)
        kind, data, truncated = payload
        return RunOutcome(_to_result(kind, data), truncated, cap, elapsed)

    def close(self) -> None:
        self._closed = True
        with self._lock:
            workers = list(self._all)
            self._all.clear()
        for w in workers:
            w.stop()
        if self.snapshots is not None:
            self.snapshots.close()


class InlineQueryRunner(QueryRunner):
    """Calls ``store.query`` in the calling thread (remote or in-memory stores)."""

    def __init__(self, store: Store, *, timeout: float = 10.0, row_cap: int = 10_000) -> None:
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
        source: Snapshots | str = path if store.read_only else Snapshots(store)
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
