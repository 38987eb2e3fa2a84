"""Embedded backend: pyoxigraph 0.5 (RocksDB) on disk.

Atomicity: pyoxigraph runs one ``Store.update`` call (all operations of one SPARQL
Update request) and one ``Store.extend`` call as a single transaction: "either the full
operation succeeds, or nothing is written" (pyoxigraph 0.5 API docs). A document write
is therefore *one* call: ``extend`` for a brand-new graph, or one update
``DROP SILENT GRAPH <old>; DROP SILENT GRAPH <g>; INSERT DATA { GRAPH <g> {…} }`` when
something is replaced. (``bulk_extend``/``bulk_load`` are NOT transactional and are
not used for documents.)

Default graph = the RDF merge of the documents (a set). pyoxigraph 0.5's
``use_default_graph_as_union`` returns a triple once per graph holding it (oxigraph
#1919, fixed after 0.5.13), so the merge is *materialised* in the store's real default
graph and kept in the same transaction as every document write: a write also inserts
its triples into the default graph, and a delete/replace first removes from the default
graph the triples of the dropped graph that no other named graph holds
(:func:`unmerge_ops`). Queries without an explicit dataset read the default graph as
is. An empty named graph :data:`MERGED_MARKER` says the merge is complete; a writable
store opened without it rebuilds the merge once (:meth:`OxigraphStore.rebuild_merge`),
a read-only one falls back to the union flag (correct except for the double counts).
SPARQL Update through :meth:`OxigraphStore.update` may not write the default graph
(it is derived; refused with :class:`UpdateRefusedSyntaxError`, HTTP 400); after an
update that changed named graphs the merge is re-synchronised (see ``update``).

Concurrency: one writer process. Readers in other processes may open the directory
with ``read_only=True`` (``pyoxigraph.Store.read_only``), which sees a static snapshot;
pyoxigraph calls reading while another process writes "undefined behavior", so the
service opens the store read-write itself or read-only on a store nobody writes.

Time limits: pyoxigraph 0.5's Python API cannot cancel a query (oxigraph issue #1926).
``query(timeout=…)`` evaluates in a worker thread (pyoxigraph releases the GIL) and
raises :class:`QueryTimeout` when the limit passes; result iteration checks a cancel
flag per row, so streaming queries stop promptly, but a blocking operator (ORDER BY,
GROUP BY, a big join before the first row) keeps using one core until it completes.
Hard limits need a worker process that is killed (what the service does).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import shutil
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, TypeVar

import pyoxigraph as ox
from rdflib import BNode, Graph, URIRef

from reprokg.store.base import (
    AskResult,
    DocumentWrite,
    GraphResult,
    QueryResult,
    QuerySyntaxError,
    QueryTimeout,
    SelectResult,
    Store,
    StoreError,
    UpdateRefusedSyntaxError,
)
from reprokg.store.terms import to_ntriples, to_oxigraph, to_rdflib

log = logging.getLogger(__name__)

#: empty named graph: present when the default graph holds the complete merge (v1)
MERGED_MARKER = "https://w3id.org/reprokg/store#merged-default-graph-v1"
#: empty named graph: an update committed but the merge was not yet re-synchronised
STALE_MARKER = "https://w3id.org/reprokg/store#merge-stale"
#: named graph that keeps default-graph triples of a pre-merge store or a dump
LEGACY_DEFAULT_GRAPH = "https://w3id.org/reprokg/store#legacy-default-graph"
#: named graph holding, during an update, the previous triples of the graphs it writes
SCRATCH_GRAPH = "https://w3id.org/reprokg/store#update-scratch"
#: bookkeeping graphs that are never documents
RESERVED_GRAPHS = frozenset({MERGED_MARKER, STALE_MARKER, SCRATCH_GRAPH})

#: the default graph := the merge of all named graphs (idempotent; O(store))
RESYNC_OPS = (
    f"DROP SILENT GRAPH <{SCRATCH_GRAPH}>",
    "DELETE { ?s ?p ?o } WHERE { ?s ?p ?o FILTER NOT EXISTS { GRAPH ?g { ?s ?p ?o } } }",
    "INSERT { ?s ?p ?o } WHERE { GRAPH ?g { ?s ?p ?o } FILTER NOT EXISTS { ?s ?p ?o } }",
)
#: move default-graph triples no named graph holds into LEGACY_DEFAULT_GRAPH
KEEP_LEGACY_OP = (
    f"INSERT {{ GRAPH <{LEGACY_DEFAULT_GRAPH}> {{ ?s ?p ?o }} }} "
    "WHERE { ?s ?p ?o FILTER NOT EXISTS { GRAPH ?g { ?s ?p ?o } } }"
)
_MARK_MERGED = (f"DROP SILENT GRAPH <{STALE_MARKER}>", f"CREATE SILENT GRAPH <{MERGED_MARKER}>")
_MARK_STALE = (f"DROP SILENT GRAPH <{MERGED_MARKER}>", f"CREATE SILENT GRAPH <{STALE_MARKER}>")

_FORMATS = {
    "nquads": ox.RdfFormat.N_QUADS,
    "nq": ox.RdfFormat.N_QUADS,
    "trig": ox.RdfFormat.TRIG,
}
T = TypeVar("T")


def rdf_format(fmt: str) -> ox.RdfFormat:
    try:
        return _FORMATS[fmt.lower()]
    except KeyError:
        raise StoreError(f"unsupported dump format {fmt!r}; expected nquads or trig") from None


def _run_with_timeout(fn: Callable[[threading.Event], T], timeout: float | None) -> T:
    cancel = threading.Event()
    if timeout is None:
        return fn(cancel)
    box: dict[str, object] = {}

    def target() -> None:
        try:
            box["value"] = fn(cancel)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller
            box["error"] = exc

    worker = threading.Thread(target=target, name="reprokg-query", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        cancel.set()
        raise QueryTimeout(f"query stopped after its {timeout:g} s time limit")
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]


def graph_quads(iri: URIRef | str, graph: Graph | Iterable) -> list[ox.Quad]:
    g = ox.NamedNode(str(iri))
    return [ox.Quad(to_oxigraph(s), to_oxigraph(p), to_oxigraph(o), g) for s, p, o in graph]


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
            named.append(quad(xs, xp, xo, g))  # type: ignore[arg-type]
            merge.append(quad(xs, xp, xo))  # type: ignore[arg-type]
    return named + merge


def _batch_nquads(writes: Sequence[DocumentWrite]) -> str | None:
    """The same quads as ``_batch_merged_quads``, as N-Quads text; None when a term is a
    blank node (a load renames blank nodes; ``extend`` keeps their labels). Building
    the text cost a sixth of building the Quad objects (measured on 256 run headers),
    and loading it about what ``extend`` costs."""
    memo: dict[object, str] = {}
    lines: list[str] = []
    append = lines.append
    for w in writes:
        end = f" {to_ntriples(URIRef(str(w.iri)))} .\n"
        for t in w.triples:
            row = []
            for x in t:
                y = memo.get(x)
                if y is None:
                    if isinstance(x, BNode):
                        return None
                    y = memo[x] = str(to_oxigraph(x))
                row.append(y)
            line = " ".join(row)
            append(line + end)
            append(line + " .\n")
    return "".join(lines)


def merged_quads(quads: list[ox.Quad]) -> list[ox.Quad]:
    """``quads`` plus their triples in the default graph (the merge; duplicates are no-ops)."""
    return quads + [ox.Quad(q.subject, q.predicate, q.object) for q in quads]


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


def has_merge(raw: ox.Store) -> bool:
    """Whether a pyoxigraph store's default graph holds the complete merge."""
    return raw.contains_named_graph(ox.NamedNode(MERGED_MARKER))


def union_kwargs(merged: bool) -> dict[str, object]:
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


class OxigraphStore(Store):
    """pyoxigraph on disk (``path``) or in memory (``path=None``, tests and benchmarks)."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        read_only: bool = False,
        blob_dir: str | Path | None = None,
    ) -> None:
        self.path = Path(path) if path is not None else None
        self.read_only = read_only
        self.blob_dir = Path(blob_dir) if blob_dir is not None else None
        try:
            if self.path is None:
                self._store = ox.Store()
            elif read_only:
                self._store = ox.Store.read_only(str(self.path))
            else:
                self._store = ox.Store(str(self.path))
        except OSError as exc:
            raise StoreError(f"cannot open store at {self.path}: {exc}") from exc
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
                        "building the merged default graph of %s once (a store made before "
                        "reprokg kept one, or left mid-update): one transaction, about a "
                        "minute per million triples",
                        self.path,
                    )
                self.rebuild_merge()

    # ------------------------------------------------------------------ the merge

    def rebuild_merge(self) -> None:
        """Make the default graph the merge of all named graphs, in one transaction.

        A store from before the merge (no marker at all) may hold triples of its own in
        the default graph; those no document holds are kept in
        :data:`LEGACY_DEFAULT_GRAPH` instead of being lost. A store left *stale* by a
        crash between an update and its re-synchronisation is just re-synchronised.
        """
        self._check_writable()
        stale = self._store.contains_named_graph(ox.NamedNode(STALE_MARKER))
        ops = [*([] if stale else [KEEP_LEGACY_OP]), *RESYNC_OPS, *_MARK_MERGED]
        self._store.update(" ;\n".join(ops))
        self.merged = True

    def _resync(self) -> None:
        self._store.update(" ;\n".join([*RESYNC_OPS, *_MARK_MERGED]))
        self.merged = True

    # ------------------------------------------------------------------ writes

    def _check_writable(self) -> None:
        if self.read_only:
            raise StoreError("store is opened read-only")

    def add_document(self, iri: URIRef | str, graph: Graph) -> None:
        self.replace_document(iri, graph, iri)

    def replace_document(self, iri: URIRef | str, graph: Graph, old: URIRef | str) -> None:
        """One transaction: drop ``old`` and any previous ``iri``, write the new triples,
        keep the merged default graph exact."""
        self._check_writable()
        name = ox.NamedNode(str(iri))
        old_name = ox.NamedNode(str(old))
        try:
            if not self._store.contains_named_graph(name) and (
                old_name == name or not self._store.contains_named_graph(old_name)
            ):
                self._store.extend(merged_quads(graph_quads(iri, graph)))
                return
            ops = unmerge_ops(iri)
            if str(old) != str(iri):
                ops += unmerge_ops(old)
            ops += [insert_data(iri, graph), merge_op(iri)]
            self._store.update(" ;\n".join(ops))
        except (SyntaxError, ValueError, TypeError) as exc:  # a term pyoxigraph refuses
            raise StoreError(f"cannot write document {iri}: {exc}") from exc
        except OSError as exc:
            raise StoreError(f"cannot write document {iri}: {exc}") from exc

    def write_documents(self, writes: Sequence[DocumentWrite]) -> None:
        """All of ``writes`` in ONE transaction: ``extend`` when every graph is new, else
        one SPARQL Update of ``DELETE``/``DROP``/``INSERT`` operations in order."""
        self._check_writable()
        if not writes:
            return
        try:
            fresh = all(
                w.replaces is None
                and not self._store.contains_named_graph(ox.NamedNode(str(w.iri)))
                for w in writes
            )
            if fresh and len({str(w.iri) for w in writes}) == len(writes):
                text = _batch_nquads(writes)
                if text is None:
                    self._store.extend(_batch_merged_quads(writes))
                else:  # one transaction, like extend; every term was checked by pyoxigraph
                    self._store.load(text, format=ox.RdfFormat.N_QUADS, lenient=True)
                return
            ops: list[str] = []
            for w in writes:
                ops += unmerge_ops(w.iri)
                if w.replaces is not None and str(w.replaces) != str(w.iri):
                    ops += unmerge_ops(w.replaces)
                ops += [insert_data(w.iri, w.triples), merge_op(w.iri)]
            self._store.update(" ;\n".join(ops))
        except (SyntaxError, ValueError, TypeError, OSError) as exc:
            raise StoreError(f"cannot write {len(writes)} document(s): {exc}") from exc

    def delete_document(self, iri: URIRef | str) -> bool:
        self._check_writable()
        if str(iri) in RESERVED_GRAPHS:
            return False
        name = ox.NamedNode(str(iri))
        if not self._store.contains_named_graph(name):
            return False
        self._store.update(" ;\n".join(unmerge_ops(iri)))
        return True

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
        self._store.update(plan.before)
        try:
            self._store.update(sparql)
        except SyntaxError as exc:
            self._store.update(plan.undo)  # nothing was written
            raise QuerySyntaxError(str(exc)) from exc
        except OSError as exc:
            raise StoreError(str(exc)) from exc
        self._store.update(plan.after())
        self.merged = True

    # ------------------------------------------------------------------ reads

    def documents(self) -> list[URIRef]:
        return sorted(
            URIRef(g.value)
            for g in self._store.named_graphs()
            if isinstance(g, ox.NamedNode) and g.value not in RESERVED_GRAPHS
        )

    def has_document(self, iri: URIRef | str) -> bool:
        if str(iri) in RESERVED_GRAPHS:
            return False
        return self._store.contains_named_graph(ox.NamedNode(str(iri)))

    def get_document(self, iri: URIRef | str) -> Graph:
        g = Graph()
        for q in self._store.quads_for_pattern(None, None, None, ox.NamedNode(str(iri))):
            g.add((to_rdflib(q.subject), to_rdflib(q.predicate), to_rdflib(q.object)))
        return g

    def query(
        self,
        sparql: str,
        *,
        default_graph_uris: Sequence[str] = (),
        named_graph_uris: Sequence[str] = (),
        timeout: float | None = None,
    ) -> QueryResult:
        kwargs: dict[str, object] = {}
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

    def restore(self, src: BinaryIO, fmt: str = "nquads") -> None:
        """Load a dump in one transaction (the whole file is held in memory).

        The merge grows with the restored triples in the same transaction. Default-graph
        quads in the file (a dump of a pre-merge store holding triples of its own there)
        go to :data:`LEGACY_DEFAULT_GRAPH`, as when such a store is first opened.
        """
        self._check_writable()
        legacy = ox.NamedNode(LEGACY_DEFAULT_GRAPH)
        try:
            quads = [
                q
                if isinstance(q.graph_name, ox.NamedNode | ox.BlankNode)
                else ox.Quad(q.subject, q.predicate, q.object, legacy)
                for q in ox.parse(src, rdf_format(fmt))
            ]
            self._store.extend(merged_quads(quads))
        except SyntaxError as exc:
            raise StoreError(f"cannot restore: {exc}") from exc

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
            shutil.copytree(self.blob_dir, target / "blobs", copy_function=_link_or_copy)

    def flush(self) -> None:
        if not self.read_only:
            self._store.flush()

    def close(self) -> None:
        if not self.read_only:
            with contextlib.suppress(OSError):
                self._store.flush()
        # pyoxigraph closes RocksDB when the object is collected
        self._store = None  # type: ignore[assignment]

    def native_query(self, sparql: str) -> object:
        """pyoxigraph's own result object over the default graph (the merge; the union
        flag on a pre-merge store opened read-only), for callers that serialise or
        convert terms natively. No time limit: only for our own bounded queries."""
        return self._store.query(sparql, **union_kwargs(self.merged))

    @property
    def raw(self) -> RawStore:
        """The underlying pyoxigraph store (benchmarks, bulk tools, native serialisation).

        Wrapped so that ``query(…, use_default_graph_as_union=True)`` (what callers wrote
        before the merge existed) reads the merged default graph instead of repeating
        shared triples, and writes through it keep the merge (see :class:`RawStore`).
        """
        return RawStore(self)


class RawStore:
    """The pyoxigraph ``Store`` of an :class:`OxigraphStore`, merge-aware.

    ``query``: the union flag means the merged default graph. ``extend``/``bulk_extend``/
    ``add`` also write the triples of named-graph quads into the merge (same call).
    Writes that may remove or bring unknown content (``load``, ``bulk_load``, ``update``,
    ``remove``, ``remove_graph``, ``clear_graph``, ``clear``) mark the merge stale, run,
    and re-synchronise it (a full pass). Everything else is pyoxigraph's own.
    """

    __slots__ = ("_owner",)
    _RESYNC_AFTER = frozenset(
        ("load", "bulk_load", "update", "remove", "remove_graph", "clear_graph", "clear")
    )

    def __init__(self, owner: OxigraphStore) -> None:
        self._owner = owner

    def query(self, query: str, **kwargs: object) -> object:
        if self._owner.merged and kwargs.get("use_default_graph_as_union"):
            del kwargs["use_default_graph_as_union"]
        return self._owner._store.query(query, **kwargs)

    def extend(self, quads: Iterable[ox.Quad]) -> None:
        self._owner._store.extend(self._with_merge(quads))

    def bulk_extend(self, quads: Iterable[ox.Quad]) -> None:
        self._owner._store.bulk_extend(self._with_merge(quads))

    def add(self, quad: ox.Quad) -> None:
        self.extend([quad])

    def _with_merge(self, quads: Iterable[ox.Quad]) -> list[ox.Quad]:
        quads = list(quads)
        if not self._owner.merged:
            return quads
        return merged_quads([q for q in quads if not isinstance(q.graph_name, ox.DefaultGraph)])

    def __getattr__(self, name: str) -> object:
        attr = getattr(self._owner._store, name)
        if name not in self._RESYNC_AFTER or not self._owner.merged:
            return attr
        owner = self._owner

        def write(*args: object, **kwargs: object) -> object:
            owner._store.update(" ;\n".join(_MARK_STALE))
            out = attr(*args, **kwargs)
            owner._resync()
            return out

        return write

    def __iter__(self) -> Iterator[ox.Quad]:
        return iter(self._owner._store)

    def __len__(self) -> int:
        return len(self._owner._store)

    def __contains__(self, quad: object) -> bool:
        return quad in self._owner._store


def written_graphs(sparql: str) -> frozenset[str] | None:
    """The named graphs an update may write, ``None`` when not known statically (a
    ``GRAPH ?g`` template, ``… ALL``/``NAMED``, text rdflib cannot parse).

    Raises :class:`UpdateRefusedSyntaxError` when an operation writes the default graph.
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
        why = _default_write(op)
        if why:
            raise UpdateRefusedSyntaxError(
                f"{op.name}: {why}. The default graph is the merge of the documents "
                "(named graphs) and follows them; write a named graph (GRAPH <…> / WITH "
                "<…> / INTO GRAPH <…>) instead"
            )
        targets = _targets(op)
        graphs = None if targets is None or graphs is None else graphs | targets
    return frozenset(graphs) if graphs is not None else None


def _targets(op: object) -> set[str] | None:
    """Graphs one (non-refused) rdflib update operation writes; ``None``: not constant."""
    name = op.name  # type: ignore[attr-defined]

    def get(key: str) -> object:  # CompValue.get returns the key itself when missing
        return dict.get(op, key)  # type: ignore[arg-type]

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
        src, dst = get("graph")  # type: ignore[misc]
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
    mark_stale: tuple[str, ...] = _MARK_STALE
    mark_merged: tuple[str, ...] = _MARK_MERGED

    @classmethod
    def of(cls, sparql: str, **kwargs: object) -> UpdatePlan:
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


def _default_write(op: object) -> str:
    """Why ``op`` (an rdflib update algebra node) writes the default graph, or ''."""
    name = op.name  # type: ignore[attr-defined]

    def get(key: str) -> object:  # CompValue.get returns the key itself when missing
        return dict.get(op, key)  # type: ignore[arg-type]

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


def _link_or_copy(src: str, dst: str) -> None:
    try:
        Path(dst).hardlink_to(src)
    except OSError:
        shutil.copy2(src, dst)


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
            g.add((to_rdflib(t.subject), to_rdflib(t.predicate), to_rdflib(t.object)))
        return GraphResult(g)
    raise StoreError(f"unexpected query result {type(res).__name__}")
