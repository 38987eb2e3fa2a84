"""Documents of every kind, as reprokg validates them: what ``reprokg serve --demo`` loads
and computes (every bundled example, the evaluations, comparison, stability analyses and
intrinsic-dimension estimate it derives), plus the real survey and ML Reproducibility
Challenge records of ``../shared/data``.

Captured at ``reprokg.ingest``'s validation call, so each graph is exactly what the SHACL
engine sees. Shared by the engine benchmark and the compare property test.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from reprokg.core.document import Document

_REPO = Path(__file__).resolve().parents[2]
SHARED = _REPO.parent / "shared" / "data"


def documents(shared: Path | None = SHARED) -> list[Document]:
    """Every document the demo validates, then the shared data's survey and MLRC records."""
    import reprokg.ingest as ingest_module
    from reprokg.service.demo import load_demo
    from reprokg.store import open_store

    seen: list[Document] = []
    original = ingest_module.validate_documents

    def capture(batch: list[Document]) -> list:
        seen.extend(batch)
        return original(batch)

    ingest_module.validate_documents = capture  # type: ignore[assignment]
    try:
        with tempfile.TemporaryDirectory() as d, open_store(d) as store:
            load_demo(store)
    finally:
        ingest_module.validate_documents = original  # type: ignore[assignment]
    if shared is not None and shared.is_dir():
        from reprokg.loaders.files import SourceWalk

        paths = [
            shared / "replicability_graphics" / "consolidatedData.json",
            shared / "surveys" / "rescience" / "mlrc_metadata",
        ]
        seen += list(SourceWalk([p for p in paths if p.exists()]).documents())
    return seen


def by_kind(docs: list[Document]) -> dict[str, list[Document]]:
    out: dict[str, list[Document]] = {}
    for d in docs:
        out.setdefault(d.kind, []).append(d)
    return dict(sorted(out.items()))
