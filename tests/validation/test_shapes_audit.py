"""shapes/audit.ttl and shapes/common.ttl: passing and failing examples from real data.

Passing: the audits seed 000 reports (examples/audits) and real identifiers read from
/work/shared/data. Failing: the same data with one thing made wrong, each time checking
the severity, the source path and that the message names that path.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rdflib import RDF, XSD, Literal, URIRef
from rdflib.namespace import PROV

from reprokg.core.document import Document
from reprokg.core.namespaces import RK, SCHEMA, new_graph
from reprokg.loaders import audit
from reprokg.validation.engine import validate_document
from reprokg.validation.report import Report
from tests.conftest import REPO

EXAMPLES = REPO / "examples" / "audits"


def gcn() -> Document:
    return audit.load((EXAMPLES / "gcn.yaml").read_bytes(), "gcn.yaml")[0]


def results(report: Report, severity: str, path: str) -> list:
    return [r for r in report.results if r.severity == severity and r.path == path]


def test_seed_audit_conforms() -> None:
    report = validate_document(gcn())
    assert report.conforms, report.to_text()
    assert report.count("Violation") == 0


def _one_finding(doc: Document) -> URIRef:
    return next(doc.graph.subjects(RDF.type, RK.Finding))


@pytest.mark.parametrize(
    ("mutate", "severity", "path"),
    [
        # an attribute outside D1-D9, S1-S19, R1-R6
        (
            lambda d: d.graph.set((_one_finding(d), RK.attribute, RK.S20)),
            "Violation",
            "findings[].attribute",
        ),
        # a finding with two attributes
        (
            lambda d: d.graph.add((_one_finding(d), RK.attribute, RK.D1)),
            "Violation",
            "findings[].attribute",
        ),
        # an evidence link that is a literal, not a URL
        (
            lambda d: d.graph.add((_one_finding(d), RK.evidenceLink, Literal("see issue 12"))),
            "Violation",
            "findings[].link",
        ),
        # an impossible calendar date (kept as text by the loader)
        (
            lambda d: d.graph.set((d.subject, RK.auditDate, Literal("2024-13-01"))),
            "Violation",
            "date",
        ),
        # a year out of range
        (
            lambda d: d.graph.set((d.subject, RK.auditDate, Literal("1492", datatype=XSD.gYear))),
            "Violation",
            "date",
        ),
        # a reported value that is text
        (
            lambda d: d.graph.add(
                (
                    next(d.graph.subjects(RDF.type, RK.MetricComparison)),
                    RK.reportedValue,
                    Literal("81.5%"),
                )
            ),
            "Violation",
            "metrics[].reported",
        ),
        # a negative relative difference
        (
            lambda d: d.graph.set(
                (
                    next(d.graph.subjects(RDF.type, RK.MetricComparison)),
                    RK.relativeDifference,
                    Literal(-0.5),
                )
            ),
            "Violation",
            "metrics[].relative_difference",
        ),
        # an outcome outside the scheme
        (lambda d: d.graph.set((d.subject, RK.outcome, RK.H1)), "Violation", "outcome"),
        # no publication
        (
            lambda d: d.graph.remove((d.subject, RK.auditedPublication, None)),
            "Violation",
            "publication",
        ),
        # recommended but missing: auditors, date, outcome, evidence
        (lambda d: d.graph.remove((d.subject, RK.auditor, None)), "Warning", "auditors"),
        (lambda d: d.graph.remove((d.subject, RK.auditDate, None)), "Warning", "date"),
        (lambda d: d.graph.remove((d.subject, RK.outcome, None)), "Warning", "outcome"),
        (
            lambda d: d.graph.remove((_one_finding(d), RK.evidenceText, None)),
            "Warning",
            "findings[].evidence",
        ),
    ],
)
def test_audit_shape_reports_what_is_wrong(mutate, severity: str, path: str) -> None:
    doc = gcn()
    mutate(doc)
    report = validate_document(doc)
    found = results(report, severity, path)
    assert found, report.to_text()
    assert all(path in r.message for r in found)
    assert report.conforms == (severity != "Violation")


def test_missing_links_are_info_only() -> None:
    report = validate_document(gcn())
    infos = results(report, "Info", "findings[].link")
    assert len(infos) == 4  # the seed gives no evidence links for GCN's four findings


def test_top_level_results_carry_the_source_line() -> None:
    doc = gcn()
    doc.graph.set((doc.subject, RK.auditDate, Literal("2024-13-01")))
    report = validate_document(doc)
    (r,) = [r for r in results(report, "Violation", "date")]
    date_line = next(
        i
        for i, ln in enumerate((EXAMPLES / "gcn.yaml").read_text().splitlines(), 1)
        if ln.startswith("date:")
    )
    assert r.line == date_line


# --------------------------------------------------------------------------- common shapes


def _real_orcid(shared_data: Path) -> str:
    """An ORCID as an MLRC report's metadata.yaml writes it (a https://orcid.org/ IRI)."""
    for f in sorted(
        (shared_data / "surveys" / "rescience" / "mlrc_metadata").rglob("metadata.yaml")
    ):
        m = re.search(
            r"orcid:\s*(https://orcid\.org/\S+)", f.read_text(encoding="utf-8", errors="replace")
        )
        if m:
            return m.group(1)
    raise AssertionError("no ORCID found in the MLRC metadata")


def _real_doi(shared_data: Path) -> str:
    """A DOI as the ReScience C bibliography writes it."""
    bib = (
        shared_data / "surveys" / "rescience" / "journal_bib" / "_bibliography" / "published.bib"
    ).read_text(encoding="utf-8")
    return re.search(r"doi\s*=\s*\{(10\.[^}]+)\}", bib).group(1)


def _doc(person: str, article: str) -> Document:
    g = new_graph()
    p, a = URIRef(person), URIRef(article)
    g.add((p, RDF.type, SCHEMA.Person))
    g.add((p, RDF.type, PROV.Agent))
    g.add((p, SCHEMA.name, Literal("A. Author")))
    g.add((a, RDF.type, SCHEMA.ScholarlyArticle))
    g.add((a, SCHEMA.author, p))
    return Document("audit", g, "t.yaml", b"x", "test", "0", "t")


def test_common_shapes_accept_real_identifiers(shared_data: Path) -> None:
    doi = _real_doi(shared_data)
    report = validate_document(_doc(_real_orcid(shared_data), "https://doi.org/" + doi.lower()))
    assert report.conforms, report.to_text()


@pytest.mark.parametrize(
    ("person", "article", "path"),
    [
        (
            lambda o: o.replace("-", ""),
            lambda d: "https://doi.org/" + d.lower(),
            "orcid",
        ),  # 16 digits without hyphens
        (
            lambda o: o.replace("https://", "http://"),
            lambda d: "https://doi.org/" + d.lower(),
            "orcid",
        ),
        (lambda o: o, lambda d: "https://doi.org/" + d.upper(), "doi"),  # not lower-cased
        (lambda o: o, lambda d: "http://dx.doi.org/" + d.lower(), "doi"),  # old resolver form
        (lambda o: o, lambda d: "https://doi.org/11." + d.lower()[3:], "doi"),  # not a 10. DOI
    ],
)
def test_common_shapes_reject_malformed_identifiers(
    shared_data: Path, person, article, path: str
) -> None:
    doc = _doc(person(_real_orcid(shared_data)), article(_real_doi(shared_data)))
    report = validate_document(doc)
    found = results(report, "Violation", path)
    assert found, report.to_text()
    assert all(path in r.message for r in found)


def test_orcid_check_digit_is_reported_in_the_same_report(shared_data: Path) -> None:
    orcid = _real_orcid(shared_data)
    wrong = orcid[:-1] + ("0" if orcid[-1] != "0" else "1")
    report = validate_document(_doc(wrong, "https://doi.org/10.1000/x"))
    assert any("MOD 11-2" in r.message and r.severity == "Violation" for r in report.results)


def test_document_provenance_shape() -> None:
    g = new_graph()
    d = URIRef("https://w3id.org/reprokg/id/doc/" + "a" * 64)
    g.add((d, RDF.type, RK.Document))
    g.add((d, RK.documentKind, Literal("audit")))
    g.add((d, RK.sourceSha256, Literal("a" * 64)))
    g.add((d, RK.loaderName, Literal("reprokg.loaders.audit")))
    ok = validate_document(Document("audit", g, "t", b"x", "t", "0", "t"))
    assert ok.conforms, ok.to_text()
    g.set((d, RK.sourceSha256, Literal("A" * 64)))
    g.set((d, RK.documentKind, Literal("Audit File")))
    g.remove((d, RK.loaderName, None))
    bad = validate_document(Document("audit", g, "t", b"x", "t", "0", "t"))
    assert results(bad, "Violation", "document.sha256")
    assert results(bad, "Violation", "document.kind")
    assert results(bad, "Warning", "document.loader")
