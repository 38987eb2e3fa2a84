"""How uvicorn serves the app: connection limits and timeouts set deliberately (Settings).

Measured with uvicorn 0.54 (httptools): a client that connects and sends nothing, or sends
a request head a byte at a time, is never timed out (the keep-alive timer is only armed
after a first response), and uvicorn's ``limit_concurrency`` counts open connections as
well as requests, so a few hundred idle connections can make every new request a 503.
So ``reprokg serve`` (one process, or each of ``--workers N``) runs uvicorn with:

* ``limit_concurrency`` (2,048): far above the idle connections a client can hold for
  ``header_timeout`` seconds, low enough to bound memory;
* ``timeout_keep_alive`` (5 s): an idle keep-alive connection is closed after it;
* a **header timeout** (10 s): a request head must be complete that long after the
  connection opened, or after the previous response; and a **head size limit** (64 KiB):
  longer heads are refused with 431 (uvicorn's httptools protocol has none; h11's
  ``h11_max_incomplete_event_size`` is set to the same). Both come from
  :class:`HeadLimits`, a mixin over uvicorn's protocol class, passed as ``http=``.

A slow request *body* is the app's business: it is read by the request's own task, so it
holds one connection and nothing else (``/health`` answers meanwhile; tests/service/
test_slow_clients.py).
"""

from __future__ import annotations

import asyncio
from typing import Any

from reprokg.core.settings import Settings


class HeadLimits:
    """Close a connection whose request head is not complete within ``header_timeout``
    seconds, or refuse it with 431 once it passes ``max_header_bytes``."""

    header_timeout: float = Settings.header_timeout
    max_header_bytes: int = Settings.max_header_bytes

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)  # type: ignore[misc]
        self._head_bytes = 0
        self._head_timer: asyncio.TimerHandle | None = None
        self._arm_head_timer()

    def _arm_head_timer(self) -> None:
        self._cancel_head_timer()
        self._head_bytes = 0
        self._head_tail = b""
        self._head_cycle = getattr(self, "cycle", None)
        loop = getattr(self, "loop", None) or asyncio.get_event_loop()
        self._head_timer = loop.call_later(self.header_timeout, self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        timer = getattr(self, "_head_timer", None)
        if timer is not None:
            timer.cancel()
            self._head_timer = None

    def _waiting_for_head(self) -> bool:
        """No request head parsed since the timer was armed."""
        return getattr(self, "cycle", None) is self._head_cycle

    def _head_timed_out(self) -> None:
        self._head_timer = None
        transport = getattr(self, "transport", None)
        if self._waiting_for_head() and transport is not None and not transport.is_closing():
            transport.close()

    def data_received(self, data: bytes) -> None:
        between = self._head_timer is None and self._between_requests()
        if between:  # a new request begins on a kept-alive connection
            self._arm_head_timer()
        if self._head_timer is not None:
            if not self._waiting_for_head():
                self._cancel_head_timer()
            else:
                if self._head_bytes + len(data) > self.max_header_bytes and not self._head_ends(
                    data
                ):
                    self._refuse_head()
                    return
                self._head_bytes += len(data)
                self._head_tail = data[-3:]
        super().data_received(data)  # type: ignore[misc]
        if self._head_timer is not None and not self._waiting_for_head():
            self._cancel_head_timer()  # the head is complete: the body is the app's

    def _head_ends(self, data: bytes) -> bool:
        """The head ends within the limit in ``data`` (a client sends head and body in one
        write: the body's bytes are not the head's; a 200 KB upload was refused with 431)."""
        room = self.max_header_bytes - self._head_bytes
        window = self._head_tail + data[: max(room, 0) + 4]
        return b"\r\n\r\n" in window or b"\n\n" in window

    def _between_requests(self) -> bool:
        cycle = getattr(self, "cycle", None)
        return cycle is None or getattr(cycle, "response_complete", False)

    def _refuse_head(self) -> None:
        self._cancel_head_timer()
        transport = getattr(self, "transport", None)
        if transport is None or transport.is_closing():
            return
        body = b"request head larger than the limit\n"
        transport.write(
            b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
            b"content-type: text/plain; charset=utf-8\r\n"
            b"connection: close\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body
        )
        transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        super().connection_lost(exc)  # type: ignore[misc]


def protocol_class(settings: Settings) -> type:
    """uvicorn's HTTP protocol (httptools when installed, else h11) with :class:`HeadLimits`
    set from ``settings``."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as base
    except ImportError:  # uvicorn without the [standard] extra
        from uvicorn.protocols.http.h11_impl import H11Protocol as base

    return type(
        "ReprokgHttpProtocol",
        (HeadLimits, base),
        {
            "header_timeout": settings.header_timeout,
            "max_header_bytes": settings.max_header_bytes,
        },
    )


def __getattr__(name: str) -> Any:
    """``SettingsProtocol``: :func:`protocol_class` of the process's settings, by import
    string (uvicorn's ``http=`` option; worker processes build it from their environment)."""
    if name == "SettingsProtocol":
        from reprokg.core.settings import settings

        cls = _built.get(settings())
        if cls is None:
            cls = _built[settings()] = protocol_class(settings())
        return cls
    raise AttributeError(name)


_built: dict[Settings, type] = {}


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """The uvicorn ``Config`` options every ``reprokg serve`` process runs with (plain
    values: they cross to worker processes; the protocol's limits come from the
    settings the process has, :func:`~reprokg.core.settings.settings`)."""
    return {
        "http": "reprokg.service.http:SettingsProtocol",
        "limit_concurrency": settings.limit_concurrency,
        "timeout_keep_alive": settings.timeout_keep_alive,
        "h11_max_incomplete_event_size": settings.max_header_bytes,
    }
