"""Limits on request bodies as ASGI middleware, inherited by every route (new ones too).

:class:`BodyLimitMiddleware`: 413 before a large body is read into memory. It checks
``Content-Length`` up front and counts streamed (chunked) bodies as they arrive, so
neither a lying header nor a missing one gets past the limit.

:class:`UploadSlots`: how many requests with a body may be in progress at once, per
client address (``max_uploads_per_client``, 429 past it) and in all (``max_uploads``,
503): each may buffer up to ``max_body_bytes`` and then hold a parse worker, so without
a bound one client's slow uploads take every slot. A
request over a bound is answered at once, before its body is read.
"""

from __future__ import annotations

import json
from typing import Any

from reprokg.core.errors import Busy, ReprokgError, TooLarge, TooManyRequests


class BodyTooLarge(Exception):
    """Raised into the app when a streamed body passes the limit (control flow only)."""


async def send_error(send: Any, error: ReprokgError, *, close: bool = True) -> None:
    """Answer ``error`` as the app's error handler would (JSON ``{"detail": ...}``)."""
    body = json.dumps({"detail": error.to_dict()}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    headers += [(k.lower().encode(), v.encode()) for k, v in error.headers.items()]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": error.http_status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _has_body(scope: dict) -> bool:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            return value.strip() not in (b"0", b"")
        if name == b"transfer-encoding":
            return True
    return False


class UploadSlots:
    """Bound the requests with a body in progress: per client address and in all."""

    def __init__(self, app: Any, max_uploads: int, max_per_client: int) -> None:
        self.app = app
        self.max_uploads = max_uploads
        self.max_per_client = max_per_client
        self.in_progress = 0
        self.per_client: dict[str, int] = {}

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not _has_body(scope):
            await self.app(scope, receive, send)
            return
        client = (scope.get("client") or ("",))[0] or ""
        held = self.per_client.get(client, 0)
        if self.max_per_client and held >= self.max_per_client:
            await send_error(
                send,
                TooManyRequests(
                    f"this client has {held} uploads in progress, the most allowed "
                    "(max_uploads_per_client); send the next when one is answered",
                    headers={"Retry-After": "5"},
                    details={"limit": "max_uploads_per_client", "limit_value": held},
                ),
            )
            return
        if self.max_uploads and self.in_progress >= self.max_uploads:
            await send_error(
                send,
                Busy(
                    f"{self.in_progress} uploads are in progress, the most this server "
                    "takes at once (max_uploads); try again",
                    headers={"Retry-After": "5"},
                    details={"limit": "max_uploads", "limit_value": self.max_uploads},
                ),
            )
            return
        self.in_progress += 1
        self.per_client[client] = held + 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.in_progress -= 1
            left = self.per_client.get(client, 1) - 1
            if left > 0:
                self.per_client[client] = left
            else:
                self.per_client.pop(client, None)


class BodyLimitMiddleware:
    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def _refuse(self, send: Any, size: int | None) -> None:
        error = TooLarge(
            f"request body is larger than the limit of {self.max_bytes} bytes",
            source="request body",
            details={"limit": self.max_bytes, "size": size},
        )
        await send_error(send, error)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    size = int(value)
                except ValueError:
                    size = 0
                if size > self.max_bytes:
                    await self._refuse(send, size)
                    return
        seen = 0
        exceeded = False
        replaced = False

        async def limited_receive() -> dict:
            nonlocal seen, exceeded
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    exceeded = True
                    raise BodyTooLarge
            return message

        async def guarded_send(message: dict) -> None:
            # A parser may turn our exception into its own 400; the client must see 413.
            nonlocal replaced
            if exceeded:
                if message["type"] == "http.response.start" and not replaced:
                    replaced = True
                    await self._refuse(send, None)
                return
            await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except BodyTooLarge:
            if not replaced:
                replaced = True
                await self._refuse(send, None)
