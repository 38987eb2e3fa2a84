"""``reprokg serve --demo``: the bundled example data in a fresh embedded store.

The examples ship as package data (``examples/``: a survey subset, run files with
ir_metadata headers, audits, stability studies), so the demo works from an installed
wheel on a fresh machine, without the checkout or network access. After loading, every
stability study is analysed (seed 003's model and tests) and the analysis stored as a
``stability-analysis`` document, so the demo shows the computed results next to the
observations; the examples' observations are illustrative, and their analyses say so.
"""

from __future__ import annotations

import tempfile
from contextlib import ExitStack
from importlib import resources
from pathlib import Path

from reprokg.core.resources import data_dir
from reprokg.store.base import Store

#: Example queries printed when the demo starts (path and query string).
EXAMPLE_REQUESTS = [
    "/queries",
    "/queries/survey-code-availability",
    "/queries/publications-with-attribute?attribute=S1",
    "/measures/studies",
    "/measures/studies/pwc-checklist-2019",
    "/documents",
    "/measures/stability/studies",
    "/docs",
]


def demo_documents(root: Path) -> tuple[list, list]:
    """Documents of every example file a loader claims (named ``examples/...``), and errors."""
    from reprokg.core.errors import LoadError
    from reprokg.loaders import HEAD_BYTES, detect_kind, iter_source_files, load_bytes

    docs, errors = [], []
    for f in iter_source_files([root]):
        name = "examples/" + f.relative_to(root).as_posix()
        data = f.read_bytes()
        head = data[:HEAD_BYTES].decode("utf-8", errors="replace").replace("\r\n", "\n")
        kind = detect_kind(f.name, head)
        if kind is None:
            continue  # licence notices, READMEs, data a loader does not claim
        try:
            docs.extend(load_bytes(data, name, kind))
        except LoadError as exc:
            errors.append(exc)
    return docs, errors


def load_demo(store: Store) -> dict[str, int]:
    """Ingest every bundled example into ``store``; counts of documents by outcome."""
    from reprokg.ingest import ingest

    with ExitStack() as stack:
        root = data_dir("examples")
        if not root.is_dir():
            return {}
        docs, errors = demo_documents(Path(stack.enter_context(resources.as_file(root))))
    # Two example files describing the same thing (same source key, e.g. one study as CSV
    # and as YAML) would replace each other on every start; the first one wins.
    seen: set[str] = set()
    unique = []
    for doc in docs:
        if doc.source_key not in seen:
            seen.add(doc.source_key)
            unique.append(doc)
    result = ingest(store, unique)
    counts: dict[str, int] = {}
    if len(unique) < len(docs):
        counts["skipped (same source key)"] = len(docs) - len(unique)
    for item in result.documents:
        counts[item.status] = counts.get(item.status, 0) + 1
    if errors:
        counts["unreadable"] = len(errors)
    for status in analyse_stability(store):
        key = f"stability analysis {status}"
        counts[key] = counts.get(key, 0) + 1
    return counts


def analyse_stability(store: Store) -> list[str]:
    """Analyse every stability study in ``store`` (REML, alpha 0.05) and store each analysis;
    the outcome of each write (``added``, ``unchanged``, ``revised``)."""
    from reprokg.stability.observations import list_studies
    from reprokg.stability.study import analyse_study, save_analysis

    return [save_analysis(store, analyse_study(store, s)).status for s in list_studies(store)]


def demo_requests(store: Store) -> list[str]:
    """:data:`EXAMPLE_REQUESTS` and, per stability study in ``store``, its analysis and
    chart (the study ids are hashes of the examples' titles: read, not hard-coded)."""
    from reprokg.stability.observations import list_studies

    extra = []
    for s in list_studies(store):
        extra += [
            f"/measures/stability?study={s.id}",
            f"/measures/stability/chart.svg?study={s.id}",
        ]
    return [*EXAMPLE_REQUESTS, *extra]


def demo_store_dir(given: str | None) -> str:
    """``given`` or a fresh temporary folder (kept until the process exits)."""
    return given or tempfile.mkdtemp(prefix="reprokg-demo-")
