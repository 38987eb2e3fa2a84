"""The ingest pipeline: loaded documents → validation → one named graph each, with provenance.

Per document (DESIGN.md, Identifiers/Store):

* the graph IRI is ``Document.iri`` (``{base}doc/{sha256}``): the same content again is
  *unchanged* and nothing is written;
* a different content with the ``source_key`` of a stored document *revises* it: the
  new graph (with ``prov:wasRevisionOf <old>``) is written and the old one dropped in one
  store transaction (:meth:`Store.replace_document`);
* SHACL violations *reject* the document (nothing written); warnings are stored and
  reported;
* attachments go to the store's blob folder *before* the graph that may point to them,
  so a crash never leaves a graph without its blobs;
* documents are validated in batches, and batch *k* is written on a thread of its own
  while batch *k+1* is validated (pyoxigraph writes without holding the GIL; with the
  store's bulk loader, 214 headers/s at 10k against 77 before, benchmarks/ingest).

The provenance sits in the document's own graph: ``<g> a rk:Document`` with kind,
source file name, sha256, source key, loader name and version, ``prov:generatedAtTime``
and ``prov:wasGeneratedBy`` an ingest activity ``prov:wasAssociatedWith`` the reprokg
software agent, ``prov:wasAttributedTo`` the user when known (``$REPROKG_USER``: an
ORCID iD or a name).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import PROV, RDF, RDFS, XSD

from reprokg import __version__
from reprokg.core.document import Document
from reprokg.core.errors import IdentifierError, LoadError, ValidationFailed
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import mint, orcid_iri
from reprokg.core.namespaces import RK, SCHEMA, SPARQL_PREFIXES
from reprokg.core.settings import settings
from reprokg.store.base import DocumentWrite, SelectResult, Store
from reprokg.store.terms import to_ntriples
from reprokg.validation.batching import validate_documents, validate_in_processes
from reprokg.validation.report import Report, Result

#: documents validated together (one pyshacl run per kind per batch)
DEFAULT_BATCH_SIZE = 256
SOFTWARE_AGENT = mint("agent", f"reprokg-{__version__}")

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


@dataclass
class IngestResult:
    documents: list[DocumentOutcome] = field(default_factory=list)
    #: sources that could not be read or parsed (nothing of them was loaded)
    errors: list[LoadError] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for d in self.documents if d.status == status)

    @property
    def reports(self) -> list[Report]:
        return [d.report for d in self.documents if d.report is not None]

    @property
    def triples(self) -> int:
        return sum(d.triples for d in self.documents if d.status in ("added", "revised"))

    @property
    def warnings(self) -> int:
        return sum(r.count("Warning") for r in self.reports)

    def extend(self, other: IngestResult) -> None:
        self.documents.extend(other.documents)
        self.errors.extend(other.errors)

    def summary(self) -> str:
        return (
            f"{self.count('added')} added, {self.count('unchanged')} unchanged, "
            f"{self.count('revised')} revised, {self.count('rejected')} rejected; "
            f"{self.triples} triples written, {self.warnings} warning(s)"
            + (f", {len(self.errors)} unreadable source(s)" if self.errors else "")
        )

    @property
    def exit_code(self) -> int:
        """CLI convention: 2 unreadable input, 1 validation failure, 0 ok."""
        if self.errors:
            return 2
        return 1 if self.count("rejected") else 0


# --------------------------------------------------------------------------- provenance


def user_agent(user: str | None) -> tuple[URIRef, Graph] | None:
    """The attributed person: an ORCID IRI when ``user`` is a valid iD, else minted + name."""
    if not user:
        return None
    g = Graph()
    try:
        iri = orcid_iri(user)
        g.add((iri, RK.orcidAsWritten, Literal(user)))
    except IdentifierError:
        iri = mint("person", stable_key("ingest-user", user))
        g.add((iri, SCHEMA.name, Literal(user)))
    g.add((iri, RDF.type, PROV.Agent))
    g.add((iri, RDF.type, SCHEMA.Person))
    return iri, g


def provenance_triples(
    doc: Document,
    *,
    when: datetime,
    user: str | None = None,
    revision_of: URIRef | None = None,
) -> list[tuple]:
    """The provenance triples stored in the document's own graph."""
    d = doc.iri
    stamp = Literal(when.isoformat().replace("+00:00", "Z"), datatype=XSD.dateTime)
    activity = mint("activity", stable_key("ingest", doc.sha256, stamp))
    out = [
        (d, RDF.type, RK.Document),
        (d, RDF.type, PROV.Entity),
        (d, RK.documentKind, Literal(doc.kind)),
        (d, RK.sourceFileName, Literal(Path(doc.source_name).name)),
        (d, RK.sourceSha256, Literal(doc.sha256)),
        (d, RK.sourceKey, Literal(doc.source_key)),
        (d, RK.loaderName, Literal(doc.loader)),
        (d, RK.loaderVersion, Literal(str(doc.loader_version))),
        (d, PROV.generatedAtTime, stamp),
        (d, PROV.wasGeneratedBy, activity),
        (activity, RDF.type, PROV.Activity),
        (activity, PROV.endedAtTime, stamp),
        (activity, PROV.wasAssociatedWith, SOFTWARE_AGENT),
        (SOFTWARE_AGENT, RDF.type, PROV.SoftwareAgent),
        (SOFTWARE_AGENT, RDFS.label, Literal(f"reprokg {__version__}")),
        (SOFTWARE_AGENT, SCHEMA.softwareVersion, Literal(__version__)),
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


def _batches(docs: Iterable[Document], size: int) -> Iterator[list[Document]]:
    batch: list[Document] = []
    for d in docs:
        batch.append(d)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def ingest(
    store: Store,
    documents: Iterable[Document],
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    user: str | None = None,
    force: bool = False,
    progress: Progress | None = None,
    index: StoredIndex | None = None,
    validated: Sequence[Report] | None = None,
) -> IngestResult:
    """Validate ``documents`` in batches and store each as one named graph (atomically).

    ``force`` rewrites documents whose content is already stored (e.g. after a loader
    upgrade); otherwise they are reported ``unchanged``. ``validated`` are the documents'
    reports when they were validated already (the service's parse workers), in order.
    """
    user = user if user is not None else settings().user
    index = index or StoredIndex(store)
    result = IngestResult()
    done = 0
    offset = 0

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
    with ThreadPoolExecutor(1, thread_name_prefix="reprokg-ingest-write") as writer:
        pending: tuple[Future[None], list[DocumentOutcome]] | None = None
        for batch in _batches(documents, max(1, batch_size)):
            index.lookup(batch)  # a batch still being written is in index already
            if validated is not None:
                reports = list(validated[offset : offset + len(batch)])
                offset += len(batch)
            else:
                reports = validate_documents(batch)
            writes, outcomes = _plan_batch(store, batch, reports, index, user, force)
            if pending is not None:
                committed(*pending)
            # the batch's writes: each document complete or absent, even if killed meanwhile
            pending = writer.submit(store.write_documents, writes), outcomes
        if pending is not None:
            committed(*pending)
    return result


def _plan_batch(
    store: Store,
    batch: Sequence[Document],
    reports: Sequence[Report],
    index: StoredIndex,
    user: str | None,
    force: bool,
) -> tuple[list[DocumentWrite], list[DocumentOutcome]]:
    """What to write for one validated batch (blobs are stored here, before their graphs
    are written), and what happens to each document."""
    now = datetime.now(UTC).replace(microsecond=0)
    writes: list[DocumentWrite] = []
    outcomes: list[DocumentOutcome] = []
    for doc, report in zip(batch, reports, strict=True):
        iri = doc.iri
        outcome = DocumentOutcome(
            source=doc.source_name,
            kind=doc.kind,
            iri=iri,
            status="added",
            source_key=doc.source_key,
            report=report,
        )
        if not report.conforms:
            outcome.status = "rejected"
        elif str(iri) in index.graphs and not force:
            outcome.status = "unchanged"
        else:
            old = index.by_key.get(doc.source_key)
            revision_of = old if old is not None and old != iri else None
            # blobs first: a graph is never stored without the files it names
            for data in doc.attachments.values():
                store.store_blob(data)
            prov = provenance_triples(doc, when=now, user=user, revision_of=revision_of)
            triples = [*doc.graph, *prov]
            writes.append(DocumentWrite(iri, triples, revision_of))
            index.record(iri, doc.source_key, revision_of)
            outcome.triples = len(set(triples))
            if revision_of is not None:
                outcome.status = "revised"
                outcome.revision_of = revision_of
        outcomes.append(outcome)
    return writes, outcomes


def write_results(store: Store, documents: Sequence[Document]) -> IngestResult:
    """Computed results (and the inputs they were computed from) written back like every
    document: validated, with provenance, a new analysis of the same source key revising
    the old one, the same content again unchanged. Raises :class:`ValidationFailed` when a
    result is rejected (the rejected document writes nothing)."""
    result = ingest(store, documents)
    rejected = [d.report for d in result.documents if d.status == "rejected" and d.report]
    if rejected:
        raise ValidationFailed(rejected)
    return result


def iter_documents(
    paths: Sequence[str | Path], kind: str | None, errors: list[LoadError]
) -> Iterator[Document]:
    """Documents of every source file under ``paths``; unreadable files go to ``errors``."""
    from reprokg.loaders import iter_source_files, load_path

    try:
        files = list(iter_source_files(list(paths)))
    except LoadError as exc:
        errors.append(exc)
        return
    for f in files:
        try:
            yield from load_path(f, kind) if _named(f, paths) else _maybe(f, kind)
        except LoadError as exc:
            errors.append(exc)


def _named(f: Path, paths: Sequence[str | Path]) -> bool:
    return any(Path(p) == f for p in paths)


def _maybe(f: Path, kind: str | None) -> list[Document]:
    """A file found in a folder: loaded when a loader claims it (or ``kind`` is given)."""
    from reprokg.loaders import HEAD_BYTES, detect_kind, load_bytes
    from reprokg.loaders.source import read_bytes

    data, display = read_bytes(f)
    if kind is None:
        head = data[:HEAD_BYTES].decode("utf-8", errors="replace").replace("\r\n", "\n")
        if detect_kind(f.name, head) is None:
            return []
    return load_bytes(data, display, kind)


def ingest_paths(
    store: Store,
    paths: Sequence[str | Path],
    kind: str | None = None,
    progress: Progress | None = None,
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    user: str | None = None,
    force: bool = False,
) -> IngestResult:
    """Load files and folders and ingest their documents; read errors are collected."""
    errors: list[LoadError] = []
    result = ingest(
        store,
        iter_documents(paths, kind, errors),
        batch_size=batch_size,
        user=user,
        force=force,
        progress=progress,
    )
    result.errors.extend(errors)
    return result


def load_error_report(exc: LoadError) -> Report:
    """A read/parse failure in report form (``constraint`` = ``LoadError``, or
    ``LimitExceeded`` for a source refused by an input limit before parsing)."""
    from reprokg.core.errors import LimitExceeded

    return Report(
        source=exc.source or "<input>",
        results=[
            Result(
                "Violation",
                exc.message,
                path=exc.field,
                line=exc.line,
                source=exc.source,
                constraint="LimitExceeded" if isinstance(exc, LimitExceeded) else "LoadError",
            )
        ],
    )


#: batches ``validate_paths`` collects before validating them in parallel
VALIDATE_CHUNK_BATCHES = 8


def validate_paths(
    paths: Sequence[str | Path], kind: str | None = None, *, batch_size: int = DEFAULT_BATCH_SIZE
) -> list[Report]:
    """Reports for every document under ``paths``; never touches a store.

    Unreadable sources give a one-result report whose ``constraint`` is ``LoadError``.
    """
    errors: list[LoadError] = []
    reports: list[Report] = []
    size = max(1, batch_size)
    # a few batches at a time, validated on every core (validate_in_processes)
    for chunk in _batches(iter_documents(paths, kind, errors), size * VALIDATE_CHUNK_BATCHES):
        reports.extend(validate_in_processes(chunk, size))
    reports.extend(load_error_report(e) for e in errors)
    return reports


# --- uploads (the service) ----------------------------------------------------------------


def load_sources(sources: Sequence[tuple[str, bytes]], kind: str | None) -> list[Document]:
    """Documents from uploaded ``(file name, bytes)`` via the loader registry (the kind
    sniffed per file unless given); refusals name the file."""
    from reprokg import loaders
    from reprokg.core.errors import UnsupportedInput

    known = loaders.loaders()
    if kind is not None and kind not in known:
        raise UnsupportedInput(
            f"unknown document kind {kind!r}; known: {', '.join(sorted(known))}", field="kind"
        )
    docs: list[Document] = []
    for name, data in sources:
        head = data[: loaders.HEAD_BYTES].decode("utf-8", errors="replace")
        k = kind or loaders.detect_kind(name, head)
        if not k:
            if b"\x00" in data[:8192]:
                raise UnsupportedInput("binary input; expected UTF-8 text", source=name)
            raise UnsupportedInput(
                "no loader recognises this input; pass ?kind= "
                f"({', '.join(sorted(known))}) or upload a supported format",
                source=name,
            )
        docs.extend(loaders.load_bytes(data, name, kind=k))
    return docs


def parse_uploads(
    mode: str, sources: Sequence[tuple[str, bytes]], kind: str | None
) -> tuple[list[Report], list[Document]]:
    """Load and validate uploads: the reports, and (``mode="store"``) the documents when
    all of them conform (nothing of a batch with a violation is stored). ``mode="shacl"``:
    ``sources[0]`` is a SHACL shapes graph and the rest data graphs (``POST /shacl``)."""
    if mode == "shacl":
        from reprokg.validation.shacl import validate_sources

        return validate_sources(sources), []
    docs = load_sources(sources, kind)
    reports = validate_documents(docs)
    keep = mode == "store" and all(r.conforms for r in reports)
    return reports, docs if keep else []


def parse_job(payload: tuple[Any, ...]) -> dict[str, Any]:
    """:func:`parse_uploads` as the job of the service's parse workers
    (:class:`~reprokg.core.pool.WorkerPool`), where a crash or a runaway on hostile input
    cannot take the server with it: ``(mode, sources, kind, settings)`` in (the service's
    settings: its input limits, base and engine, which the worker's environment may not
    have), the reports and the documents packed for the pipe
    (:func:`reprokg.core.document.pack`) out.
    """
    from reprokg.core.document import pack
    from reprokg.core.settings import configure

    mode, sources, kind, job_settings = payload
    if job_settings is not None and job_settings != settings():
        configure(job_settings)
    reports, docs = parse_uploads(mode, sources, kind)
    return {"reports": reports, "documents": [pack(d) for d in docs]}
