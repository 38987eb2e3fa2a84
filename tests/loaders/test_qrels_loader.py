"""Qrels documents: the qrels lines as an attachment, linked to their test collection."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from rdflib import Literal
from rdflib.namespace import DCAT, DCTERMS

from reprokg.core.errors import LoadError
from reprokg.core.namespaces import RK
from reprokg.loaders import qrels
from reprokg.loaders.trec_files import read_qrels
from reprokg.validation.engine import validate_document


@pytest.fixture(scope="module")
def toy_qrels(shared_data: Path) -> bytes:
    return (shared_data / "trec" / "toy" / "qrels.toy").read_bytes()


def test_collection_from_comment_and_attachment(toy_qrels: bytes):
    data = b"# ir_datasets: https://ir-datasets.com/nyt\n" + toy_qrels
    doc = qrels.load(data, "qrels.toy")[0]
    assert doc.kind == "qrels"
    ((sha, lines),) = doc.attachments.items()
    assert hashlib.sha256(lines).hexdigest() == sha
    # 30 judgement lines in the toy file (read independently: non-blank lines)
    assert len(lines.decode().splitlines()) == sum(1 for ln in toy_qrels.splitlines() if ln.strip())
    assert read_qrels(lines) == read_qrels(toy_qrels)
    g, q = doc.graph, doc.subject
    assert g.value(q, RK.sha256) == Literal(sha)
    tc = g.value(q, DCTERMS.isPartOf)
    assert (tc, DCAT.distribution, q) in g
    assert g.value(tc, RK.irDatasetsId) == Literal("https://ir-datasets.com/nyt")
    report = validate_document(doc)
    assert report.conforms and report.count("Warning") == 0, report.to_text()


def test_same_lines_same_iri_whatever_the_comments(toy_qrels: bytes):
    a = qrels.load(toy_qrels, "a", collection="x")[0]
    b = qrels.load(b"# a comment\n" + toy_qrels.replace(b" ", b"\t"), "b", collection="x")[0]
    assert a.subject == b.subject


def test_without_collection_warns_with_line(toy_qrels: bytes):
    doc = qrels.load(toy_qrels, "qrels.toy")[0]
    report = validate_document(doc)
    assert report.conforms
    warnings = [r for r in report.results if r.severity == "Warning"]
    assert len(warnings) == 1 and warnings[0].line == 1 and "ir_datasets" in warnings[0].message


def test_collection_argument_wins(toy_qrels: bytes):
    doc = qrels.load(b"# ir_datasets: a\n" + toy_qrels, "q", collection="b")[0]
    assert {str(o) for o in doc.graph.objects(None, RK.irDatasetsId)} == {"b"}


def test_sniff(toy_qrels: bytes, shared_data: Path):
    assert qrels.sniff("qrels.toy", toy_qrels.decode())
    run = (shared_data / "trec" / "toy" / "run_a").read_text()
    assert not qrels.sniff("run_a", run)
    assert not qrels.sniff("x.yaml", "tag: x\nplatform: y\n")


@pytest.mark.parametrize(
    ("text", "line", "field"),
    [
        (b"1 0 a 1\n1 0 b\n", 2, "qrels line"),
        (b"1 0 a 1\n\n1 0 b high\n", 3, "qrels line.relevance"),
    ],
)
def test_errors_name_line_and_field(text: bytes, line: int, field: str):
    with pytest.raises(LoadError) as exc:
        qrels.load(text, "bad.qrels")
    assert (exc.value.line, exc.value.field) == (line, field)


def test_empty_is_an_error():
    with pytest.raises(LoadError):
        qrels.load(b"# only a comment\n", "empty.qrels")
