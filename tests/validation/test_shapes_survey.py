"""shapes/survey.ttl: each shape passes a real record and fails a copy broken on purpose.

Failing examples are real records from the data, copied and changed in one field; the
report must name that field's JSON key (rk:sourcePath) and, where known, its line.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from reprokg.loaders import replicability_graphics as rg
from reprokg.validation.batching import validate_documents
from reprokg.validation.engine import validate_document

RESULTS = "Feedbacks [could reproduce results (5=highly confident)]"


@pytest.fixture(scope="module")
def records(shared_data: Path) -> list[dict]:
    path = shared_data / "replicability_graphics" / "consolidatedData.json"
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def site_variants(shared_data: Path) -> list[dict]:
    path = (
        shared_data / "replicability_graphics/per_paper/siggraph-2018/10.1145-3197517.3201374.json"
    )
    return json.loads(path.read_text(encoding="utf-8"))


def _tested(records: list[dict]) -> dict:
    """A real record with code, a completed test and numeric scores."""
    return next(
        r
        for r in records
        if r["Is the code or software publicly available ?"] == "Yes"
        and r["Did I manage to perform a complete test (deps/build)?"] == "Yes"
        and isinstance(r[RESULTS], int)
    )


def _report(rec, name="case.json"):
    text = json.dumps(rec if isinstance(rec, list) else [rec], indent=4, ensure_ascii=False)
    (doc,) = rg.load(text.encode(), name)
    return validate_document(doc), text


def _violations(report, path):
    return [r for r in report.results if r.severity == "Violation" and r.path == path]


@pytest.mark.slow
def test_real_consolidated_records_conform(shared_data):
    path = shared_data / "replicability_graphics" / "consolidatedData.json"
    reports = validate_documents(rg.load(path.read_bytes(), "consolidatedData.json"))
    assert len(reports) == 374
    bad = [r.to_text() for r in reports if not r.conforms]
    assert bad == []


@pytest.mark.slow
def test_real_site_records_conform(shared_data):
    docs = []
    for f in sorted((shared_data / "replicability_graphics" / "per_paper").glob("*/*.json")):
        docs += rg.load(f.read_bytes(), f.name)
    reports = validate_documents(docs)
    assert len(reports) == 454
    assert [r.to_text() for r in reports if not r.conforms] == []


@pytest.mark.slow
def test_score_out_of_range(records):
    rec = copy.deepcopy(_tested(records))
    ok, _ = _report(rec)
    assert ok.conforms
    rec[RESULTS] = 7
    bad, text = _report(rec)
    (v,) = _violations(bad, RESULTS)
    assert "1-5" in v.message and RESULTS in v.message
    assert v.line == next(i for i, ln in enumerate(text.splitlines(), 1) if RESULTS in ln)


def test_score_zero_on_a_one_to_five_scale(records):
    rec = copy.deepcopy(_tested(records))
    rec["Feedbacks [easy to configure/build (5=easy)]"] = 0
    bad, _ = _report(rec)
    assert _violations(bad, "Feedbacks [easy to configure/build (5=easy)]")


def test_documentation_score_range(records):
    rec = copy.deepcopy(_tested(records))
    rec["Documentation score"] = 3  # the 2020 scale is 0-2
    bad, _ = _report(rec)
    assert _violations(bad, "Documentation score")


def test_year_range_and_missing_year(records):
    rec = copy.deepcopy(_tested(records))
    rec["Year"] = 1814
    bad, _ = _report(rec)
    assert _violations(bad, "Year")
    del rec["Year"]
    missing, _ = _report(rec)
    assert missing.conforms
    assert [r.severity for r in missing.results if r.path == "Year"] == ["Warning"]


def test_missing_doi_is_a_warning(records):
    rec = copy.deepcopy(_tested(records))
    rec["DOI"] = ""
    rep, _ = _report(rec)
    assert rep.conforms
    assert {r.severity for r in rep.results if r.path == "DOI"} == {"Warning"}
    assert any("join" in r.message for r in rep.results if r.path == "DOI")


def test_time_slots_range(records):
    key = "How long did take for you to evaluate the code this paper (if any)?"
    rec = copy.deepcopy(_tested(records))
    rec[key] = 12
    bad, _ = _report(rec)
    assert _violations(bad, key)


def test_negative_citation_count(records):
    key = "Citation count (google scholar)"
    rec = copy.deepcopy(_tested(records))
    rec[key] = -3
    bad, _ = _report(rec)
    assert _violations(bad, key)


def test_site_scales(site_variants):
    ok, _ = _report(site_variants, "per_paper/siggraph-2018/x.json")
    assert ok.conforms
    broken = copy.deepcopy(site_variants)
    broken[0]["Documentation score {0=NA,1,2,3}"] = 4
    broken[0]["If pseudo-code, could the paper be trivially implemented? {0..4}"] = 5
    bad, _ = _report(broken, "per_paper/siggraph-2018/x.json")
    assert _violations(bad, "Documentation score {0=NA,1,2,3}")
    assert _violations(bad, "If pseudo-code, could the paper be trivially implemented? {0..4}")


def test_failure_reason_with_completed_test(site_variants):
    broken = copy.deepcopy(site_variants)
    assert broken[0]["Able to perform a replicability test (boolean)"] is True
    broken[0][
        "If not able to perform a test, was it due to missing hardware/software? (boolean)"
    ] = True
    bad, _ = _report(broken)
    assert _violations(bad, "Did I manage to perform a complete test (deps/build)?")


def test_site_paper_year(site_variants):
    broken = copy.deepcopy(site_variants)
    broken[0]["Year"] = 1800
    bad, _ = _report(broken)
    assert _violations(bad, "Year")


def test_score_shape_checks_the_scale(records):
    from rdflib import Literal

    from reprokg.core.namespaces import RK, SCHEMA

    rec = copy.deepcopy(_tested(records))
    (doc,) = rg.load(json.dumps([rec]).encode(), "x.json")
    score = doc.graph.value(doc.subject, RK.resultsReplicationScore)
    doc.graph.set((score, SCHEMA.bestRating, Literal(3)))  # value 4 or 5 above its own scale
    doc.graph.set((score, SCHEMA.ratingValue, Literal(5)))
    rep = validate_document(doc)
    assert _violations(rep, "score")
    doc.graph.remove((score, SCHEMA.ratingValue, None))
    doc.graph.set((score, SCHEMA.bestRating, Literal(5)))
    rep = validate_document(doc)
    assert [r.severity for r in rep.results if r.path == "score"] == ["Warning"]


def test_review_must_belong_to_a_known_survey(records):
    from reprokg.core.namespaces import RK

    (doc,) = rg.load(json.dumps([_tested(records)]).encode(), "x.json")
    assert validate_document(doc).conforms
    doc.graph.remove((doc.subject, RK.inSurvey, None))
    assert _violations(validate_document(doc), "document")
