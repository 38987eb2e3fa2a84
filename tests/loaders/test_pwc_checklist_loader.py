"""ML Code Completeness Checklist CSV -> checklist assessments, on the real file; expected
values from reading the CSV independently with the csv module."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from rdflib import RDF, Graph, Literal, URIRef

from reprokg.core.errors import LoadError
from reprokg.core.namespaces import RK, SCHEMA
from reprokg.loaders import detect_kind, pwc_checklist
from reprokg.validation.batching import validate_documents
from tests.studies.stores import PWC_CSV


@pytest.fixture(scope="module")
def csv_path(shared_data: Path) -> Path:
    return shared_data / PWC_CSV


@pytest.fixture(scope="module")
def rows(csv_path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(csv_path.read_text(encoding="utf-8"))))


@pytest.fixture(scope="module")
def docs(csv_path: Path) -> list:
    return pwc_checklist.load(csv_path.read_bytes(), csv_path.name)


def _merged(docs: list) -> Graph:
    g = Graph()
    for d in docs:
        for t in d.graph:
            g.add(t)
    return g


def test_sniffed_and_one_document_per_repository(csv_path: Path, docs: list, rows: list) -> None:
    assert detect_kind(csv_path.name, csv_path.read_text("utf-8")[:4096]) == "pwc-checklist"
    assert len(rows) == len(docs) == 221
    assert {d.kind for d in docs} == {"pwc-checklist"}
    assert len({d.source_key for d in docs}) == 221


def test_repositories_stars_items_and_python_flag(docs: list, rows: list) -> None:
    g = _merged(docs)
    repos = set(g.subjects(RDF.type, SCHEMA.SoftwareSourceCode))
    assert repos == {URIRef(r["url"]) for r in rows}
    for r in rows:
        a = next(g.subjects(RK.assessedRepository, URIRef(r["url"])))
        assert (a, RDF.type, RK.CodeChecklistAssessment) in g
        assert (a, RK.inSurvey, RK.PapersWithCodeChecklist2019) in g
        assert g.value(a, RK.githubStars) == Literal(int(r["stars"]))
        assert g.value(a, RK.pythonRepository) == Literal(r["python"] == "1")
        for col, prop in pwc_checklist.ITEMS.items():
            assert g.value(a, prop) == Literal(r[col] == "1"), (r["url"], col)


def test_every_document_conforms_without_warnings(docs: list) -> None:
    reports = validate_documents(docs)
    assert all(r.conforms for r in reports)
    assert not [x for r in reports for x in r.results if x.severity != "Info"]


def test_bad_cells_are_kept_and_reported() -> None:
    data = (
        b"url,stars,python,training,evaluation,pretrained_model,results,dependencies,extra\n"
        b"https://github.com/a/b,many,1,1,yes,0,1,1,x\n"
    )
    (doc,) = pwc_checklist.load(data, "t.csv")
    msgs = {(m.severity, m.path) for m in doc.messages}
    assert ("Warning", "stars") in msgs and ("Warning", "evaluation") in msgs
    assert ("Info", "extra") in msgs
    assert doc.lines["stars"] == 2
    (report,) = validate_documents([doc])
    assert report.conforms  # missing stars is a Warning, not a Violation
    assert any("stars" in x.message for x in report.results if x.severity == "Warning")


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"", "empty file"),
        (b"url,stars\nhttps://x/y,1\n", "missing CSV column"),
        (
            b"url,stars,python,training,evaluation,pretrained_model,results,dependencies\n"
            b"not a url,1,1,1,1,1,1,1\n",
            "not an http",
        ),
        (
            b"url,stars,python,training,evaluation,pretrained_model,results,dependencies\n"
            b"https://x/y,1,1,1,1,1,1,1\nhttps://x/y,2,1,1,1,1,1,1\n",
            "duplicate repository",
        ),
    ],
)
def test_unreadable_input_names_the_line(data: bytes, match: str) -> None:
    with pytest.raises(LoadError, match=match):
        pwc_checklist.load(data, "t.csv")
