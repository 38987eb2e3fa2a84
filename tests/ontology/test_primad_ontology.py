"""ontology/primad.ttl: term hygiene, alignment by reference only, the study-kind scheme.

The expected signature -> study kind pairs come from seed 002 (ir_metadata, SIGIR 2022):
Section 6.1 "priMad: parameter sweeps of the Method", Section 6.2 reproductions by other
teams on the same test collection ("PRIMAd" in repro_eval's PrimadExperiment), Section
6.3 "generalization with other Data" where every component changed ("PRIMAD").
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from rdflib import Graph, URIRef
from rdflib.namespace import OWL, RDF, RDFS, SKOS

from reprokg.core.namespaces import RK
from tests.conftest import REPO

IS_DEFINED_BY = URIRef("https://w3id.org/reprokg/ontology")


@pytest.fixture(scope="module")
def primad() -> Graph:
    return Graph().parse(REPO / "ontology" / "primad.ttl")


@pytest.fixture(scope="module")
def ontology() -> Graph:
    g = Graph()
    for f in sorted((REPO / "ontology").glob("*.ttl")):
        g.parse(f)
    return g


def declared_terms(g: Graph) -> set[URIRef]:
    return {s for s in g.subjects(RDF.type, None) if isinstance(s, URIRef) and s in RK}


def test_every_term_has_label_definition_and_is_defined_by(primad: Graph) -> None:
    terms = declared_terms(primad)
    assert len(terms) > 100
    for t in terms:
        assert primad.value(t, RDFS.label) is not None, t
        assert primad.value(t, RDFS.label).language == "en", t
        assert primad.value(t, SKOS.definition) is not None, t
        assert (t, RDFS.isDefinedBy, IS_DEFINED_BY) in primad, t


def test_no_header_and_no_axioms_on_foreign_terms(primad: Graph) -> None:
    assert not list(primad.subjects(RDF.type, OWL.Ontology))
    foreign = {s for s in primad.subjects() if isinstance(s, URIRef) and s not in RK}
    assert foreign == set()
    text = (REPO / "ontology" / "primad.ttl").read_text()
    assert "https://schema.org/" not in text


def test_alignments(primad: Graph) -> None:
    mls = "http://www.w3.org/ns/mls#"
    sub = {(s, o) for s, o in primad.subject_objects(RDFS.subClassOf)}
    assert (RK.Run, URIRef(mls + "Run")) in sub
    assert (RK.Implementation, URIRef(mls + "Implementation")) in sub
    assert (RK.ParameterSetting, URIRef(mls + "HyperParameterSetting")) in sub
    assert (RK.MeasureValue, URIRef(mls + "ModelEvaluation")) in sub
    assert (RK.TestCollection, RK.DataResource) in sub
    assert (RK.DataResource, URIRef("http://www.w3.org/ns/dcat#Dataset")) in sub
    assert (RK.ImplementationSource, URIRef("http://schema.org/SoftwareSourceCode")) in sub


def test_classes_do_not_clash_across_modules(ontology: Graph) -> None:
    """A term declared in two modules would get two labels."""
    for t in declared_terms(ontology):
        labels = set(ontology.objects(t, RDFS.label))
        assert len(labels) == 1, (t, labels)


def test_loader_uses_only_declared_terms(shared_data: Path, ontology: Graph) -> None:
    from reprokg.loaders import ir_metadata as im

    data = (shared_data / "ir_metadata" / "annotated_run_example.txt").read_bytes()
    [doc] = im.load(data, "a.txt")
    declared = declared_terms(ontology)
    used = {p for p in doc.graph.predicates() if p in RK}
    used |= {o for o in doc.graph.objects(None, RDF.type) if o in RK}
    used |= {o for o in doc.graph.objects() if isinstance(o, URIRef) and o in RK}
    assert used - declared == set()


def kinds(primad: Graph) -> dict[URIRef, re.Pattern]:
    out = {}
    for c in primad.subjects(SKOS.inScheme, RK.StudyKindScheme):
        pat = primad.value(c, RK.signaturePattern)
        assert pat is not None, c
        out[c] = re.compile(str(pat))
    return out


def signatures() -> list[str]:
    return [
        "".join(ch.upper() if up else ch for ch, up in zip("primad", bits, strict=True))
        for bits in itertools.product([False, True], repeat=6)
    ]


def test_study_kinds_from_the_seed(primad: Graph) -> None:
    k = kinds(primad)

    def kind_of(sig: str) -> set[URIRef]:
        return {c for c, p in k.items() if p.match(sig)}

    assert kind_of("priMad") == {RK.KindParameterSweep}
    assert kind_of("PRIMAd") == {RK.KindReimplementation}
    assert kind_of("PRIMAD") == {RK.KindGeneralization}
    assert kind_of("primad") == {RK.KindRepeat}
    assert kind_of("primAd") == {RK.KindIndependentRepeat}


def test_study_kinds_are_disjoint(primad: Graph) -> None:
    k = kinds(primad)
    for sig in signatures():
        assert len([c for c, p in k.items() if p.match(sig)]) <= 1, sig


def test_conflicting_labels_are_mapped_with_sources(primad: Graph) -> None:
    maps = (SKOS.exactMatch, SKOS.closeMatch, SKOS.relatedMatch, SKOS.narrowMatch)
    kinds_ = set(primad.subjects(SKOS.inScheme, RK.StudyKindScheme))
    terms = set(primad.subjects(SKOS.inScheme, RK.ReproducibilityTermScheme))
    assert len(terms) == 11
    for t in terms:
        targets = {o for p in maps for o in primad.objects(t, p)}
        assert targets & kinds_, t
        assert primad.value(t, SKOS.note) is not None, t
    # ACM 2020 swapped replicability and reproducibility relative to ACM 2016
    assert (RK.Acm2020Reproducibility, SKOS.exactMatch, RK.Acm2016Replicability) in primad
    assert (RK.Acm2020Replicability, SKOS.exactMatch, RK.Acm2016Reproducibility) in primad
    # ... and the same word maps to different kinds before and after
    assert (RK.Acm2016Reproducibility, SKOS.closeMatch, RK.KindReimplementation) in primad
    assert (RK.Acm2020Reproducibility, SKOS.closeMatch, RK.KindIndependentRepeat) in primad
    # seed 003: a replication is a repeat at an independent lab
    assert (RK.Seed003Replicate, SKOS.exactMatch, RK.KindIndependentRepeat) in primad
