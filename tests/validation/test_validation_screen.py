"""The compiled engine's shortcuts for valid documents change no result (issue 29: batched
validation of every kind at ≥ 1,000 documents/s).

- A target's merged queries (values, ``sh:minCount 1``, ``sh:maxCount``) run only when
  one screening pass flags a focus node (``queries.Screen``): on real documents of the kinds
  it speeds up, edited on every screened path (values removed, values added past each
  limit, a value of the wrong kind), the results equal those of the merged queries run
  unscreened, the engine as it was.
- A nested property shape with ``sh:maxCount 1`` is one or two ``EXISTS`` per value
  (``_Compiler.at_most_one``): on a small shapes graph, the focus nodes it fails are the
  ones SHACL's definitions fail (listed by hand) and pyshacl's.
"""

from __future__ import annotations

import dataclasses
import logging

import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF, XSD

from reprokg.validation.fast import compiler, queries, runtime
from reprokg.validation.shapes import materialise_types

EX = "https://example.org/"
EXTRA = [Literal("zz extra"), URIRef(EX + "extra-1"), URIRef(EX + "extra-2"), Literal(7)]


def _unscreened(compiled: compiler.Compiled) -> compiler.Compiled:
    """The plan without screens: every merged query runs (the engine before the screen)."""
    plan: list = []
    for step, query in compiled.plan:
        plan += step.members if isinstance(step, queries.Screen) else [(step, query)]
    return dataclasses.replace(compiled, plan=plan)


def _edits(graph: Graph, compiled: compiler.Compiled) -> list[Graph]:
    """``graph`` edited on each screened target's paths: a focus node's values of a path
    removed, four more values added, its values replaced by a value of another kind."""
    out = []
    data = materialise_types(graph)
    for step, _q in compiled.plan:
        if not isinstance(step, queries.Screen):
            continue
        target = step.members[0][0].target
        focus = [r[0] for r in data.query(f"SELECT ?this WHERE {{ {target} }}")]  # type: ignore[index]
        if not focus:
            continue
        this = sorted(focus, key=str)[0]
        for path in dict.fromkeys(p for m, _q in step.members for p in m.entries):
            p = URIRef(path[1:-1])
            values = list(graph.objects(this, p))  # type: ignore[arg-type]
            dropped, added, swapped = (Graph(), Graph(), Graph())
            for g in (dropped, added, swapped):
                for t in graph:
                    g.add(t)
            for o in values:
                dropped.remove((this, p, o))
                swapped.remove((this, p, o))
            for o in EXTRA:
                added.add((this, p, o))
            swapped.add((this, p, Literal("2020-13-01", datatype=XSD.date)))
            out += [dropped, added, swapped]
    return out


def _found(compiled: compiler.Compiled, graphs: list[Graph], kind: str) -> list[list[str]]:
    return [
        sorted(f"{b.component} {b.path} {focus} {value}" for b, focus, value, _p in doc)
        for doc in runtime.evaluate_compiled(compiled, graphs, kind)
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    "kind", ["qra", "stability-analysis", "run", "re-execution", "candidate-matches"]
)
def test_a_screen_hides_no_result_of_its_merged_queries(kind: str) -> None:
    from benchmarks.validation import corpus

    logging.getLogger("rdflib").setLevel(logging.CRITICAL)  # the ill-typed date, on purpose
    docs = corpus.by_kind(corpus.documents())[kind]
    compiled = compiler.compile_kind(kind)
    assert any(isinstance(step, queries.Screen) for step, _q in compiled.plan)
    edited = _edits(docs[0].graph, compiled)
    assert len(edited) >= 9
    graphs = [docs[0].graph, *edited]
    ours = _found(compiled, graphs, kind)
    reference = _found(_unscreened(compiled), graphs, kind)
    assert ours == reference  # one batch, one named graph each (as ingest validates)
    for g in edited:  # alone: no other document's flag runs a merged query for it
        assert _found(compiled, [g], kind) == _found(_unscreened(compiled), [g], kind)
    # the edits are found (the comparison is not between two empty lists)
    for component in ("MinCount", "MaxCount", "Datatype"):
        assert any(f"#{component}ConstraintComponent" in r for doc in ours for r in doc)
    assert sum(doc != ours[0] for doc in ours[1:]) >= len(edited) // 2


SHAPES = f"""
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix ex: <{EX}> .
ex:S a sh:NodeShape ; sh:targetClass ex:T ; sh:property [ sh:path ex:m ; sh:node ex:M ] .
ex:M a sh:NodeShape ;
    sh:property [ sh:path ex:v ; sh:datatype xsd:decimal ; sh:minCount 1 ; sh:maxCount 1 ] ;
    sh:property [ sh:path ex:d ; sh:nodeKind sh:IRI ; sh:maxCount 1 ] ;
    sh:property [ sh:path ex:w ; sh:maxCount 1 ] .
"""

#: measurement node -> its values; the focus node ex:t-<name> points to ex:<name>
MEASUREMENTS: dict[str, list[tuple[str, object]]] = {
    "ok": [("v", Literal("1.5", datatype=XSD.decimal))],
    "ok-with-iri": [("v", Literal("1.5", datatype=XSD.decimal)), ("d", URIRef(EX + "a"))],
    "no-value": [("d", URIRef(EX + "a"))],
    "two-values": [
        ("v", Literal("1.5", datatype=XSD.decimal)),
        ("v", Literal("2.5", datatype=XSD.decimal)),
    ],
    "wrong-datatype": [("v", Literal("1.5"))],
    "one-good-one-bad": [("v", Literal("x")), ("v", Literal("1.5", datatype=XSD.decimal))],
    "two-iris": [
        ("v", Literal("1.5", datatype=XSD.decimal)),
        ("d", URIRef(EX + "a")),
        ("d", URIRef(EX + "b")),
    ],
    "literal-not-iri": [("v", Literal("1.5", datatype=XSD.decimal)), ("d", Literal("a"))],
    "two-unconstrained": [
        ("v", Literal("1.5", datatype=XSD.decimal)),
        ("w", Literal("a")),
        ("w", Literal("b")),
    ],
    "one-unconstrained": [("v", Literal("1.5", datatype=XSD.decimal)), ("w", Literal("a"))],
}
#: SHACL's definitions: exactly one xsd:decimal ex:v, at most one ex:d (an IRI), ex:w
FAILING = {
    "no-value",
    "two-values",
    "wrong-datatype",
    "one-good-one-bad",
    "two-iris",
    "literal-not-iri",
    "two-unconstrained",
}


def _nested_data() -> Graph:
    g = Graph()
    for name, values in MEASUREMENTS.items():
        focus, node = URIRef(f"{EX}t-{name}"), URIRef(EX + name)
        g.add((focus, RDF.type, URIRef(EX + "T")))
        g.add((focus, URIRef(EX + "m"), node))
        for p, o in values:
            g.add((node, URIRef(EX + p), o))  # type: ignore[arg-type]
    return g


def test_nested_at_most_one_fails_what_shacl_fails() -> None:
    import pyshacl
    from rdflib.namespace import SH

    shapes = Graph().parse(data=SHAPES, format="turtle")
    compiled = compiler.compile_shapes(shapes)
    data = _nested_data()
    [found] = runtime.evaluate_compiled(compiled, [data])
    ours = {str(focus.value).removeprefix(EX + "t-") for _b, focus, _v, _p in found}  # type: ignore[attr-defined]
    assert ours == FAILING
    _conforms, report, _text = pyshacl.validate(data, shacl_graph=shapes)
    theirs = {  # the results of the report (not their sh:detail)
        str(report.value(r, SH.focusNode)).removeprefix(EX + "t-")
        for r in report.objects(None, SH.result)
    }
    assert theirs == FAILING
