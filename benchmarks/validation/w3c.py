"""The W3C SHACL test suite (``w3c/shacl/tests`` of the field's data folder): its manifests read,
and a validation report compared with the expected one as the suite specifies.

Shared by the conformance tests (``tests/validation/test_w3c_shacl.py``) and the engine
benchmark (``benchmarks/validation/run.py``), so both count the same tests the same way.

The comparison follows the suite's document ("data shapes test suite", W3C): the expected
graph is the ``mf:result`` node's triples, its results' triples and the blank-node
structures their ``sh:resultPath`` values point to; the actual report is cut the same way;
``sh:resultMessage`` is dropped from both (messages are free text); the two graphs must be
isomorphic. A ``sh:sourceShape`` that is a blank node stays a bare blank node on both sides
(the expected reports name inline shapes by fresh labels that cannot be matched otherwise).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rdflib import BNode, Graph, Literal, Namespace
from rdflib.collection import Collection
from rdflib.compare import isomorphic
from rdflib.namespace import RDF, SH

MF = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
SHT = Namespace("http://www.w3.org/ns/shacl-test#")

_REPO = Path(__file__).resolve().parents[2]
#: the suite as the project's shared data holds it (../shared/data, as tests/conftest.py)
SUITE = (
    Path(os.environ.get("REPROKG_SHARED_DATA", _REPO.parent / "shared" / "data"))
    / "w3c"
    / "shacl"
    / "tests"
)


@dataclass
class W3CTest:
    """One ``sht:Validate`` entry: where its graphs are and what it expects."""

    id: str  # e.g. ``core/property/minCount-001``
    section: str  # ``core`` or ``sparql``
    data: Path
    shapes: Path
    #: the manifest graph (expected results are read from it)
    manifest: Graph
    result: object  # the mf:result node, or SHT.Failure
    status: str

    @property
    def expects_failure(self) -> bool:
        return self.result == SHT.Failure

    def data_graph(self) -> Graph:
        return _parse(self.data)

    def shapes_graph(self) -> Graph:
        return _parse(self.shapes)

    def expected(self) -> Graph:
        return report_core(self.manifest, self.result)


def _parse(path: Path) -> Graph:
    """The file as written: literals keep their lexical form (``"1"^^xsd:boolean`` is not
    ``true``: uniqueLang-002), as ``reprokg shacl`` reads files."""
    from reprokg.validation.shacl import parse_rdf

    return parse_rdf(path.read_bytes(), "turtle", path.as_uri())


def _manifest_tests(path: Path, section: str) -> Iterator[W3CTest]:
    g = _parse(path)
    for entries in g.objects(None, MF.entries):
        for entry in Collection(g, entries):  # type: ignore[arg-type]
            if (entry, RDF.type, SHT.Validate) not in g:
                continue
            action = g.value(entry, MF.action)
            data = Path(str(g.value(action, SHT.dataGraph)).removeprefix("file://"))
            shapes = Path(str(g.value(action, SHT.shapesGraph)).removeprefix("file://"))
            name = str(entry).removeprefix("file://")
            rel = Path(name).relative_to(SUITE)
            yield W3CTest(
                id=str(rel.parent / rel.name.split("#")[-1]),
                section=section,
                data=data,
                shapes=shapes,
                manifest=g,
                result=g.value(entry, MF.result),
                status=str(g.value(entry, MF.status) or "").rsplit("#", 1)[-1],
            )


def tests(section: str | None = None) -> list[W3CTest]:
    """Every ``sht:Validate`` test of the suite (``section``: ``core`` or ``sparql`` only).

    Every test file's entries, not only those the ``mf:include`` chain reaches: the
    suite's ``sparql/component/manifest.ttl`` omits ``nodeValidator-001.ttl`` (98 Core +
    23 SHACL-SPARQL tests = 121 in all).
    """
    out: dict[str, W3CTest] = {}
    for sec in ("core", "sparql"):
        if section in (None, sec):
            for f in sorted((SUITE / sec).rglob("*.ttl")):
                for t in _manifest_tests(f, sec):
                    out.setdefault(t.id, t)
    return list(out.values())


def _copy(src: Graph, node: object, out: Graph) -> object:
    """A fresh copy in ``out`` of the blank-node structure under ``node`` (a path, an
    rdf:List): one per result, so two results sharing a path node compare like two
    results with equal paths written apart (the expected reports write them apart)."""
    if not isinstance(node, BNode):
        return node
    new = BNode()
    for p, o in src.predicate_objects(node):
        out.add((new, p, _copy(src, o, out)))  # type: ignore[arg-type]
    return new


def report_core(graph: Graph, report: object) -> Graph:
    """The part of a report graph the suite compares (see the module docstring)."""
    out = Graph()
    for p, o in graph.predicate_objects(report):  # type: ignore[arg-type]
        if p == SH.conforms:
            o = Literal(str(o).strip().lower() in ("true", "1"))
        if p in (RDF.type, SH.conforms, SH.result):
            out.add((report, p, o))  # type: ignore[arg-type]
    for res in graph.objects(report, SH.result):  # type: ignore[arg-type]
        for p, o in graph.predicate_objects(res):
            if p in (SH.resultMessage, SH.detail):
                continue
            out.add((res, p, _copy(graph, o, out) if p == SH.resultPath else o))
    return out


def actual_core(report: Graph) -> Graph:
    """``report_core`` of a report graph produced by an engine (its ``sh:ValidationReport``)."""
    roots = list(report.subjects(RDF.type, SH.ValidationReport))
    if len(roots) != 1:
        raise ValueError(f"expected one sh:ValidationReport, found {len(roots)}")
    return report_core(report, roots[0])


def same_report(actual: Graph, expected: Graph) -> bool:
    return isomorphic(actual_core(actual), expected)


def difference(actual: Graph, expected: Graph) -> str:
    """Both reports as sorted N-Triples, for an assertion message."""

    def lines(g: Graph) -> str:
        return "\n".join(sorted(g.serialize(format="nt").splitlines()))

    return f"actual:\n{lines(actual_core(actual))}\nexpected:\n{lines(expected)}"
