"""Validation results in one form, whichever engine or check produced them: SHACL terms
(focus node, path, severity, message) plus the source path and line a person edits."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF, SH

from reprokg.core.namespaces import RK, bind_prefixes

SEVERITIES = ("Violation", "Warning", "Info")
_SEVERITY_IRI = {"Violation": SH.Violation, "Warning": SH.Warning, "Info": SH.Info}


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

    def to_text(self) -> str:
        where = self.source or ""
        if self.line is not None:
            where += f":{self.line}"
        path = f" {self.path}:" if self.path else ""
        return f"{where}: {self.severity}:{path} {self.message}".lstrip(": ")


@dataclass
class Report:
    source: str
    results: list[Result] = field(default_factory=list)
    document: str | None = None  # document IRI

    @property
    def conforms(self) -> bool:
        return not any(r.severity == "Violation" for r in self.results)

    def count(self, severity: str) -> int:
        return sum(1 for r in self.results if r.severity == severity)

    def summary(self) -> str:
        counts = ", ".join(f"{self.count(s)} {s.lower()}(s)" for s in SEVERITIES)
        return f"{self.source}: {'conforms' if self.conforms else 'does not conform'} ({counts})"

    def to_dict(self) -> dict:
        return {
            "source": self.source,
            "document": self.document,
            "conforms": self.conforms,
            "results": [asdict(r) for r in self.results],
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
            g.add((node, SH.resultSeverity, _SEVERITY_IRI[r.severity]))
            g.add((node, SH.resultMessage, Literal(r.message)))
            if r.focus_node:
                g.add((node, SH.focusNode, _term(r.focus_node)))
            if r.value is not None:
                g.add((node, SH.value, Literal(r.value)))
            if r.path:
                g.add((node, RK.sourcePath, Literal(r.path)))
            if r.line is not None:
                g.add((node, RK.sourceLine, Literal(r.line)))
        return g


def _term(value: str) -> URIRef | BNode:
    return URIRef(value) if "://" in value or value.startswith("urn:") else BNode(value)


def reports_to_json(reports: Iterable[Report]) -> str:
    return json.dumps([r.to_dict() for r in reports], indent=2, ensure_ascii=False)
