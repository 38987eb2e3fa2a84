"""How uvicorn serves the app: connection limits and timeouts set deliberately (Settings).

uvicorn (0.54, read in its source: ``uvicorn.protocols.http.httptools_impl`` and ``h11_impl``)
offers ``limit_concurrency``, ``timeout_keep_alive`` and h11's head-size limit, and nothing
that times a request's head or body (encode/uvicorn#157 lists both as open). Measured: a
client that connects and sends nothing, sends a head a byte at a time, or sends a body a
byte a second, holds its connection for ever; ``limit_concurrency`` counts open
connections as well as requests, so 2,100 such bodies (~2 KB/s in all) made every
request, ``/health`` too, a 503 for as long as they lasted. So ``reprokg serve`` (one
process, or each of ``--workers N``) runs uvicorn's protocol with :class:`ConnectionLimits`
mixed in (``http=``), which adds:

* a **head timeout** (``header_timeout``, ten seconds) and **head size** (``max_header_bytes``,
  64 KiB, 431 past it; also h11's ``h11_max_incomplete_event_size``);
* a **body timeout**, Apache mod_reqtimeout's rule: a body has ``body_timeout`` seconds
  (20) plus one second per ``body_min_rate`` bytes (500) it has sent, else 408 and the
  connection is closed (time the app leaves the body unread does not count);
* **connections per client address** (``max_connections_per_client``, 256): one more is
  answered 429 and closed at once, so one address cannot take the whole budget;
* the **request budget** (``limit_concurrency``, 2,048 connections + requests, 503 past
  it), checked here instead of by uvicorn so that ``/health`` is served even when the
  budget is spent (liveness must not say "dead" because clients are many).

Requests with a body are also counted per client and in all by an ASGI middleware
(:class:`reprokg.service.limits.UploadSlots`), which every route inherits.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import TYPE_CHECKING, Any

from reprokg.core.settings import Settings

if TYPE_CHECKING:
    from uvicorn._types import ASGI3Application, ASGIReceiveCallable, ASGISendCallable, Scope

log = logging.getLogger("reprokg.service")

#: paths served even when the request budget is spent
LIVENESS_PATHS = (b"/health",)


def _raw_answer(status: str, message: str, extra: bytes = b"") -> bytes:
    """A complete ``connection: close`` response with our JSON error body."""
    code = status.split(" ", 1)[0]
    error = {"408": "RequestTimeout", "429": "TooManyConnections", "431": "HeadTooLarge"}
    body = json.dumps({"detail": {"error": error.get(code, "Refused"), "message": message}})
    data = body.encode()
    return (
        b"HTTP/1.1 " + status.encode() + b"\r\n"
        b"content-type: application/json\r\n"
        b"connection: close\r\n" + extra + b"content-length: " + str(len(data)).encode() + b"\r\n"
        b"\r\n" + data
    )


class ConnectionLimits:
    """The limits of one connection (a mixin over uvicorn's HTTP protocol class; the
    class attributes are set from the settings by :func:`protocol_class`)."""

    header_timeout: float = Settings.header_timeout
    max_header_bytes: int = Settings.max_header_bytes
    body_timeout: float = Settings.body_timeout
    body_min_rate: int = Settings.body_min_rate
    max_connections_per_client: int = Settings.max_connections_per_client
    request_budget: int | None = Settings.limit_concurrency
    #: open connections per client address, shared by the connections of this process
    per_client: dict[str, int]
    #: the ASGI app uvicorn's protocol class serves (set by it; wrapped per connection here)
    app: ASGI3Application

    # --- connections ------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:
        super().connection_made(transport)  # type: ignore[misc]  # uvicorn's protocol is untyped
        self._head_bytes = 0
        self._head_timer: asyncio.TimerHandle | None = None
        self._body_timer: asyncio.TimerHandle | None = None
        self._body_cycle: Any = None
        peer = transport.get_extra_info("peername")
        self._peer = str(peer[0]) if isinstance(peer, tuple) and peer else ""
        held = self.per_client.get(self._peer, 0)
        if held >= self.max_connections_per_client:
            self._peer = ""  # not counted
            transport.write(
                _raw_answer(
                    "429 Too Many Requests",
                    f"this client address holds {held} connections, the most allowed "
                    f"(max_connections_per_client); close some and try again",
                    b"retry-after: 5\r\n",
                )
            )
            transport.close()
            return
        self.per_client[self._peer] = held + 1
        # uvicorn checks its limit_concurrency when a head is complete; ours does, with
        # the liveness paths let through (see _budgeted)
        self.app = self._budgeted(self.app)
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        self._cancel_body_timer()
        if self._peer:
            left = self.per_client.get(self._peer, 1) - 1
            if left > 0:
                self.per_client[self._peer] = left
            else:
                self.per_client.pop(self._peer, None)
            self._peer = ""
        super().connection_lost(exc)  # type: ignore[misc]  # uvicorn's protocol is untyped

    def _budgeted(self, app: ASGI3Application) -> ASGI3Application:
        budget = self.request_budget
        if budget is None:
            return app
        # set by uvicorn's protocol __init__
        connections, tasks = self.connections, self.tasks  # type: ignore[attr-defined]

        async def budgeted(
            scope: Scope, receive: ASGIReceiveCallable, send: ASGISendCallable
        ) -> None:
            # ``tasks`` holds this request's own task already
            spent = len(connections) >= budget or len(tasks) > budget
            if spent and scope["type"] == "http":
                path = scope.get("raw_path") or scope.get("path", "").encode()
                if path not in LIVENESS_PATHS:
                    from uvicorn.protocols.http.flow_control import service_unavailable

                    await service_unavailable(scope, receive, send)
                    return
            await app(scope, receive, send)

        return budgeted

    # --- the head -----------------------------------------------------------------------

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
        elif self._body_timer is not None:
            self._body_bytes += len(data)
        super().data_received(data)  # type: ignore[misc]  # uvicorn's protocol is untyped
        if self._head_timer is not None and not self._waiting_for_head():
            self._cancel_head_timer()  # the head is complete: now the body's timer
        self._watch_body()

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
        transport.write(
            _raw_answer(
                "431 Request Header Fields Too Large",
                f"request head larger than the limit of {self.max_header_bytes} bytes",
            )
        )
        transport.close()

    # --- the body -----------------------------------------------------------------------

    def _receiving_body(self, cycle: Any) -> bool:
        return (
            cycle is not None
            and getattr(cycle, "more_body", False)
            and not getattr(cycle, "response_complete", False)
            and not getattr(cycle, "disconnected", False)
        )

    def _watch_body(self) -> None:
        """Arm the body timer when a request's head is in and its body is not."""
        cycle = getattr(self, "cycle", None)
        if self._body_timer is not None:
            if cycle is self._body_cycle and self._receiving_body(cycle):
                return
            self._cancel_body_timer()
        if self._receiving_body(cycle) and self._head_timer is None:
            self._body_cycle = cycle
            self._body_bytes = 0
            self._body_start = time.monotonic()
            # uvicorn's protocol sets loop
            self._body_timer = self.loop.call_later(  # type: ignore[attr-defined]
                self.body_timeout, self._body_check
            )

    def _cancel_body_timer(self) -> None:
        timer = getattr(self, "_body_timer", None)
        if timer is not None:
            timer.cancel()
            self._body_timer = None
        self._body_cycle = None

    def _body_check(self) -> None:
        self._body_timer = None
        cycle = self._body_cycle
        if cycle is not getattr(self, "cycle", None) or not self._receiving_body(cycle):
            self._body_cycle = None
            return
        now = time.monotonic()
        flow = getattr(self, "flow", None)
        if (flow is not None and flow.read_paused) or getattr(
            cycle, "waiting_for_100_continue", False
        ):
            # the app has not read what came (or not asked for the body yet): not the
            # client's time; look again later
            self._body_start += self.body_timeout
            # uvicorn's protocol sets loop
            self._body_timer = self.loop.call_later(  # type: ignore[attr-defined]
                self.body_timeout, self._body_check
            )
            return
        deadline = self._body_start + self.body_timeout + self._body_bytes / self.body_min_rate
        if now < deadline:
            # uvicorn's protocol sets loop
            self._body_timer = self.loop.call_later(  # type: ignore[attr-defined]
                deadline - now, self._body_check
            )
            return
        self._body_cycle = None
        self._body_too_slow(cycle, now - self._body_start)

    def _body_too_slow(self, cycle: Any, elapsed: float) -> None:
        transport = getattr(self, "transport", None)
        if transport is None or transport.is_closing():
            return
        log.warning(
            "request body from %s too slow: %d bytes in %.0f s; closed with 408",
            self._peer or "?",
            self._body_bytes,
            elapsed,
        )
        started = getattr(cycle, "response_started", False)
        cycle.disconnected = True  # the app's receive() gets http.disconnect, send() nothing
        cycle.message_event.set()
        if not started:
            transport.write(
                _raw_answer(
                    "408 Request Timeout",
                    f"the request body came too slowly ({self._body_bytes} bytes in "
                    f"{elapsed:.0f} s): a body must arrive within {self.body_timeout:g} s plus "
                    f"one second per {self.body_min_rate} bytes",
                )
            )
        transport.close()


def protocol_class(settings: Settings) -> type:
    """uvicorn's HTTP protocol (httptools when installed, else h11) with
    :class:`ConnectionLimits` set from ``settings``."""
    base: type
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

        base = HttpToolsProtocol
    except ImportError:  # uvicorn without the [standard] extra
        from uvicorn.protocols.http.h11_impl import H11Protocol

        base = H11Protocol

    return type(
        "ReprokgHttpProtocol",
        (ConnectionLimits, base),
        {
            "header_timeout": settings.header_timeout,
            "max_header_bytes": settings.max_header_bytes,
            "body_timeout": settings.body_timeout,
            "body_min_rate": max(1, settings.body_min_rate),
            "max_connections_per_client": settings.max_connections_per_client,
            "request_budget": settings.limit_concurrency or None,
            "per_client": {},
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
    settings the process has, :func:`~reprokg.core.settings.settings`). uvicorn's own
    ``limit_concurrency`` stays off: the protocol checks the same budget itself, with
    ``/health`` let through."""
    return {
        "http": "reprokg.service.http:SettingsProtocol",
        "limit_concurrency": None,
        "timeout_keep_alive": settings.timeout_keep_alive,
        "h11_max_incomplete_event_size": settings.max_header_bytes,
    }
