"""Embedded backend: pyoxigraph 0.5 (RocksDB) on disk.

Atomicity: pyoxigraph runs one ``Store.update`` call (all operations of one SPARQL
Update request) and one ``Store.extend`` call as a single transaction: "either the full
operation succeeds, or nothing is written" (pyoxigraph 0.5 API docs). A document write
is therefore *one* call: ``extend`` for a brand-new graph, or one update
``DROP SILENT GRAPH <old>; DROP SILENT GRAPH <g>; INSERT DATA { GRAPH <g> {…} }`` when
something is replaced. (``bulk_extend``/``bulk_load`` are NOT transactional and are
not used for documents.)

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
import shutil
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import BinaryIO, TypeVar

import pyoxigraph as ox
from rdflib import Graph, URIRef

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
)
from reprokg.store.terms import to_ntriples, to_oxigraph, to_rdflib

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


def graph_quads(iri: URIRef | str, graph: Graph) -> list[ox.Quad]:
    g = ox.NamedNode(str(iri))
    return [ox.Quad(to_oxigraph(s), to_oxigraph(p), to_oxigraph(o), g) for s, p, o in graph]


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

    # ------------------------------------------------------------------ writes

    def _check_writable(self) -> None:
        if self.read_only:
            raise StoreError("store is opened read-only")

    def add_document(self, iri: URIRef | str, graph: Graph) -> None:
        self.replace_document(iri, graph, iri)

    def replace_document(self, iri: URIRef | str, graph: Graph, old: URIRef | str) -> None:
        """One transaction: drop ``old`` and any previous ``iri``, write the new triples."""
        self._check_writable()
        name = ox.NamedNode(str(iri))
        old_name = ox.NamedNode(str(old))
        try:
            if not self._store.contains_named_graph(name) and (
                old_name == name or not self._store.contains_named_graph(old_name)
            ):
                self._store.extend(graph_quads(iri, graph))
                return
            drops = f"DROP SILENT GRAPH <{iri}> ;\n"
            if str(old) != str(iri):
                drops += f"DROP SILENT GRAPH <{old}> ;\n"
            self._store.update(drops + insert_data(iri, graph))
        except (SyntaxError, ValueError, TypeError) as exc:  # a term pyoxigraph refuses
            raise StoreError(f"cannot write document {iri}: {exc}") from exc
        except OSError as exc:
            raise StoreError(f"cannot write document {iri}: {exc}") from exc

    def write_documents(self, writes: Sequence[DocumentWrite]) -> None:
        """All of ``writes`` in ONE transaction: ``extend`` when every graph is new, else
        one SPARQL Update of ``DROP``/``INSERT DATA`` operations in order."""
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
                self._store.extend([q for w in writes for q in graph_quads(w.iri, w.triples)])
                return
            ops = []
            for w in writes:
                ops.append(f"DROP SILENT GRAPH <{w.iri}>")
                if w.replaces is not None and str(w.replaces) != str(w.iri):
                    ops.append(f"DROP SILENT GRAPH <{w.replaces}>")
                ops.append(insert_data(w.iri, w.triples))
            self._store.update(" ;\n".join(ops))
        except (SyntaxError, ValueError, TypeError, OSError) as exc:
            raise StoreError(f"cannot write {len(writes)} document(s): {exc}") from exc

    def delete_document(self, iri: URIRef | str) -> bool:
        self._check_writable()
        name = ox.NamedNode(str(iri))
        if not self._store.contains_named_graph(name):
            return False
        self._store.remove_graph(name)
        return True

    def update(
        self,
        sparql: str,
        *,
        using_graph_uris: Sequence[str] = (),
        using_named_graph_uris: Sequence[str] = (),
    ) -> None:
        self._check_writable()
        if using_graph_uris or using_named_graph_uris:
            raise StoreError("using-graph-uri / using-named-graph-uri are not supported here")
        try:
            self._store.update(sparql)
        except SyntaxError as exc:
            raise QuerySyntaxError(str(exc)) from exc
        except OSError as exc:
            raise StoreError(str(exc)) from exc

    # ------------------------------------------------------------------ reads

    def documents(self) -> list[URIRef]:
        return sorted(
            URIRef(g.value) for g in self._store.named_graphs() if isinstance(g, ox.NamedNode)
        )

    def has_document(self, iri: URIRef | str) -> bool:
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
            kwargs["use_default_graph_as_union"] = True
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
        return sum(1 for q in self._store if not isinstance(q.graph_name, ox.DefaultGraph))

    # ------------------------------------------------------------------ dump / restore

    def dump(self, out: BinaryIO, fmt: str = "nquads") -> None:
        self._store.dump(out, rdf_format(fmt))

    def restore(self, src: BinaryIO, fmt: str = "nquads") -> None:
        """Load a dump in one transaction (the whole file is held in memory)."""
        self._check_writable()
        try:
            self._store.load(src, rdf_format(fmt))
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

    @property
    def raw(self) -> ox.Store:
        """The underlying pyoxigraph store (benchmarks, bulk tools)."""
        return self._store


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
