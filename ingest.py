"""The write spine: documents → validation → one named graph each, with provenance.

Reading files is :mod:`reprokg.loaders.files` (``ingest_paths`` feeds its walk in here),
the service's uploads :mod:`reprokg.service.parsing` (their documents arrive
:class:`~reprokg.validation.batching.Validated`). Per document (docs/architecture.md,
Design decisions, Identifiers and Store):

* the graph IRI is ``Document.iri`` (``{base}doc/{sha256}``): the same content again is
  *unchanged* and nothing is written;
* a different content with the ``source_key`` of a stored document *revises* it: the
  new graph (with ``prov:wasRevisionOf <old>``) is written and the old one dropped in one
  store transaction (:meth:`Store.replace_document`);
* SHACL violations *reject* the document (nothing written); warnings are stored and
  reported;
* attachments, and with ``keep_originals`` (:data:`KEEP_ORIGINALS`, the one default of
  every way into the store) the source itself (named by the document id), go to the
  store's blob folder *before* the graph that may point to them, so a
  crash never leaves a graph without its blobs;
* documents are validated in batches, and batch *k* is written on a thread of its own
  while batch *k+1* is validated (pyoxigraph writes without holding the GIL; with the
  store's bulk loader, benchmarks/README.md#figures-once-quoted-in-code).

The provenance sits in the document's own graph: ``<g> a rk:Document`` with kind,
source file name, sha256, source key, loader name and version, ``prov:generatedAtTime``
and ``prov:wasGeneratedBy`` an ingest activity ``prov:wasAssociatedWith`` the reprokg
software agent, ``prov:wasAttributedTo`` the user when known (``$REPROKG_USER``: an
ORCID iD or a name).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import PROV, RDF, RDFS, XSD
from rdflib.term import Node

from reprokg import __version__
from reprokg.core.computed import ComputedResult
from reprokg.core.document import Document
from reprokg.core.errors import IdentifierError, LoadError, ValidationFailed
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import mint, orcid_iri
from reprokg.core.namespaces import RK, SCHEMA, SPARQL_PREFIXES
from reprokg.core.settings import settings
from reprokg.store.base import DocumentWrite, SelectResult, Store
from reprokg.store.terms import to_ntriples
from reprokg.validation.batching import DEFAULT_BATCH_SIZE, Validated, validate_documents
from reprokg.validation.report import Report

if TYPE_CHECKING:
    from reprokg.loaders.files import SourceWalk

SOFTWARE_AGENT = mint("agent", f"reprokg-{__version__}")

#: whether a stored document's source bytes are kept as a blob named by its document id
#: (``GET /documents/{id}?original=true``): the one default of every way into the store —
#: ``reprokg load``, ``reprokg evidence load``, ``reprokg import``, ``POST /documents``,
#: :func:`ingest`, :func:`ingest_paths` and :func:`write_result` (docs/store.md, Originals)
KEEP_ORIGINALS = True

T = TypeVar("T")
#: threads storing a batch's blobs: each is fsynced, and fsyncs at once share the file
#: system's journal commits (benchmarks/README.md#figures-once-quoted-in-code)
BLOB_THREADS = 16

#: progress callback: (documents done, documents seen so far, current source name)
Progress = Callable[[int, int, str], None]


@dataclass
class DocumentOutcome:
    """What happened to one document."""

    source: str
    kind: str
    iri: URIRef
    status: str  # "added" | "unchanged" | "revised" | "rejected"
    source_key: str = ""
    triples: int = 0
    revision_of: URIRef | None = None
    report: Report | None = None
    #: the document's subject (a computed result's node: the IRI its answer names)
    subject: URIRef | None = None


@dataclass
class IngestResult:
    documents: list[DocumentOutcome] = field(default_factory=list)
    #: sources that could not be read or parsed (nothing of them was loaded)
    errors: list[LoadError] = field(default_factory=list)
    #: special files found in folders (named pipes, devices, sockets), never opened
    skipped: list[LoadError] = field(default_factory=list)
    #: files found in folders that no loader claims
    unclaimed: list[LoadError] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for d in self.documents if d.status == status)

    @property
    def reports(self) -> list[Report]:
        return [d.report for d in self.documents if d.report is not None]

    @property
    def triples(self) -> int:
        return sum(d.triples for d in self.documents if d.status in ("added", "revised"))

    @property
    def wrote(self) -> bool:
        """Whether a document was added or revised (a load that wrote nothing into a store
        it created removes that store again)."""
        return any(d.status in ("added", "revised") for d in self.documents)

    @property
    def warnings(self) -> int:
        return sum(r.count("Warning") for r in self.reports)

    def extend(self, other: IngestResult) -> None:
        self.documents.extend(other.documents)
        self.errors.extend(other.errors)
        self.skipped.extend(other.skipped)
        self.unclaimed.extend(other.unclaimed)

    def summary(self) -> str:
        return (
            f"{self.count('added')} added, {self.count('unchanged')} unchanged, "
            f"{self.count('revised')} revised, {self.count('rejected')} rejected; "
            f"{self.triples} triples written, {self.warnings} warning(s)"
            + (f", {len(self.errors)} unreadable source(s)" if self.errors else "")
            + (f", {len(self.unclaimed)} file(s) no loader claims" if self.unclaimed else "")
            + (f", {len(self.skipped)} special file(s) skipped" if self.skipped else "")
        )

    @property
    def exit_code(self) -> int:
        """CLI convention: 2 unreadable input or no document at all, 1 validation failure,
        0 ok."""
        if self.errors or not self.documents:
            return 2
        return 1 if self.count("rejected") else 0


# --------------------------------------------------------------------------- provenance


def user_agent(user: str | None, role: str = "ingest-user") -> tuple[URIRef, Graph] | None:
    """The attributed person: an ORCID IRI when ``user`` is a valid iD, else minted from
    ``role`` and the name (the same name in two roles stays two minted people)."""
    if not user:
        return None
    g = Graph()
    try:
        iri = orcid_iri(user)
        g.add((iri, RK.orcidAsWritten, Literal(user)))
    except IdentifierError:
        iri = mint("person", stable_key(role, user))
        g.add((iri, SCHEMA.name, Literal(user)))
    g.add((iri, RDF.type, PROV.Agent))
    g.add((iri, RDF.type, SCHEMA.Person))
    return iri, g


#: what every document's provenance says of the software agent
_AGENT_TRIPLES: tuple[tuple[Node, Node, Node], ...] = (
    (SOFTWARE_AGENT, RDF.type, PROV.SoftwareAgent),
    (SOFTWARE_AGENT, RDFS.label, Literal(f"reprokg {__version__}")),
    (SOFTWARE_AGENT, SCHEMA.softwareVersion, Literal(__version__)),
)


def _stamp(when: datetime) -> Literal:
    """The ``xsd:dateTime`` literal of a stamp."""
    return _stamp_literal(when.isoformat().replace("+00:00", "Z"))


@functools.lru_cache(maxsize=64)
def _stamp_literal(text: str) -> Literal:
    """Made once per batch's stamp (rdflib parses the text back into a datetime for each
    new literal)."""
    return Literal(text, datatype=XSD.dateTime)


@functools.lru_cache(maxsize=1024)
def _shared_literal(text: str) -> Literal:
    """A plain literal whose text repeats across documents (kind, loader, its version),
    made once; rdflib literals are immutable."""
    return Literal(text)


def provenance_triples(
    doc: Document,
    *,
    when: datetime,
    user: str | None = None,
    revision_of: URIRef | None = None,
) -> list[tuple]:
    """The provenance triples stored in the document's own graph."""
    d = doc.iri
    stamp = _stamp(when)
    activity = mint("activity", stable_key("ingest", doc.sha256, stamp))
    out: list[tuple[Node, Node, Node]] = [
        (d, RDF.type, RK.Document),
        (d, RDF.type, PROV.Entity),
        (d, RK.documentKind, _shared_literal(doc.kind)),
        (d, RK.sourceFileName, Literal(Path(doc.source_name).name)),
        (d, RK.sourceSha256, Literal(doc.sha256)),
        (d, RK.sourceKey, Literal(doc.source_key)),
        (d, RK.loaderName, _shared_literal(doc.loader)),
        (d, RK.loaderVersion, _shared_literal(str(doc.loader_version))),
        (d, PROV.generatedAtTime, stamp),
        (d, PROV.wasGeneratedBy, activity),
        (activity, RDF.type, PROV.Activity),
        (activity, PROV.endedAtTime, stamp),
        (activity, PROV.wasAssociatedWith, SOFTWARE_AGENT),
        *_AGENT_TRIPLES,
    ]
    if doc.subject is not None:
        out.append((doc.subject, PROV.wasDerivedFrom, d))
    person = user_agent(user)
    if person is not None:
        iri, pg = person
        out.extend(pg)
        out.append((d, PROV.wasAttributedTo, iri))
        out.append((activity, PROV.wasAssociatedWith, iri))
    if revision_of is not None:
        out.append((d, PROV.wasRevisionOf, revision_of))
    return out


# --------------------------------------------------------------------------- the index


class StoredIndex:
    """Which of a batch's documents are stored, and which graph holds each source key.

    Looked up per batch with ``VALUES`` (cost grows with the batch, not the store) and
    kept up to date as the batch is written, so a later version in the same load
    revises an earlier one.
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self.by_key: dict[str, URIRef] = {}
        self.graphs: set[str] = set()

    def lookup(self, docs: Sequence[Document]) -> None:
        keys = sorted({d.source_key for d in docs} - set(self.by_key))
        iris = sorted({str(d.iri) for d in docs} - self.graphs)
        if keys:
            values = " ".join(to_ntriples(Literal(k)) for k in keys)
            res = self.store.query(
                SPARQL_PREFIXES + f"SELECT ?g ?key WHERE {{ VALUES ?key {{ {values} }} "
                "GRAPH ?g { ?g a rk:Document ; rk:sourceKey ?key } }"
            )
            assert isinstance(res, SelectResult)
            for g, key in res.rows:
                self.by_key[str(key)] = URIRef(str(g))
        if iris:
            values = " ".join(f"<{i}>" for i in iris)
            res = self.store.query(
                SPARQL_PREFIXES
                + f"SELECT ?g WHERE {{ VALUES ?g {{ {values} }} GRAPH ?g {{ ?g a rk:Document }} }}"
            )
            assert isinstance(res, SelectResult)
            self.graphs.update(str(row[0]) for row in res.rows)

    def record(self, iri: URIRef, key: str, old: URIRef | None) -> None:
        if old is not None:
            self.graphs.discard(str(old))
        self.graphs.add(str(iri))
        self.by_key[key] = iri


# --------------------------------------------------------------------------- ingest


def _batches(docs: Iterable[T], size: int) -> Iterator[list[T]]:
    batch: list[T] = []
    for d in docs:
        batch.append(d)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def ingest(
    store: Store,
    documents: Iterable[Document | Validated],
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    user: str | None = None,
    force: bool = False,
    progress: Progress | None = None,
    index: StoredIndex | None = None,
    keep_originals: bool = KEEP_ORIGINALS,
    when: datetime | None = None,
) -> IngestResult:
    """Validate ``documents`` in batches and store each as one named graph (atomically).

    A :class:`Validated` document (the service's parse workers validated it) is not
    validated again. ``force`` rewrites documents whose content is already stored (e.g.
    after a loader upgrade); otherwise they are reported ``unchanged``. ``keep_originals``
    keeps each stored document's source bytes as a blob named by its document id, before
    its graph is written (``GET /documents/{id}?original=true``), by default
    (:data:`KEEP_ORIGINALS`) as every other way into the store does. ``when`` is the
    provenance stamp (``prov:generatedAtTime``, and the ingest activity minted from it);
    by default the clock, per batch — a reproducible build passes a fixed one
    (:mod:`reprokg.evidence.field`), so the same sources give the same graphs.
    """
    user = user if user is not None else settings().user
    index = index or StoredIndex(store)
    result = IngestResult()
    done = 0
    keep = keep_originals and store.blob_dir is not None

    def committed(write: Future[None], outcomes: list[DocumentOutcome]) -> None:
        nonlocal done
        write.result()  # the batch's write error, if any, is raised here
        for outcome in outcomes:
            result.documents.append(outcome)
            done += 1
            if progress is not None:
                progress(done, done, outcome.source)

    # batch k is written on a thread of its own while batch k+1 is validated: the store
    # writes without the GIL (pyoxigraph), validation holds it (benchmarks/ingest)
    with (
        ThreadPoolExecutor(1, thread_name_prefix="reprokg-ingest-write") as writer,
        ThreadPoolExecutor(BLOB_THREADS, thread_name_prefix="reprokg-ingest-blob") as blobs,
    ):
        pending: tuple[Future[None], list[DocumentOutcome]] | None = None
        for items in _batches(documents, max(1, batch_size)):
            batch = _validated(items)
            index.lookup([v.document for v in batch])  # a batch being written is in it already
            writes, files, outcomes = _plan_batch(batch, index, user, force, keep, when)
            if pending is not None:
                committed(*pending)
            # the batch's writes: each document complete or absent, even if killed meanwhile
            pending = writer.submit(_write_batch, store, files, writes, blobs), outcomes
        if pending is not None:
            committed(*pending)
    return result


def _validated(items: Sequence[Document | Validated]) -> list[Validated]:
    """The batch with every document validated (those not yet, together)."""
    todo = [d for d in items if not isinstance(d, Validated)]
    reports = iter(validate_documents(todo)) if todo else iter(())
    return [d if isinstance(d, Validated) else Validated(d, next(reports)) for d in items]


def _write_batch(
    store: Store, files: list[bytes], writes: list[DocumentWrite], pool: ThreadPoolExecutor
) -> None:
    """A batch's blobs, then its graphs: a graph is never stored without the files it names
    (each blob is fsynced; :data:`BLOB_THREADS` of them at once)."""
    for _ in pool.map(store.store_blob, dict.fromkeys(files)):
        pass
    store.write_documents(writes)


def _plan_batch(
    batch: Sequence[Validated],
    index: StoredIndex,
    user: str | None,
    force: bool,
    keep_originals: bool,
    when: datetime | None = None,
) -> tuple[list[DocumentWrite], list[bytes], list[DocumentOutcome]]:
    """What to write for one validated batch (the graphs and the blobs to store before
    them), and what happens to each document."""
    now = when if when is not None else datetime.now(UTC).replace(microsecond=0)
    writes: list[DocumentWrite] = []
    files: list[bytes] = []
    outcomes: list[DocumentOutcome] = []
    for doc, report in batch:
        iri = doc.iri
        outcome = DocumentOutcome(
            source=doc.source_name,
            kind=doc.kind,
            iri=iri,
            status="added",
            source_key=doc.source_key,
            report=report,
            subject=doc.subject,
        )
        if not report.conforms:
            outcome.status = "rejected"
            outcomes.append(outcome)
            continue
        if keep_originals:
            # the source as read, LF line ends: its sha256 is the document id (kept for an
            # unchanged document too: it may have been stored without it)
            files.append(doc.source_bytes.replace(b"\r\n", b"\n"))
        if str(iri) in index.graphs and not force:
            outcome.status = "unchanged"
        else:
            old = index.by_key.get(doc.source_key)
            revision_of = old if old is not None and old != iri else None
            files.extend(doc.attachments.values())
            prov = provenance_triples(doc, when=now, user=user, revision_of=revision_of)
            triples = [*doc.graph, *prov]
            writes.append(DocumentWrite(iri, triples, revision_of))
            index.record(iri, doc.source_key, revision_of)
            outcome.triples = len(set(triples))
            if revision_of is not None:
                outcome.status = "revised"
                outcome.revision_of = revision_of
        outcomes.append(outcome)
    return writes, files, outcomes


def write_result(
    store: Store,
    result: ComputedResult,
    *,
    keep_original: bool = KEEP_ORIGINALS,
    inputs: Sequence[Document] = (),
) -> DocumentOutcome:
    """The one way a computed result is stored: its document
    (:func:`reprokg.core.computed.result_document`) written back like every document —
    validated, with provenance, a new result of the same source key revising the old one,
    the same content again unchanged, its source kept like any other's
    (:data:`KEEP_ORIGINALS`). ``inputs`` are the documents stored with it in the same call
    (the run and qrels files a comparison or an evaluation read, the rule verdicts a
    comparison's verdict folds). Raises :class:`ValidationFailed` when a document is
    rejected (the rejected document writes nothing). The result's outcome (its
    ``subject`` is the result's node)."""
    written = ingest(store, [*inputs, result.document()], keep_originals=keep_original)
    rejected = [d.report for d in written.documents if d.status == "rejected" and d.report]
    if rejected:
        raise ValidationFailed(rejected)
    return written.documents[-1]


def ingest_paths(
    store: Store,
    paths: Sequence[str | Path],
    kind: str | None = None,
    progress: Progress | None = None,
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    user: str | None = None,
    force: bool = False,
    keep_originals: bool = KEEP_ORIGINALS,
) -> IngestResult:
    """Load files and folders (:class:`~reprokg.loaders.files.SourceWalk`) and ingest their
    documents; what could not be read or was skipped is in the result."""
    from reprokg.loaders.files import SourceWalk

    return ingest_walk(
        store,
        SourceWalk(paths, kind),
        progress=progress,
        batch_size=batch_size,
        user=user,
        force=force,
        keep_originals=keep_originals,
    )


def ingest_walk(
    store: Store,
    walk: SourceWalk,
    *,
    by_file: bool = False,
    progress: Progress | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    user: str | None = None,
    force: bool = False,
    keep_originals: bool = KEEP_ORIGINALS,
    when: datetime | None = None,
) -> IngestResult:
    """Ingest a walk's documents; what it could not read or skipped is in the result.

    ``by_file`` stores each file's documents before the next file is read (a re-execution
    log is one large document: batches that span files hold several at once,
    benchmarks/README.md#figures-once-quoted-in-code), instead of batches that span files.
    """
    index = StoredIndex(store)
    parts = walk.per_file() if by_file else [walk.documents()]
    result = IngestResult()
    for docs in parts:
        result.extend(
            ingest(
                store,
                docs,
                batch_size=batch_size,
                user=user,
                force=force,
                progress=progress,
                index=index,
                keep_originals=keep_originals,
                when=when,
            )
        )
    result.errors.extend(walk.errors)
    result.skipped.extend(walk.skipped)
    result.unclaimed.extend(walk.unclaimed)
    return result
