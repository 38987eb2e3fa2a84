"""Loaders check a field's type, not only its presence (issue 38): a field that must be a
string or a number and is an object or a list is a located error naming the file, the
field and what was expected. Before, ``str()`` made its Python text the value:
``run_id: {"a": 1}`` became the run ``openml-run-{'a': 1}``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reprokg.core.errors import LoadError
from reprokg.loaders import artifact_evaluation, load_source
from reprokg.loaders.reading.source import scalar_text
from tests.exchange.test_openml_import import FIXTURE, _as_json

WRONG = [({"a": 1}, "an object"), ([1, 2], "a list"), (True, "the boolean true")]
WRONG_IDS = ["object", "list", "boolean"]


def test_the_shared_check() -> None:
    assert scalar_text(None, "f", "x") is None
    assert scalar_text("a", "f", "x") == "a" and scalar_text(12, "f", "x") == "12"
    with pytest.raises(LoadError) as err:
        scalar_text({"a": 1}, "f.json", "run.run_id", line=3)
    e = err.value
    assert (e.source, e.line, e.field) == ("f.json", 3, "run.run_id")
    assert e.message == "run.run_id: expected a string or a number, not an object"


# --------------------------------------------------------------------------- OpenML


def _openml_json(edit: Any) -> bytes:
    """openml-python's own fixture (run 100) as OpenML's JSON API writes it, edited."""
    doc = json.loads(_as_json(FIXTURE.read_bytes()))
    edit(doc["run"])
    return json.dumps(doc).encode()


def test_the_openml_fixture_as_json_loads() -> None:
    (doc,) = load_source("run-100.json", _openml_json(lambda run: None), "openml")
    assert str(doc.subject).startswith("https://")


def _set(path: list[Any], value: Any) -> Any:
    def edit(run: dict) -> None:
        node = run
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = value

    return edit


OPENML_FIELDS = [
    (["run_id"], "run.run_id"),
    (["flow_id"], "run.flow_id"),
    (["task_id"], "run.task_id"),
    (["uploader_name"], "run.uploader_name"),
    (["parameter_setting", 0, "value"], "run.parameter_setting[0].value"),
    (["input_data", "dataset", "did"], "run.input_data.dataset[0].did"),
    (["output_data", "evaluation", 0, "name"], "run.output_data.evaluation[0].name"),
]


@pytest.mark.parametrize(("path", "field"), OPENML_FIELDS, ids=[f for _, f in OPENML_FIELDS])
@pytest.mark.parametrize(("value", "what"), WRONG, ids=WRONG_IDS)
def test_an_openml_field_of_the_wrong_type_is_a_located_error(
    path: list[Any], field: str, value: Any, what: str
) -> None:
    with pytest.raises(LoadError) as err:
        load_source("run-100.json", _openml_json(_set(path, value)), "openml")
    e = err.value
    assert (e.source, e.field) == ("run-100.json", field)
    assert e.message == f"{field}: expected a string or a number, not {what}"


def test_an_openml_fold_that_is_not_a_number_is_a_located_error() -> None:
    """XML too: ``fold="x"`` was a ``ValueError`` out of ``int()``."""
    xml = FIXTURE.read_bytes().replace(b'fold="0"', b'fold="x"', 1)
    assert xml != FIXTURE.read_bytes()
    with pytest.raises(LoadError) as err:
        load_source("description.xml", xml, "openml")
    assert err.value.field == "evaluation.fold" and "whole number" in err.value.message


# --------------------------------------------------------------------------- artifact evaluation


@pytest.fixture(scope="module")
def reprodb(shared_data: Path) -> list[dict]:
    """The first records of ReproDB's real artifacts.json."""
    return json.loads((shared_data / "artifact_evaluation/reprodb/artifacts.json").read_text())[:4]


@pytest.mark.parametrize("field", ["doi", "paper_url", "appendix_url"])
@pytest.mark.parametrize(("value", "what"), WRONG, ids=WRONG_IDS)
def test_an_artifact_link_of_the_wrong_type_rejects_its_record(
    reprodb: list[dict], field: str, value: Any, what: str
) -> None:
    """The loader's rule for a record it cannot read (as a badges field that is not a
    list): that record is rejected, located, the field named; the others load."""
    records = json.loads(json.dumps(reprodb))
    records[1][field] = value
    data = json.dumps(records, indent=2).encode()
    docs, summary = artifact_evaluation.load_with_summary(data, "artifacts.json")
    assert len(docs) == 4 and len(summary.skipped) == 1
    (message,) = [m for m in docs[1].messages if m.severity == "Violation"]
    assert message.path == field and f"not {what}" in message.message
    assert message.line == 1 + data.decode().split("\n").index("  {", 2)  # record 2's brace
    assert not any(m.severity == "Violation" for d in (docs[0], *docs[2:]) for m in d.messages)


def test_a_results_page_link_that_is_a_list_rejects_its_artifact(shared_data: Path) -> None:
    """A results page's YAML front matter (sysartifacts, real): ``artifact_url`` a list."""
    page = shared_data / "artifact_evaluation/sysartifacts/eurosys2024-results.md"
    text = page.read_text()
    url = '    artifact_url: "http://doi.org/10.5281/zenodo.10077042"\n'
    assert url in text
    edited = text.replace(url, '    artifact_url: ["http://doi.org/10.5281/zenodo.10077042"]\n')
    docs, summary = artifact_evaluation.load_with_summary(edited.encode(), page.name)
    before, _ = artifact_evaluation.load_with_summary(text.encode(), page.name)
    assert len(summary.skipped) == 1 and len(docs) == len(before)
    rejected = [m for d in docs for m in d.messages if m.severity == "Violation"]
    assert [(m.path, "not a list" in m.message) for m in rejected] == [
        ("artifacts[].artifact_url", True)
    ]


# --------------------------------------------------------------------------- graphics survey


@pytest.fixture(scope="module")
def per_paper(shared_data: Path) -> Path:
    return (
        shared_data / "replicability_graphics/per_paper/siggraph-2014/10.1145-2601097.2601113.json"
    )


@pytest.mark.parametrize(
    ("field", "line"), [("Title", 7), ("DOI", 8), ("Variant name", 3), ("Reviewer name", 4)]
)
@pytest.mark.parametrize(("value", "what"), WRONG[:2], ids=WRONG_IDS[:2])
def test_a_survey_text_field_of_the_wrong_type_is_a_located_error(
    per_paper: Path, field: str, line: int, value: Any, what: str
) -> None:
    """The paper's title, its DOI and the variant's name mint IRIs; the reviewer's name
    is a text field: each an object or a list was its Python text."""
    records = json.loads(per_paper.read_text())
    assert field in records[0]
    records[0][field] = value
    data = json.dumps(records, indent=4).encode()
    with pytest.raises(LoadError) as err:
        load_source(per_paper.name, data, "survey")
    e = err.value
    assert (e.source, e.field, e.line) == (per_paper.name, field, line)
    assert f"not {what}" in e.message


@pytest.fixture(scope="module")
def consolidated(shared_data: Path) -> list[dict]:
    """The first records of the real consolidated survey (consolidatedData.json)."""
    path = shared_data / "replicability_graphics/consolidatedData.json"
    return json.loads(path.read_text())[:2]


@pytest.mark.parametrize(
    ("field", "value", "where"),
    [
        ("Paper authors", [{"given": {"a": 1}, "family": "Chen"}], "Paper authors[0].given"),
        (
            "Paper authors",
            [{"given": "Ann", "affiliation": [["x"]]}],
            "Paper authors[0].affiliation",
        ),
        ("ACM 1", {"a": 1}, "ACM 1"),
        ("Title", {"a": 1}, "Title"),
    ],
    ids=["author-given", "affiliation", "keyword", "title"],
)
def test_a_consolidated_survey_field_of_the_wrong_type_is_a_located_error(
    consolidated: list[dict], field: str, value: Any, where: str
) -> None:
    records = json.loads(json.dumps(consolidated))
    assert field in records[1]
    records[1][field] = value
    data = json.dumps(records, indent=4)
    with pytest.raises(LoadError) as err:
        load_source("consolidatedData.json", data.encode(), "survey")
    e = err.value
    assert e.field == where and e.line is not None
    assert data.split("\n")[e.line - 1].strip().startswith(f'"{field}"')


def test_an_award_that_is_an_object_rejects_its_record(reprodb: list[dict]) -> None:
    records = json.loads(json.dumps(reprodb))
    records[2]["award"] = {"name": "best"}
    docs, summary = artifact_evaluation.load_with_summary(json.dumps(records).encode(), "a.json")
    assert len(summary.skipped) == 1
    (message,) = [m for m in docs[2].messages if m.severity == "Violation"]
    assert message.path == "award" and "not an object" in message.message


# --------------------------------------------------------------------------- YAML loaders
# No stability study or feature-discard curve is in ../shared/data: the bundled examples
# (seed 003's study, seed 000's SAGN+SLE curve) are the real files here.

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize(
    ("written", "replacement", "field"),
    [
        ("dataset: miniImagenet\n", "dataset: {name: miniImagenet}\n", "dataset"),
        ("title: Reproducibility and", "title: [Reproducibility and", "title"),
        ("    optimizer: adam\n", "    optimizer: [adam, sgd]\n", "observations[0].optimizer"),
        ("    configuration: c1\n", "    configuration: {c: 1}\n", "observations[0].configuration"),
        ("learning_rate: 0.005,", "learning_rate: [0.005],", "observations[0].hp.learning_rate"),
    ],
    ids=["dataset", "title", "optimizer", "configuration", "hyper-parameter"],
)
def test_a_stability_field_of_the_wrong_type_is_a_located_error(
    written: str, replacement: str, field: str
) -> None:
    """Was the Python text of the mapping or list as the study's label, the experiment's
    optimizer or the configuration's name (a minted IRI)."""
    path = EXAMPLES / "stability/fewshot_seed003.yaml"
    text = path.read_text()
    assert written in text
    if field == "title":  # close the flow sequence the replacement opened
        text = text.replace("Few-Shot Learning\ndataset", "Few-Shot Learning]\ndataset", 1)
    edited = text.replace(written, replacement, 1)
    with pytest.raises(LoadError) as err:
        load_source(path.name, edited.encode(), "stability")
    assert err.value.field == field and "expected" in err.value.message


def test_a_feature_discard_note_that_is_a_mapping_is_a_located_error() -> None:
    path = EXAMPLES / "intrinsic_dimension/sagn_sle_yelp.yaml"
    text = path.read_text()
    written = "note: Scores are illustrative;"
    assert written in text
    edited = text.replace(written, "note: {a: 1}\nx_note: Scores are illustrative;", 1)
    with pytest.raises(LoadError) as err:
        load_source(path.name, edited.encode(), "feature-discard")
    assert err.value.field == "note" and "not an object" in err.value.message
