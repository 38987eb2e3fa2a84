"""``/health``: is the store reachable, how many documents, which version, which worker."""

from __future__ import annotations

import os

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from reprokg import __version__
from reprokg.service.deps import SettingsDep, StoreDep

router = APIRouter(tags=["service"])


@router.get(
    "/health",
    summary="Service health: store reachable, document count, version",
    responses={
        503: {"description": "the store is unreachable", "content": {"application/json": {}}}
    },
)
def health(store: StoreDep, settings: SettingsDep) -> JSONResponse:
    body: dict[str, object] = {
        "version": __version__,
        "demo": settings.demo,
        "read_only": settings.read_only,
        "writes_enabled": bool(settings.write_token) and not settings.read_only,
        "worker_pid": os.getpid(),  # which of several worker processes answered
    }
    try:
        body["documents"] = len(store.documents())
    except Exception as exc:  # any backend failure means "not reachable"
        body.update(status="unavailable", store="unreachable", error=str(exc))
        return JSONResponse(body, status_code=503)
    body.update(status="ok", store="reachable")
    return JSONResponse(body)
