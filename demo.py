"""``reprokg serve --demo``: the bundled example data in a fresh embedded store.

The examples ship as package data (``examples/``: a survey subset, run files with
ir_metadata headers, audits), so the demo works from an installed wheel on a fresh
machine, without the checkout or network access.
"""

from __future__ import annotations

import tempfile
from contextlib import ExitStack
from importlib import resources
from pathlib import Path

from reprokg.resources import data_dir
from reprokg.store.base import Store

#: Example queries printed when the demo starts (path and query string).
EXAMPLE_REQUESTS = [
    "/queries",
    "/queries/survey-code-availability",
    "/queries/publications-with-attribute?attribute=S1",
    "/documents",
    "/docs",
]


def example_paths(stack: ExitStack) -> list[Path]:
    """Real file-system paths of the bundled example folders (extracted if zipped)."""
    root = data_dir("examples")
    if not root.is_dir():
        return []
    path = stack.enter_context(resources.as_file(root))
    return sorted(p for p in Path(path).iterdir() if p.is_dir() or p.is_file())


def load_demo(store: Store) -> dict[str, int]:
    """Ingest every bundled example into ``store``; counts of documents by outcome."""
    from reprokg.ingest import ingest_paths

    with ExitStack() as stack:
        paths = [p for p in example_paths(stack) if not p.name.startswith((".", "_"))]
        if not paths:
            return {}
        result = ingest_paths(store, paths)
    counts: dict[str, int] = {}
    for item in result.documents:
        counts[item.status] = counts.get(item.status, 0) + 1
    return counts


def demo_store_dir(given: str | None) -> str:
    """``given`` or a fresh temporary folder (kept until the process exits)."""
    return given or tempfile.mkdtemp(prefix="reprokg-demo-")
