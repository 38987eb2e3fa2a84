"""Wiring the web interface into the service's app (see the package docstring)."""

from __future__ import annotations

import logging
import threading

from fastapi import FastAPI, Request
from fastapi.responses import Response

from reprokg.core.errors import ReprokgError

log = logging.getLogger("reprokg.service.web")


def install(app: FastAPI) -> None:
    from reprokg.service.web.assets import add_offline_docs, mount_assets
    from reprokg.service.web.routes import ROUTERS

    add_offline_docs(app)
    mount_assets(app)
    for router in ROUTERS:
        app.include_router(router)
    app.state.error_page = error_page


def wants_html(request: Request) -> bool:
    """A browser navigating (Accept names text/html), not an API client or a download."""
    accept = request.headers.get("accept", "")
    return "text/html" in accept and request.query_params.get("format") in (None, "", "html")


def error_page(request: Request, exc: ReprokgError) -> Response | None:
    """Our error as a page when a browser asked for HTML, else ``None`` (the API's JSON):
    the service's one error handler asks ``app.state.error_page`` first."""
    if not wants_html(request):
        return None
    from reprokg.service.web.render import error_page as render

    return render(request, exc)


def warm(app: FastAPI) -> threading.Thread:
    """Fill the caches the first visitors would wait for (home counts, papers index, the
    survey study) in a background thread, so the first pages answer like the others."""

    def run() -> None:
        from reprokg.service.web.render import cache
        from reprokg.service.web.routes.analyses import survey_summary
        from reprokg.service.web.routes.home import summary
        from reprokg.service.web.routes.papers import paper_index

        store = getattr(app.state, "read_store", None) or app.state.store
        try:
            summary(store)
            paper_index(store)
            cache.get(store, "survey-analysis", lambda: survey_summary(store))
        except Exception:
            log.exception("web: warming the caches failed")

    t = threading.Thread(target=run, name="reprokg-web-warm", daemon=True)
    t.start()
    return t
