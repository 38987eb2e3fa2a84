"""The analysis reads its observations from a real embedded store (SPARQL, never the file)
and writes itself back as a validated ``stability-analysis`` document, idempotently."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import pytest
from rdflib import RDF, Graph

from reprokg.core.computed import software_versions
from reprokg.core.errors import NotFound, UsageError
from reprokg.core.namespaces import SPARQL_PREFIXES
from reprokg.ingest import write_result
from reprokg.stability.analysis import analyse
from reprokg.stability.observations import (
    list_studies,
    observation_frame,
    resolve_study,
)
from reprokg.stability.result import SOFTWARE
from reprokg.stability.simulate import EXAMPLE_TITLE, example_study
from reprokg.stability.study import (
    ILLUSTRATIVE_WARNING,
    analyse_study,
    chart,
)
from reprokg.store.base import SelectResult
from reprokg.validation.engine import validate_document
from tests.stability.stores import SMALL_TITLE, build_store, small_frame


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Any:
    s = build_store(tmp_path_factory.mktemp("stability-store"))
    yield s
    s.close()


def _rows(store: Any, sparql: str) -> list[dict[str, Any]]:
    res = store.query(SPARQL_PREFIXES + sparql)
    assert isinstance(res, SelectResult)
    return [{k: str(v) for k, v in row.items()} for row in res.dicts()]


def test_studies_are_listed_with_their_documents_and_flags(store: Any) -> None:
    studies = {s.title: s for s in list_studies(store)}
    assert set(studies) == {
        EXAMPLE_TITLE,
        SMALL_TITLE,
        "Reproducibility and Stability Analysis in Metric-Based Few-Shot Learning",
    }
    assert studies[EXAMPLE_TITLE].illustrative and not studies[SMALL_TITLE].illustrative
    for s in studies.values():
        assert len(s.documents) == 1 and s.documents[0].startswith(
            "https://w3id.org/reprokg/id/doc/"
        )
        assert s.iri.endswith("/" + s.id)


def test_resolve_by_iri_id_prefix_and_title(store: Any) -> None:
    small = resolve_study(store, SMALL_TITLE)
    assert resolve_study(store, small.iri) == small
    assert resolve_study(store, small.id) == small
    assert resolve_study(store, small.id[:6]) == small
    assert resolve_study(store, SMALL_TITLE.upper()) == small


def test_resolve_errors_list_the_studies(store: Any, tmp_path: Any) -> None:
    with pytest.raises(UsageError) as exc:
        resolve_study(store, None)  # three studies: which one?
    assert len(exc.value.details["studies"]) == 3 and exc.value.http_status == 400
    with pytest.raises(NotFound) as nf:
        resolve_study(store, "no-such-study")
    assert nf.value.http_status == 404 and SMALL_TITLE in str(nf.value)
    empty = build_store(tmp_path / "empty", small=False, examples=False)
    with pytest.raises(NotFound, match="no stability study in the store"):
        resolve_study(empty, None)
    empty.close()


def test_the_frame_read_with_sparql_is_the_loaded_file(store: Any) -> None:
    """The paper-sized example: every run, value and column as the CSV has them."""
    got = observation_frame(store, resolve_study(store, EXAMPLE_TITLE))
    want = example_study(3)
    assert len(got) == len(want) == 1083
    key = ["experiment", "configuration", "seed", "repeat"]
    got = got.sort_values(key).reset_index(drop=True)
    want = want.sort_values(key).reset_index(drop=True)
    for col in ("experiment", "algorithm", "implementation", "optimizer", "configuration"):
        assert got[col].tolist() == want[col].astype(str).tolist(), col
    assert got["seed"].tolist() == want["seed"].tolist()
    assert got["repeat"].tolist() == want["repeat"].tolist()
    assert got["value"].tolist() == [float(v) for v in want["value"]]
    assert set(got["metric"]) == {"test accuracy"}
    assert got["experiment_iri"].str.startswith("https://w3id.org/reprokg/id/").all()


def test_generic_store_path_gives_the_same_frame(store: Any) -> None:
    """What a remote backend offers (``query()`` only) reads the same frame."""

    class QueryOnly:
        def query(self, sparql: str) -> Any:
            return store.query(sparql)

    study = resolve_study(store, SMALL_TITLE)
    pd.testing.assert_frame_equal(
        observation_frame(QueryOnly(), study), observation_frame(store, study)
    )


def test_analysis_from_the_store_equals_the_analysis_of_the_file(store: Any) -> None:
    """The small study (real variances; its numbers are checked against R in
    test_r_crosscheck): from the graph the same numbers as from the frame written."""
    from_store = analyse_study(store, SMALL_TITLE).result.to_json()
    direct = analyse(small_frame(), study=from_store["study"])
    assert from_store["n"] == direct["n"] == len(small_frame())
    assert from_store["warnings"] == direct["warnings"]

    def close(a: Any, b: Any) -> None:
        if isinstance(a, dict):
            assert list(a) == list(b)
            for k in a:
                close(a[k], b[k])
        elif isinstance(a, float):
            assert a == pytest.approx(b, rel=1e-9, abs=1e-12)
        else:
            assert a == b

    close(from_store, direct)


@pytest.mark.slow
def test_illustrative_data_stays_flagged(store: Any) -> None:
    res = analyse_study(store, EXAMPLE_TITLE).result.to_json()
    assert res["warnings"][0] == ILLUSTRATIVE_WARNING
    assert ILLUSTRATIVE_WARNING not in analyse_study(store, SMALL_TITLE).result.warnings
    svg = chart(analyse_study(store, EXAMPLE_TITLE), "svg")
    assert b"ILLUSTRATIVE" in svg


def test_the_example_is_a_paper_like_analysis(store: Any) -> None:
    res = analyse_study(store, EXAMPLE_TITLE).result.to_json()
    assert res["n"] == 1083 and res["singular"] is True
    assert len(res["contrasts"]) == 6 and res["anova"]["experiment"]["num_df"] == 11
    assert res["hypotheses"]["H1"]["decision"] == res["hypotheses"]["H2"]["decision"]
    assert res["hypotheses"]["H1"]["p"] == 1.0
    json.dumps(res, allow_nan=False)


@pytest.mark.slow
def test_metric_choice(store: Any, tmp_path: Any) -> None:
    with pytest.raises(UsageError, match="no observations of metric 'f1'"):
        analyse_study(store, SMALL_TITLE, metric="f1")
    with pytest.raises(UsageError, match="alpha"):
        analyse_study(store, SMALL_TITLE, alpha=1.0)
    # two metrics: the one with the most rows, and a sentence saying so
    from reprokg.ingest import ingest
    from reprokg.loaders import stability
    from tests.stability.stores import study_csv

    frame = small_frame()
    other = frame.iloc[:20].assign(metric="f1")
    two = build_store(tmp_path / "two", small=False, examples=False)
    ingest(two, stability.load(study_csv(pd.concat([frame, other]), "two metrics"), "t.csv"))
    res = analyse_study(two, "two metrics").result.to_json()
    assert res["n"] == len(frame)
    assert any("observes 2 metrics; 'accuracy'" in w for w in res["warnings"])
    assert analyse_study(two, "two metrics", metric="f1").result.n == 20
    two.close()


@pytest.mark.slow
def test_write_back_is_validated_linked_data_and_idempotent(store: Any) -> None:
    analysis = analyse_study(store, EXAMPLE_TITLE)
    first = write_result(store, analysis.result)
    assert first.status == "added" and first.report is not None and first.report.conforms
    # the same observations analysed again: nothing written
    assert write_result(store, analyse_study(store, EXAMPLE_TITLE).result).status == "unchanged"
    # another level revises the analysis of this study, method and metric; ML is its own
    assert write_result(store, analyse_study(store, EXAMPLE_TITLE, alpha=0.01).result).status == (
        "revised"
    )
    assert (
        write_result(store, analyse_study(store, EXAMPLE_TITLE, reml=False).result).status
        == "added"
    )
    assert write_result(store, analyse_study(store, EXAMPLE_TITLE).result).status == "revised"
    assert write_result(store, analyse_study(store, EXAMPLE_TITLE).result).status == "unchanged"

    study = analysis.study
    rows = _rows(
        store,
        f"""SELECT ?g ?a ?obs ?method ?sw ?ver WHERE {{ GRAPH ?g {{
              ?a a rk:StabilityAnalysis ; rk:analysedStudy <{study.iri}> ;
                 prov:wasDerivedFrom ?obs ; rk:estimationMethod ?method ;
                 rk:isIllustrative true ; prov:wasGeneratedBy ?act .
              ?act prov:used ?sw . ?sw schema:name ?name ; schema:softwareVersion ?ver }}
              FILTER(?obs != ?g) }}""",
    )
    assert {r["method"] for r in rows} == {"REML", "ML"}
    assert {r["obs"] for r in rows} == set(study.documents)  # besides its own graph
    versions = {r["ver"] for r in rows}
    assert set(software_versions(*SOFTWARE).values()) <= versions
    # the computed hypothesis tests hang on the study, next to the paper's reported ones
    tests = _rows(
        store,
        f"""SELECT ?h ?p ?decision ?a WHERE {{ <{study.iri}> rk:hasHypothesisTest ?t .
              ?t rk:testedHypothesis ?h ; rk:pValue ?p ; rk:decision ?decision ;
                 rk:isPartOf ?a . ?a rk:estimationMethod "REML" }}""",
    )
    result = analysis.result.to_json()
    assert {r["h"].rsplit("#", 1)[1] for r in tests} == {"H1", "H2", "H3"}
    for r in tests:
        h = r["h"].rsplit("#", 1)[1]
        assert float(r["p"]) == result["hypotheses"][h]["p"]
    # every contrast with its two experiments, as numbers
    contrasts = _rows(
        store,
        """SELECT ?label ?est ?a ?b WHERE { ?x a rk:ContrastEstimate ; rdfs:label ?label ;
              rk:estimate ?est ; rk:contrastMinuend/rdfs:label ?a ;
              rk:contrastSubtrahend/rdfs:label ?b ; rk:isPartOf|^rk:hasContrast ?an .
              ?an rk:estimationMethod "REML" }""",
    )
    assert {r["label"] for r in contrasts} == set(result["contrasts"])
    for r in contrasts:
        assert r["label"] == f"{r['a']} - {r['b']}"
        assert float(r["est"]) == result["contrasts"][r["label"]]["estimate"]


def test_document_holds_every_number_and_conforms(store: Any) -> None:
    a = analyse_study(store, SMALL_TITLE, pairs=[("a", "b"), ("b", "c")])
    doc = a.result.document()
    result = a.result.to_json()
    report = validate_document(doc)
    assert report.conforms, report.to_text()
    g: Graph = doc.graph
    q = SPARQL_PREFIXES + "SELECT ?term ?v WHERE { ?x rk:termName ?term ; %s ?v }"
    fixed = {str(t): float(v) for t, v in g.query(q % "a rk:FixedEffectEstimate ; rk:estimate")}
    assert fixed == {k: v["estimate"] for k, v in result["fixed_effects"].items()}
    var = {str(t): float(v) for t, v in g.query(q % "a rk:VarianceComponent ; rk:variance")}
    assert var == {k: v["variance"] for k, v in result["variance_components"].items()}
    lrt = {str(t): float(v) for t, v in g.query(q % "a rk:RandomEffectTest ; rk:likelihoodRatio")}
    assert lrt == {k: v["lrt"] for k, v in result["random_effects_tests"].items()}
    f = {str(t): float(v) for t, v in g.query(q % "a rk:FixedEffectFTest ; rk:fValue")}
    assert f == {"experiment": result["anova"]["experiment"]["f"]}
    payload = g.value(doc.subject, RDF.value)
    assert json.loads(str(payload)) == result  # the whole answer, as rdf:JSON


def test_nothing_estimable_is_still_a_valid_document(store: Any) -> None:
    """The YAML example (three runs of one experiment): nulls, sentences, a valid document."""
    a = analyse_study(
        store, "Reproducibility and Stability Analysis in Metric-Based Few-Shot Learning"
    )
    result = a.result.to_json()
    assert result["loglik"] is None and len(result["warnings"]) >= 2
    assert all(v is None for v in result["hypotheses"]["H1"].values())
    outcome = write_result(store, a.result)
    assert outcome.status in ("added", "unchanged") and outcome.report.conforms


def test_both_shacl_engines_agree_on_analysis_documents(store: Any) -> None:
    """The compiled engine gives pyshacl's results on real and defective analyses."""
    from rdflib import Literal
    from rdflib.namespace import XSD

    from reprokg.core.namespaces import RK
    from reprokg.validation.engine import fast_results, shacl_key
    from reprokg.validation.fast.compiler import compile_kind
    from reprokg.validation.pyshacl_engine import shacl_results
    from reprokg.validation.shapes import materialise_types

    assert compile_kind("stability-analysis") is not None
    docs = []
    for title in (EXAMPLE_TITLE, SMALL_TITLE):
        a = analyse_study(store, title)
        docs.append(a.result.document())
    bad = docs[1]
    g = bad.graph
    g.set((bad.subject, RK.estimationMethod, Literal("OLS")))
    g.set((bad.subject, RK.significanceLevel, Literal(1.5, datatype=XSD.double)))
    for x in g.subjects(RK.termName, Literal("seed")):
        g.set((x, RK.pValue, Literal(2.5, datatype=XSD.double)))
    results = fast_results(docs, "stability-analysis")
    assert results is not None
    for d, got in zip(docs, results, strict=True):
        assert shacl_key(got) == shacl_key(shacl_results(materialise_types(d.graph), d.kind))
    assert not validate_document(bad).conforms
    assert validate_document(docs[0]).conforms
