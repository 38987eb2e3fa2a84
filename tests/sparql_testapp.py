"""A tiny FastAPI app around the /sparql router, on an embedded store in a temp dir.

The SPARQL tests build this instead of the full service so they exercise the router's
own contract (explicit dependencies), the way another app would mount it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fastapi import FastAPI

from reprokg.service.deps import add_error_handler
from reprokg.service.routes.sparql import SparqlLimits, sparql_router
from reprokg.store.base import Store

TOKEN = "s3cret-test-token"


def open_test_store(path: Path) -> Store:
    """The embedded pyoxigraph store of the store engineer's backend."""
    from reprokg.store import open_store

    return open_store(str(path))


@dataclass
class SparqlApp:
    app: FastAPI
    store: Store
    router: object

    def close(self) -> None:
        self.router.sparql_runner.close()  # type: ignore[attr-defined]
        self.store.close()


def make_app(
    store_dir: Path,
    *,
    token: str | None = TOKEN,
    timeout: float = 10.0,
    row_cap: int = 10_000,
    max_body_bytes: int = 1024 * 1024,
    load_allowlist: tuple[str, ...] = (),
    workers: int = 2,
) -> SparqlApp:
    store = open_test_store(store_dir)
    limits = SparqlLimits(
        query_timeout=timeout,
        row_cap=row_cap,
        max_body_bytes=max_body_bytes,
        write_token=token,
        load_allowlist=load_allowlist,
    )
    router = sparql_router(get_store=lambda: store, settings=limits, workers=workers)
    app = FastAPI()
    add_error_handler(app)
    app.include_router(router)
    return SparqlApp(app, store, router)
