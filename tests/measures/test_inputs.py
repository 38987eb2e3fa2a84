"""Run and qrels files read for a comparison without building their documents
(measures/inputs.py) give what the loaders' documents give: the same rankings, hashes,
content key, nodes and graph, and the document itself when asked for (``--save``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reprokg.loaders.ir_metadata.loader import load_run_file
from reprokg.loaders.qrels import load_qrels_file
from reprokg.measures.inputs import qrels_from_bytes, run_from_bytes


def _same_run(a, b) -> bool:
    """Rankings in file order with their scores, and the tag (the arrays compared as lists)."""
    return (a.tag, a.warnings, {t: (r.docs, r.scores.tolist()) for t, r in a.topics.items()}) == (
        b.tag,
        b.warnings,
        {t: (r.docs, r.scores.tolist()) for t, r in b.topics.items()},
    )


@pytest.mark.parametrize("crlf", [False, True], ids=["bytes read as they are", "CRLF"])
@pytest.mark.parametrize("name", ["run_a", "run_b", "run_c"])
def test_a_plain_run_read_alone_equals_its_document(shared_data: Path, name: str, crlf) -> None:
    data = (shared_data / "trec" / "toy" / name).read_bytes()
    if crlf:  # a blank first line and CRLF ends: decoded to text first
        data = b"\n" + data.replace(b"\n", b"\r\n")
    doc, run = load_run_file(data, name)  # the loader's reading, the reference
    inp = run_from_bytes(data, name)
    assert inp._source is None and not inp.has_header  # read without the loader
    assert _same_run(inp.run, run)
    assert inp.sha256 == next(iter(doc.attachments))
    assert inp.content_key == doc.sha256
    assert inp.subject == doc.subject
    assert set(inp.graph) == set(doc.graph)
    assert inp.source is not None and inp.source.sha256 == doc.sha256


def test_a_run_with_a_header_goes_through_the_loader(shared_data: Path) -> None:
    path = shared_data / "ir_metadata" / "annotated_run_example.txt"
    doc, run = load_run_file(path.read_bytes(), path.name)
    inp = run_from_bytes(path.read_bytes(), path.name)
    assert inp.has_header and inp._source is not None
    assert _same_run(inp.run, run) and inp.content_key == doc.sha256 and inp.subject == doc.subject


def test_qrels_read_alone_equal_their_document(shared_data: Path) -> None:
    data = (shared_data / "trec" / "qrels" / "core17.txt").read_bytes()
    doc, qrels = load_qrels_file(data, "core17.txt", collection="nyt/trec-core-2017")
    inp = qrels_from_bytes(data, "core17.txt", "nyt/trec-core-2017")
    assert inp.qrels == qrels
    assert inp.sha256 == next(iter(doc.attachments))
    assert inp.subject == doc.subject
    assert inp.collection == "nyt/trec-core-2017"
    assert inp.source is not None and set(inp.source.graph) == set(doc.graph)
