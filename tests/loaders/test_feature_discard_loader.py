"""loaders/feature_discard.py and shapes/feature-discard.ttl: the seed's example, every
key, errors naming the key and line, and both SHACL engines agreeing."""

from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import URIRef
from rdflib.namespace import RDF

from reprokg.core.errors import LoadError
from reprokg.core.namespaces import RK
from reprokg.loaders import detect_kind, feature_discard
from reprokg.loaders.files import load_path
from reprokg.validation.engine import fast_results, shacl_key, validate_document
from reprokg.validation.pyshacl_engine import shacl_results
from reprokg.validation.shapes import materialise_types
from tests.conftest import REPO

EXAMPLE = REPO / "examples" / "intrinsic_dimension" / "sagn_sle_yelp.yaml"

FULL = """\
feature-discard: 1
title: GCN on cora
publication: {doi: 10.1000/Example}
illustrative: false
dataset: {name: cora, iri: https://example.org/datasets/cora}
method: GCN
metric: accuracy
strategy: reverse-id
intrinsic_dimension: https://w3id.org/reprokg/id/intrinsic-dimension/0123456789abcdef0123
runs: 10
score_before: 0.815
colour: blue
steps:
  - proportion: 0.1
    score: 0.80
  - proportion: 0.25
    score: 0.7
    discarded: [w12, w7]
    note: listed by hand
"""


def _load(text: str, name: str = "fd.yaml"):
    [doc] = feature_discard.load(text.encode(), name)
    return doc


def test_sniff_and_registry() -> None:
    assert feature_discard.sniff("x.yaml", "# comment\nfeature-discard: 1\n")
    assert not feature_discard.sniff("x.yaml", "stability: 1\n")
    assert not feature_discard.sniff("x.csv", "feature-discard: 1\n")
    assert detect_kind(EXAMPLE.name, EXAMPLE.read_text()) == "feature-discard"


def test_the_seed_example_conforms_with_its_warning() -> None:
    [doc] = load_path(EXAMPLE)
    report = validate_document(doc)
    assert report.conforms
    assert [r.path for r in report.results if r.severity == "Warning"] == ["publication"]
    infos = {r.path for r in report.results if r.severity == "Info"}
    assert infos == {"illustrative", "intrinsic_dimension"}
    g = doc.graph
    study = doc.subject
    assert (study, RDF.type, RK.FeatureDiscardStudy) in g
    steps = sorted(g.subjects(RK.inFeatureDiscardStudy, study))
    assert len(steps) == 9
    props = sorted(float(g.value(s, RK.discardProportion).toPython()) for s in steps)
    assert props == [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    assert g.value(study, RK.illustrativeScores).toPython() is True
    assert g.value(study, RK.runsPerScore).toPython() == 10
    assert {g.value(s, RK.methodName).toPython() for s in steps} == {"SAGN+SLE"}


def test_every_key() -> None:
    doc = _load(FULL)
    g, study = doc.graph, doc.subject
    ds = URIRef("https://example.org/datasets/cora")
    assert (study, RK.ofDataSet, ds) in g and (ds, RK.dataSetName, None) in g
    assert (study, None, URIRef("https://doi.org/10.1000/example")) in g
    before = g.value(study, RK.scoreWithAllFeatures)
    assert str(g.value(before, RK.metricValue)) == "0.815"
    steps = {
        str(g.value(s, RK.discardProportion)): s
        for s in g.subjects(RK.inFeatureDiscardStudy, study)
    }
    assert set(steps) == {"0.1", "0.25"}
    assert {str(n) for n in g.objects(steps["0.25"], RK.discardedFeatureName)} == {"w12", "w7"}
    assert not list(g.objects(steps["0.1"], RK.discardedFeatureName))
    for s in steps.values():
        assert g.value(s, RK.discardStrategy) == RK.DiscardByIntrinsicDimensionReversed
        assert g.value(s, RK.rankedBy) == URIRef(
            "https://w3id.org/reprokg/id/intrinsic-dimension/0123456789abcdef0123"
        )
    assert [m.path for m in doc.messages] == ["colour"]  # unknown key kept as Info
    assert doc.lines["steps[1].proportion"] == 16
    report = validate_document(doc)
    assert report.conforms and not [r for r in report.results if r.severity == "Warning"]


def test_same_source_twice_is_the_same_document() -> None:
    assert _load(FULL).sha256 == _load(FULL).sha256
    assert _load(FULL).source_key == _load(FULL.replace("0.80", "0.79")).source_key


@pytest.mark.parametrize(
    ("edit", "field", "line"),
    [
        (("feature-discard: 1", "feature-discard: 2"), "feature-discard", None),
        (("method: GCN\n", ""), "method", None),
        (("strategy: reverse-id", "strategy: best"), "strategy", 8),
        (("score_before: 0.815", "score_before: high"), "score_before", 11),
        (("    score: 0.7\n", "    score: seventy\n"), "steps[1].score", 17),
        (("  - proportion: 0.25", "  - proportion: 0.1"), "steps[1].proportion", 16),
        (("runs: 10", "runs: ten"), "runs", 10),
        (("doi: 10.1000/Example", "doi: 11.1000/x"), "publication.doi", 3),
        (
            ("intrinsic_dimension: https://w3id", "intrinsic_dimension: not-an-iri https://w3id"),
            "intrinsic_dimension",
            9,
        ),
        (("discarded: [w12, w7]", "discarded: w12"), "steps[1].discarded", 18),
        (
            ("dataset: {name: cora, iri: https://example.org/datasets/cora}", "dataset: []"),
            "dataset",
            None,
        ),
    ],
)
def test_errors_name_the_key_and_line(edit: tuple[str, str], field: str, line: int | None) -> None:
    text = FULL.replace(*edit)
    assert text != FULL
    with pytest.raises(LoadError) as err:
        _load(text)
    assert err.value.field == field
    assert err.value.source == "fd.yaml"
    if line is not None:
        assert err.value.line == line


@pytest.mark.parametrize(
    ("edit", "path"),
    [
        (("proportion: 0.1\n", "proportion: 1.5\n"), "steps.proportion"),
        (("proportion: 0.1\n", "proportion: 0\n"), "steps.proportion"),
        (("runs: 10", "runs: 0"), "runs"),
    ],
)
def test_shape_violations(edit: tuple[str, str], path: str) -> None:
    doc = _load(FULL.replace(*edit))
    report = validate_document(doc)
    assert not report.conforms
    assert path in {r.path for r in report.results if r.severity == "Violation"}


@pytest.mark.parametrize(
    "text",
    [
        FULL,
        EXAMPLE.read_text(),
        FULL.replace("proportion: 0.1\n", "proportion: 1.5\n"),
        FULL.replace("strategy: reverse-id", "strategy: random").replace(
            "intrinsic_dimension: https://w3id.org/reprokg/id/intrinsic-dimension/"
            "0123456789abcdef0123\n",
            "",
        ),
    ],
)
def test_fast_engine_equals_pyshacl(text: str) -> None:
    doc = _load(text)
    fast = fast_results([doc], doc.kind)
    ref = shacl_key(shacl_results(materialise_types(doc.graph), doc.kind))
    if fast is not None:
        assert shacl_key(fast[0]) == ref


def test_example_is_in_the_demo_folder() -> None:
    assert EXAMPLE.is_file() and (EXAMPLE.parent / "README.md").is_file()
    assert Path(EXAMPLE).read_text().count("ILLUSTRATIVE") == 1
