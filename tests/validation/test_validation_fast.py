"""The compiled SPARQL engine (reprokg.validation.fast) agrees with pyshacl, document by document.

The reference is pyshacl itself on the same shapes: for every real document of every
kind in shared/data and examples/, and for defective variants (one edit each, as in
tests/test_shapes_run.py and tests/test_mlrc_loader.py), the set of (focus node,
path, severity, constraint component, value) must be equal. The whole validation
suite can also be run with ``REPROKG_SHACL_ENGINE=compare``, which checks every
document validated by any test the same way.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from reprokg.core.document import Document
from reprokg.loaders import ir_metadata as im
from reprokg.loaders import mlrc, qrels
from reprokg.loaders.files import SourceWalk
from reprokg.validation.batching import validate_documents
from reprokg.validation.engine import fast_results, shacl_key, validate_document
from reprokg.validation.fast.compiler import compile_kind
from reprokg.validation.pyshacl_engine import shacl_results as _shacl_results
from reprokg.validation.shapes import materialise_types
from tests.conftest import REPO


@pytest.fixture(autouse=True)
def _fast_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REPROKG_SHACL_ENGINE", "fast")


def _compare(docs: list[Document]) -> int:
    """Assert per-document equality in one batched fast run; the number compared."""
    by_kind: dict[str, list[Document]] = {}
    for d in docs:
        by_kind.setdefault(d.kind, []).append(d)
    compared = 0
    for kind, group in by_kind.items():
        fast = fast_results(group, kind)
        if fast is None:
            continue
        for d, results in zip(group, fast, strict=True):
            ref = shacl_key(_shacl_results(materialise_types(d.graph), kind))
            assert shacl_key(results) == ref, d.source_name
            compared += 1
    return compared


def test_kinds_compiled() -> None:
    """Every kind compiles: nothing is left to pyshacl (before issue 29, audit, survey,
    comparison, feature-discard, intrinsic-dimension and study-result were not)."""
    from reprokg.validation.shapes import known_kinds

    kinds = known_kinds()
    assert {"audit", "survey", "comparison", "feature-discard", "study-result"} <= set(kinds)
    for kind in kinds:
        assert compile_kind(kind).branches, kind


@pytest.mark.slow
def test_real_documents_of_every_kind(shared_data: Path) -> None:
    paths = [
        shared_data / "ir_metadata",
        shared_data / "surveys/rescience/mlrc_metadata",
        REPO / "examples/runs",
        REPO / "examples/stability",
        REPO / "examples/audits",
        REPO / "examples/intrinsic_dimension",
        REPO / "examples/survey",
    ]
    walk = SourceWalk(paths)
    docs = list(walk.documents())
    docs += qrels.load((shared_data / "trec/toy/qrels.toy").read_bytes(), "qrels.toy")
    assert walk.errors == []
    kinds = {d.kind for d in docs}
    assert {"run", "mlrc", "gk2018", "stability", "qrels", "audit", "survey"} <= kinds
    assert {"grsi", "pwc-checklist", "feature-discard"} <= kinds
    assert _compare(docs) == len(docs)


RUN_EDITS = [
    ("#     commit:", "#     commit: not-a-sha"),
    ("#     doi:", "#     doi: https://doi.org/11.1007/x"),
    ("#     doi:", "#     note: no doi"),
    ("#     repository:", "#     repository: github.com/castorini/anserini"),
    ("#   orcid:", "#   orcid: 0000-0002-0661"),
    ("#     year:", "#     year: 2519"),
    ("#     year:", "#     year: twenty nineteen"),
    ("#   role:", "#   role: author"),
    ("#       number of cores: 16", "#       number of cores: sixteen"),
    ("#   automatic:", "#   automatic: maybe"),
    ("#   mail:", "#   mail: jimmylin at uwaterloo"),
    ("#     weight:", "#     weight: heavy"),
    ("#     reranks: bm25", "#     reranks: bm26"),
]


def _edit(text: str, old: str, new: str) -> str:
    lines = text.split("\n")
    hits = [i for i, ln in enumerate(lines) if ln.startswith(old)]
    assert len(hits) == 1, old
    lines[hits[0]] = new
    return "\n".join(lines)


@pytest.mark.slow
def test_defective_run_headers(shared_data: Path) -> None:
    text = (shared_data / "ir_metadata/annotated_run_example.txt").read_text()
    docs = [
        im.load(_edit(text, o, n).encode(), f"v{i}.txt")[0] for i, (o, n) in enumerate(RUN_EDITS)
    ]
    assert _compare(docs) == len(docs)
    # the variants are defective (not a comparison of empty sets): a missing DOI is a
    # Warning, every other edit a Violation
    reports = validate_documents(docs)
    assert [i for i, r in enumerate(reports) if r.conforms] == [2]
    assert reports[2].count("Warning") > 0


def test_defective_mlrc_reports(shared_data: Path) -> None:
    f = sorted((shared_data / "surveys/rescience/mlrc_metadata").glob("*/*/journal/metadata.yaml"))[
        0
    ]
    text = f.read_text(encoding="utf-8")
    y = yaml.safe_load(text)
    docs = [mlrc.load(text.encode(), "ok.yaml")[0]]
    doi = (
        str(y["article"]["doi"])
        if isinstance(y.get("article"), dict) and y["article"].get("doi")
        else None
    )
    if doi:
        docs.append(
            mlrc.load(text.replace(doi, doi.upper().replace("10.", "11.")).encode(), "doi.yaml")[0]
        )
    good = str(y["authors"][0]["orcid"])
    docs.append(
        mlrc.load(text.replace(good, "https://orcid.org/0000-12").encode(), "orcid.yaml")[0]
    )
    assert _compare(docs) == len(docs)


@pytest.mark.slow
def test_batched_fast_equals_one_by_one(shared_data: Path) -> None:
    files = sorted(
        (shared_data / "surveys/rescience/mlrc_metadata").glob("*/*/journal/metadata.yaml")
    )
    docs = [d for f in files for d in mlrc.load(f.read_bytes(), f.name)]
    batch = validate_documents(docs)
    for d, rep in zip(docs, batch, strict=True):
        assert shacl_key(rep.results) == shacl_key(validate_document(d).results)
    assert all(r.conforms for r in batch)
