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

What ``reprokg import FORMAT PATH`` reads is said here too, so the command is the
registry's (:func:`reprokg.loaders.import_formats`): a loader names the other tools'
formats it reads in ``INFO.formats`` (with ``INFO.reads``, what the command's help says of
them); a file is its bytes (``load``); a folder is the loader's own when it is a
:class:`FolderLoader` (an MLflow store, an RO-Crate folder), else each file in it; a
database file is opened where it lies by a :class:`DatabaseLoader` (MLflow's
``mlflow.db``, so a write-ahead log beside it is read too).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # importing the registry (e.g. for loaders.trec) loads no rdflib
    from pathlib import Path

    from rdflib import Graph, URIRef

    from reprokg.core.document import Document, Message
    from reprokg.core.errors import LoadError
    from reprokg.loaders.reading.summary import LoadSummary


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
    #: the names of other tools' formats ``reprokg import FORMAT`` reads with this loader
    #: (none: the loader reads reprokg's own inputs, through ``reprokg load``)
    formats: tuple[str, ...] = ()
    #: what ``reprokg import`` reads in these formats, in words (the command's help)
    reads: str = ""
    #: the :class:`LoadOptions` fields this loader reads (others given are refused)
    options: tuple[str, ...] = ()

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


@dataclass(frozen=True)
class LoadOptions:
    """What a user says of one import besides its input (``reprokg import`` options); a
    loader reads those its ``INFO.options`` name, with :func:`load_options`, wherever its
    input comes from (a file, a folder, a database, an upload)."""

    #: the logged parameters whose values, with the experiment, define an experiment
    #: (``--experiment-from``: optimizer × seed logged in one MLflow experiment are one
    #: experiment per optimizer)
    experiment_from: tuple[str, ...] = ()

    def given(self) -> list[str]:
        """The options given (those not at their defaults), by field name."""
        return [f.name for f in fields(self) if getattr(self, f.name) != f.default]


_OPTIONS: ContextVar[LoadOptions | None] = ContextVar("load_options", default=None)


def load_options() -> LoadOptions:
    """The options of the load under way (the defaults when none were given)."""
    return _OPTIONS.get() or LoadOptions()


@contextmanager
def loading_with(options: LoadOptions) -> Iterator[None]:
    """Loads inside the block read ``options`` (a context variable: per thread and task)."""
    token = _OPTIONS.set(options)
    try:
        yield
    finally:
        _OPTIONS.reset(token)


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


@runtime_checkable
class FolderLoader(Loader, Protocol):
    """A loader that reads a folder another tool writes as one input (an MLflow file store,
    an RO-Crate folder) rather than as a folder of files, each a source."""

    def load_folder(self, path: Path, skipped: list[LoadError] | None = None) -> list[Document]:
        """The documents of the folder ``path``; a symbolic link leading out of it is never
        followed but added to ``skipped`` (or refused, when it is what the folder is)."""
        ...


@runtime_checkable
class DatabaseLoader(Loader, Protocol):
    """A loader that opens a database file where it lies, read-only, instead of reading
    its bytes (so a write-ahead log beside it is read too)."""

    def is_database(self, head: bytes) -> bool:
        """Whether a file whose first bytes are ``head`` is a database this loader opens."""
        ...

    def load_database(self, path: Path) -> list[Document]:
        """The documents of the database file ``path``."""
        ...
