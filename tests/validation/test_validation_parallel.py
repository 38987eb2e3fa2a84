"""Validation in forked processes gives exactly the reports of one process, in order."""

from __future__ import annotations

from pathlib import Path

import pytest

from reprokg.loaders.files import load_path
from reprokg.validation.batching import validate_documents, validate_in_processes
from reprokg.validation.paths import validate_paths
from tests.conftest import need


def test_forked_batches_equal_one_process(shared_data: Path, mlrc_docs: list) -> None:
    """The 71 MLRC report headers and the shared ir_metadata run examples."""
    runs = sorted((shared_data / "ir_metadata").glob("*.txt"))
    need(bool(runs), "ir_metadata examples are missing")
    docs = [*mlrc_docs, *(d for p in runs for d in load_path(p))]
    one = [
        r.to_dict() for i in range(0, len(docs), 16) for r in validate_documents(docs[i : i + 16])
    ]
    forked = [r.to_dict() for r in validate_in_processes(docs, batch_size=16, workers=2)]
    assert forked == one
    assert len(forked) == len(docs) and {r["source"] for r in forked} == {
        d.source_name for d in docs
    }


@pytest.mark.slow
def test_validate_paths_reports_violations_in_order(shared_data: Path, tmp_path: Path) -> None:
    run = shared_data / "ir_metadata" / "annotated_run_example.txt"
    need(run.is_file(), "annotated_run_example.txt missing")
    text = run.read_text(encoding="utf-8")
    assert "0000-0002-0661-7189" in text  # the actor's ORCID in the shared example
    paths = []
    for i in range(40):  # several batches; every fifth file's ORCID check digit broken
        body = text.replace("0000-0002-0661-7189", "0000-0002-0661-7180") if i % 5 == 0 else text
        p = tmp_path / f"run-{i:02d}.txt"
        p.write_text(body.replace("tag: ", f"tag: copy{i}-", 1), encoding="utf-8")
        paths.append(p)
    reports = validate_paths(paths, batch_size=4)
    assert [Path(r.source).name for r in reports] == [p.name for p in paths]
    assert [r.conforms for r in reports] == [i % 5 != 0 for i in range(40)]
