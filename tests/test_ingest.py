"""The ingest pipeline: add / unchanged / revised / rejected, provenance, blobs, real data."""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path

import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import PROV, RDF

from reprokg.core.document import Document
from reprokg.core.namespaces import RK
from reprokg.ingest import ingest, ingest_paths
from reprokg.store import open_store
from reprokg.validation.paths import validate_paths
from tests.conftest import REPO
from tests.engines import oxigraph_server, virtuoso_server  # noqa: F401 - fixtures

EX = "http://example.org/"


def make_doc(key: str, body: str, *, orcid: str | None = None, attach: bytes = b"") -> Document:
    """A document of a kind without shapes: only the python checks (ORCID) apply."""
    data = f"{key}\n{body}\n".encode()
    g = Graph()
    s = URIRef(EX + key)
    g.add((s, RDF.type, URIRef(EX + "Thing")))
    g.add((s, URIRef(EX + "body"), Literal(body)))
    if orcid:
        g.add((s, RK.orcidAsWritten, Literal(orcid)))
    return Document(
        kind="testkind",
        graph=g,
        source_name=f"/data/{key}.txt",
        source_bytes=data,
        loader="tests.make_doc",
        loader_version="0",
        source_key=key,
        subject=s,
        attachments={hashlib.sha256(attach).hexdigest(): attach} if attach else {},
    )


@pytest.fixture
def store(tmp_path):
    s = open_store(tmp_path / "store")
    yield s
    s.close()


def test_added_document_carries_its_provenance(store) -> None:
    doc = make_doc("a", "first")
    res = ingest(store, [doc], user="0000-0002-1825-0097")
    assert [o.status for o in res.documents] == ["added"]
    iri = URIRef("https://w3id.org/reprokg/id/doc/" + hashlib.sha256(b"a\nfirst\n").hexdigest())
    assert store.documents() == [iri]
    g = store.get_document(iri)
    assert (iri, RDF.type, RK.Document) in g
    assert g.value(iri, RK.documentKind) == Literal("testkind")
    assert g.value(iri, RK.sourceFileName) == Literal("a.txt")
    assert g.value(iri, RK.sourceSha256) == Literal(hashlib.sha256(b"a\nfirst\n").hexdigest())
    assert g.value(iri, RK.sourceKey) == Literal("a")
    assert g.value(iri, RK.loaderName) == Literal("tests.make_doc")
    assert g.value(iri, RK.loaderVersion) == Literal("0")
    assert g.value(iri, PROV.generatedAtTime) is not None
    activity = g.value(iri, PROV.wasGeneratedBy)
    agents = set(g.objects(activity, PROV.wasAssociatedWith))
    assert any((a, RDF.type, PROV.SoftwareAgent) in g for a in agents)
    assert g.value(iri, PROV.wasAttributedTo) == URIRef("https://orcid.org/0000-0002-1825-0097")
    # the document's own triples are all there
    assert (URIRef(EX + "a"), URIRef(EX + "body"), Literal("first")) in g


def test_identical_content_is_unchanged(store) -> None:
    ingest(store, [make_doc("a", "first")])
    before = store.triple_count()
    res = ingest(store, [make_doc("a", "first")])
    assert [o.status for o in res.documents] == ["unchanged"]
    assert res.triples == 0
    assert store.triple_count() == before


def test_new_version_of_same_source_key_revises(store) -> None:
    v1 = make_doc("a", "first")
    ingest(store, [v1, make_doc("b", "other")])
    v2 = make_doc("a", "second")
    res = ingest(store, [v2])
    out = res.documents[0]
    assert out.status == "revised" and out.revision_of == v1.iri
    assert set(store.documents()) == {v2.iri, make_doc("b", "other").iri}
    g = store.get_document(v2.iri)
    assert g.value(v2.iri, PROV.wasRevisionOf) == v1.iri
    assert (URIRef(EX + "a"), URIRef(EX + "body"), Literal("first")) not in g


def test_two_versions_in_one_batch_keep_the_last(store) -> None:
    res = ingest(store, [make_doc("a", "first"), make_doc("a", "second")])
    assert [o.status for o in res.documents] == ["added", "revised"]
    assert store.documents() == [make_doc("a", "second").iri]


def test_violation_rejects_and_writes_nothing(store) -> None:
    bad = make_doc("a", "first", orcid="0000-0000-0000-0000")  # check digit should be 1
    res = ingest(store, [bad, make_doc("b", "fine")])
    assert [o.status for o in res.documents] == ["rejected", "added"]
    assert res.exit_code == 1
    assert store.documents() == [make_doc("b", "fine").iri]
    assert any("MOD 11-2" in r.message for r in res.documents[0].report.results)


def test_attachments_go_to_content_addressed_blobs(store, tmp_path) -> None:
    payload = b"301 Q0 doc1 1 12.5 tag\n"
    ingest(store, [make_doc("a", "first", attach=payload)])
    sha = hashlib.sha256(payload).hexdigest()
    assert store.get_blob(sha) == payload
    assert (tmp_path / "store" / "blobs" / sha[:2] / sha).read_bytes() == payload
    assert not list((tmp_path / "store" / "blobs").rglob(".tmp-*"))


def _gk_rows(path: Path) -> int:
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    return sum(1 for r in rows[1:] if any(c.strip() for c in r))


@pytest.mark.slow
def test_real_gundersen_kjensmo_survey(shared_data, tmp_path) -> None:
    folder = shared_data / "surveys" / "gundersen_kjensmo_2018"
    expected = _gk_rows(folder / "data" / "evaluations.csv")
    assert expected == 400  # the paper: 400 papers
    store = open_store(tmp_path / "s")
    res = ingest_paths(store, [folder])
    assert res.errors == []
    assert res.count("added") == expected
    assert len(store.documents()) == expected
    again = ingest_paths(store, [folder])
    assert again.count("unchanged") == expected and again.triples == 0
    store.close()


def test_real_annotated_run_keeps_run_lines_as_blob(shared_data, tmp_path) -> None:
    src = shared_data / "ir_metadata" / "annotated_run_example.txt"
    text = src.read_text(encoding="utf-8")
    store = open_store(tmp_path / "s")
    res = ingest_paths(store, [src])
    assert res.count("added") == 1, res.summary()
    # the run lines (after the header) are kept byte for byte somewhere in blobs/
    blobs = [p.read_bytes() for p in (tmp_path / "s" / "blobs").rglob("*") if p.is_file()]
    run_lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    assert any(run_lines[0].encode() in b and run_lines[-1].encode() in b for b in blobs)
    store.close()


def test_validate_paths_never_writes(shared_data, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("REPROKG_STORE", raising=False)
    src = shared_data / "ir_metadata" / "annotated_run_example.txt"
    bad = tmp_path / "broken.yaml"
    bad.write_text("ir_metadata.start\ntag: [unclosed\n", encoding="utf-8")
    reports = validate_paths([src, bad], kind="run")
    assert len(reports) == 2
    assert reports[0].conforms
    assert reports[1].results[0].constraint == "LoadError"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.yaml"]


@pytest.mark.slow
@pytest.mark.engine
@pytest.mark.parametrize("engine", ["oxigraph_server", "virtuoso_server"])
def test_ingest_on_remote_engines(engine, request, tmp_path) -> None:
    url = request.getfixturevalue(engine)
    store = open_store(url, blob_dir=tmp_path / "blobs")
    for g in store.documents():
        store.delete_document(g)
    try:
        v1, other = make_doc("a", "first", attach=b"blob"), make_doc("b", "other")
        assert [o.status for o in ingest(store, [v1, other]).documents] == ["added", "added"]
        assert [o.status for o in ingest(store, [v1]).documents] == ["unchanged"]
        v2 = make_doc("a", "second")
        res = ingest(store, [v2])
        assert res.documents[0].status == "revised" and res.documents[0].revision_of == v1.iri
        assert set(store.documents()) == {v2.iri, other.iri}
        assert store.get_document(v2.iri).value(v2.iri, PROV.wasRevisionOf) == v1.iri
        assert store.get_blob(hashlib.sha256(b"blob").hexdigest()) == b"blob"
    finally:
        for g in store.documents():
            store.delete_document(g)
        store.close()


def test_a_validated_document_is_not_validated_again(store) -> None:
    """``Validated(document, report)`` (a parse worker's answer) is stored on its report:
    a document whose ORCID check digit is wrong is rejected when ingest validates it, and
    stored when it arrives with a conforming report (proof the report is not redone)."""
    from reprokg.validation.batching import Validated, validate_documents
    from reprokg.validation.report import Report

    bad = make_doc("v", "body", orcid="0000-0002-1825-0098")
    [report] = validate_documents([bad])
    assert not report.conforms
    res = ingest(store, [Validated(bad, Report(source=bad.source_name)), make_doc("w", "x")])
    assert [o.status for o in res.documents] == ["added", "added"]
    res = ingest(store, [make_doc("v", "other", orcid="0000-0002-1825-0098")])
    assert [o.status for o in res.documents] == ["rejected"]


def test_keep_originals_stores_the_source_under_the_document_id(store) -> None:
    """Keeping the source is the one default of every way into the store (``ingest()`` kept
    none on main while ``ingest_paths`` did); ``keep_originals=False`` keeps none."""
    doc = make_doc("o", "line one\r\nline two")
    ingest(store, [doc])
    assert store.get_blob(doc.sha256) == doc.source_bytes.replace(b"\r\n", b"\n")
    other = make_doc("p", "no original")
    ingest(store, [other], keep_originals=False)
    assert store.get_blob(other.sha256) is None


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [
        ["evidence", "load", "evidence/rescience"],
        ["import", "ir_metadata", "runs/annotated_run_example.txt"],
        ["load", "runs/annotated_run_example.txt"],
    ],
)
def test_every_command_into_the_store_keeps_the_originals(tmp_path, capsys, command) -> None:
    """``reprokg evidence load`` and ``reprokg import`` kept no source on main, ``reprokg
    load`` did: each stored document's source is now kept under its document id (the
    sha256 of the source file's bytes, LF line ends, which names the document)."""
    from reprokg.cli import main

    *verb, path = command
    assert main([*verb, str(REPO / "examples" / path), "--store", str(tmp_path / "kg")]) == 0
    capsys.readouterr()
    with open_store(tmp_path / "kg") as s:
        ids = [str(iri).rsplit("/", 1)[-1] for iri in s.documents()]
        assert ids and all(s.get_blob(i) is not None for i in ids)
        for i in ids:  # the blob is the source whose sha256 names the document
            assert hashlib.sha256(s.get_blob(i)).hexdigest() == i


def test_write_result_stores_the_result_with_its_inputs_and_its_source(store) -> None:
    """``write_result`` (the one way a result is stored): the comparison of the bundled
    runs and the three files it read, in one call; the outcome names the comparison node
    and its document, and the comparison's canonical JSON is kept like a loaded file."""
    from reprokg.ingest import write_result
    from reprokg.measures.inputs import qrels_from_bytes, run_from_bytes
    from reprokg.measures.run_comparison import compare_inputs

    runs = REPO / "examples" / "runs"
    qrels = qrels_from_bytes((runs / "qrels.toy").read_bytes(), "qrels.toy")
    orig, rep = (
        run_from_bytes((runs / n).read_bytes(), n)
        for n in ("annotated_run_example.txt", "reproduced_run.txt")
    )
    study = compare_inputs(qrels, orig, rep)
    outcome = write_result(store, study, inputs=study.source_documents())
    doc = study.document()
    assert (outcome.status, outcome.kind, outcome.subject, outcome.iri) == (
        "added", "comparison", doc.subject, doc.iri,
    )  # fmt: skip
    # qrels.toy and the two runs, each named by the sha256 of its bytes, and the comparison
    files = {
        hashlib.sha256((runs / n).read_bytes().replace(b"\r\n", b"\n")).hexdigest()
        for n in ("qrels.toy", "annotated_run_example.txt", "reproduced_run.txt")
    }
    assert {str(d).rsplit("/", 1)[-1] for d in store.documents()} == files | {doc.sha256}
    assert store.get_blob(doc.sha256) == doc.source_bytes
    assert write_result(store, study, inputs=study.source_documents()).status == "unchanged"
