"""The SPARQL 1.1 Protocol endpoint at ``/sparql`` as a self-contained, mountable APIRouter.

``sparql_router(get_store=..., settings=...)`` takes its dependencies explicitly (like
rdflib-endpoint), so any FastAPI app can ``include_router`` it:

* query by GET, POST form (``application/x-www-form-urlencoded``) and POST direct
  (``application/sparql-query``); ``default-graph-uri``/``named-graph-uri`` (repeatable)
  define the dataset and override the query's FROM/FROM NAMED. Without them the
  **default graph is the union of all documents** and every document is a named graph.
* update by POST only (form ``update=`` or ``application/sparql-update``), with
  ``using-graph-uri``/``using-named-graph-uri``; it needs ``Authorization: Bearer <token>``
  (401 without, 403 wrong or when no token is configured: writing over HTTP is then off).
* content negotiation with q-values: SELECT → SPARQL JSON (default), XML, CSV, TSV;
  ASK → JSON (default), XML; CONSTRUCT/DESCRIBE → Turtle (default), N-Triples, RDF/XML,
  JSON-LD. ``format=json|xml|csv|tsv|turtle|nt|rdfxml|jsonld`` overrides Accept when it
  fits the query form (``json`` on CONSTRUCT means JSON-LD; a misfit defers to Accept).
  406 when nothing acceptable is offered.
* ``GET /sparql`` without a query returns the SPARQL Service Description (Turtle or
  RDF/XML by Accept).
* limits: a time limit per query that really stops it (worker processes, see
  :mod:`reprokg.sparql.runner`) → 503; at most ``row_cap`` rows/triples and
  ``answer_bytes`` bytes of values, beyond that the result is **truncated** and the
  response carries ``X-Reprokg-Truncated: true`` and ``X-Reprokg-Row-Cap: N`` (and
  ``X-Reprokg-Byte-Cap: N`` when the bytes cut it); bodies over ``max_body_bytes`` → 413;
  nesting past ``max_depth`` and chains past ``max_chain`` → a located 400 before any
  parser; ``SERVICE`` and ``LOAD`` of IRIs outside ``load_allowlist`` → 400, found by
  the guard in the query worker (:mod:`reprokg.sparql.guard`).
* errors are ``text/plain``: 400 malformed request or syntax error, 405 other methods,
  415 a POST body of another media type (or a charset other than UTF-8).

Blocking work (store calls, waiting for a query worker) runs in threads, never on the event
loop: at most :data:`SPARQL_THREADS` per query worker at once, so that queries waiting
for a worker queue on the loop instead of holding every thread of the shared pool (45
parallel queries stalled every other route).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

import anyio
from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse, Response
from starlette.concurrency import run_in_threadpool

from reprokg.core.errors import Busy, NotAcceptable, ReprokgError
from reprokg.core.settings import Settings, view
from reprokg.service.deps import OPTIONAL_WRITE_SECURITY, check_write_token, error_responses
from reprokg.service.service_description import service_description
from reprokg.sparql import result_formats as fmt
from reprokg.sparql.guard import add_using, prescan, select_star_order
from reprokg.sparql.runner import (
    QueryJob,
    QueryRunner,
    runner_for,
)
from reprokg.store.base import SelectResult, Store

FORM = "application/x-www-form-urlencoded"
QUERY_TYPE = "application/sparql-query"
UPDATE_TYPE = "application/sparql-update"
SD_TYPES = (fmt.TURTLE, fmt.RDFXML, fmt.NTRIPLES, fmt.JSONLD)


class ProtocolError(ReprokgError):
    """A request the SPARQL 1.1 Protocol calls malformed; carries its own HTTP status."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message, headers=headers)
        self.http_status = status


@dataclass(frozen=True)
class Operation:
    kind: str  # "query" | "update"
    text: str
    graphs: tuple[str, ...]  # default-graph-uri or using-graph-uri
    named: tuple[str, ...]  # named-graph-uri or using-named-graph-uri
    format: str | None


@dataclass(frozen=True)
class SparqlLimits:
    """What the router needs from the service settings: a view of :class:`Settings`
    (defaults there, declared once)."""

    query_timeout: float = Settings.query_timeout
    row_cap: int = Settings.row_cap
    answer_bytes: int = Settings.answer_bytes
    query_memory_mb: int = Settings.query_memory_mb
    max_body_bytes: int = Settings.max_body_bytes
    write_token: str | None = Settings.write_token
    load_allowlist: tuple[str, ...] = Settings.load_allowlist
    read_only: bool = Settings.read_only
    max_depth: int = Settings.max_depth
    max_chain: int = Settings.max_chain

    @classmethod
    def of(cls, settings: Settings | SparqlLimits | None) -> SparqlLimits:
        if settings is None:
            return cls()
        if isinstance(settings, SparqlLimits):
            return settings
        return view(cls, settings)


class _RunnerHolder:
    """Creates the query runner on first use (the store may be opened after the router)."""

    def __init__(self, get_store: Callable[[], Store], limits: SparqlLimits, workers: int | None):
        self.get_store = get_store
        self.limits = limits
        self.workers = workers
        self._runner: QueryRunner | None = None
        self._lock = threading.Lock()

    def get(self) -> QueryRunner:
        if self._runner is None:
            with self._lock:
                if self._runner is None:
                    self._runner = runner_for(
                        self.get_store(),
                        timeout=self.limits.query_timeout,
                        row_cap=self.limits.row_cap,
                        workers=self.workers,
                        answer_bytes=self.limits.answer_bytes,
                        memory_mb=self.limits.query_memory_mb,
                    )
        return self._runner

    def warm(self) -> None:
        """Create the runner now; errors surface on the first query instead."""
        with contextlib.suppress(Exception):
            self.get()

    def set(self, runner: QueryRunner) -> None:
        self._runner = runner

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()
            self._runner = None


#: SPARQL requests in threads at once, per query worker (the rest wait on the event loop)
SPARQL_THREADS = 2


class _Threads:
    """The SPARQL requests' own capacity limiter, made on the event loop at first use."""

    def __init__(self, holder: _RunnerHolder) -> None:
        self.holder = holder
        self._limiter: anyio.CapacityLimiter | None = None
        self._loop: object = None

    def get(self) -> anyio.CapacityLimiter:
        import asyncio

        loop = asyncio.get_running_loop()  # a test client may run the app on another loop
        if self._limiter is None or loop is not self._loop:
            workers = getattr(self.holder._runner, "size", None) or 4
            self._limiter = anyio.CapacityLimiter(SPARQL_THREADS * workers)
            self._loop = loop
        return self._limiter


def _text(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    return PlainTextResponse(message + "\n", status_code=status, headers=headers)


def _media(content_type: str | None) -> tuple[str, dict[str, str]]:
    if not content_type:
        return "", {}
    parts = [p.strip() for p in content_type.split(";")]
    params = {}
    for p in parts[1:]:
        k, _, v = p.partition("=")
        params[k.strip().lower()] = v.strip().strip('"').lower()
    return parts[0].lower(), params


def _decode_utf8(data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(
            400, f"{what} is not valid UTF-8 ({exc.reason} at byte {exc.start})"
        ) from None


def _check_iri(iri: str, param: str) -> str:
    from reprokg.validation.checks import iri_refusal

    parts = urlsplit(iri)
    if not parts.scheme or any(c in iri for c in ' <>"{}|^`\\\n\r\t') or iri_refusal(iri):
        raise ProtocolError(400, f"{param} must be an absolute IRI, got {iri!r}")
    return iri


async def _read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise ProtocolError(413, f"request body is larger than the limit of {limit} bytes")
    chunks = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ProtocolError(413, f"request body is larger than the limit of {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def parse_operation(request: Request, limits: SparqlLimits) -> Operation | None:
    """The operation a protocol request asks for; ``None`` means "describe the service"."""
    url_params = request.query_params.multi_items()
    params: list[tuple[str, str]] = list(url_params)
    direct: tuple[str, str] | None = None
    if request.method == "POST":
        media, mparams = _media(request.headers.get("content-type"))
        body = await _read_body(request, limits.max_body_bytes)
        if media == FORM:
            raw = _decode_utf8(body, "form body")
            try:
                params += parse_qsl(raw, keep_blank_values=True, encoding="utf-8", errors="strict")
            except UnicodeDecodeError as exc:
                raise ProtocolError(
                    400, f"form field is not UTF-8 after decoding: {exc.reason}"
                ) from None
        elif media in (QUERY_TYPE, UPDATE_TYPE):
            charset = mparams.get("charset", "utf-8")
            if charset not in ("utf-8", "utf8"):
                raise ProtocolError(415, f"{media} bodies must be UTF-8 (got charset={charset})")
            direct = ("query" if media == QUERY_TYPE else "update", _decode_utf8(body, media))
        elif not media:
            raise ProtocolError(
                415,
                "POST needs a Content-Type: application/x-www-form-urlencoded, "
                "application/sparql-query or application/sparql-update",
            )
        else:
            raise ProtocolError(
                415,
                f"unsupported Content-Type {media}; use application/x-www-form-urlencoded, "
                "application/sparql-query or application/sparql-update",
            )
    queries = [v for k, v in params if k == "query"]
    updates = [v for k, v in params if k == "update"]
    if direct is not None:
        if queries or updates:
            raise ProtocolError(
                400, "a direct POST carries the operation in its body; drop query=/update="
            )
        (queries if direct[0] == "query" else updates).append(direct[1])
    if request.method == "GET" and updates:
        raise ProtocolError(400, "updates must be sent with POST, not GET")
    if queries and updates:
        raise ProtocolError(400, "a request carries either query or update, not both")
    if len(queries) > 1 or len(updates) > 1:
        raise ProtocolError(400, "exactly one query or update string per request")
    fmt_param = [v for k, v in params if k == "format"]
    out_format = fmt_param[-1] if fmt_param else None

    def many(name: str) -> tuple[str, ...]:
        return tuple(_check_iri(v, name) for k, v in params if k == name)

    if queries:
        if any(k in ("using-graph-uri", "using-named-graph-uri") for k, _ in params):
            raise ProtocolError(400, "using-graph-uri/using-named-graph-uri belong to updates")
        return Operation(
            "query", queries[0], many("default-graph-uri"), many("named-graph-uri"), out_format
        )
    if updates:
        if any(k in ("default-graph-uri", "named-graph-uri") for k, _ in params):
            raise ProtocolError(
                400, "default-graph-uri/named-graph-uri belong to queries; use using-graph-uri"
            )
        return Operation(
            "update",
            updates[0],
            many("using-graph-uri"),
            many("using-named-graph-uri"),
            out_format,
        )
    if request.method == "POST":
        raise ProtocolError(400, "no query or update in the request")
    return None


def _pick(accept: str | None, format_param: str | None, offered: tuple[str, ...]) -> str:
    if format_param:
        media = fmt.FORMAT_NAMES.get(format_param.lower(), format_param.lower())
        if offered == fmt.GRAPH_TYPES and media in (fmt.JSON, "application/json"):
            media = fmt.JSONLD
        if media in offered:
            return media
        # Clients send format= for every query form (SPARQLWrapper adds format=json to
        # a CONSTRUCT); one that does not fit this form defers to Accept.
    if accept and offered == fmt.GRAPH_TYPES:
        # A client asking a CONSTRUCT for "JSON" (SPARQLWrapper's JSON, generic clients)
        # gets JSON-LD, the JSON form of a graph.
        for alias in ("application/sparql-results+json", "application/json"):
            accept = accept.replace(alias, fmt.JSONLD)
    return fmt.negotiate(accept, offered)  # NotAcceptable: 406


def _acceptable(accept: str | None, offered: tuple[str, ...]) -> bool:
    try:
        fmt.negotiate(accept, offered)
    except NotAcceptable:
        return False
    return True


def _star_columns(res: SelectResult, text: str) -> SelectResult:
    """``SELECT *`` columns in order of appearance in the query (engines differ)."""
    order = select_star_order(text)
    if not order:
        return res
    have = set(res.variables)
    names = [v for v in order if v in have]
    names += [v for v in res.variables if v not in set(names)]
    if names == res.variables:
        return res
    idx = [res.variables.index(v) for v in names]
    return SelectResult(names, [tuple(row[i] for i in idx) for row in res.rows])


_RESULT_MEDIA = sorted(
    {*fmt.SELECT_TYPES, *fmt.ASK_TYPES, *fmt.GRAPH_TYPES, *SD_TYPES, "text/plain"}
)
_OK = {
    "description": "results, or the service description",
    "content": dict.fromkeys(_RESULT_MEDIA, {}),
}
_ERRORS = error_responses(400, 401, 403, 406, 413, 415, 429, 503, 507, media="text/plain")
_OPENAPI_RESPONSES: dict[str, dict] = {
    "GET": {200: _OK, **_ERRORS},
    "POST": {200: _OK, 204: {"description": "the update was applied"}, **_ERRORS},
}
#: an operation's text (never empty: an empty query is a 400)
_TEXT = {"type": "string", "minLength": 1}
#: an absolute IRI as :func:`_check_iri` takes it
_IRI = {"type": "string", "pattern": '^[A-Za-z][A-Za-z0-9+.-]*:[^\\s<>"{}|^`\\\\]*$'}
_PROTOCOL_PARAMS = [
    {"name": "query", "in": "query", "required": False, "schema": _TEXT},
    *(
        {"name": name, "in": "query", "required": False, "schema": {"type": "array", "items": _IRI}}
        for name in ("default-graph-uri", "named-graph-uri")
    ),
    {"name": "format", "in": "query", "required": False, "schema": {"type": "string"}},
]
#: a form carries a query (with its dataset) or an update (with its own), never both
_FORM_SCHEMA = {
    "oneOf": [
        {
            "type": "object",
            "properties": {
                "query": _TEXT,
                "default-graph-uri": _IRI,
                "named-graph-uri": _IRI,
            },
            "required": ["query"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {
                "update": {"type": "string"},  # an empty update is a valid one (a no-op)
                "using-graph-uri": _IRI,
                "using-named-graph-uri": _IRI,
            },
            "required": ["update"],
            "additionalProperties": False,
        },
    ]
}
_OPENAPI_EXTRA: dict[str, dict] = {
    "GET": {"parameters": _PROTOCOL_PARAMS},
    "POST": {
        **OPTIONAL_WRITE_SECURITY,  # an update needs the write token; a query does not
        "requestBody": {
            "required": True,
            "content": {
                FORM: {"schema": _FORM_SCHEMA},
                QUERY_TYPE: {"schema": _TEXT},
                UPDATE_TYPE: {"schema": _TEXT},
            },
        },
    },
}


def sparql_router(
    *,
    get_store: Callable[[], Store],
    settings: Settings | SparqlLimits | None = None,
    check_write: Callable[[str | None], None] | None = None,
    runner: QueryRunner | None = None,
    workers: int | None = None,
    path: str = "/sparql",
    warm: bool = True,
) -> APIRouter:
    """An APIRouter serving the SPARQL 1.1 Protocol at ``path``.

    ``get_store`` returns the store (called per request; updates go to it directly).
    ``settings`` is the service's :class:`Settings` or just the :class:`SparqlLimits`
    (defaults when ``None``). ``check_write(authorization_header)`` raises a ReprokgError
    to refuse a write (default: bearer token against ``settings.write_token``).
    ``runner`` overrides how queries run (default: worker processes for an on-disk
    pyoxigraph store, inline otherwise; started in a background thread unless
    ``warm=False``, else on first query). The router's
    ``sparql_runner`` attribute holds the runner; call ``router.sparql_runner.close()``
    at shutdown (worker processes are daemons and die with the server anyway).
    """
    limits = SparqlLimits.of(settings)
    check = check_write or (lambda authorization: check_write_token(limits, authorization))
    holder = _RunnerHolder(get_store, limits, workers)
    if runner is not None:
        holder.set(runner)
    router = APIRouter(tags=["SPARQL"])
    # an attribute of our own on the router
    router.sparql_runner = holder  # type: ignore[attr-defined]
    threads = _Threads(holder)
    if runner is None and warm:
        # Start the worker processes now, off the caller's thread, so the first query
        # does not wait for them (a cold start takes seconds on a busy machine).
        threading.Thread(target=holder.warm, name="reprokg-sparql-warm", daemon=True).start()

    def run_query(op: Operation, endpoint: str, accept: str | None) -> Response:
        if not op.format:  # 406 before running when no result form could be sent
            offers = (fmt.SELECT_TYPES, fmt.ASK_TYPES, fmt.GRAPH_TYPES)
            if all(not _acceptable(accept, o) for o in offers):
                raise ProtocolError(406, f"no SPARQL result format is acceptable ({accept})")
        prescan(op.text, limits.max_depth, limits.max_chain)  # a located 400, no parser
        job = QueryJob(
            op.text,
            default_graph_uris=op.graphs,
            named_graph_uris=op.named,
            base_iri=endpoint,
            inspect=True,  # SERVICE/FROM: in the worker, under its limits
        )
        # QueryTimeout and Busy answer 503, QuerySyntaxError 400, other StoreErrors 500
        outcome = holder.get().run(job)
        result = outcome.result
        if isinstance(result, SelectResult):
            result = _star_columns(result, op.text)
        media = _pick(accept, op.format, fmt.offered_for(result))
        headers = {"Vary": "Accept", **outcome.headers()}
        return Response(
            fmt.serialize(result, media),
            media_type=fmt.content_type(media),
            headers=headers,
        )

    def run_update(op: Operation, endpoint: str, authorization: str | None) -> Response:
        check(authorization)
        prescan(op.text, limits.max_depth, limits.max_chain)
        info = holder.get().inspect_update(op.text, tuple(limits.load_allowlist))
        if (op.graphs or op.named) and info.has_dataset:
            raise ProtocolError(
                400,
                "the update names its dataset with USING/WITH and the request with "
                "using-graph-uri/using-named-graph-uri; the protocol allows only one",
            )
        text = add_using(op.text, op.graphs, op.named)
        get_store().update(f"BASE <{endpoint}>\n{text}")
        return Response(status_code=204)

    def describe(endpoint: str, accept: str | None, format_param: str | None) -> Response:
        media = _pick(accept, format_param, SD_TYPES)
        g = service_description(
            endpoint,
            update_enabled=bool(limits.write_token) and not limits.read_only,
            timeout=limits.query_timeout,
            row_cap=limits.row_cap,
        )
        body = g.serialize(
            format={fmt.TURTLE: "turtle", fmt.RDFXML: "xml", fmt.NTRIPLES: "nt"}.get(
                media, "json-ld"
            ),
            encoding="utf-8",
        )
        return Response(body, media_type=fmt.content_type(media), headers={"Vary": "Accept"})

    async def endpoint(request: Request) -> Response:
        url = str(request.url.replace(query="", fragment=""))
        accept = request.headers.get("accept")
        try:
            op = await parse_operation(request, limits)
            if op is None:
                fp = request.query_params.get("format")
                return await run_in_threadpool(describe, url, accept, fp)
            limiter = threads.get()
            try:
                with anyio.fail_after(limits.query_timeout):
                    await limiter.acquire()  # queue on the loop, not in a pool thread
            except TimeoutError:
                raise Busy(
                    f"{limiter.total_tokens:g} SPARQL requests stayed in progress for "
                    f"{limits.query_timeout:g} s; try again",
                    headers={"Retry-After": "1"},
                ) from None
            try:
                if op.kind == "query":
                    return await run_in_threadpool(run_query, op, url, accept)
                return await run_in_threadpool(
                    run_update, op, url, request.headers.get("authorization")
                )
            finally:
                limiter.release()
        except ReprokgError as exc:  # the Protocol answers errors as plain text
            return _text(exc.http_status, str(exc), exc.headers)

    doc = (__doc__ or "").split("\n\n")[1] if __doc__ else None
    # one route per method: a single GET+POST route gives both operations one OpenAPI id
    for method in ("GET", "POST"):
        router.add_api_route(
            path,
            endpoint,
            methods=[method],
            name=f"sparql_{method.lower()}",
            operation_id=f"sparql_{method.lower()}",
            summary="SPARQL 1.1 Protocol endpoint (query, update, service description)",
            description=doc,
            response_class=Response,
            responses=_OPENAPI_RESPONSES[method],
            openapi_extra=_OPENAPI_EXTRA[method],
        )
    router.add_api_route(
        path + "/",
        endpoint,
        methods=["GET", "POST"],
        response_class=Response,
        include_in_schema=False,
    )
    return router


__all__ = ["Operation", "ProtocolError", "SparqlLimits", "parse_operation", "sparql_router"]
