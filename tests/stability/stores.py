"""Stores holding stability studies, for the store, CLI and API tests.

The bundled examples (the paper-sized illustrative design and the YAML with the paper's
reported tests) and a small unbalanced study with real seed and repeat variances, each
loaded through the stability loader and ingest, as a user would (``reprokg load``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from reprokg.loaders.stability import ROW_KEYS
from reprokg.stability.simulate import crossed_design
from tests.conftest import REPO

EXAMPLES = REPO / "examples" / "stability"
SMALL_TITLE = "Small unbalanced stability study (test data)"


def small_frame() -> pd.DataFrame:
    """3 experiments x 6 seeds x 4 repeats x 2 runs, 30% dropped: both variances > 0. The
    two runs of a cell are two configurations, so every run is its own node."""
    frame = crossed_design(5, n_seeds=6, n_repeats=4, per_cell=2, keep=0.7)
    nth = frame.groupby(["experiment", "seed", "repeat"]).cumcount()
    frame["configuration"] = [f"c{i + 1}" for i in nth]
    frame["metric"] = "accuracy"
    return frame


def study_csv(frame: pd.DataFrame, title: str, *, illustrative: bool = False) -> bytes:
    """A stability CSV of ``frame`` (columns of :func:`small_frame`)."""
    head = f"# stability: 1\n# title: {title}\n# illustrative: {str(illustrative).lower()}\n"
    cols = list(ROW_KEYS)
    body = frame[cols].to_csv(index=False, lineterminator="\n", float_format="%.17g")
    return (head + body).encode("utf-8")


def build_store(path: Path, *, small: bool = True, examples: bool = True) -> Any:
    """An embedded store at ``path`` with the studies ingested (validated, provenance)."""
    from reprokg.ingest import ingest, ingest_paths
    from reprokg.loaders import stability
    from reprokg.store import open_store

    store = open_store(str(path))
    if examples:
        result = ingest_paths(store, [EXAMPLES])
        assert result.count("added") == 2 and not result.errors, result.summary()
    if small:
        docs = stability.load(study_csv(small_frame(), SMALL_TITLE), "small.csv")
        assert ingest(store, docs).count("added") == 1
    return store
