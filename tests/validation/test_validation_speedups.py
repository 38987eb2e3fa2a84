"""The ingest speed-ups change no result: each fast path against the slow one it replaces.

References are the libraries' own behaviour: an rdflib ``Graph`` filled with
``Graph.add`` (for :class:`~reprokg.core.lazy_graph.LazyGraph`), PyYAML's constructor (for
the one-pass YAML tree), pyoxigraph ``Quad`` objects (for the N-Quads text the fast
SHACL engine and the store's write path load instead).
"""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest
from rdflib import BNode, Literal, URIRef
from rdflib.namespace import RDF, XSD

from reprokg.core.lazy_graph import LazyGraph, pending_triples
from reprokg.core.namespaces import RK, SCHEMA, new_graph
from reprokg.loaders import ir_metadata
from reprokg.loaders.reading.yaml_scalars import _ScalarLoader, parse_yaml
from reprokg.store.base import DocumentWrite
from reprokg.store.oxigraph import _batch_merged_quads, _batch_nquads
from reprokg.validation.fast import compiler, queries, runtime
from tests.conftest import need

S = URIRef("https://w3id.org/reprokg/id/test/1")
TRICKY = Literal('quote " backslash \\ newline \n tab \t é 😀 \x01')
TRIPLES = [
    (S, RDF.type, RK.Run),
    (S, RK.runTag, TRICKY),
    (S, RK.runTag, TRICKY),  # a duplicate: a graph is a set
    (S, SCHEMA.name, Literal("x", lang="en-GB")),
    (S, RK.numberOfTopics, Literal(5)),
    (S, RK.commit, Literal("1234567", datatype=XSD.string)),
]


def test_lazy_graph_is_the_graph_add_would_build() -> None:
    ref = new_graph()
    for t in TRIPLES:
        ref.add(t)
    lazy = LazyGraph(TRIPLES)
    assert pending_triples(lazy) is not None
    assert len(lazy) == len(ref) == 5
    assert set(lazy) == set(ref)
    assert pending_triples(lazy) is not None  # len and iteration do not fill it
    assert lazy.serialize(format="turtle") == ref.serialize(format="turtle")
    assert pending_triples(lazy) is None  # filled: an ordinary graph from here on
    assert sorted(lazy.namespaces()) == sorted(ref.namespaces())
    lazy.remove((S, RK.runTag, None))
    assert len(lazy) == 4
    assert (S, RK.runTag, TRICKY) not in lazy


def test_loader_graph_fills_like_a_plain_graph(shared_data: Path) -> None:
    path = shared_data / "ir_metadata" / "annotated_run_example.txt"
    need(path.is_file(), f"{path} missing")
    doc = ir_metadata.load(path.read_bytes(), path.name)[0]
    listed = list(doc.graph)
    ref = new_graph()
    for t in listed:
        ref.add(t)
    assert len(ref) == len(listed)  # the list holds no duplicates
    assert set(doc.graph.triples((None, None, None))) == set(ref)  # through the store


YAML_TEXTS = [
    "a: 1\nb: [x, 'y', \"z\"]\nc:\n  d: yes\n  e: ~\n  f: 2020-01-01\n  g: 3.10\n",
    "- a\n- b: c\n  d: |\n    text\n",
    "k: 1\nk: 2\n",  # a repeated key: the last value, the first key object
    "12: 0123\n'q': \"1\"\n",
    "set: !!set {x, y}\n",  # an explicit tag: PyYAML's constructor builds it
    "base: {x: 1}\n<<: {y: 2}\n",  # a merge key: likewise
]


def _dump(value: object) -> object:
    if isinstance(value, dict):
        return [(_dump(k), _dump(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_dump(v) for v in value]
    if isinstance(value, str):
        attrs = ("line", "column", "tag", "quoted")
        return (type(value).__name__, str(value), *(getattr(value, a, None) for a in attrs))
    return repr(value)


@pytest.mark.parametrize("text", YAML_TEXTS)
@pytest.mark.parametrize("offset", [0, 7])
def test_one_pass_yaml_tree_equals_pyyaml_construction(text: str, offset: int) -> None:
    loader = _ScalarLoader(text)  # the pure-Python loader: PyYAML's constructor
    try:
        expected = loader.get_single_data()
    finally:
        loader.dispose()

    def shift(v: object) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                k.line += offset  # type: ignore[attr-defined]
                shift(x)
        elif isinstance(v, list):
            for x in v:
                shift(x)
        elif hasattr(v, "line"):
            v.line += offset  # type: ignore[attr-defined]

    shift(expected)
    assert _dump(parse_yaml(text, "t.yaml", line_offset=offset)) == _dump(expected)


def test_fast_engine_loads_only_what_its_queries_read() -> None:
    keep = runtime.relevant_predicates("run")
    assert keep is not None and str(RDF.type) in keep and str(RK.runTag) in keep
    assert queries.OPEN_TYPES not in keep
    unread = URIRef("https://w3id.org/reprokg/ext#not-in-any-shape")
    graph = LazyGraph([*TRIPLES, (S, unread, Literal("kept in the document"))])
    text = runtime._nquads([graph], ["<urn:g:0>"], "run")
    assert text is not None
    store = ox.Store()
    store.load(text, format=ox.RdfFormat.N_QUADS)
    quads = {(q.subject.value, q.predicate.value, str(q.object)) for q in store}
    assert (str(S), str(RK.runTag), str(ox.Literal(str(TRICKY)))) in quads
    assert not any(p == str(unread) for _s, p, _o in quads)


def _rdflib_iris(query: str) -> set[str] | None:
    """The reference reading of a query's IRIs: rdflib's SPARQL parse, walked (what
    reprokg.validation.fast used before its tokenizer; 2-9 s per kind)."""
    from rdflib.paths import AlternativePath, InvPath, MulPath, NegatedPath, SequencePath
    from rdflib.plugins.sparql import prepareQuery
    from rdflib.term import Variable

    found: set[str] = set()

    def path_ok(p: object) -> bool:
        if isinstance(p, URIRef):
            found.add(str(p))
            if str(p) == str(RDF.type):
                found.add(queries.OPEN_TYPES)  # inside a path: its class end is not fixed
            return True
        if isinstance(p, SequencePath | AlternativePath):
            return all(path_ok(x) for x in p.args)
        if isinstance(p, InvPath):
            return path_ok(p.arg)
        if isinstance(p, MulPath):
            return path_ok(p.path)
        return False  # a variable, a negated property set, anything new

    def walk(node: object) -> bool:
        if isinstance(node, URIRef):
            found.add(str(node))
        elif isinstance(node, NegatedPath):
            return False
        elif isinstance(node, dict):  # algebra nodes (CompValue) are dicts
            for key, value in node.items():
                if key == "triples" and isinstance(value, list):
                    for t in value:
                        if len(t) != 3 or isinstance(t[1], Variable):
                            return False
                        if isinstance(t[1], URIRef):
                            found.add(str(t[1]))
                            if str(t[1]) == str(RDF.type) and not isinstance(t[2], URIRef):
                                found.add(queries.OPEN_TYPES)
                        elif not path_ok(t[1]):
                            return False
                        walk(t[0])
                        walk(t[2])
                elif not walk(value):
                    return False
        elif isinstance(node, list | tuple | set):
            return all(walk(x) for x in node)
        return True

    try:
        algebra = prepareQuery(query).algebra
    except Exception:  # noqa: BLE001 - an unparsable text: read everything
        return None
    return found if walk(algebra) else None


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["qrels", "mlrc", "run", "survey", "gk2018"])
def test_relevant_predicates_cover_what_the_full_parse_finds(kind: str) -> None:
    """The tokenizer reading the sh:select bodies keeps every IRI rdflib's parse of the
    whole compiled queries finds (the old reading), and never reads fewer."""
    compiled = compiler.compile_kind(kind)
    assert compiled.bodies  # these kinds have SPARQL constraints or targets
    by_parse = {str(RDF.type)}
    for query in compiled.queries:
        iris = _rdflib_iris(query)
        assert iris is not None
        by_parse |= iris
    keep = runtime.relevant_predicates(kind)
    assert keep is not None and by_parse <= keep
    for body in set(compiled.bodies):
        query = compiled.head + "SELECT * WHERE {" + body + "}"
        assert (_rdflib_iris(query) or set()) <= (queries.query_iris(query) or set())


QUERIES = [
    "SELECT * WHERE { ?this ?p ?value }",
    "SELECT * WHERE { ?this a ?value }",
    "SELECT * WHERE { ?this <urn:a>/<urn:b> ?value ; ^<urn:c> [ <urn:d> ?x ] }",
    "SELECT * WHERE { ?this <urn:a> ?v . FILTER NOT EXISTS { ?v ?p ?o } }",
    "SELECT * WHERE { ?this <urn:a>|a ?v }",
    "SELECT * WHERE { ?this <urn:a> ?v . OPTIONAL { ?v a <urn:C> } FILTER(?v != <urn:x>) }",
    "SELECT * WHERE { ?this !<urn:a> ?v }",
    "SELECT * WHERE { ?this <urn:a> ?v , ?w ; <urn:b> ?x . ?x a [ <urn:e> 1 ] }",
    "SELECT * WHERE { { ?this <urn:a> ?v } UNION { ?this (<urn:b>/<urn:c>)* ?v } }",
]


@pytest.mark.parametrize("query", QUERIES)
def test_the_tokenizer_reads_no_less_than_the_parse(query: str) -> None:
    ref = _rdflib_iris(query)
    got = queries.query_iris(query)
    if ref is None:
        assert got is None  # any predicate may match: every triple is loaded
    else:
        assert got is None or ref <= got


def test_a_body_with_a_variable_predicate_keeps_every_triple() -> None:
    assert queries.query_iris("SELECT * WHERE { ?this ?p ?value }") is None
    typed = queries.query_iris("SELECT * WHERE { ?this a ?value }")
    assert typed is not None and queries.OPEN_TYPES in typed


def test_blank_nodes_keep_their_labels_in_the_fast_engine() -> None:
    b = BNode("b1")
    graph = LazyGraph([(S, RDF.type, RK.Run), (S, RK.runTag, b)])
    with pytest.raises(runtime._BlankNodeFound):
        runtime._nquads([graph], ["<urn:g:0>"], "run")
    quads = runtime._quads([graph], ["<urn:g:0>"])
    assert quads is not None and ox.BlankNode("b1") in {q.object for q in quads}


def test_store_batch_text_holds_the_quads_extend_would_write() -> None:
    writes = [
        DocumentWrite(URIRef("urn:doc:1"), TRIPLES, None),
        DocumentWrite(URIRef("urn:doc:2"), TRIPLES[:2], None),
    ]
    text = _batch_nquads(writes)
    assert text is not None
    by_load, by_extend = ox.Store(), ox.Store()
    by_load.load(text, format=ox.RdfFormat.N_QUADS, lenient=True)
    by_extend.extend(_batch_merged_quads(writes))
    assert set(by_load) == set(by_extend)
    assert len(set(by_extend)) == 5 + 2 + 5  # two named graphs and their merge
    assert _batch_nquads([DocumentWrite(URIRef("urn:doc:3"), [(S, RK.x, BNode())], None)]) is None


ODD_LITERALS = [
    TRICKY,
    Literal("\x00\x7f\u2028 \\u0041 \r\n"),
    Literal("x", lang="EN-gb"),
    Literal("01", datatype=XSD.integer, normalize=False),  # kept under the lossless marker
    Literal("1", datatype=XSD.integer),
    Literal("twelve", datatype=XSD.integer),  # ill-typed
    Literal("1.50", datatype=XSD.decimal),
    Literal("2020-1-1", datatype=XSD.date),
    Literal("TRUE", datatype=XSD.boolean),
    Literal("x", datatype=XSD.string),
    Literal("y", datatype=URIRef("https://example.org/my#type")),
    Literal('"quoted"', datatype=XSD.normalizedString),
]


def test_engine_text_holds_the_terms_pyoxigraph_builds() -> None:
    """The literals and IRIs the fast engine writes as text (json's C escaper, ``<iri>``)
    load as the very terms pyoxigraph's constructors make (``encode_literal``: markers
    for what the store would normalise)."""
    graph = LazyGraph(
        [(S, RK.runTag, lit) for lit in ODD_LITERALS] + [(S, RK.source, URIRef("urn:x:é"))]
    )
    by_text, by_quads = ox.Store(), ox.Store()
    text = runtime._nquads([graph], ["<urn:g:0>"])
    by_text.load(text, format=ox.RdfFormat.N_QUADS, lenient=True)
    by_quads.extend(runtime._quads([graph], ["<urn:g:0>"], entail=False))
    assert set(by_text) == set(by_quads)
    assert len(set(by_text)) == len(graph) + 1  # and the graph mark


def test_terms_the_store_refuses_are_left_out_of_the_engine_input() -> None:
    """A triple with a term pyoxigraph refuses is not validated (as ``for_shacl`` leaves
    it out for pyshacl; ``check_terms_the_store_takes`` reports it); in a user's data
    graph (no kind) it is an error."""
    bad = [
        (S, RK.source, URIRef("https://example.org/a b")),
        (S, RK.runTag, Literal("lone \ud800 surrogate")),
        (S, RK.runTag, Literal("1", datatype=URIRef("not an iri"))),
        (URIRef("https://example.org/{x}"), RK.runTag, Literal("x")),
    ]
    graph = LazyGraph([(S, RK.runTag, Literal("kept")), *bad])
    text = runtime._nquads([graph], ["<urn:g:0>"], "run")
    store = ox.Store()
    store.load(text, format=ox.RdfFormat.N_QUADS, lenient=True)
    assert [str(q.object) for q in store if q.predicate.value == str(RK.runTag)] == ['"kept"']
    with pytest.raises(ValueError, match="pyoxigraph accepts"):
        runtime._nquads([graph], ["<urn:g:0>"])


def test_a_batch_reads_each_plain_graph_once_and_sees_an_edit() -> None:
    """Inside ``triples_kept`` the engine and both checks share one list per graph (three
    rebuilds of it per document before); an added triple
    (a changed count) is read again, and outside nothing is kept."""
    from rdflib import Graph

    from reprokg.core.lazy_graph import graph_triples, triples_kept

    g = Graph()
    g.add((URIRef("https://example.org/a"), RDF.type, RK.Run))
    assert graph_triples(g) is not graph_triples(g)
    with triples_kept():
        first = graph_triples(g)
        assert graph_triples(g) is first
        with triples_kept():  # nested: the same lists
            assert graph_triples(g) is first
        g.add((URIRef("https://example.org/a"), RK.runTag, Literal("x")))
        again = graph_triples(g)
        assert again is not first and len(again) == 2
    assert graph_triples(g) is not graph_triples(g)


def test_an_exists_only_sparql_constraint_is_one_query_for_every_focus_node() -> None:
    """A ``sh:sparql`` constraint whose body is only ``FILTER NOT EXISTS { $this ... }``
    (common.ttl: an assessment names its work or its report) was run once per focus node
    with ``$this`` pre-bound (five queries per re-execution record, and refused for a
    blank node); it is one query now, with pyshacl's results, blank nodes included."""
    from rdflib import Graph

    assert compiler.compile_kind("re-execution").per_focus == []
    g = Graph()
    lone, blank, named = (
        URIRef("https://example.org/a"),
        BNode("b1"),
        URIRef("https://example.org/c"),
    )
    for node in (lone, blank, named):
        g.add((node, RDF.type, RK.ReproductionAssessment))
    g.add((named, RK.assessedWork, URIRef("https://doi.org/10.1000/xyz")))
    component = "http://www.w3.org/ns/shacl#SPARQLConstraintComponent"
    [found] = runtime.evaluate("re-execution", [g])
    ours = {(focus, value) for b, focus, value in found if b.component == component}
    assert ours == {(str(lone), str(lone)), ("b1", "b1")}
    from reprokg.validation.pyshacl_engine import shacl_results
    from reprokg.validation.shapes import materialise_types

    ref = {
        (r.focus_node, r.value)
        for r in shacl_results(materialise_types(g), "re-execution")
        if r.constraint == component
    }
    assert ref == ours


#: (triple, what the report says) for each kind of term the store refuses (issue 28)
HOSTILE = [
    ((URIRef("https://example.org/a b"), RK.runTag, Literal("x")), "is not an IRI (RFC 3987)"),
    ((S, URIRef("https://example.org/p{q}"), Literal("x")), "is not an IRI (RFC 3987)"),
    ((S, RK.evidenceLink, URIRef("https://example.org/<x>")), "is not an IRI (RFC 3987)"),
    ((S, RK.runTag, Literal("a\ud800b")), "lone surrogate"),
    ((S, RK.runTag, Literal("1", datatype=URIRef("not an iri"))), "is not an IRI (RFC 3987)"),
    ((S, SCHEMA.url, URIRef("javascript:alert(1)")), "a link must be an http(s) URL"),
]


@pytest.mark.parametrize(("triple", "said"), HOSTILE)
def test_the_one_pass_store_check_misses_no_refused_term(triple, said) -> None:
    """``_all_taken`` (set-wise, the usual case's shortcut) lets the term-by-term check
    run whenever it would find something: each term the store refuses is reported, also
    after a clean document with the same predicates filled the known-IRI cache."""
    from rdflib import Graph

    from reprokg.validation.checks import check_terms_the_store_takes

    clean = Graph()
    for t in TRIPLES[:4]:
        clean.add(t)
    clean.add((S, SCHEMA.url, URIRef("HTTPS://example.org/ok")))  # a scheme in capitals
    clean.add((S, RK.evidenceLink, URIRef("https://example.org/ok")))
    clean.add((S, RK.runTag, Literal("é, not ASCII and fine")))
    assert check_terms_the_store_takes(clean) == []
    bad = Graph()
    for t in clean:
        bad.add(t)
    bad.add(triple)
    found = check_terms_the_store_takes(bad)
    assert [r.severity for r in found] == ["Violation"]
    assert said in found[0].message
