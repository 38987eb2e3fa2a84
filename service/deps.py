"""Typed FastAPI dependencies (full-stack-fastapi-template style): ``StoreDep``, ``SettingsDep``.

The app keeps one store and one settings object on ``app.state``; routes receive them
through these annotations so a test app can swap either without patching modules.
"""

from __future__ import annotations

import logging
import math
import re
import secrets
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.exceptions import HTTPException as StarletteHTTPException

from reprokg.core.errors import (
    Forbidden,
    LoadError,
    NotFound,
    ReprokgError,
    Unauthorized,
    UsageError,
)
from reprokg.core.settings import Settings
from reprokg.store.base import Store

log = logging.getLogger("reprokg.service")

# The getters are ``async`` although they never await: FastAPI runs a sync dependency in
# its thread pool, two thread hops per named-query request for an attribute read.


async def get_settings(request: Request) -> Settings:
    return request.app.state.settings


async def get_store(request: Request) -> Store:
    return request.app.state.store


async def get_read_store(request: Request) -> Store:
    """The store to read from: an in-memory mirror when one was made, else the store."""
    return getattr(request.app.state, "read_store", None) or request.app.state.store


SettingsDep = Annotated[Settings, Depends(get_settings)]
StoreDep = Annotated[Store, Depends(get_store)]
#: read-only routes (named queries, linked data) use this: it may be the memory mirror
ReadStoreDep = Annotated[Store, Depends(get_read_store)]


def check_write_token(settings: Settings | Any, authorization: str | None) -> None:
    """Refuse a write: 401 without a bearer token, 403 with a wrong one or when writing is off.

    ``settings`` is anything with ``write_token`` and ``read_only`` (the service's
    :class:`Settings`, or the SPARQL router's limits when it is mounted elsewhere). With no
    token configured writing over HTTP is off (403) rather than open, so a service started
    without thinking about it cannot be written to by anyone.
    """
    if settings.read_only:
        raise Forbidden(
            "this service opened its store read-only (several workers); "
            "write with `reprokg load` or run one worker"
        )
    if not settings.write_token:
        raise Forbidden(
            "writing over HTTP is off: no write token configured "
            "(set REPROKG_WRITE_TOKEN or REPROKG_WRITE_TOKEN_FILE)"
        )
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized(
            "writes need an Authorization: Bearer <token> header",
            headers={"WWW-Authenticate": 'Bearer realm="reprokg"'},
        )
    if not secrets.compare_digest(token.strip().encode(), settings.write_token.encode()):
        raise Forbidden("wrong write token")


def how_to_write(settings: Settings) -> str:
    """One sentence on whether HTTP writes are on and how to turn them on: the console
    banner of ``reprokg serve`` and the web pages of a demo say it (a newcomer met 403s)."""
    if settings.read_only:
        return (
            "HTTP writes are off: the store is open read-only (several workers or "
            "--read-only); write with `reprokg load` while the service is stopped"
        )
    if not settings.write_token:
        return (
            "HTTP writes are off: no write token is set. To upload, start the service with "
            "REPROKG_WRITE_TOKEN=<a secret> (or REPROKG_WRITE_TOKEN_FILE=<a file holding it>) "
            "and send 'Authorization: Bearer <the secret>' (in /docs: Authorize)"
        )
    return (
        "HTTP writes are on: send 'Authorization: Bearer <the REPROKG_WRITE_TOKEN value>' "
        "(in /docs: Authorize)"
    )


#: the OpenAPI security scheme of writes: declared so that /docs offers "Authorize" (the
#: check itself is :func:`check_write_token`, with our messages; the scheme only documents)
WRITE_SCHEME = "bearer"
_bearer = HTTPBearer(
    auto_error=False,
    scheme_name=WRITE_SCHEME,
    description="the service's write token (REPROKG_WRITE_TOKEN or REPROKG_WRITE_TOKEN_FILE); "
    "with none set, writing over HTTP is off",
)
#: ``openapi_extra`` of a route that writes only when asked (``save=true``): token optional
OPTIONAL_WRITE_SECURITY: dict[str, Any] = {"security": [{}, {WRITE_SCHEME: []}]}


async def require_write_token(
    request: Request,
    settings: SettingsDep,
    _scheme: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    """Dependency guarding every write route (no blocking call: runs on the loop)."""
    check_write_token(settings, request.headers.get("authorization"))


WriteAccess = Annotated[None, Depends(require_write_token)]


def error_response(exc: ReprokgError, request_id: str | None = None) -> JSONResponse:
    """The one mapping of our errors to HTTP: the error's status, its message as JSON (with
    the request id of a server error, which the log names too)."""
    detail = exc.to_dict()
    if request_id and exc.http_status >= 500:
        detail["request_id"] = request_id
    return JSONResponse(
        {"detail": detail}, status_code=exc.http_status, headers=exc.headers or None
    )


async def _reprokg_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ReprokgError)
    rid = getattr(request.state, "request_id", None)
    if exc.http_status >= 500:
        log.error("request %s: %s: %s", rid, type(exc).__name__, exc)
    # a browser gets the error as a page when the app has one (the web views install it)
    return _page_for(request, exc) or error_response(exc, rid)


def add_error_handler(app: FastAPI) -> None:
    """Answer every :class:`ReprokgError` a route raises with its status and message (the
    service's app has it; an app that mounts one of our routers on its own adds it too),
    and, for a browser, FastAPI's own errors (no such path, a malformed parameter) as the
    same page; API clients keep FastAPI's JSON for those."""
    app.add_exception_handler(ReprokgError, _reprokg_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)


def _page_for(request: Request, exc: ReprokgError) -> Response | None:
    """The web interface's page for ``exc`` when the app has one and a browser asks."""
    page = getattr(request.app.state, "error_page", None)
    return page(request, exc) if page else None


def allowed_methods(request: Request) -> list[str]:
    """The methods the API documents at the request's path (its OpenAPI schema, whatever
    route serves each): Starlette's 405 names only the methods of the first route that
    matched, and ours have a route per method (``Allow: POST`` on ``/documents``, which
    also answers GET). Empty for a path the schema does not document."""
    state = request.app.state
    table = getattr(state, "allow_table", None)
    if table is None:
        table = []
        for template, ops in request.app.openapi().get("paths", {}).items():
            pattern = re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template))
            methods = sorted(m.upper() for m in ops if m.upper() in _HTTP_METHODS)
            table.append((re.compile(pattern + "$"), methods))
        state.allow_table = table
    path = request.url.path
    return sorted({m for pattern, methods in table if pattern.match(path) for m in methods})


_HTTP_METHODS = {"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"}


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 405 and (documented := allowed_methods(request)):
        exc.headers = {**(exc.headers or {}), "Allow": ", ".join(documented)}
    if exc.status_code == 404:
        ours: ReprokgError = NotFound(f"there is no page or resource at {request.url.path}")
    else:
        ours = ReprokgError(str(exc.detail))
        ours.http_status = exc.status_code
    ours.headers = dict(exc.headers or {})
    return _page_for(request, ours) or await http_exception_handler(request, exc)


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    ours = UsageError("; ".join(_sentence(e) for e in exc.errors()) or "malformed request")
    ours.http_status = 422
    # FastAPI's own answer, but its echoed inputs always encodable: a NaN given where a
    # string was expected made FastAPI's handler fail to encode its own answer (a 500)
    return _page_for(request, ours) or JSONResponse(
        {"detail": _encodable(jsonable_encoder(exc.errors()))}, status_code=422
    )


def _encodable(value: Any) -> Any:
    """``value`` with every non-finite float as its text (``NaN``, ``Infinity``): JSON has
    no such numbers, and the response encoder refuses them."""
    if isinstance(value, float) and not math.isfinite(value):
        return json_constant(value)
    if isinstance(value, dict):
        return {k: _encodable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_encodable(v) for v in value]
    return value


def json_constant(number: float) -> str:
    """How Python's ``json`` writes (and reads) a non-finite float: ``NaN``, ``Infinity``,
    ``-Infinity``."""
    if math.isnan(number):
        return "NaN"
    return "Infinity" if number > 0 else "-Infinity"


def non_finite(value: Any) -> tuple[str, float] | None:
    """The first NaN or infinity in a parsed JSON value and where it is (``a.b[2]``), else
    ``None``. Iterative: a body may nest as deep as the JSON decoder allowed."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return where or "(the body)", item
        if isinstance(item, dict):
            stack.extend((f"{where}.{k}" if where else str(k), v) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((f"{where}[{i}]", v) for i, v in enumerate(item))
    return None


def refuse_non_finite(value: Any, source: str = "request body") -> None:
    """A 400 naming the field when a JSON value holds ``NaN`` or ``±Infinity``: Python's
    decoder reads them, JSON (RFC 8259) has no such numbers, and no field of ours takes
    one (a statistic's level, a scale's minimum, an identifier)."""
    found = non_finite(value)
    if found is not None:
        where, number = found
        raise LoadError(
            f"{where}: {json_constant(number)} is not JSON (JSON numbers are finite); "
            "expected a finite number, or the field's own type",
            source=source,
            field=where,
        )


async def finite_json_body(request: Request) -> None:
    """App-wide dependency: the JSON body FastAPI parsed for a route's body model holds no
    ``NaN``/``Infinity`` (:func:`refuse_non_finite`), checked before the model validates
    it. Reads the body FastAPI already decoded (``Request.json`` caches it); a route that
    reads its own body (an upload, ``POST /comparisons``) is left to that route."""
    if getattr(request.scope.get("route"), "body_field", None) is None:
        return
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if not (
        ctype == "application/json"
        or (ctype.startswith("application/") and ctype.endswith("+json"))
    ):
        return
    if await request.body():
        refuse_non_finite(await request.json())


def _sentence(error: Any) -> str:
    """A pydantic error as a sentence naming the parameter and the value given."""
    where = [str(p) for p in error.get("loc", ()) if p not in ("query", "path", "body")]
    given = f" (given: {error['input']!r})" if isinstance(error.get("input"), str) else ""
    return f"{'.'.join(where) or 'request'}: {error.get('msg', 'invalid')}{given}"


# --- what the OpenAPI schema says about errors (schemathesis holds us to it) -------------

#: the body of every error answer: ``{"detail": {"error", "message", ...}}`` (FastAPI's own
#: request validation errors: ``{"detail": [...]}``)
ERROR_BODY: dict[str, Any] = {
    "type": "object",
    "properties": {"detail": {}},
    "required": ["detail"],
}
_WHY = {
    400: "unreadable or refused input: the LoadError fields (source, line, column, field), "
    "or the input limit passed (limit, limit_value)",
    401: "no bearer token (writes need one)",
    403: "wrong token, writing over HTTP is off, or the store is read-only",
    404: "no such document, query, chart, comparison or IRI",
    406: "no offered media type is acceptable",
    413: "body, file or parsing cost over a limit",
    415: "unsupported content type, or no loader recognises the input",
    429: "this client has as many uploads (requests with a body) in progress as it may; "
    "send the next when one is answered (Retry-After)",
    422: "SHACL violations (the reports; nothing stored), or a malformed parameter",
    503: "busy or over the time limit; try again (Retry-After)",
    507: "the store's disk is full: nothing was written; reads go on, and writes resume "
    "by themselves once space is freed",
}


#: a 422 of a route that validates uploads: the SHACL reports (nothing stored), or
#: FastAPI's ``{"detail": [...]}`` for a malformed parameter
REPORTS_OR_ERROR: dict[str, Any] = {
    "anyOf": [
        ERROR_BODY,
        {
            "type": "object",
            "properties": {"conforms": {"type": "boolean"}, "reports": {"type": "array"}},
            "required": ["reports"],
        },
    ]
}


def error_responses(*codes: int, media: str = "application/json") -> dict[int | str, Any]:
    """OpenAPI ``responses`` entries for the error statuses a route answers."""
    schema = ERROR_BODY if media == "application/json" else {"type": "string"}

    def of(code: int) -> dict[str, Any]:
        body = REPORTS_OR_ERROR if code == 422 and media == "application/json" else schema
        return {"description": _WHY[code], "content": {media: {"schema": body}}}

    return {c: of(c) for c in codes}
