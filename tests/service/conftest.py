"""Service test fixtures: one demo store per session, copied for each test that writes; a
real ``reprokg serve`` on loopback for the tests that need a process to kill or to starve."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def demo_store_copy(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], Path]:
    """``copy(dest)`` puts a store holding every bundled example at ``dest`` (the examples are
    loaded once per session: about a minute)."""
    from reprokg.service.demo import load_demo
    from reprokg.store import open_store

    master = tmp_path_factory.mktemp("demo") / "kg"
    with open_store(master) as store:
        counts = load_demo(store)
    assert "rejected" not in counts and "unreadable" not in counts, counts

    def copy(dest: Path) -> Path:
        shutil.copytree(master, dest)
        return dest

    return copy


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(port: int, path: str = "/health", timeout: float = 10.0) -> int:
    """The status of one request on a fresh connection (raw socket: no client pooling)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    return int(data.split(b" ", 2)[1])


@contextlib.contextmanager
def reprokg_serve(store: Path | str, env: dict[str, str]) -> Iterator[tuple[int, subprocess.Popen]]:
    """A real ``reprokg serve`` on loopback (its own process: what a crash would kill) over
    a store folder or an engine's URL, yielding its port and process once ``/health``
    answers."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "reprokg", "serve", "--store", str(store), "--port", str(port)],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                if http_get(port, timeout=2) == 200:
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"reprokg serve did not start (exit {proc.poll()})")
            time.sleep(0.3)
        yield port, proc
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
