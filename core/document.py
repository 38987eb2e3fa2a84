"""One ingested document: the unit that is validated alone and stored as one named graph."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rdflib import BNode, Graph, Literal, URIRef

from reprokg.core.hashing import content_hash
from reprokg.core.identifiers import document_iri


@dataclass
class Message:
    """A loader-level finding (e.g. an unknown key kept as Info) in SHACL-report terms."""

    severity: str  # "Violation" | "Warning" | "Info"
    path: str  # the source path a person edits, e.g. "actor.orcid"
    message: str
    focus_node: str | None = None
    value: str | None = None
    line: int | None = None

    @classmethod
    def kept_unknown(
        cls, what: str, key: str, node: object, value: str | None = None, line: int | None = None
    ) -> Message:
        """Info: an unknown ``what`` (column, key) kept under ``rkx:`` (open world)."""
        return cls("Info", key, f"unknown {what} {key!r} kept under rkx:", str(node), value, line)


@dataclass
class Document:
    """What a loader returns for one source record.

    ``source_key`` names *what* the document is about (a run tag + file name, a DOI);
    two documents with the same source key and different content are versions of
    each other (``prov:wasRevisionOf``). ``sha256`` identifies the content itself.
    """

    kind: str
    graph: Graph
    source_name: str
    source_bytes: bytes
    loader: str
    loader_version: str
    source_key: str
    messages: list[Message] = field(default_factory=list)
    #: source path (``actor.orcid``) -> line in the source file, for reports
    lines: dict[str, int] = field(default_factory=dict)
    #: content-addressed side files (e.g. run lines), sha256 -> bytes
    attachments: dict[str, bytes] = field(default_factory=dict)
    #: the main node the document describes (a run, an audit, a review)
    subject: URIRef | None = None

    @property
    def sha256(self) -> str:
        """sha256 of the source; kept while ``source_bytes`` is the same object (ingest
        asks for it, and for ``iri``, several times per document)."""
        cached = self.__dict__.get("_sha256")
        if cached is None or cached[0] is not self.source_bytes:
            cached = (self.source_bytes, content_hash(self.source_bytes))
            self.__dict__["_sha256"] = cached
        return cached[1]

    @property
    def iri(self) -> URIRef:
        return document_iri(self.sha256)


# --- documents across a process boundary (the service's parse workers) -----------------


def _plain(term: Any) -> Any:
    """An rdflib term as plain values: an IRI as ``str``, a blank node or literal a tuple."""
    if isinstance(term, URIRef):
        return str(term)
    if isinstance(term, BNode):
        return ("b", str(term))
    if isinstance(term, Literal):
        dt = term.datatype
        return ("l", str(term), str(dt) if dt is not None else None, term.language)
    raise TypeError(f"not an RDF term: {term!r}")


def _term(value: Any) -> Any:
    if isinstance(value, str):
        return URIRef(value)
    if value[0] == "b":
        return BNode(value[1])
    _, lexical, dt, lang = value
    if lang:
        return Literal(lexical, lang=lang)
    # normalize=False: the lexical form as the loader wrote it ("0.10", "1.0E6")
    return Literal(lexical, datatype=URIRef(dt) if dt else None, normalize=False)


def pack(doc: Document) -> dict[str, Any]:
    """``doc`` as plain values for a pipe: its triples as tuples of ``str`` (pickling rdflib
    terms and graphs costs several times more), the other fields as they are."""
    fields = {k: v for k, v in doc.__dict__.items() if not k.startswith("_") and k != "graph"}
    fields["triples"] = [(_plain(s), _plain(p), _plain(o)) for s, p, o in doc.graph]
    return fields


def unpack(fields: dict[str, Any]) -> Document:
    """The :class:`Document` :func:`pack` was made from (same triples, same sha256)."""
    from reprokg.core.lazy_graph import LazyGraph

    fields = dict(fields)
    triples = fields.pop("triples")
    graph = LazyGraph((_term(s), _term(p), _term(o)) for s, p, o in triples)
    return Document(graph=graph, **fields)
