"""Leaderboard ranks the embedded store keeps as it writes, so *find baselines* reads the
first rows of a board instead of ranking all of it (issue 17: p50 236 ms at 10M triples
ranking every score of the board before ``LIMIT``, 18 ms reading the ranks).

An *entry* of leaderboard ``B`` is one solution ``(?value, ?score, ?run)`` of ::

    ?value rk:onLeaderboard B ; mls:hasValue ?score . ?run rk:reportedScore ?value

in the merged default graph; the board's order is ``ORDER BY DESC(?score) ?run ?value``
(:func:`board_query`, the engine's own order: Python never compares scores). The reserved
graph :data:`~reprokg.store.merge.RANKS_GRAPH` (never a document, never merged, not
dumped) holds per board its *window*, the first :data:`WINDOW` entries::

    <B#rank-17>  rks:rank 17 ; rks:value ?value ; rks:score ?score ; rks:run ?run .
    <B#ranks-0>  rks:slot <B#rank-1> , … , <B#rank-100> .     # buckets of 100 slots
    <B>          rks:windowSize n .            # n < WINDOW: the window is the whole board
    <B>          rks:stale "…" .               # ranks of B not current: not read

Maintenance, by the one writer, around each write (:func:`plan`, :func:`mark_stale`,
:func:`after_write`): the *touched values* are the subjects of ``rk:onLeaderboard`` /
``mls:hasValue`` and the objects of ``rk:reportedScore`` written or dropped; the affected
boards are theirs in the merge before the write plus the boards written. Before the
write, one small transaction marks them stale; after it, one update gives each board its
new window = the first WINDOW of (old window without the touched values' entries) ∪ (the
touched values' entries now), or a full re-rank when a full window lost an entry (entries
beyond it may move in), and drops the stale marks. Only changed slots are rewritten.

A crash between leaves stale marks: the reference query answers for those boards until
the next writable open re-ranks them (:func:`repair`). A store without
:data:`~reprokg.store.merge.RANKS_MARKER` (older, bulk-loaded, or a merge rebuild under
way) has no usable ranks until :func:`rebuild_all`. A board with a blank node among its
entries keeps its stale mark (a blank node cannot be named in SPARQL ``VALUES`` or
``DELETE DATA``): the reference query answers for it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

import pyoxigraph as ox

from reprokg.store.merge import MERGED_MARKER, RANKS_GRAPH, RANKS_MARKER

RK = "https://w3id.org/reprokg/ontology#"
MLS = "http://www.w3.org/ns/mls#"
RKS = "https://w3id.org/reprokg/store#"
#: entries kept per board: the named queries' largest LIMIT (sparql/named.py MAX_LIMIT)
WINDOW = 1000
BUCKET = 100

ON_BOARD = ox.NamedNode(RK + "onLeaderboard")
HAS_VALUE = ox.NamedNode(MLS + "hasValue")
REPORTED = ox.NamedNode(RK + "reportedScore")
_P_RANK, _P_VALUE, _P_SCORE, _P_RUN = (
    ox.NamedNode(RKS + x) for x in ("rank", "value", "score", "run")
)
_P_SLOT, _P_WINDOW, _P_STALE = (ox.NamedNode(RKS + x) for x in ("slot", "windowSize", "stale"))
_TERMS = (_P_VALUE, _P_SCORE, _P_RUN)
_G = ox.NamedNode(RANKS_GRAPH)
_INT = ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")

Entry = tuple[ox.NamedNode, ox.Literal, ox.NamedNode]


def board_query(board: str, limit: int | None = None) -> str:
    """Every entry of one board in the reference order (the first ``limit``, by default
    the window)."""
    lim = f" LIMIT {limit or WINDOW}"
    return (
        "SELECT ?value ?score ?run WHERE { "
        f"?value <{RK}onLeaderboard> <{board}> . ?value <{MLS}hasValue> ?score . "
        f"?run <{RK}reportedScore> ?value }} ORDER BY DESC(?score) ?run ?value{lim}"
    )


def window_pattern(board: str, limit: int, *, value: bool = False) -> str:
    """SPARQL group pattern binding ``?rank ?run ?score`` (and ``?value``: one more
    lookup per entry) for the first ``limit`` entries of ``board`` (read by index: the
    buckets covering ``limit``)."""
    buckets = " ".join(f"<{board}#ranks-{b}>" for b in range(-(-limit // BUCKET)))
    also = f" ; <{RKS}value> ?value" if value else ""
    return (
        f"VALUES ?rankBucket {{ {buckets} }} GRAPH <{RANKS_GRAPH}> {{ "
        f"?rankBucket <{RKS}slot> ?rankSlot . ?rankSlot <{RKS}rank> ?rank . "
        f"FILTER(?rank <= {limit}) ?rankSlot <{RKS}run> ?run ; <{RKS}score> ?score{also} }}"
    )


def window_size(store: ox.Store, board: str) -> int | None:
    """How many entries the window of ``board`` holds; ``None`` when its ranks are not
    current (no ranks in the store, a merge not complete, the board marked stale)."""
    if not store.contains_named_graph(ox.NamedNode(RANKS_MARKER)):
        return None
    if not store.contains_named_graph(ox.NamedNode(MERGED_MARKER)):
        return None
    b = ox.NamedNode(board)
    if any(True for _ in store.quads_for_pattern(b, _P_STALE, None, _G)):
        return None
    for q in store.quads_for_pattern(b, _P_WINDOW, None, _G):
        return int(q.object.value)
    return 0  # a board without entries (or unknown): nothing to rank


def read_window(store: ox.Store, board: str) -> list[Entry]:
    """The stored window of ``board`` in rank order."""
    q = (
        "SELECT ?value ?score ?run WHERE { "
        + window_pattern(board, WINDOW, value=True).replace(f"FILTER(?rank <= {WINDOW}) ", "")
        + " } ORDER BY ?rank"
    )
    return [(r[0], r[1], r[2]) for r in store.query(q)]  # type: ignore[misc]


def _slot(board: str, i: int) -> ox.NamedNode:
    return ox.NamedNode(f"{board}#rank-{i}")


def _bucket(board: str, i: int) -> ox.NamedNode:
    return ox.NamedNode(f"{board}#ranks-{i // BUCKET}")


def _num(n: int) -> ox.Literal:
    return ox.Literal(str(n), datatype=_INT)


def _window_ops(
    store: ox.Store, board: str, old: Sequence[Entry], new: Sequence[Entry]
) -> tuple[list[ox.Quad], list[ox.Quad]]:
    """(quads to delete, quads to insert) turning window ``old`` into ``new``."""
    dels: list[ox.Quad] = []
    ins: list[ox.Quad] = []
    for i in range(max(len(old), len(new))):
        slot = _slot(board, i + 1)
        o = old[i] if i < len(old) else None
        n = new[i] if i < len(new) else None
        if o == n:
            continue
        if o is not None:
            dels += [ox.Quad(slot, p, t, _G) for p, t in zip(_TERMS, o, strict=True)]
            if n is None:
                dels += [
                    ox.Quad(slot, _P_RANK, _num(i + 1), _G),
                    ox.Quad(_bucket(board, i), _P_SLOT, slot, _G),
                ]
        if n is not None:
            ins += [ox.Quad(slot, p, t, _G) for p, t in zip(_TERMS, n, strict=True)]
            if o is None:
                ins += [
                    ox.Quad(slot, _P_RANK, _num(i + 1), _G),
                    ox.Quad(_bucket(board, i), _P_SLOT, slot, _G),
                ]
    b = ox.NamedNode(board)
    dels += list(store.quads_for_pattern(b, _P_WINDOW, None, _G))
    ins.append(ox.Quad(b, _P_WINDOW, _num(len(new)), _G))
    return dels, ins


def _text(quads: Iterable[ox.Quad]) -> str:
    return "\n".join(f"{q.subject} {q.predicate} {q.object} ." for q in quads)


def _apply(store: ox.Store, dels: list[ox.Quad], ins: list[ox.Quad], done: Iterable[str]) -> None:
    """One transaction: the window changes, and the stale marks of ``done`` dropped."""
    ops = []
    if dels:
        ops.append(f"DELETE DATA {{ GRAPH <{RANKS_GRAPH}> {{ {_text(dels)} }} }}")
    ops += [f"DELETE WHERE {{ GRAPH <{RANKS_GRAPH}> {{ <{b}> <{RKS}stale> ?x }} }}" for b in done]
    if ins:
        ops.append(f"INSERT DATA {{ GRAPH <{RANKS_GRAPH}> {{ {_text(ins)} }} }}")
    if ops:
        store.update(" ;\n".join(ops))


def _blank(rows: Iterable[Entry]) -> bool:
    return any(isinstance(t, ox.BlankNode) for row in rows for t in row)


def _rerank(store: ox.Store, board: str, old: Sequence[Entry] | None) -> tuple[list, list] | None:
    """Ops of a full re-rank with the reference query (O(board)); ``None`` when an entry
    has a blank node (the board stays stale)."""
    new = [(r[0], r[1], r[2]) for r in store.query(board_query(board))]
    if _blank(new):
        return None
    return _window_ops(store, board, read_window(store, board) if old is None else old, new)


def rebuild_all(store: ox.Store, batch: int = 200_000) -> dict:
    """Every board ranked from scratch (a store without ranks; after a merge rebuild):
    the ranks dropped with the marker in one transaction, each board's window read by
    :func:`board_query` and all of them bulk-written, the marker created last. A crash
    meanwhile leaves no marker, so no ranks are read and the next writable open rebuilds
    them (the bulk writer's leftovers are removed then too): the write needs no
    transaction, and one per board (SPARQL text) was half of the ranks' rebuild."""
    t0 = time.perf_counter()
    store.update(f"DROP SILENT GRAPH <{RANKS_MARKER}> ; DROP SILENT GRAPH <{RANKS_GRAPH}>")
    boards = [
        r[0].value  # type: ignore[index]
        for r in store.query(f"SELECT DISTINCT ?b WHERE {{ ?v <{RK}onLeaderboard> ?b }}")
        if isinstance(r[0], ox.NamedNode)  # type: ignore[index]
    ]
    n = 0
    pending: list[ox.Quad] = []
    for board in boards:
        window = [(r[0], r[1], r[2]) for r in store.query(board_query(board))]  # type: ignore[index]
        if _blank(window):
            pending += stale_quads([board])
            continue
        _dels, ins = _window_ops(store, board, [], window)
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
    """Re-rank every board marked stale (a writable open after a crash)."""
    boards = {q.subject.value for q in store.quads_for_pattern(None, _P_STALE, None, _G)}
    for b in sorted(boards):  # type: ignore[type-var]
        ops = _rerank(store, b, None)  # type: ignore[arg-type]
        if ops is not None:
            _apply(store, ops[0], ops[1], [b])  # type: ignore[list-item]
    return len(boards)


def maintained(store: ox.Store) -> bool:
    """Whether the store keeps ranks (else writes skip their maintenance)."""
    return store.contains_named_graph(ox.NamedNode(RANKS_MARKER))


# ------------------------------------------------------------------ around a write


class Plan:
    """What one write does to the ranks: the touched values and the affected boards."""

    __slots__ = ("boards", "values")

    def __init__(self) -> None:
        self.values: set[ox.NamedNode | ox.BlankNode] = set()
        self.boards: set[str] = set()

    def __bool__(self) -> bool:
        return bool(self.values or self.boards)

    def add_triple(self, s: object, p: object, o: object) -> None:
        """One written or dropped triple (pyoxigraph terms)."""
        if p == ON_BOARD:
            self.values.add(s)  # type: ignore[arg-type]
            if isinstance(o, ox.NamedNode):
                self.boards.add(o.value)
        elif p == HAS_VALUE:
            self.values.add(s)  # type: ignore[arg-type]
        elif p == REPORTED and isinstance(o, ox.NamedNode | ox.BlankNode):
            self.values.add(o)

    def add_graph(self, store: ox.Store, graph: str) -> None:
        """The triples of a stored graph (one the write replaces or drops, or has written)."""
        g = ox.NamedNode(graph)
        for p in (ON_BOARD, HAS_VALUE, REPORTED):
            for q in store.quads_for_pattern(None, p, None, g):
                self.add_triple(q.subject, q.predicate, q.object)

    def add_boards_of_values(self, store: ox.Store) -> None:
        """The boards the touched values are on in the merge as it is now."""
        for v in self.values:
            for q in store.quads_for_pattern(v, ON_BOARD, None, ox.DefaultGraph()):
                if isinstance(q.object, ox.NamedNode):
                    self.boards.add(q.object.value)


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


def _entries_of(store: ox.Store, values: Iterable[ox.NamedNode]) -> dict[str, list[Entry]]:
    """The touched values' board entries in the merge now, by board."""
    out: dict[str, list[Entry]] = {}
    vals = list(values)
    for i in range(0, len(vals), 500):
        block = " ".join(str(v) for v in vals[i : i + 500])
        q = (
            f"SELECT ?b ?value ?score ?run WHERE {{ VALUES ?value {{ {block} }} "
            f"?value <{RK}onLeaderboard> ?b . ?value <{MLS}hasValue> ?score . "
            f"?run <{RK}reportedScore> ?value }}"
        )
        for r in store.query(q):
            if isinstance(r[0], ox.NamedNode):  # type: ignore[index]
                out.setdefault(r[0].value, []).append((r[1], r[2], r[3]))  # type: ignore[index]
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
    return [(r[0], r[1], r[2]) for r in store.query(q)]  # type: ignore[misc]


def after_write(store: ox.Store, plan: Plan) -> dict:
    """After the write committed: the affected boards' windows brought up to date in one
    update that also drops their stale marks (boards with a blank node stay stale)."""
    t0 = time.perf_counter()
    values = plan.values
    # a blank node cannot be named in VALUES: every affected board re-ranked in full then
    blank = any(isinstance(v, ox.BlankNode) for v in values)
    now = None if blank else _entries_of(store, values)  # type: ignore[arg-type]
    dels: list[ox.Quad] = []
    ins: list[ox.Quad] = []
    done: list[str] = []
    full = 0
    for b in sorted(plan.boards):
        old = read_window(store, b)
        fresh = now.get(b, []) if now is not None else []
        kept = [e for e in old if e[0] not in values]
        lost = any(e not in fresh for e in old if e[0] in values)
        if now is None or _blank(fresh) or (len(old) >= WINDOW and lost):
            ops = _rerank(store, b, old)
            full += 1
        else:
            ops = _window_ops(store, b, old, _order(store, kept + fresh))
        if ops is None:
            continue
        dels += ops[0]
        ins += ops[1]
        done.append(b)
    _apply(store, dels, ins, done)
    return {"boards": len(plan.boards), "full_reranks": full, "seconds": time.perf_counter() - t0}
