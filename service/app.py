"""The FastAPI application: ``create_app(settings)`` wires store, routes and middleware.

One store per process, opened at start-up and kept on ``app.state``; every route gets it
through :mod:`reprokg.service.deps`. Under several uvicorn workers each worker builds its
own app from the environment (:func:`app_from_env`) and opens the store read-only.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI

from reprokg import __version__
from reprokg.core.pool import preload
from reprokg.core.settings import Settings
from reprokg.core.settings import settings as process_settings
from reprokg.service.analysis import Analyses
from reprokg.service.deps import add_error_handler, check_write_token, finite_json_body
from reprokg.service.headers import SecurityHeaders
from reprokg.service.limits import BodyLimitMiddleware, UploadSlots
from reprokg.service.logs import AccessLogMiddleware, RequestIdMiddleware, configure_access_log
from reprokg.service.parsing import PRELOAD, ParsePool
from reprokg.service.routes import (
    alerts,
    comparisons,
    disputes,
    documents,
    exchange,
    health,
    intrinsic_dimension,
    linked_data,
    qra,
    queries,
    shacl,
    stability,
    studies,
    survey,
)
from reprokg.service.routes.sparql import sparql_router
from reprokg.service.web import install as web
from reprokg.store.base import InMemoryCopy, Store

log = logging.getLogger("reprokg.service")


def open_service_store(settings: Settings) -> Store:
    from reprokg.store import open_store

    return open_store(settings.store, read_only=settings.read_only)


def memory_mirror(store: Store) -> Store | None:
    """An in-memory copy of a store opened read-only (``None`` when it cannot copy itself):
    a read-only store cannot change, so a copy taken at start stays exact."""
    if not isinstance(store, InMemoryCopy) or not store.read_only:
        return None
    return store.in_memory_copy()


def _mount_sparql(app: FastAPI, settings: Settings) -> None:
    """Mount the SPARQL 1.1 Protocol router (``/sparql``).

    Its query runner (worker processes with a real time limit for an on-disk store) is
    shared with the named queries through ``app.state.query_runner``.
    """
    router = sparql_router(
        get_store=lambda: app.state.store,
        settings=settings,
        check_write=lambda authorization: check_write_token(settings, authorization),
    )
    app.include_router(router)
    # set on the router by sparql_router()
    app.state.query_runner = router.sparql_runner  # type: ignore[attr-defined]


def create_app(settings: Settings | None = None, *, store: Store | None = None) -> FastAPI:
    """Build the service; ``store`` overrides opening ``settings.store`` (tests, demo)."""
    settings = settings or process_settings()
    owns_store = store is None
    lifespans, lifespans_lock = [0], threading.Lock()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        def start_workers() -> None:
            # the query workers and the upload parsers start now, not on the first request
            # (most of a process start), but beside serving: the service answers (/health,
            # pages) while they come up, and a request needing them waits for them
            # (serve --demo is ready sooner: benchmarks/README.md#figures-once-quoted-in-code)
            if app.state.query_runner is not None:
                with contextlib.suppress(Exception):  # an error surfaces on the first query
                    app.state.query_runner.get()
            with contextlib.suppress(Exception):
                app.state.parse_pool.start()

        # a lifespan may run more than once per app, one after another (a test client per
        # request) or at once (the app in two servers): the workers open with the first
        # and close with the last one still running
        with lifespans_lock:
            lifespans[0] += 1
            app.state.parse_pool.open()
            app.state.analyses.open()
        starting = threading.Thread(target=start_workers, name="reprokg-workers", daemon=True)
        starting.start()
        web.warm(app)
        yield
        starting.join(timeout=60)
        with lifespans_lock:
            lifespans[0] -= 1
            if lifespans[0]:
                return
        runner = getattr(app.state, "query_runner", None)
        if runner is not None:
            runner.close()
        app.state.parse_pool.close()
        app.state.analyses.close()
        if owns_store:
            app.state.store.close()

    app = FastAPI(
        title="reprokg",
        version=__version__,
        summary="A reproducibility knowledge graph: PRIMAD run metadata, audits and surveys "
        "as validated RDF, with named queries, linked-data IRIs and a SPARQL 1.1 endpoint.",
        lifespan=lifespan,
        # the API docs are served offline by the web package (vendored Swagger UI)
        docs_url=None,
        redoc_url=None,
        # a JSON body with NaN or Infinity (Python's decoder reads them; JSON has none) is a
        # 400 naming the field on every route, before a body model sees it
        dependencies=[Depends(finite_json_body)],
    )
    app.state.settings = settings
    app.state.query_runner = None
    # worker processes fork from one forkserver: have it import what both kinds need once
    preload(*PRELOAD, "pyoxigraph", "reprokg.sparql.runner")
    app.state.parse_pool = ParsePool(settings)
    app.state.analyses = Analyses(settings)  # /measures/... computes in its workers
    weakref.finalize(app, app.state.analyses.close)
    # an app dropped without its lifespan ending (tests) still stops its parse workers
    weakref.finalize(app, app.state.parse_pool.close)
    app.state.store = store if store is not None else open_service_store(settings)
    app.state.read_store = None
    if settings.memory_mirror and settings.read_only:
        app.state.read_store = memory_mirror(app.state.store)

    add_error_handler(app)
    app.include_router(health.router)
    app.include_router(exchange.router)
    app.include_router(documents.router)
    app.include_router(shacl.router)
    app.include_router(queries.router)
    app.include_router(linked_data.router)
    app.include_router(comparisons.router)
    app.include_router(disputes.router)
    app.include_router(alerts.router)
    app.include_router(survey.router)
    app.include_router(stability.router)
    app.include_router(qra.router)
    app.include_router(studies.router)
    app.include_router(intrinsic_dimension.router)
    _mount_sparql(app, settings)
    web.install(app)  # the views (/ , /papers, …), static files, offline /docs

    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)
    app.add_middleware(
        UploadSlots,
        max_uploads=settings.max_uploads,
        max_per_client=settings.max_uploads_per_client,
    )
    if settings.access_log:
        configure_access_log(True)
        app.add_middleware(AccessLogMiddleware)
    # every request gets an id, and no exception leaves the app as a bare 500
    app.add_middleware(RequestIdMiddleware)
    # around everything, so every answer (a 413, a 429, a 500 too) carries them: CSP,
    # nosniff, frame-ancestors, Referrer-Policy (service/headers.py)
    app.add_middleware(SecurityHeaders)
    return app


def app_from_env() -> FastAPI:
    """Factory for ``uvicorn --factory`` worker processes: settings from the environment."""
    return create_app(process_settings())
