"""Request-body size limit as ASGI middleware: 413 before a large body is read into memory.

Checks ``Content-Length`` up front and counts streamed (chunked) bodies as they arrive,
so neither a lying header nor a missing one gets past the limit.
"""

from __future__ import annotations

import json
from typing import Any

from reprokg.core.errors import TooLarge


class BodyTooLarge(Exception):
    """Raised into the app when a streamed body passes the limit (control flow only)."""


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
        body = json.dumps({"detail": error.to_dict()}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

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
