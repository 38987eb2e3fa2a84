"""Gundersen & Kjensmo (AAAI 2018) evaluations.csv -> documentation assessments, on the real file.

Expected values come from reading the CSV independently with the csv module.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from rdflib import RDF, Graph, Literal, URIRef

from reprokg.core.errors import LoadError
from reprokg.core.namespaces import RK, SCHEMA
from reprokg.loaders import gundersen_kjensmo as gk
from reprokg.validation.batching import validate_documents
from reprokg.validation.engine import validate_document


@pytest.fixture(scope="module")
def csv_path(shared_data: Path) -> Path:
    return shared_data / "surveys" / "gundersen_kjensmo_2018" / "data" / "evaluations.csv"


@pytest.fixture(scope="module")
def rows(csv_path: Path) -> list[dict]:
    return list(csv.DictReader(io.StringIO(csv_path.read_text(encoding="utf-8"))))


@pytest.fixture(scope="module")
def docs(csv_path: Path):
    return gk.load(csv_path.read_bytes(), "evaluations.csv")


def _merged(docs) -> Graph:
    g = Graph()
    for d in docs:
        for t in d.graph:
            g.add(t)
    return g


def test_one_document_per_paper(docs, rows):
    assert len(rows) == 400
    assert len(docs) == 400
    assert {d.kind for d in docs} == {"gk2018"}
    assert len({d.source_key for d in docs}) == 400


def test_variables_are_booleans_and_empty_is_absent(docs, rows):
    g = _merged(docs)
    for col, (prop, *_r) in gk.VARIABLES.items():
        true = sum(r[col] == "1" for r in rows)
        false = sum(r[col] == "0" for r in rows)
        assert len(set(g.subjects(RK[prop], Literal(True)))) == true, col
        assert len(set(g.subjects(RK[prop], Literal(False)))) == false, col
    # theoretical papers have the experiment variables empty: no triple at all
    theory = sum(r["research_type"] == "T" for r in rows)
    assert len(set(g.subjects(RK.researchType, RK.ResearchTheoretical))) == theory == 75
    assert sum(r["hardware_specification"] == "" for r in rows) == 75
    assert len(set(g.subjects(RK.documentsHardware, None))) == 325


def test_sixteen_documentation_variables_grouped(docs):
    groups = {}
    for _col, (_p, group, *_r) in gk.VARIABLES.items():
        groups.setdefault(group, 0)
        groups[group] += 1
    # the paper's 16 variables (method 5 + data 4 + experiment 7) plus 3 extra CSV columns
    assert len(gk.VARIABLES) == 19
    assert set(groups) == {"methodVariable", "dataVariable", "experimentVariable"}


@pytest.mark.slow
def test_papers_authors_and_years(docs, rows):
    g = _merged(docs)
    papers = set(g.subjects(RDF.type, SCHEMA.ScholarlyArticle))
    assert len(papers) == 400
    years = [g.value(p, RK.publicationYear).toPython() for p in papers]
    expected = [2000 + int(r["conference"].split()[1]) for r in rows]
    assert sorted(years) == sorted(expected)
    first = rows[0]
    d = docs[0]
    paper = d.graph.value(d.subject, RK.reviewedPaper)
    assert d.graph.value(paper, RK.articleURL) == URIRef(first["link"])
    names = sorted(
        str(d.graph.value(p, SCHEMA.name)) for p in d.graph.objects(paper, SCHEMA.author)
    )
    assert names == sorted(["Zheng Zhou", "Kan Li", "Xiangjian He", "Mengmeng Li"])
    assert first["authors"] == "Zheng Zhou, Kan Li, Xiangjian He and Mengmeng Li"


@pytest.mark.slow
def test_real_rows_conform(docs):
    reports = validate_documents(docs)
    assert [r.to_text() for r in reports if not r.conforms] == []


def _one_row(csv_path: Path, change: dict[str, str]) -> bytes:
    lines = csv_path.read_text(encoding="utf-8").splitlines(keepends=True)
    reader = csv.DictReader(io.StringIO(lines[0] + lines[1]))
    row = next(reader)
    row.update(change)
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=reader.fieldnames, lineterminator="\n")
    w.writeheader()
    w.writerow(row)
    return out.getvalue().encode()


def test_broken_copy_fails_shapes(csv_path):
    (ok,) = gk.load(_one_row(csv_path, {}), "one.csv")
    assert validate_document(ok).conforms
    (bad,) = gk.load(_one_row(csv_path, {"research_type": "X", "train": "yes"}), "bad.csv")
    rep = validate_document(bad)
    assert not rep.conforms
    paths = {r.path for r in rep.results if r.severity == "Violation"}
    assert "research_type" in paths
    warned = {m.path for m in bad.messages if m.severity == "Warning"}
    assert {"research_type", "train"} <= warned
    assert all(m.line == 2 for m in bad.messages)


def test_bad_input(csv_path):
    with pytest.raises(LoadError) as exc:
        gk.load(b"index,title\n1,x\n", "short.csv")
    assert exc.value.line == 1 and exc.value.field
    text = csv_path.read_text(encoding="utf-8").splitlines(keepends=True)
    with pytest.raises(LoadError) as exc:
        gk.load((text[0] + text[1] + "3,too,few\n").encode(), "ragged.csv")
    assert exc.value.line == 3


def test_sniff(csv_path):
    assert gk.sniff("evaluations.csv", csv_path.read_text(encoding="utf-8")[:4096])
    assert not gk.sniff("x.csv", "query,q0,docid,rank\n")


def test_experimental_paper_without_setup_and_year_warn(csv_path):
    (ok,) = gk.load(_one_row(csv_path, {}), "one.csv")
    assert not [r for r in validate_document(ok).results if r.severity != "Info"]
    (d,) = gk.load(_one_row(csv_path, {"experiment_setup": "", "conference": "IJCAI"}), "w.csv")
    rep = validate_document(d)
    assert rep.conforms
    warned = {r.path for r in rep.results if r.severity == "Warning"}
    assert {"experiment_setup", "conference"} <= warned
