"""Fixtures of the web views' tests: one demo store per session (``serve --demo``'s data,
loaded once: ~1 min on this machine), a test client on it, and for the browser tests a
live server and Debian's Chromium driven by Playwright (no browser download).

The browser is ``/usr/bin/chromium`` (``REPROKG_CHROMIUM`` to override); without it or
without Playwright the browser tests skip locally and fail under ``CI=true``
(:func:`tests.conftest.need`). Screenshots go to ``build/screenshots/`` (ignored by git;
``REPROKG_SCREENSHOTS`` to override).
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.conftest import REPO, need

CHROMIUM = os.environ.get("REPROKG_CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS = Path(os.environ.get("REPROKG_SCREENSHOTS", REPO / "build" / "screenshots"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LOCAL_HOSTS = {"127.0.0.1", "localhost"}


@pytest.fixture(scope="session")
def demo_store(
    tmp_path_factory: pytest.TempPathFactory, demo_store_copy: Callable[[Path], Path]
) -> Iterator[Any]:
    """The demo data (every bundled example, evaluated and compared) in an embedded store: a
    copy of the session's one demo load (tests/service/conftest.py)."""
    from reprokg.service.demo import load_demo
    from reprokg.store import open_store

    # REPROKG_TEST_DEMO_STORE: a folder to keep the loaded demo in between local runs
    kept = os.environ.get("REPROKG_TEST_DEMO_STORE")
    if kept:
        path = Path(kept)
        loaded = (path / "oxigraph").is_dir()
        store = open_store(str(path))
        if not loaded:
            counts = load_demo(store)
            assert "rejected" not in counts and "unreadable" not in counts, counts
    else:
        store = open_store(str(demo_store_copy(tmp_path_factory.mktemp("web-demo") / "kg")))
    yield store
    store.close()


@pytest.fixture(scope="session")
def demo_app(demo_store: Any) -> Any:
    from reprokg.core.settings import Settings
    from reprokg.service.app import create_app

    settings = Settings(store=str(demo_store.path), demo=True, access_log=False)
    return create_app(settings, store=demo_store)


@pytest.fixture(scope="session")
def client(demo_app: Any) -> Iterator[Any]:
    from fastapi.testclient import TestClient

    with TestClient(demo_app) as c:
        yield c


# --------------------------------------------------------------------------- live server


class LiveServer:
    """uvicorn serving ``app`` in a daemon thread on 127.0.0.1:<free port>."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    def __enter__(self) -> LiveServer:
        start = time.monotonic()
        self.thread.start()
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() - start > 120:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.sock.close()


@pytest.fixture(scope="session")
def live(demo_app: Any, client: Any) -> Iterator[LiveServer]:
    with LiveServer(demo_app) as server:
        yield server


# --------------------------------------------------------------------------- browser


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for the whole session (Debian's, never a download)."""
    need(Path(CHROMIUM).exists(), f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        need(False, "Playwright for Python is not installed (pip install -e '.[test]')")
    pw = sync_playwright().start()
    try:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()
    finally:
        pw.stop()


@dataclass
class PageLog:
    """What went wrong while a page was open (each list should stay empty)."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    bad_responses: list[str] = field(default_factory=list)
    outside_requests: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        return [
            *(f"console: {m}" for m in self.console_errors),
            *(f"page error: {m}" for m in self.page_errors),
            *(f"request failed: {m}" for m in self.failed_requests),
            *(f"HTTP: {m}" for m in self.bad_responses),
            *(f"outside request (blocked): {m}" for m in self.outside_requests),
        ]


@pytest.fixture(params=[(1280, 900)], ids=["1280px"])
def viewport(request: pytest.FixtureRequest) -> tuple[int, int]:
    return request.param


@pytest.fixture
def page_and_log(browser: Any, viewport: tuple[int, int]) -> Iterator[tuple[Any, PageLog]]:
    """A fresh context and page recording console errors, page errors, failed requests,
    responses >= 400, and aborting (and recording) any request off the loopback host."""
    log = PageLog()
    context = browser.new_context(
        viewport={"width": viewport[0], "height": viewport[1]}, service_workers="block"
    )

    def guard(route: Any) -> None:
        host = urlsplit(route.request.url).hostname or ""
        if route.request.url.startswith(("data:", "blob:")) or host in LOCAL_HOSTS:
            route.continue_()
        else:
            log.outside_requests.append(route.request.url)
            route.abort()

    context.route("**/*", guard)
    page = context.new_page()
    page.set_default_timeout(60_000)

    def on_console(m: Any) -> None:
        if m.type == "error":
            log.console_errors.append(f"{m.text} @ {m.location.get('url', '')}")

    def on_response(r: Any) -> None:
        if r.status >= 400:
            log.bad_responses.append(f"{r.status} {r.request.method} {r.url}")

    page.on("console", on_console)
    page.on("pageerror", lambda e: log.page_errors.append(str(e)))

    def on_failed(r: Any) -> None:
        # net::ERR_ABORTED is Chromium cancelling a request the page no longer needs (the
        # favicon it fetches after load, when the test navigates on); a request this guard
        # aborts is recorded as an outside request, a CSP block has its own error
        if r.failure != "net::ERR_ABORTED":
            log.failed_requests.append(f"{r.url}: {r.failure}")

    page.on("requestfailed", on_failed)
    page.on("response", on_response)
    yield page, log
    context.close()


@pytest.fixture
def shot() -> Callable[[Any, str], Path]:
    """``shot(page, name)``: a full-page PNG under build/screenshots/ (a test artifact)."""

    def take(page: Any, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
