"""The registry drives the computation: compare() computes exactly the applicable measures,
with the registry's defaults, and the comparison document names each value by the
registry's IRI."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from rdflib import URIRef
from rdflib.namespace import RDF

from reprokg.core.namespaces import MLS, RK
from reprokg.loaders.trec_files import read_qrels, read_run
from reprokg.measures import registry
from reprokg.measures.comparison import compare
from reprokg.measures.registry import CROSS, REGISTRY, SAME, Options, applicable
from reprokg.measures.run_comparison import compare_inputs
from tests.conftest import REPO


@pytest.fixture(scope="module")
def toy(shared_data: Path):
    d = shared_data / "trec" / "toy"
    return read_qrels(d / "qrels.toy"), [read_run(d / f"run_{x}") for x in "abc"]


def test_compare_computes_the_applicable_measures(toy) -> None:
    qrels, (a, b, c) = toy
    opts = Options(measures=("P@5", "AP"))
    full = compare(qrels, a, b, c, c, options=opts)
    assert list(full.measures) == [m.name for m in applicable(SAME)]
    base = compare(qrels, a, b, options=opts)
    assert list(base.measures) == [m.name for m in applicable(SAME, advanced=False)]
    assert "er" not in base.measures and "ktu" in base.measures
    cross = compare(qrels, a, b, c, c, qrels_rpl=qrels, options=opts)
    assert list(cross.measures) == [m.name for m in applicable(CROSS)]
    assert list(cross.measures) == [
        "pvalue", "er", "dri", "original_mean", "reproduced_mean", "pvalue_adjusted"
    ]  # fmt: skip


def test_a_registered_measure_is_computed(toy, monkeypatch: pytest.MonkeyPatch) -> None:
    qrels, (a, b, _) = toy
    extra = replace(
        REGISTRY["rmse"],
        name="topics",
        compute=lambda inp: {role: len(inp.scores[o].topics) for role, o, _ in inp.pairs},
    )
    monkeypatch.setitem(REGISTRY, "topics", extra)
    out = compare(qrels, a, b, options=Options(measures=("P@5",)))
    assert out.measures["topics"] == {"baseline": 3}
    monkeypatch.delitem(REGISTRY, "topics")
    assert "topics" not in compare(qrels, a, b, options=Options(measures=("P@5",))).measures


def test_option_defaults_are_the_measures_defaults() -> None:
    opts = Options()
    assert opts.depth == registry.KTU.defaults["depth"] == 1000  # repro_eval's RUN_LENGTH
    assert opts.rbo_p == registry.RBO.defaults["p"] == 0.95
    assert opts.rbo_depth == registry.RBO.defaults["depth"]
    assert opts.order == registry.KTU.defaults["order"] == "file"


def test_the_document_names_values_by_the_registry_iri(shared_data: Path) -> None:
    from reprokg.measures.inputs import qrels_from_bytes, run_from_bytes

    d = shared_data / "trec" / "toy"
    q = qrels_from_bytes((d / "qrels.toy").read_bytes(), "qrels.toy", "toy")
    runs = [run_from_bytes((d / f"run_{x}").read_bytes(), f"run_{x}") for x in "ab"]
    study = compare_inputs(q, runs[0], runs[1], None, None, None, Options(measures=("P@5",)))
    g = study.to_graph()
    specified = {g.value(v, MLS.specifiedBy) for v in g.subjects(RDF.type, RK.MeasureValue)}
    specified.discard(None)
    assert specified == {REGISTRY[name].iri for name in study.comparison.measures}
    assert all(str(m.iri).endswith(f"/measure/{m.name}") for m in REGISTRY.values())


@pytest.mark.slow
def test_comparison_and_evaluation_json_and_graph_come_from_one_object(shared_data: Path) -> None:
    """The comparison's graph reads back (``comparison_json``, what ``GET /comparisons/{id}``
    answers) as its JSON; the evaluation's reported scores in its graph are its JSON's."""
    from reprokg.core.computed import ComputedResult
    from reprokg.measures.comparison_document import comparison_json
    from reprokg.measures.evaluation import evaluate_runs
    from reprokg.measures.inputs import qrels_from_bytes, run_from_bytes

    d = shared_data / "trec" / "toy"
    q = qrels_from_bytes((d / "qrels.toy").read_bytes(), "qrels.toy", "toy")
    runs = [run_from_bytes((d / f"run_{x}").read_bytes(), f"run_{x}") for x in "ab"]
    study = compare_inputs(q, runs[0], runs[1], runs[1], runs[0])
    assert isinstance(study, ComputedResult)
    doc = study.document()
    back = comparison_json(doc.graph, doc.subject)
    want = study.to_json()
    assert json.dumps(back["measures"]) == json.dumps(want["measures"])  # values and order
    assert {**back, "warnings": sorted(want["warnings"])} == {
        **want,
        "warnings": sorted(want["warnings"]),
    }

    ex = REPO / "examples" / "runs"
    ev = evaluate_runs(
        q, [run_from_bytes((ex / f).read_bytes(), f) for f in ("annotated_run_example.txt",)]
    )
    assert isinstance(ev, ComputedResult)
    g = ev.to_graph()
    (run,) = ev.to_json()["runs"]
    stored = {
        str(g.value(v, RK.measureName)): float(g.value(v, MLS.hasValue))
        for v in g.objects(URIRef(run["run"]), RK.reportedScore)
    }
    assert stored == {k: s["value"] for k, s in run["scores"].items()} and stored


def test_draws_made_ahead_change_no_number(toy) -> None:
    """compare() draws the Monte Carlo resamples before the advanced side's child forks
    (registry.draw_ahead; the stats keep a seed's last draw): the same JSON whatever was
    drawn before, and the draw kept is the one the statistics read."""
    from reprokg.stats.bootstrap import _kept_resamples, seeded_resamples

    qrels, (a, b, c) = toy
    opts = Options(measures=("P@5", "AP"), resamples=999, seed=3)
    _kept_resamples.cache_clear()
    fresh = json.dumps(compare(qrels, a, b, c, c, options=opts).to_json())
    kept = seeded_resamples(3, 999, len(qrels))
    assert _kept_resamples.cache_info().currsize == 1
    assert seeded_resamples(3, 999, len(qrels))[0] is kept[0]
    seeded_resamples(3, 999, len(qrels) + 1)  # a draw for other topics kept instead
    assert json.dumps(compare(qrels, a, b, c, c, options=opts).to_json()) == fresh
    registry.draw_ahead(applicable(SAME), opts, len(qrels))
    assert json.dumps(compare(qrels, a, b, c, c, options=opts).to_json()) == fresh
