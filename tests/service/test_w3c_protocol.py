"""The W3C SPARQL 1.1 Protocol test suite (34 tests), one pytest case per manifest entry.

The manifest (``w3c/sparql11/protocol/manifest.ttl``) encodes each test as HTTP requests
(method, path, headers, body with its character encoding) and expected responses
(status class, result format, ASK boolean). This driver reads it with rdflib and replays
every request, in order, against the router in-process (FastAPI ``TestClient``).

Set-up follows the manifest: ``ut:graphData`` files are loaded into named graphs named
by their ``rdfs:label`` before the test (the store is emptied first). The only thing
added to the requests is our credential (``Authorization: Bearer …``), because writes
on this endpoint need a token; the manifest's ``/sparql/`` prefix is used as is.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from rdflib import Graph, Namespace, URIRef
from rdflib.collection import Collection
from rdflib.namespace import RDF, RDFS

from tests.conftest import SHARED_DATA, need
from tests.sparql_testapp import TOKEN, SparqlApp, make_app

MANIFEST = SHARED_DATA / "w3c" / "sparql11" / "protocol" / "manifest.ttl"
MF = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
HT = Namespace("http://www.w3.org/2011/http#")
CNT = Namespace("http://www.w3.org/2011/content#")
HTS = Namespace("http://www.w3.org/2011/http-statusCodes#")
UT = Namespace("http://www.w3.org/2009/sparql/tests/test-update#")

RESULT_TYPES = {
    "boolean": {"application/sparql-results+json", "application/sparql-results+xml"},
    "tabular": {
        "application/sparql-results+json",
        "application/sparql-results+xml",
        "text/csv",
        "text/tab-separated-values",
    },
    "RDF": {"application/rdf+xml", "text/turtle", "application/n-triples", "application/xhtml+xml"},
}


def _manifest() -> Graph | None:
    if not MANIFEST.is_file():
        return None
    g = Graph()
    g.parse(MANIFEST, format="turtle", publicID=MANIFEST.as_uri())
    return g


MANIFEST_GRAPH = _manifest()


def _entries() -> list[URIRef]:
    if MANIFEST_GRAPH is None:
        return []
    g = MANIFEST_GRAPH
    head = g.value(URIRef(MANIFEST.as_uri()), MF.entries)
    return list(Collection(g, head))


ENTRIES = _entries()
IDS = [str(e).rsplit("#", 1)[-1] for e in ENTRIES]


def test_manifest_has_34_tests() -> None:
    need(MANIFEST_GRAPH is not None, f"{MANIFEST} missing")
    assert len(ENTRIES) == 34


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparqlApp]:
    app = make_app(tmp_path_factory.mktemp("w3c") / "store")
    yield app
    app.close()


def _setup_data(service: SparqlApp, test: URIRef) -> None:
    g = MANIFEST_GRAPH
    assert g is not None
    service.store.update("DROP ALL")
    for gd in g.objects(test, UT.graphData):
        file_iri = g.value(gd, UT.graph)
        name = str(g.value(gd, RDFS.label))
        data = Graph().parse(Path(str(file_iri).removeprefix("file://")), format="nt")
        service.store.add_document(name, data)


def _expected_statuses(resp_node: URIRef) -> set[int]:
    g = MANIFEST_GRAPH
    assert g is not None
    classes = set()
    for code in g.objects(resp_node, MF.expectedStatus):
        local = str(code).removeprefix(str(HTS))  # StatusCode2xx
        classes.add(int(local.removeprefix("StatusCode")[0]))
    return classes


def _boolean(content_type: str, body: bytes) -> bool:
    if content_type == "application/sparql-results+json":
        return json.loads(body)["boolean"]
    if content_type == "application/sparql-results+xml":
        root = ET.fromstring(body)
        el = root.find("{http://www.w3.org/2005/sparql-results#}boolean")
        assert el is not None
        return el.text == "true"
    raise AssertionError(f"no boolean in {content_type}")


@pytest.mark.slow
@pytest.mark.parametrize("test", ENTRIES, ids=IDS)
def test_w3c_protocol(service: SparqlApp, test: URIRef) -> None:
    g = MANIFEST_GRAPH
    assert g is not None
    _setup_data(service, test)
    action = g.value(test, MF.action)
    requests = list(Collection(g, g.value(action, HT.requests)))
    assert requests, "manifest test without requests"
    client = TestClient(service.app)
    for req in requests:
        method = str(g.value(req, HT.methodName))
        path = str(g.value(req, HT.absolutePath))
        headers = {"Authorization": f"Bearer {TOKEN}"}
        hdr_list = g.value(req, HT.headers)
        if hdr_list is not None:
            for h in Collection(g, hdr_list):
                headers[str(g.value(h, HT.fieldName))] = str(g.value(h, HT.fieldValue))
        body = g.value(req, HT.body)
        content = None
        if body is not None:
            enc = str(g.value(body, CNT.characterEncoding) or "UTF-8")
            content = str(g.value(body, CNT.chars)).encode(enc.lower())
        resp = client.request(method, path, content=content, headers=headers)
        expected = g.value(req, HT.resp)
        statuses = _expected_statuses(expected)
        assert resp.status_code // 100 in statuses, (
            f"{method} {path}: status {resp.status_code} not in {sorted(statuses)}xx: "
            f"{resp.text[:300]}"
        )
        ctype = resp.headers.get("content-type", "").split(";")[0].strip()
        fmt = g.value(expected, MF.expectedFormat)
        if fmt is not None:
            assert ctype in RESULT_TYPES[str(fmt)], f"{ctype} is not a {fmt} format"
        boolean = g.value(expected, MF.expectedBoolean)
        if boolean is not None:
            assert _boolean(ctype, resp.content) is boolean.toPython()
        if fmt is not None and str(fmt) == "RDF":
            Graph().parse(data=resp.content, format={"text/turtle": "turtle"}.get(ctype, "xml"))


def test_every_entry_is_a_protocol_test() -> None:
    need(MANIFEST_GRAPH is not None, f"{MANIFEST} missing")
    g = MANIFEST_GRAPH
    assert all((e, RDF.type, MF.ProtocolTest) in g for e in ENTRIES)
