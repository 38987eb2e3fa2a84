"""validate_documents gives exactly the per-document reports; the ORCID check's paths.

Expected values come from validating each document alone (the definition of correct
batch semantics) and from the YAML text edited by the test itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from reprokg.core.namespaces import RK
from reprokg.loaders import ir_metadata as im
from reprokg.loaders import mlrc
from reprokg.validation.batching import validate_documents
from reprokg.validation.engine import validate_document
from reprokg.validation.report import Report


def _key(rep: Report) -> list[tuple]:
    return sorted(
        (r.severity, r.path or "", r.focus_node or "", r.value or "", r.line or 0, r.message)
        for r in rep.results
    )


@pytest.mark.slow
def test_batch_equals_one_by_one_on_real_mlrc_reports(mlrc_docs) -> None:
    assert len(mlrc_docs) == 71  # the real MLRC headers in shared/data
    batch = validate_documents(mlrc_docs)
    alone = [validate_document(d) for d in mlrc_docs]
    assert [r.source for r in batch] == [r.source for r in alone]
    for b, a in zip(batch, alone, strict=True):
        assert _key(b) == _key(a), b.source
    assert all(r.conforms for r in batch), [r.source for r in batch if not r.conforms]


def test_shared_doi_written_two_ways_passes_in_one_batch(mlrc_files: list[Path]) -> None:
    """Two reports of one original paper, its DOI written as a bare DOI and as a URL."""
    text = mlrc_files[0].read_text(encoding="utf-8")
    (d1,) = mlrc.load(text.encode(), "a.yaml")
    written = sorted({str(o) for o in d1.graph.objects(None, RK.doiAsWritten)})
    assert written, "the real report names at least one DOI"
    doi = written[0]
    other = (
        doi.removeprefix("https://doi.org/")
        if doi.startswith("https")
        else ("https://doi.org/" + doi)
    )
    assert doi in text
    (d2,) = mlrc.load(text.replace(doi, other).encode(), "b.yaml")
    assert validate_document(d1).conforms and validate_document(d2).conforms
    r1, r2 = validate_documents([d1, d2])
    assert r1.conforms and r2.conforms, r1.to_text() + "\n" + r2.to_text()
    assert _key(r1) == _key(validate_document(d1))
    assert _key(r2) == _key(validate_document(d2))


def test_malformed_orcid_reported_once_with_loader_path(mlrc_files: list[Path]) -> None:
    text = mlrc_files[0].read_text(encoding="utf-8")
    y = yaml.safe_load(text)
    good = str(y["authors"][0]["orcid"])
    broken = good[:-1] + ("0" if good[-1] != "0" else "1")
    (d,) = mlrc.load(text.replace(good, broken).encode(), "metadata.yaml")
    for rep in (validate_document(d), validate_documents([d, d])[0]):
        hits = [r for r in rep.results if r.value == broken and r.severity == "Violation"]
        # the loader's message (path authors[1].orcid + line) and no duplicate "actor.orcid"
        assert [r.path for r in hits] == ["authors[1].orcid"], rep.to_text()
        assert not any(r.path == "actor.orcid" for r in rep.results)


def test_orcid_check_path_comes_from_the_document_lines(shared_data: Path) -> None:
    text = (shared_data / "ir_metadata" / "annotated_run_example.txt").read_text()
    lines = text.split("\n")
    [i] = [k for k, ln in enumerate(lines) if ln.startswith("#   orcid:")]
    lines[i] = "#   orcid: 0000-0002-0661-7188"  # wrong check digit
    [doc] = im.load("\n".join(lines).encode(), "run.txt")
    [v] = [r for r in validate_document(doc).results if r.value == "0000-0002-0661-7188"]
    assert (v.path, v.line) == ("actor.orcid", i + 1)


def test_no_cyclic_collection_while_a_batch_is_validated(mlrc_files: list[Path]) -> None:
    """The collector's full passes over the caller's heap were half of validating a batch
    of large documents (issue 29); it is paused for the batch and on again after."""
    import gc
    import sys

    docs = [d for f in mlrc_files[:20] for d in mlrc.load(f.read_bytes(), f.name)]
    collections: list[int] = []

    def seen(phase: str, info: dict) -> None:
        # a collection from inside the engine or the checks (one may follow the batch)
        frame = sys._getframe(1)
        while frame is not None:
            name = frame.f_code.co_filename.replace("\\", "/")
            if phase == "start" and (
                "/validation/fast/" in name or name.endswith("validation/checks.py")
            ):
                collections.append(info["generation"])
                return
            frame = frame.f_back

    assert gc.isenabled()
    gc.collect()
    gc.callbacks.append(seen)
    try:
        reports = validate_documents(docs)
    finally:
        gc.callbacks.remove(seen)
    assert len(reports) == len(docs) and all(r.conforms for r in reports)
    assert collections == []
    assert gc.isenabled()
    from reprokg.validation.batching import cyclic_gc_paused

    # nested holders: on again only when the last one leaves; off stays off
    with cyclic_gc_paused():
        with cyclic_gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with cyclic_gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_batch_screened_checks_find_what_each_document_alone_finds(mlrc_docs) -> None:
    """``run_checks`` runs a check only on the documents its batch screen flags: on 71 real
    MLRC headers, one given an ORCID with a wrong check digit and one a ``javascript:``
    link, each document gets exactly what the checks give it alone, the store-terms screen
    flags only the hostile document and the ORCID screen exactly the documents holding an
    ORCID (counted here from rdflib's own triples)."""
    from rdflib import Literal, URIRef

    from reprokg.core.lazy_graph import graph_triples
    from reprokg.core.namespaces import SCHEMA
    from reprokg.validation.checks import (
        PYTHON_CHECKS,
        _orcid_screen,
        _terms_screen,
        run_checks,
    )

    docs = list(mlrc_docs)
    assert len(docs) == 71
    bad_orcid, hostile = docs[3], docs[40]
    subject = next(iter(bad_orcid.graph.subjects()))
    # 0000-0002-0661-7188: MOD 11-2 (ISO 7064) gives 0000-0002-0661-718 the check digit 9
    bad_orcid.graph.add((subject, RK.orcidAsWritten, Literal("0000-0002-0661-7188")))
    hostile.graph.add(
        (next(iter(hostile.graph.subjects())), SCHEMA.url, URIRef("javascript:alert(1)"))
    )
    alone = [[r for check in PYTHON_CHECKS for r in check(d.graph, d)] for d in docs]
    batch = run_checks(docs)
    assert [[r.to_dict() for r in rs] for rs in batch] == [
        [r.to_dict() for r in rs] for rs in alone
    ]
    assert any("0000-0002-0661-7188" in (r.value or "") for r in batch[3])
    assert [r.message for r in batch[40]] == [
        "a link must be an http(s) URL, got 'javascript:alert(1)'"
    ]
    lists = [graph_triples(d.graph) for d in docs]
    assert _terms_screen(lists) == [40]
    with_orcid = [
        i
        for i, d in enumerate(docs)
        if any(
            str(t).startswith("https://orcid.org/") or t == RK.orcidAsWritten
            for triple in d.graph
            for t in triple
        )
    ]
    assert 3 in with_orcid and len(with_orcid) < len(docs)
    assert _orcid_screen(lists) == with_orcid
