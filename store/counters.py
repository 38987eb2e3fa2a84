"""Figures the embedded store keeps as it writes: the number of documents and a store
version, crash-consistent with the writes and read without a scan (``/health``, result
caches).

Representation (the reserved named graph :data:`~reprokg.store.merge.COUNTERS_GRAPH`,
never a document, never merged, not dumped): every write transaction adds ONE quad ::

    <https://w3id.org/reprokg/store#tx/{uuid}> rks:documentsDelta "d"^^xsd:integer .

in the same transaction as the write (an *insert*, so it rides along in ``extend``,
``load``, the bulk loader's SST ingestion or a SPARQL Update alike). ``d`` is the change
of the document count, computed by the one writer before writing (+1 per new graph, -1
per dropped one, 0 for a rewrite).

* documents = the sum of the deltas; version = their number + ``rks:foldedWrites``. Both
  are read at open from at most a few hundred quads, then kept in the process;
* folding: beyond :data:`FOLD_AT` deltas one update replaces them by one base delta (their
  sum) and adds their number, less one, to ``rks:foldedWrites`` (the version stays);
* a write whose effect on the documents is not known (a SPARQL Update with ``GRAPH ?g``,
  ``DROP ALL``; a restore; raw pyoxigraph writes) recounts: the deltas are replaced by one
  base delta = the number of document graphs (pyoxigraph's graph index, no quad scan);
* a store without :data:`COUNTERS_MARKER` (older, or bulk-loaded by hand) is counted at
  its first writable open; opened read-only, it is counted at open (O(graphs), once).

A crash loses a whole write together with its delta (one transaction), so the count
never drifts from the store.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

import pyoxigraph as ox

from reprokg.store.merge import COUNTERS_GRAPH, COUNTERS_MARKER, RESERVED_GRAPHS
from reprokg.store.terms import solutions, value

RKS = "https://w3id.org/reprokg/store#"
#: deltas kept before they are folded into one
FOLD_AT = 256
_G = ox.NamedNode(COUNTERS_GRAPH)
_DELTA = ox.NamedNode(RKS + "documentsDelta")
_FOLDED = ox.NamedNode(RKS + "foldedWrites")
_STATE = ox.NamedNode(RKS + "state")
_INT = ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")
_NOT_DOCUMENTS = ", ".join(f"<{g}>" for g in sorted(RESERVED_GRAPHS))
#: every document graph, counted on pyoxigraph's graph index (no quad is read)
COUNT_GRAPHS = (
    f"SELECT (COUNT(?g) AS ?n) WHERE {{ GRAPH ?g {{ }} FILTER(?g NOT IN ({_NOT_DOCUMENTS})) }}"
)


def delta_quad(d: int) -> ox.Quad:
    """The quad a write transaction adds (a fresh transaction IRI each time)."""
    return ox.Quad(
        ox.NamedNode(f"{RKS}tx/{uuid.uuid4().hex}"), _DELTA, ox.Literal(str(d), datatype=_INT), _G
    )


def delta_nquad(d: int) -> str:
    q = delta_quad(d)
    return f"{q.subject} {q.predicate} {q.object} {q.graph_name} .\n"


def delta_insert(d: int) -> str:
    """The same as one SPARQL Update operation."""
    q = delta_quad(d)
    return f"INSERT DATA {{ GRAPH <{COUNTERS_GRAPH}> {{ {q.subject} {q.predicate} {q.object} }} }}"


def read(store: ox.Store) -> tuple[int, int, int] | None:
    """(documents, version, delta quads); ``None`` when the store keeps no counters."""
    if not store.contains_named_graph(ox.NamedNode(COUNTERS_MARKER)):
        return None
    docs = n = 0
    for q in store.quads_for_pattern(None, _DELTA, None, _G):
        docs += int(value(q.object))
        n += 1
    folded = 0
    for q in store.quads_for_pattern(_STATE, _FOLDED, None, _G):
        folded = int(value(q.object))
    return docs, folded + n, n


def count_documents(store: ox.Store) -> int:
    return int(value(next(iter(solutions(store, COUNT_GRAPHS)))[0]))


def _text(quads: Iterable[ox.Quad]) -> str:
    return " ".join(f"{q.subject} {q.predicate} {q.object} ." for q in quads)


def fold(store: ox.Store) -> bool:
    """Replace the deltas by one base delta in one update when there are more than
    :data:`FOLD_AT` (the caller is the one writer)."""
    deltas = list(store.quads_for_pattern(None, _DELTA, None, _G))
    if len(deltas) <= FOLD_AT:
        return False
    folded = list(store.quads_for_pattern(_STATE, _FOLDED, None, _G))
    before = int(value(folded[0].object)) if folded else 0
    base = delta_quad(sum(int(value(q.object)) for q in deltas))
    state = ox.Quad(_STATE, _FOLDED, ox.Literal(str(before + len(deltas) - 1), datatype=_INT))
    store.update(
        f"DELETE DATA {{ GRAPH <{COUNTERS_GRAPH}> {{ {_text(deltas + folded)} }} }} ; "
        f"INSERT DATA {{ GRAPH <{COUNTERS_GRAPH}> {{ {_text([base, state])} }} }}"
    )
    return True


def recount(store: ox.Store, writes: int = 1, floor: int = 0) -> tuple[int, int]:
    """Reset the count to the number of document graphs in one update, keeping the version
    monotonic (+ ``writes``: the write that made the recount necessary; at least ``floor``,
    the version this process knew, in case the write dropped the counters graph too).
    Returns (documents, version)."""
    n = count_documents(store)
    deltas = list(store.quads_for_pattern(None, _DELTA, None, _G))
    folded = list(store.quads_for_pattern(_STATE, _FOLDED, None, _G))
    before = int(value(folded[0].object)) if folded else 0
    version = max(before + len(deltas) + writes, floor, 1)
    base = delta_quad(n)
    state = ox.Quad(_STATE, _FOLDED, ox.Literal(str(version - 1), datatype=_INT))
    ops = []
    if deltas or folded:
        ops.append(f"DELETE DATA {{ GRAPH <{COUNTERS_GRAPH}> {{ {_text(deltas + folded)} }} }}")
    ops.append(f"INSERT DATA {{ GRAPH <{COUNTERS_GRAPH}> {{ {_text([base, state])} }} }}")
    ops.append(f"CREATE SILENT GRAPH <{COUNTERS_MARKER}>")
    store.update(" ;\n".join(ops))
    return n, version


def document_delta(store: ox.Store, writes: Iterable[tuple[str, str | None]]) -> int:
    """The change of the document count by ``writes`` = [(graph, graph it replaces)], in
    order, computed before writing."""
    present: dict[str, bool] = {}

    def has(g: str) -> bool:
        if g not in present:
            present[g] = store.contains_named_graph(ox.NamedNode(g))
        return present[g]

    d = 0
    for iri, old in writes:
        if old is not None and old != iri and has(old):
            present[old] = False
            d -= 1
        if not has(iri):
            present[iri] = True
            d += 1
    return d
