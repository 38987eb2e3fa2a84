"""The service app: settings, health, write security, body limits, access log, documents."""

from __future__ import annotations

import json
import logging

import pytest
from fastapi.testclient import TestClient
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF

from reprokg.core.identifiers import document_iri
from reprokg.core.namespaces import RK
from reprokg.core.settings import Settings
from reprokg.service.app import create_app
from reprokg.service.logs import ACCESS_LOGGER
from reprokg.store import open_store

TOKEN = "test-token-7f3a"
SHA = "ab" * 32


def _doc_graph() -> Graph:
    iri = document_iri(SHA)
    g = Graph()
    g.add((iri, RDF.type, RK.Document))
    g.add((iri, RK.documentKind, Literal("run")))
    g.add((iri, RK.sourceFileName, Literal("bm25.run")))
    g.add((iri, RK.sourceSha256, Literal(SHA)))
    g.add((URIRef("https://w3id.org/reprokg/id/run/r1"), RDF.type, RK.Run))
    return g


@pytest.fixture
def store():
    s = open_store(":memory:")
    s.add_document(document_iri(SHA), _doc_graph())
    yield s
    s.close()


def _client(store, **settings) -> TestClient:
    return TestClient(create_app(Settings(**settings), store=store))


def test_settings_from_env(tmp_path) -> None:
    tok = tmp_path / "token"
    tok.write_text("from-file\n")
    s = Settings.from_env(
        {
            "REPROKG_STORE": "/data/kg",
            "REPROKG_WRITE_TOKEN_FILE": str(tok),
            "REPROKG_BASE": "https://example.org/id",
            "REPROKG_QUERY_TIMEOUT": "2.5",
            "REPROKG_ROW_CAP": "7",
        }
    )
    assert (s.store, s.write_token, s.base, s.query_timeout, s.row_cap) == (
        "/data/kg",
        "from-file",
        "https://example.org/id/",
        2.5,
        7,
    )
    assert "from-file" not in repr(s)
    assert Settings.from_env(s.to_env()) == s
    assert Settings.from_env({}).write_token is None
    assert Settings.from_env({}).query_timeout == 10.0


def test_health(store) -> None:
    body = _client(store).get("/health").json()
    assert body["status"] == "ok" and body["store"] == "reachable"
    assert body["documents"] == 1
    from reprokg import __version__

    assert body["version"] == __version__


def test_health_reports_an_unreachable_store(store) -> None:
    client = _client(store)

    class Broken:
        def documents(self):
            raise OSError("disk gone")

    client.app.state.store = Broken()
    r = client.get("/health")
    assert r.status_code == 503 and r.json()["store"] == "unreachable"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("configured", "header", "expected"),
    [
        (None, f"Bearer {TOKEN}", 403),  # no token configured: writing over HTTP is off
        (TOKEN, None, 401),
        (TOKEN, "Bearer", 401),
        (TOKEN, f"Basic {TOKEN}", 401),
        (TOKEN, "Bearer wrong-token", 403),
        (TOKEN, f"Bearer {TOKEN}x", 403),
    ],
)
def test_writes_need_the_token_and_nothing_is_written(store, configured, header, expected) -> None:
    client = _client(store, write_token=configured)
    headers = {"Content-Type": "application/yaml"}
    if header:
        headers["Authorization"] = header
    before = set(store.documents())
    r = client.post("/documents", content=b"tag: x\n", headers=headers)
    assert r.status_code == expected
    if expected == 401:
        assert r.headers["www-authenticate"].startswith("Bearer")
    r = client.delete(f"/documents/{SHA}", headers=headers)
    assert r.status_code == expected
    assert set(store.documents()) == before


def test_read_only_service_refuses_writes(store) -> None:
    client = _client(store, write_token=TOKEN, read_only=True)
    r = client.delete(f"/documents/{SHA}", headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 403 and "read-only" in r.json()["detail"]["message"]
    assert store.has_document(document_iri(SHA))


def test_delete_with_token(store) -> None:
    client = _client(store, write_token=TOKEN)
    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert client.delete(f"/documents/{SHA}", headers=auth).status_code == 204
    assert store.documents() == []
    assert client.delete(f"/documents/{SHA}", headers=auth).status_code == 404


def test_oversize_bodies_are_refused(store) -> None:
    client = _client(store, write_token=TOKEN, max_body_bytes=1000)
    auth = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/yaml"}
    r = client.post("/documents", content=b"a" * 1001, headers=auth)
    assert r.status_code == 413 and r.json()["detail"]["limit"] == 1000

    def chunks():  # no Content-Length: counted as it streams
        for _ in range(5):
            yield b"b" * 400

    r = client.post("/documents", content=chunks(), headers=auth)
    assert r.status_code == 413
    files = {"file": ("big.yaml", b"c" * 2000, "application/yaml")}
    r = client.post("/documents", files=files, headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 413
    r = client.post("/validate", content=b"a" * 1001, headers=auth)
    assert r.status_code == 413
    assert set(store.documents()) == {document_iri(SHA)}


def test_unsupported_content_type(store) -> None:
    client = _client(store, write_token=TOKEN)
    r = client.post(
        "/documents",
        content=b"\x89PNG\r\n",
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "image/png"},
    )
    assert r.status_code == 415
    assert "multipart/form-data" in r.json()["detail"]["expected"]


def test_list_and_get_documents(store) -> None:
    client = _client(store)
    body = client.get("/documents").json()
    assert body["count"] == 1
    doc = body["documents"][0]
    assert (doc["id"], doc["kind"], doc["source"], doc["sha256"]) == (SHA, "run", "bm25.run", SHA)
    r = client.get(f"/documents/{SHA}", headers={"Accept": "application/n-triples"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/n-triples")
    g = Graph().parse(data=r.text, format="nt")
    assert set(g) == set(_doc_graph())
    r = client.get(f"/documents/{SHA}", headers={"Accept": "text/turtle"})
    assert set(Graph().parse(data=r.text, format="turtle")) == set(_doc_graph())
    r = client.get(f"/documents/{SHA}", headers={"Accept": "application/ld+json"})
    assert set(Graph().parse(data=r.text, format="json-ld")) == set(_doc_graph())
    assert client.get(f"/documents/{SHA}", headers={"Accept": "image/png"}).status_code == 406
    assert client.get("/documents/" + "0" * 64).status_code == 404
    assert client.get("/documents/not-a-sha").status_code == 404


def test_access_log_lines_are_json(store) -> None:
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    client = _client(store)
    handler = Keep()
    logging.getLogger(ACCESS_LOGGER).addHandler(handler)
    try:
        client.get("/health?x=1")
        client.get("/documents/nope")
    finally:
        logging.getLogger(ACCESS_LOGGER).removeHandler(handler)
    entries = [r.access for r in records]  # type: ignore[attr-defined]
    assert [(e["method"], e["path"], e["status"]) for e in entries] == [
        ("GET", "/health", 200),
        ("GET", "/documents/nope", 404),
    ]
    assert entries[0]["query"] == "x=1" and entries[0]["duration_ms"] >= 0
    assert entries[0]["client"].startswith("testclient")
    from reprokg.service.logs import _JsonLineFormatter

    line = json.loads(_JsonLineFormatter().format(records[0]))
    assert line["status"] == 200 and "ts" in line


def test_access_log_can_be_switched_off(store) -> None:
    app = create_app(Settings(access_log=False), store=store)
    from reprokg.service.logs import AccessLogMiddleware

    assert all(m.cls is not AccessLogMiddleware for m in app.user_middleware)


def test_openapi_lists_the_routes(store) -> None:
    paths = _client(store).get("/openapi.json").json()["paths"]
    for p in ("/health", "/documents", "/documents/{doc_id}", "/validate", "/queries"):
        assert p in paths, p
    assert "/id/{path}" in paths
    # the other areas' routers, mounted by create_app
    for p in ("/sparql", "/comparisons", "/measures/survey"):
        assert p in paths, p


def test_read_only_service_can_answer_from_a_memory_mirror(tmp_path) -> None:
    path = str(tmp_path / "kg")
    with open_store(path) as writer:
        writer.add_document(document_iri(SHA), _doc_graph())
    store = open_store(path, read_only=True)
    client = _client(store, read_only=True, memory_mirror=True, access_log=False)
    mirror = client.app.state.read_store
    assert mirror is not None and mirror is not store
    assert set(mirror.get_document(document_iri(SHA))) == set(_doc_graph())
    r = client.get("/id/run/r1", headers={"Accept": "application/n-triples"})
    assert r.status_code == 200 and "ontology#Run" in r.text
    assert client.get("/health").json()["documents"] == 1
    store.close()


def test_documents_are_paged_with_the_count_of_all(mlrc_docs) -> None:
    """``GET /documents`` answers a page (``limit`` at most 1,000) with the count of every
    document and the next page's URL; the pages together list each of the real MLRC
    headers once (before: every document in one answer, however many)."""
    from reprokg.ingest import ingest

    s = open_store(":memory:")
    ingest(s, mlrc_docs)
    want = {str(d.iri) for d in mlrc_docs}
    client = _client(s)
    seen: list[str] = []
    url: str | None = "/documents?limit=20"
    pages = 0
    while url:
        body = client.get(url).json()
        assert body["count"] == len(want) and body["limit"] == 20
        assert len(body["documents"]) == (20 if body["next"] else len(want) - 20 * pages)
        seen += [d["iri"] for d in body["documents"]]
        url, pages = body["next"], pages + 1
    assert pages == -(-len(want) // 20)
    assert sorted(seen) == sorted(want)  # each once, none left out
    assert client.get("/documents?limit=1001").status_code == 422
    last = client.get(f"/documents?offset={len(want)}").json()
    assert last["documents"] == [] and last["next"] is None and last["count"] == len(want)
    s.close()


def test_a_document_lists_only_what_its_own_graph_says_of_it() -> None:
    """``GET /documents`` reads each page's provenance inside each document's own graph:
    another document stating a sha256 or a source file of it (any upload may name any IRI)
    changes nothing in its listing."""
    s = open_store(":memory:")
    a, b = URIRef(document_iri("aa" * 32)), URIRef(document_iri("bb" * 32))
    own = Graph()
    own.add((a, RDF.type, RK.Document))
    own.add((a, RK.sourceFileName, Literal("a.yaml")))
    s.add_document(a, own)
    other = Graph()
    other.add((b, RDF.type, RK.Document))
    other.add((a, RK.sourceSha256, Literal("cc" * 32)))
    other.add((a, RK.documentKind, Literal("forged")))
    s.add_document(b, other)
    body = _client(s).get("/documents").json()
    assert body["count"] == 2
    listed = {d["iri"]: d for d in body["documents"]}
    assert listed[str(a)] == {"iri": str(a), "id": "aa" * 32, "source": "a.yaml"}
    assert listed[str(b)] == {"iri": str(b), "id": "bb" * 32}
    s.close()
