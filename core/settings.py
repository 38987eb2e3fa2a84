"""The one settings object: everything configurable, read from ``REPROKG_*`` once.

The service, the CLI, the store, ingest and validation all read :func:`settings` (no other
module reads the environment), so the app, the commands and uvicorn worker processes
(which only see the environment, :meth:`Settings.to_env`) agree on one configuration.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

#: the instance-data base when ``REPROKG_BASE`` is not set
DEFAULT_BASE = "https://w3id.org/reprokg/id/"


#: the store used when none is named (``--store`` / ``REPROKG_STORE``)
DEFAULT_STORE = "./reprokg-data"


def _flag(value: str | None, default: bool = False) -> bool:
    if value is None or value == "":
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def _engine(value: str | None) -> str:
    return value if value in ("pyshacl", "compare") else "fast"


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
    #: megabytes of named-query results kept per process, keyed by the store's version
    #: (any write invalidates); 0 turns the cache off (sparql/cache.py)
    named_query_cache_mb: int = 64
    #: IRIs that SPARQL ``LOAD`` may fetch (empty: LOAD refused)
    load_allowlist: tuple[str, ...] = ()
    #: SHACL engine: ``fast`` (shapes compiled to SPARQL), ``pyshacl``, or ``compare``
    #: (both, failing on any disagreement: the equivalence gate)
    shacl_engine: str = "fast"
    #: who loads documents (an ORCID iD or a name), recorded as ``prov:wasAttributedTo``
    user: str | None = None
    #: blob folder of a remote store (an embedded store keeps its blobs in its directory)
    blob_dir: str = "./reprokg-blobs"
    #: SPARQL Update endpoint of a remote store when it is not the query URL
    update_url: str | None = None
    #: HTTP Digest credentials for a remote store's updates (Virtuoso's /sparql-auth)
    sparql_user: str | None = None
    sparql_password: str = field(default="", repr=False)

    # --- limits on untrusted input, checked before any parser sees it (docs/security.md)
    #: nested collections in a YAML/JSON source (block or flow), and groups in a SPARQL
    #: query; PyYAML's C composer overflows the stack at ~24,000 levels (SIGSEGV)
    max_depth: int = 64
    #: scalars + collections + aliases of one YAML/JSON source (an upper bound for YAML)
    max_nodes: int = 200_000
    #: YAML aliases (``*a``) per document: the alias-bomb vector; our formats need none
    max_aliases: int = 100
    #: YAML anchors (``&a``) per document
    max_anchors: int = 1_000
    #: characters per line of YAML, CSV and TREC files (JSON is exempt: one minified line)
    max_line_length: int = 65_536
    #: fields per CSV row or whitespace-separated TREC line
    max_fields: int = 1_000

    # --- isolation of uploads (service): parsing and validation in worker processes
    #: worker processes parsing and validating uploads; 0 parses in the request thread
    parse_workers: int = 2
    #: seconds one upload may take to parse and validate (the worker is killed after); the
    #: largest real source (consolidatedData.json, 1.6 MB, 374 documents) takes ~100 s on
    #: a busy 2-CPU machine, and must pass
    parse_timeout: float = 300.0
    #: address space of a parse worker (MiB, ``RLIMIT_AS``); 0 = no limit
    parse_memory_mb: int = 3_072

    # --- the HTTP server (uvicorn, ``reprokg serve``)
    #: most connections + requests in progress per server process; more answer 503
    limit_concurrency: int = 2_048
    #: seconds an idle keep-alive connection is kept open
    timeout_keep_alive: float = 5.0
    #: seconds a client has to send a request's head once it starts (or connects)
    header_timeout: float = 10.0
    #: bytes a request's head (request line + headers) may have
    max_header_bytes: int = 65_536

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
            "named_query_cache_mb": int(env.get("REPROKG_NAMED_QUERY_CACHE_MB") or 64),
            "load_allowlist": tuple(
                s for s in (env.get("REPROKG_LOAD_ALLOWLIST") or "").split() if s
            ),
            "shacl_engine": _engine(env.get("REPROKG_SHACL_ENGINE")),
            "user": env.get("REPROKG_USER") or None,
            "blob_dir": env.get("REPROKG_BLOB_DIR") or "./reprokg-blobs",
            "update_url": env.get("REPROKG_UPDATE_URL") or None,
            "sparql_user": env.get("REPROKG_SPARQL_USER") or None,
            "sparql_password": env.get("REPROKG_SPARQL_PASSWORD") or "",
        }
        for name, kind in _LIMITS.items():
            raw = env.get("REPROKG_" + name.upper())
            if raw:
                values[name] = kind(raw)
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
            "REPROKG_NAMED_QUERY_CACHE_MB": str(self.named_query_cache_mb),
            "REPROKG_LOAD_ALLOWLIST": " ".join(self.load_allowlist),
            "REPROKG_SHACL_ENGINE": self.shacl_engine,
            "REPROKG_BLOB_DIR": self.blob_dir,
        }
        env.update({"REPROKG_" + name.upper(): str(getattr(self, name)) for name in _LIMITS})
        optional = {
            "REPROKG_WRITE_TOKEN": self.write_token,
            "REPROKG_USER": self.user,
            "REPROKG_UPDATE_URL": self.update_url,
            "REPROKG_SPARQL_USER": self.sparql_user,
            "REPROKG_SPARQL_PASSWORD": self.sparql_password,
        }
        env.update({k: v for k, v in optional.items() if v})
        return env

    def with_(self, **changes: object) -> Settings:
        return replace(self, **changes)  # type: ignore[arg-type]


#: the numeric limits read as ``REPROKG_<NAME>`` (``REPROKG_MAX_DEPTH`` ...), with their types
_LIMITS: dict[str, type] = {
    "max_depth": int,
    "max_nodes": int,
    "max_aliases": int,
    "max_anchors": int,
    "max_line_length": int,
    "max_fields": int,
    "parse_workers": int,
    "parse_timeout": float,
    "parse_memory_mb": int,
    "limit_concurrency": int,
    "timeout_keep_alive": float,
    "header_timeout": float,
    "max_header_bytes": int,
}

_current: Settings | None = None


def settings() -> Settings:
    """The process's settings: read from the environment on first use, then kept."""
    global _current
    if _current is None:
        _current = Settings.from_env()
    return _current


def configure(new: Settings | None) -> None:
    """Make ``new`` the process's settings (``reprokg serve`` with its options); ``None``
    reads the environment again on next use (tests that change it)."""
    global _current
    _current = new
