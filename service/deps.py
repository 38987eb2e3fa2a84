"""Typed FastAPI dependencies (full-stack-fastapi-template style): ``StoreDep``, ``SettingsDep``.

The app keeps one store and one settings object on ``app.state``; routes receive them
through these annotations so a test app can swap either without patching modules.
"""

from __future__ import annotations

import secrets
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status

from reprokg.core.settings import Settings
from reprokg.store.base import Store

# The getters are ``async`` although they never await: FastAPI runs a sync dependency in
# its thread pool, two thread hops per named-query request for an attribute read.


async def get_settings(request: Request) -> Settings:
    return request.app.state.settings


async def get_store(request: Request) -> Store:
    return request.app.state.store


async def get_read_store(request: Request) -> Store:
    """The store to read from: an in-memory mirror when one was made, else the store."""
    return getattr(request.app.state, "read_store", None) or request.app.state.store


SettingsDep = Annotated[Settings, Depends(get_settings)]
StoreDep = Annotated[Store, Depends(get_store)]
#: read-only routes (named queries, linked data) use this: it may be the memory mirror
ReadStoreDep = Annotated[Store, Depends(get_read_store)]


def check_write_token(settings: Settings, authorization: str | None) -> None:
    """401 without a bearer token, 403 with a wrong one or when writing is off.

    With no token configured writing over HTTP is off (403) rather than open, so a
    service started without thinking about it cannot be written to by anyone.
    """
    if settings.read_only:
        raise HTTPException(
            status.HTTP_403_FORBIDDEN,
            "this service opened its store read-only (several workers); "
            "write with `reprokg load` or run one worker",
        )
    if not settings.write_token:
        raise HTTPException(
            status.HTTP_403_FORBIDDEN,
            "writing over HTTP is off: no write token configured "
            "(set REPROKG_WRITE_TOKEN or REPROKG_WRITE_TOKEN_FILE)",
        )
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            "writes need an Authorization: Bearer <token> header",
            headers={"WWW-Authenticate": 'Bearer realm="reprokg"'},
        )
    if not secrets.compare_digest(token.strip().encode(), settings.write_token.encode()):
        raise HTTPException(status.HTTP_403_FORBIDDEN, "wrong write token")


async def require_write_token(request: Request, settings: SettingsDep) -> None:
    """Dependency guarding every write route (no blocking call: runs on the loop)."""
    check_write_token(settings, request.headers.get("authorization"))


WriteAccess = Annotated[None, Depends(require_write_token)]
