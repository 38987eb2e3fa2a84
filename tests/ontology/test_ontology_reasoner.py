"""HermiT (through owlready2) finds the merged ontology consistent, with no unsatisfiable class.

``reprokg ontology check`` (reprokg.ontology.check) merges all ``ontology/*.ttl`` modules
and the pinned imports, drops the ``owl:imports`` statements, loads the result with
owlready2 and runs its ``sync_reasoner`` (= HermiT). Needs Java: skipped locally without
it, a failure under CI. The check is shown to fail on a planted unsatisfiable class.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import OWL, RDF, URIRef

from reprokg.cli import main
from reprokg.ontology.check import check_ontology, java_available, merged_ontology
from tests.conftest import need

pytestmark = pytest.mark.slow  # HermiT starts a JVM per check (~10 s here)

#: a class under both rk:Audit (a prov:Activity) and rk:Finding (a prov:Entity), which
#: PROV-O (our pinned subset keeps the axiom) declares disjoint: unsatisfiable
BROKEN = """
@prefix rk: <https://w3id.org/reprokg/ontology#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
rk:QcBroken a owl:Class ; rdfs:subClassOf rk:Audit , rk:Finding .
"""


@pytest.fixture(scope="module")
def java() -> None:
    need(java_available(), "Java (for HermiT) is not installed")


def test_merged_ontology_is_consistent_and_satisfiable(
    java: None, capsys: pytest.CaptureFixture[str]
) -> None:
    g = merged_ontology()
    assert (URIRef("https://w3id.org/reprokg/ontology"), RDF.type, OWL.Ontology) in g
    assert not list(g.triples((None, OWL.imports, None)))
    assert main(["ontology", "check"]) == 0
    out = capsys.readouterr().out
    assert "HermiT: consistent, no unsatisfiable class" in out


def test_hermit_detects_an_unsatisfiable_class(
    java: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = tmp_path / "mine.ttl"
    extra.write_text(BROKEN, encoding="utf-8")
    result = check_ontology([extra])
    assert result.consistent
    assert "https://w3id.org/reprokg/ontology#QcBroken" in result.unsatisfiable
    assert not result.ok
    assert main(["ontology", "check", "--extra", str(extra)]) == 1
    out = capsys.readouterr().out
    assert "unsatisfiable classes:" in out and "#QcBroken" in out


def test_an_unreadable_extra_file_is_a_usage_error(
    java: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ontology", "check", "--extra", str(tmp_path / "missing.ttl")]) == 2
    assert "missing.ttl: cannot read it as Turtle" in capsys.readouterr().err
