"""One error tree, mapped once: every ReprokgError a route raises answers its own status
with ``{"detail": {"error", "message", ...}}``; the CLI prints one line and its exit code."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from reprokg.cli import main
from reprokg.core import errors
from reprokg.core.settings import Settings
from reprokg.service.app import create_app
from reprokg.service.deps import add_error_handler
from reprokg.store import open_store

CASES = [
    (errors.LoadError("bad", source="x.yaml", line=3, field="actor.orcid"), 400),
    (errors.UnsupportedInput("binary", source="x.bin"), 415),
    (errors.TooLarge("too big", details={"limit": 10}), 413),
    (errors.NotFound("no such thing"), 404),
    (errors.NotAcceptable("no format", available=["text/csv"]), 406),
    (errors.Unauthorized("token", headers={"WWW-Authenticate": "Bearer"}), 401),
    (errors.Forbidden("wrong token"), 403),
    (errors.Refused("SERVICE is not allowed"), 400),
    (errors.QuerySyntaxError("bad query"), 400),
    (errors.UpdateRefused("writes the default graph"), 400),
    (errors.QueryTimeout("stopped"), 503),
    (errors.Busy("busy", headers={"Retry-After": "1"}), 503),
    (errors.StoreError("engine down"), 500),
    (errors.ValidationFailed([]), 422),
]


@pytest.mark.parametrize(("error", "status"), CASES, ids=lambda c: type(c).__name__)
def test_each_error_answers_its_status(error: errors.ReprokgError, status: int) -> None:
    app = FastAPI()
    add_error_handler(app)

    @app.get("/boom")
    def boom() -> None:
        raise error

    r = TestClient(app).get("/boom")
    assert r.status_code == status == error.http_status
    detail = r.json()["detail"]
    assert detail["error"] == type(error).__name__ and detail["message"] == error.message
    for header, value in error.headers.items():
        assert r.headers[header] == value
    if isinstance(error, errors.LoadError) and error.line is not None:
        assert (detail["source"], detail["line"], detail["field"]) == ("x.yaml", 3, "actor.orcid")


def test_every_user_facing_error_is_in_the_tree() -> None:
    """Every exception class of our modules that a user can see derives from ReprokgError."""
    from reprokg.service.routes.sparql import ProtocolError
    from reprokg.sparql.named import NamedQueryError, UnknownNamedQuery

    for cls in (ProtocolError, NamedQueryError, UnknownNamedQuery, errors.IdentifierError):
        assert issubclass(cls, errors.ReprokgError)
    assert UnknownNamedQuery("x").http_status == 404 and NamedQueryError("x").http_status == 400
    assert errors.StoreError.exit_code == 2 and errors.ValidationFailed.exit_code == 1


@pytest.mark.slow
def test_the_service_maps_store_errors(tmp_path: Path) -> None:
    store = open_store(tmp_path / "kg")
    client = TestClient(create_app(Settings(access_log=False), store=store))
    r = client.get("/queries/no-such-query")
    assert r.status_code == 404 and r.json()["detail"]["error"] == "UnknownNamedQuery"
    r = client.post("/documents", content=b"x")
    assert r.status_code == 403 and r.json()["detail"]["error"] == "Forbidden"
    # the SPARQL Protocol endpoint answers the same errors as plain text
    r = client.get("/sparql", params={"query": "SELECT * { SERVICE <http://e/> { ?s ?p ?o } }"})
    assert r.status_code == 400 and r.headers["content-type"].startswith("text/plain")
    assert "SERVICE" in r.text


def _cli(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(list(argv))
    return code, err.getvalue()


def test_the_cli_maps_errors_once(tmp_path: Path) -> None:
    code, err = _cli("query", "--store", str(tmp_path / "none"), "--read-only", "ASK {}")
    assert code == 2 and err.count("\n") == 1 and err.startswith("reprokg query: no store at")
    bad = tmp_path / "bad.yaml"
    bad.write_text("a: [1, 2\n", encoding="utf-8")
    code, err = _cli("validate", "--kind", "audit", str(bad))
    assert code == 2  # unreadable input: the report holds the LoadError
    code, err = _cli("query", "--store", str(tmp_path / "kg"), "SELECT * {")
    assert code == 2 and err.startswith("reprokg query: ") and err.count("\n") == 1
