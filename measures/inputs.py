"""Runs and qrels for a comparison, from files or from stored documents.

A run given by path is read with the ir_metadata loader (its header graph, for PRIMAD
and reported measures) and its lines with :func:`reprokg.measures.trec.read_run`. A run
given by document id (the document IRI, ``doc/<sha256>`` or the bare sha256) is found in
the store: the run node of that named graph, its run file's sha256, and the run lines
from the store's blob folder (the ingest pipeline stores attachments there).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from rdflib import Graph, URIRef
from rdflib.namespace import DCAT, RDF

from reprokg.core.document import Document
from reprokg.core.errors import LoadError
from reprokg.core.identifiers import content_hash, document_iri
from reprokg.core.namespaces import RK
from reprokg.loaders.ir_metadata.loader import load_run_file
from reprokg.loaders.qrels import load_qrels_file
from reprokg.loaders.source import read_bytes
from reprokg.loaders.trec import Qrels, Run, read_qrels, read_run
from reprokg.store.base import Store

_SHA = re.compile(r"^[0-9a-f]{64}$")


@dataclass
class RunInput:
    """A parsed run plus what the graph knows about it (when it has a header or is stored)."""

    run: Run
    sha256: str  # of the run lines as the run loader normalises them
    graph: Graph | None = None
    subject: URIRef | None = None
    document: URIRef | None = None  # the stored document it came from
    has_header: bool = False
    #: the loaded run document when read from a file (to store it with --save)
    source: Document | None = None

    @property
    def content_key(self) -> str:
        """What identifies this input's content: its document's sha256 (header included)."""
        if self.source is not None:
            return self.source.sha256
        if self.document is not None:
            return str(self.document).rsplit("/", 1)[-1]
        return self.sha256


@dataclass
class QrelsInput:
    qrels: Qrels
    sha256: str
    subject: URIRef
    name: str
    document: URIRef | None = None
    collection: str | None = None
    source: Document | None = None


def looks_like_document_id(ref: str) -> bool:
    s = ref.strip()
    return bool(_SHA.match(s)) or "/doc/" in s or s.startswith("doc/")


def document_ref(ref: str) -> URIRef:
    """The document IRI for an IRI, ``doc/<sha256>`` or a bare sha256."""
    s = ref.strip()
    if _SHA.match(s):
        return document_iri(s)
    if s.startswith("doc/"):
        return document_iri(s[4:])
    return URIRef(s)


def run_from_bytes(data: bytes, name: str) -> RunInput:
    """A run file (annotated or plain TREC lines), its lines read once."""
    doc, run = load_run_file(data, name)
    lines = next(iter(doc.attachments.values()), None)
    if lines is None or run is None:
        raise LoadError("no run lines (topic Q0 docno rank score tag) found", source=name)
    # the loader says so when the file has no ir_metadata header
    header = not any(m.path == "ir_metadata" for m in doc.messages)
    return RunInput(
        run=run,
        sha256=content_hash(lines),
        graph=doc.graph,
        subject=doc.subject,
        has_header=header,
        source=doc,
    )


def run_from_path(path: str | Path) -> RunInput:
    data, name = read_bytes(path)
    return run_from_bytes(data, name)


def run_from_store(store: Store, ref: str) -> RunInput:
    iri = document_ref(ref)
    g = store.get_document(iri)
    if len(g) == 0:
        raise LoadError(f"no stored document {iri}", source=ref)
    runs = list(g.subjects(RDF.type, RK.Run))
    if len(runs) != 1:
        raise LoadError(f"document {iri} is not one run (found {len(runs)} runs)", source=ref)
    subject = runs[0]
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
        run=read_run(data, str(iri)),
        sha256=sha,
        graph=g,
        subject=subject,
        document=iri,
        has_header=header,
    )


def resolve_run(ref: str, store: Store | None) -> RunInput:
    """A path if it exists, else a document id looked up in ``store``."""
    if Path(ref).exists():
        return run_from_path(ref)
    if store is not None and looks_like_document_id(ref):
        return run_from_store(store, ref)
    raise LoadError("no such run file" + ("" if store else " (and no --store for ids)"), source=ref)


def qrels_from_bytes(data: bytes, name: str, collection: str | None = None) -> QrelsInput:
    doc, qrels = load_qrels_file(data, name, collection=collection)
    sha = next(iter(doc.attachments))
    coll = collection
    for t in doc.graph.subjects(DCAT.distribution, doc.subject):
        coll = coll or str(doc.graph.value(t, RK.irDatasetsId))
    return QrelsInput(qrels, sha, doc.subject, name, collection=coll, source=doc)


def qrels_from_store(store: Store, ref: str) -> QrelsInput:
    iri = document_ref(ref)
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
    return QrelsInput(read_qrels(data, str(iri)), sha, subjects[0], str(iri), iri, coll)


def resolve_qrels(ref: str, store: Store | None, collection: str | None = None) -> QrelsInput:
    if Path(ref).exists():
        data, name = read_bytes(ref)
        return qrels_from_bytes(data, name, collection)
    if store is not None and looks_like_document_id(ref):
        return qrels_from_store(store, ref)
    raise LoadError(
        "no such qrels file" + ("" if store else " (and no --store for ids)"), source=ref
    )
