"""Runs and qrels for a comparison, from files or from stored documents.

A run given by path is read with the ir_metadata loader (its header graph, for PRIMAD
and reported measures; the run lines read once with it), or, when the file has no header,
by :func:`reprokg.loaders.trec_files.parse_run_text` alone (the document built only if asked
for: ``reprokg compare`` on plain runs needs neither rdflib nor the loader). A run
given by document id (the document IRI, ``doc/<sha256>`` or the bare sha256) is found in
the store: the run node of that named graph, its run file's sha256, and the run lines
from the store's blob folder (the ingest pipeline stores attachments there).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, cast

from reprokg.core.errors import LoadError
from reprokg.core.hashing import content_hash
from reprokg.loaders.reading.source import decode_text, read_bytes
from reprokg.loaders.trec_files import (
    RUN_LINE,
    ParsedQrels,
    Qrels,
    Run,
    RunSummary,
    first_nonblank_line,
    parse_qrels_text,
    parse_run_bytes,
    parse_run_text,
    read_qrels,
    read_run,
)
from reprokg.measures.registry import CROSS

if TYPE_CHECKING:
    from rdflib import Graph, URIRef

    from reprokg.core.document import Document
    from reprokg.store.base import Store

_SHA = re.compile(r"^[0-9a-f]{64}$")


@dataclass
class RunInput:
    """A parsed run plus what the graph knows about it (when it has a header or is stored).

    A run file without an ir_metadata header is read without building its document: the
    measures need only its lines. ``source``, ``graph`` and ``subject`` then build the
    document from the same bytes when something asks (``--save`` stores it), and the
    hashes are taken when asked for, so a plain ``reprokg compare`` never imports rdflib.
    """

    run: Run
    name: str = ""
    document: URIRef | None = None  # the stored document it came from
    has_header: bool = False
    #: sha256 of the run lines (else taken from ``_summary`` when asked for)
    _sha256: str | None = field(default=None, repr=False)
    _summary: RunSummary | None = field(default=None, repr=False)
    #: the file's bytes when read from a file (its document is built from them)
    _file: bytes | None = field(default=None, repr=False)
    _graph: Graph | None = field(default=None, repr=False)
    _subject: URIRef | None = field(default=None, repr=False)
    _source: Document | None = field(default=None, repr=False)

    def without_rankings(self) -> RunInput:
        """This input with a run of no topics (its name, tag and warnings kept): what a
        forked child that computed the run's side of a comparison sends back. Only for an
        input without a header or a stored document, whose rankings nothing reads after
        its side (``reprokg compare``)."""
        if self.has_header or self.document is not None:
            raise ValueError(f"{self.name}: an input with metadata keeps its rankings")
        run = self.run
        empty = Run(name=run.name, topics={}, tag=run.tag, warnings=list(run.warnings))
        return replace(self, run=empty)

    @property
    def sha256(self) -> str:
        """sha256 of the run lines as the run loader normalises them (the attachment)."""
        if self._sha256 is None:
            if self._summary is None:
                raise ValueError(f"{self.name}: a run input without its run lines' hash")
            self._sha256 = self._summary.sha256
        return self._sha256

    def _load(self) -> None:
        if self._source is None and self._graph is None and self._file is not None:
            from reprokg.loaders.ir_metadata.loader import load_run_file

            doc, _run = load_run_file(self._file, self.name)
            self._source, self._graph, self._subject = doc, doc.graph, doc.subject

    @property
    def graph(self) -> Graph | None:
        self._load()
        return self._graph

    @property
    def subject(self) -> URIRef | None:
        self._load()
        return self._subject

    def described(self) -> tuple[Graph, URIRef] | None:
        """The run's graph and its run node, or ``None`` when it has no graph (the run
        loader and a stored run document always name the run node with the graph)."""
        graph, subject = self.graph, self.subject
        if graph is None or subject is None:
            return None
        return graph, subject

    @property
    def source(self) -> Document | None:
        """The loaded run document when read from a file (to store it with --save)."""
        self._load()
        return self._source

    @property
    def content_key(self) -> str:
        """What identifies this input's content: its document's sha256 (header included)."""
        if self._source is not None:
            return self._source.sha256
        if self._file is not None:
            return content_hash(self._file)  # what the document's sha256 is
        if self.document is not None:
            return str(self.document).rsplit("/", 1)[-1]
        return self.sha256


@dataclass
class QrelsInput:
    qrels: Qrels
    name: str
    document: URIRef | None = None
    collection: str | None = None
    #: sha256 of the normalised lines (else taken from ``_parsed`` when asked for)
    _sha256: str | None = field(default=None, repr=False)
    _parsed: ParsedQrels | None = field(default=None, repr=False)
    _subject: URIRef | None = field(default=None, repr=False)
    _source: Document | None = field(default=None, repr=False)
    #: the file's bytes, until its document is built from them
    _file: bytes | None = field(default=None, repr=False)

    @property
    def sha256(self) -> str:
        """sha256 of the qrels lines as the qrels loader normalises them."""
        if self._sha256 is None:
            if self._parsed is None:
                raise ValueError(f"{self.name}: a qrels input without its lines' hash")
            self._sha256 = self._parsed.sha256
        return self._sha256

    @property
    def subject(self) -> URIRef:
        """The qrels node (minted from the lines' sha256, as the qrels loader mints it)."""
        if self._subject is None:
            from reprokg.loaders.qrels import qrels_iri

            self._subject = qrels_iri(self.sha256)
        return self._subject

    @property
    def source(self) -> Document | None:
        """The qrels document when read from a file (to store it with --save)."""
        if self._source is None and self._file is not None:
            from reprokg.loaders.qrels import load_qrels_file

            self._source = load_qrels_file(self._file, self.name, collection=self.collection)[0]
            self._file = None
        return self._source


def looks_like_document_id(ref: str) -> bool:
    s = ref.strip()
    return bool(_SHA.match(s)) or "/doc/" in s or s.startswith("doc/")


def document_ref(ref: str, field: str | None = None) -> URIRef:
    """The document IRI for an IRI, ``doc/<sha256>`` or a bare sha256; anything else (a
    relative or malformed IRI: the store's own parser decides) is a :class:`LoadError`
    naming ``field``."""
    from rdflib import URIRef

    from reprokg.core.identifiers import document_iri
    from reprokg.sparql.named import NamedQueryError, Param, to_term

    s = ref.strip()
    if _SHA.match(s):
        return document_iri(s)
    if s.startswith("doc/") and _SHA.match(s[4:]):
        return document_iri(s[4:])
    try:
        node = to_term(Param(field or "document", "iri"), s)
    except NamedQueryError as exc:
        raise LoadError(
            f"{exc}; expected a stored document's IRI, doc/<sha256> or its sha256",
            source=ref,
            field=field,
        ) from None
    assert isinstance(node, URIRef)
    return node


def run_from_bytes(data: bytes, name: str) -> RunInput:
    """A run file (annotated or plain TREC lines), its lines read once.

    A file whose first line is a run line has no header (the run loader reads it as run
    lines only): its lines are parsed here and its document is built only when asked for.
    Anything else (a header, or lines the loader must report on) goes through the loader.
    """
    parsed = None
    head = data[:_FIRST_LINE_BYTES].decode("ascii") if _plain_ascii(data) else None
    if head is not None and (len(data) <= len(head) or "\n" in head.lstrip()):
        # decoding would give the same characters, and the first line is in the head
        if RUN_LINE.match(first_nonblank_line(head)):
            parsed = parse_run_bytes(data, name)
    else:
        text = decode_text(data, name)
        if RUN_LINE.match(first_nonblank_line(text)):
            parsed = parse_run_text(text, name)
    if parsed is not None:
        lines = parsed.summary.data
        # one bytes object when the file is its normalised lines: half the memory, and
        # pickled once when a forked child hands the run back (cli/compare.py)
        return RunInput(
            parsed.run, name, _summary=parsed.summary, _file=lines if lines == data else data
        )
    from reprokg.loaders.ir_metadata.loader import load_run_file

    doc, run = load_run_file(data, name)
    attached = next(iter(doc.attachments.values()), None)
    if attached is None or run is None:
        raise LoadError("no run lines (topic Q0 docno rank score tag) found", source=name)
    # the loader says so when the file has no ir_metadata header
    header = not any(m.path == "ir_metadata" for m in doc.messages)
    return RunInput(
        run,
        name,
        has_header=header,
        _sha256=content_hash(attached),
        _file=data,
        _graph=doc.graph,
        _subject=doc.subject,
        _source=doc,
    )


#: the head a plain run's first line is looked for in (a longer first line is no run line)
_FIRST_LINE_BYTES = 1 << 16


def _plain_ascii(data: bytes) -> bool:
    """ASCII without CR or NUL: :func:`decode_text` would return the same characters."""
    return data.isascii() and b"\r" not in data and b"\x00" not in data


def run_from_path(path: str | Path) -> RunInput:
    data, name = read_bytes(path)
    return run_from_bytes(data, name)


def run_from_store(store: Store, ref: str, field: str | None = None) -> RunInput:
    from rdflib.namespace import RDF

    from reprokg.core.namespaces import RK

    iri = document_ref(ref, field)
    g = store.get_document(iri)
    if len(g) == 0:
        raise LoadError(f"no stored document {iri}", source=ref)
    runs = list(g.subjects(RDF.type, RK.Run))
    if len(runs) != 1:
        raise LoadError(f"document {iri} is not one run (found {len(runs)} runs)", source=ref)
    subject = cast("URIRef", runs[0])  # a stored document's run node is an IRI it minted
    sha = next(
        (str(s) for f in g.objects(subject, RK.runFile) for s in g.objects(f, RK.sha256)), None
    )
    if sha is None:
        raise LoadError(f"run document {iri} has no run lines (no rk:runFile)", source=ref)
    data = store.get_blob(sha)
    if data is None:
        raise LoadError(f"run lines {sha} of {iri} are not in the store's blob folder", source=ref)
    header = any(True for _ in g.objects(subject, RK.platform)) or any(
        True for _ in g.objects(subject, RK.researchGoal)
    )
    return RunInput(
        read_run(data, str(iri)),
        str(iri),
        document=iri,
        has_header=header,
        _sha256=sha,
        _graph=g,
        _subject=subject,
    )


def resolve_run(ref: str, store: Store | None) -> RunInput:
    """A path if it exists, else a document id looked up in ``store``."""
    if Path(ref).exists():
        return run_from_path(ref)
    if store is not None and looks_like_document_id(ref):
        return run_from_store(store, ref)
    raise LoadError("no such run file" + ("" if store else " (and no --store for ids)"), source=ref)


def qrels_from_bytes(data: bytes, name: str, collection: str | None = None) -> QrelsInput:
    """A qrels file's judgements (as the qrels loader reads them); its document is built
    when asked for."""
    parsed = parse_qrels_text(decode_text(data, name), name)
    return QrelsInput(
        parsed.qrels, name, collection=collection or parsed.collection, _parsed=parsed, _file=data
    )


def qrels_from_store(store: Store, ref: str, field: str | None = None) -> QrelsInput:
    from rdflib.namespace import DCAT, RDF

    from reprokg.core.namespaces import RK

    iri = document_ref(ref, field)
    g = store.get_document(iri)
    subjects = [s for s in g.subjects(RDF.type, DCAT.Distribution) if (s, RK.sha256, None) in g]
    if len(subjects) != 1:
        raise LoadError(f"document {iri} is not one qrels file", source=ref)
    sha = str(g.value(subjects[0], RK.sha256))
    data = store.get_blob(sha)
    if data is None:
        raise LoadError(
            f"qrels lines {sha} of {iri} are not in the store's blob folder", source=ref
        )
    coll = next(
        (str(g.value(t, RK.irDatasetsId)) for t in g.subjects(DCAT.distribution, subjects[0])), None
    )
    qrels = cast("URIRef", subjects[0])  # a stored document's distribution is an IRI it minted
    return QrelsInput(read_qrels(data, str(iri)), str(iri), iri, coll, sha, _subject=qrels)


def resolve_qrels(ref: str, store: Store | None, collection: str | None = None) -> QrelsInput:
    if Path(ref).exists():
        data, name = read_bytes(ref)
        return qrels_from_bytes(data, name, collection)
    if store is not None and looks_like_document_id(ref):
        return qrels_from_store(store, ref)
    raise LoadError(
        "no such qrels file" + ("" if store else " (and no --store for ids)"), source=ref
    )


def judging_qrels(
    role: str, kind: str, qrels: QrelsInput, qrels_rpl: QrelsInput | None
) -> QrelsInput:
    """The qrels that judge a role's run: the reproduced runs' own in a cross-collection
    study, else the original qrels."""
    if kind == CROSS and role.startswith("rep") and qrels_rpl is not None:
        return qrels_rpl
    return qrels
