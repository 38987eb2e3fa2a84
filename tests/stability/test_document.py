"""The analysis document without a store: experiment names with " - " in them, nothing
estimable, and the same input giving the same document (the basis of idempotence)."""

from __future__ import annotations

from reprokg.core.namespaces import RK
from reprokg.stability.analysis import fit_study, report
from reprokg.stability.result import StabilityResult
from reprokg.stability.simulate import crossed_design
from reprokg.validation.engine import validate_document

STUDY = "https://w3id.org/reprokg/id/stability-study/test"
DOC = "https://w3id.org/reprokg/id/doc/" + "0" * 64


def _analyse(frame, pairs=None) -> StabilityResult:
    return report(fit_study(frame), study=STUDY, pairs=pairs)


def _doc(result: StabilityResult, experiments: dict[str, str]):
    result.observations, result.experiment_iris, result.metric = (DOC,), experiments, "acc"
    return result.document()


def test_contrast_of_names_with_dashes_names_both_experiments() -> None:
    frame = crossed_design(5, experiments=("a - x", "b", "c"), n_seeds=5, n_repeats=4)
    result = _analyse(frame, pairs=[("a - x", "b")])
    exps = {e: f"https://w3id.org/reprokg/id/stability-experiment/{i}" for i, e in
            enumerate(("a - x", "b", "c"))}  # fmt: skip
    doc = _doc(result, exps)
    report = validate_document(doc)
    assert report.conforms, report.to_text()
    (c,) = doc.graph.subjects(RK.contrastMinuend, None)
    assert str(doc.graph.value(c, RK.contrastMinuend)).endswith("/0")
    assert str(doc.graph.value(c, RK.contrastSubtrahend)).endswith("/1")


def test_same_result_same_document_and_nothing_estimable_conforms() -> None:
    result = _analyse(crossed_design(5, n_seeds=1, n_repeats=1, per_cell=1))
    assert result.loglik is None
    a, b = _doc(result, {}), _doc(result, {})
    assert a.iri == b.iri and set(a.graph) == set(b.graph)
    assert validate_document(a).conforms
