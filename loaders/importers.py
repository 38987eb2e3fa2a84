"""``reprokg import FORMAT PATH``: another tool's file, folder or database as documents.

What each format reads is the loader's to say (:mod:`reprokg.loaders.reading.contract`): the
format names the registry knows (:func:`reprokg.loaders.import_formats`); a folder is the
loader's own when it reads folders (an MLflow ``mlruns/`` store, an RO-Crate folder), else
each file in it (OpenML run descriptions, ir_metadata files); a database file is opened
where it lies by a loader that opens databases (MLflow's ``mlflow.db``, so a write-ahead
log next to it is read too); any other file is its bytes, read by the loader as an upload
is (a ZIP too, so a folder and its ZIP give the same documents).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from reprokg.core.document import Document
from reprokg.core.errors import LoadError, UsageError
from reprokg.loaders import load_source, loader_for_format
from reprokg.loaders.files import load_path
from reprokg.loaders.reading.contract import (
    DatabaseLoader,
    FolderLoader,
    Loader,
    LoadOptions,
    loading_with,
)
from reprokg.loaders.reading.source import read_bytes

#: bytes of a file a database loader is shown to say whether it opens it
DATABASE_HEAD = 100


def import_path(
    path: str | Path,
    fmt: str,
    skipped: list[LoadError] | None = None,
    options: LoadOptions | None = None,
) -> list[Document]:
    """The documents of ``path`` read in the format ``fmt`` (a name of
    :func:`~reprokg.loaders.import_formats`: ``rocrate``, ``mlflow``, ``openml``, …).

    Nothing outside ``path`` is read: in a folder, a symbolic link that leads out of it is
    not followed but added to ``skipped`` (each names the link); a crate folder whose
    metadata file is such a link is refused. ``options`` the loader does not read are
    refused, naming the formats that do."""
    loader = loader_for_format(fmt)
    options = options or LoadOptions()
    _check_options(loader, fmt, options)
    path = Path(path)
    if not path.exists():
        raise LoadError("no such file or directory", source=str(path))
    with loading_with(options):
        if path.is_dir():
            if isinstance(loader, FolderLoader):
                return _kinded(loader, lambda: loader.load_folder(path, skipped))
            return load_path(path, loader.INFO.kind, skipped=skipped)
        if isinstance(loader, DatabaseLoader) and path.is_file():
            with path.open("rb") as fh:
                head = fh.read(DATABASE_HEAD)
            if loader.is_database(head):
                return _kinded(loader, lambda: loader.load_database(path))
        data, display = read_bytes(path)
        return load_source(display, data, loader.INFO.kind)


def _check_options(loader: Loader, fmt: str, options: LoadOptions) -> None:
    from reprokg.loaders import import_formats

    for name in options.given():
        if name not in loader.INFO.options:
            readers = sorted(f for f, m in import_formats().items() if name in m.INFO.options)
            raise UsageError(
                f"--{name.replace('_', '-')} is not an option of format {fmt!r}; "
                f"formats that read it: {', '.join(readers) or 'none'}"
            )


def _kinded(loader: Loader, read: Callable[[], list[Document]]) -> list[Document]:
    """``read()``; its load errors name the kind read, as :func:`load_source`'s do."""
    try:
        return read()
    except LoadError as exc:
        exc.details.setdefault("kind", loader.INFO.kind)
        raise
