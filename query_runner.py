"""Run read queries with a time limit that really stops them, and a cap on result rows.

pyoxigraph cannot interrupt a query from Python once evaluation is inside one ``next()``
(a big join or ORDER BY before the first row), and a thread cannot be killed. So
:class:`ProcessQueryRunner` keeps a small pool of worker processes, each holding the
on-disk store opened with ``pyoxigraph.Store.read_only(path)``; a worker that overruns
the limit is killed (SIGKILL) and replaced in the background while the other workers go
on serving. A read-only handle is a static snapshot, so a worker reopens it when the
store directory changed since its last query (a cheap ``scandir`` of file sizes and
mtimes: every committed write appends to RocksDB's WAL) and retries once after an I/O
error (pyoxigraph calls reading during a concurrent write "undefined behaviour").

:class:`InlineQueryRunner` is the fallback for stores without a local directory (the
remote backend, in-memory test stores): it calls ``Store.query(timeout=...)``, whose
limit is best effort.

Results cross the process boundary as plain tuples and become rdflib terms here, so
the service serialises one shape (:mod:`reprokg.store.base` results) whatever ran them.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import queue
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.term import Identifier

from reprokg.store.base import (
    AskResult,
    GraphResult,
    QueryResult,
    QueryTimeout,
    SelectResult,
    Store,
    StoreError,
)

try:  # added to the store interface by the store engineer
    from reprokg.store.base import QuerySyntaxError as _StoreSyntaxError
except ImportError:  # pragma: no cover - older interface

    class _StoreSyntaxError(StoreError):  # type: ignore[no-redef]
        pass


_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"


class QuerySyntaxError(_StoreSyntaxError):
    """The engine refused the query text (HTTP 400)."""


class RunnerBusy(StoreError):
    """Every worker stayed busy for the whole time limit (HTTP 503)."""


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


def _dir_signature(path: str) -> tuple[tuple[str, int, int], ...]:
    try:
        return tuple(
            sorted(
                (e.name, st.st_size, st.st_mtime_ns)
                for e in os.scandir(path)
                if e.name != "LOG" and not e.name.startswith("LOG.old")
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
        kwargs["use_default_graph_as_union"] = True
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


def _worker_main(path: str, conn: Connection) -> None:
    """Serve jobs from ``conn`` until it closes: ("run", job, cap) → ("ok"|"syntax"|"error", …)."""
    import pyoxigraph as ox

    store = None
    sig: tuple = ()
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        _, job, cap = msg
        reply: tuple
        for attempt in range(2):
            try:
                now = _dir_signature(path)
                if store is None or now != sig or attempt:
                    store = None
                    store = ox.Store.read_only(path)
                    sig = now
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
    def __init__(self, ctx: Any, path: str) -> None:
        self.conn, child = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(
            target=_worker_main, args=(path, child), daemon=True, name="reprokg-query-worker"
        )
        self.proc.start()
        child.close()

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


class ProcessQueryRunner(QueryRunner):
    """A pool of worker processes over an on-disk pyoxigraph store; overrunning workers die.

    ``workers`` processes (default: CPU count, at most 4) are started at construction
    (``forkserver`` context, so a replacement starts in tens of milliseconds and no
    thread state of the server is copied). A request waits for a free worker at most
    ``timeout`` seconds (:class:`RunnerBusy` after that), then the query gets ``timeout``
    seconds of evaluation (:class:`QueryTimeout` after that, the worker is killed).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        workers: int | None = None,
        timeout: float = 10.0,
        row_cap: int = 10_000,
        start_method: str = "forkserver",
    ) -> None:
        self.path = os.fspath(path)
        self.timeout = timeout
        self.row_cap = row_cap
        self.size = workers or max(1, min(4, os.cpu_count() or 1))
        self._ctx = mp.get_context(start_method)
        if start_method == "forkserver":
            self._ctx.set_forkserver_preload(["pyoxigraph", "reprokg.query_runner"])
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._all: set[_Worker] = set()
        self._lock = threading.Lock()
        self._closed = False
        self.killed = 0  # workers killed for overrunning (observability, tests)
        for _ in range(self.size):
            self._add_worker()

    def _add_worker(self) -> None:
        if self._closed:
            return
        w = _Worker(self._ctx, self.path)
        with self._lock:
            self._all.add(w)
        self._idle.put(w)

    def _replace(self, dead: _Worker) -> None:
        with self._lock:
            self._all.discard(dead)
        threading.Thread(
            target=self._add_worker, name="reprokg-worker-respawn", daemon=True
        ).start()

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
            raise RunnerBusy(
                f"all {self.size} query workers stayed busy for {limit:g} s; try again"
            ) from None
        t0 = time.perf_counter()
        try:
            w.conn.send(("run", job, cap))
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
    """Worker processes when ``store`` is an on-disk pyoxigraph store, else inline."""
    path = getattr(store, "path", None)
    if path is not None and os.path.isdir(path) and type(store).__name__ == "OxigraphStore":
        return ProcessQueryRunner(path, workers=workers, timeout=timeout, row_cap=row_cap)
    return InlineQueryRunner(store, timeout=timeout, row_cap=row_cap)


__all__ = [
    "InlineQueryRunner",
    "ProcessQueryRunner",
    "QueryJob",
    "QueryRunner",
    "QuerySyntaxError",
    "RunOutcome",
    "RunnerBusy",
    "runner_for",
]
