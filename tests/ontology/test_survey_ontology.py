"""ontology/survey.ttl: terms labelled and defined, aligned by reference, options in sync
with the loaders, and every term the survey loaders emit declared somewhere in the ontology."""

from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import OWL, RDF, RDFS, Graph, URIRef
from rdflib.namespace import PROV, SKOS

from reprokg.core.namespaces import RK, SCHEMA
from reprokg.core.resources import data_dir, iter_files
from reprokg.loaders import gundersen_kjensmo as gk
from reprokg.loaders import mlrc
from reprokg.loaders import replicability_graphics as rg
from reprokg.loaders.survey_options import SCHEMES

ONTOLOGY = "https://w3id.org/reprokg/ontology"


@pytest.fixture(scope="module")
def survey() -> Graph:
    g = Graph()
    g.parse(
        data=data_dir("ontology").joinpath("survey.ttl").read_text(encoding="utf-8"),
        format="turtle",
    )
    return g


@pytest.fixture(scope="module")
def everything() -> Graph:
    g = Graph()
    for f in iter_files("ontology", ".ttl"):
        g.parse(data=f.read_text(encoding="utf-8"), format="turtle")
    return g


def test_module_declares_only_our_terms(survey):
    assert not set(survey.subjects(RDF.type, OWL.Ontology))
    subjects = {s for s in survey.subjects() if isinstance(s, URIRef)}
    assert subjects and all(str(s).startswith(str(RK)) for s in subjects)


def test_every_term_labelled_and_defined(survey):
    terms = set(survey.subjects(RDFS.isDefinedBy, URIRef(ONTOLOGY)))
    assert len(terms) > 150
    declared = {s for s in survey.subjects(RDF.type, None) if isinstance(s, URIRef)}
    assert declared == terms
    for t in terms:
        labels = list(survey.objects(t, RDFS.label))
        defs = list(survey.objects(t, SKOS.definition))
        assert len(labels) == 1 and labels[0].language == "en", t
        assert len(defs) == 1 and defs[0].language == "en", t


def test_alignments_by_reference(survey):
    assert (RK.CodeReplicabilityReview, RDFS.subClassOf, SCHEMA.Review) in survey
    assert (RK.CodeReplicabilityReview, RDFS.subClassOf, PROV.Activity) in survey
    assert (RK.Score, RDFS.subClassOf, SCHEMA.Rating) in survey
    assert (RK.ReviewOption, RDFS.subClassOf, SKOS.Concept) in survey
    assert (RK.reviewedPaper, RDFS.subPropertyOf, SCHEMA.itemReviewed) in survey


def test_no_term_declared_twice(survey):
    for f in iter_files("ontology", ".ttl"):
        if f.name == "survey.ttl":
            continue
        other = Graph().parse(data=f.read_text(encoding="utf-8"), format="turtle")
        clash = set(survey.subjects(RDFS.isDefinedBy, None)) & set(other.subjects(RDF.type, None))
        assert not clash, f"{f.name}: {sorted(clash)}"


def test_option_schemes_match_the_loader_tables(survey):
    for scheme, (_label, _definition, options) in SCHEMES.items():
        assert (RK[scheme], RDF.type, SKOS.ConceptScheme) in survey
        in_ttl = set(survey.subjects(SKOS.inScheme, RK[scheme]))
        assert in_ttl == {RK[name] for name, *_ in options}, scheme
        for name, _l, _d, forms in options:
            alts = {str(a) for a in survey.objects(RK[name], SKOS.altLabel)}
            assert alts == set(forms), name


@pytest.mark.slow
def test_loaders_emit_only_declared_terms(everything, shared_data: Path):
    base = shared_data
    docs = rg.load((base / "replicability_graphics/consolidatedData.json").read_bytes(), "c.json")
    for f in sorted((base / "replicability_graphics/per_paper").glob("*/*.json"))[:60]:
        docs += rg.load(f.read_bytes(), f.name)
    csv_path = base / "surveys/gundersen_kjensmo_2018/data/evaluations.csv"
    docs += gk.load(csv_path.read_bytes(), "evaluations.csv")
    for f in sorted((base / "surveys/rescience/mlrc_metadata").glob("*/*/journal/metadata.yaml")):
        docs += mlrc.load(f.read_bytes(), f.name)
    declared = set(everything.subjects(RDFS.isDefinedBy, URIRef(ONTOLOGY)))
    used = set()
    for d in docs:
        for _s, p, o in d.graph:
            used.add(p)
            if p == RDF.type or (isinstance(o, URIRef) and str(o).startswith(str(RK))):
                used.add(o)
    ours = {t for t in used if str(t).startswith(str(RK))}
    assert ours - declared == set()
