"""Stores: :func:`open_store` picks the backend from a spec string.

* a directory → embedded pyoxigraph. Layout: ``DIR/oxigraph/`` (RocksDB) and
  ``DIR/blobs/`` (content-addressed attachments). A directory that already *is* a bare
  oxigraph database (has a ``CURRENT`` file) is opened as is, blobs in ``DIR.blobs/``.
* ``http(s)://…`` → a remote SPARQL 1.1 engine (:mod:`reprokg.store.remote`); the
  URL is the query endpoint. ``oxigraph+http://…`` / ``virtuoso+http://…`` force a dialect.
  Blobs go to ``$REPROKG_BLOB_DIR`` (default ``./reprokg-blobs``). Updates go to the
  same URL (Oxigraph: ``/update``) unless ``$REPROKG_UPDATE_URL`` says otherwise, e.g.
  Virtuoso's ``/sparql-auth`` with ``$REPROKG_SPARQL_USER``/``_PASSWORD`` (Digest).
* ``None`` → ``$REPROKG_STORE`` or ``./reprokg-data``; ``":memory:"`` → an in-memory store.
"""

from __future__ import annotations

import os
from pathlib import Path

from reprokg.core.errors import QuerySyntaxError, QueryTimeout, StoreError
from reprokg.core.settings import settings
from reprokg.store.base import AskResult, GraphResult, QueryResult, SelectResult, Store

__all__ = [
    "AskResult",
    "GraphResult",
    "QueryResult",
    "QuerySyntaxError",
    "QueryTimeout",
    "SelectResult",
    "Store",
    "StoreError",
    "default_store_spec",
    "open_store",
]


def default_store_spec() -> str:
    return settings().store


def _is_url(spec: str) -> bool:
    scheme = spec.split("://", 1)[0].lower() if "://" in spec else ""
    return scheme in ("http", "https") or scheme.endswith(("+http", "+https"))


def open_store(
    spec: str | os.PathLike[str] | None = None,
    *,
    read_only: bool = False,
    blob_dir: str | os.PathLike[str] | None = None,
) -> Store:
    """Open the store named by ``spec`` (see the module docstring)."""
    spec = str(spec) if spec is not None else default_store_spec()
    if _is_url(spec):
        from reprokg.store.remote import RemoteStore

        config = settings()
        auth = None
        if config.sparql_user:
            import httpx

            auth = httpx.DigestAuth(config.sparql_user, config.sparql_password)
        return RemoteStore(
            spec,
            read_only=read_only,
            blob_dir=blob_dir or config.blob_dir,
            update_url=config.update_url,
            auth=auth,
        )

    from reprokg.store.oxigraph import OxigraphStore

    if spec == ":memory:":
        return OxigraphStore(None, blob_dir=blob_dir)
    root = Path(spec)
    if (root / "CURRENT").is_file():
        db, blobs_default = root, root.with_name(root.name + ".blobs")
    else:
        if read_only and not (root / "oxigraph").is_dir():
            raise StoreError(f"no store at {root} (expected {root / 'oxigraph'})")
        db, blobs_default = root / "oxigraph", root / "blobs"
        if not read_only:
            root.mkdir(parents=True, exist_ok=True)
    return OxigraphStore(db, read_only=read_only, blob_dir=blob_dir or blobs_default)
