"""The Graphics Replicability Stamp list -> one stamp per record, papers by DOI IRI; expected
values from reading the JSON independently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rdflib import RDF, Graph, Literal, URIRef

from reprokg.core.errors import LoadError
from reprokg.core.namespaces import RK, SCHEMA
from reprokg.loaders import detect_kind, grsi
from reprokg.validation.batching import validate_documents
from tests.studies.stores import GRSI_JSON


@pytest.fixture(scope="module")
def path(shared_data: Path) -> Path:
    return shared_data / GRSI_JSON


@pytest.fixture(scope="module")
def records(path: Path) -> list[dict]:
    return json.loads(path.read_text("utf-8"))


@pytest.fixture(scope="module")
def docs(path: Path) -> list:
    return grsi.load(path.read_bytes(), path.name)


def test_sniffed_and_one_document_per_stamp(path: Path, docs: list, records: list) -> None:
    assert detect_kind(path.name, path.read_text("utf-8")[:4096]) == "grsi"
    assert len(docs) == len(records) == 460
    assert len({d.source_key for d in docs}) == 460


def test_papers_are_lower_cased_doi_iris_with_the_doi_as_written(docs: list, records: list) -> None:
    g = Graph()
    for d in docs:
        for t in d.graph:
            g.add(t)
    stamped = set(g.objects(None, RK.stampedPaper))
    with_doi = {
        r["doi"] for r in records if r["doi"].startswith("10.") and "vis2025" not in r["doi"]
    }
    doi_iris = {p for p in stamped if str(p).startswith("https://doi.org/")}
    assert doi_iris == {URIRef("https://doi.org/" + d.lower()) for d in with_doi}
    for r in records:
        if r["doi"] in with_doi:
            paper = URIRef("https://doi.org/" + r["doi"].lower())
            assert Literal(r["doi"]) in set(g.objects(paper, RK.doiAsWritten))
            assert (paper, RDF.type, SCHEMA.ScholarlyArticle) in g
    # placeholders (not_assigned_yet, 10.vis2025/...) get minted IRIs: 5 papers
    assert len(stamped - doi_iris) == 5
    assert len(set(g.subjects(RDF.type, RK.ReplicabilityStampGrant))) == 460
    assert len(set(g.objects(None, RK.stampedCode))) == len({r["repo_url"] for r in records})


def test_placeholders_and_a_shared_doi_are_reported(docs: list) -> None:
    msgs = [m for d in docs for m in d.messages]
    assert sum("not a DOI" in m.message for m in msgs) == 5
    shared = [m for m in msgs if "also given for" in m.message]
    assert len(shared) == 1 and "10.1145/3687938" in shared[0].message
    assert all(m.line for m in msgs)


def test_every_document_conforms(docs: list) -> None:
    reports = validate_documents(docs)
    assert all(r.conforms for r in reports)


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b'[{"title": "t", "doi": "10.1/x"}]', "'grsi_url' is missing"),
        (b'{"grsi_url": 1}', "expected a JSON array"),
        (b'[{"grsi_url": "https://a", "title": "t", "doi": "10.1/x"},\n 3]', "got int"),
        (
            b'[{"grsi_url": "https://a", "title": "t", "doi": "10.1/x"},\n'
            b' {"grsi_url": "https://a", "title": "u", "doi": "10.1/y"}]',
            "duplicate stamp entry",
        ),
        (b'[{"grsi_url": "https://a",', "JSON syntax error"),
    ],
)
def test_unreadable_input_is_refused_with_its_line(data: bytes, match: str) -> None:
    with pytest.raises(LoadError, match=match):
        grsi.load(data, "grsi_paper_data.json")
