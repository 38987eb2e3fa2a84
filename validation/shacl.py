"""SHACL validation of any data graph against any shapes graph (``reprokg shacl``,
``POST /shacl``): the project's engine (:mod:`reprokg.validation.fast`) on the user's
shapes, reporting in SHACL's terms (text, JSON, or the ``sh:ValidationReport`` graph).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath

from rdflib import BNode, Graph

from reprokg.core.errors import LoadError
from reprokg.core.rdf_parse import parse_as_written
from reprokg.validation.fast import Found, compile_shapes, decode_term, evaluate_compiled
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


def validate_graphs(data: list[Graph], shapes: Graph, names: list[str]) -> list[Report]:
    """One report per data graph (each validated alone), by SHACL's definition of
    conformance (any result breaks it). Raises ``ShapesError`` for unusable shapes."""
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
