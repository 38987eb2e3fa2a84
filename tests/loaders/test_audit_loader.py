"""The audit loader: the seed-000 example audits, the format's errors, the JSON Schema."""

# ruff: noqa: E501

from __future__ import annotations

import json
import re

import pytest
from rdflib import RDF, Literal, URIRef

from reprokg.core.errors import LoadError
from reprokg.core.namespaces import RK, RKX, SCHEMA
from reprokg.loaders import audit
from reprokg.validation.engine import validate_document
from tests.conftest import REPO

EXAMPLES = REPO / "examples" / "audits"
SEED = REPO.parent / "shared" / "seeds" / "000_0ac4d17f5f182011.md"


def load(text: str, name: str = "a.yaml"):
    return audit.load(text.encode("utf-8"), name)[0]


def seed_attributes() -> dict[str, set[str]]:
    """Attribute IDs the seed's section 4 names per paper, read from the seed text itself."""
    from tests.conftest import need

    need(SEED.is_file(), f"seed {SEED} is missing")
    text = SEED.read_text(encoding="utf-8")
    out: dict[str, set[str]] = {}
    for heading in ("## Category: Software", "## Category: Computational Result"):
        body = text.split(heading, 1)[1].split("\n## ", 1)[0]
        parts = re.split(r"\b(GCN|R-GCN|GraphSAGE|DiffPool):", body)
        for name, chunk in zip(parts[1::2], parts[2::2], strict=True):
            ids = set(re.findall(r"\b([DSR]\d{1,2})\b", chunk))
            out.setdefault(name, set()).update(ids)
    return out


FILES = {
    "GCN": "gcn.yaml",
    "R-GCN": "rgcn.yaml",
    "GraphSAGE": "graphsage.yaml",
    "DiffPool": "diffpool.yaml",
}


@pytest.mark.parametrize("paper", list(FILES))
def test_examples_carry_exactly_the_attributes_the_seed_reports(paper: str) -> None:
    expected = seed_attributes()[paper]
    doc = audit.load((EXAMPLES / FILES[paper]).read_bytes(), FILES[paper])[0]
    found = {str(o).rsplit("#", 1)[1] for o in doc.graph.objects(None, RK.attribute)}
    assert found == expected


def test_seed_reading_matches_the_brief() -> None:
    """The brief's own example: GCN has S1, S6, R2, R5."""
    assert seed_attributes()["GCN"] == {"S1", "S6", "R2", "R5"}


@pytest.mark.parametrize("name", sorted(FILES.values()))
def test_examples_conform(name: str) -> None:
    doc = audit.load((EXAMPLES / name).read_bytes(), name)[0]
    report = validate_document(doc)
    assert report.conforms, report.to_text()


def test_rgcn_publication_is_its_doi_iri_and_others_their_arxiv_pages() -> None:
    rgcn = audit.load((EXAMPLES / "rgcn.yaml").read_bytes(), "rgcn.yaml")[0]
    pub = URIRef("https://doi.org/10.1007/978-3-319-93417-4_38")
    assert (rgcn.subject, RK.auditedPublication, pub) in rgcn.graph
    assert (pub, RDF.type, SCHEMA.ScholarlyArticle) in rgcn.graph
    assert (pub, RK.doiAsWritten, Literal("10.1007/978-3-319-93417-4_38")) in rgcn.graph
    gcn = audit.load((EXAMPLES / "gcn.yaml").read_bytes(), "gcn.yaml")[0]
    assert (
        gcn.subject,
        RK.auditedPublication,
        URIRef("https://arxiv.org/abs/1609.02907"),
    ) in gcn.graph


def test_rgcn_metric_comparisons_keep_the_seeds_relative_differences() -> None:
    doc = audit.load((EXAMPLES / "rgcn.yaml").read_bytes(), "rgcn.yaml")[0]
    g = doc.graph
    diffs = {
        str(g.value(c, RK.dataSetName)): float(g.value(c, RK.relativeDifference))
        for c in g.subjects(RDF.type, RK.MetricComparison)
    }
    # seed 000: "approximately 2%" for AIFB, MUTAG, AM; "15%" for BGS
    assert diffs == {"AIFB": 0.02, "MUTAG": 0.02, "AM": 0.02, "BGS": 0.15}


def test_auditors_without_orcid_get_minted_iris_not_merged_by_name() -> None:
    a = load("audit: 1\npublication: {doi: 10.1000/x1}\nauditors: [{name: Ann}]\nfindings: []\n")
    b = load("audit: 1\npublication: {doi: 10.1000/x2}\nauditors: [{name: Ann}]\nfindings: []\n")
    pa = next(a.graph.objects(a.subject, RK.auditor))
    pb = next(b.graph.objects(b.subject, RK.auditor))
    assert pa != pb
    assert str(pa).startswith("https://w3id.org/reprokg/id/person/")


def test_same_content_gives_same_iris() -> None:
    text = (EXAMPLES / "gcn.yaml").read_text(encoding="utf-8")
    a, b = load(text, "gcn.yaml"), load(text, "gcn.yaml")
    assert a.subject == b.subject
    assert set(a.graph) == set(b.graph)


def test_orcid_becomes_iri_and_bad_orcid_is_kept_and_reported() -> None:
    good = load(
        "audit: 1\npublication: {doi: 10.1000/x}\n"
        "auditors: [{name: A, orcid: 0000-0002-6178-318X}]\nfindings: []\n"
    )
    assert (good.subject, RK.auditor, URIRef("https://orcid.org/0000-0002-6178-318X")) in good.graph
    bad = load(
        "audit: 1\npublication: {doi: 10.1000/x}\nauditors:\n"
        "  - name: A\n    orcid: 0000-0002-6178-3181\nfindings: []\n"
    )
    agent = next(bad.graph.objects(bad.subject, RK.auditor))
    assert not str(agent).startswith("https://orcid.org/")
    assert (agent, RK.orcidAsWritten, Literal("0000-0002-6178-3181")) in bad.graph
    report = validate_document(bad)
    assert not report.conforms
    assert any("MOD 11-2" in r.message and r.line == 5 for r in report.results), report.to_text()


def test_unknown_keys_are_kept_and_reported_as_info() -> None:
    doc = load(
        "audit: 1\npublication: {doi: 10.1000/x}\nreviewer_mood: happy\n"
        "findings:\n  - attribute: S1\n    severity: high\n"
    )
    infos = {(m.path, m.severity, m.line) for m in doc.messages}
    assert ("reviewer_mood", "Info", 3) in infos
    assert ("findings[0].severity", "Info", 6) in infos
    assert (doc.subject, RKX.reviewer_mood, Literal("happy")) in doc.graph


@pytest.mark.parametrize(
    ("text", "field", "line", "needle"),
    [
        ("audit: 1\nfindings: []\n", "", None, "publication"),
        (
            "audit: 1\npublication: {title: x}\nfindings: []\n",
            "publication",
            None,
            "'doi' or 'url'",
        ),
        (
            "audit: 1\npublication: {doi: 10.1000/x}\nfindings:\n  - attribute: S20\n",
            "findings[0].attribute",
            4,
            "S20",
        ),
        (
            "audit: 1\npublication: {doi: 10.1000/x}\nfindings:\n  - attribute: s1\n",
            "findings[0].attribute",
            4,
            "one of",
        ),
        (
            "audit: 1\npublication: {doi: 10.1000/x}\nfindings:\n  - {attribute: S1, link: www.x.org}\n",
            "findings[0].link",
            4,
            "does not match",
        ),
        (
            "audit: 1\npublication: {doi: 11.1000/x}\nfindings: []\n",
            "publication.doi",
            2,
            "not a DOI",
        ),
        (
            "audit: 1\npublication: {doi: 10.1000/x}\nfindings: []\nmetrics:\n  - {metric: acc, reported: 8O.1}\n",
            "metrics[0].reported",
            5,
            "not a number",
        ),
        (
            "audit: 1\npublication: {doi: 10.1000/x}\nfindings: []\nmetrics:\n  - {metric: acc, relative_difference: -0.1}\n",
            "metrics[0].relative_difference",
            5,
            "minimum",
        ),
        (
            "audit: 1\npublication: {doi: 10.1000/x}\nfindings: []\ndate: 24-10-01\n",
            "date",
            4,
            "does not match",
        ),
        ("audit: 2\npublication: {doi: 10.1000/x}\nfindings: []\n", "audit", 1, "one of: 1"),
        ("audit: 1\npublication: {doi: 10.1000/x}\nfindings: [\n", None, 4, "YAML syntax"),
    ],
)
def test_errors_name_field_line_and_expectation(text: str, field, line, needle: str) -> None:
    with pytest.raises(LoadError) as exc:
        load(text)
    err = exc.value
    assert needle in str(err)
    if field is not None:
        assert (err.field or "") == field
    if line is not None:
        assert err.line == line
    assert err.source == "a.yaml"


def test_json_audits_load_too() -> None:
    data = {"audit": 1, "publication": {"doi": "10.1000/X"}, "findings": [{"attribute": "R1"}]}
    doc = audit.load(json.dumps(data).encode(), "a.json")[0]
    assert (doc.subject, RK.auditedPublication, URIRef("https://doi.org/10.1000/x")) in doc.graph
    assert (None, RK.attribute, RK.R1) in doc.graph


def test_sniff() -> None:
    assert audit.sniff("x.yaml", "# comment\naudit: 1\npublication: {}")
    assert audit.sniff("x.json", '{"audit": 1, "findings": []}')
    assert not audit.sniff("x.yaml", "ir_metadata: 1\n")
    assert not audit.sniff("run.txt", "301 Q0 doc1 1 2.3 tag\n")
    for name in FILES.values():
        assert audit.sniff(name, (EXAMPLES / name).read_text(encoding="utf-8")[:4096])


def test_published_json_schema_is_the_loaders_schema() -> None:
    published = json.loads((REPO / "docs" / "audit.schema.json").read_text(encoding="utf-8"))
    assert published == audit.SCHEMA
    assert (
        published["properties"]["findings"]["items"]["properties"]["attribute"]["enum"][-1] == "R6"
    )
    assert (
        len(published["properties"]["findings"]["items"]["properties"]["attribute"]["enum"]) == 34
    )


def test_the_documented_example_loads_and_conforms() -> None:
    text = (REPO / "docs" / "audit-format.md").read_text(encoding="utf-8")
    example = re.search(r"```yaml\n(.*?)```", text, re.S).group(1)
    doc = load(example, "doc.yaml")
    report = validate_document(doc)
    assert report.conforms and report.count("Warning") == 0, report.to_text()
    assert len(list(doc.graph.subjects(RDF.type, RK.Finding))) == 1
