"""Issue 38 (hostile input, round three): ``NaN``/``Infinity`` in a JSON body and IRIs the
store refuses are a 400 naming the field on every route, never a 500.

Before: Python's JSON decoder reads ``NaN`` and ``Infinity``; a body model that refused
one echoed it in FastAPI's 422, whose encoder then failed (a 500), and one that took it
(``scale_min``) computed with it. A NUL in an IRI passed the named-query check and the
store refused it (a 500).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from reprokg.core.settings import Settings
from reprokg.service.app import create_app
from reprokg.service.deps import add_error_handler
from reprokg.service.routes import disputes
from reprokg.store import open_store

TOKEN = "hostile-38"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FastAPI]:
    store = open_store(tmp_path_factory.mktemp("h38") / "kg")
    app = create_app(Settings(write_token=TOKEN, access_log=False, parse_workers=0), store=store)
    with TestClient(app):  # lifespan: the workers a route may need
        yield app
    store.close()


@pytest.fixture(scope="module")
def client(app: FastAPI) -> TestClient:
    return TestClient(app, raise_server_exceptions=False)


#: media types of a source file: an operation taking them takes uploads, not a request object
SOURCE_MEDIA = {"text/csv", "application/x-yaml", "text/x-trec-run"}


def _json_body_operations(app: FastAPI) -> list[tuple[str, str, list[str], bool]]:
    """Every operation of the OpenAPI schema that takes a JSON body: its body's top-level
    properties (none when the schema does not list them), and whether the body is a
    source file (an upload, parsed by a loader in a parse worker)."""
    spec = app.openapi()
    out = []
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            content = op.get("requestBody", {}).get("content", {})
            if "application/json" not in content:
                continue
            body = content["application/json"].get("schema", {})
            if "$ref" in body:
                name = body["$ref"].rsplit("/", 1)[-1]
                body = spec["components"]["schemas"][name]
            upload = bool(SOURCE_MEDIA & set(content))
            out.append((method.upper(), path, sorted(body.get("properties", {})), upload))
    return out


def _nan_bodies(fields: list[str]) -> list[str]:
    bodies = ["NaN", "[Infinity]", '{"x": -Infinity}']
    bodies += [f'{{"{f}": NaN}}' for f in fields]
    bodies += [f'{{"{f}": {{"k": [1, Infinity]}}}}' for f in fields]
    return bodies


def test_every_json_body_route_answers_nan_with_a_400(app: FastAPI, client: TestClient) -> None:
    """Each operation the schema gives a JSON body, with NaN/Infinity as the body, in each
    of its fields and nested in them: a 400 whose message names it (was 500 on
    /measures/qra, /measures/stability/compare and /cd, /disputes and /comparisons)."""
    operations = _json_body_operations(app)
    requests = {p for _, p, _, upload in operations if not upload}
    # the schema lists the routes the finding named (a renamed route must not hide one)
    assert {"/measures/qra", "/measures/stability/compare", "/measures/stability/cd"} <= requests
    assert {"/disputes", "/comparisons"} <= requests
    for method, path, fields, upload in operations:
        for body in _nan_bodies(fields):
            r = client.request(
                method,
                path,
                content=body,
                headers={**AUTH, "content-type": "application/json"},
            )
            what = (method, path, body, r.status_code, r.text[:300])
            detail = r.json()["detail"]
            if upload:  # a source file: its loader's answer (none takes a bare NaN), not a 500
                assert 400 <= r.status_code < 500 and detail["message"], what
                continue
            assert r.status_code == 400, what
            assert "NaN" in detail["message"] or "Infinity" in detail["message"], what


def test_a_nan_in_a_float_field_is_refused_not_computed(client: TestClient) -> None:
    """``scale_min`` is ``dict[str, float]``: pydantic takes NaN there, so without the
    app-wide check the assessment computed with it."""
    r = client.post("/measures/qra", json={"measures": ["ndcg"]} | {"scale_min": {"": 0.0}})
    assert r.status_code == 200, r.text[:300]  # the same request with a finite minimum
    r = client.post(
        "/measures/qra",
        content='{"measures": ["ndcg"], "scale_min": {"": NaN}}',
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 400
    assert r.json()["detail"]["field"] == "scale_min."


def test_a_validation_error_echoing_nan_is_a_422_not_a_500() -> None:
    """A router mounted on an app of its own (without the service's app-wide check): the
    error handler still answers FastAPI's 422 with the input as text, not a 500."""
    app = FastAPI()
    add_error_handler(app)
    app.state.settings = Settings(write_token=TOKEN)
    app.state.store = None  # never reached: the body is refused first
    app.include_router(disputes.router)
    r = TestClient(app, raise_server_exceptions=False).post(
        "/disputes",
        content='{"assessment": NaN, "reason": "r", "by": "b"}',
        headers={**AUTH, "content-type": "application/json"},
    )
    assert r.status_code == 422, r.text[:300]
    (error,) = r.json()["detail"]
    assert error["loc"] == ["body", "assessment"] and error["input"] == "NaN"


# --------------------------------------------------------------------------- IRIs
#: what the store's IRI parser refuses (pyoxigraph, RFC 3987): a NUL, a space, an angle
#: bracket, a relative reference
BAD_IRIS = [
    "https://example.org/a\x00b",
    "https://example.org/a b",
    "https://example.org/<a>",
    "assessment/0123",
]
IRI_IDS = ["nul", "space", "angle", "relative"]
COMPARISON_REFS = ["qrels", "orig_base", "rep_base", "orig_adv", "rep_adv", "qrels_rpl"]


def _assert_400(r: Any, field: str | None = None) -> None:
    assert r.status_code == 400, (r.status_code, r.text[:300])
    detail = r.json()["detail"]
    assert detail["message"]
    if field is not None:
        assert detail["field"] == field, detail


@pytest.mark.parametrize("iri", BAD_IRIS, ids=IRI_IDS)
def test_a_dispute_of_an_iri_the_store_refuses_is_a_400(client: TestClient, iri: str) -> None:
    """Was a 500 for the NUL (the named-query IRI pattern let it through)."""
    body = {"assessment": iri, "reason": "the runs differ", "by": "A. Reviewer"}
    _assert_400(client.post("/disputes", json=body, headers=AUTH), "assessment")


@pytest.mark.parametrize("iri", BAD_IRIS, ids=IRI_IDS)
@pytest.mark.parametrize("field", COMPARISON_REFS)
def test_a_comparison_input_the_store_refuses_is_a_400(
    client: TestClient, field: str, iri: str
) -> None:
    """Every document reference of ``POST /comparisons`` (was a 500: the store refused
    the IRI when the document was looked up)."""
    body = {f: "0" * 64 for f in ("qrels", "orig_base", "rep_base")} | {field: iri}
    _assert_400(client.post("/comparisons", json=body, headers=AUTH), field)


@pytest.mark.parametrize("value", [["a"], {"a": 1}, 5, True], ids=["list", "object", "int", "bool"])
def test_a_comparison_input_that_is_not_a_string_is_a_400(client: TestClient, value: Any) -> None:
    body = {f: "0" * 64 for f in ("qrels", "orig_base", "rep_base")} | {"orig_base": value}
    _assert_400(client.post("/comparisons", json=body, headers=AUTH), "orig_base")


@pytest.mark.parametrize("iri", BAD_IRIS[:3], ids=IRI_IDS[:3])
def test_a_paper_iri_the_store_refuses_is_a_400(client: TestClient, iri: str) -> None:
    """``paper`` of ``/measures/qra`` (GET and POST; was a 500 for the NUL)."""
    _assert_400(client.get("/measures/qra", params={"paper": iri}))
    _assert_400(client.post("/measures/qra", json={"paper": iri}))


@pytest.mark.parametrize(
    "iri", [*BAD_IRIS, "https://example.org/a\x01b", "https://example.org/%zz", "http://[x/"]
)
def test_an_iri_parameter_of_a_named_query_the_store_refuses_is_a_400(
    client: TestClient, iri: str
) -> None:
    """A named query's ``iri`` parameter (``experiment`` of discarded-features) and the
    paper crate's ``iri=``: was a 500 (``named query failed``) for a control character, a
    bad %-escape or host, which the pattern let through and the engine refused."""
    _assert_400(client.get("/queries/discarded-features", params={"experiment": iri}))
    r = client.get("/paper/crate", params={"iri": iri})
    _assert_400(r)
    assert "parameter 'iri'" in r.json()["detail"]["message"]
