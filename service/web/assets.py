"""Templates, static files, the vendored browser assets and the offline API docs.

Everything a page loads comes from this service: our stylesheet and two small scripts
under ``/static/web/``, the npm bundles (YASGUI, Swagger UI) under ``/static/vendor/``,
written by ``refresh_vendor.sh`` with ``VERSIONS.json`` and ``SHA256SUMS`` beside them
(tests/service/web/test_assets.py checks the files against the manifest).
"""

from __future__ import annotations

import html
import json
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from reprokg import __version__

#: the package folder (templates, static, queries are package data next to this module)
WEB_DIR = Path(str(resources.files("reprokg.service.web")))
STATIC_DIR = WEB_DIR / "static"
VENDOR_DIR = STATIC_DIR / "vendor"

#: the views in the header, in order (path, label)
NAV: list[tuple[str, str]] = [
    ("/papers", "Papers"),
    ("/evidence", "Evidence"),
    ("/sources", "Sources"),
    ("/leaderboards", "Leaderboards"),
    ("/runs", "Runs"),
    ("/comparisons", "Comparisons"),
    ("/studies", "Studies"),
    ("/stability", "Stability"),
    ("/intrinsic-dimension", "Intrinsic dimension"),
    ("/query", "Query"),
    ("/validate", "Validate"),
]


#: /docs: Swagger UI from the vendored bundle, started by a script file (no inline script)
SWAGGER_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="{css}">
<link rel="icon" href="{icon}">
<title>{title}</title>
</head>
<body>
<div id="swagger-ui" data-openapi="{openapi}"></div>
<script src="{bundle}"></script>
<script src="{init}"></script>
</body>
</html>
"""


def static_url(path: str) -> str:
    return "/static/web/" + path


def vendor_url(path: str) -> str:
    return "/static/vendor/" + path


def vendor_manifest() -> dict[str, Any]:
    """``static/vendor/VERSIONS.json``: npm package, version, license and file hashes."""
    return json.loads((VENDOR_DIR / "VERSIONS.json").read_text(encoding="utf-8"))


def make_templates() -> Jinja2Templates:
    """The Jinja2 environment: autoescaped HTML, the URL helpers and the navigation."""
    templates = Jinja2Templates(directory=str(WEB_DIR / "templates"))
    env = templates.env
    env.globals.update(static_url=static_url, vendor_url=vendor_url, nav=NAV, version=__version__)
    env.trim_blocks = True
    env.lstrip_blocks = True
    return templates


def mount_assets(app: FastAPI) -> None:
    """``/static/web`` (our CSS and scripts) and ``/static/vendor`` (the npm bundles)."""
    app.mount("/static/vendor", StaticFiles(directory=VENDOR_DIR), name="web-vendor")
    app.mount("/static/web", StaticFiles(directory=STATIC_DIR), name="web-static")


def add_offline_docs(app: FastAPI) -> None:
    """Swagger UI at ``/docs`` from the vendored files; ``/redoc`` redirects there.

    The app is created with ``docs_url=None, redoc_url=None`` so FastAPI's CDN pages are
    not registered. FastAPI's own page starts Swagger UI with an inline script, which the
    service's Content-Security-Policy refuses (service/headers.py); this page loads
    ``/static/web/swagger-init.js`` instead, with the same options (``validatorUrl:
    null`` keeps Swagger UI from calling validator.swagger.io). ReDoc is not offered:
    redoc 2.5.x always loads its logo from a CDN, which no option turns off.
    """
    openapi_url = app.openapi_url or "/openapi.json"
    page = SWAGGER_PAGE.format(
        title=html.escape(f"{app.title} — API"),
        css=vendor_url("swagger-ui/swagger-ui.css"),
        icon=vendor_url("swagger-ui/favicon-32x32.png"),
        openapi=html.escape(openapi_url),
        bundle=vendor_url("swagger-ui/swagger-ui-bundle.js"),
        init=static_url("swagger-init.js"),
    )

    @app.get("/docs", include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        return HTMLResponse(page)

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> RedirectResponse:
        return RedirectResponse("/docs", status_code=307)
