"""The service's one settings object, read from the environment once at start-up.

Everything configurable lives here so that the app, the CLI (``reprokg serve``) and
uvicorn worker processes (which only see the environment) agree on one configuration.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from reprokg.core.namespaces import DEFAULT_BASE

DEFAULT_STORE = "./reprokg-data"


def _flag(value: str | None, default: bool = False) -> bool:
    if value is None or value == "":
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def _read_token(env: Mapping[str, str]) -> str | None:
    """The write token, from ``REPROKG_WRITE_TOKEN`` or the file ``REPROKG_WRITE_TOKEN_FILE``.

    A file keeps the secret out of the process list and shell history.
    """
    token = env.get("REPROKG_WRITE_TOKEN")
    path = env.get("REPROKG_WRITE_TOKEN_FILE")
    if not token and path:
        token = Path(path).read_text(encoding="utf-8").strip()
    return token or None


@dataclass(frozen=True)
class Settings:
    """Service configuration; :meth:`from_env` is the one place the environment is read."""

    #: embedded store directory or SPARQL endpoint URL
    store: str = DEFAULT_STORE
    #: bearer token that unlocks writes; ``None`` turns writing over HTTP off
    write_token: str | None = field(default=None, repr=False)
    #: base of the instance IRIs the service dereferences at ``/id/...``
    base: str = DEFAULT_BASE
    #: seconds a query may run before it is stopped
    query_timeout: float = 10.0
    #: most result rows a query returns
    row_cap: int = 10_000
    #: largest request body accepted (bytes) for documents and queries
    max_body_bytes: int = 8 * 1024 * 1024
    #: most files in one multipart upload
    max_files: int = 100
    #: open the embedded store read-only (several uvicorn workers); writes answer 403
    read_only: bool = False
    #: with ``read_only``: copy the embedded store into memory at start and answer named
    #: queries and linked-data lookups from the copy (the data cannot change meanwhile)
    memory_mirror: bool = False
    #: the store was filled with the bundled examples (shown on / and /health)
    demo: bool = False
    #: JSON-lines access log on the ``reprokg.access`` logger
    access_log: bool = True
    #: run named queries in the request thread (bounded, vetted queries) instead of the
    #: SPARQL endpoint's kill-able worker processes (which cost a process hop per query)
    named_queries_inline: bool = True
    #: IRIs that SPARQL ``LOAD`` may fetch (empty: LOAD refused)
    load_allowlist: tuple[str, ...] = ()

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        env = os.environ if env is None else env
        base = env.get("REPROKG_BASE") or DEFAULT_BASE
        values: dict[str, object] = {
            "store": env.get("REPROKG_STORE") or DEFAULT_STORE,
            "write_token": _read_token(env),
            "base": base if base.endswith("/") else base + "/",
            "query_timeout": float(env.get("REPROKG_QUERY_TIMEOUT") or 10.0),
            "row_cap": int(env.get("REPROKG_ROW_CAP") or 10_000),
            "max_body_bytes": int(env.get("REPROKG_MAX_BODY_BYTES") or 8 * 1024 * 1024),
            "max_files": int(env.get("REPROKG_MAX_FILES") or 100),
            "read_only": _flag(env.get("REPROKG_READ_ONLY")),
            "memory_mirror": _flag(env.get("REPROKG_MEMORY_MIRROR")),
            "demo": _flag(env.get("REPROKG_DEMO")),
            "access_log": _flag(env.get("REPROKG_ACCESS_LOG"), default=True),
            "named_queries_inline": _flag(env.get("REPROKG_NAMED_QUERIES_INLINE"), default=True),
            "load_allowlist": tuple(
                s for s in (env.get("REPROKG_LOAD_ALLOWLIST") or "").split() if s
            ),
        }
        values.update(overrides)
        return cls(**values)  # type: ignore[arg-type]

    def to_env(self) -> dict[str, str]:
        """The environment that makes :meth:`from_env` return these settings (for workers)."""
        env = {
            "REPROKG_STORE": self.store,
            "REPROKG_BASE": self.base,
            "REPROKG_QUERY_TIMEOUT": str(self.query_timeout),
            "REPROKG_ROW_CAP": str(self.row_cap),
            "REPROKG_MAX_BODY_BYTES": str(self.max_body_bytes),
            "REPROKG_MAX_FILES": str(self.max_files),
            "REPROKG_READ_ONLY": "1" if self.read_only else "0",
            "REPROKG_MEMORY_MIRROR": "1" if self.memory_mirror else "0",
            "REPROKG_DEMO": "1" if self.demo else "0",
            "REPROKG_ACCESS_LOG": "1" if self.access_log else "0",
            "REPROKG_NAMED_QUERIES_INLINE": "1" if self.named_queries_inline else "0",
            "REPROKG_LOAD_ALLOWLIST": " ".join(self.load_allowlist),
        }
        if self.write_token:
            env["REPROKG_WRITE_TOKEN"] = self.write_token
        return env

    def with_(self, **changes: object) -> Settings:
        return replace(self, **changes)  # type: ignore[arg-type]
