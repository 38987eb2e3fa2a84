"""The loader plugin contract: what a loader module exposes, and the :class:`Document` it builds.

A loader is a module (listed in ``reprokg.loaders.LOADER_MODULES``) that satisfies
:class:`Loader` structurally: ``INFO`` (its :class:`LoaderInfo`), ``sniff(name, head)`` and
``load(data, name)``. The registry checks the structure when it imports the module; a
type checker checks it wherever a module is used as a ``Loader``. Its documents are built
with ``INFO.document(...)``, so kind, loader name and version are written in one place.

``sniff`` answers on the file name and the decoded first 4 KB: ``True`` (or
:attr:`Claim.YES`) when the file is in the loader's format, ``False`` (:attr:`Claim.NO`)
when not, and :attr:`Claim.NEAR` when it looks like the loader's format but is not one it
reads (an audit whose ``audit:`` version is 99). When no loader says yes, the registry
loads the file with the near claimers, so the user reads that loader's own error (file,
line, field, expected) instead of "no loader claims this". A file with NUL bytes is binary:
only a :class:`BinaryLoader`'s ``sniff_bytes`` is asked, in the same way.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # importing the registry (e.g. for loaders.trec) loads no rdflib
    from rdflib import Graph, URIRef

    from reprokg.core.document import Document, Message
    from reprokg.loaders.summary import LoadSummary


class Claim(enum.Enum):
    """What ``sniff`` says of a file; only :attr:`YES` is true as a bool."""

    NO = "no"
    #: the loader's format by its look, but not a version or shape it reads
    NEAR = "near"
    YES = "yes"

    def __bool__(self) -> bool:
        return self is Claim.YES

    @classmethod
    def of(cls, answer: bool | Claim) -> Claim:
        """A sniff's answer as a :class:`Claim` (``True``/``False`` are YES/NO)."""
        if isinstance(answer, Claim):
            return answer
        return cls.YES if answer else cls.NO


@dataclass(frozen=True)
class LoaderInfo:
    """Who made a document: the kind (= the shapes file ``shapes/{kind}.ttl``), the loader's
    name and version, stored as the document's provenance."""

    kind: str
    name: str
    version: str

    def document(
        self,
        graph: Graph,
        *,
        source_name: str,
        source_bytes: bytes,
        source_key: str,
        subject: URIRef | None = None,
        messages: list[Message] | None = None,
        lines: dict[str, int] | None = None,
        attachments: dict[str, bytes] | None = None,
    ) -> Document:
        """This loader's document of one source record (the lists and maps are kept, not
        copied: a loader may still add to them)."""
        from reprokg.core.document import Document

        return Document(
            kind=self.kind,
            graph=graph,
            source_name=source_name,
            source_bytes=source_bytes,
            loader=self.name,
            loader_version=self.version,
            source_key=source_key,
            messages=messages if messages is not None else [],
            lines=lines if lines is not None else {},
            attachments=attachments if attachments is not None else {},
            subject=subject,
        )


@runtime_checkable
class Loader(Protocol):
    """A loader module, checked structurally (modules satisfy protocols)."""

    INFO: LoaderInfo

    def sniff(self, name: str, head: str) -> bool | Claim:
        """Whether the file (its base name, its first 4 KB as text) is in this format."""
        ...

    def load(self, data: bytes, name: str) -> list[Document]:
        """The documents of one source's bytes; :class:`~reprokg.core.errors.LoadError`
        naming file, line, field and what was expected when it cannot be read."""
        ...


@runtime_checkable
class BinaryLoader(Loader, Protocol):
    """A loader that also reads a binary format, known by its bytes (an SQLite database):
    :func:`reprokg.loaders.load_source` asks it before refusing a file with NUL bytes."""

    def sniff_bytes(self, name: str, data: bytes) -> bool | Claim:
        """Whether the file (its base name, all its bytes) is in this loader's binary
        format; cheap (a header, a byte search), never a parse."""
        ...


@runtime_checkable
class SummarisingLoader(Loader, Protocol):
    """A loader that also says what a load normalised, skipped and why (the evidence
    loaders); :func:`reprokg.loaders.load_source` asks it when the caller wants summaries."""

    def load_with_summary(self, data: bytes, name: str) -> tuple[list[Document], LoadSummary]:
        """``load``'s documents, and the file's :class:`LoadSummary`."""
        ...
