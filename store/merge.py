"""The merged default graph, shared by the backends: its bookkeeping graphs, the SPARQL that
keeps it exact, and the plan around a user's SPARQL Update.

The default graph of every backend is the RDF merge of the documents (a set;
docs/architecture.md, Design decisions, Store). A backend keeps it materialised; these are
the state markers (empty named graphs) and operations both the embedded store and a remote
Oxigraph or Virtuoso use, so the two cannot drift apart. docs/architecture.md, section 5,
explains the policy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rdflib import URIRef
from rdflib.plugins.sparql.parserutils import CompValue

from reprokg.core.errors import UpdateRefused

#: empty named graph: present when the default graph holds the complete merge (v1)
MERGED_MARKER = "https://w3id.org/reprokg/store#merged-default-graph-v1"
#: empty named graph: an update committed but the merge was not yet re-synchronised
STALE_MARKER = "https://w3id.org/reprokg/store#merge-stale"
#: named graph that keeps default-graph triples of a pre-merge store or a dump
LEGACY_DEFAULT_GRAPH = "https://w3id.org/reprokg/store#legacy-default-graph"
#: named graph holding, during an update, the previous triples of the graphs it writes
SCRATCH_GRAPH = "https://w3id.org/reprokg/store#update-scratch"
#: named graph of the maintained figures (document count, store version; store/counters.py)
COUNTERS_GRAPH = "https://w3id.org/reprokg/store#counters"
#: empty named graph: the document count and version are kept in COUNTERS_GRAPH (v1)
COUNTERS_MARKER = "https://w3id.org/reprokg/store#counters-v1"
#: named graph of the leaderboards' ranked windows (store/leaderboard_ranks.py)
RANKS_GRAPH = "https://w3id.org/reprokg/store#leaderboard-ranks"
#: empty named graph: every leaderboard's window in RANKS_GRAPH is maintained (v2: packed
#: windows with the filters' names; a v1 store's ranks are rebuilt at its next writable open)
RANKS_MARKER = "https://w3id.org/reprokg/store#leaderboard-ranks-v2"
#: the marker of ranks kept a triple per slot field (read by no version now)
RANKS_MARKER_V1 = "https://w3id.org/reprokg/store#leaderboard-ranks-v1"
#: bookkeeping graphs with triples of their own: never documents, never merged, not dumped
NOT_MERGED = (SCRATCH_GRAPH, COUNTERS_GRAPH, RANKS_GRAPH)
#: empty bookkeeping graphs (their presence is the state)
MARKERS = (MERGED_MARKER, STALE_MARKER, COUNTERS_MARKER, RANKS_MARKER, RANKS_MARKER_V1)
#: bookkeeping graphs that are never documents
RESERVED_GRAPHS = frozenset({*MARKERS, *NOT_MERGED})
#: ``FILTER`` keeping ``?g`` to the graphs whose triples are merged
_MERGED_ONLY = "FILTER(?g NOT IN (" + ", ".join(f"<{g}>" for g in NOT_MERGED) + "))"

#: the default graph := the merge of all named graphs (idempotent; O(store))
RESYNC_OPS = (
    f"DROP SILENT GRAPH <{SCRATCH_GRAPH}>",
    "DELETE { ?s ?p ?o } WHERE { ?s ?p ?o "
    f"FILTER NOT EXISTS {{ GRAPH ?g {{ ?s ?p ?o }} {_MERGED_ONLY} }} }}",
    f"INSERT {{ ?s ?p ?o }} WHERE {{ GRAPH ?g {{ ?s ?p ?o }} {_MERGED_ONLY} "
    "FILTER NOT EXISTS { ?s ?p ?o } }",
)
#: move default-graph triples no named graph holds into LEGACY_DEFAULT_GRAPH
KEEP_LEGACY_OP = (
    f"INSERT {{ GRAPH <{LEGACY_DEFAULT_GRAPH}> {{ ?s ?p ?o }} }} "
    f"WHERE {{ ?s ?p ?o FILTER NOT EXISTS {{ GRAPH ?g {{ ?s ?p ?o }} {_MERGED_ONLY} }} }}"
)
MARK_MERGED = (f"DROP SILENT GRAPH <{STALE_MARKER}>", f"CREATE SILENT GRAPH <{MERGED_MARKER}>")


def delete_unheld_op() -> str:
    """Remove from the default graph the triples no merged named graph holds (an anti-join:
    reads the whole merge, writes only what goes)."""
    return RESYNC_OPS[1]


MARK_STALE = (f"DROP SILENT GRAPH <{MERGED_MARKER}>", f"CREATE SILENT GRAPH <{STALE_MARKER}>")


def unmerge_ops(iri: URIRef | str, into: str | None = None) -> list[str]:
    """Drop graph ``iri`` and remove from the merge its triples no other graph holds.

    ``into``: the named graph that holds the merge (remote engines without a separate
    default graph); ``None``: the default graph.
    """
    tpl = f"GRAPH <{into}> {{ ?s ?p ?o }}" if into else "?s ?p ?o"
    others = f"?h != <{iri}>" + (f" && ?h != <{into}>" if into else "")
    return [
        f"DELETE {{ {tpl} }} WHERE {{ GRAPH <{iri}> {{ ?s ?p ?o }} "
        f"FILTER NOT EXISTS {{ GRAPH ?h {{ ?s ?p ?o }} FILTER({others}) }} }}",
        f"DROP SILENT GRAPH <{iri}>",
    ]


def merge_op(iri: URIRef | str, into: str | None = None) -> str:
    """Copy the triples of graph ``iri`` into the merge (blank nodes copied as bound)."""
    tpl = f"GRAPH <{into}> {{ ?s ?p ?o }}" if into else "?s ?p ?o"
    return f"INSERT {{ {tpl} }} WHERE {{ GRAPH <{iri}> {{ ?s ?p ?o }} }}"


def written_graphs(sparql: str) -> frozenset[str] | None:
    """The named graphs an update may write, ``None`` when not known statically (a
    ``GRAPH ?g`` template, ``… ALL``/``NAMED``, text rdflib cannot parse).

    Raises :class:`UpdateRefused` when an operation writes the default graph.
    Parsed with rdflib's SPARQL grammar; text rdflib cannot parse is left to pyoxigraph
    (which reports its own syntax errors) with a full re-synchronisation.
    """
    try:
        from rdflib.plugins.sparql.algebra import translateUpdate
        from rdflib.plugins.sparql.parser import parseUpdate

        ops = translateUpdate(parseUpdate(sparql)).algebra
    except Exception:  # noqa: BLE001 - any parser failure: pyoxigraph decides
        return None
    graphs: set[str] | None = set()
    for op in ops:
        targets = _targets(op)
        if targets and targets & RESERVED_GRAPHS:
            raise UpdateRefused(
                f"{op.name}: {', '.join(sorted(targets & RESERVED_GRAPHS))} is the store's "
                "own bookkeeping (https://w3id.org/reprokg/store#…), not a document"
            )
        why = _default_write(op)
        if why:
            raise UpdateRefused(
                f"{op.name}: {why}. The default graph is the merge of the documents "
                "(named graphs) and follows them; write a named graph (GRAPH <…> / WITH "
                "<…> / INTO GRAPH <…>) instead"
            )
        graphs = None if targets is None or graphs is None else graphs | targets
    return frozenset(graphs) if graphs is not None else None


def _get(op: CompValue, key: str) -> Any:
    """``op[key]`` or ``None`` (``CompValue.get`` returns the key itself when missing)."""
    return dict.get(op, key)


def _targets(op: CompValue) -> set[str] | None:
    """Graphs one (non-refused) rdflib update operation writes; ``None``: not constant."""
    name = op.name

    def get(key: str) -> Any:
        return _get(op, key)

    terms: list[object] = []
    if name in ("InsertData", "DeleteData", "DeleteWhere"):
        terms += list(get("quads") or {})
    elif name == "Modify":
        for part in ("delete", "insert"):
            tpl = get(part)
            if tpl is not None:
                terms += list(dict.get(tpl, "quads") or {})
                if dict.get(tpl, "triples"):
                    terms.append(get("withClause"))
    elif name == "Load":
        terms.append(get("graphiri"))
    elif name in ("Clear", "Drop"):
        terms.append(get("graphiri"))  # ALL / NAMED: not a term, so unknown
    elif name in ("Add", "Copy", "Move"):
        src, dst = get("graph")
        terms += [src, dst] if name == "Move" else [dst]
    elif name != "Create":
        return None
    out = set()
    for t in terms:
        if not isinstance(t, URIRef) or ":" not in str(t):
            return None
        out.add(str(t))
    return out


@dataclass(frozen=True)
class UpdatePlan:
    """The bookkeeping updates around a user's SPARQL Update (see ``OxigraphStore.update``).

    ``before`` marks the merge stale and, when the written graphs are known, copies
    their current triples to :data:`SCRATCH_GRAPH`; ``after`` removes from the merge the
    scratch triples no named graph holds any more, adds the written graphs' triples and
    marks the merge complete (else the full ``resync``); ``undo`` restores the markers
    when the update failed. ``into``/``mark_*``: where a remote engine keeps the merge
    and its state.
    """

    graphs: frozenset[str] | None
    into: str | None = None
    mark_stale: tuple[str, ...] = MARK_STALE
    mark_merged: tuple[str, ...] = MARK_MERGED

    @classmethod
    def of(cls, sparql: str, **kwargs: object) -> UpdatePlan:
        # the fields' own names and types
        return cls(written_graphs(sparql), **kwargs)  # type: ignore[arg-type]

    @property
    def before(self) -> str:
        ops = [*self.mark_stale, f"DROP SILENT GRAPH <{SCRATCH_GRAPH}>"]
        ops += [
            f"INSERT {{ GRAPH <{SCRATCH_GRAPH}> {{ ?s ?p ?o }} }} "
            f"WHERE {{ GRAPH <{g}> {{ ?s ?p ?o }} }}"
            for g in sorted(self.graphs or ())
        ]
        return " ;\n".join(ops)

    @property
    def undo(self) -> str:
        return " ;\n".join([f"DROP SILENT GRAPH <{SCRATCH_GRAPH}>", *self.mark_merged])

    def after(self, resync: Sequence[str] = RESYNC_OPS) -> str:
        if self.graphs is None:
            return " ;\n".join([*resync, *self.mark_merged])
        ops = [
            *unmerge_ops(SCRATCH_GRAPH, self.into),
            *(merge_op(g, self.into) for g in sorted(self.graphs)),
            *self.mark_merged,
        ]
        return " ;\n".join(ops)


def _default_write(op: CompValue) -> str:
    """Why ``op`` (an rdflib update algebra node) writes the default graph, or ''."""
    name = op.name

    def get(key: str) -> Any:
        return _get(op, key)

    if name in ("InsertData", "DeleteData", "DeleteWhere") and get("triples"):
        return "triples outside GRAPH write the default graph"
    if name == "Modify" and get("withClause") is None:
        for part in ("delete", "insert"):
            tpl = get(part)
            if tpl is not None and dict.get(tpl, "triples"):
                return f"the {part.upper()} template has triples outside GRAPH"
    if name == "Load" and get("graphiri") is None:
        return "LOAD without INTO GRAPH writes the default graph"
    if name in ("Clear", "Drop") and get("graphiri") == "DEFAULT":
        return f"{name.upper()} DEFAULT"
    if name in ("Add", "Copy", "Move"):
        src, dst = get("graph")
        if dst == "DEFAULT":
            return "the target is the default graph"
        if name == "Move" and src == "DEFAULT":
            return "MOVE DEFAULT empties the default graph"
    return ""
