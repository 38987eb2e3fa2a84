"""SERVICE and LOAD are refused from the parse tree, whatever the spelling; USING injection."""

from __future__ import annotations

import pytest
from rdflib.plugins.sparql.parser import parseUpdate

from reprokg.core.errors import QuerySyntaxError, Refused
from reprokg.sparql.guard import (
    add_using,
    inspect_query,
    inspect_update,
    select_star_order,
)

SERVICE_QUERIES = [
    "SELECT * { SERVICE <http://evil.example/sparql> { ?s ?p ?o } }",
    "select * { service <http://evil.example/sparql> { ?s ?p ?o } }",
    "SELECT * { SeRvIcE SILENT <http://evil.example/sparql> { ?s ?p ?o } }",
    "SELECT * { ?a ?b ?c OPTIONAL { SERVICE <http://evil.example/> { ?s ?p ?o } } }",
    "SELECT * { { SELECT ?s { SERVICE <http://e/> { ?s ?p ?o } } } }",
    "SELECT * { VALUES ?svc { <http://e/> } SERVICE ?svc { ?s ?p ?o } }",
    "SELECT * { # a comment\n SERVICE#c\n<http://e/>{ ?s ?p ?o } }",
    "SELECT * { ?s ?p ?o FILTER EXISTS { SERVICE <http://e/> { ?s ?p ?o } } }",
    "ASK { MINUS { SERVICE <http://e/> { ?s ?p ?o } } }",
    "CONSTRUCT { ?s ?p ?o } WHERE { { ?s ?p ?o } UNION { SERVICE <http://e/> { ?s ?p ?o } } }",
    # the \\u code-point escape is expanded before parsing (SPARQL 1.1 §19.2)
    "SELECT * { \\u0053ERVICE <http://e/> { ?s ?p ?o } }",
]


@pytest.mark.parametrize("query", SERVICE_QUERIES)
def test_service_refused(query: str) -> None:
    with pytest.raises(Refused, match="SERVICE"):
        inspect_query(query)


@pytest.mark.parametrize(
    "query",
    [
        'SELECT * { ?s ?p "SERVICE <http://e/> { }" }',  # in a string
        "SELECT * { ?s ?p ?o } # SERVICE <http://e/> { ?s ?p ?o }",  # in a comment
        "SELECT * { ?s <http://example.org/service> ?o }",  # in an IRI
        "PREFIX service: <http://x/> SELECT * { ?s service:p ?o }",  # a prefix name
        "SELECT ?service { ?service ?p ?o }",  # a variable
    ],
)
def test_harmless_mentions_pass(query: str) -> None:
    assert inspect_query(query).operation == "query"


def test_update_with_service_in_where_refused() -> None:
    with pytest.raises(Refused, match="SERVICE"):
        inspect_update("INSERT { ?s ?p ?o } WHERE { service <http://e/> { ?s ?p ?o } }")


@pytest.mark.parametrize(
    "update",
    [
        "LOAD <http://evil.example/data.ttl>",
        "load silent <http://evil.example/data.ttl> INTO GRAPH <http://g/>",
        "CLEAR ALL ; LOAD <file:///etc/passwd>",
        "# comment\nLoAd <http://e/x>",
    ],
)
def test_load_refused(update: str) -> None:
    with pytest.raises(Refused, match="LOAD"):
        inspect_update(update)


def test_load_allowed_only_from_allowlist() -> None:
    ok = "http://kasei.us/2009/09/sparql/data/data1.rdf"
    assert inspect_update(f"LOAD <{ok}>", load_allow=[ok]).operation == "update"
    with pytest.raises(Refused):
        inspect_update(f"LOAD <{ok}x>", load_allow=[ok])


def test_syntax_errors() -> None:
    with pytest.raises(QuerySyntaxError):
        inspect_update("CLEAR XYZ")
    with pytest.raises(QuerySyntaxError):
        inspect_query("SELECT * FROM <http://g> {")


def test_dataset_detection() -> None:
    assert inspect_query("SELECT * FROM <http://g/> { ?s ?p ?o }").has_dataset
    assert inspect_query("SELECT * FROM NAMED <http://g/> { GRAPH ?g { ?s ?p ?o } }").has_dataset
    assert not inspect_query("SELECT ?from { ?from ?p ?o }").has_dataset
    assert inspect_update("WITH <http://g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }").has_dataset
    assert inspect_update("DELETE { ?s ?p ?o } USING <http://g> WHERE { ?s ?p ?o }").has_dataset
    assert not inspect_update("INSERT DATA { <http://s> <http://p> 'with' }").has_dataset


def test_add_using_places_clauses_before_top_level_where() -> None:
    text = (
        "PREFIX ex: <http://ex/where#>\n"
        "INSERT DATA { ex:a ex:b 'WHERE { }' } ;\n"
        "DELETE { ?s ex:where ?o } INSERT { ?s ex:p ?o } WHERE { ?s ex:where ?o . "
        "FILTER NOT EXISTS { ?o ?p ?x } } ;\n"
        "DELETE WHERE { ?a ?b ?c }"
    )
    out = add_using(text, ["http://g/1"], ["http://g/2"])
    assert out.count("USING <http://g/1> USING NAMED <http://g/2> WHERE") == 1
    tree = parseUpdate(out)  # still valid SPARQL, and rdflib sees the clauses
    modify = tree.request[1]
    assert [str(dict.get(u, "default") or dict.get(u, "named")) for u in modify["using"]] == [
        "http://g/1",
        "http://g/2",
    ]
    assert "using" not in tree.request[2]  # DELETE WHERE takes no USING


def test_select_star_order() -> None:
    q = "SELECT * { ?s ?p ?o OPTIONAL { ?o ?p2 ?o2 } }"
    assert select_star_order(q) == ["s", "p", "o", "p2", "o2"]
    assert select_star_order("SELECT ?o ?s { ?s ?p ?o }") is None


def test_overlong_text_needing_the_parse_tree_is_refused() -> None:
    from reprokg.sparql.guard import MAX_PARSE_CHARS

    filler = "# " + "x" * MAX_PARSE_CHARS + "\n"
    with pytest.raises(Refused, match="characters long"):
        inspect_query(filler + "SELECT * { SERVICE <http://e/> { ?s ?p ?o } }")
    # without a keyword to look for, length alone is not a reason to refuse
    assert inspect_query(filler + "ASK {}").operation == "query"
