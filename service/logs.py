"""Structured access logs: one JSON line per request on the ``reprokg.access`` logger.

A pure ASGI middleware (not ``BaseHTTPMiddleware``) so streaming responses and the
thread-pool handlers are not slowed down or buffered.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
import uuid
from typing import Any

ACCESS_LOGGER = "reprokg.access"


class _JsonLineFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = getattr(record, "access", None)
        if entry is None:
            entry = {"level": record.levelname.lower(), "message": record.getMessage()}
        entry = {"ts": round(record.created, 3), **entry}
        return json.dumps(entry, ensure_ascii=False, separators=(",", ":"))


def configure_access_log(enabled: bool = True, stream: Any = None) -> logging.Logger:
    """Send access lines to ``stream`` (stderr) as JSON; idempotent."""
    logger = logging.getLogger(ACCESS_LOGGER)
    logger.propagate = False
    logger.setLevel(logging.INFO if enabled else logging.CRITICAL + 1)
    if not any(isinstance(h.formatter, _JsonLineFormatter) for h in logger.handlers):
        handler = logging.StreamHandler(stream or sys.stderr)
        handler.setFormatter(_JsonLineFormatter())
        logger.addHandler(handler)
    return logger


class AccessLogMiddleware:
    """Log method, path, status, duration (ms), client and response bytes of each request."""

    def __init__(self, app: Any, logger: logging.Logger | None = None) -> None:
        self.app = app
        self.logger = logger or logging.getLogger(ACCESS_LOGGER)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not self.logger.isEnabledFor(logging.INFO):
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        info: dict[str, Any] = {"status": 500, "bytes": 0}

        async def send_wrapper(message: dict) -> None:
            if message["type"] == "http.response.start":
                info["status"] = message["status"]
            elif message["type"] == "http.response.body":
                info["bytes"] += len(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            client = scope.get("client")
            entry = {
                "method": scope.get("method"),
                "path": scope.get("path"),
                "query": scope.get("query_string", b"").decode("latin-1") or None,
                "status": info["status"],
                "duration_ms": round((time.perf_counter() - start) * 1000, 2),
                "bytes": info["bytes"],
                "client": f"{client[0]}:{client[1]}" if client else None,
                "request_id": request_id_of(scope),
            }
            self.logger.info("access", extra={"access": entry})


_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
log = logging.getLogger("reprokg.service")


def request_id_of(scope: dict) -> str | None:
    """The id :class:`RequestIdMiddleware` gave the request (``None`` outside it)."""
    state = scope.get("state")
    return state.get("request_id") if isinstance(state, dict) else None


class RequestIdMiddleware:
    """Give every request an id (the client's ``X-Request-ID`` when it is a plain token)
    and answer it in ``X-Request-ID``; turn any exception that escapes the app into a
    logged 500 with a JSON body naming that id, never a bare error page or a traceback.

    Outermost of our middlewares: the access log and the routes see the id
    (:func:`request_id_of`, ``request.state.request_id``).
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rid = None
        for name, value in scope.get("headers", ()):
            if name == b"x-request-id":
                text = value.decode("latin-1")
                rid = text if _REQUEST_ID.fullmatch(text) else None
        rid = rid or uuid.uuid4().hex[:16]
        scope.setdefault("state", {})["request_id"] = rid
        started = False

        async def send_with_id(message: dict) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = list(message.get("headers", []))
                headers.append((b"x-request-id", rid.encode()))
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception as exc:
            log.error(
                "request %s %s %s failed: %s",
                rid,
                scope.get("method"),
                scope.get("path"),
                f"{type(exc).__name__}: {exc}"[:500],
                exc_info=not isinstance(exc, RecursionError),  # no 1,000-frame traceback
            )
            if started:  # part of the answer is out: the server closes the connection
                raise
            body = json.dumps(
                {
                    "detail": {
                        "error": "InternalError",
                        "message": "the service failed on this request; it logged the "
                        "failure under this request id",
                        "request_id": rid,
                    }
                }
            ).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 500,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                        (b"x-request-id", rid.encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
