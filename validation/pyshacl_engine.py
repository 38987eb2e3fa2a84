"""pyshacl, the reference SHACL engine, and the patches we apply to it: all in this module.

pyshacl runs on an in-memory rdflib copy of the document with the shapes of its kind;
the compiled engine (:mod:`reprokg.validation.fast`) hands it every kind or document it
does not compile. The two patches below change speed, never results (the equivalence
gate ``REPROKG_SHACL_ENGINE=compare`` checks the engines agree). They reach into
pyshacl's internals (``SPARQLBasedConstraint._validate_sparql_query``, the
``CONSTRAINT_PARAMS`` cache of ``pyshacl.shape``), so pyproject.toml bounds pyshacl to
the minor version they were written for and tests/test_dependency_patches.py
checks that each takes effect; a pyshacl that moved them fails at import, not silently.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from functools import cache, lru_cache

from pyshacl import shape as shape_module
from pyshacl import validate as shacl_validate
from pyshacl.constraints import ALL_CONSTRAINT_PARAMETERS, CONSTRAINT_PARAMETERS_MAP
from pyshacl.constraints.sparql.sparql_based_constraints import SPARQLBasedConstraint
from rdflib import Graph, URIRef
from rdflib.namespace import RDF, SH
from rdflib.plugins.sparql import prepareQuery
from rdflib.term import Node

from reprokg.core.namespaces import RK
from reprokg.validation.report import Result
from reprokg.validation.shapes import shapes_graph


def _source_path(shapes: Graph, shape: Node | None, result_path: Node | None) -> str | None:
    if shape is not None:
        sp = shapes.value(shape, RK.sourcePath)
        if sp is not None:
            return str(sp)
    if isinstance(result_path, URIRef):
        return str(result_path).rsplit("#", 1)[-1].rsplit("/", 1)[-1]
    return None


#: each constraint's text parsed once (a hit is a parse saved)
_prepared = lru_cache(maxsize=512)(prepareQuery)


@cache
def _install_prepared_query_cache() -> None:
    """Parse each SHACL-SPARQL constraint once, not once per focus node.

    pyshacl 0.40 hands the constraint's text to ``Graph.query`` for every focus node,
    and rdflib parses it each time (over half of validating a batch of run headers,
    benchmarks/README.md#figures-once-quoted-in-code). The same text with the same initial
    bindings gives the same results prepared or not: rdflib's ``prepareQuery`` exists
    for exactly this reuse. Parse errors still surface from pyshacl as before.
    """
    original = SPARQLBasedConstraint._validate_sparql_query
    prepared = _prepared

    def validate_sparql_query(self, query, init_binds, target_graph):
        if isinstance(query, str):
            # a text rdflib cannot parse goes on as text: pyshacl reports it as it always did
            with contextlib.suppress(Exception):
                query = prepared(query)
        return original(self, query, init_binds, target_graph)

    # a method replaced on purpose: pyshacl's query, prepared once
    SPARQLBasedConstraint._validate_sparql_query = validate_sparql_query  # type: ignore[method-assign]
    _install_constraint_lookup()


class _ParameterList(list):
    """pyshacl's list of constraint parameters with set-speed ``in`` (same members, order).

    ``Shape.validate`` tests every predicate of a shape with ``p in <list of ~40
    IRIs>`` on each call, and nested shapes (``sh:node``, ``sh:or``) are validated per
    value node: a quarter of validating a batch of run headers went to these comparisons
    (benchmarks/README.md#figures-once-quoted-in-code).
    """

    def __init__(self, items: Iterable[object] = ()) -> None:
        super().__init__(items)
        self._members = set(self)

    def __contains__(self, item: object) -> bool:
        return item in self._members

    def copy(self) -> _ParameterList:
        return _ParameterList(self)

    def append(self, item: object) -> None:
        super().append(item)
        self._members.add(item)


def _install_constraint_lookup() -> None:
    """Seed the module cache pyshacl's ``Shape.validate`` reads its parameter list from."""
    shape_module.CONSTRAINT_PARAMS = (  # type: ignore[attr-defined]  # a cache pyshacl reads
        _ParameterList(ALL_CONSTRAINT_PARAMETERS),
        CONSTRAINT_PARAMETERS_MAP,
    )


def shacl_results(data: Graph, kind: str) -> list[Result]:
    shapes = shapes_graph(kind)
    if len(shapes) == 0:
        return []
    _install_prepared_query_cache()
    _conforms, report, _text = shacl_validate(
        data,
        shacl_graph=shapes,
        inference=None,
        advanced=True,
        allow_warnings=True,
        abort_on_first=False,
        # ``data`` is always our private copy: no second clone (advanced mode clones)
        inplace=True,
    )
    out = []
    # the report's own results, not the sh:detail results pyshacl nests under a failed
    # sh:node / sh:or (typed sh:ValidationResult too, but not results of the validation:
    # SHACL 3.6.2; found by tests/validation/test_compare_property.py)
    roots = list(report.subjects(RDF.type, SH.ValidationReport))
    for res in (r for root in roots for r in report.objects(root, SH.result)):
        sev = report.value(res, SH.resultSeverity)
        severity = str(sev).rsplit("#", 1)[-1] if sev is not None else "Violation"
        shape = report.value(res, SH.sourceShape)
        value = report.value(res, SH.value)
        focus = report.value(res, SH.focusNode)
        out.append(
            Result(
                severity=severity,
                message=str(report.value(res, SH.resultMessage) or "constraint not met"),
                path=_source_path(shapes, shape, report.value(res, SH.resultPath)),
                focus_node=str(focus) if focus is not None else None,
                value=str(value) if value is not None else None,
                shape=str(shape) if isinstance(shape, URIRef) else None,
                constraint=str(report.value(res, SH.sourceConstraintComponent) or "") or None,
            )
        )
    return out
