"""SHACL validation of any data graph against any shapes graph (``reprokg shacl``,
``POST /shacl``): the project's engine (:mod:`reprokg.validation.fast`) on the user's
shapes, reporting in SHACL's terms (text, JSON, or the ``sh:ValidationReport`` graph).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import PurePath

from rdflib import BNode, Graph, URIRef
from rdflib.namespace import RDF, SH
from rdflib.term import Node

from reprokg.core.errors import LoadError, ShapesError
from reprokg.core.rdf_parse import parse_as_written
from reprokg.validation.fast.compiler import compile_shapes
from reprokg.validation.fast.runtime import Found, evaluate_compiled
from reprokg.validation.fast.terms import decode_term
from reprokg.validation.report import Report, Result, ResultTerms, copy_structure


def _result(found: Found, shapes: Graph) -> Result:
    branch, focus, value, path = found
    focus_t = decode_term(focus)
    value_t = decode_term(value) if value is not None else None
    path_t = decode_term(path) if path is not None else branch.path_node
    path_text = f"<{path_t}>" if path is not None else branch.path_text
    path_graph = None
    if isinstance(path_t, BNode):  # the path's own triples travel with the result
        path_graph = Graph()
        path_t = copy_structure(shapes, path_t, path_graph)
    message = branch.message
    if not branch.message_given:  # say where: the focus node and value a user looks up
        message = f"{branch.component.rsplit('#', 1)[-1]} not met at {focus_t.n3()}" + (
            f" by {value_t.n3()}" if value_t is not None else ""
        )
    return Result(
        severity=branch.severity,
        message=message,
        path=path_text,
        focus_node=str(focus_t),
        value=str(value_t) if value_t is not None else None,
        shape=str(branch.shape_node) if branch.shape_node is not None else None,
        constraint=branch.component,
        result_path=path_text,
        terms=ResultTerms(
            focus=focus_t,
            value=value_t,
            shape=branch.shape_node,
            component=branch.component,
            severity=branch.severity,
            path=path_t,
            constraint=branch.constraint_node,
            shapes=path_graph,
        ),
    )


@dataclass(frozen=True)
class CostLimits:
    """What user shapes may cost, checked before anything is compiled or run (the
    ``shacl_max_*`` settings; docs/security.md)."""

    max_in: int = 1_000
    max_sparql_chars: int = 20_000
    max_sparql_patterns: int = 64
    max_path_cost: int = 1_000_000

    @classmethod
    def from_settings(cls) -> CostLimits:
        from reprokg.core.settings import settings

        s = settings()
        return cls(
            s.shacl_max_in,
            s.shacl_max_sparql_chars,
            s.shacl_max_sparql_patterns,
            s.shacl_max_path_cost,
        )


def _refuse(shape: object, what: str, limit: str, value: int, allowed: int) -> ShapesError:
    return ShapesError(
        f"shape {shape}: {what} is {value:,}, more than the limit {limit} = {allowed:,}",
        details={"shape": str(shape), "limit": limit, "limit_value": allowed, "value": value},
    )


def _owner(shapes: Graph, node: Node) -> Node:
    """The shape whose ``sh:path`` holds the path node ``node``: its nearest ancestor with
    ``sh:path``, else the nearest named ancestor, else ``node``."""
    seen, frontier, named = {node}, [node], None
    while frontier:
        x = frontier.pop(0)
        for s, p in shapes.subject_predicates(x):
            if p == SH.path:
                return s
            if named is None and isinstance(s, URIRef):
                named = s
            if s not in seen and len(seen) < 10_000:
                seen.add(s)
                frontier.append(s)
    return named if named is not None else node


def _list_length(shapes: Graph, head: Node | None, cap: int) -> int:
    """Members of the RDF list at ``head``, counted up to ``cap`` (a cycle stops it)."""
    n, seen = 0, set()
    while head is not None and head != RDF.nil and head not in seen and n <= cap:
        seen.add(head)
        n += 1
        head = shapes.value(head, RDF.rest)
    return n


def _path_predicates(shapes: Graph, node: object, seen: set | None = None) -> set[URIRef]:
    """The predicate IRIs a SHACL path walks."""
    seen = set() if seen is None else seen
    if isinstance(node, URIRef):
        return {node}
    if node in seen or len(seen) > 10_000:
        return set()
    seen.add(node)
    out: set[URIRef] = set()
    # node is a shape's IRI or BNode
    for p, o in shapes.predicate_objects(node):  # type: ignore[arg-type]
        if p in _PATH_LINKS:
            out |= _path_predicates(shapes, o, seen)
    return out


#: what links a path node to the nodes of its steps
_PATH_LINKS = (
    RDF.first,
    RDF.rest,
    SH.inversePath,
    SH.alternativePath,
    SH.zeroOrMorePath,
    SH.oneOrMorePath,
    SH.zeroOrOnePath,
)
#: constraints that compare a focus node's values pairwise (a count over n values is n²
#: filters): under one, a closure's cost is E³, not E²
_PAIRWISE = (
    SH.maxCount,
    SH.qualifiedMaxCount,
    SH.uniqueLang,
    SH.lessThan,
    SH.lessThanOrEquals,
    SH.disjoint,
    SH.equals,
    SH.qualifiedMinCount,
)
_SPARQL_CODE = re.compile(
    r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\''
    r"|<[^<>\"{}|^`\\\s]*>|#[^\n]*|\d*\.\d+"
)


def _sparql_texts(shapes: Graph) -> Iterator[tuple[Node, str]]:
    for pred in (SH.select, SH.ask):
        for node, text in shapes.subject_objects(pred):
            yield node, str(text)


def check_costs(shapes: Graph, data: Sequence[Graph], limits: CostLimits | None = None) -> None:
    """Refuse user shapes whose cost can be told before running them (a 422 naming the
    shape and the limit): ``sh:in`` lists, ``sh:select``/``sh:ask`` texts (length, triple
    patterns) and ``*``/``+`` paths over the data (per closure and data graph, E² steps,
    E³ under a pairwise constraint; E = the graph's triples with the closure's predicates).
    The time and memory of the worker bound what no estimate sees."""
    lim = limits or CostLimits.from_settings()
    for shape, head in shapes.subject_objects(SH["in"]):
        n = _list_length(shapes, head, lim.max_in)
        if n > lim.max_in:
            raise _refuse(
                shape,
                "an sh:in list's length (counted to one past the limit)",
                "shacl_max_in",
                n,
                lim.max_in,
            )
    for node, text in _sparql_texts(shapes):
        shape = next(shapes.subjects(None, node), node)
        if len(text) > lim.max_sparql_chars:
            raise _refuse(
                shape,
                "a SPARQL text's length",
                "shacl_max_sparql_chars",
                len(text),
                lim.max_sparql_chars,
            )
        code = _SPARQL_CODE.sub(" ", text)
        patterns = 1 + sum(code.count(c) for c in ".;,")
        if patterns > lim.max_sparql_patterns:
            raise _refuse(
                shape,
                "the triple patterns of a SPARQL text",
                "shacl_max_sparql_patterns",
                patterns,
                lim.max_sparql_patterns,
            )
    closures = [
        (node, inner)
        for p in (SH.zeroOrMorePath, SH.oneOrMorePath)
        for node, inner in shapes.subject_objects(p)
    ]
    for node, inner in closures:
        predicates = _path_predicates(shapes, inner)
        shape = _owner(shapes, node)
        power = 3 if any(shapes.value(shape, c) is not None for c in _PAIRWISE) else 2
        cost = 0
        for g in data:
            edges = sum(1 for p in predicates for _ in g.triples((None, p, None)))
            cost += edges**power
        if cost > lim.max_path_cost:
            raise _refuse(
                shape,
                f"the estimated cost of a path closure (E^{power})",
                "shacl_max_path_cost",
                cost,
                lim.max_path_cost,
            )


def validate_graphs(
    data: list[Graph], shapes: Graph, names: list[str], limits: CostLimits | None = None
) -> list[Report]:
    """One report per data graph (each validated alone), by SHACL's definition of
    conformance (any result breaks it). Raises ``ShapesError`` for unusable shapes and for
    shapes over the cost ``limits`` (:func:`check_costs`; the settings' by default)."""
    check_costs(shapes, data, limits)
    compiled = compile_shapes(shapes, closure=True)
    found = evaluate_compiled(compiled, data)
    return [
        Report(source=name, results=[_result(f, shapes) for f in per], allow_warnings=False)
        for name, per in zip(names, found, strict=True)
    ]


def validate_graph(data: Graph, shapes: Graph, name: str = "data") -> Report:
    return validate_graphs([data], shapes, [name])[0]


def parse_rdf(
    data: bytes | str, fmt: str, base: str | None = None, *, source: str = "<input>"
) -> Graph:
    """A shapes or data graph as written (literals keep their lexical form), parsed by
    :mod:`reprokg.core.rdf_parse` (no context, DTD or entity outside the text resolved)."""
    return parse_as_written(data, fmt, base, source=source)


#: RDF syntaxes by file suffix (Turtle when the suffix says nothing)
FORMATS = {
    ".ttl": "turtle",
    ".turtle": "turtle",
    ".nt": "nt",
    ".n3": "n3",
    ".jsonld": "json-ld",
    ".json": "json-ld",
    ".rdf": "xml",
    ".xml": "xml",
    ".owl": "xml",
    ".trig": "trig",
    ".nq": "nquads",
}


def read_source(name: str, data: bytes) -> Graph:
    """A file's graph (its syntax from its suffix); a parse error, or a reference to
    anything outside the file (a remote JSON-LD context, a DTD), is a ``LoadError``
    naming the file."""
    fmt = FORMATS.get(PurePath(name).suffix.lower(), "turtle")
    base = PurePath(name).name and f"file:///{PurePath(name).name}"
    return parse_rdf(data, fmt, base, source=name)


def validate_sources(
    sources: Sequence[tuple[str, bytes]], allow_warnings: bool = False
) -> list[Report]:
    """``sources[0]`` is the shapes graph, the rest data graphs: one report per data file
    (``reprokg shacl``, ``POST /shacl``)."""
    if len(sources) < 2:
        raise LoadError("expected a shapes graph and at least one data graph", source="shacl")
    shapes = read_source(*sources[0])
    data = [read_source(name, raw) for name, raw in sources[1:]]
    reports = validate_graphs(data, shapes, [name for name, _ in sources[1:]])
    for r in reports:
        r.allow_warnings = allow_warnings
    return reports
