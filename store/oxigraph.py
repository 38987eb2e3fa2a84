"""Embedded backend: pyoxigraph 0.5 (RocksDB) on disk.

Atomicity: pyoxigraph runs one ``Store.update`` call (all operations of one SPARQL
Update request) and one ``Store.extend`` call as a single transaction: "either the full
operation succeeds, or nothing is written" (pyoxigraph 0.5 API docs). A document write
is therefore *one* call: an N-Quads load for brand-new graphs, or one update
``DROP SILENT GRAPH <old>; DROP SILENT GRAPH <g>; INSERT DATA { GRAPH <g> {…} }`` when
something is replaced. ``bulk_load``/``bulk_extend`` are atomic too since pyoxigraph 0.5.1
(oxigraph commit 26d10200, "bulk loaders: Add support for partial commits": the loader
builds SST files and ingests all of them at its ``commit`` with one RocksDB
``IngestExternalFiles`` over every column family, all or nothing) but not isolated: they
neither read nor check what is stored. That is all a write of new graphs needs (it reads
nothing, and our writes are serialised by one lock), so a big batch of new graphs is
bulk-loaded, faster than a transaction (:data:`BULK_MIN_QUADS`;
benchmarks/README.md#figures-once-quoted-in-code); small writes stay transactions. SST files of a
killed bulk load are removed on the next writable open
(:func:`~reprokg.store.bulk.remove_leftovers`).

Default graph = the RDF merge of the documents (a set). pyoxigraph 0.5's
``use_default_graph_as_union`` returns a triple once per graph holding it (fixed after
0.5.13: https://github.com/oxigraph/oxigraph/issues/1919), so the merge is *materialised* in the
store's real default graph and kept in the same transaction as every document write: a write also
inserts its triples into the default graph, and a delete/replace first removes from the default
graph the triples of the dropped graph that no other named graph holds
(:func:`unmerge_ops`). Queries without an explicit dataset read the default graph as
is. An empty named graph :data:`MERGED_MARKER` says the merge is complete; a writable
store opened without it rebuilds the merge once (:meth:`OxigraphStore.rebuild_merge`),
a read-only one falls back to the union flag (correct except for the double counts).
SPARQL Update through :meth:`OxigraphStore.update` may not write the default graph
(it is derived; refused with :class:`UpdateRefused`, HTTP 400); after an
update that changed named graphs the merge is re-synchronised (see ``update``).

Concurrency: one writer process. Readers in other processes may open the directory
with ``read_only=True`` (``pyoxigraph.Store.read_only``), which sees a static snapshot;
pyoxigraph calls reading while another process writes "undefined behavior", so the
service opens the store read-write itself or read-only on a store nobody writes.

Time limits: pyoxigraph 0.5's Python API cannot cancel a query
(https://github.com/oxigraph/oxigraph/issues/1926). ``query(timeout=…)`` evaluates in a worker
thread (pyoxigraph releases the GIL) and raises :class:`QueryTimeout` when the limit passes; result
iteration checks a cancel flag per row, so streaming queries stop promptly, but a blocking operator
(ORDER BY, GROUP BY, a big join before the first row) keeps using one core until it completes.
Hard limits need a worker process that is killed (what the service does).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import io
import itertools
import logging
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

import pyoxigraph as ox
from rdflib import BNode, Graph, URIRef
from rdflib.term import Identifier

import reprokg.store.counters as counters
import reprokg.store.disk as disk
import reprokg.store.leaderboard_ranks as ranks
from reprokg.core.errors import (
    QuerySyntaxError,
    QueryTimeout,
    StorageFull,
    StoreError,
    StoreInUse,
)
from reprokg.store.base import (
    AskResult,
    Backup,
    Checkpoints,
    Counters,
    DocumentWrite,
    GraphResult,
    InMemoryCopy,
    LeaderboardRanks,
    Liveness,
    MergeMaintenance,
    NativeQueries,
    QueryResult,
    SelectResult,
    Store,
)
from reprokg.store.blobs import link_or_copy
from reprokg.store.bulk import rebuild_merge as rebuild_merge_in_bulk
from reprokg.store.bulk import remove_leftovers
from reprokg.store.merge import (
    LEGACY_DEFAULT_GRAPH,
    MARKERS,
    MERGED_MARKER,
    RESERVED_GRAPHS,
    UpdatePlan,
    merge_op,
    unmerge_ops,
)
from reprokg.store.terms import (
    rdf_format,
    rdflib_triple,
    to_ntriples,
    to_oxigraph,
    to_quad,
    to_rdflib,
)

log = logging.getLogger(__name__)

T = TypeVar("T")


def _run_with_timeout(fn: Callable[[threading.Event], T], timeout: float | None) -> T:
    cancel = threading.Event()
    if timeout is None:
        return fn(cancel)
    value: list[T] = []
    error: list[BaseException] = []

    def target() -> None:
        try:
            value.append(fn(cancel))
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller
            error.append(exc)

    worker = threading.Thread(target=target, name="reprokg-query", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        cancel.set()
        raise QueryTimeout(f"query stopped after its {timeout:g} s time limit")
    if error:
        raise error[0]
    return value[0]


def graph_quads(iri: URIRef | str, graph: Graph | Iterable) -> list[ox.Quad]:
    g = ox.NamedNode(str(iri))
    return [to_quad(s, p, o, g) for s, p, o in graph]


def _batch_merged_quads(writes: Sequence[DocumentWrite]) -> list[ox.Quad]:
    """``merged_quads`` of every write's ``graph_quads``, each term converted once per
    batch (predicates, classes and shared nodes repeat in every document): converting
    terms one by one, then re-reading them from the quads for the merge, was most of
    an ingest batch's Python time."""
    memo: dict[object, object] = {}
    named: list[ox.Quad] = []
    merge: list[ox.Quad] = []
    quad = ox.Quad
    for w in writes:
        g = ox.NamedNode(str(w.iri))
        for s, p, o in w.triples:
            xs = memo.get(s)
            if xs is None:
                xs = memo[s] = to_oxigraph(s)
            xp = memo.get(p)
            if xp is None:
                xp = memo[p] = to_oxigraph(p)
            xo = memo.get(o)
            if xo is None:
                xo = memo[o] = to_oxigraph(o)
            # pyoxigraph checks the terms
            named.append(quad(xs, xp, xo, g))  # type: ignore[arg-type]
            merge.append(quad(xs, xp, xo))  # type: ignore[arg-type]  # pyoxigraph checks the terms
    return named + merge


def _batch_nquads(writes: Sequence[DocumentWrite]) -> str | None:
    """The same quads as ``_batch_merged_quads``, as N-Quads text; None when a term is a
    blank node (a load renames blank nodes; ``extend`` keeps their labels). Building
    the text cost a sixth of building the Quad objects (measured on 256 run headers),
    and loading it about what ``extend`` costs. Each term's text is pyoxigraph's
    rendering of it, made once per batch (kept across batches, the terms held 60 MB more
    at 10,000 headers and the load took no less CPU)."""
    memo: dict[object, str] = {}
    get = memo.get

    def text(x: object) -> str | None:
        if isinstance(x, BNode):
            return None
        y = memo[x] = str(to_oxigraph(x))  # type: ignore[arg-type]  # pyoxigraph checks it
        return y

    lines: list[str] = []
    append = lines.append
    for w in writes:
        end = f" {to_ntriples(URIRef(str(w.iri)))} .\n"
        for s, p, o in w.triples:
            xs = get(s) or text(s)
            xp = get(p) or text(p)
            xo = get(o) or text(o)
            if xs is None or xp is None or xo is None:
                return None
            line = f"{xs} {xp} {xo}"
            append(line + end)
            append(line + " .\n")
    return "".join(lines)


#: quads from which a write of new graphs goes to the bulk loader rather than a transaction.
#: A transaction's cost grows with the store (it reads before each write), a bulk load's
#: with the files it makes: a batch of run headers loads faster in bulk, one header
#: faster in a transaction (and a bulk load leaves SST files per call); the two meet near
#: this many quads (benchmarks/README.md#figures-once-quoted-in-code)
BULK_MIN_QUADS = 10_000
#: quads restored below which the database is not compacted after the bulk load: lookups
#: gain from it on a store of millions of quads; on a small one (the demo store restored at
#: a first start) it costs more than it saves
COMPACT_MIN_QUADS = 1_000_000


#: the bookkeeping graphs, as pyoxigraph terms (never documents)
_RESERVED = frozenset(ox.NamedNode(g) for g in RESERVED_GRAPHS)


def new_graphs(store: ox.Store, quads: Iterable[ox.Quad]) -> int:
    """How many named graphs of ``quads`` the store does not hold yet (documents added)."""
    names = {q.graph_name for q in quads if isinstance(q.graph_name, ox.NamedNode)}
    return sum(1 for g in names - _RESERVED if not store.contains_named_graph(g))


def _restorable(quads: Iterable[ox.Quad]) -> Iterator[ox.Quad]:
    """A dump's quads as a restore writes them: default-graph quads moved to
    :data:`LEGACY_DEFAULT_GRAPH`, those of the reserved graphs left out."""
    legacy = ox.NamedNode(LEGACY_DEFAULT_GRAPH)
    for q in quads:
        if not isinstance(q.graph_name, ox.NamedNode | ox.BlankNode):
            yield ox.Quad(q.subject, q.predicate, q.object, legacy)
        elif q.graph_name not in _RESERVED:
            yield q


def merged_quads(quads: list[ox.Quad]) -> list[ox.Quad]:
    """``quads`` plus their triples in the default graph (the merge; duplicates are no-ops)."""
    return quads + [ox.Quad(q.subject, q.predicate, q.object) for q in quads]


_RANKED_PREDICATES = frozenset(URIRef(p.value) for p in ranks.WATCHED)


def _rank_plan(store: ox.Store, writes: Sequence[DocumentWrite]) -> ranks.Plan:
    """What ``writes`` do to the leaderboards: their triples the ranks watch (scores,
    the paths of the filters and tags), and those of the stored graphs they replace."""
    plan = ranks.Plan()
    for w in writes:
        for s, p, o in w.triples:
            if p in _RANKED_PREDICATES:
                plan.add_triple(to_oxigraph(s), to_oxigraph(p), to_oxigraph(o))
        for g in (w.iri, w.replaces):
            if g is not None and store.contains_named_graph(ox.NamedNode(str(g))):
                plan.add_graph(store, str(g))
    return plan


def _quads_plan(quads: Iterable[ox.Quad]) -> ranks.Plan:
    plan = ranks.Plan()
    for q in quads:
        plan.add_triple(q.subject, q.predicate, q.object)
    return plan


@functools.cache
def _pauses_on_full_disk(method: Callable[..., T]) -> Callable[..., T]:
    """A write method whose full disk is :class:`StorageFull` (507), and marks the store
    for a reopen before its next write (store/disk.py)."""

    @functools.wraps(method)
    def write(self: OxigraphStore, *args: Any, **kwargs: Any) -> T:
        try:
            return method(self, *args, **kwargs)
        except StorageFull:
            raise
        except Exception as exc:
            full = self._disk_full(exc)
            if full is not None:
                raise full from exc
            raise

    return write


def _without_data() -> ox.Store:
    """An empty in-memory store, for queries that read no data (made once)."""
    return ox.Store()


def has_merge(raw: ox.Store) -> bool:
    """Whether a pyoxigraph store's default graph holds the complete merge."""
    return raw.contains_named_graph(ox.NamedNode(MERGED_MARKER))


def union_kwargs(merged: bool) -> dict[str, Any]:
    """Query keyword arguments for the store's default dataset."""
    return {} if merged else {"use_default_graph_as_union": True}


def insert_data(iri: URIRef | str, triples: Iterable, *, ascii_only: bool = False) -> str:
    """``INSERT DATA { GRAPH <iri> { … } }`` text for rdflib triples."""
    body = "\n".join(
        f"{to_ntriples(s, ascii_only=ascii_only)} {to_ntriples(p, ascii_only=ascii_only)} "
        f"{to_ntriples(o, ascii_only=ascii_only)} ."
        for s, p, o in triples
    )
    name = to_ntriples(URIRef(str(iri)), ascii_only=ascii_only)
    return f"INSERT DATA {{ GRAPH {name} {{\n{body}\n}} }}"


class OxigraphStore(
    Store,
    NativeQueries,
    Checkpoints,
    Backup,
    MergeMaintenance,
    InMemoryCopy,
    Liveness,
    Counters,
    LeaderboardRanks,
):
    """pyoxigraph on disk (``path``) or in memory (``path=None``, tests and benchmarks)."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        read_only: bool = False,
        blob_dir: str | os.PathLike[str] | None = None,
        _raw: ox.Store | None = None,
    ) -> None:
        self.path = Path(path) if path is not None else None
        self.read_only = read_only
        self.blob_dir = Path(blob_dir) if blob_dir is not None else None
        try:
            if _raw is not None:  # a copy made by in_memory_copy
                self._store = _raw
            elif self.path is None:
                self._store = ox.Store()
            else:
                self._store = _open_on_disk(self.path, read_only)
        except OSError as exc:
            if self.path is not None and disk.no_space(exc):
                raise disk.cannot_open(self.path, exc) from exc
            if self.path is not None and _LOCKED_TEXT in str(exc):
                raise _in_use(self.path, exc) from exc
            raise StoreError(f"cannot open store at {self.path}: {exc}") from exc
        #: one writer at a time in this process (writes and the maintenance after them)
        self._write_lock = threading.RLock()
        #: a write met a full disk: RocksDB refuses every write until reopened (store/disk.py)
        self._full = False
        try:
            self._after_open()
        except Exception as exc:
            if self.path is not None and disk.no_space(exc):
                raise disk.cannot_open(self.path, exc) from exc
            raise

    def _after_open(self) -> None:
        """What every open does after the database is open: the maintenance a crash or an
        older version may have left to do (also after a reopen, store/disk.py)."""
        read_only = self.read_only
        #: what the last maintenance at open or on demand did, with timings (benchmarks)
        self.maintenance: dict[str, Any] = {}
        self._documents = 0  # kept as the store writes (store/counters.py)
        self._version = 0
        self._deltas = 0  # delta quads in the counters graph (folded beyond FOLD_AT)
        if not read_only:
            remove_leftovers(self.path)
        #: the default graph holds the complete merge (else queries use the union flag)
        self.merged = has_merge(self._store)
        if not self.merged:
            if read_only:
                log.warning(
                    "store %s has no merged default graph (made before reprokg kept one); "
                    "open it writable once to build it. Until then the default graph is "
                    "pyoxigraph's union, which repeats triples shared by documents",
                    self.path,
                )
            else:
                if self.path is not None and any(True for _ in self._store.named_graphs()):
                    log.warning(
                        "building the merged default graph of %s (a store made before "
                        "reprokg kept one, bulk-loaded, or left mid-update or mid-rebuild): "
                        "a bulk write, 20-30 s per million triples (1M-10M on 2 cores)",
                        self.path,
                    )
                self.rebuild_merge()
                self.merge_built_at_open = True
        if not self.maintenance.get("merge"):  # a rebuild has just counted and ranked
            self._open_counters()
            if not read_only:
                self._open_ranks()

    # ------------------------------------------------------------------ counters

    def _open_counters(self) -> None:
        state = counters.read(self._store)
        if state is None:
            if self.read_only:  # counted once, on the graph index
                self._documents, self._version = counters.count_documents(self._store), 0
            else:
                self._documents, self._version = counters.recount(self._store, writes=0)
                self._deltas = 1
            return
        self._documents, self._version, self._deltas = state
        if self._deltas > counters.FOLD_AT and not self.read_only and counters.fold(self._store):
            self._deltas = 1

    def _committed(self, delta: int) -> None:
        """After a write committed: the figures follow; the deltas are folded now and then
        (a transaction of its own: the figures are right either way)."""
        self._documents += delta
        self._version += 1
        self._deltas += 1
        if self._deltas > counters.FOLD_AT and counters.fold(self._store):
            self._deltas = 1

    def _recounted(self) -> None:
        """After a write whose effect on the documents is not known."""
        self._documents, self._version = counters.recount(self._store, floor=self._version + 1)
        self._deltas = 1

    def document_count(self) -> int:
        """The number of documents, kept as the store writes (no scan)."""
        return self._documents

    def version(self) -> int:
        """Grows with every committed write (constant while opened read-only: the store is
        a snapshot then)."""
        return self._version

    def ping(self) -> None:
        """One RocksDB point lookup."""
        try:
            self._store.contains_named_graph(ox.NamedNode(MERGED_MARKER))
        except (AttributeError, OSError) as exc:  # closed (None) or the disk went away
            raise StoreError(f"store {self.path or ':memory:'} does not answer: {exc}") from exc

    # ------------------------------------------------------------------ ranks

    #: entries ranked per leaderboard (store/leaderboard_ranks.py)
    ranks_window = ranks.WINDOW
    #: find-baselines' filters the windows answer
    ranks_filters = frozenset(ranks.FILTERS)

    def _open_ranks(self) -> None:
        """A writable open: boards left stale by a crash re-ranked; a store without ranks
        (older, bulk-loaded) ranked in full."""
        if not self.merged:
            return
        if ranks.maintained(self._store):
            if ranks.repair(self._store):
                self.maintenance["ranks"] = {"repaired": True}
        else:
            self.maintenance["ranks"] = ranks.rebuild_all(self._store)

    def ranked_entries(self, board: str) -> int | None:
        """How many entries of ``board`` are ranked (all of them when fewer than
        :attr:`ranks_window`); ``None`` when its ranks are not current."""
        return ranks.window_size(self._store, board)

    def board_entries(self, board: str) -> int | None:
        """How many entries ``board`` has, kept with its ranks (None: not current)."""
        return ranks.entry_count(self._store, board)

    def ranked_top(
        self, board: str, limit: int, filters: Mapping[str, Identifier]
    ) -> list[tuple[str, str, tuple[str, ...]]] | None:
        """The first ``limit`` ``(run, score, tags)`` rows of ``board`` passing ``filters``,
        read from its packed window (store/leaderboard_ranks.py)."""
        names = {f: str(to_oxigraph(t)) for f, t in filters.items()}
        return ranks.top(self._store, board, limit, names)

    @contextlib.contextmanager
    def _ranked(self, plan: ranks.Plan) -> Iterator[None]:
        """Around one write: its boards marked stale before, re-ranked after (also when
        the write failed: nothing changed then, and the marks go)."""
        if not plan or not self.merged or not ranks.maintained(self._store):
            yield
            return
        plan.add_boards_of_values(self._store)
        plan.count_before(self._store)
        ranks.mark_stale(self._store, plan.boards)
        try:
            yield
        except BaseException:
            with contextlib.suppress(OSError, SyntaxError, ValueError):
                ranks.after_write(self._store, plan)
            raise
        ranks.after_write(self._store, plan)

    # ------------------------------------------------------------------ the merge

    @_pauses_on_full_disk
    def rebuild_merge(self) -> None:
        """Make the default graph the merge of all named graphs, as a bulk write
        (:mod:`reprokg.store.bulk`: stale marker, streamed bulk load, merged marker; an
        interrupted rebuild is redone on the next writable open).

        A store from before the merge (no marker at all) may hold triples of its own in
        the default graph; those no document holds are kept in
        :data:`LEGACY_DEFAULT_GRAPH` instead of being lost. A store left *stale* by a
        crash between an update and its re-synchronisation is just re-synchronised.
        """
        self._check_writable()
        with self._write_lock:
            self.maintenance["merge"] = rebuild_merge_in_bulk(self._store, self.path)
            self.merged = True
            self.maintenance.update(self._after_bulk_write(rank=True))
            # a rebuild follows writes whose extent is not known (raw writes, an update
            # with variable graphs, a crash mid-update): count the documents again
            self._recounted()
            if self.path is not None:
                self._store.flush()

    def _after_bulk_write(self, *, rank: bool, compact: bool = True) -> dict:
        """After a big bulk write (a merge rebuild, a restore): the database compacted on
        disk (the loader's files overlap) and, when asked, every board ranked again."""
        info = {}
        if self.path is not None and compact:
            info["compaction"] = self._compact()
        if rank:
            info["ranks"] = ranks.rebuild_all(self._store)
        return info

    def _compact(self) -> dict:
        """RocksDB compacted after a bulk write. The bulk loader's files overlap, so a
        lookup read many of them: compacted, find-baselines' lookups take half the time
        (benchmarks/README.md#figures-once-quoted-in-code), for seconds of compaction (crash-safe:
        RocksDB swaps files atomically)."""
        t0 = time.perf_counter()
        self._store.optimize()
        return {"seconds": round(time.perf_counter() - t0, 3)}

    def _resync(self) -> None:
        """The merge re-synchronised after a write of unknown extent (stale marker set)."""
        self.rebuild_merge()

    # ------------------------------------------------------------------ writes

    def _check_writable(self) -> None:
        if self.read_only:
            raise StoreError("store is opened read-only")
        self._room_to_write()

    def _room_to_write(self) -> None:
        """Refuse a write while the disk is (nearly) full; after a write met a full disk,
        reopen the database once there is room again (store/disk.py)."""
        if self.path is None:
            return
        from reprokg.core.settings import settings

        min_free = settings().store_min_free_mb << 20
        free = disk.free_bytes(self.path)
        if free <= min_free:
            raise disk.full(self.path, free, min_free, refused_by_disk=self._full)
        if self._full:
            with self._write_lock:
                if self._full:
                    self._reopen()

    def _reopen(self) -> None:
        """The database reopened in place (RocksDB keeps a full disk's error until then).
        Readers that come meanwhile wait on a :class:`~reprokg.store.disk.Reopening`; a
        reader still holding the old handle is waited for (its lock on the directory)."""
        assert self.path is not None
        standin = disk.Reopening()
        # the old handle's last reference here: RocksDB closes it
        self._store = standin  # type: ignore[assignment]
        deadline = time.monotonic() + 10
        new = None
        try:
            while new is None:
                try:
                    new = ox.Store(str(self.path))
                except OSError as exc:
                    if disk.no_space(exc) or time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)  # a reader still holds the old handle
            self._store = new
            self._full = False
            self._after_open()
            log.warning("store %s reopened: the disk has room again, writes resume", self.path)
        except Exception as exc:
            if new is None:  # reads go on from a read-only handle meanwhile
                with contextlib.suppress(OSError):
                    new = ox.Store.read_only(str(self.path))
            if new is not None:
                self._store = new
            self._full = True
            free = disk.free_bytes(self.path)
            raise disk.full(self.path, free, free, refused_by_disk=True) from exc
        finally:
            standin.done(self._store)

    def _disk_full(self, exc: BaseException) -> StoreError | None:
        """A write's failure as :class:`StorageFull` when the disk was full (and the store
        marked for a reopen before its next write)."""
        if self.path is None or not disk.no_space(exc):
            return None
        self._full = True
        free = disk.free_bytes(self.path)
        from reprokg.core.settings import settings

        log.error("store %s: the disk is full (%d bytes free); writes paused", self.path, free)
        return disk.full(self.path, free, settings().store_min_free_mb << 20, refused_by_disk=True)

    def add_document(self, iri: URIRef | str, graph: Graph) -> None:
        self.replace_document(iri, graph, iri)

    def replace_document(self, iri: URIRef | str, graph: Graph, old: URIRef | str) -> None:
        """One transaction: drop ``old`` and any previous ``iri``, write the new triples,
        keep the merged default graph exact."""
        replaces = URIRef(str(old)) if str(old) != str(iri) else None
        self.write_documents([DocumentWrite(URIRef(str(iri)), graph, replaces)])

    @_pauses_on_full_disk
    def write_documents(self, writes: Sequence[DocumentWrite]) -> None:
        """All of ``writes`` in ONE atomic call: when every graph is new, an N-Quads load
        (Quad objects when a term is a blank node), by the bulk loader from
        :data:`BULK_MIN_QUADS` quads (faster than a transaction then,
        benchmarks/README.md#figures-once-quoted-in-code); else one SPARQL Update of
        ``DELETE``/``DROP``/``INSERT`` operations in order. The document count's delta is part of
        the same call."""
        self._check_writable()
        if not writes:
            return
        with self._write_lock, self._ranked(_rank_plan(self._store, writes)):
            try:
                delta = counters.document_delta(
                    self._store,
                    [(str(w.iri), str(w.replaces) if w.replaces else None) for w in writes],
                )
                fresh = all(
                    w.replaces is None
                    and not self._store.contains_named_graph(ox.NamedNode(str(w.iri)))
                    for w in writes
                )
                if fresh and len({str(w.iri) for w in writes}) == len(writes):
                    # new graphs only: nothing to read or delete, so a big batch goes to
                    # the bulk loader (one all-or-nothing RocksDB ingest per call)
                    text = _batch_nquads(writes)
                    if text is None:  # Quad objects keep the blank nodes' labels
                        quads = [*_batch_merged_quads(writes), counters.delta_quad(delta)]
                        bulk = len(quads) >= BULK_MIN_QUADS
                        (self._store.bulk_extend if bulk else self._store.extend)(quads)
                    else:  # every term was checked by pyoxigraph when it was built
                        text += counters.delta_nquad(delta)
                        bulk = text.count("\n") >= BULK_MIN_QUADS
                        (self._store.bulk_load if bulk else self._store.load)(
                            text.encode(), format=ox.RdfFormat.N_QUADS, lenient=True
                        )
                else:
                    ops: list[str] = []
                    for w in writes:
                        ops += unmerge_ops(w.iri)
                        if w.replaces is not None and str(w.replaces) != str(w.iri):
                            ops += unmerge_ops(w.replaces)
                        ops += [insert_data(w.iri, w.triples), merge_op(w.iri)]
                    ops.append(counters.delta_insert(delta))
                    self._store.update(" ;\n".join(ops))
            except (SyntaxError, ValueError, TypeError, OSError) as exc:
                what = str(writes[0].iri) if len(writes) == 1 else f"{len(writes)} documents"
                raise StoreError(f"cannot write {what}: {exc}") from exc
            self._committed(delta)

    @_pauses_on_full_disk
    def delete_document(self, iri: URIRef | str) -> bool:
        self._check_writable()
        if str(iri) in RESERVED_GRAPHS:
            return False
        name = ox.NamedNode(str(iri))
        with self._write_lock:
            if not self._store.contains_named_graph(name):
                return False
            plan = ranks.Plan()
            plan.add_graph(self._store, str(iri))
            with self._ranked(plan):
                self._store.update(" ;\n".join([*unmerge_ops(iri), counters.delta_insert(-1)]))
                self._committed(-1)
        return True

    @_pauses_on_full_disk
    def update(
        self,
        sparql: str,
        *,
        using_graph_uris: Sequence[str] = (),
        using_named_graph_uris: Sequence[str] = (),
    ) -> None:
        """A SPARQL 1.1 Update on the documents (named graphs); the merge follows.

        Policy: the default graph is derived, so an operation that writes it directly
        (``INSERT DATA`` outside ``GRAPH``, a template outside ``GRAPH`` without
        ``WITH``, ``LOAD`` without ``INTO``, ``CLEAR``/``DROP DEFAULT``, ``… TO DEFAULT``,
        ``MOVE DEFAULT``) is refused before anything is written. ``WHERE`` clauses read
        the merge as it was when the request started. The update runs in one
        transaction, after one that marks the merge stale and before one that
        re-synchronises it (:class:`UpdatePlan`: only the graphs the update writes when
        they are named by constant IRIs, else a full pass, O(store)). A crash in between
        leaves the stale marker and the next writable open re-synchronises; readers
        meanwhile fall back to the union flag.
        """
        self._check_writable()
        if using_graph_uris or using_named_graph_uris:
            raise StoreError("using-graph-uri / using-named-graph-uri are not supported here")
        plan = UpdatePlan.of(sparql)
        # three transactions (pyoxigraph refuses a PREFIX/BASE after ";", so our
        # operations cannot share the user's request): before, the update, after
        with self._write_lock:
            present = {
                g: self._store.contains_named_graph(ox.NamedNode(g)) for g in plan.graphs or ()
            }
            rank_plan = ranks.Plan()
            keep_ranks = plan.graphs is not None and self.merged and ranks.maintained(self._store)
            if keep_ranks:
                for g in plan.graphs or ():
                    rank_plan.add_graph(self._store, g)
                rank_plan.add_boards_of_values(self._store)
                rank_plan.count_before(self._store)
                ranks.mark_stale(self._store, rank_plan.boards)
            self._store.update(plan.before)
            try:
                self._store.update(sparql)
            except SyntaxError as exc:
                self._store.update(plan.undo)  # nothing was written
                if keep_ranks:  # the boards' marks go (their windows are unchanged)
                    ranks.after_write(self._store, rank_plan)
                raise QuerySyntaxError(str(exc)) from exc
            except OSError as exc:
                raise StoreError(str(exc)) from exc
            if plan.graphs is None:  # written graphs unknown: the whole merge, in bulk
                self._resync()  # (and the documents counted again)
            else:
                delta = sum(
                    self._store.contains_named_graph(ox.NamedNode(g)) - present[g]
                    for g in plan.graphs
                )
                after = [plan.after(), counters.delta_insert(delta)]
                if keep_ranks:  # the boards the update wrote, marked with the resync
                    for g in plan.graphs:
                        rank_plan.add_graph(self._store, g)
                    rank_plan.add_boards_of_values(self._store)
                    after.append(ranks.stale_insert(rank_plan.boards))
                self._store.update(" ;\n".join(after))
                self._committed(delta)
                if keep_ranks:
                    ranks.after_write(self._store, rank_plan)
            self.merged = True

    # ------------------------------------------------------------------ reads

    def documents(self) -> list[URIRef]:
        return sorted(
            URIRef(g.value)
            for g in self._store.named_graphs()
            if isinstance(g, ox.NamedNode) and g.value not in RESERVED_GRAPHS
        )

    def documents_page(self, offset: int, limit: int) -> list[URIRef]:
        """The graphs in the store's index order: reading a page walks ``offset + limit``
        graph names and never sorts them all (benchmarks/README.md, ``GET /documents``)."""
        names = (
            URIRef(g.value)
            for g in self._store.named_graphs()
            if isinstance(g, ox.NamedNode) and g.value not in RESERVED_GRAPHS
        )
        return list(itertools.islice(names, offset, offset + limit))

    def has_document(self, iri: URIRef | str) -> bool:
        if str(iri) in RESERVED_GRAPHS:
            return False
        return self._store.contains_named_graph(ox.NamedNode(str(iri)))

    def get_document(self, iri: URIRef | str) -> Graph:
        g = Graph()
        for q in self._store.quads_for_pattern(None, None, None, ox.NamedNode(str(iri))):
            g.add(rdflib_triple(q))
        return g

    def query(
        self,
        sparql: str,
        *,
        default_graph_uris: Sequence[str] = (),
        named_graph_uris: Sequence[str] = (),
        timeout: float | None = None,
    ) -> QueryResult:
        kwargs: dict[str, Any] = {}
        if default_graph_uris:
            kwargs["default_graph"] = [ox.NamedNode(u) for u in default_graph_uris]
        else:
            kwargs.update(union_kwargs(self.merged))
        if named_graph_uris:
            kwargs["named_graphs"] = [ox.NamedNode(u) for u in named_graph_uris]

        def run(cancel: threading.Event) -> QueryResult | None:
            try:
                res = self._store.query(sparql, **kwargs)
                try:
                    return _convert(res, cancel)
                finally:
                    # pyoxigraph results must die on the thread that made them ("unsendable")
                    del res
            except SyntaxError as exc:
                raise QuerySyntaxError(str(exc)) from exc
            except OSError as exc:
                raise StoreError(str(exc)) from exc

        result = _run_with_timeout(run, timeout)
        if result is None:
            raise QueryTimeout("query stopped at its time limit")
        return result

    def triple_count(self) -> int:
        return sum(1 for _ in self._document_quads())

    def _document_quads(self) -> Iterator[ox.Quad]:
        """Every quad of every document graph (not the merge), graph by graph."""
        return itertools.chain.from_iterable(
            self._store.quads_for_pattern(None, None, None, g)
            for g in self._store.named_graphs()
            if isinstance(g, ox.NamedNode) and g.value not in RESERVED_GRAPHS
        )

    # ------------------------------------------------------------------ dump / restore

    def dump(self, out: BinaryIO, fmt: str = "nquads") -> None:
        """The documents' quads only: the merge is derived, :meth:`restore` rebuilds it."""
        ox.serialize(self._document_quads(), out, rdf_format(fmt))

    @_pauses_on_full_disk
    def restore(self, src: BinaryIO, fmt: str = "nquads") -> None:
        """Add the quads of a dump and their triples to the merge, all or nothing.

        Read as a stream. A dump of fewer than :data:`BULK_MIN_QUADS` quads is one
        transaction, as any small write. A bigger one is *one* call of pyoxigraph's bulk
        loader, which builds files from batches of a million quads on other threads and
        ingests all of them at its end or none: memory stays bounded, where one
        transaction held the whole dump (benchmarks/README.md#figures-once-quoted-in-code). The
        document count's delta is the stream's last quad. Around a bulk restore the leaderboard
        ranks are suspended and rebuilt (:func:`~reprokg.store.leaderboard_ranks.suspend`)
        and the database is compacted, as after a merge rebuild (the loader's files overlap).

        Default-graph quads in the file (a dump of a pre-merge store holding triples of
        its own there) go to :data:`LEGACY_DEFAULT_GRAPH`, as when such a store is first
        opened; quads of the reserved graphs are left out.
        """
        self._check_writable()
        quads = _restorable(ox.parse(src, rdf_format(fmt)))
        with self._write_lock:
            try:
                head = list(itertools.islice(quads, BULK_MIN_QUADS))
                if len(head) < BULK_MIN_QUADS:
                    delta = new_graphs(self._store, head)
                    with self._ranked(_quads_plan(head)):
                        self._store.extend([*merged_quads(head), counters.delta_quad(delta)])
                    self._committed(delta)
                else:
                    self._restore_in_bulk(itertools.chain(head, quads))
            except SyntaxError as exc:
                raise StoreError(f"cannot restore: {exc}") from exc

    def _restore_in_bulk(self, quads: Iterator[ox.Quad]) -> None:
        t0 = time.perf_counter()
        seen: set[object] = set()
        added = written = 0

        def merged_stream() -> Iterator[ox.Quad]:
            nonlocal added, written
            for q in quads:
                written += 1
                g = q.graph_name
                if g not in seen:  # the loader commits at its end: this reads the store before
                    seen.add(g)
                    added += new_graphs(self._store, (q,))
                yield q
                yield ox.Quad(q.subject, q.predicate, q.object)
            yield counters.delta_quad(added)

        ranked = self.merged and ranks.suspend(self._store)
        try:
            self._store.bulk_extend(merged_stream())
        except BaseException:
            if ranked:  # nothing was written
                ranks.resume(self._store)
            raise
        self._committed(added)
        info = {"graphs_added": added, "load_s": round(time.perf_counter() - t0, 3)}
        info.update(self._after_bulk_write(rank=ranked, compact=written >= COMPACT_MIN_QUADS))
        if self.path is not None:
            self._store.flush()
        self.maintenance["restore"] = info

    def backup(self, target: str | Path) -> None:
        """``target/oxigraph`` (RocksDB checkpoint, hard links) + a copy of ``blobs/``."""
        if self.path is None:
            raise StoreError("an in-memory store cannot be backed up; use dump")
        target = Path(target)
        if target.exists() and any(target.iterdir()):
            raise StoreError(f"backup target {target} exists and is not empty")
        target.mkdir(parents=True, exist_ok=True)
        self._store.flush()
        self._store.backup(str(target / "oxigraph"))
        if self.blob_dir is not None and self.blob_dir.is_dir():
            shutil.copytree(self.blob_dir, target / "blobs", copy_function=link_or_copy)

    def checkpoint(self, target: str | Path) -> None:
        """A RocksDB checkpoint (hard links) of the database in the new folder ``target``."""
        self._store.backup(str(target))

    def flush(self) -> None:
        if not self.read_only:
            self._store.flush()

    def in_memory_copy(self) -> OxigraphStore:
        """Every quad (documents and the merge) in a new in-memory store, which answers
        find-baselines several times faster than RocksDB
        (benchmarks/README.md#figures-once-quoted-in-code)."""
        buf = io.BytesIO()
        self._store.dump(buf, ox.RdfFormat.N_QUADS)
        raw = ox.Store()
        raw.bulk_load(input=buf.getvalue(), format=ox.RdfFormat.N_QUADS)
        for marker in MARKERS:  # empty graphs: not in an N-Quads dump
            if self._store.contains_named_graph(ox.NamedNode(marker)):
                raw.add_graph(ox.NamedNode(marker))
        # a pre-merge store opened read-only: the copy builds the merge in memory
        return OxigraphStore(None, blob_dir=self.blob_dir, _raw=raw)

    def close(self) -> None:
        if not self.read_only:
            with contextlib.suppress(OSError):
                self._store.flush()
        # pyoxigraph closes RocksDB when the object is collected
        self._store = None  # type: ignore[assignment]  # closed: no use after close()

    def native_query(self, sparql: str, *, reads_store: bool = True) -> object:
        """pyoxigraph's own result object over the default graph (the merge; the union
        flag on a pre-merge store opened read-only), for callers that serialise or
        convert terms natively. No time limit: only for our own bounded queries.

        ``reads_store`` false: evaluated on an empty in-memory store. On disk every IRI
        of a result is looked up in RocksDB to be written, also one the query gave as a
        constant: the ranked find-baselines (100 rows of ``VALUES``) is several times
        faster in memory (benchmarks/README.md#figures-once-quoted-in-code)."""
        if not reads_store:
            return _without_data().query(sparql)
        return self._store.query(sparql, **union_kwargs(self.merged))


def _open_on_disk(path: Path, read_only: bool) -> ox.Store:
    """RocksDB's handle, opened again once if this process still holds the directory's
    lock: pyoxigraph releases it when a closed handle is collected, and a reference cycle
    (an app and its state, a result iterator) can keep one alive past ``close()``."""
    opener = ox.Store.read_only if read_only else ox.Store
    try:
        return opener(str(path))
    except OSError as exc:
        if "lock hold by current process" not in str(exc):
            raise
    gc.collect()
    return opener(str(path))


#: RocksDB's words for a LOCK file another process holds (through pyoxigraph)
_LOCKED_TEXT = "Resource temporarily unavailable"


def lock_holder(lock: Path) -> int | None:
    """The pid holding the POSIX lock on ``lock`` (RocksDB's ``LOCK`` file), from
    ``/proc/locks``; None where that cannot tell (not Linux, another mount namespace)."""
    try:
        inode = lock.stat().st_ino
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        # "1: POSIX  ADVISORY  WRITE 26599 fe:00:2157400 0 EOF"
        if len(fields) >= 6 and fields[5].rsplit(":", 1)[-1] == str(inode):
            try:
                return int(fields[4])
            except ValueError:
                return None
    return None


def _in_use(path: Path, exc: OSError) -> StoreInUse:
    """The error of a writable open of a store another process holds, naming the process
    when ``/proc`` can tell (RocksDB says only "Resource temporarily unavailable")."""
    pid = lock_holder(path / "LOCK")
    who = "another process, e.g. reprokg serve"
    if pid is not None:
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, UnicodeDecodeError):
            cmd = ""
        who = f"process {pid}" + (f" ({cmd.strip()[:120]})" if cmd.strip() else "")
    return StoreInUse(
        f"the store at {path} is in use by {who}: one process at a time may open it for "
        f"writing [{exc}]",
        details={"pid": pid},
    )


def _convert(res: object, cancel: threading.Event) -> QueryResult | None:
    """rdflib results; ``None`` when cancelled (the caller has already timed out)."""
    if isinstance(res, ox.QueryBoolean):
        return AskResult(bool(res))
    if isinstance(res, ox.QuerySolutions):
        variables = [v.value for v in res.variables]
        rows = []
        for sol in res:
            if cancel.is_set():
                return None  # no exception: its traceback would carry pyoxigraph objects
            rows.append(tuple(to_rdflib(sol[i]) for i in range(len(variables))))
        return SelectResult(variables, rows)
    if isinstance(res, ox.QueryTriples):
        g = Graph()
        for t in res:
            if cancel.is_set():
                return None
            g.add(rdflib_triple(t))
        return GraphResult(g)
    raise StoreError(f"unexpected query result {type(res).__name__}")
