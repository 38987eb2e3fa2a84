"""The one settings object: everything configurable, read from ``REPROKG_*`` (and the
reproducible-builds ``SOURCE_DATE_EPOCH``) once.

The service, the CLI, the store, ingest and validation all read :func:`settings` (no other
module reads the environment), so the app, the commands and uvicorn worker processes
(which only see the environment, :meth:`Settings.to_env`) agree on one configuration.

Each setting is declared once, as a field of :class:`Settings` made by :func:`setting`:
its default, its environment variable (``REPROKG_<FIELD>``) and the parser that reads
the variable. Reading, writing back (:meth:`Settings.to_env`) and the documentation's
table (docs/configuration.md, kept in step by tests/core/test_settings.py) all follow
those fields; objects that carry a few limits (:class:`~reprokg.loaders.reading.limits.InputLimits`,
the SPARQL router's limits) take their defaults from here and are built with
:func:`view`. A value the parser refuses is a :class:`~reprokg.core.errors.UsageError`
naming the variable, the value and what was expected.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import Field, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, TypeVar

from reprokg.core.errors import UsageError

#: the instance-data base when ``REPROKG_BASE`` is not set
DEFAULT_BASE = "https://w3id.org/reprokg/id/"

#: the store used when none is named (``--store`` / ``REPROKG_STORE``)
DEFAULT_STORE = "./reprokg-data"

#: the SHACL engines ``REPROKG_SHACL_ENGINE`` may name
SHACL_ENGINES = ("fast", "pyshacl", "compare")

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


# ------------------------------------------------------------------------------ parsers
# Each turns the variable's text into the field's value or raises ValueError saying what
# was expected; an empty or unset variable never reaches a parser (the default holds).


def _text(raw: str) -> str:
    return raw


def _flag(raw: str) -> bool:
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError("expected one of " + ", ".join(_TRUE + _FALSE))


def _count(raw: str) -> int:
    """A whole number ≥ 0 (``10000`` or ``10_000``)."""
    try:
        value = int(raw.strip())
    except ValueError:
        raise ValueError("expected a whole number (0 or more)") from None
    if value < 0:
        raise ValueError("expected a whole number (0 or more)")
    return value


def _seconds(raw: str) -> float:
    """A number of seconds > 0."""
    try:
        value = float(raw.strip())
    except ValueError:
        raise ValueError("expected a number of seconds greater than 0") from None
    if not value > 0 or value == float("inf"):
        raise ValueError("expected a number of seconds greater than 0")
    return value


def _words(raw: str) -> tuple[str, ...]:
    """Whitespace-separated items."""
    return tuple(raw.split())


def _base(raw: str) -> str:
    """An IRI prefix; a missing trailing ``/`` is added."""
    raw = raw.strip()
    return raw if raw.endswith("/") else raw + "/"


def _one_of(*choices: str) -> Callable[[str], str]:
    def parse(raw: str) -> str:
        value = raw.strip()
        if value not in choices:
            raise ValueError("expected one of " + ", ".join(choices))
        return value

    parse.__doc__ = "one of " + ", ".join(choices)
    return parse


def _shown(value: object) -> str | None:
    """The variable's text for ``value`` (``None``: leave the variable unset)."""
    if value is None or value == "" or value == ():
        return None
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, tuple):
        return " ".join(value)
    return str(value)


def setting(
    default: Any,
    parse: Callable[[str], Any],
    *,
    secret: bool = False,
    file_variable: str | None = None,
    name: str | None = None,
) -> Any:
    """A :class:`Settings` field read from ``REPROKG_<NAME>`` with ``parse``.

    ``secret`` keeps the value out of ``repr``; ``file_variable`` names a second variable
    holding the path of a file to read the value from (keeps a secret out of the process
    list) when the first is unset; ``name`` is a variable another convention names
    (``SOURCE_DATE_EPOCH``, which every reproducible-build tool reads), instead of ours.
    """
    return field(
        default=default,
        repr=not secret,
        metadata={"parse": parse, "file_variable": file_variable, "name": name},
    )


def variable(f: Field[Any]) -> str:
    """The environment variable of a :class:`Settings` field."""
    return f.metadata.get("name") or "REPROKG_" + f.name.upper()


@dataclass(frozen=True)
class Settings:
    """Service configuration; :meth:`from_env` is the one place the environment is read.

    To add a setting: one field below, ``name: type = setting(default, parser)`` with a
    ``#:`` comment saying why it exists and what its default is for; add its row to
    docs/configuration.md (a test fails until it is there). Code that needs it reads
    ``settings().name``, or takes it through a view (:func:`view`); never a copy of the
    default.
    """

    #: embedded store directory or SPARQL endpoint URL
    store: str = setting(DEFAULT_STORE, _text)
    #: bearer token that unlocks writes; ``None`` turns writing over HTTP off
    write_token: str | None = setting(
        None, _text, secret=True, file_variable="REPROKG_WRITE_TOKEN_FILE"
    )
    #: base of the instance IRIs the service dereferences at ``/id/...``
    base: str = setting(DEFAULT_BASE, _base)
    #: seconds a query may run before it is stopped
    query_timeout: float = setting(10.0, _seconds)
    #: most result rows a query returns
    row_cap: int = setting(10_000, _count)
    #: most bytes of one SPARQL or named-query answer's values (the rest are cut, and the
    #: answer says so, as with ``row_cap``); uncut answers grew the server's memory
    #: several times over (benchmarks/README.md#figures-once-quoted-in-code)
    answer_bytes: int = setting(32 * 1024 * 1024, _count)
    #: address space of a query worker (MiB, ``RLIMIT_AS``); 0 = no limit
    query_memory_mb: int = setting(2_048, _count)
    #: MiB an embedded store's disk keeps free: writes are refused (507) below it, and
    #: after a write met a full disk they resume once more is free (store/disk.py)
    store_min_free_mb: int = setting(64, _count)
    #: largest request body accepted (bytes) for documents and queries
    max_body_bytes: int = setting(8 * 1024 * 1024, _count)
    #: largest source file a loader reads (bytes); the service's body limit is smaller
    max_source_bytes: int = setting(64 * 1024 * 1024, _count)
    #: most files in one multipart upload
    max_files: int = setting(100, _count)
    #: most Monte Carlo resamples one HTTP analysis may ask for (the randomization test and
    #: the bootstrap of a comparison; their time: benchmarks/README.md#figures-once-quoted-in-code)
    max_resamples: int = setting(100_000, _count)
    #: open the embedded store read-only (several uvicorn workers); writes answer 403
    read_only: bool = setting(False, _flag)
    #: with ``read_only``: copy the embedded store into memory at start and answer named
    #: queries and linked-data lookups from the copy (the data cannot change meanwhile)
    memory_mirror: bool = setting(False, _flag)
    #: the store was filled with the bundled examples (shown on / and /health)
    demo: bool = setting(False, _flag)
    #: folder where ``serve --demo`` keeps the demo store it builds once, keyed by a hash
    #: of the package's code and data, and copies at every start (empty: ``~/.cache/
    #: reprokg``; ``off``: build it at every start)
    demo_cache: str = setting("", _text)
    #: JSON-lines access log on the ``reprokg.access`` logger
    access_log: bool = setting(True, _flag)
    #: run named queries in the request thread (bounded, vetted queries) instead of the
    #: SPARQL endpoint's kill-able worker processes (which cost a process hop per query)
    named_queries_inline: bool = setting(True, _flag)
    #: megabytes of named-query results kept per process, keyed by the store's version
    #: (any write invalidates); 0 turns the cache off (sparql/cache.py)
    named_query_cache_mb: int = setting(64, _count)
    #: IRIs that SPARQL ``LOAD`` may fetch (empty: LOAD refused)
    load_allowlist: tuple[str, ...] = setting((), _words)
    #: SHACL engine: ``fast`` (shapes compiled to SPARQL), ``pyshacl``, or ``compare``
    #: (both, failing on any disagreement: the equivalence gate)
    shacl_engine: str = setting("fast", _one_of(*SHACL_ENGINES))
    #: who loads documents (an ORCID iD or a name), recorded as ``prov:wasAttributedTo``
    user: str | None = setting(None, _text)
    #: seconds since 1970-01-01 UTC that ``reprokg field build`` stamps every document with
    #: (the reproducible-builds convention, reproducible-builds.org/specs/source-date-epoch):
    #: the clock would make two builds of the same sources differ; unset: the epoch itself
    source_date_epoch: int | None = setting(None, _count, name="SOURCE_DATE_EPOCH")
    #: blob folder of a remote store (an embedded store keeps its blobs in its directory)
    blob_dir: str = setting("./reprokg-blobs", _text)
    #: SPARQL Update endpoint of a remote store when it is not the query URL
    update_url: str | None = setting(None, _text)
    #: HTTP Digest credentials for a remote store's updates (Virtuoso's /sparql-auth)
    sparql_user: str | None = setting(None, _text)
    sparql_password: str = setting("", _text, secret=True)

    # --- limits on untrusted input, checked before any parser sees it (docs/security.md)
    #: nested collections in a YAML/JSON source (block or flow), and groups in a SPARQL
    #: query; PyYAML's C composer overflowed the stack at ~24,000 levels before 6.0.4
    max_depth: int = setting(64, _count)
    #: scalars + collections + aliases of one YAML/JSON source (an upper bound for YAML)
    max_nodes: int = setting(200_000, _count)
    #: YAML aliases (``*a``) per document: the alias-bomb vector; our formats need none
    max_aliases: int = setting(100, _count)
    #: YAML anchors (``&a``) per document
    max_anchors: int = setting(1_000, _count)
    #: characters per line of YAML, CSV and TREC files (JSON is exempt: one minified line)
    max_line_length: int = setting(65_536, _count)
    #: fields per CSV row or whitespace-separated TREC line
    max_fields: int = setting(1_000, _count)
    #: chained terms of one SPARQL text (operators, path steps, triple patterns, groups,
    #: MINUS/UNION/OPTIONAL/BIND/FILTER): the engine recurses once per term, and 3,000
    #: BIND or MINUS (10,000 ``+``) killed a query worker with SIGSEGV
    max_chain: int = setting(1_000, _count)
    #: members of one ZIP archive an importer reads (an MLflow store, an RO-Crate); their
    #: uncompressed bytes together stay under ``max_source_bytes``
    max_archive_members: int = setting(20_000, _count)

    # --- isolation of uploads (service): parsing and validation in worker processes
    #: worker processes parsing and validating uploads; 0 parses in the request thread
    parse_workers: int = setting(2, _count)
    #: seconds one upload may take to parse and validate (the worker is killed after); the
    #: largest real source (consolidatedData.json) must pass on a busy 2-CPU machine
    #: (benchmarks/README.md#figures-once-quoted-in-code)
    parse_timeout: float = setting(300.0, _seconds)
    #: address space of a parse worker (MiB, ``RLIMIT_AS``); 0 = no limit
    parse_memory_mb: int = setting(3_072, _count)
    # --- user SHACL (``POST /shacl``, ``reprokg shacl``): a workload of its own, apart from
    # uploads, so anonymous validation never holds the workers a token holder's upload needs
    #: worker processes validating user shapes (``POST /shacl``); 0 validates in the request
    #: thread (tests, embedding)
    shacl_workers: int = setting(1, _count)
    #: seconds one ``/shacl`` request (or ``reprokg shacl``) may parse and validate before
    #: its process is killed (413); a W3C SHACL test takes milliseconds
    shacl_timeout: float = setting(30.0, _seconds)
    #: address space of a SHACL worker (MiB, ``RLIMIT_AS``); 0 = no limit
    shacl_memory_mb: int = setting(1_536, _count)
    #: seconds a ``/shacl`` request waits for a free SHACL worker; then 503 + Retry-After
    shacl_wait: float = setting(5.0, _seconds)
    #: members of one ``sh:in`` list of user shapes (each is a term of the compiled query:
    #: 60,000 killed the engine with SIGSEGV)
    shacl_max_in: int = setting(1_000, _count)
    #: characters of one ``sh:select``/``sh:ask`` text of user shapes
    shacl_max_sparql_chars: int = setting(20_000, _count)
    #: triple patterns (``.``/``;``/``,``-separated) of one ``sh:select``/``sh:ask``: a join
    #: of 20 patterns with unbound predicates already costs data-size to the 20th
    shacl_max_sparql_patterns: int = setting(64, _count)
    #: estimated steps of the user shapes' ``*``/``+`` paths: per closure, E² (E: the data
    #: graph's triples with the closure's predicates), E³ under a pairwise constraint
    #: (``sh:maxCount``, ``sh:uniqueLang``, ...); its time at the default:
    #: benchmarks/README.md#figures-once-quoted-in-code
    shacl_max_path_cost: int = setting(1_000_000, _count)
    #: address space of an analysis worker (``/measures/...``, MiB, ``RLIMIT_AS``, also
    #: its R child); 0 = no limit
    analysis_memory_mb: int = setting(3_072, _count)
    #: seconds one analysis (``/measures/...``) may compute before its worker is killed
    analysis_timeout: float = setting(120.0, _seconds)

    # --- the HTTP server (uvicorn, ``reprokg serve``)
    #: most connections + requests in progress per server process; more answer 503
    limit_concurrency: int = setting(2_048, _count)
    #: seconds an idle keep-alive connection is kept open
    timeout_keep_alive: float = setting(5.0, _seconds)
    #: seconds a client has to send a request's head once it starts (or connects)
    header_timeout: float = setting(10.0, _seconds)
    #: bytes a request's head (request line + headers) may have
    max_header_bytes: int = setting(65_536, _count)
    #: seconds a request body has to arrive, extended by one second per ``body_min_rate``
    #: bytes received (Apache mod_reqtimeout's ``body=20,MinRate=500``); later: 408
    body_timeout: float = setting(20.0, _seconds)
    #: bytes per second that extend ``body_timeout`` (a minimum average rate)
    body_min_rate: int = setting(500, _count)
    #: open connections one client address may hold; more are refused with 429
    max_connections_per_client: int = setting(256, _count)
    #: requests with a body in progress at once (per server process); more answer 503:
    #: each may buffer up to ``max_body_bytes`` and wait for a parse worker
    max_uploads: int = setting(32, _count)
    #: requests with a body one client address may have in progress; more answer 429
    max_uploads_per_client: int = setting(4, _count)

    def __post_init__(self) -> None:
        # values given in code (CLI options, tests) pass the same choice as the variable
        if self.shacl_engine not in SHACL_ENGINES:
            raise UsageError(
                f"shacl_engine {self.shacl_engine!r}: expected one of " + ", ".join(SHACL_ENGINES)
            )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        """The settings the environment (``os.environ`` by default) holds, then
        ``overrides``; a variable its parser refuses is a :class:`UsageError`."""
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        for f in fields(cls):
            name = variable(f)
            raw = env.get(name) or None
            file_variable = f.metadata["file_variable"]
            if raw is None and file_variable and env.get(file_variable):
                name, raw = file_variable, _read_file(file_variable, env[file_variable])
            if raw is None or raw == "":
                continue
            try:
                values[f.name] = f.metadata["parse"](raw)
            except ValueError as exc:
                shown = "<hidden>" if not f.repr else repr(raw)
                raise UsageError(f"{name}={shown}: {exc}") from None
        values.update(overrides)
        return cls(**values)  # type: ignore[arg-type]  # values parsed per field's type above

    def to_env(self) -> dict[str, str]:
        """The environment that makes :meth:`from_env` return these settings (for workers)."""
        env = {}
        for f in fields(self):
            shown = _shown(getattr(self, f.name))
            if shown is not None:
                env[variable(f)] = shown
        return env

    def with_(self, **changes: object) -> Settings:
        return replace(self, **changes)  # type: ignore[arg-type]  # replace() checks the names


def _read_file(name: str, path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise UsageError(f"{name}={path!r}: cannot read the file ({exc.strerror})") from None


V = TypeVar("V")


def view(cls: type[V], s: Settings) -> V:
    """An instance of the dataclass ``cls`` holding the settings of the same names.

    A view declares only the names it needs (with ``= Settings.name`` defaults), so a
    limit is declared once, here, and a component that needs three of them does not see
    the write token.
    """
    # the same fields, Settings-typed
    return cls(**{f.name: getattr(s, f.name) for f in fields(cls)})  # type: ignore[arg-type]


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


#: the BLAS libraries' thread counts, read when numpy first loads
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def one_blas_thread() -> None:
    """Have numpy's BLAS use one thread unless the environment says otherwise (before
    numpy is imported; the process's environment is written here, with its reading)."""
    for var in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(var, "1")
