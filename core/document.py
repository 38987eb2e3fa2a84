"""One ingested document: the unit that is validated alone and stored as one named graph."""

from __future__ import annotations

from dataclasses import dataclass, field

from rdflib import Graph, URIRef

from reprokg.core.identifiers import content_hash, document_iri


@dataclass
class Message:
    """A loader-level finding (e.g. an unknown key kept as Info) in SHACL-report terms."""

    severity: str  # "Violation" | "Warning" | "Info"
    path: str  # the source path a person edits, e.g. "actor.orcid"
    message: str
    focus_node: str | None = None
    value: str | None = None
    line: int | None = None


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
