"""Every report the W3C SHACL suite produces, written as Turtle the way ``reprokg shacl
--format turtle`` and ``POST /shacl`` write it, reads back as the same graph in pyoxigraph
and in rdflib (issue 38: an ill-typed ``"none"^^xsd:boolean`` value, from
``core/property/or-datatypes-001``, was written as the bare token ``none``, and no Turtle
parser read the report)."""

from __future__ import annotations

import logging
from collections.abc import Iterable

import pyoxigraph as ox
import pytest
from rdflib import Graph

from benchmarks.validation import w3c
from reprokg.core.rdf_parse import parse_as_written
from reprokg.store.terms import to_oxigraph
from reprokg.validation.shacl import validate_graph

TESTS = [t for t in w3c.tests() if not t.expects_failure] if w3c.SUITE.is_dir() else []


def _canonical(triples: Iterable[tuple]) -> set[str]:
    """The triples as canonical N-Quads lines (RDFC-1.0 blank-node labels): equal sets are
    isomorphic graphs, each literal's lexical form and datatype as it is."""
    ds = ox.Dataset(
        ox.Quad(
            *(
                t if isinstance(t, ox.NamedNode | ox.BlankNode | ox.Literal) else to_oxigraph(t)
                for t in triple
            )
        )
        for triple in triples
    )
    ds.canonicalize(ox.CanonicalizationAlgorithm.RDFC_1_0)
    return {str(q) for q in ds}


def _report_turtle(test: w3c.W3CTest) -> tuple[Graph, str]:
    """The report graph and its Turtle, serialised as cli/shacl.py does."""
    g = Graph()
    g += validate_graph(test.data_graph(), test.shapes_graph()).to_graph()
    g.bind("sh", "http://www.w3.org/ns/shacl#")
    return g, g.serialize(format="turtle")


@pytest.mark.slow
def test_every_w3c_report_reads_back_from_turtle() -> None:
    if not TESTS:
        pytest.skip(f"the W3C SHACL suite is not at {w3c.SUITE}")
    logging.getLogger("rdflib").setLevel(logging.CRITICAL)  # ill-typed literals, on purpose
    unreadable: dict[str, str] = {}
    for test in TESTS:
        graph, turtle = _report_turtle(test)
        want = _canonical(graph)
        try:
            by_oxigraph = _canonical(
                (q.subject, q.predicate, q.object)
                for q in ox.parse(turtle.encode(), ox.RdfFormat.TURTLE)
            )
        except SyntaxError as exc:
            unreadable[test.id] = f"pyoxigraph: {exc}"
            continue
        by_rdflib = _canonical(parse_as_written(turtle, "turtle"))
        if by_oxigraph != want:
            unreadable[test.id] = f"pyoxigraph reads {by_oxigraph ^ want}"
        elif by_rdflib != want:
            unreadable[test.id] = f"rdflib reads {by_rdflib ^ want}"
    assert not unreadable, unreadable


def test_an_ill_typed_boolean_value_is_written_as_a_typed_literal() -> None:
    """The case of the issue: the value ``"none"^^xsd:boolean`` is written in full."""
    test = next((t for t in TESTS if t.id == "core/property/or-datatypes-001"), None)
    if test is None:
        pytest.skip(f"the W3C SHACL suite is not at {w3c.SUITE}")
    logging.getLogger("rdflib").setLevel(logging.CRITICAL)
    graph, turtle = _report_turtle(test)
    assert '"none"^^xsd:boolean' in turtle
    read = ox.parse(turtle.encode(), ox.RdfFormat.TURTLE)
    assert _canonical((q.subject, q.predicate, q.object) for q in read) == _canonical(graph)
