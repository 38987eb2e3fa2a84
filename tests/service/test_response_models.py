"""Every route of the HTTP API says what it answers: a ``response_model`` (the JSON's shape,
in the OpenAPI document) or, for a body that is not one JSON shape, an explicit
``response_class`` listed below with the reason. The HTML pages of ``service/web`` are
no API (left out of the OpenAPI document); their JSON variants are held to the same rule.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import APIRouter, FastAPI
from fastapi.datastructures import DefaultPlaceholder
from fastapi.routing import APIRoute, iter_route_contexts

from reprokg.service.app import create_app
from reprokg.store import open_store

#: the routes answering something other than one JSON shape, and why
NOT_JSON = {
    "GET /alerts": "contradictions as JSON or an Atom feed, as asked (format= or Accept)",
    "GET /sparql": "SPARQL results in the negotiated format (JSON, XML, CSV, TSV, Turtle…)",
    "POST /sparql": "SPARQL results or an update's answer, in the negotiated format",
    "GET /sparql/": "/sparql with a trailing slash (not in the OpenAPI document)",
    "POST /sparql/": "/sparql with a trailing slash (not in the OpenAPI document)",
    "GET /queries/{name}": "SPARQL JSON results or CSV, as asked",
    "GET /documents/{doc_id}": "the document as RDF (by Accept) or its original file",
    "DELETE /documents/{doc_id}": "204, no body",
    "GET /documents/{doc_id}/crate": "an RO-Crate (ZIP or JSON-LD)",
    "GET /paper/crate": "an RO-Crate (ZIP or JSON-LD)",
    "GET /id/{path:path}": "the resource's description as RDF or HTML (by Accept)",
    "GET /measures/survey/charts/{name}": "an SVG or PNG chart",
    "GET /measures/stability/chart.{fmt}": "an SVG or PNG chart",
    "GET /measures/stability/cd.svg": "an SVG diagram",
    "GET /comparisons": "the comparisons page (HTML, in the OpenAPI document)",
    "GET /validate": "the validation form (HTML, in the OpenAPI document)",
}

#: JSON routes whose model is a bare object for now, and why
LOOSE = {
    "GET /measures/studies": "each study describes itself (the study contract is untyped)",
    "GET /measures/studies/{name}": "a study's result (the study contract is untyped)",
    "GET /measures/survey": "the survey study's result (untyped study contract)",
    "GET /query/prefixes.json": "prefix -> namespace IRI, any prefixes",
}


@functools.cache
def _app() -> FastAPI:
    return create_app(store=open_store(":memory:"))


def _api_routes(routes: list[Any]) -> Iterator[tuple[str, APIRoute]]:
    """(``METHOD path``, route) of every route of the API: those of ``service/routes`` and
    every route in the OpenAPI document (not the HTML pages of ``service/web``)."""
    for ctx in iter_route_contexts(routes):
        route = ctx.original_route
        if not isinstance(route, APIRoute):
            continue
        api = route.endpoint.__module__.startswith("reprokg.service.routes")
        if api or route.include_in_schema or route.path.endswith(".json"):
            for method in sorted(route.methods):
                yield f"{method} {ctx.path}", route


def _says_nothing(model: Any) -> bool:
    """``dict``, ``dict[str, Any]``, ``list``, ``Any``: what FastAPI infers from ``-> dict``."""
    return model in (dict, list, Any) or str(model).startswith(("dict[", "typing.Any"))


def _undeclared(routes: list[Any]) -> dict[str, str]:
    """What is wrong with each route that does not say what it answers."""
    bad = {}
    for name, route in _api_routes(routes):
        explicit_class = not isinstance(route.response_class, DefaultPlaceholder)
        model = route.response_model
        if model is None and not explicit_class:
            bad[name] = "neither a response_model nor a response_class"
        elif model is None and name not in NOT_JSON:
            bad[name] = "a response_class with no reason in NOT_JSON"
        elif _says_nothing(model) and name not in LOOSE:
            bad[name] = f"a response_model that says nothing ({model})"
    return bad


def test_every_api_route_declares_what_it_answers() -> None:
    assert _undeclared(_app().routes) == {}


def test_the_lists_name_only_routes_that_exist() -> None:
    names = {name for name, _ in _api_routes(_app().routes)}
    assert set(NOT_JSON) - names == set()
    assert set(LOOSE) - names == set()


@pytest.mark.parametrize(
    ("returns", "kwargs", "why"),
    [
        (dict, {}, "a response_model that says nothing"),
        (Any, {"response_model": None}, "neither a response_model nor a response_class"),
    ],
)
def test_the_check_fails_on_a_route_that_does_not_say(
    returns: Any, kwargs: dict[str, Any], why: str
) -> None:
    """A bare ``-> dict`` route (FastAPI infers ``dict``) and one with no model at all."""
    router = APIRouter()

    def handler() -> Any:
        return {}

    handler.__annotations__["return"] = returns
    handler.__module__ = "reprokg.service.routes.example"
    router.add_api_route("/example", handler, methods=["GET"], **kwargs)
    app = FastAPI()
    app.include_router(router)
    bad = _undeclared(app.routes)
    assert list(bad) == ["GET /example"]
    assert bad["GET /example"].startswith(why)


def test_a_typed_dict_answer_is_filtered_to_its_shape() -> None:
    """A ``TypedDict`` response model drops keys it does not declare (the answer is the
    declared shape, as a pydantic model's was)."""
    from fastapi.testclient import TestClient

    from reprokg.stability.shapes import StudyJSON

    app = FastAPI()

    @app.get("/s", response_model=StudyJSON)
    def s() -> Any:
        return {
            "study": "https://example.org/s",
            "id": "s",
            "title": None,
            "illustrative": False,
            "documents": [],
            "internal": 1,
        }

    assert TestClient(app).get("/s").json() == {
        "study": "https://example.org/s",
        "id": "s",
        "title": None,
        "illustrative": False,
        "documents": [],
    }
