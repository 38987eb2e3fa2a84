"""The audit attribute scheme says only what the paper says, and marks what it infers."""

from __future__ import annotations

import re

import pytest
from rdflib import Graph, URIRef
from rdflib.namespace import SKOS

from reprokg.core.namespaces import RK
from tests.conftest import REPO, need

SEED = REPO.parent / "shared" / "seeds" / "000_0ac4d17f5f182011.md"
IDS = (
    [f"D{i}" for i in range(1, 10)]
    + [f"S{i}" for i in range(1, 20)]
    + [f"R{i}" for i in range(1, 7)]
)
#: the attributes whose text our copy of the paper lacks (the seed's own header says so)
MISSING = {"D1", "D2", "D3", "D4", "D5", "S5", "S7", "S8", "S9", "S10", "R3"}


def _norm(text: str) -> str:
    """Letters and digits only: the seed's PDF extraction glued words and split others."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


@pytest.fixture(scope="module")
def core() -> Graph:
    return Graph().parse(REPO / "ontology" / "reprokg.ttl", format="turtle")


@pytest.fixture(scope="module")
def seed_text() -> str:
    need(SEED.is_file(), f"seed {SEED} is missing")
    return _norm(SEED.read_text(encoding="utf-8"))


def test_seed_header_lists_the_missing_attributes() -> None:
    need(SEED.is_file(), f"seed {SEED} is missing")
    head = SEED.read_text(encoding="utf-8")[:600]
    assert "(D1-D5, S5, S7-S10, R3) are missing" in head


@pytest.mark.parametrize("attr", IDS)
def test_attribute_text_is_the_papers_or_marked_inferred(
    core: Graph, seed_text: str, attr: str
) -> None:
    c = RK[attr]
    assert str(core.value(c, SKOS.notation)) == attr
    assert (c, SKOS.inScheme, RK.AuditAttributeScheme) in core
    definition = core.value(c, SKOS.definition)
    note = str(core.value(c, SKOS.editorialNote) or "")
    if attr in MISSING:
        assert definition is None, f"{attr}: no definition may be presented as the paper's"
        assert "missing from our copy" in note
        if "(inferred)" in str(core.value(c, SKOS.prefLabel)):
            assert "Inferred label, not the paper's wording" in note
    else:
        assert definition is not None
        assert _norm(str(definition)) in seed_text, f"{attr}: definition not found in the paper"
    scope = core.value(c, SKOS.scopeNote)
    if scope is not None:
        assert _norm(str(scope)) in seed_text, f"{attr}: scope note not found in the paper"


@pytest.mark.parametrize(
    ("attr", "category"),
    [
        ("D6", "Availability"),
        ("D9", "Transformation"),
        ("S1", "Environment"),
        ("S6", "Usage"),
        ("S11", "SourceCode"),
        ("S19", "SourceCode"),
        ("R1", "Model"),
        ("R6", "Predictions"),
    ],
)
def test_quoted_attributes_sit_under_the_papers_subcategory(
    core: Graph, attr: str, category: str
) -> None:
    assert (RK[attr], SKOS.broader, RK["Category" + category]) in core


def test_category_tree_is_the_papers(core: Graph) -> None:
    def broader(name: str) -> str:
        (b,) = list(core.objects(RK["Category" + name], SKOS.broader))
        return str(b).rsplit("Category", 1)[1]

    tree = {
        "Empirical": "ScientificResult",
        "Theoretical": "ScientificResult",
        "DataSet": "Empirical",
        "Software": "Empirical",
        "ComputationalResult": "Empirical",
        "Availability": "DataSet",
        "Transformation": "DataSet",
        "Environment": "Software",
        "Usage": "Software",
        "SourceCode": "Software",
        "Model": "ComputationalResult",
        "Predictions": "ComputationalResult",
    }
    assert {k: broader(k) for k in tree} == tree


def test_empirical_result_has_its_three_parts(core: Graph) -> None:
    from rdflib import OWL, RDFS

    parts = set()
    for r in core.objects(RK.EmpiricalResult, RDFS.subClassOf):
        if core.value(r, OWL.onProperty) == RK.hasPart:
            parts.add(core.value(r, OWL.someValuesFrom))
    assert parts == {RK.DataSet, RK.Software, RK.ComputationalResult}
    assert (RK.isPartOf, RDFS.subPropertyOf, URIRef("http://purl.org/dc/terms/isPartOf")) in core


def test_badge_schemes_are_linked_both_ways() -> None:
    g = Graph().parse(REPO / "ontology" / "badges.ttl", format="turtle")
    acm = {c for c in g.subjects(SKOS.inScheme, RK.ACMBadgeScheme)}
    niso = {c for c in g.subjects(SKOS.inScheme, RK.NISOBadgeScheme)}
    assert {str(g.value(c, SKOS.notation)) for c in niso} == {"ORO", "ORO-A", "ROR", "ROR-R", "RER"}
    leaves = {c for c in acm if (None, SKOS.broader, c) not in g}
    assert {str(g.value(c, SKOS.notation)) for c in leaves} == {
        "acm-available",
        "acm-functional",
        "acm-reusable",
        "acm-reproduced",
        "acm-replicated",
    }
    for c in leaves | niso:
        other = niso if c in acm else acm
        matches = set(g.objects(c, SKOS.closeMatch))
        assert matches and matches <= other, c
        for m in matches:  # skos:closeMatch is symmetric: stated on both sides
            assert (m, SKOS.closeMatch, c) in g, (c, m)
    # ACM 1.1: reproduced = with the authors' artifacts, like NISO's ROR-R
    assert (RK.ACMResultsReproduced, SKOS.closeMatch, RK.NISOResultsReproduced) in g
