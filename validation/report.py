"""Validation results in one form, whichever engine or check produced them: SHACL terms
(focus node, path, severity, message) plus the source path and line a person edits."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from typing import cast

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF, SH
from rdflib.term import Node
from typing_extensions import TypedDict

from reprokg.core.lazy_graph import exact_literal
from reprokg.core.namespaces import RK, bind_prefixes

SEVERITIES = ("Violation", "Warning", "Info")
_SEVERITY_IRI = {"Violation": SH.Violation, "Warning": SH.Warning, "Info": SH.Info}


# The JSON shapes, written once: ``to_dict()`` returns these, and the service declares them
# in its answers (``POST /validate``, ``/documents``, ``/shacl``). ``typing_extensions``'
# TypedDict: pydantic reads no other on Python 3.11.


class ResultJSON(TypedDict):
    """One finding (SHACL terms, plus the source file and line a person edits)."""

    severity: str
    "Violation, Warning or Info"
    message: str
    path: str | None
    focus_node: str | None
    value: str | None
    line: int | None
    source: str | None
    "the file's name"
    shape: str | None
    constraint: str | None
    result_path: str | None
    "the SHACL result path in SPARQL syntax"


class ReportJSON(TypedDict):
    """The findings of one source; ``document`` its document's IRI when it has one."""

    source: str
    document: str | None
    conforms: bool
    results: list[ResultJSON]


@dataclass(frozen=True)
class ResultTerms:
    """The RDF terms of a SHACL result, for its report graph (focus node and value as
    the data holds them; shape, path and constraint as the shapes graph does)."""

    focus: Node
    value: Node | None
    shape: Node | None
    component: str
    severity: str
    path: Node | None = None
    constraint: Node | None = None
    #: the shapes graph, whose blank-node path structures the report copies
    shapes: Graph | None = None


@dataclass
class Result:
    """One finding, in SHACL terms, plus the source path and line a person edits."""

    severity: str
    message: str
    path: str | None = None
    focus_node: str | None = None
    value: str | None = None
    line: int | None = None
    source: str | None = None  # file name
    shape: str | None = None
    constraint: str | None = None
    #: the SHACL result path in SPARQL syntax (``^ex:child``, ``ex:a/ex:b``)
    result_path: str | None = None
    #: RDF terms for the report graph (the SHACL engine's results); not in JSON
    terms: ResultTerms | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> ResultJSON:
        return cast(
            ResultJSON, {f.name: getattr(self, f.name) for f in fields(self) if f.name != "terms"}
        )

    def to_text(self) -> str:
        where = self.source or ""
        if self.line is not None:
            where += f":{self.line}"
        # a shape's message starts with the path already (``actor.orcid: …``): not twice
        named = self.path and not self.message.startswith(f"{self.path}:")
        path = f" {self.path}:" if named else ""
        return f"{where}: {self.severity}:{path} {self.message}".lstrip(": ")


@dataclass
class Report:
    source: str
    results: list[Result] = field(default_factory=list)
    document: str | None = None  # document IRI
    #: warnings and infos do not break conformance (the project's rule, as pyshacl's
    #: ``allow_warnings``); False: any result does (SHACL's own definition)
    allow_warnings: bool = True

    @property
    def conforms(self) -> bool:
        if not self.allow_warnings:
            return not self.results
        return not any(r.severity == "Violation" for r in self.results)

    def count(self, severity: str) -> int:
        return sum(1 for r in self.results if r.severity == severity)

    def summary(self) -> str:
        counts = ", ".join(f"{self.count(s)} {s.lower()}(s)" for s in SEVERITIES)
        return f"{self.source}: {'conforms' if self.conforms else 'does not conform'} ({counts})"

    def to_dict(self) -> ReportJSON:
        return {
            "source": self.source,
            "document": self.document,
            "conforms": self.conforms,
            "results": [r.to_dict() for r in self.results],
        }

    def to_text(self) -> str:
        lines = [self.summary()]
        lines += ["  " + r.to_text() for r in self.results]
        return "\n".join(lines)

    def to_graph(self) -> Graph:
        """The report as a ``sh:ValidationReport`` graph (Turtle output of the CLI)."""
        g = bind_prefixes(Graph())
        report = BNode()
        g.add((report, RDF.type, SH.ValidationReport))
        g.add((report, SH.conforms, Literal(self.conforms)))
        for r in self.results:
            node = BNode()
            g.add((report, SH.result, node))
            g.add((node, RDF.type, SH.ValidationResult))
            sev = _SEVERITY_IRI.get(r.severity) or URIRef(r.severity)
            g.add((node, SH.resultSeverity, sev))
            g.add((node, SH.resultMessage, Literal(r.message)))
            if r.terms is not None:
                _add_terms(g, node, r.terms)
                continue
            if r.focus_node:
                g.add((node, SH.focusNode, _term(r.focus_node)))
            if r.value is not None:
                g.add((node, SH.value, Literal(r.value)))
            if r.path:
                g.add((node, RK.sourcePath, Literal(r.path)))
            if r.line is not None:
                g.add((node, RK.sourceLine, Literal(r.line)))
        return g


def copy_structure(src: Graph, node: Node, out: Graph) -> Node:
    """A property path ``node`` with its blank-node structure copied into ``out`` (an
    rdf:List is a sequence path, whatever else the node says: SHACL 2.3.1)."""
    if not isinstance(node, BNode):
        return node
    new = BNode()
    first = src.value(node, RDF.first)
    preds = [RDF.first, RDF.rest] if first is not None else [p for p in set(src.predicates(node))]
    for p in preds:
        for o in src.objects(node, p):
            out.add((new, p, copy_structure(src, o, out)))
    return new


def _add_terms(g: Graph, node: BNode, t: ResultTerms) -> None:
    """The result's terms as the data has them; a literal focus node or value is written
    to Turtle as it is (``exact_literal``: an ill-typed ``"none"^^xsd:boolean`` is no bare
    ``none``), so every report reads back as the same graph."""
    g.add((node, SH.focusNode, exact_literal(t.focus)))
    g.add((node, SH.sourceConstraintComponent, URIRef(t.component)))
    if t.shape is not None:
        g.add((node, SH.sourceShape, t.shape))
    if t.value is not None:
        g.add((node, SH.value, exact_literal(t.value)))
    if t.path is not None:
        path = copy_structure(t.shapes, t.path, g) if t.shapes is not None else t.path
        g.add((node, SH.resultPath, path))
    if t.constraint is not None:
        g.add((node, SH.sourceConstraint, t.constraint))


def _term(value: str) -> URIRef | BNode:
    return URIRef(value) if "://" in value or value.startswith("urn:") else BNode(value)


def reports_to_json(reports: Iterable[Report]) -> str:
    return json.dumps([r.to_dict() for r in reports], indent=2, ensure_ascii=False)
