"""Leaderboard ranks the embedded store keeps as it writes, so *find baselines* reads the
first rows of a board instead of ranking every score of it before ``LIMIT``
(benchmarks/README.md#figures-once-quoted-in-code).

An *entry* of leaderboard ``B`` is one solution ``(?value, ?score, ?run)`` of ::

    ?value rk:onLeaderboard B ; mls:hasValue ?score . ?run rk:reportedScore ?value

in the merged default graph; the board's order is ``ORDER BY DESC(?score) ?run ?value``
(:func:`board_query`, the engine's own order: Python never compares scores). The reserved
graph :data:`~reprokg.store.merge.RANKS_GRAPH` (never a document, never merged, not
dumped) holds per board its *window*, the first :data:`WINDOW` entries, packed by
:data:`BUCKET` in one literal each (JSON: per entry its three terms in N-Triples and, per
path of :data:`PATHS`, the names its run reaches, one per path solution: the filters'
and the run's tags)::

    <B#ranks-0>  rks:entries "[[value, score, run, [toolkit…], [method…], [os…], [tag…]], …]" .
    <B>          rks:windowSize n .            # n < WINDOW: the window is the whole board
    <B>          rks:entryCount n .            # the board's entries, all of them
    <B>          rks:stale "…" .               # ranks of B not current: not read

The count lets a page of find-baselines say of how many entries it is without counting
them (a count reads every score of the board:
benchmarks/README.md#the-scale-table-field-shaped-documents-on-three-backends-issue-43).

One lookup reads a hundred entries with their tags, and a filter is a comparison of names
already there: with a triple per slot field a request made five lookups an entry and a
toolkit filter four more (benchmarks/README.md#figures-once-quoted-in-code).

Maintenance, by the one writer, around each write (:class:`Plan`, :func:`mark_stale`,
:func:`after_write`): the *touched values* are the subjects of ``rk:onLeaderboard`` /
``mls:hasValue`` and the objects of ``rk:reportedScore`` written or dropped; the *touched
runs* are those whose paths (filters, tags) go through a triple written or dropped (walked back
from it in the merge before the write: a path that a write makes or breaks has its first
changed triple there, reached from the run by triples that stay). The affected boards are
those of the touched values and runs in the merge before the write plus the boards
written. Before the write, one small transaction marks them stale; after it, one update
gives each board its new window = the first WINDOW of (old window without the touched
values' entries) ∪ (the touched values' entries now), or a full re-rank when a full window
lost an entry (entries beyond it may move in) or the board has no window, with the names
of new entries and of touched runs read again, and drops the stale marks. Only changed
buckets are rewritten. The count moves by the touched values' entries after the write less
their entries before it (:meth:`Plan.count_before`: an entry of an untouched value cannot
change); a board is counted again (O(board)) when that is not known: a value found only
after the write (an update's), a blank node, a store whose ranks kept no count.

A crash between leaves stale marks: the reference query answers for those boards until
the next writable open re-ranks them (:func:`repair`). A store without
:data:`~reprokg.store.merge.RANKS_MARKER` (older, bulk-loaded, or a merge rebuild under
way) has no usable ranks until :func:`rebuild_all`. A board with a blank node among its
entries keeps its stale mark and no window (a blank node cannot be named in SPARQL
``VALUES``): the reference query answers for it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor

import pyoxigraph as ox

from reprokg.store.bulk import engine_threads
from reprokg.store.merge import MERGED_MARKER, RANKS_GRAPH, RANKS_MARKER, RANKS_MARKER_V1
from reprokg.store.terms import solutions, value

RK = "https://w3id.org/reprokg/ontology#"
MLS = "http://www.w3.org/ns/mls#"
RKS = "https://w3id.org/reprokg/store#"
SCHEMA = "http://schema.org/"
#: entries kept per board: the named queries' largest LIMIT (sparql/named.py MAX_LIMIT)
WINDOW = 1000
#: entries per packed literal
BUCKET = 100
#: find-baselines' filters the windows answer: the path from a run to the name compared
#: (``queries/find-baselines.rq``, the lines of each optional parameter; a test holds
#: them equal)
FILTER_PATHS: dict[str, tuple[str, ...]] = {
    "toolkit": (RK + "platform", RK + "software", RK + "retrievalToolkit", SCHEMA + "name"),
    "method": (RK + "method", RK + "retrievalStage", RK + "stageMethod"),
    "platform": (RK + "platform", RK + "operatingSystem", RK + "distribution"),
}
FILTERS = tuple(FILTER_PATHS)
#: every path whose names a window keeps: the filters', and the run's tags (what the
#: answer shows of each run; kept here, the answer needs no lookup per run)
PATHS: dict[str, tuple[str, ...]] = {**FILTER_PATHS, "tag": (RK + "runTag",)}

ON_BOARD = ox.NamedNode(RK + "onLeaderboard")
HAS_VALUE = ox.NamedNode(MLS + "hasValue")
REPORTED = ox.NamedNode(RK + "reportedScore")
_P_ENTRIES, _P_WINDOW, _P_STALE, _P_COUNT = (
    ox.NamedNode(RKS + x) for x in ("entries", "windowSize", "stale", "entryCount")
)
_G = ox.NamedNode(RANKS_GRAPH)
_INT = ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")
#: predicate -> (filter index, position in its path), for every step of every path
_STEPS: dict[ox.NamedNode, list[tuple[int, int]]] = {}
for _i, _path in enumerate(PATHS.values()):
    for _depth, _p in enumerate(_path):
        _STEPS.setdefault(ox.NamedNode(_p), []).append((_i, _depth))
#: every predicate whose triples a write must report to :class:`Plan`
WATCHED = frozenset({ON_BOARD, HAS_VALUE, REPORTED, *_STEPS})

#: (value, score, run) in N-Triples
Entry = tuple[str, str, str]
#: names per path of :data:`PATHS` (sorted; one per solution of the path)
Names = tuple[tuple[str, ...], ...]
#: an entry of a window and its run's names
Row = tuple[str, str, str, Names]


def board_query(board: str, limit: int | None = None) -> str:
    """Every entry of one board in the reference order (the first ``limit``, by default
    the window)."""
    lim = f" LIMIT {limit or WINDOW}"
    return (
        "SELECT ?value ?score ?run WHERE { "
        f"?value <{RK}onLeaderboard> <{board}> . ?value <{MLS}hasValue> ?score . "
        f"?run <{RK}reportedScore> ?value }} ORDER BY DESC(?score) ?run ?value{lim}"
    )


def count_query(board: str) -> str:
    """How many entries one board has (reads every score on it)."""
    return (
        "SELECT (COUNT(*) AS ?n) WHERE { "
        f"?value <{RK}onLeaderboard> <{board}> . ?value <{MLS}hasValue> ?score . "
        f"?run <{RK}reportedScore> ?value }}"
    )


def _count(store: ox.Store, board: str) -> int:
    for r in solutions(store, count_query(board)):
        return int(value(r[0]))
    return 0


def window_size(store: ox.Store, board: str) -> int | None:
    """How many entries the window of ``board`` holds; ``None`` when its ranks are not
    current (no ranks in the store, a merge not complete, the board marked stale)."""
    snap = _snapshot(store, board, 0)
    return None if snap is None else snap[0]


def entry_count(store: ox.Store, board: str) -> int | None:
    """How many entries ``board`` has, all of them; ``None`` when its ranks are not
    current or kept no count (ranks written before counts were kept)."""
    snap = _snapshot(store, board, 0)
    return None if snap is None else snap[1]


def _stored_size(store: ox.Store, board: str) -> int | None:
    for q in store.quads_for_pattern(ox.NamedNode(board), _P_WINDOW, None, _G):
        return int(value(q.object))
    return None


def _stored_count(store: ox.Store, board: str) -> int | None:
    for q in store.quads_for_pattern(ox.NamedNode(board), _P_COUNT, None, _G):
        return int(value(q.object))
    return None


def _bucket(board: str, k: int) -> ox.NamedNode:
    return ox.NamedNode(f"{board}#ranks-{k}")


def _rows(store: ox.Store, board: str, size: int) -> Iterator[Row]:
    """The window's rows in rank order, a bucket read at a time (at most ``size``)."""
    seen = 0
    for k in range(-(-size // BUCKET)):
        for q in store.quads_for_pattern(_bucket(board, k), _P_ENTRIES, None, _G):
            for row in _unpack(value(q.object)):
                if seen == size:
                    return
                seen += 1
                yield row


def _unpack(text: str) -> Iterator[Row]:
    """The rows of one packed bucket (:func:`_pack`)."""
    for e in json.loads(text):
        yield (e[0], e[1], e[2], tuple(tuple(x) for x in e[3:]))


def read_window(store: ox.Store, board: str) -> list[Row]:
    """The stored window of ``board`` in rank order."""
    return list(_rows(store, board, _stored_size(store, board) or 0))


def _snapshot(
    store: ox.Store, board: str, buckets: int
) -> tuple[int, int | None, list[str]] | None:
    """The board's window size, its entry count and its first ``buckets`` packed
    literals, read by one query, so from one snapshot: a write that commits between two
    reads cannot tear a window (one bucket from before it, the next from after). ``None``
    when the ranks are not current (no ranks, a merge not complete, the board stale)."""
    b = f"<{board}>"
    listed = " ".join(f"({k} <{board}#ranks-{k}>)" for k in range(buckets))
    q = (
        f"SELECT ?size ?count ?stale ?k ?entries WHERE {{ GRAPH <{RANKS_MARKER}> {{}} "
        f"GRAPH <{MERGED_MARKER}> {{}} "
        f"OPTIONAL {{ GRAPH <{RANKS_GRAPH}> {{ {b} <{RKS}windowSize> ?size }} }} "
        f"OPTIONAL {{ GRAPH <{RANKS_GRAPH}> {{ {b} <{RKS}entryCount> ?count }} }} "
        f"OPTIONAL {{ GRAPH <{RANKS_GRAPH}> {{ {b} <{RKS}stale> ?stale }} }} "
        f"OPTIONAL {{ VALUES (?k ?bucket) {{ {listed} }} "
        f"GRAPH <{RANKS_GRAPH}> {{ ?bucket <{RKS}entries> ?entries }} }} }}"
    )
    rows = list(solutions(store, q))
    if not rows or any(r["stale"] is not None for r in rows):
        return None
    size = int(value(rows[0]["size"])) if rows[0]["size"] is not None else 0
    stored = rows[0]["count"]
    # a window short of WINDOW is the whole board: its size is the count
    count = int(value(stored)) if stored is not None else (size if size < WINDOW else None)
    found = {int(value(r["k"])): value(r["entries"]) for r in rows if r["k"] is not None}
    return size, count, [found[k] for k in sorted(found)]


def top(
    store: ox.Store, board: str, limit: int, filters: Mapping[str, str]
) -> list[tuple[str, str, tuple[str, ...]]] | None:
    """The first ``limit`` rows find-baselines ranks for ``board`` with ``filters``
    (filter -> the name compared, in N-Triples): ``(run, score, the run's tags)`` in
    N-Triples, an entry once per solution of its filters' paths, as the template's joins
    give it. ``None`` when the ranks cannot tell: not current, or a full window (the
    board may go on) holding fewer than ``limit`` such rows."""
    buckets = -(-(WINDOW if filters else limit) // BUCKET)
    snap = _snapshot(store, board, buckets)
    if snap is None:
        return None
    size, _count, packed = snap
    wanted = [(FILTERS.index(f), name) for f, name in filters.items()]
    tags = len(FILTERS)
    out: list[tuple[str, str, tuple[str, ...]]] = []
    for text in packed:
        for _value, score, run, names in _unpack(text):
            times = 1
            for i, name in wanted:
                times *= names[i].count(name)
            out += [(run, score, names[tags])] * times
            if len(out) >= limit:
                return out[:limit]
    return out if size < WINDOW else None


# ------------------------------------------------------------------ writing windows


#: more runs than this: their names read by one scan of each path, not by VALUES blocks
#: (the two meet near this many runs: benchmarks/README.md#figures-once-quoted-in-code)
SCAN_RUNS = 5000


def _path_rows(store: ox.Store, path: tuple[str, ...], runs: list[str]) -> list[tuple[str, str]]:
    """(run, name) for each solution of ``path`` from ``runs`` (every run when empty)."""
    hops = " . ".join(f"?x{j} <{p}> ?x{j + 1}" for j, p in enumerate(path))
    bound = f"VALUES ?x0 {{ {' '.join(runs)} }} " if runs else ""
    q = f"SELECT ?x0 ?x{len(path)} WHERE {{ {bound}{hops} }}"
    return [(str(r[0]), str(r[1])) for r in solutions(store, q)]


def _collect(runs: Iterable[str], rows: Iterable[list[tuple[str, str]]]) -> dict[str, Names]:
    """Each run's names per path, from the rows of each path in :data:`PATHS` order."""
    found: dict[str, list[list[str]]] = {r: [[] for _ in PATHS] for r in runs}
    for i, path_rows in enumerate(rows):
        for run, name in path_rows:
            names = found.get(run)
            if names is not None:
                names[i].append(name)
    return {r: tuple(tuple(sorted(x)) for x in v) for r, v in found.items()}


def _names(store: ox.Store, runs: Iterable[str]) -> dict[str, Names]:
    """Each run's names per path in the merge now (one per solution of the path): by
    ``VALUES`` blocks, or by one scan of each path past :data:`SCAN_RUNS` runs."""
    order = sorted(set(runs))
    if not order:
        return {}
    scan = len(order) > SCAN_RUNS
    blocks = [[]] if scan else [order[k : k + 500] for k in range(0, len(order), 500)]
    rows = [
        [row for block in blocks for row in _path_rows(store, path, block)]
        for path in PATHS.values()
    ]
    return _collect(order, rows)


def _pack(rows: list[Row]) -> ox.Literal:
    return ox.Literal(
        json.dumps(
            [[v, s, r, *(list(n) for n in names)] for v, s, r, names in rows],
            ensure_ascii=False,
            separators=(",", ":"),
        )
    )


#: a node of the ranks graph and its predicate, whose value an update drops
Slot = tuple[ox.NamedNode, ox.NamedNode]


def _window_ops(
    board: str, old: list[Row], new: list[Row], count: int | None
) -> tuple[list[Slot], list[ox.Quad]]:
    """(values to drop, quads to insert) turning window ``old`` into ``new`` of a board
    of ``count`` entries; the board's size and count are always rewritten (they may not
    be stored yet)."""
    clear: list[Slot] = []
    ins: list[ox.Quad] = []
    for k in range(-(-max(len(old), len(new)) // BUCKET)):
        o, n = old[k * BUCKET : (k + 1) * BUCKET], new[k * BUCKET : (k + 1) * BUCKET]
        if o == n:
            continue
        if o:
            clear.append((_bucket(board, k), _P_ENTRIES))
        if n:
            ins.append(ox.Quad(_bucket(board, k), _P_ENTRIES, _pack(n), _G))
    b = ox.NamedNode(board)
    clear += [(b, _P_WINDOW), (b, _P_COUNT)]
    ins.append(ox.Quad(b, _P_WINDOW, ox.Literal(str(len(new)), datatype=_INT), _G))
    if count is not None:
        ins.append(ox.Quad(b, _P_COUNT, ox.Literal(str(count), datatype=_INT), _G))
    return clear, ins


def _text(quads: Iterable[ox.Quad]) -> str:
    return "\n".join(f"{q.subject} {q.predicate} {q.object} ." for q in quads)


def _apply(store: ox.Store, clear: list[Slot], ins: list[ox.Quad], done: Iterable[str]) -> None:
    """One transaction: the windows' changes, and the stale marks of ``done`` dropped."""
    ops = [f"DELETE WHERE {{ GRAPH <{RANKS_GRAPH}> {{ {n} {p} ?x }} }}" for n, p in clear]
    ops += [f"DELETE WHERE {{ GRAPH <{RANKS_GRAPH}> {{ <{b}> <{RKS}stale> ?x }} }}" for b in done]
    if ins:
        ops.append(f"INSERT DATA {{ GRAPH <{RANKS_GRAPH}> {{ {_text(ins)} }} }}")
    if ops:
        store.update(" ;\n".join(ops))


def _ranked(store: ox.Store, board: str) -> list[Entry] | None:
    """The board's first WINDOW entries by the reference query (O(board)); ``None`` when
    one has a blank node."""
    rows = list(solutions(store, board_query(board)))
    if any(isinstance(t, ox.BlankNode) for r in rows for t in r):
        return None
    return [(str(r[0]), str(r[1]), str(r[2])) for r in rows]


def _total(store: ox.Store, board: str, window: list[Entry] | None) -> int | None:
    """The count of a board ranked in full: its window's length when the window is the
    whole board, else counted (``None`` for a board left stale)."""
    if window is None:
        return None
    return len(window) if len(window) < WINDOW else _count(store, board)


def _with_names(entries: list[Entry], names: Mapping[str, Names]) -> list[Row]:
    return [(v, s, r, names[r]) for v, s, r in entries]


def rebuild_all(store: ox.Store, batch: int = 200_000) -> dict:
    """Every board ranked from scratch (a store without ranks; after a merge rebuild):
    the ranks dropped with the marker in one transaction, each board's window read by
    :func:`board_query`, its runs' names read once, all of it bulk-written, the marker
    created last. A crash meanwhile leaves no marker, so no ranks are read and the next
    writable open rebuilds them (the bulk writer's leftovers are removed then too): the
    write needs no transaction, and one per board (SPARQL text) was half of the ranks'
    rebuild."""
    t0 = time.perf_counter()
    store.update(
        " ; ".join(f"DROP SILENT GRAPH <{g}>" for g in (RANKS_MARKER, RANKS_MARKER_V1, RANKS_GRAPH))
    )
    boards = [
        value(r[0])
        for r in solutions(store, f"SELECT DISTINCT ?b WHERE {{ ?v <{RK}onLeaderboard> ?b }}")
        if isinstance(r[0], ox.NamedNode)
    ]
    # the scans of the paths (every run's names) and the boards' queries on several
    # threads at once (pyoxigraph releases the GIL;
    # benchmarks/README.md#figures-once-quoted-in-code)
    with ThreadPoolExecutor(engine_threads()) as pool:
        scans = [pool.submit(_path_rows, store, path, []) for path in PATHS.values()]
        windows = dict(zip(boards, pool.map(lambda b: _ranked(store, b), boards), strict=True))
        counts = dict(
            zip(boards, pool.map(lambda b: _total(store, b, windows[b]), boards), strict=True)
        )
        runs = {e[2] for w in windows.values() if w for e in w}
        names = _collect(runs, (f.result() for f in scans))
    n = 0
    pending: list[ox.Quad] = []
    for board, window in windows.items():
        if window is None:
            pending += stale_quads([board])
            continue
        _clear, ins = _window_ops(board, [], _with_names(window, names), counts[board])
        n += len(ins)
        pending += ins
        if len(pending) >= batch:
            store.bulk_extend(pending)
            pending = []
    if pending:
        store.bulk_extend(pending)
    store.update(f"CREATE SILENT GRAPH <{RANKS_MARKER}>")
    return {"boards": len(boards), "quads": n, "seconds": round(time.perf_counter() - t0, 3)}


def repair(store: ox.Store) -> int:
    """Re-rank every board marked stale (a writable open after a crash), names and all."""
    boards = sorted({value(q.subject) for q in store.quads_for_pattern(None, _P_STALE, None, _G)})
    for b in boards:
        old = {b: read_window(store, b)}
        window = _ranked(store, b)
        _settle(store, {b: window}, old, {b: _total(store, b, window)}, set(), names_current=False)
    return len(boards)


def maintained(store: ox.Store) -> bool:
    """Whether the store keeps ranks (else writes skip their maintenance)."""
    return store.contains_named_graph(ox.NamedNode(RANKS_MARKER))


def suspend(store: ox.Store) -> bool:
    """Before a write too big to plan board by board (a bulk restore): the marker dropped
    in a transaction of its own, so no ranks are read until :func:`rebuild_all` (a crash
    meanwhile leaves the next writable open to rank the store). Whether it had ranks."""
    if not maintained(store):
        return False
    store.update(f"DROP SILENT GRAPH <{RANKS_MARKER}>")
    return True


def resume(store: ox.Store) -> None:
    """The marker back after a suspended write that wrote nothing (it failed): the ranks
    are as they were."""
    store.update(f"CREATE SILENT GRAPH <{RANKS_MARKER}>")


# ------------------------------------------------------------------ around a write


class Plan:
    """What one write does to the ranks: the touched values, the nodes of filter paths
    whose triples it writes or drops (walked back to their runs), the affected boards."""

    __slots__ = ("before", "boards", "counted", "path_nodes", "runs", "values")

    def __init__(self) -> None:
        self.values: set[ox.NamedNode | ox.BlankNode] = set()
        self.boards: set[str] = set()
        self.path_nodes: set[tuple[object, int, int]] = set()
        self.runs: set[str] = set()
        #: the values whose entries :meth:`count_before` counted, and those entries by board
        self.counted: frozenset[ox.NamedNode | ox.BlankNode] = frozenset()
        self.before: dict[str, int] = {}

    def __bool__(self) -> bool:
        return bool(self.values or self.boards or self.path_nodes)

    def add_triple(self, s: object, p: object, o: object) -> None:
        """One written or dropped triple (pyoxigraph terms)."""
        if p == ON_BOARD:
            self.values.add(s)  # type: ignore[arg-type]  # a subject is a named or blank node
            if isinstance(o, ox.NamedNode):
                self.boards.add(o.value)
        elif p == HAS_VALUE:
            self.values.add(s)  # type: ignore[arg-type]  # a subject is a named or blank node
        elif p == REPORTED and isinstance(o, ox.NamedNode | ox.BlankNode):
            self.values.add(o)
        # p is a NamedNode when it is a key
        for i, depth in _STEPS.get(p, ()):  # type: ignore[call-overload]
            self.path_nodes.add((s, i, depth))

    def add_graph(self, store: ox.Store, graph: str) -> None:
        """The triples of a stored graph (one the write replaces or drops, or has written)."""
        g = ox.NamedNode(graph)
        for p in WATCHED:
            for q in store.quads_for_pattern(None, p, None, g):
                self.add_triple(q.subject, q.predicate, q.object)

    def add_boards_of_values(self, store: ox.Store) -> None:
        """The boards the touched values, and the runs of the touched path nodes, are on
        in the merge as it is now."""
        dg = ox.DefaultGraph()
        paths = list(PATHS.values())
        values = set(self.values)
        for node, i, depth in self.path_nodes:
            nodes = {node}
            for p in reversed(paths[i][:depth]):
                pred = ox.NamedNode(p)
                nodes = {
                    q.subject
                    for n in nodes
                    if not isinstance(n, ox.Literal)
                    # literals skipped above
                    for q in store.quads_for_pattern(None, pred, n, dg)  # type: ignore[arg-type]
                }
            for run in nodes:
                if isinstance(run, ox.NamedNode | ox.BlankNode):
                    self.runs.add(str(run))
                    values.update(
                        q.object
                        for q in store.quads_for_pattern(run, REPORTED, None, dg)
                        if isinstance(q.object, ox.NamedNode | ox.BlankNode)
                    )
        self.path_nodes.clear()  # walked: a second call (after an update) walks only new ones
        for v in values:
            for q in store.quads_for_pattern(v, ON_BOARD, None, dg):
                if isinstance(q.object, ox.NamedNode):
                    self.boards.add(q.object.value)

    def count_before(self, store: ox.Store) -> None:
        """Before the write: the touched values' entries by board, so that after it each
        board's count moves by the difference instead of being counted again. Only an
        entry of a touched value can change (each of its triples names the value). A
        blank node cannot be named: nothing counted then (the boards are counted after)."""
        if any(isinstance(v, ox.BlankNode) for v in self.values):
            return
        # no blank node: every value is named
        now = _entries_of(store, self.values)  # type: ignore[arg-type]
        self.before = {b: len(e) for b, e in now.items()}
        self.counted = frozenset(self.values)


def stale_quads(boards: Iterable[str], tx: str = "write") -> list[ox.Quad]:
    return [ox.Quad(ox.NamedNode(b), _P_STALE, ox.Literal(tx), _G) for b in boards]


def stale_insert(boards: Iterable[str]) -> str:
    """The stale marks as one SPARQL Update operation (to ride along in a write's update)."""
    return f"INSERT DATA {{ GRAPH <{RANKS_GRAPH}> {{ {_text(stale_quads(boards))} }} }}"


def mark_stale(store: ox.Store, boards: Iterable[str]) -> None:
    """Before the write, its own small transaction."""
    quads = stale_quads(boards)
    if quads:
        store.extend(quads)


def _entries_of(store: ox.Store, values: Iterable[ox.NamedNode]) -> dict[str, list]:
    """The touched values' board entries in the merge now, by board (pyoxigraph terms)."""
    out: dict[str, list] = {}
    vals = list(values)
    for i in range(0, len(vals), 500):
        block = " ".join(str(v) for v in vals[i : i + 500])
        q = (
            f"SELECT ?b ?value ?score ?run WHERE {{ VALUES ?value {{ {block} }} "
            f"?value <{RK}onLeaderboard> ?b . ?value <{MLS}hasValue> ?score . "
            f"?run <{RK}reportedScore> ?value }}"
        )
        for r in solutions(store, q):
            if isinstance(r[0], ox.NamedNode):
                out.setdefault(r[0].value, []).append((r[1], r[2], r[3]))
    return out


def _order(store: ox.Store, rows: list[Entry]) -> list[Entry]:
    """``rows`` in the reference order, by the engine (the first WINDOW)."""
    if not rows:
        return []
    table = " ".join(f"({v} {s} {r})" for v, s, r in rows)
    q = (
        f"SELECT ?value ?score ?run WHERE {{ VALUES (?value ?score ?run) {{ {table} }} }} "
        f"ORDER BY DESC(?score) ?run ?value LIMIT {WINDOW}"
    )
    return [(str(r[0]), str(r[1]), str(r[2])) for r in solutions(store, q)]


def _settle(
    store: ox.Store,
    windows: Mapping[str, list[Entry] | None],
    olds: Mapping[str, list[Row]],
    counts: Mapping[str, int | None],
    touched_runs: set[str],
    *,
    names_current: bool,
) -> None:
    """Write the boards' new windows (their stored ones: ``olds``) and ``counts`` in one
    update that drops their stale marks. A run's names come from the board's old window when those
    are current (after a write, for runs it did not touch), else from the merge now
    (repair: all of them). ``None``: the board has a blank node among its entries; its
    window goes and it stays stale."""
    known: dict[str, Names] = {}
    if names_current:
        known = {r[2]: r[3] for old in olds.values() for r in old if r[2] not in touched_runs}
    known.update(_names(store, {e[2] for w in windows.values() if w for e in w} - set(known)))
    clear: list[Slot] = []
    ins: list[ox.Quad] = []
    done: list[str] = []
    for b, window in windows.items():
        c, i = _window_ops(b, olds[b], _with_names(window or [], known), counts.get(b))
        clear += c
        if window is not None:
            ins += i
            done.append(b)
    _apply(store, clear, ins, done)


def after_write(store: ox.Store, plan: Plan) -> dict:
    """After the write committed: the affected boards' windows and counts brought up to
    date in one update that also drops their stale marks (boards with a blank node stay
    stale)."""
    t0 = time.perf_counter()
    values = plan.values
    keys = {str(v) for v in values}
    # a blank node cannot be named in VALUES: every affected board re-ranked in full then
    blank = any(isinstance(v, ox.BlankNode) for v in values)
    # not blank: every value is named
    now = None if blank else _entries_of(store, values)  # type: ignore[arg-type]
    windows: dict[str, list[Entry] | None] = {}
    olds: dict[str, list[Row]] = {}
    counts: dict[str, int | None] = {}
    # every entry that may have changed was counted before the write (else: count again)
    delta_known = now is not None and values <= plan.counted
    full = 0
    for b in sorted(plan.boards):
        size = _stored_size(store, b)
        olds[b] = list(_rows(store, b, size or 0))
        old = [r[:3] for r in olds[b]]
        fresh = now.get(b, []) if now is not None else []
        fresh_blank = any(isinstance(t, ox.BlankNode) for e in fresh for t in e)
        fresh_keys = [(str(v), str(s), str(r)) for v, s, r in fresh]
        kept = [e for e in old if e[0] not in keys]
        lost = any(e not in fresh_keys for e in old if e[0] in keys)
        if now is None or fresh_blank or size is None or (len(old) >= WINDOW and lost):
            windows[b] = _ranked(store, b)
            full += 1
        elif len(kept) == len(old) and not fresh_keys:
            windows[b] = old  # only names may change (a touched run)
        else:
            windows[b] = _order(store, kept + fresh_keys)
        window = windows[b]
        stored = _stored_count(store, b)
        if window is not None and len(window) < WINDOW:
            counts[b] = len(window)  # the window is the whole board
        elif window is not None and delta_known and stored is not None:
            counts[b] = stored - plan.before.get(b, 0) + len(fresh)
        else:
            counts[b] = _total(store, b, window)
    _settle(store, windows, olds, counts, plan.runs, names_current=True)
    return {"boards": len(plan.boards), "full_reranks": full, "seconds": time.perf_counter() - t0}
