"""The store capability interface; backends (embedded pyoxigraph, remote SPARQL 1.1) implement it.

Results are backend-neutral and carry rdflib terms, so the service serialises one
shape whatever engine answered. The default graph of :meth:`Store.query` is the
RDF merge of all documents (named graphs): a set, each triple once however many
documents hold it; named graphs stay addressable with GRAPH.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from rdflib import Graph
from rdflib.term import Identifier, Node, URIRef

from reprokg.core.errors import StoreError


@dataclass
class SelectResult:
    variables: list[str]
    rows: list[tuple[Identifier | None, ...]] = field(default_factory=list)

    def dicts(self) -> Iterator[dict[str, Identifier]]:
        for row in self.rows:
            yield {v: t for v, t in zip(self.variables, row, strict=True) if t is not None}


@dataclass
class AskResult:
    value: bool


@dataclass
class GraphResult:
    graph: Graph


QueryResult = SelectResult | AskResult | GraphResult


@dataclass
class DocumentWrite:
    """One document to write: its graph IRI, triples, and the older version it replaces."""

    iri: URIRef
    triples: Iterable[tuple[Node, Node, Node]]
    replaces: URIRef | None = None


class Store(ABC):
    """One writer's view of a quad store holding one named graph per document.

    Side files (attachments such as run lines) live content-addressed in
    :attr:`blob_dir` (``sha256`` file names), next to the graph data.
    """

    #: folder of content-addressed attachments; ``None`` when blobs are not kept
    blob_dir: Path | None = None
    read_only: bool = False

    def store_blob(self, data: bytes) -> str:
        """Keep ``data`` under its sha256 (temp file + rename, so never half-written)."""
        from reprokg.store.blobs import store_blob

        if self.blob_dir is None:
            raise StoreError("this store has no blob directory configured")
        try:
            return store_blob(self.blob_dir, data)
        except OSError as exc:
            from reprokg.store.disk import free_bytes, full, no_space

            if not no_space(exc):
                raise
            free = free_bytes(self.blob_dir)
            raise full(self.blob_dir, free, free, refused_by_disk=True) from exc

    def get_blob(self, sha256: str) -> bytes | None:
        from reprokg.store.blobs import get_blob

        if self.blob_dir is None:
            return None
        return get_blob(self.blob_dir, sha256)

    @abstractmethod
    def add_document(self, iri: URIRef | str, graph: Graph) -> None:
        """Write ``graph`` as named graph ``iri`` atomically, replacing any previous content."""

    def replace_document(self, iri: URIRef | str, graph: Graph, old: URIRef | str) -> None:
        """Atomically write ``iri`` and drop the older version ``old`` (may equal ``iri``)."""
        self.add_document(iri, graph)
        if str(old) != str(iri):
            self.delete_document(old)

    def write_documents(self, writes: Sequence[DocumentWrite]) -> None:
        """Several document writes in order; each is atomic (a backend may commit several
        in one transaction: then a crash keeps all or none of them, never part of one)."""
        for w in writes:
            # DocumentWrite.triples is a Graph
            self.replace_document(w.iri, w.triples, w.replaces or w.iri)  # type: ignore[arg-type]

    @abstractmethod
    def delete_document(self, iri: URIRef | str) -> bool:
        """Drop the named graph; False when it did not exist."""

    @abstractmethod
    def documents(self) -> list[URIRef]:
        """IRIs of all named graphs."""

    def documents_page(self, offset: int, limit: int) -> list[URIRef]:
        """``limit`` documents from ``offset`` in the store's own order (stable while the
        store does not change), so a listing of a million documents reads one page, not
        every graph; a backend without such an order pages :meth:`documents`."""
        return self.documents()[offset : offset + limit]

    def has_document(self, iri: URIRef | str) -> bool:
        return URIRef(str(iri)) in set(self.documents())

    @abstractmethod
    def get_document(self, iri: URIRef | str) -> Graph:
        """The triples of one named graph (empty graph when absent)."""

    @abstractmethod
    def query(
        self,
        sparql: str,
        *,
        default_graph_uris: Sequence[str] = (),
        named_graph_uris: Sequence[str] = (),
        timeout: float | None = None,
    ) -> QueryResult:
        """Run a SPARQL 1.1 query; the default graph is the merge (set union) of all
        named graphs."""

    @abstractmethod
    def update(
        self,
        sparql: str,
        *,
        using_graph_uris: Sequence[str] = (),
        using_named_graph_uris: Sequence[str] = (),
    ) -> None:
        """Run a SPARQL 1.1 Update."""

    @abstractmethod
    def dump(self, out: BinaryIO, fmt: str = "nquads") -> None:
        """Write every quad (``nquads`` or ``trig``)."""

    @abstractmethod
    def restore(self, src: BinaryIO, fmt: str = "nquads") -> None:
        """Load quads written by :meth:`dump` (adds to what is there)."""

    def triple_count(self) -> int:
        res = self.query("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }")
        assert isinstance(res, SelectResult)
        return int(res.rows[0][0]) if res.rows and res.rows[0][0] is not None else 0

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources."""

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --------------------------------------------------------------------------- capabilities
# What some callers need beyond the interface above, as interfaces of their own (oaklib
# style): a caller checks ``isinstance(store, NativeQueries)``, never a backend's class,
# so a new backend gains a feature by implementing its interface.


class NativeQueries(ABC):
    """SPARQL answered with the engine's own result objects (pyoxigraph ``QuerySolutions``),
    over the merged default graph, for callers that serialise or convert terms natively.
    No time limit: only for our own bounded queries (named queries, analyses)."""

    @abstractmethod
    def native_query(self, sparql: str, *, reads_store: bool = True) -> Any:
        """The engine's result of ``sparql`` (SELECT, ASK, CONSTRUCT). ``reads_store``
        false: the query reads no data (a ``VALUES`` table to order and write, as the
        ranked find-baselines), so the engine may evaluate it apart from the store."""


class Checkpoints(ABC):
    """A store in a local directory that other processes can read through checkpoints: the
    ``/sparql`` worker processes open :attr:`path` itself when the store is read-only, or a
    checkpoint of it while this process writes."""

    path: Path | None

    @abstractmethod
    def checkpoint(self, target: str | Path) -> None:
        """A consistent copy of the database files (no blobs) in the new folder ``target``."""

    @abstractmethod
    def flush(self) -> None:
        """Persist buffered writes, so a checkpoint taken next holds them."""


class Backup(ABC):
    """A consistent copy of the whole store (database and blobs) that
    :func:`reprokg.store.open_store` can open."""

    @abstractmethod
    def backup(self, target: str | Path) -> None:
        """Copy into the new folder ``target``; never overwrites."""


class MergeMaintenance(ABC):
    """A store that keeps the merged default graph itself and can rebuild it (after raw
    writes, or to repair a store left mid-update)."""

    #: opening the store has just built the merge (a store bulk-loaded outside reprokg, or
    #: made before the merge): a rebuild now would do the same work again
    merge_built_at_open: bool = False

    @abstractmethod
    def rebuild_merge(self) -> None:
        """Make the default graph the merge of the documents again."""


class InMemoryCopy(ABC):
    """A store that can copy itself into memory (a read-only service answers named queries
    and linked-data lookups from the copy; the data cannot change meanwhile)."""

    @abstractmethod
    def in_memory_copy(self) -> Store:
        """An in-memory store with the same quads (and the merge)."""


class Liveness(ABC):
    """A cheap check that the store answers (``/health``), never a scan."""

    @abstractmethod
    def ping(self) -> None:
        """Return when the store answers; raise :class:`StoreError` otherwise."""


class Counters(ABC):
    """Figures the store keeps as it writes, read without touching the data."""

    @abstractmethod
    def document_count(self) -> int:
        """How many documents (named graphs, bookkeeping graphs excepted) are stored."""

    @abstractmethod
    def version(self) -> int:
        """A number that changes with every committed write (what a result cache keys on);
        constant while the store is opened read-only (a snapshot)."""


def count_documents(store: Store) -> int:
    """How many documents ``store`` holds: its counter when it keeps one (no listing of
    every graph), else the listing's length."""
    return store.document_count() if isinstance(store, Counters) else len(store.documents())


class LeaderboardRanks(ABC):
    """A store that keeps the first entries of each leaderboard ranked as it writes, so the
    top of a board is read by index instead of ranking every score on it (a tenth of the
    time at 10M triples: benchmarks/README.md#figures-once-quoted-in-code)."""

    #: how many entries are ranked per board
    ranks_window: int
    #: the find-baselines filters (parameter names) :meth:`ranked_top` answers
    ranks_filters: frozenset[str]

    @abstractmethod
    def ranked_entries(self, board: str) -> int | None:
        """How many entries of ``board`` are ranked (all of them when fewer than
        :attr:`ranks_window`); ``None`` when its ranks are not current (then rank it)."""

    @abstractmethod
    def board_entries(self, board: str) -> int | None:
        """How many entries ``board`` has in all, kept with its ranks so that a page of it
        says of how many it is without a count (which reads every score on the board);
        ``None`` when not known (ranks not current)."""

    @abstractmethod
    def ranked_top(
        self, board: str, limit: int, filters: Mapping[str, Identifier]
    ) -> list[tuple[str, str, tuple[str, ...]]] | None:
        """The first ``limit`` rows of ``board`` in order (``DESC(?score) ?run``, then the
        score node) whose run passes ``filters`` (parameter -> the name compared with
        ``sameTerm``): ``(run, score, the run's tags)`` in N-Triples, an entry once per
        solution of the filters' paths as the template's joins give it; ``None`` when the
        ranks cannot tell (not current, or the board goes on beyond a window short of
        ``limit``)."""
