"""The /sparql router beyond the W3C suite: security, limits, negotiation, dataset semantics."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from rdflib import Graph, Literal, URIRef

from tests.sparql_testapp import TOKEN, SparqlApp, make_app

EX = "http://example.org/"
SQ = {"content-type": "application/sparql-query"}
SU = {"content-type": "application/sparql-update"}
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _doc(n: int, graph_tag: str) -> Graph:
    g = Graph()
    for i in range(n):
        g.add((URIRef(f"{EX}{graph_tag}/s{i}"), URIRef(f"{EX}p"), Literal(i)))
    return g


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparqlApp]:
    app = make_app(tmp_path_factory.mktemp("ep") / "store", row_cap=50, max_body_bytes=4096)
    app.store.add_document(f"{EX}doc/a", _doc(30, "a"))
    app.store.add_document(f"{EX}doc/b", _doc(30, "b"))
    yield app
    app.close()


@pytest.fixture
def client(svc: SparqlApp) -> TestClient:
    return TestClient(svc.app)


def _count(client: TestClient, where: str = "?s ?p ?o") -> int:
    r = client.get("/sparql", params={"query": f"SELECT (COUNT(*) AS ?n) {{ {where} }}"})
    assert r.status_code == 200, r.text
    return int(r.json()["results"]["bindings"][0]["n"]["value"])


# --- dataset semantics -------------------------------------------------------------


@pytest.mark.slow
def test_default_graph_is_union_of_documents(client: TestClient) -> None:
    assert _count(client) == 60


def test_query_from_is_honoured(client: TestClient) -> None:
    # pyoxigraph's union flag would override FROM; the endpoint must not set it then.
    r = client.get(
        "/sparql",
        params={"query": f"SELECT (COUNT(*) AS ?n) FROM <{EX}doc/a> {{ ?s ?p ?o }}"},
    )
    assert r.json()["results"]["bindings"][0]["n"]["value"] == "30"


def test_protocol_dataset_overrides_from(client: TestClient) -> None:
    r = client.get(
        "/sparql",
        params={
            "query": f"SELECT (COUNT(*) AS ?n) FROM <{EX}doc/a> {{ ?s ?p ?o }}",
            "default-graph-uri": [f"{EX}doc/a", f"{EX}doc/b"],
        },
    )
    assert r.json()["results"]["bindings"][0]["n"]["value"] == "60"


def test_named_graph_uri_restricts_graph_patterns(client: TestClient) -> None:
    r = client.get(
        "/sparql",
        params={
            "query": "SELECT DISTINCT ?g { GRAPH ?g { ?s ?p ?o } }",
            "named-graph-uri": f"{EX}doc/b",
        },
    )
    assert [b["g"]["value"] for b in r.json()["results"]["bindings"]] == [f"{EX}doc/b"]


# --- security ----------------------------------------------------------------------

INSERT = f"INSERT DATA {{ GRAPH <{EX}doc/x> {{ <{EX}x> <{EX}p> 1 }} }}"


def test_update_without_token_is_401_and_writes_nothing(client: TestClient) -> None:
    r = client.post("/sparql", content=INSERT, headers=SU)
    assert r.status_code == 401
    assert "bearer" in r.headers.get("www-authenticate", "").lower()
    assert _count(client, f"GRAPH <{EX}doc/x> {{ ?s ?p ?o }}") == 0


def test_update_with_wrong_token_is_403_and_writes_nothing(client: TestClient) -> None:
    r = client.post("/sparql", content=INSERT, headers={**SU, "Authorization": "Bearer nope"})
    assert r.status_code == 403
    r = client.post("/sparql", data={"update": INSERT}, headers={"Authorization": "Basic eDp5"})
    assert r.status_code == 401
    assert _count(client, f"GRAPH <{EX}doc/x> {{ ?s ?p ?o }}") == 0


def test_update_with_token_writes_then_cleanup(client: TestClient) -> None:
    r = client.post("/sparql", content=INSERT, headers={**SU, **AUTH})
    assert r.status_code == 204, r.text
    assert _count(client, f"GRAPH <{EX}doc/x> {{ ?s ?p ?o }}") == 1
    r = client.post("/sparql", data={"update": f"DROP GRAPH <{EX}doc/x>"}, headers=AUTH)
    assert r.status_code == 204
    assert _count(client, f"GRAPH <{EX}doc/x> {{ ?s ?p ?o }}") == 0


def test_no_token_configured_means_writes_are_off(tmp_path) -> None:
    app = make_app(tmp_path / "s", token=None, workers=1)
    try:
        c = TestClient(app.app)
        r = c.post("/sparql", content=INSERT, headers={**SU, **AUTH})
        assert r.status_code == 403
        assert len(app.store.documents()) == 0
        sd = Graph().parse(data=c.get("/sparql").text, format="turtle")
        langs = {str(o) for o in sd.objects(None, URIRef(SDNS + "supportedLanguage"))}
        assert langs == {SDNS + "SPARQL11Query"}
    finally:
        app.close()


SDNS = "http://www.w3.org/ns/sparql-service-description#"


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }",
        "select * { ?x ?y ?z optional { service silent ?x { ?s ?p ?o } } }",
    ],
)
def test_service_refused_over_http(client: TestClient, query: str) -> None:
    r = client.get("/sparql", params={"query": query})
    assert r.status_code == 400
    assert "SERVICE" in r.text


def test_load_refused_over_http_even_with_token(client: TestClient) -> None:
    r = client.post(
        "/sparql",
        content="LOAD <http://127.0.0.1:9/x.ttl> INTO GRAPH <http://g/>",
        headers={**SU, **AUTH},
    )
    assert r.status_code == 400
    assert "LOAD" in r.text


def test_body_limit_413(client: TestClient) -> None:
    big = "ASK { " + "# padding\n" * 600 + "}"
    r = client.post("/sparql", content=big, headers=SQ)
    assert r.status_code == 413

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it streams
        for _ in range(10):
            yield b"#" + b"x" * 999 + b"\n"

    r = client.post("/sparql", content=chunks(), headers=SQ)
    assert r.status_code == 413


# --- limits ------------------------------------------------------------------------


def test_row_cap_truncates_with_headers(client: TestClient) -> None:
    r = client.get("/sparql", params={"query": "SELECT ?s { ?s ?p ?o }"})
    assert r.status_code == 200
    assert len(r.json()["results"]["bindings"]) == 50
    assert r.headers["x-reprokg-truncated"] == "true"
    assert r.headers["x-reprokg-row-cap"] == "50"
    r = client.get("/sparql", params={"query": "SELECT ?s { ?s ?p ?o } LIMIT 10"})
    assert "x-reprokg-truncated" not in r.headers


def test_construct_is_capped_too(client: TestClient) -> None:
    r = client.get("/sparql", params={"query": "CONSTRUCT WHERE { ?s ?p ?o }"})
    assert len(Graph().parse(data=r.text, format="turtle")) == 50
    assert r.headers["x-reprokg-truncated"] == "true"


# --- negotiation -------------------------------------------------------------------

SELECT1 = "SELECT ?s { ?s ?p ?o } ORDER BY ?s LIMIT 2"


@pytest.mark.parametrize(
    "accept,expected",
    [
        (None, "application/sparql-results+json"),
        ("*/*", "application/sparql-results+json"),
        ("text/csv", "text/csv"),
        ("text/csv;q=0.5, application/sparql-results+xml", "application/sparql-results+xml"),
        ("application/sparql-results+json;q=0.1, text/*;q=0.9", "text/csv"),
        ("text/tab-separated-values, */*;q=0.1", "text/tab-separated-values"),
        ("application/xml", "application/sparql-results+xml"),
        ("application/json", "application/sparql-results+json"),
    ],
)
def test_select_negotiation(client: TestClient, accept: str | None, expected: str) -> None:
    headers = {"accept": accept} if accept else {}
    r = client.get("/sparql", params={"query": SELECT1}, headers=headers)
    assert r.status_code == 200
    assert r.headers["content-type"].split(";")[0] == expected
    assert "accept" in r.headers["vary"].lower()


def test_not_acceptable_406(client: TestClient) -> None:
    r = client.get("/sparql", params={"query": "ASK {}"}, headers={"accept": "text/csv"})
    assert r.status_code == 406
    r = client.get("/sparql", params={"query": SELECT1}, headers={"accept": "image/png"})
    assert r.status_code == 406
    r = client.get(
        "/sparql", params={"query": SELECT1}, headers={"accept": "text/csv;q=0, image/png"}
    )
    assert r.status_code == 406


def test_format_parameter_overrides_accept(client: TestClient) -> None:
    r = client.get(
        "/sparql", params={"query": SELECT1, "format": "tsv"}, headers={"accept": "text/csv"}
    )
    assert r.headers["content-type"].startswith("text/tab-separated-values")
    # a format that does not fit the query form defers to Accept
    r = client.get("/sparql", params={"query": "ASK {}", "format": "csv"})
    assert r.headers["content-type"].startswith("application/sparql-results+json")
    r = client.get("/sparql", params={"query": "CONSTRUCT WHERE { ?s ?p ?o }", "format": "json"})
    assert r.headers["content-type"].startswith("application/ld+json")


@pytest.mark.parametrize(
    "accept,rdflib_format",
    [
        ("text/turtle", "turtle"),
        ("application/n-triples", "nt"),
        ("application/rdf+xml", "xml"),
        ("application/ld+json", "json-ld"),
    ],
)
def test_construct_formats_parse_back(client: TestClient, accept: str, rdflib_format: str) -> None:
    q = f"CONSTRUCT {{ ?s <{EX}q> ?o }} WHERE {{ GRAPH <{EX}doc/a> {{ ?s ?p ?o }} }} "
    r = client.post("/sparql", content=q, headers={**SQ, "accept": accept})
    assert r.status_code == 200
    assert r.headers["content-type"].split(";")[0] == accept
    g = Graph().parse(data=r.content, format=rdflib_format)
    assert len(g) == 30
    assert (URIRef(f"{EX}a/s7"), URIRef(f"{EX}q"), Literal(7)) in g


def test_ask_xml(client: TestClient) -> None:
    r = client.get(
        "/sparql",
        params={"query": f"ASK {{ <{EX}a/s1> ?p 1 }}"},
        headers={"accept": "application/sparql-results+xml"},
    )
    assert "<boolean>true</boolean>" in r.text


def test_literal_terms_in_json(client: TestClient) -> None:
    q = 'SELECT ?l ?t ?b { BIND("chat"@fr AS ?l) BIND(1.5 AS ?t) BIND(BNODE() AS ?b) }'
    r = client.get("/sparql", params={"query": q})
    b = r.json()["results"]["bindings"][0]
    assert b["l"] == {"type": "literal", "value": "chat", "xml:lang": "fr"}
    assert b["t"] == {
        "type": "literal",
        "value": "1.5",
        "datatype": "http://www.w3.org/2001/XMLSchema#decimal",
    }
    assert b["b"]["type"] == "bnode"


# --- malformed requests ------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs,status",
    [
        ({"params": {"query": "ASK {}", "update": "CLEAR ALL"}}, 400),
        ({"params": {"query": "SELECT * { ?s ?p ?o"}}, 400),
        ({"params": {"query": "ASK {}", "default-graph-uri": "not an iri"}}, 400),
        ({"params": {"query": "ASK {}", "using-graph-uri": "http://g/"}}, 400),
    ],
)
def test_malformed_get(client: TestClient, kwargs: dict, status: int) -> None:
    assert client.get("/sparql", **kwargs).status_code == status


def test_malformed_post(client: TestClient) -> None:
    assert client.post("/sparql", content=b"\xff\xfe", headers=SQ).status_code == 400
    r = client.post("/sparql", content="ASK {}", headers={"content-type": "application/json"})
    assert r.status_code == 415
    r = client.post("/sparql", params={"query": "ASK {}"}, content="ASK {}", headers=SQ)
    assert r.status_code == 400
    r = client.post("/sparql", data={"default-graph-uri": "http://g/"})
    assert r.status_code == 400
    assert client.delete("/sparql").status_code == 405


def test_errors_are_plain_text(client: TestClient) -> None:
    r = client.get("/sparql", params={"query": "SELECT"})
    assert r.headers["content-type"].startswith("text/plain")
    with pytest.raises(json.JSONDecodeError):
        json.loads(r.text)


# --- blocking work off the event loop, concurrency ---------------------------------


def test_concurrent_queries(client: TestClient) -> None:
    results: list[int] = []
    lock = threading.Lock()

    def one() -> None:
        n = _count(client)
        with lock:
            results.append(n)

    threads = [threading.Thread(target=one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [60] * 8
