"""Slow and idle clients do not stop the service (a real ``reprokg serve`` on loopback).

500 idle keep-alive connections, 50 connections that never send a byte, a request head sent
a byte at a time and an upload whose body trickles in: ``/health`` goes on answering on a
new connection, the silent and slow heads are closed after ``header_timeout``, and a head
over ``max_header_bytes`` is refused with 431 (service/http.py).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time

import pytest

from tests.service.conftest import http_get, reprokg_serve

pytestmark = pytest.mark.slow  # a real server and timeouts of seconds

HEADER_TIMEOUT = 2.0


def _get(port: int, path: str = "/health", timeout: float = 10.0) -> int:
    return http_get(port, path, timeout)


def _closed_within(s: socket.socket, seconds: float) -> bool:
    """True when the server closes ``s`` (EOF or reset) within ``seconds``."""
    s.settimeout(seconds)
    try:
        while True:
            data = s.recv(4096)
            if not data:
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    env = {
        "REPROKG_HEADER_TIMEOUT": str(HEADER_TIMEOUT),
        "REPROKG_TIMEOUT_KEEP_ALIVE": "30",  # idle keep-alive connections stay for the test
        "REPROKG_WRITE_TOKEN": "t",
        "REPROKG_PARSE_WORKERS": "1",
    }
    with reprokg_serve(tmp_path_factory.mktemp("slow") / "kg", env) as (port, _):
        yield port


def test_idle_and_silent_connections_do_not_stop_health(server: int) -> None:
    idle: list[socket.socket] = []
    try:
        for _ in range(500):  # a request each, then idle on keep-alive
            s = socket.create_connection(("127.0.0.1", server), timeout=10)
            s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            idle.append(s)
        for s in idle:
            assert s.recv(4096).startswith(b"HTTP/1.1 200")
        silent = [socket.create_connection(("127.0.0.1", server), timeout=10) for _ in range(50)]
        idle += silent
        statuses = [_get(server) for _ in range(5)]
        assert statuses == [200] * 5
        # the silent ones are closed once the header timeout passes
        assert all(_closed_within(s, HEADER_TIMEOUT + 5) for s in silent)
    finally:
        for s in idle:
            s.close()


def test_a_slow_head_is_closed_and_a_huge_head_refused(server: int) -> None:
    slow = socket.create_connection(("127.0.0.1", server), timeout=10)
    try:
        t0 = time.monotonic()
        closed = False
        for ch in b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100:
            try:
                slow.sendall(bytes([ch]))
            except OSError:
                closed = True
                break
            if time.monotonic() - t0 > HEADER_TIMEOUT + 5:
                break
            time.sleep(0.05)
        assert closed or _closed_within(slow, 2)
    finally:
        slow.close()
    with socket.create_connection(("127.0.0.1", server), timeout=10) as big:
        head = b"GET /health HTTP/1.1\r\nHost: x\r\n" + b"X-Big: " + b"a" * 100_000 + b"\r\n\r\n"
        with contextlib.suppress(OSError):  # the server may close while we still send
            big.sendall(head)
        answer = big.recv(4096)
        assert answer.startswith(b"HTTP/1.1 431") or answer == b""
    assert _get(server) == 200


def test_a_slow_body_upload_does_not_stop_health(server: int) -> None:
    body = b"a: " + b"x" * 2000 + b"\n"
    done: list[bytes] = []

    def trickle() -> None:
        with socket.create_connection(("127.0.0.1", server), timeout=30) as s:
            s.sendall(
                b"POST /validate?kind=audit&name=x.yaml HTTP/1.1\r\nHost: x\r\n"
                b"Content-Type: application/yaml\r\n"
                b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n"
            )
            for i in range(0, len(body), 200):  # ten pieces, 0.5 s apart: 5 s in all
                s.sendall(body[i : i + 200])
                time.sleep(0.5)
            done.append(s.recv(4096))

    t = threading.Thread(target=trickle)
    t.start()
    try:
        time.sleep(1.0)
        for _ in range(5):
            assert _get(server) == 200
            time.sleep(0.3)
    finally:
        t.join(60)
    assert done and done[0].startswith(b"HTTP/1.1 "), done  # answered once complete


def test_the_limits_are_settings() -> None:
    from reprokg.core.settings import Settings
    from reprokg.service.http import uvicorn_options

    s = Settings.from_env({"REPROKG_LIMIT_CONCURRENCY": "64", "REPROKG_HEADER_TIMEOUT": "3"})
    opts = uvicorn_options(s)
    assert opts["limit_concurrency"] == 64 and opts["timeout_keep_alive"] == 5.0
    assert opts["h11_max_incomplete_event_size"] == 65_536 and isinstance(opts["http"], str)
