"""Locked-down pages: the security headers every answer of the service carries.

An ASGI middleware (every route inherits it, new ones too) adds:

* ``Content-Security-Policy``: scripts, styles, images, fonts and fetches from this
  service only (``'self'``; images and fonts also as ``data:`` URIs, which the vendored
  Swagger UI and YASGUI stylesheets use); no inline script or style, no ``eval``, no
  plugins, no ``<base>``; forms post here only; and ``frame-ancestors 'none'``: no other
  site may frame a page (clickjacking). Every page's scripts are files under
  ``/static/`` (Swagger UI's start-up script too: ``/static/web/swagger-init.js``), so
  the policy needs no ``'unsafe-inline'`` and no nonce; the only inline styles allowed
  are YASGUI's two fixed ``<style>`` blocks, by hash (:data:`YASGUI_STYLE_HASHES`).
* ``X-Content-Type-Options: nosniff``: a browser takes the declared media type (a JSON
  answer or an uploaded original is never run as a script or page).
* ``Referrer-Policy: same-origin``: a link to another site does not carry our URL (with
  its query, which may hold a search).
* ``X-Frame-Options: DENY``: ``frame-ancestors`` for browsers that predate it.

Headers the route set itself are kept (a route may loosen or tighten its own page).
"""

from __future__ import annotations

from typing import Any

#: the two ``<style>`` elements the vendored YASGUI adds at run time (its results table's
#: column resizer, ``createStyle``: the grip rules when a table is made, and
#: ``*{cursor:col-resize!important}`` while a column is dragged), allowed by their
#: SHA-256 and nothing else; tests/service/web/test_lockdown.py recomputes them from
#: ``static/vendor/yasgui/yasgui.min.js`` (a refreshed bundle that changes them fails it)
YASGUI_STYLE_HASHES = (
    "'sha256-zCK2EVMoPc04mRF/g5CotUvxbJPWS+8V0b+s9ptqQIk='",
    "'sha256-c0O6TmFAkgpNbHxKAa1BrveWHHopjEtC47i0PzMudxg='",
)

#: the policy of every answer (see the module docstring)
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' " + " ".join(YASGUI_STYLE_HASHES),
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
)


class SecurityHeaders:
    """Add :data:`SECURITY_HEADERS` to every HTTP answer that does not set them."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                have = {name.lower() for name, _ in headers}
                headers += [(k, v) for k, v in SECURITY_HEADERS if k not in have]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
