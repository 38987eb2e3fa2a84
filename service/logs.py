"""Structured access logs: one JSON line per request on the ``reprokg.access`` logger.

A pure ASGI middleware (not ``BaseHTTPMiddleware``) so streaming responses and the
thread-pool handlers are not slowed down or buffered.
"""

from __future__ import annotations

import json
import logging
import sys
import time
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
    if not any(getattr(h, "_reprokg", False) for h in logger.handlers):
        handler = logging.StreamHandler(stream or sys.stderr)
        handler.setFormatter(_JsonLineFormatter())
        handler._reprokg = True  # type: ignore[attr-defined]
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
            }
            self.logger.info("access", extra={"access": entry})
