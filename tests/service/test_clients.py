"""Real SPARQL client libraries against a real uvicorn server on loopback.

SPARQLWrapper (SELECT as JSON/XML/CSV, ASK, CONSTRUCT, and an update with the bearer
token) and rdflib's ``SPARQLStore``/``SPARQLUpdateStore`` talk HTTP to the router served
by uvicorn in a thread on a free port, the way users' tools will.
"""

from __future__ import annotations

import csv
import io
import socket
import threading
import time
from collections.abc import Iterator
from urllib.error import HTTPError

import pytest
import uvicorn
from rdflib import Graph, Literal, URIRef
from rdflib.plugins.stores.sparqlstore import SPARQLStore, SPARQLUpdateStore
from SPARQLWrapper import CSV, JSON, POST, TURTLE, XML, SPARQLWrapper
from SPARQLWrapper.SPARQLExceptions import QueryBadFormed

from tests.sparql_testapp import TOKEN, SparqlApp, make_app

EX = "http://example.org/"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, SparqlApp]]:
    app = make_app(tmp_path_factory.mktemp("clients") / "store", timeout=1.5)
    g = Graph()
    for i in range(5):
        g.add((URIRef(f"{EX}run/{i}"), URIRef(f"{EX}score"), Literal(i / 10)))
        g.add((URIRef(f"{EX}run/{i}"), URIRef(f"{EX}label"), Literal(f"run, {i}", lang="en")))
    app.store.add_document(f"{EX}doc/runs", g)
    port = _free_port()
    srv = uvicorn.Server(
        uvicorn.Config(app.app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    )
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(200):
        if srv.started:
            break
        time.sleep(0.05)
    assert srv.started, "uvicorn did not start"
    yield f"http://127.0.0.1:{port}/sparql", app
    srv.should_exit = True
    thread.join(10)
    app.close()


SELECT = f"SELECT ?run ?score WHERE {{ ?run <{EX}score> ?score }} ORDER BY ?score"


def _wrapper(url: str, query: str, fmt: str) -> SPARQLWrapper:
    w = SPARQLWrapper(url)
    w.setQuery(query)
    w.setReturnFormat(fmt)
    return w


def test_sparqlwrapper_select_json(server: tuple[str, SparqlApp]) -> None:
    res = _wrapper(server[0], SELECT, JSON).query().convert()
    assert res["head"]["vars"] == ["run", "score"]
    scores = [b["score"]["value"] for b in res["results"]["bindings"]]
    assert [float(s) for s in scores] == [0.0, 0.1, 0.2, 0.3, 0.4]


def test_sparqlwrapper_select_xml(server: tuple[str, SparqlApp]) -> None:
    doc = _wrapper(server[0], SELECT, XML).query().convert()  # a minidom Document
    results = doc.getElementsByTagName("result")
    assert len(results) == 5
    first = results[0].getElementsByTagName("uri")[0].firstChild.data
    assert first == f"{EX}run/0"


def test_sparqlwrapper_select_csv(server: tuple[str, SparqlApp]) -> None:
    q = f"SELECT ?run ?label WHERE {{ ?run <{EX}label> ?label }} ORDER BY ?run"
    data = _wrapper(server[0], q, CSV).query().convert()
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"))))
    assert rows[0] == ["run", "label"]
    assert rows[1] == [f"{EX}run/0", "run, 0"]  # the comma survives quoting


def test_sparqlwrapper_ask_and_post(server: tuple[str, SparqlApp]) -> None:
    w = _wrapper(server[0], f"ASK {{ <{EX}run/3> ?p ?o }}", JSON)
    assert w.query().convert()["boolean"] is True
    w = _wrapper(server[0], f"ASK {{ <{EX}run/9> ?p ?o }}", JSON)
    w.setMethod(POST)
    assert w.query().convert()["boolean"] is False


def test_sparqlwrapper_construct(server: tuple[str, SparqlApp]) -> None:
    q = f"CONSTRUCT {{ ?r <{EX}s> ?s }} WHERE {{ ?r <{EX}score> ?s }}"
    data = _wrapper(server[0], q, TURTLE).query().convert()
    g = Graph().parse(data=data, format="turtle")
    assert len(g) == 5
    assert (URIRef(f"{EX}run/2"), URIRef(f"{EX}s"), Literal(0.2)) in g


def test_sparqlwrapper_construct_as_json_gets_json_ld(server: tuple[str, SparqlApp]) -> None:
    q = f"CONSTRUCT {{ ?r <{EX}s> ?s }} WHERE {{ ?r <{EX}score> ?s }}"
    w = _wrapper(server[0], q, JSON)
    res = w.query()
    assert res.response.headers["content-type"].startswith("application/ld+json")
    g = res.convert()  # SPARQLWrapper parses JSON-LD into an rdflib graph itself
    assert (URIRef(f"{EX}run/4"), URIRef(f"{EX}s"), Literal(0.4)) in g


def test_sparqlwrapper_errors(server: tuple[str, SparqlApp]) -> None:
    with pytest.raises(QueryBadFormed):
        _wrapper(server[0], "SELECT * WHERE {", JSON).query()
    with pytest.raises(QueryBadFormed):  # SERVICE refused with 400
        _wrapper(server[0], "SELECT * { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }", JSON).query()


def test_sparqlwrapper_timeout_is_503(server: tuple[str, SparqlApp]) -> None:
    # 10 triples joined with themselves 10 times: 1e10 rows, stopped at the 1.5 s limit
    q = "SELECT (COUNT(*) AS ?n) {" + " ".join(f"?s{i} ?p{i} ?o{i} ." for i in range(10)) + "}"
    with pytest.raises(HTTPError) as info:  # SPARQLWrapper passes a 503 through as is
        _wrapper(server[0], q, JSON).query()
    assert info.value.code == 503
    assert _wrapper(server[0], "ASK {}", JSON).query().convert()["boolean"] is True


def test_sparqlwrapper_update_with_token(server: tuple[str, SparqlApp]) -> None:
    url, app = server
    w = SPARQLWrapper(url, updateEndpoint=url)
    w.setMethod(POST)
    w.addCustomHttpHeader("Authorization", f"Bearer {TOKEN}")
    w.setQuery(f"INSERT DATA {{ GRAPH <{EX}doc/w> {{ <{EX}w> <{EX}p> 'w' }} }}")
    w.query()
    assert URIRef(f"{EX}doc/w") in app.store.documents()
    app.store.delete_document(f"{EX}doc/w")


def test_rdflib_sparqlstore_query(server: tuple[str, SparqlApp]) -> None:
    store = SPARQLStore(server[0], returnFormat="json")
    g = Graph(store=store)
    rows = list(g.query(SELECT))
    assert [r.run for r in rows][0] == URIRef(f"{EX}run/0")
    assert [r.score.toPython() for r in rows] == [0.0, 0.1, 0.2, 0.3, 0.4]
    assert g.query(f"ASK {{ <{EX}run/1> ?p ?o }}").askAnswer is True


def test_rdflib_sparqlupdatestore_with_token(server: tuple[str, SparqlApp]) -> None:
    url, app = server
    store = SPARQLUpdateStore(url, url, headers={"Authorization": f"Bearer {TOKEN}"})
    graph_iri = URIRef(f"{EX}doc/rdflib")
    g = Graph(store=store, identifier=graph_iri)
    g.add((URIRef(f"{EX}u"), URIRef(f"{EX}p"), Literal("über")))
    assert (URIRef(f"{EX}u"), URIRef(f"{EX}p"), Literal("über")) in app.store.get_document(
        graph_iri
    )
    store.close()
    app.store.delete_document(graph_iri)


def test_rdflib_sparqlupdatestore_without_token_is_refused(server: tuple[str, SparqlApp]) -> None:
    url, app = server
    store = SPARQLUpdateStore(url, url)
    g = Graph(store=store, identifier=URIRef(f"{EX}doc/anon"))
    with pytest.raises(Exception, match="401"):
        g.add((URIRef(f"{EX}u"), URIRef(f"{EX}p"), Literal("x")))
    assert URIRef(f"{EX}doc/anon") not in app.store.documents()
