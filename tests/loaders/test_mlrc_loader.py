"""MLRC ReScience C metadata.yaml headers -> reproduction reports, on all 71 real files.

Expected values are read from the YAML independently with yaml.safe_load.
"""

from __future__ import annotations

import re

import pytest
import yaml
from rdflib import RDF, Graph, Literal, URIRef

from reprokg.core.errors import LoadError
from reprokg.core.namespaces import RK, SCHEMA
from reprokg.loaders import mlrc
from reprokg.validation.engine import validate_document


def _merged(mlrc_docs) -> Graph:
    g = Graph()
    for d in mlrc_docs:
        for t in d.graph:
            g.add(t)
    return g


def _pairs(section) -> dict:
    out = {}
    for item in section or []:
        out.update(item)
    return out


@pytest.mark.slow
def test_one_document_per_report(mlrc_files, mlrc_docs):
    assert len(mlrc_files) == 71
    assert len(mlrc_docs) == 71
    assert len({d.source_key for d in mlrc_docs}) == 71
    g = _merged(mlrc_docs)
    kinds = [yaml.safe_load(f.read_text(encoding="utf-8"))["type"] for f in mlrc_files]
    assert len(set(g.subjects(RDF.type, RK.ReproductionReport))) == kinds.count("Replication") == 70


@pytest.mark.slow
def test_report_dois_and_authors_with_orcids(mlrc_files, mlrc_docs):
    g = _merged(mlrc_docs)
    orcids, without = set(), 0
    for f in mlrc_files:
        y = yaml.safe_load(f.read_text(encoding="utf-8"))
        doi = str(_pairs(y["article"])["doi"])
        report = URIRef("https://doi.org/" + doi.lower())
        assert g.value(report, RK.doiAsWritten) == Literal(doi)
        assert str(g.value(report, SCHEMA.name)) == y["title"].strip()
        for a in y["authors"]:
            if a.get("orcid"):
                bare = re.sub(r"^https?://(www\.)?orcid\.org/", "", str(a["orcid"]).strip())
                orcids.add("https://orcid.org/" + bare)  # 4 are written as URLs
            else:
                without += 1
        people = list(g.objects(report, SCHEMA.author))
        assert len(people) == len(y["authors"])
    authors = set(g.objects(None, SCHEMA.author))
    assert {str(a) for a in authors if str(a).startswith("https://orcid.org/")} == orcids
    assert len(authors) == len(orcids) + without


def test_original_paper_doi_joins(mlrc_files, mlrc_docs):
    g = _merged(mlrc_docs)
    with_doi = 0
    for f in mlrc_files:
        rep = _pairs(yaml.safe_load(f.read_text(encoding="utf-8"))["replication"])
        if rep.get("doi"):
            with_doi += 1
            doi = str(rep["doi"]).strip()
            doi = doi.split("doi.org/", 1)[1] if "doi.org/" in doi else doi
            assert (None, RK.reproduces, URIRef("https://doi.org/" + doi.lower())) in g
    assert with_doi == 42
    # every replication names its original; the one editorial has an empty replication
    assert len(set(g.subjects(RK.reproduces, None))) == 70


def test_dates_are_dates(mlrc_docs, mlrc_files):
    y = yaml.safe_load(mlrc_files[0].read_text(encoding="utf-8"))
    d = mlrc_docs[0]
    published = _pairs(y["dates"])["published"]
    assert d.graph.value(d.subject, RK.datePublished).toPython().strftime("%B %-d, %Y") == published


@pytest.mark.slow
def test_real_reports_conform(mlrc_docs):
    bad = [r.to_text() for r in map(validate_document, mlrc_docs) if not r.conforms]
    assert bad == []


def test_malformed_orcid_is_kept_and_reported(mlrc_files):
    text = mlrc_files[0].read_text(encoding="utf-8")
    y = yaml.safe_load(text)
    good = str(y["authors"][0]["orcid"])
    broken = good[:-1] + ("0" if good[-1] != "0" else "1")  # wrong check digit
    (d,) = mlrc.load(text.replace(good, broken).encode(), "metadata.yaml")
    persons = set(d.graph.subjects(RK.orcidAsWritten, Literal(broken)))
    assert len(persons) == 1
    (p,) = persons
    assert not str(p).startswith("https://orcid.org/")
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if good in ln)
    rep = validate_document(d)
    assert not rep.conforms
    hits = [r for r in rep.results if r.severity == "Violation" and r.path == "authors[1].orcid"]
    assert hits and hits[0].line == line


def test_broken_copy_fails_shapes(mlrc_files):
    text = mlrc_files[0].read_text(encoding="utf-8")
    y = yaml.safe_load(text)
    url = _pairs(y["code"])["url"]
    (d,) = mlrc.load(text.replace(url, "").encode(), "metadata.yaml")
    rep = validate_document(d)
    assert [r.path for r in rep.results if r.severity == "Violation"] == ["code.url"]


def test_bad_yaml_names_line(mlrc_files):
    text = mlrc_files[0].read_text(encoding="utf-8").splitlines(keepends=True)
    i = next(i for i, ln in enumerate(text) if ln.startswith("authors:"))
    text[i] = "authors: [unclosed\n"
    with pytest.raises(LoadError) as exc:
        mlrc.load("".join(text).encode(), "metadata.yaml")
    assert exc.value.source == "metadata.yaml" and exc.value.line is not None
    with pytest.raises(LoadError):
        mlrc.load(b"- just\n- a list\n", "metadata.yaml")


def test_sniff(mlrc_files):
    assert mlrc.sniff(
        "2020/x/journal/metadata.yaml", mlrc_files[0].read_text(encoding="utf-8")[:4096]
    )
    assert not mlrc.sniff("run.yaml", "research goal:\n  venue: x\n")


def test_missing_article_doi_is_a_warning(mlrc_files):
    text = mlrc_files[0].read_text(encoding="utf-8")
    doi = str(_pairs(yaml.safe_load(text)["article"])["doi"])
    (d,) = mlrc.load(text.replace(doi, "").encode(), "metadata.yaml")
    rep = validate_document(d)
    assert rep.conforms
    assert [r.severity for r in rep.results if r.path == "article.doi"] == ["Warning"]


def test_author_without_orcid_is_reported_as_info(mlrc_docs, mlrc_files):
    d = next(d for d in mlrc_docs if "verma2021explaining" in d.source_name)
    rep = validate_document(d)
    y = yaml.safe_load(
        mlrc_files[
            [f.parent.parent.name for f in mlrc_files].index("verma2021explaining")
        ].read_text()
    )
    assert sum(1 for a in y["authors"] if not a.get("orcid")) == 2
    assert [r.severity for r in rep.results if r.path == "authors.orcid"] == ["Info", "Info"]


def test_batch_validation_of_all_reports_conforms(mlrc_docs):
    from reprokg.validation.batching import validate_documents

    reports = validate_documents(mlrc_docs)
    assert [r.source for r in reports if not r.conforms] == []
