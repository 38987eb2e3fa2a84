"""SHACL validation of any data graph against any shapes graph (``reprokg shacl``,
``POST /shacl``): the project's engine (:mod:`reprokg.validation.fast`) on the user's
shapes, reporting in SHACL's terms (text, JSON, or the ``sh:ValidationReport`` graph).
"""

from __future__ import annotations

from rdflib import Graph

from reprokg.core.lazy_graph import parse_as_written
from reprokg.validation.fast import Found, compile_shapes, decode_term, evaluate_compiled
from reprokg.validation.report import Report, Result, ResultTerms


def _result(found: Found, shapes: Graph) -> Result:
    branch, focus, value, path = found
    focus_t = decode_term(focus)
    value_t = decode_term(value) if value is not None else None
    path_t = decode_term(path) if path is not None else branch.path_node
    path_text = f"<{path_t}>" if path is not None else branch.path_text
    return Result(
        severity=branch.severity,
        message=branch.message,
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
            shapes=shapes,
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


def parse_rdf(data: bytes | str, fmt: str, base: str | None = None) -> Graph:
    """A shapes or data graph as written (literals keep their lexical form)."""
    return parse_as_written(data, fmt, base)
