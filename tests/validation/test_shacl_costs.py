"""User SHACL shapes are hostile input (issue 38): what the engine cannot parse, and what
would pin a worker for its whole time limit, is refused before anything runs, as a
``ShapesError`` (422, exit 2) naming the shape and the limit.

The probe's inputs: an ``sh:select`` with ``FROM``, a trailing ``; LOAD``, a syntax error
(the engine's ``SyntaxError`` escaped as a 500); a 48 KB ``sh:sparql`` join, a 1.3 MB
``sh:in``, an ``sh:zeroOrMorePath`` over a 3,000-node cycle (each ran until the parse
worker was killed).
"""

from __future__ import annotations

import time

import pytest

from reprokg.core.errors import ShapesError
from reprokg.validation.shacl import validate_sources

PREFIXES = "@prefix sh: <http://www.w3.org/ns/shacl#> .\n@prefix ex: <http://example.org/> .\n"


def cycle(n: int) -> bytes:
    """``n`` nodes in one ``ex:p`` cycle."""
    return (PREFIXES + "".join(f"ex:n{i} ex:p ex:n{(i + 1) % n} .\n" for i in range(n))).encode()


def select_shapes(query: str) -> bytes:
    return (
        PREFIXES + f'ex:S a sh:NodeShape ; sh:targetSubjectsOf ex:p ; sh:sparql [ sh:select """'
        f'{query}""" ] .\n'
    ).encode()


def ask_shapes(query: str) -> bytes:
    """A SPARQL-based constraint component whose ASK validator is ``query``, used by ex:S."""
    return (
        PREFIXES
        + "ex:C a sh:ConstraintComponent ; sh:parameter [ sh:path ex:flag ] ;\n"
        + f'  sh:validator [ a sh:SPARQLAskValidator ; sh:ask """{query}""" ] .\n'
        + "ex:S a sh:NodeShape ; sh:targetSubjectsOf ex:p ; ex:flag true .\n"
    ).encode()


def run(shapes: bytes, data: bytes = b"") -> list:
    return validate_sources([("shapes.ttl", shapes), ("data.ttl", data or cycle(3))])


BAD_SELECT = {
    "from": "SELECT $this FROM <http://example.org/g> WHERE { $this ?p ?o }",
    "from-named": "SELECT $this FROM NAMED <http://example.org/g> WHERE { $this ?p ?o }",
    "load": "SELECT $this WHERE { $this ?p ?o } ; LOAD <http://example.org/x>",
    "insert": "INSERT { $this ?p ?o } WHERE { $this ?p ?o }",
    "syntax": "SELECT $this WHERE { $this ?p ?o . ?x }",
}
BAD_ASK = {
    "from": "ASK FROM <http://example.org/g> { $value ?p ?o }",
    "load": "ASK { $value ?p ?o } ; LOAD <http://example.org/x>",
    "delete": "DELETE WHERE { $value ?p ?o }",
    "syntax": "ASK { $value ?p }",
}


@pytest.mark.parametrize("query", BAD_SELECT.values(), ids=BAD_SELECT.keys())
def test_a_select_the_engine_must_not_run_is_a_shapes_error(query: str) -> None:
    """On main: FROM, ``; LOAD``, INSERT and a syntax error escaped as SyntaxError (500)."""
    with pytest.raises(ShapesError, match="shape http://example.org/S: SPARQL of"):
        run(select_shapes(query))


@pytest.mark.parametrize("query", BAD_ASK.values(), ids=BAD_ASK.keys())
def test_an_ask_the_engine_must_not_run_is_a_shapes_error(query: str) -> None:
    with pytest.raises(ShapesError, match="shape http://example.org/S: validator of"):
        run(ask_shapes(query))


def test_from_inside_iris_names_and_strings_is_no_dataset() -> None:
    """The FROM check reads keywords only: an IRI, a variable or a string holding 'from'
    is a good query (here: every ex:n node fails it)."""
    query = (
        "SELECT $this ?from WHERE { "
        "$this <http://example.org/p> ?from . ?from <http://example.org/from>* ?from . "
        'FILTER(STR(?from) != "from") }'
    )
    (report,) = run(select_shapes(query))
    assert len(report.results) == 3


def _quick(shapes: bytes, data: bytes, limit: str, seconds: float = 10.0) -> ShapesError:
    start = time.monotonic()
    with pytest.raises(ShapesError) as caught:
        run(shapes, data)
    assert time.monotonic() - start < seconds
    assert caught.value.details["limit"] == limit
    return caught.value


def test_a_long_sh_in_is_refused_before_it_is_compiled() -> None:
    """60,000 members: the engine died with SIGSEGV on main (the probe's 1.3 MB list ran
    until the worker was killed). 1,001 members is one past the limit."""
    members = " ".join(f'"v{i}"' for i in range(1_001))
    shapes = (
        PREFIXES + "ex:S a sh:NodeShape ; sh:targetSubjectsOf ex:p ;\n"
        f"  sh:property [ sh:path ex:p ; sh:in ( {members} ) ] .\n"
    ).encode()
    error = _quick(shapes, cycle(3), "shacl_max_in")
    assert error.details["limit_value"] == 1_000 and "sh:in" in str(error)


def test_a_wide_sparql_join_is_refused_before_it_runs() -> None:
    """1,000 chained patterns with unbound predicates (the probe's 48 KB join ran until
    the worker was killed); 65 patterns are past the limit of 64."""
    for width in (1_000, 64):
        pats = " ".join(f"?a{i} ?p{i} ?a{i + 1} ." for i in range(width))
        error = _quick(
            select_shapes(f"SELECT $this WHERE {{ $this ?q ?a0 . {pats} }}"),
            cycle(200),
            "shacl_max_sparql_patterns",
        )
        assert "http://example.org/S" in str(error)


def test_a_long_sparql_text_is_refused() -> None:
    padding = "# " + "x" * 20_000 + "\n"
    _quick(
        select_shapes(padding + "SELECT $this WHERE { $this ?p ?o }"),
        cycle(3),
        "shacl_max_sparql_chars",
    )


@pytest.mark.parametrize("constraint", ["sh:maxCount 1", "sh:nodeKind sh:IRI"])
def test_a_closure_over_a_3000_node_cycle_is_refused_quickly(constraint: str) -> None:
    """``(ex:p)*`` from each of 3,000 nodes reaches all 3,000 (9,000,000 pairs; with
    sh:maxCount every pair of them): on main it ran past the 300 s parse timeout."""
    shapes = (
        PREFIXES + "ex:S a sh:NodeShape ; sh:targetSubjectsOf ex:p ;\n"
        f"  sh:property [ sh:path [ sh:zeroOrMorePath ex:p ] ; {constraint} ] .\n"
    ).encode()
    error = _quick(shapes, cycle(3_000), "shacl_max_path_cost")
    assert error.details["value"] == (3_000**3 if "maxCount" in constraint else 3_000**2)


def test_limits_hold_what_they_say() -> None:
    """A closure over 50 edges costs 2,500 (E²): passes the default, refused under 2,000."""
    shapes = (
        PREFIXES + "ex:S a sh:NodeShape ; sh:targetSubjectsOf ex:p ;\n"
        "  sh:property [ sh:path [ sh:oneOrMorePath ex:p ] ; sh:nodeKind sh:IRI ] .\n"
    ).encode()
    (report,) = run(shapes, cycle(50))
    assert report.conforms
    from reprokg.validation.shacl import CostLimits, read_source, validate_graphs

    graphs = [read_source("s.ttl", shapes), read_source("d.ttl", cycle(50))]
    with pytest.raises(ShapesError, match="shacl_max_path_cost = 2,000"):
        validate_graphs(graphs[1:], graphs[0], ["d"], CostLimits(max_path_cost=2_000))
