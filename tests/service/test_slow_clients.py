"""Slow and idle clients do not stop the service (a real ``reprokg serve`` on loopback).

500 idle keep-alive connections, 50 connections that never send a byte, a request head sent
a byte at a time and an upload whose body trickles in: ``/health`` goes on answering on a
new connection, the silent and slow heads are closed after ``header_timeout``, and a head
over ``max_header_bytes`` is refused with 431 (service/http.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import REPO, need
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
        # the 550 idle connections below come from one address
        "REPROKG_MAX_CONNECTIONS_PER_CLIENT": "1000",
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
    from reprokg.service.http import protocol_class, uvicorn_options

    s = Settings.from_env({"REPROKG_LIMIT_CONCURRENCY": "64", "REPROKG_HEADER_TIMEOUT": "3"})
    opts = uvicorn_options(s)
    # the budget is the protocol's own (so /health passes it), not uvicorn's
    assert opts["limit_concurrency"] is None and opts["timeout_keep_alive"] == 5.0
    assert opts["h11_max_incomplete_event_size"] == 65_536 and isinstance(opts["http"], str)
    proto = protocol_class(s)
    assert proto.request_budget == 64 and proto.header_timeout == 3.0
    assert proto.body_timeout == Settings().body_timeout


# --- issue 28: slow bodies, one client's share, liveness past the budget -------------------

BODY_TIMEOUT = 2.0
PER_CLIENT = 20
BUDGET = 60


def _connect(port: int, source: str, timeout: float = 10.0) -> socket.socket:
    """A connection from loopback address ``source`` (127.0.0.0/8 is all loopback: each
    address is another client to the server)."""
    return socket.create_connection(
        ("127.0.0.1", port), timeout=timeout, source_address=(source, 0)
    )


def _request(port: int, source: str, head: str, body: bytes = b"") -> tuple[int, bytes]:
    with _connect(port, source) as s:
        s.sendall(head.encode() + body)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    return int(data.split(b" ", 2)[1]), data


def _get_from(port: int, source: str, path: str = "/health") -> int:
    return _request(port, source, f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")[0]


def _upload_head(length: int) -> bytes:
    return (
        b"POST /validate?kind=audit&name=x.yaml HTTP/1.1\r\nHost: x\r\n"
        b"Content-Type: application/yaml\r\nContent-Length: " + str(length).encode() + b"\r\n\r\n"
    )


@pytest.fixture(scope="module")
def tight(tmp_path_factory: pytest.TempPathFactory):
    env = {
        "REPROKG_BODY_TIMEOUT": str(BODY_TIMEOUT),
        "REPROKG_MAX_CONNECTIONS_PER_CLIENT": str(PER_CLIENT),
        "REPROKG_MAX_UPLOADS_PER_CLIENT": "2",
        "REPROKG_LIMIT_CONCURRENCY": str(BUDGET),
        "REPROKG_PARSE_WORKERS": "1",
    }
    with reprokg_serve(tmp_path_factory.mktemp("tight") / "kg", env) as (port, _):
        yield port


def test_a_body_sent_a_byte_a_second_is_cut_with_408(tight: int) -> None:
    """The probe's slow body: an 8 MB Content-Length, then a byte a second. It must have
    come within body_timeout + bytes/body_min_rate (2 s + a few ms): 408, closed."""
    with _connect(tight, "127.0.0.4", timeout=30) as s:
        s.sendall(_upload_head(8_000_000))
        t0 = time.monotonic()
        answer = b""
        with contextlib.suppress(OSError):
            while time.monotonic() - t0 < 20:
                s.sendall(b"a")
                s.settimeout(1.0)
                try:
                    answer += s.recv(4096)
                except TimeoutError:
                    continue
                if answer:
                    break
        assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
        assert b'"error": "RequestTimeout"' in answer and b"connection: close" in answer
        assert _closed_within(s, 5)
    assert _get_from(tight, "127.0.0.4") == 200


def test_a_body_at_a_fair_rate_is_not_cut(tight: int) -> None:
    """3 KB at 1 KB/s (over 2 s, above body_min_rate): answered, not 408."""
    body = b"a: " + b"x" * 3000 + b"\n"
    with _connect(tight, "127.0.0.4", timeout=30) as s:
        s.sendall(_upload_head(len(body)))
        for i in range(0, len(body), 250):
            s.sendall(body[i : i + 250])
            time.sleep(0.25)
        answer = s.recv(4096)
    assert answer.startswith(b"HTTP/1.1 ") and not answer.startswith(b"HTTP/1.1 408"), answer


def test_one_client_address_cannot_take_every_connection(tight: int) -> None:
    held = [_connect(tight, "127.0.0.2") for _ in range(PER_CLIENT)]
    try:
        with _connect(tight, "127.0.0.2") as extra:  # answered at once, before a request
            answer = extra.recv(4096)
        assert answer.startswith(b"HTTP/1.1 429") and b"max_connections_per_client" in answer
        assert b"retry-after: 5" in answer.lower()
        assert _get_from(tight, "127.0.0.3") == 200  # another client is served
        assert _get_from(tight, "127.0.0.3", "/documents") == 200
    finally:
        for s in held:
            s.close()
    time.sleep(0.5)
    assert _get_from(tight, "127.0.0.2") == 200  # its connections closed: served again


def test_one_client_has_few_uploads_in_progress(tight: int) -> None:
    slow = []
    try:
        for _ in range(2):  # two uploads whose bodies have not come yet
            s = _connect(tight, "127.0.0.5")
            s.sendall(_upload_head(10_000) + b"a: ")
            slow.append(s)
        time.sleep(0.3)
        audit = (REPO / "examples/audits/gcn.yaml").read_bytes()
        head = (
            "POST /validate?name=gcn.yaml HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            f"Content-Type: application/yaml\r\nContent-Length: {len(audit)}\r\n\r\n"
        )
        status, answer = _request(tight, "127.0.0.5", head, audit)
        assert status == 429 and b"max_uploads_per_client" in answer
        status, answer = _request(tight, "127.0.0.6", head, audit)  # another client
        assert status == 200, answer[:300]
    finally:
        for s in slow:
            s.close()


def test_health_is_served_when_the_request_budget_is_spent(tight: int) -> None:
    """Connections from four clients fill the budget (60): other requests are 503, the
    liveness probe is still 200 (uvicorn's own limit answered it 503 too)."""
    held = []
    try:
        for n in range(4):
            held += [_connect(tight, f"127.0.1.{n + 1}") for _ in range(PER_CLIENT - 2)]
        assert len(held) > BUDGET
        assert _get_from(tight, "127.0.0.7", "/documents") == 503
        assert _get_from(tight, "127.0.0.7", "/health") == 200
    finally:
        for s in held:
            s.close()
    time.sleep(0.5)
    assert _get_from(tight, "127.0.0.7", "/documents") == 200


#: seconds the 2,100 slow bodies last (the probe's minute; shorten for a quick look)
SLOW_BODY_SECONDS = float(os.environ.get("SLOW_BODY_SECONDS", "60"))

#: the attacker, a process of its own (in the test's process it would compete with the
#: probes for the GIL and slow them, not the server): argv = port, seconds, connections
ATTACKER = r"""
import contextlib, json, resource, selectors, socket, sys, time
port, seconds, n = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 10_000), hard))
head = (b"POST /validate?kind=audit&name=x.yaml HTTP/1.1\r\nHost: x\r\n"
        b"Content-Type: application/yaml\r\nContent-Length: 8000000\r\n\r\n")
sel = selectors.DefaultSelector()
slots, opened, answers = [None] * n, [0.0] * n, {}
end = time.monotonic() + seconds
while time.monotonic() < end:
    t0 = time.monotonic()
    for i, s in enumerate(slots):
        if s is None and t0 - opened[i] >= 1.0:
            opened[i] = t0
            try:
                s = socket.create_connection(("127.0.0.1", port), 2, ("127.0.0.2", 0))
                s.setblocking(False)
                s.send(head)
            except OSError:
                continue
            sel.register(s, selectors.EVENT_READ, i)
            slots[i] = s
        elif s is not None:
            with contextlib.suppress(OSError):
                s.send(b"a")
    for key, _ in sel.select(timeout=0):
        s = key.fileobj
        with contextlib.suppress(OSError):
            status = s.recv(64)[:12].decode("latin-1") or "closed"
            answers[status] = answers.get(status, 0) + 1
        sel.unregister(s)
        s.close()
        slots[key.data] = None
    time.sleep(max(0.0, 1.0 - (time.monotonic() - t0)))
print(json.dumps({"answers": answers, "held_at_end": sum(s is not None for s in slots)}))
"""


@pytest.mark.slow
def test_2100_slow_bodies_for_a_minute_leave_health_and_a_normal_client_served(
    tmp_path: Path,
) -> None:
    """The probe's attack with the default limits: 2,100 connections from one address
    send a ``POST /validate`` head with ``Content-Length: 8000000``, then a byte a second
    each, reconnecting whenever the server closes one (at most once a second each), for
    a minute. ``/health`` (another address, a fresh connection every second) answers 200
    throughout and a normal client's upload is validated. Before: every ``/health`` was
    503 for the whole minute (uvicorn's limit_concurrency held by the slow bodies)."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need(hard >= 5_000, f"needs 5,000 file descriptors (hard limit {hard})")
    audit = (REPO / "examples/audits/gcn.yaml").read_bytes()
    audit_head = (
        "POST /validate?name=gcn.yaml HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        f"Content-Type: application/yaml\r\nContent-Length: {len(audit)}\r\n\r\n"
    )
    health: list[tuple[int, float]] = []
    normal: list[int] = []
    with reprokg_serve(tmp_path / "kg", {"REPROKG_PARSE_WORKERS": "1"}) as (port, proc):
        attack = subprocess.Popen(
            [sys.executable, "-c", ATTACKER, str(port), str(SLOW_BODY_SECONDS + 3), "2100"],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            time.sleep(3)  # the attack is under way
            end = time.monotonic() + SLOW_BODY_SECONDS
            while time.monotonic() < end:
                t0 = time.monotonic()
                health.append((_get_from(port, "127.0.0.1"), time.monotonic() - t0))
                if len(health) % 10 == 1:
                    normal.append(_request(port, "127.0.0.3", audit_head, audit)[0])
                time.sleep(max(0.0, 1.0 - (time.monotonic() - t0)))
            out, _ = attack.communicate(timeout=60)
        finally:
            if attack.poll() is None:
                attack.kill()
                attack.wait()
        assert proc.poll() is None
    report = json.loads(out)
    latencies = sorted(d for _, d in health)
    print(
        f"\nhealth: {len(health)} probes, median {latencies[len(latencies) // 2]:.3f} s, "
        f"max {latencies[-1]:.3f} s; normal uploads {normal}; attacker {report}"
    )
    assert {s for s, _ in health} == {200}, health
    assert normal and set(normal) == {200}, normal
    assert report["answers"]  # the server did refuse or cut the slow bodies
