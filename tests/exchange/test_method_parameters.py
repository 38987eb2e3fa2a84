"""``method.parameters`` (rk:methodParameter), what every importer writes a run's parameters
as: read and written back as YAML, validated by its own shape on both SHACL engines."""

from __future__ import annotations

import pytest
from rdflib.namespace import RDF

from reprokg.core.namespaces import RK
from reprokg.loaders.ir_metadata.export import graph_to_dict
from reprokg.loaders.ir_metadata.tree import flatten, run_document, unflatten
from reprokg.loaders.reading.contract import LoaderInfo
from reprokg.validation.engine import validate_document

INFO = LoaderInfo(kind="test", name="reprokg.loaders.test", version="0")
TREE = {
    "tag": "t",
    "method": {"parameters": {"learning_rate": "0.001", "seed": 7, "bm25.k1": 0.9}},
    "data": {"training data": [{"name": "a"}, {"name": "b/c", "source": "https://x.org/d"}]},
}


def _doc(tree=TREE):
    return run_document(tree, name="t", record=repr(tree).encode(), source_key="t", producer=INFO)


def test_parameters_round_trip_and_pointers() -> None:
    doc = _doc()
    assert graph_to_dict(doc.graph, doc.subject)["method"] == TREE["method"]
    pairs = flatten(TREE)
    assert ("/data/training data/1/name", "b/c") in pairs
    assert unflatten(pairs) == TREE


@pytest.mark.parametrize("engine", ["fast", "pyshacl"])
def test_a_parameter_without_value_is_a_violation(engine: str, monkeypatch) -> None:
    monkeypatch.setenv("REPROKG_SHACL_ENGINE", engine)
    doc = _doc()
    assert validate_document(doc).conforms
    p = next(doc.graph.objects(None, RK.methodParameter))
    assert (p, RDF.type, RK.ParameterSetting) in doc.graph
    doc.graph.remove((p, RK.parameterValue, None))
    report = validate_document(doc)
    assert not report.conforms
    assert [r.path for r in report.results if r.severity == "Violation"] == ["method.parameters"]
