"""``reprokg import FORMAT PATH``: another tool's files or folder as one source's bytes.

Folders are what these tools write (an MLflow ``mlruns/`` store, an RO-Crate folder); the
loaders read bytes, as they do uploads. A crate folder is its ``ro-crate-metadata.json``;
an MLflow store folder is read into the normalised records of
:func:`reprokg.loaders.mlflow.read_store_folder`, and an MLflow SQLite database file is
opened read-only where it lies (:func:`reprokg.loaders.mlflow.load_database`, so a
write-ahead log next to it is read too); a folder of OpenML run descriptions or
ir_metadata files is each of its files. A ZIP is read by the loader itself (the same as an
upload), so a folder and its ZIP give the same documents.
"""

from __future__ import annotations

from pathlib import Path

from reprokg.core.document import Document
from reprokg.core.errors import LoadError
from reprokg.loaders import load_source
from reprokg.loaders.files import load_path
from reprokg.loaders.source import leaves, read_bytes


def import_path(
    path: str | Path, kind: str, skipped: list[LoadError] | None = None
) -> list[Document]:
    """The documents of ``path`` read as ``kind`` (``rocrate``, ``mlflow``, ``openml``, ``run``).

    Nothing outside ``path`` is read: in a folder, a symbolic link that leads out of it is
    not followed but added to ``skipped`` (each names the link); a crate folder whose
    metadata file is such a link is refused."""
    path = Path(path)
    if not path.exists():
        raise LoadError("no such file or directory", source=str(path))
    if path.is_dir():
        if kind == "rocrate":
            from reprokg.loaders.rocrate import METADATA_NAMES

            meta = next((path / n for n in METADATA_NAMES if (path / n).is_file()), None)
            if meta is None:
                raise LoadError(
                    "the folder has no ro-crate-metadata.json; expected an RO-Crate folder",
                    source=str(path),
                )
            if (out := leaves(path, meta)) is not None:
                raise out
            data, _ = read_bytes(meta)
            return load_source(str(meta), data, kind)
        if kind == "mlflow":
            from reprokg.loaders.mlflow import read_store_folder

            return load_source(f"{path}/", read_store_folder(path, skipped), kind)
        return load_path(path, kind, skipped=skipped)
    if kind == "mlflow" and path.is_file():
        from reprokg.loaders.mlflow import load_database
        from reprokg.loaders.mlflow_sqlite import SQLITE_MAGIC

        with path.open("rb") as fh:
            if fh.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC:
                try:
                    return load_database(path)
                except LoadError as exc:
                    exc.details.setdefault("kind", kind)
                    raise
    data, display = read_bytes(path)
    return load_source(display, data, kind)
