"""Remote backend pieces that need no engine: result parsing and query-form detection.

Expected shapes are the SPARQL 1.1 Query Results JSON spec's examples and what
Virtuoso 7.2 actually sends (captured from the engine the contract suite starts).
"""

from __future__ import annotations

from rdflib import BNode, Literal, URIRef
from rdflib.namespace import XSD

from reprokg.store.base import AskResult, SelectResult
from reprokg.store.remote import parse_results_json, query_form


def test_query_form_skips_prologue_and_comments() -> None:
    assert query_form("PREFIX ex: <http://e/#select>\n# ASK in a comment\nASK { }") == "ASK"
    assert query_form("BASE <http://x/> CONSTRUCT WHERE { ?s ?p ?o }") == "CONSTRUCT"
    assert query_form("describe <http://x>") == "DESCRIBE"
    assert query_form("SELECT * { ?s ?p ?o }") == "SELECT"


def test_standard_boolean() -> None:
    assert parse_results_json(b'{"head":{},"boolean":true}') == AskResult(True)


def test_virtuoso_ask_table_is_normalised() -> None:
    true = (
        b'{ "head": { "link": [], "vars": ["__ASK_RETVAL"] }, "results": { "distinct": false,'
        b' "ordered": true, "bindings": [ { "__ASK_RETVAL": { "type": "typed-literal",'
        b' "datatype": "http://www.w3.org/2001/XMLSchema#integer", "value": "1" }} ] } }'
    )
    false = (
        b'{ "head": { "link": [], "vars": ["__ASK_RETVAL"] }, "results": { "distinct": false,'
        b' "ordered": true, "bindings": [ ] } }'
    )
    assert parse_results_json(true) == AskResult(True)
    assert parse_results_json(false) == AskResult(False)


def test_terms_including_virtuoso_spellings() -> None:
    res = parse_results_json(
        b'{"head":{"vars":["a","b","c","d","e"]},"results":{"bindings":[{'
        b'"a":{"type":"uri","value":"http://x/1"},'
        b'"b":{"type":"bnode","value":"nodeID://b10000"},'
        b'"c":{"type":"typed-literal","datatype":"http://www.w3.org/2001/XMLSchema#integer",'
        b'"value":"3"},'
        b'"d":{"type":"literal","xml:lang":"en-gb","value":"colour"},'
        b'"e":{"type":"literal","datatype":"http://www.w3.org/2001/XMLSchema#string",'
        b'"value":"s"}}, {}]}}'
    )
    assert isinstance(res, SelectResult)
    assert res.variables == ["a", "b", "c", "d", "e"]
    assert res.rows[0] == (
        URIRef("http://x/1"),
        BNode("b10000"),
        Literal("3", datatype=XSD.integer),
        Literal("colour", lang="en-gb"),
        Literal("s"),
    )
    assert res.rows[1] == (None, None, None, None, None)


def test_virtuoso_graph_variables_are_kept_to_documents() -> None:
    """Each ``GRAPH ?var {`` (and ``$var``) opens with a filter naming the merge and Virtuoso's
    system prefixes; a constant ``GRAPH <…>`` is left as written. No request is sent."""
    from reprokg.store.remote import MERGE_GRAPH, RemoteStore

    store = RemoteStore("virtuoso+http://127.0.0.1:9/sparql")  # never contacted
    text = store._documents_only(
        "SELECT * WHERE { GRAPH ?doc { ?s ?p ?o } graph $h{ ?a ?b ?c } "
        "GRAPH <http://x/g> { ?x ?y ?z } }"
    )
    assert text.count("FILTER(") == 2
    assert "GRAPH ?doc { FILTER(isIRI(?doc) && ?doc NOT IN (" in text
    assert f"<{MERGE_GRAPH}>" in text and "GRAPH $h { FILTER(isIRI($h)" in text
    assert '!STRSTARTS(STR(?doc), "http://www.openlinksw.com/")' in text
    assert "GRAPH <http://x/g> { ?x ?y ?z }" in text
    # a literal, a long literal or a comment that says it is not rewritten
    quoted = store._documents_only(
        'SELECT * WHERE { ?s ?p "GRAPH ?g { x" . ?s ?q """a\nGRAPH ?h {""" . '
        "?s ?r 'GRAPH ?i {' # GRAPH ?j {\n GRAPH ?k { ?a ?b ?c } }"
    )
    assert quoted.count("FILTER(") == 1 and "GRAPH ?k { FILTER(isIRI(?k)" in quoted
    assert '"GRAPH ?g { x"' in quoted and "# GRAPH ?j {\n" in quoted
    store.close()
