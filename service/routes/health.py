"""``/health``: is the store reachable, how many documents, which version, which worker.

Liveness never scans the store: a store with the :class:`~reprokg.store.base.Liveness`
capability answers a point lookup (embedded) or ``ASK {}`` (remote), and the document count
comes from the figures a :class:`~reprokg.store.base.Counters` store keeps as it writes
(``documents`` is ``null`` for a store that keeps none). At 10M triples counting the
documents took longer than an orchestrator's liveness probe waits
(benchmarks/README.md#figures-once-quoted-in-code). A store with neither capability (tests'
stand-ins) is asked for its document list.

The check runs in a thread of its own small pool (:data:`LIVENESS_THREADS` threads), not in the
shared one: 45 parallel SPARQL requests each held a shared thread while waiting for a
query worker, and ``/health`` waited behind them, past any probe's patience.
"""

from __future__ import annotations

import os
from typing import Literal, NotRequired

import anyio
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from typing_extensions import TypedDict

from reprokg import __version__
from reprokg.service.deps import SettingsDep, StoreDep
from reprokg.service.shapes import describe
from reprokg.store.base import Counters, Liveness

router = APIRouter(tags=["service"])

#: threads kept for liveness checks, apart from the pool every other route shares
LIVENESS_THREADS = 2


class Health(TypedDict):
    """The service's state; on a 503 ``status`` is ``unavailable`` with the ``error``."""

    version: str
    demo: bool
    read_only: bool
    writes_enabled: bool
    "a write token is set and the store is writable"
    worker_pid: int
    "which of several worker processes answered"
    documents: NotRequired[int | None]
    "null: this store keeps no count (never counted here)"
    store_version: NotRequired[int]
    "changes with every committed write"
    status: Literal["ok", "unavailable"]
    store: Literal["reachable", "unreachable"]
    error: NotRequired[str]


describe(Health)


@router.get(
    "/health",
    summary="Service health: store reachable, document count, version",
    response_model=Health,
    responses={503: {"description": "the store is unreachable", "model": Health}},
)
async def health(request: Request, store: StoreDep, settings: SettingsDep) -> JSONResponse:
    state = request.app.state
    limiter = getattr(state, "liveness_threads", None)
    if limiter is None:  # made on the app's event loop, once
        limiter = state.liveness_threads = anyio.CapacityLimiter(LIVENESS_THREADS)
    return await anyio.to_thread.run_sync(_health, store, settings, limiter=limiter)


def _health(store: StoreDep, settings: SettingsDep) -> JSONResponse:
    body: dict[str, object] = {
        "version": __version__,
        "demo": settings.demo,
        "read_only": settings.read_only,
        "writes_enabled": bool(settings.write_token) and not settings.read_only,
        "worker_pid": os.getpid(),
    }
    try:
        if isinstance(store, Liveness):
            store.ping()
        if isinstance(store, Counters):
            body["documents"] = store.document_count()
            body["store_version"] = store.version()
        elif isinstance(store, Liveness):
            body["documents"] = None  # not kept by this store; never counted here
        else:
            body["documents"] = len(store.documents())
    except Exception as exc:  # noqa: BLE001 - any backend failure: "not reachable"
        body.update(status="unavailable", store="unreachable", error=str(exc))
        return JSONResponse(body, status_code=503)
    body.update(status="ok", store="reachable")
    return JSONResponse(body)
