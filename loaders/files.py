"""Files and folders of sources: which files a walk reads, and what it could not load.

``reprokg load`` and ``reprokg validate`` (through :func:`reprokg.ingest.ingest_paths` and
:func:`reprokg.validation.paths.validate_paths`) and the demo read their files here. A walk
never stops on a file: a file that cannot be read or loaded becomes one error naming it,
a special file (a named pipe, a device, a socket) is skipped without being opened, and a
file in a folder that no loader claims is skipped and named (:attr:`SourceWalk.unclaimed`),
so the user learns of each, and every good document is still loaded. A folder's files are
the files inside it: a symbolic link (to a file or a folder) that leads outside the folder
named is skipped and named, never followed (:func:`reprokg.loaders.reading.source.leaves`).

``reprokg evidence load`` walks the same way, restricted to the evidence loaders
(``kinds``), reading the results pages a folder walk otherwise leaves out as documentation
(``read_suffixes``), with each file's summary handed to a hook and its documents taken
file by file (:meth:`SourceWalk.per_file`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from reprokg.core.errors import LoadError, UnrecognisedSource, UsageError
from reprokg.loaders import SummaryHook, load_source, loader_for
from reprokg.loaders.reading.source import leaves, not_a_file, read_bytes

if TYPE_CHECKING:
    from reprokg.core.document import Document

#: files never considered when walking a folder
SKIP_NAMES = {
    "LICENSE",
    "LICENSE.md",
    "LICENSE.txt",
    "README.md",
    "README",
    "NOTICE",
    "SOURCE",  # where a data folder's files came from (the field's data)
    "CITATION.cff",
}
#: documentation, images and archives found in data folders are not sources
SKIP_SUFFIXES = {".md", ".rst", ".html", ".pdf", ".png", ".jpg", ".svg", ".xlsx", ".zip", ".gz"}


def check_paths(paths: Sequence[str | Path]) -> None:
    """Refuse the paths that do not exist, every one named, before anything is opened."""
    missing = [str(p) for p in paths if not os.path.lexists(p)]
    if missing:
        raise UsageError(f"no such file or directory: {', '.join(missing)}")


class SourceWalk:
    """The documents of every source file under ``paths``, and what was not loaded.

    Files named in ``paths`` are loaded, or are an error; files found in folders are
    loaded when a loader claims them (or ``kind`` is given); with ``kinds``, only those
    loaders are asked. Folders are read in sorted path order, without hidden files,
    :data:`SKIP_NAMES` and :data:`SKIP_SUFFIXES` (less ``read_suffixes``). :meth:`documents`
    streams, :meth:`per_file` gives each file's documents together; the lists fill as it
    goes, and ``summary`` is handed each loaded file's
    :class:`~reprokg.loaders.reading.summary.LoadSummary`.
    """

    def __init__(
        self,
        paths: Sequence[str | Path],
        kind: str | None = None,
        *,
        names: tuple[Path, str] | Mapping[Path, str] | None = None,
        kinds: Collection[str] | None = None,
        read_suffixes: Collection[str] = (),
        summary: SummaryHook | None = None,
    ) -> None:
        self.paths = [Path(p) for p in paths]
        self.kind = kind
        self.kinds = kinds
        self.skip_suffixes = SKIP_SUFFIXES - {s.lower() for s in read_suffixes}
        self.summary = summary
        #: (folder, prefix): sources are named by their path relative to the folder after
        #: the prefix (the demo's ``examples/...``), or each by the name mapped to it (a
        #: checkout's file by its path in the data layout); otherwise by the path as given
        self.names = names
        #: files that could not be read or loaded, and named paths that do not exist
        self.errors: list[LoadError] = []
        #: special files in folders (named pipes, devices, sockets), never opened, and
        #: symbolic links that lead outside the folder named, never followed
        self.skipped: list[LoadError] = []
        #: files in folders no loader claims (the error says why)
        self.unclaimed: list[UnrecognisedSource] = []
        #: source files read
        self.files = 0
        #: documents loaded
        self.loaded = 0

    def documents(self) -> Iterator[Document]:
        for docs in self.per_file():
            yield from docs

    def per_file(self) -> Iterator[list[Document]]:
        """Each loaded file's documents in turn (a caller that stores file by file holds
        one file's graphs, not a batch of many)."""
        for kind in [self.kind] if self.kind is not None else self.kinds or ():
            loader_for(kind)  # an unknown kind is refused before any file is read
        for path, named in self._files():
            try:
                data, name = read_bytes(path, self._name(path))
            except LoadError as exc:
                self.errors.append(exc)
                continue
            self.files += 1
            try:
                docs = load_source(name, data, self.kind, kinds=self.kinds, summary=self.summary)
            except UnrecognisedSource as exc:
                (self.errors if named else self.unclaimed).append(exc)
                continue
            except LoadError as exc:
                self.errors.append(exc)
                continue
            self.loaded += len(docs)
            yield docs

    def _name(self, path: Path) -> str:
        if self.names is None:
            return str(path)
        if isinstance(self.names, Mapping):
            return self.names[path]
        folder, prefix = self.names
        return prefix + path.relative_to(folder).as_posix()

    def _files(self) -> Iterator[tuple[Path, bool]]:
        """(file, named on its own) for every file to read, folders expanded."""
        for p in self.paths:
            try:
                st = p.stat()
            except FileNotFoundError:
                self.errors.append(LoadError("no such file or directory", source=str(p)))
                continue
            except OSError as exc:
                self.errors.append(LoadError(f"cannot read: {exc.strerror}", source=str(p)))
                continue
            if stat.S_ISDIR(st.st_mode):
                yield from ((f, False) for f in self._folder(p))
            else:
                yield p, True  # read_bytes refuses a special file without opening it

    def _folder(self, root: Path) -> list[Path]:
        """The files to read under ``root``, sorted; unreadable folders become errors."""

        def unreadable(exc: OSError) -> None:
            where = exc.filename or str(root)
            self.errors.append(LoadError(f"cannot read folder: {exc.strerror}", source=where))

        found: list[Path] = []
        seen: set[tuple[int, int]] = set()  # folders by (device, inode): symlink loops
        for folder, dirs, names in os.walk(root, onerror=unreadable, followlinks=True):
            st = os.stat(folder)
            if (st.st_dev, st.st_ino) in seen:
                dirs.clear()
                continue
            seen.add((st.st_dev, st.st_ino))
            dirs[:] = [d for d in dirs if not d.startswith(".") and self._inside(root, folder, d)]
            for n in names:
                if n.startswith(".") or n in SKIP_NAMES:
                    continue
                if Path(n).suffix.lower() in self.skip_suffixes:
                    continue
                f = Path(folder, n)
                if not self._inside(root, folder, n):
                    continue
                try:
                    mode = f.stat().st_mode
                except OSError as exc:  # a broken symbolic link
                    self.errors.append(LoadError(f"cannot read: {exc.strerror}", source=str(f)))
                    continue
                if stat.S_ISREG(mode):
                    found.append(f)
                elif not stat.S_ISDIR(mode):
                    self.skipped.append(LoadError(f"{not_a_file(mode)}; skipped", source=str(f)))
        return sorted(found)

    def _inside(self, root: Path, folder: str, name: str) -> bool:
        """Whether ``folder/name`` stays inside ``root``; a link out of it is skipped, named."""
        path = Path(folder, name)
        if not path.is_symlink():
            return True  # a plain entry of a folder already found inside
        out = leaves(root, path)
        if out is not None:
            self.skipped.append(out)
        return out is None


def load_path(
    path: str | Path, kind: str | None = None, *, skipped: list[LoadError] | None = None
) -> list[Document]:
    """Every document of a file or folder, for library use: the first file that cannot be
    loaded raises; files in a folder that no loader claims are left out; special files and
    links out of the folder are skipped (added to ``skipped`` when given)."""
    walk = SourceWalk([path], kind)
    docs = list(walk.documents())
    if walk.errors:
        raise walk.errors[0]
    if skipped is not None:
        skipped.extend(walk.skipped)
    return docs
