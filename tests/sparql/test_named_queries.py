"""Named queries: header parsing, parameters bound as RDF terms, injection attempts inert."""

from __future__ import annotations

import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.plugins.sparql import prepareQuery

from reprokg.sparql.named import (
    NamedQueryError,
    get_query,
    load_queries,
    parse_param_args,
    parse_query,
    results_csv,
    results_json,
)
from reprokg.store.base import SelectResult

TEMPLATE = """# title: Things by label
# description: Things whose label is the given string,
# description: optionally of a type.
# param: label string — the exact label
# param: type iri optional — restrict to this class
# param: min integer optional — smallest size
# example: label=Alpha
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?thing ?label WHERE {
  ?thing rdfs:label ?label .
  ?thing a ?type .  #? type
  ?thing <http://ex/size> ?size . FILTER(?size >= ?min)  #? min
}
ORDER BY ?thing
"""

EVIL = 'x" } ; DROP ALL ; INSERT DATA { <http://e/s> <http://e/p> "o" } #'


def _graph() -> Graph:
    g = Graph()
    a, b, c = URIRef("http://ex/a"), URIRef("http://ex/b"), URIRef("http://ex/c")
    rdfs_label = URIRef("http://www.w3.org/2000/01/rdf-schema#label")
    rdf_type = URIRef("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
    g.add((a, rdfs_label, Literal("Alpha")))
    g.add((a, rdf_type, URIRef("http://ex/Cat")))
    g.add((a, URIRef("http://ex/size"), Literal(3)))
    g.add((b, rdfs_label, Literal("Alpha")))
    g.add((b, rdf_type, URIRef("http://ex/Dog")))
    g.add((b, URIRef("http://ex/size"), Literal(9)))
    g.add((c, rdfs_label, Literal(EVIL)))
    return g


def _run(sparql: str) -> list[str]:
    return sorted(str(r[0]) for r in _graph().query(sparql))


def test_header_is_parsed() -> None:
    q = parse_query("things", TEMPLATE)
    assert q.title == "Things by label"
    assert q.description == "Things whose label is the given string, optionally of a type."
    assert [(p.name, p.type, p.optional) for p in q.params] == [
        ("label", "string", False),
        ("type", "iri", True),
        ("min", "integer", True),
    ]
    assert q.params[0].doc == "the exact label"
    assert q.examples == [{"label": "Alpha"}]


def test_bound_values_select_the_expected_rows() -> None:
    q = parse_query("things", TEMPLATE)
    assert _run(q.bind({"label": "Alpha"})) == ["http://ex/a", "http://ex/b"]
    assert _run(q.bind({"label": "Alpha", "type": "http://ex/Dog"})) == ["http://ex/b"]
    assert _run(q.bind({"label": "Alpha", "min": "5"})) == ["http://ex/b"]
    assert _run(q.bind({"label": "Beta"})) == []


def test_missing_unknown_and_mistyped_parameters_are_refused() -> None:
    q = parse_query("things", TEMPLATE)
    with pytest.raises(NamedQueryError, match="needs parameter 'label'"):
        q.bind({})
    with pytest.raises(NamedQueryError, match="no parameter"):
        q.bind({"label": "Alpha", "colour": "red"})
    with pytest.raises(NamedQueryError, match="not an integer"):
        q.bind({"label": "Alpha", "min": "5 } UNION { ?s ?p ?o"})
    with pytest.raises(NamedQueryError, match="not an absolute IRI"):
        q.bind({"label": "Alpha", "type": "http://ex/Dog> } ; DROP ALL ; <x:y"})


def test_injection_in_a_string_is_only_data() -> None:
    q = parse_query("things", TEMPLATE)
    sparql = q.bind({"label": EVIL})
    prepareQuery(sparql)  # still one well-formed SELECT
    assert "DROP ALL" not in sparql.split("VALUES", 1)[0]
    # the hostile text matches exactly the one resource whose label IS that text
    assert _run(sparql) == ["http://ex/c"]
    assert len(_graph()) == 7


def test_doi_and_orcid_are_normalised() -> None:
    q = parse_query(
        "p",
        "# param: doi doi — a DOI\n# param: who orcid — an ORCID\n"
        "SELECT ?x WHERE { ?x ?p ?doi . ?x ?q ?who }\n",
    )
    text = q.bind({"doi": "doi:10.1145/ABC.123", "who": "0000-0002-1825-0097"})
    assert "<https://doi.org/10.1145/abc.123>" in text
    assert "<https://orcid.org/0000-0002-1825-0097>" in text
    with pytest.raises(NamedQueryError, match="MOD 11-2"):
        q.bind({"doi": "10.1145/x", "who": "0000-0002-1825-0098"})
    with pytest.raises(NamedQueryError, match="not a DOI"):
        q.bind({"doi": "nope", "who": "0000-0002-1825-0097"})


def test_bad_header_is_reported() -> None:
    with pytest.raises(NamedQueryError, match="bad header"):
        parse_query("bad", "# param: x colour\nSELECT * WHERE { ?s ?p ?o }\n")


def test_param_args() -> None:
    assert parse_param_args(["a=1", "b=x=y"]) == {"a": "1", "b": "x=y"}
    with pytest.raises(NamedQueryError):
        parse_param_args(["novalue"])


def test_result_formats() -> None:
    res = SelectResult(["a", "b"], [(URIRef("http://x/1"), Literal('é, "q"')), (None, None)])
    assert results_csv(res) == 'a,b\r\nhttp://x/1,"é, ""q"""\r\n,\r\n'
    assert '"bindings": [{"a": {"type": "uri", "value": "http://x/1"}' in results_json(res)


@pytest.mark.slow
def test_shipped_queries_parse_and_their_examples_bind() -> None:
    queries = load_queries()
    for q in queries.values():
        assert q.title and q.description, q.name
        for ex in q.examples:
            prepareQuery(q.bind(ex))
    with pytest.raises(NamedQueryError, match="no named query"):
        get_query("does-not-exist")


def test_bind_header_derives_a_term_from_bound_parameters() -> None:
    text = (
        "# title: t\n# description: d\n"
        "# param: collection collection — c\n# param: measure string optional — m\n"
        "# bind: board leaderboard(collection, measure)\n"
        "SELECT ?x WHERE { ?x <http://e/p> ?board }\n"
    )
    q = parse_query("t", text)
    assert [d.to_dict() for d in q.derived] == [
        {"name": "board", "function": "leaderboard", "args": ["collection", "measure"]}
    ]
    bound = q.bind({"collection": "https://ir-datasets.com/nyt", "measure": "map"})
    assert "VALUES ?board { <https://w3id.org/reprokg/id/leaderboard/" in bound
    # a different measure is a different board; without the measure there is none
    other = q.bind({"collection": "https://ir-datasets.com/nyt", "measure": "P_10"})
    board = [ln for ln in bound.splitlines() if "?board {" in ln]
    assert board and board[0] not in other
    assert "?board {" not in q.bind({"collection": "https://ir-datasets.com/nyt"})
    for bad in (
        "board nosuch(collection)",  # unknown function
        "board leaderboard(collection, missing)",  # undeclared parameter
        "measure leaderboard(collection, measure)",  # shadows a parameter
        "board leaderboard",  # no argument list
    ):
        with pytest.raises(NamedQueryError, match="bad header '# bind"):
            parse_query("t", text.replace("board leaderboard(collection, measure)", bad))


@pytest.mark.slow
def test_values_marker_binds_inside_a_sub_select() -> None:
    text = (
        "# title: t\n# description: d\n# param: x string — x\n"
        "SELECT ?s WHERE {\n  { SELECT ?s WHERE {\n    #@values\n    ?s <http://e/p> ?x .\n"
        "  } LIMIT 10 }\n}\n"
    )
    bound = parse_query("t", text).bind({"x": "a"})
    inner = bound.index("{ SELECT ?s WHERE {")
    assert bound.index('VALUES ?x { "a" }') > inner  # inside the sub-select, not the outer group
    assert "#@values" not in bound
    prepareQuery(bound)


def test_values_in_every_union_branch_answer_as_bound_outside() -> None:
    """reproductions-of-doi binds ?doi in each UNION branch (every ``#@values`` line is
    replaced): the same rows as the template bound once outside the UNION."""
    from rdflib import Graph, Literal, URIRef

    from reprokg.core.namespaces import RK
    from reprokg.sparql.named import get_query, parse_query
    from reprokg.store.oxigraph import OxigraphStore

    ex = "http://example.org/"
    doi = URIRef("https://doi.org/10.1007/978-3-030-15712-8_26")
    g = Graph()
    for i in range(3):
        run, goal = URIRef(f"{ex}run{i}"), URIRef(f"{ex}goal{i}")
        g.add((run, RK.researchGoal, goal))
        g.add((run, RK.runTag, Literal(f"t{i}")))
        if i == 0:
            g.add((goal, RK.publication, doi))
        else:
            ev = URIRef(f"{ex}ev{i}")
            g.add((goal, RK.evaluation, ev))
            g.add((ev, RK.baselineRunTag, Literal("t0")))
    g.add((URIRef(ex + "audit"), RK.auditedPublication, doi))
    g.add((URIRef(ex + "rep"), RK.reproduces, doi))
    store = OxigraphStore()
    store.add_document(URIRef(ex + "d"), g)
    q = get_query("reproductions-of-doi")
    params = {"doi": str(doi)}
    branch_bound = q.bind(params)
    assert branch_bound.count("VALUES ?doi") == 4
    assert all(line.strip() != "#@values" for line in branch_bound.splitlines())
    outside = parse_query("outside", q.sparql.replace("#@values", "")).bind(params)
    assert outside.count("VALUES ?doi") == 1
    rows = store.query(branch_bound).rows
    assert len(rows) == 5 and rows == store.query(outside).rows


MANY = """# title: Labels of things
# param: thing iri many — the things
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?thing ?label WHERE { ?thing rdfs:label ?label }
"""


def test_a_many_parameter_binds_a_list_as_one_values_block() -> None:
    q = parse_query("labels", MANY)
    assert q.params[0].many and q.params[0].to_dict()["many"] is True
    assert _run(q.bind({"thing": ["http://ex/a", "http://ex/b"]})) == ["http://ex/a", "http://ex/b"]
    assert _run(q.bind({"thing": "http://ex/c"})) == ["http://ex/c"]  # one value is a list of one
    with pytest.raises(NamedQueryError, match="needs parameter 'thing'"):
        q.bind({"thing": []})
    with pytest.raises(NamedQueryError, match="not an absolute IRI"):
        q.bind({"thing": ["http://ex/a", EVIL]})  # every value is a term, or none is bound
    with pytest.raises(NamedQueryError, match="takes one value"):
        parse_query("things", TEMPLATE).bind({"label": ["Alpha", "Beta"]})
    with pytest.raises(NamedQueryError, match="is not 'optional' or 'many'"):
        parse_query("bad", "# param: x iri several\nSELECT * WHERE { ?x ?p ?o }")


@pytest.mark.slow
def test_every_query_of_the_package_is_read_by_the_library_with_its_header() -> None:
    """Every .rq the package ships parses through ``package_query`` with a title: one
    way to read SPARQL (package data, the named-query header), whatever the folder."""
    from reprokg.sparql.named import package_query
    from tests.conftest import REPO

    paths = sorted(
        str(p.relative_to(REPO))
        for p in REPO.rglob("*.rq")
        if p.relative_to(REPO).parts[0] not in {"tests", "benchmarks", "build"}
    )
    assert len(paths) > 50
    for path in paths:
        q = package_query(path)
        assert q.title != q.name, f"{path}: no '# title:' header"
        prepareQuery(q.sparql)


def test_no_module_above_the_sparql_layer_writes_sparql_values_or_splices_a_query() -> None:
    """Above ``sparql/`` (measures, the analyses, the service, the CLI) a query is a ``.rq``
    bound by ``NamedQuery.bind``: no ``VALUES`` written by hand, no ``.replace`` on a query,
    no ``.rq`` read by path. (Below it, ingest and the store build their own bookkeeping
    queries: they cannot import the library.)"""
    import re

    from tests.conftest import REPO

    above = ("measures", "survey", "stability", "studies", "intrinsic_dimension", "service", "cli")
    bad = []
    for folder in above:
        for path in sorted((REPO / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            code = re.sub(r'"""[\s\S]*?"""', "", text)  # docstrings may describe VALUES
            for pattern in (
                r"VALUES\s*[?(]",  # a VALUES block written by hand
                r"_?(FIND|STORED|QUERY)\w*\.replace\(",  # a query edited as text
                r"(SPARQL|QUERY)_DIR\b|\.rq\W.*read_text|read_text.*\.rq\b",  # read by path
            ):
                if re.search(pattern, code):
                    bad.append(f"{path.relative_to(REPO)}: {pattern}")
    assert not bad, bad


def test_a_collection_parameter_takes_the_shared_node_too() -> None:
    """find-baselines answers the shared collection node; fed back as ``collection=`` it is
    that node, not a new one minted from its text."""
    from reprokg.loaders.qrels import collection_iri
    from reprokg.sparql.named import Param, to_term

    p = Param("collection", "collection")
    node = collection_iri("https://ir-datasets.com/nyt")
    assert to_term(p, str(node)) == node
    assert to_term(p, "https://ir-datasets.com/nyt") == node
    # a collection outside the ir_datasets catalogue keeps a minted node; fed back, it is it
    minted = collection_iri("our-own-collection")
    assert str(minted).startswith("https://w3id.org/reprokg/id/collection/")
    assert to_term(p, str(minted)) == minted


def test_a_collection_is_one_node_however_its_ir_datasets_id_is_written() -> None:
    """``nyt``, ``https://ir-datasets.com/nyt`` and the site's page address name one
    collection, the IRI the ir_metadata headers write (issue 41: the user passed
    ``https://ir-datasets.com/nyt`` and was shown a hash)."""
    from reprokg.loaders.qrels import collection_iri
    from reprokg.sparql.named import Param, to_term

    p = Param("collection", "collection")
    want = "https://ir-datasets.com/nyt"
    written = ("nyt", "https://ir-datasets.com/nyt", "http://ir-datasets.com/nyt.html", " NYT ")
    assert {str(to_term(p, w)) for w in written} == {want}
    # a subset id of the catalogue (ir_datasets' metadata.json lists nyt/trec-core-2017)
    assert str(collection_iri("nyt/trec-core-2017")) == want + "/trec-core-2017"


PAGED = """# title: Things, a page at a time
# param: limit integer optional — page size
# param: offset integer optional — skip first
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?thing WHERE { ?thing rdfs:label ?label . }
ORDER BY ?thing
LIMIT 2
"""

NESTED = """# title: Top things with their types
# param: limit integer optional — how many things
# unit: things
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?thing ?type WHERE {
  { SELECT ?thing WHERE { ?thing rdfs:label ?label . } ORDER BY ?thing LIMIT 1 }
  OPTIONAL { ?thing a ?type }
}
"""


def test_offset_pages_and_whole_drops_the_limit() -> None:
    """Issue 39: ``offset`` pages, ``whole`` gives every row; the count is of the rows
    the LIMIT cuts (3 things of _graph, whatever the page)."""
    q = parse_query("paged", PAGED)
    pages = [_run(q.bind({"offset": str(o)})) for o in (0, 2)]
    assert pages == [["http://ex/a", "http://ex/b"], ["http://ex/c"]]
    assert _run(q.bind({}, whole=True)) == ["http://ex/a", "http://ex/b", "http://ex/c"]
    assert _run(q.bind({}, whole=True, cap=1)) == ["http://ex/a"]
    for values in ({}, {"offset": "2"}, {"limit": "1"}):
        assert [int(r[0]) for r in _graph().query(q.count_sparql(values))] == [3]
    for bad in ({"offset": "-1"}, {"offset": "x"}, {"limit": "0"}, {"limit": "1001"}):
        with pytest.raises(NamedQueryError):
            q.bind(bad)


def test_a_sub_selects_limit_counts_its_rows() -> None:
    """A LIMIT in a sub-select counts that sub-select's rows (find-baselines' runs): the
    count wraps the sub-select, not the outer rows (a thing with two types is one)."""
    q = parse_query("nested", NESTED)
    assert q.limit_is_nested() and q.unit == "things" and q.default_limit() == 1
    assert [int(r[0]) for r in _graph().query(q.count_sparql({}))] == [3]
    assert not parse_query("paged", PAGED).limit_is_nested()


def test_page_sentences() -> None:
    from reprokg.sparql.named import Page

    assert Page(0, 1000, 1000, 7720).sentence() == "1,000 of 7,720 rows (1-1,000)"
    last = Page(7000, 1000, 720, 7720)
    assert last.sentence() == "720 of 7,720 rows (7,001-7,720)" and not last.truncated
    runs = Page(0, 100, 120, 340, unit="runs")
    assert runs.sentence() == "120 rows: runs 1-100 of 340" and runs.next_offset == 100
    capped = Page(0, 10_000, 10_000, 14_819, cap=10_000)
    assert capped.truncated and capped.next_offset is None
    assert capped.headers()["X-Reprokg-Truncated"] == "rows capped at 10000"
