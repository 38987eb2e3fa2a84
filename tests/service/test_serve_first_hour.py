"""``reprokg serve --demo`` as a newcomer meets it (issue 27): what its banner says about
writing, a busy port, and ``kill``.

Before: the banner did not say that HTTP writes were off or how to turn them on; on a
busy port the demo loaded for 21 s, printed "serving…", then failed; SIGTERM (``kill``,
``docker stop``, ``systemctl stop``) left the ~30 MB temporary demo store behind while
Ctrl+C removed it. Each is run here as a user runs it: the command in its own process.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest


def _env(tmp: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REPROKG_")}
    env["TMPDIR"] = str(tmp)  # where the demo makes its temporary store
    env.update(extra)
    return env


def _serve(tmp: Path, port: int, **env: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "reprokg", "serve", "--demo", "--port", str(port)],
        cwd=tmp,
        env=_env(tmp, **env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _demo_stores(tmp: Path) -> list[Path]:
    return sorted(tmp.glob("reprokg-demo-*"))


def _banner(proc: subprocess.Popen) -> list[str]:
    lines = []
    assert proc.stderr is not None
    for line in proc.stderr:
        lines.append(line.rstrip("\n"))
        if "/sparql' --data-urlencode" in line:
            return lines
    raise AssertionError(f"no banner: {lines}")


def _wait_up(proc: subprocess.Popen, port: int) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        assert proc.poll() is None, "serve exited"
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.3)
    raise AssertionError("the demo did not come up")


def test_a_busy_port_fails_before_the_demo_loads(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        proc = subprocess.run(
            [sys.executable, "-m", "reprokg", "serve", "--demo", "--port", str(port)],
            cwd=tmp_path,
            env=_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert proc.returncode == 2, proc.stderr
    assert f"127.0.0.1:{port}" in proc.stderr and "--port" in proc.stderr
    # nothing was loaded, nothing was announced, nothing is left
    assert "demo data loaded" not in proc.stderr and "serving" not in proc.stderr
    assert _demo_stores(tmp_path) == []


@pytest.mark.slow
def test_sigterm_removes_the_temporary_demo_store_and_the_banner_says_how_to_write(
    tmp_path: Path,
) -> None:
    port = _free_port()
    proc = _serve(tmp_path, port)
    try:
        banner = _banner(proc)
        _wait_up(proc, port)
        (store,) = _demo_stores(tmp_path)
        assert (store / "oxigraph").is_dir()
        text = "\n".join(banner)
        assert "HTTP writes are off" in text and "REPROKG_WRITE_TOKEN" in text, text
        assert "Authorization: Bearer" in text and "temporary" in text
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert _demo_stores(tmp_path) == [], "SIGTERM left the demo store behind"


@pytest.mark.slow
def test_sigterm_while_the_demo_loads_removes_its_store(tmp_path: Path) -> None:
    proc = _serve(tmp_path, _free_port(), REPROKG_WRITE_TOKEN="a-secret")
    try:
        deadline = time.monotonic() + 120
        while not _demo_stores(tmp_path) and time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.05)
        assert _demo_stores(tmp_path), "no demo store was made"
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode != 0
    assert _demo_stores(tmp_path) == []


def test_banner_names_the_way_writes_are_enabled() -> None:
    """Each state of the service gets its own sentence (console and demo pages share it)."""
    from reprokg.core.settings import Settings
    from reprokg.service.deps import how_to_write

    off = how_to_write(Settings(write_token=None))
    assert "off" in off and "REPROKG_WRITE_TOKEN" in off and "Authorize" in off
    on = how_to_write(Settings(write_token="s3cret"))
    assert "on" in on and "s3cret" not in on and "Bearer" in on
    ro = how_to_write(Settings(write_token="s3cret", read_only=True))
    assert "read-only" in ro and "reprokg load" in ro
