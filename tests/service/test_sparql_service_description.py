"""The W3C SPARQL 1.1 Service Description tests (3), plus what our description must say.

The manifest names the tests only (returns RDF; has a matching ``sd:endpoint``;
conforms to the schema). "Conforms" is checked with SHACL shapes written here from the
Service Description recommendation (§3: domains/ranges and the sd:Language and
sd:Feature instances it defines), validated by pyshacl.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from pyshacl import validate
from rdflib import Graph, Namespace, URIRef
from rdflib.namespace import RDF

from tests.conftest import SHARED_DATA, need
from tests.sparql_testapp import SparqlApp, make_app

SD = Namespace("http://www.w3.org/ns/sparql-service-description#")
MANIFEST = SHARED_DATA / "w3c" / "sparql11" / "service-description" / "manifest.ttl"

SHAPES = """
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix sd: <http://www.w3.org/ns/sparql-service-description#> .
@prefix ex: <urn:shapes:> .

ex:Service a sh:NodeShape ; sh:targetClass sd:Service ;
  sh:property [ sh:path sd:endpoint ; sh:minCount 1 ; sh:nodeKind sh:IRI ] ;
  sh:property [ sh:path sd:supportedLanguage ; sh:minCount 1 ;
                sh:in ( sd:SPARQL10Query sd:SPARQL11Query sd:SPARQL11Update ) ] ;
  sh:property [ sh:path sd:feature ;
                sh:in ( sd:DereferencesURIs sd:UnionDefaultGraph sd:RequiresDataset
                        sd:EmptyGraphs sd:BasicFederatedQuery ) ] ;
  sh:property [ sh:path sd:resultFormat ; sh:nodeKind sh:IRI ] ;
  sh:property [ sh:path sd:inputFormat ; sh:nodeKind sh:IRI ] ;
  sh:property [ sh:path sd:defaultDataset ; sh:class sd:Dataset ] .
ex:Dataset a sh:NodeShape ; sh:targetClass sd:Dataset ;
  sh:property [ sh:path sd:defaultGraph ; sh:class sd:Graph ; sh:maxCount 1 ] ;
  sh:property [ sh:path sd:namedGraph ; sh:class sd:NamedGraph ] .
"""


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparqlApp]:
    app = make_app(tmp_path_factory.mktemp("sd") / "store", workers=1)
    yield app
    app.close()


def _get(svc: SparqlApp, accept: str | None = None) -> tuple[Graph, str]:
    headers = {"accept": accept} if accept else {}
    r = TestClient(svc.app).get("/sparql", headers=headers)
    assert r.status_code == 200
    ctype = r.headers["content-type"].split(";")[0]
    fmt = {"text/turtle": "turtle", "application/rdf+xml": "xml"}[ctype]
    return Graph().parse(data=r.content, format=fmt), ctype


def test_manifest_lists_three_tests() -> None:
    need(MANIFEST.is_file(), f"{MANIFEST} missing")
    text = MANIFEST.read_text()
    for name in ("has-endpoint-triple", "returns-rdf", "conforms-to-schema"):
        assert f":{name} rdf:type mf:ServiceDescriptionTest" in text


@pytest.mark.parametrize("accept", [None, "text/turtle", "application/rdf+xml"])
def test_returns_rdf(svc: SparqlApp, accept: str | None) -> None:
    g, ctype = _get(svc, accept)
    assert len(g) > 0
    assert ctype == (accept or "text/turtle")


def test_has_endpoint_triple(svc: SparqlApp) -> None:
    g, _ = _get(svc)
    services = list(g.subjects(RDF.type, SD.Service))
    assert len(services) == 1
    assert g.value(services[0], SD.endpoint) == URIRef("http://testserver/sparql")


def test_conforms_to_schema(svc: SparqlApp) -> None:
    g, _ = _get(svc)
    conforms, _, text = validate(g, shacl_graph=Graph().parse(data=SHAPES, format="turtle"))
    assert conforms, text


def test_describes_union_default_graph_and_update(svc: SparqlApp) -> None:
    g, _ = _get(svc)
    svc_node = next(g.subjects(RDF.type, SD.Service))
    assert (svc_node, SD.feature, SD.UnionDefaultGraph) in g
    assert (svc_node, SD.supportedLanguage, SD.SPARQL11Update) in g  # a token is configured
    assert (svc_node, SD.feature, SD.BasicFederatedQuery) not in g  # SERVICE is refused
