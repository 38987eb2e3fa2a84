"""W3C result-format suites (``json-res``, ``csv-tsv-res``) run through the endpoint.

Each manifest entry's query runs over HTTP (in-process) against its data file and the
response is compared with the expected result file *as parsed results*, per the W3C
rules for those formats: JSON/XML/TSV as RDF terms (numeric literals by value, blank
nodes up to a consistent renaming, order kept where the query has ORDER BY); CSV as the
strings of each cell (CSV loses types), blank nodes up to renaming. Expected files are
parsed with rdflib's own result parsers (a reference implementation) or Python's csv
module, never with the serialiser under test. Our XML output is also checked against
the JSON expectations.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest
from fastapi.testclient import TestClient
from rdflib import BNode, Graph, Literal, Namespace, URIRef
from rdflib.collection import Collection
from rdflib.namespace import XSD
from rdflib.query import Result

from tests.conftest import SHARED_DATA, need
from tests.sparql_testapp import SparqlApp, make_app

ROOT = SHARED_DATA / "w3c" / "sparql11"
MF = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
QT = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-query#")
NUMERIC = {XSD.integer, XSD.decimal, XSD.double, XSD.float}


def _cases(suite: str) -> list[tuple[str, Path, Path, Path]]:
    manifest = ROOT / suite / "manifest.ttl"
    if not manifest.is_file():
        return []
    g = Graph().parse(manifest, format="turtle", publicID=manifest.as_uri())
    head = g.value(URIRef(manifest.as_uri()), MF.entries)
    out = []
    for e in Collection(g, head):
        action = g.value(e, MF.action)

        def path(node: URIRef) -> Path:
            return Path(str(node).removeprefix("file://"))

        out.append(
            (
                str(e).rsplit("#", 1)[-1],
                path(g.value(action, QT.query)),
                path(g.value(action, QT.data)),
                path(g.value(e, MF.result)),
            )
        )
    return out


JSON_CASES = _cases("json-res")
CSV_TSV_CASES = _cases("csv-tsv-res")


def test_manifests_present() -> None:
    need(bool(JSON_CASES) and bool(CSV_TSV_CASES), f"W3C result manifests missing in {ROOT}")
    assert len(JSON_CASES) == 4
    assert len(CSV_TSV_CASES) == 6


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparqlApp]:
    app = make_app(tmp_path_factory.mktemp("fmt") / "store")
    yield app
    app.close()


def _ask(service: SparqlApp, query: Path, data: Path, accept: str) -> bytes:
    service.store.update("DROP ALL")
    # Loaded with pyoxigraph's parser: rdflib would normalise lexical forms (1.0E6).
    graph = ox.NamedNode(data.as_uri())
    quads = [
        ox.Quad(t.subject, t.predicate, t.object, graph)
        for t in ox.parse(path=str(data), format=ox.RdfFormat.TURTLE)
    ]
    service.store.restore(io.BytesIO(ox.serialize(quads, format=ox.RdfFormat.N_QUADS)))
    client = TestClient(service.app)
    resp = client.post(
        "/sparql",
        content=query.read_bytes(),
        headers={"content-type": "application/sparql-query", "accept": accept},
    )
    assert resp.status_code == 200, resp.text
    assert resp.headers["content-type"].split(";")[0] == accept
    return resp.content


def _norm(term: object) -> object:
    if isinstance(term, Literal):
        dt = term.datatype
        if dt in NUMERIC:
            return ("num", str(dt), float(term.toPython()))
        if dt == XSD.string:
            dt = None
        return ("lit", str(term), str(dt) if dt else None, term.language)
    return term


def _same_rows(a: list[tuple], b: list[tuple], ordered: bool) -> bool:
    """Equal up to a consistent blank-node renaming (a→b), in order if ``ordered``."""
    if len(a) != len(b):
        return False
    if not ordered:
        key = lambda r: [str(_norm(t)) if not isinstance(t, BNode) else "_" for t in r]  # noqa: E731
        a, b = sorted(a, key=key), sorted(b, key=key)
    mapping: dict[BNode, BNode] = {}
    for ra, rb in zip(a, b, strict=True):
        for ta, tb in zip(ra, rb, strict=True):
            if isinstance(ta, BNode) or isinstance(tb, BNode):
                if not (isinstance(ta, BNode) and isinstance(tb, BNode)):
                    return False
                if mapping.setdefault(ta, tb) != tb:
                    return False
            elif _norm(ta) != _norm(tb):
                return False
    return len(set(mapping.values())) == len(mapping)


def _compare(actual: Result, expected: Result, ordered: bool) -> None:
    assert actual.type == expected.type
    if expected.type == "ASK":
        assert actual.askAnswer == expected.askAnswer
        return
    assert [str(v) for v in actual.vars] == [str(v) for v in expected.vars]
    rows_a = [tuple(r) for r in actual]
    rows_e = [tuple(r) for r in expected]
    assert _same_rows(rows_a, rows_e, ordered), f"{rows_a}\n!=\n{rows_e}"


@pytest.mark.parametrize("case", JSON_CASES, ids=[c[0] for c in JSON_CASES])
@pytest.mark.parametrize(
    "accept,parser",
    [("application/sparql-results+json", "json"), ("application/sparql-results+xml", "xml")],
)
def test_w3c_json_res(service: SparqlApp, case: tuple, accept: str, parser: str) -> None:
    _, query, data, result = case
    body = _ask(service, query, data, accept)
    actual = Result.parse(io.BytesIO(body), format=parser)
    expected = Result.parse(result.open("rb"), format="json")
    _compare(actual, expected, ordered="ORDER BY" in query.read_text())


#: Oxigraph keeps typed literals in a value encoding: "1.0E6"^^xsd:double comes back as
#: "1000000"^^xsd:double and xsd:negativeInteger as xsd:integer. The data2.ttl cases
#: therefore fail through the store (strict xfail: they pass again if the engine keeps
#: lexical forms); ``test_w3c_csv_tsv_serialiser_only`` checks our serialisers on the
#: exact terms of data2.ttl without the engine.
ENGINE_CANONICALISES = pytest.mark.xfail(
    strict=True, reason="Oxigraph canonicalises stored numeric literals (1.0E6, negativeInteger)"
)


def _mark(cases: list[tuple]) -> list:
    return [
        pytest.param(c, id=c[0], marks=ENGINE_CANONICALISES if c[2].name == "data2.ttl" else ())
        for c in cases
    ]


TSV_CASES = [c for c in CSV_TSV_CASES if c[3].suffix == ".tsv"]
CSV_CASES = [c for c in CSV_TSV_CASES if c[3].suffix == ".csv"]


@pytest.mark.parametrize("case", _mark(TSV_CASES))
def test_w3c_tsv_res(service: SparqlApp, case: tuple) -> None:
    _, query, data, result = case
    body = _ask(service, query, data, "text/tab-separated-values")
    actual = Result.parse(io.BytesIO(body), format="tsv")
    expected = Result.parse(result.open("rb"), format="tsv")
    _compare(actual, expected, ordered=True)


def _csv_cells(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))


def _check_csv(body: bytes, result: Path) -> None:
    assert b"\r\n" in body  # the note's line ends
    actual, expected = _csv_cells(body), _csv_cells(result.read_bytes())
    assert actual[0] == expected[0]
    assert len(actual) == len(expected)
    mapping: dict[str, str] = {}
    for ra, re_ in zip(actual[1:], expected[1:], strict=True):
        assert len(ra) == len(re_)
        for a, e in zip(ra, re_, strict=True):
            if a.startswith("_:") and e.startswith("_:"):
                assert mapping.setdefault(a, e) == e
            else:
                assert a == e


@pytest.mark.parametrize("case", _mark(CSV_CASES))
def test_w3c_csv_res(service: SparqlApp, case: tuple) -> None:
    _, query, data, result = case
    _check_csv(_ask(service, query, data, "text/csv"), result)


def test_w3c_csv_tsv_serialiser_only() -> None:
    """csv03/tsv03 without the engine: data2.ttl's triples, as pyoxigraph parses them."""
    need(bool(CSV_TSV_CASES), "csv-tsv-res manifest missing")
    from reprokg.sparql.result_formats import select_csv, select_tsv
    from reprokg.store.base import SelectResult
    from reprokg.store.terms import to_rdflib

    base = ROOT / "csv-tsv-res"
    triples = sorted(
        ox.parse(path=str(base / "data2.ttl"), format=ox.RdfFormat.TURTLE),
        key=lambda t: t.subject.value,
    )

    def term(t: object) -> object:
        if isinstance(t, ox.Literal) and t.datatype.value != str(XSD.string):
            return Literal(t.value, datatype=URIRef(t.datatype.value), normalize=False)
        return to_rdflib(t)

    res = SelectResult(
        ["s", "p", "o"], [(term(t.subject), term(t.predicate), term(t.object)) for t in triples]
    )
    _check_csv(select_csv(res), base / "csvtsv03.csv")
    actual = Result.parse(io.BytesIO(select_tsv(res)), format="tsv")
    expected = Result.parse((base / "csvtsv03.tsv").open("rb"), format="tsv")
    _compare(actual, expected, ordered=True)
