"""Quality checks over ALL ontology modules, imports and shapes (ontology/qc/*.rq).

Each query returns the offending rows; a check passes when it returns none. The rows
are printed so whoever owns the module sees what to fix.
"""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.conftest import REPO

QC = sorted((REPO / "ontology" / "qc").glob("*.rq"))


GRAPHS = (
    ("urn:qc:ontology", "ontology/*.ttl"),
    ("urn:qc:imports", "ontology/imports/*.ttl"),
    ("urn:qc:shapes", "shapes/*.ttl"),
)


def qc_dataset(extra: dict[str, str] | None = None, drop: str | None = None) -> ox.Store:
    """The three named graphs in an in-memory Oxigraph store (rdflib's SPARQL is too slow
    for the label joins); ``extra`` adds Turtle to a graph, ``drop`` skips subjects
    ending with that text (to plant problems)."""
    store = ox.Store()
    for graph, pattern in GRAPHS:
        texts = [f.read_text(encoding="utf-8") for f in sorted(REPO.glob(pattern))]
        if extra and graph in extra:
            texts.append(extra[graph])
        for text in texts:
            quads = ox.parse(
                text.encode("utf-8"),
                ox.RdfFormat.TURTLE,
                base_iri="https://w3id.org/reprokg/ontology",
            )
            for q in quads:
                if drop and isinstance(q.subject, ox.NamedNode) and q.subject.value.endswith(drop):
                    continue
                store.add(ox.Quad(q.subject, q.predicate, q.object, ox.NamedNode(graph)))
    return store


def run(store: ox.Store, query: str) -> list[list[str]]:
    rows = store.query(query, use_default_graph_as_union=True)
    return [[_text(v) for v in row] for row in rows]


def _text(term: object) -> str:
    return "" if term is None else getattr(term, "value", str(term))


@pytest.fixture(scope="module")
def dataset() -> ox.Store:
    return qc_dataset()


def test_there_are_qc_queries() -> None:
    names = {q.stem for q in QC}
    assert {"missing_label", "duplicate_label", "missing_definition", "ontology_header"} <= names
    assert {"undeclared_shape_terms", "audit_attributes", "shape_source_paths"} <= names


@pytest.mark.parametrize("query", QC, ids=[q.stem for q in QC])
def test_qc_query_finds_nothing(dataset: ox.Store, query: Path) -> None:
    rows = run(dataset, query.read_text(encoding="utf-8"))
    problems = "\n".join("  " + " | ".join(row) for row in rows)
    assert not rows, f"{query.name}: {len(rows)} problem(s):\n{problems}"


BAD_TERMS = """
@prefix rk: <https://w3id.org/reprokg/ontology#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix prov: <http://www.w3.org/ns/prov#> .
rk:QcNoLabel a owl:Class ; skos:definition "x"@en ;
    rdfs:isDefinedBy <https://w3id.org/reprokg/ontology> .
rk:QcDup a owl:Class ; rdfs:label "audit"@en ; skos:definition "y"@en .
prov:Entity rdfs:comment "an axiom on a foreign term" .
"""
BAD_SHAPE = """
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix ex: <https://example.org/> .
@prefix rk: <https://w3id.org/reprokg/ontology#> .
ex:S a sh:NodeShape ; sh:targetClass ex:Undeclared ; sh:property [ sh:path ex:nope ] .
ex:T a sh:NodeShape ;
    sh:property [ sh:path ex:nopath ; sh:minCount 1 ; sh:message "a value is needed" ] ,
    [ sh:path ex:wrong ; rk:sourcePath "actor.name" ; sh:minCount 1 ; sh:message "give a name" ] .
"""


@pytest.mark.parametrize(
    ("query", "graph", "turtle", "expected"),
    [
        ("missing_label", "urn:qc:ontology", BAD_TERMS, "QcNoLabel"),
        ("duplicate_label", "urn:qc:ontology", BAD_TERMS, "QcDup"),
        (
            "missing_definition",
            "urn:qc:ontology",
            BAD_TERMS.replace('skos:definition "x"@en ;', ""),
            "QcNoLabel",
        ),
        ("missing_is_defined_by", "urn:qc:ontology", BAD_TERMS, "QcDup"),
        ("foreign_axioms", "urn:qc:ontology", BAD_TERMS, "http://www.w3.org/ns/prov#Entity"),
        ("undeclared_shape_terms", "urn:qc:shapes", BAD_SHAPE, "https://example.org/Undeclared"),
        ("undeclared_shape_terms", "urn:qc:shapes", BAD_SHAPE, "https://example.org/nope"),
        (
            "shape_source_paths",
            "urn:qc:shapes",
            BAD_SHAPE,
            "https://example.org/nopath no rk:sourcePath",
        ),
        ("shape_source_paths", "urn:qc:shapes", BAD_SHAPE, "does not mention actor.name"),
    ],
)
def test_qc_query_catches_a_planted_problem(
    query: str, graph: str, turtle: str, expected: str
) -> None:
    """Each check can fail: planting a problem makes its query return it."""
    store = qc_dataset(extra={graph: turtle})
    text = (REPO / "ontology" / "qc" / f"{query}.rq").read_text(encoding="utf-8")
    found = [" ".join(row) for row in run(store, text)]
    assert any(expected in row for row in found), found


def test_audit_attribute_check_catches_a_missing_attribute() -> None:
    store = qc_dataset(drop="#S12")
    text = (REPO / "ontology" / "qc" / "audit_attributes.rq").read_text(encoding="utf-8")
    assert [row[0] for row in run(store, text)] == ["S12"]
