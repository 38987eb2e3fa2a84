"""``POST /shacl``: shapes and data uploaded, validated by reprokg's engine in the parse
workers, reported as JSON, Turtle or text; no token; the service's limits apply."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from rdflib import Graph
from rdflib.namespace import SH

from benchmarks.validation import w3c
from reprokg.core.settings import Settings
from reprokg.service.app import create_app
from reprokg.store import open_store

pytestmark = pytest.mark.skipif(not w3c.SUITE.is_dir(), reason="the W3C SHACL suite is absent")

SHAPES = w3c.SUITE / "core" / "node" / "qualified-001-shapes.ttl"
DATA = w3c.SUITE / "core" / "node" / "qualified-001-data.ttl"


@pytest.fixture(params=[0, 1], ids=["in-thread", "shacl-worker"])
def client(request, tmp_path):
    store = open_store(":memory:", blob_dir=tmp_path / "blobs")
    settings = Settings(
        write_token="secret",
        access_log=False,
        parse_workers=request.param,
        shacl_workers=request.param,
    )
    with TestClient(create_app(settings, store=store)) as c:
        yield c
    store.close()


def _files(shapes=SHAPES, *data) -> list:
    data = data or (DATA,)
    return [("shapes", (shapes.name, shapes.read_bytes()))] + [
        ("data", (d.name, d.read_bytes())) for d in data
    ]


def test_json_report_without_a_token(client) -> None:
    r = client.post("/shacl", files=_files())
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["conforms"] is False
    (result,) = body["reports"][0]["results"]
    assert result["constraint"] == str(SH.ClassConstraintComponent)
    assert result["focus_node"] == "http://example.org/shacl-test/i"


def test_turtle_report_matches_the_suite(client) -> None:
    r = client.post("/shacl", files=_files(), headers={"Accept": "text/turtle"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/turtle")
    test = next(t for t in w3c.tests("core") if t.id == "core/node/qualified-001")
    report = Graph().parse(data=r.text, format="turtle")
    assert w3c.same_report(report, test.expected()), w3c.difference(report, test.expected())


def test_text_report(client) -> None:
    r = client.post("/shacl", files=_files(), headers={"Accept": "text/plain"})
    assert r.status_code == 200 and "does not conform" in r.text


def test_missing_parts_and_bad_shapes(client) -> None:
    r = client.post("/shacl", files=[("shapes", ("s.ttl", SHAPES.read_bytes()))])
    assert r.status_code == 400 and "'data' file" in r.text
    bad = w3c.SUITE / "sparql" / "pre-binding" / "unsupported-sparql-002.ttl"
    r = client.post("/shacl", files=_files(bad, bad))
    assert r.status_code == 422, r.text
    r = client.post(
        "/shacl", files=[("shapes", ("s.ttl", b"not turtle <")), ("data", ("d.ttl", b""))]
    )
    assert r.status_code == 400 and "s.ttl" in r.text


def test_the_body_limit_applies(tmp_path) -> None:
    store = open_store(":memory:", blob_dir=tmp_path / "blobs")
    # the two files hold 403 bytes
    settings = Settings(access_log=False, parse_workers=0, max_body_bytes=200)
    with TestClient(create_app(settings, store=store)) as c:
        r = c.post("/shacl", files=_files())
        assert r.status_code == 413
    store.close()


@pytest.mark.parametrize(
    ("form", "query"),
    [
        ("select", "SELECT $this FROM <http://example.org/g> WHERE { $this ?p ?o }"),
        ("select", "SELECT $this WHERE { $this ?p ?o } ; LOAD <http://example.org/x>"),
        ("select", "SELECT $this WHERE { $this ?p ?o . ?x }"),
        ("ask", "ASK { $value ?p ?o } ; LOAD <http://example.org/x>"),
        ("ask", "ASK FROM <http://example.org/g> { $value ?p ?o }"),
    ],
    ids=["select-from", "select-load", "select-syntax", "ask-load", "ask-from"],
)
def test_sparql_the_engine_must_not_run_is_a_422_naming_the_shape(client, form, query) -> None:
    """Issue 38: on main the engine's SyntaxError escaped as a 500 (SERVICE was a 422)."""
    from tests.validation.test_shacl_costs import ask_shapes, cycle, select_shapes

    shapes = select_shapes(query) if form == "select" else ask_shapes(query)
    r = client.post("/shacl", files=[("shapes", ("s.ttl", shapes)), ("data", ("d.ttl", cycle(3)))])
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert detail["error"] == "ShapesError" and "shape http://example.org/S" in detail["message"]


def test_a_costly_shape_is_a_422_naming_the_limit(client) -> None:
    from tests.validation.test_shacl_costs import PREFIXES, cycle

    shapes = (
        PREFIXES + "ex:S a sh:NodeShape ; sh:targetSubjectsOf ex:p ;\n"
        "  sh:property [ sh:path [ sh:zeroOrMorePath ex:p ] ; sh:minCount 1 ] .\n"
    ).encode()
    r = client.post(
        "/shacl", files=[("shapes", ("s.ttl", shapes)), ("data", ("d.ttl", cycle(3_000)))]
    )
    assert r.status_code == 422, r.text
    assert r.json()["detail"]["limit"] == "shacl_max_path_cost"
