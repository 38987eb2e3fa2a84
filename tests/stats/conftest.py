"""Real per-topic differences for the statistics' oracle tests: two of the toy tutorial's
runs and two generated 50-topic runs over the real TREC Common Core 2017 qrels, evaluated
with the default measures (measures/effectiveness.py)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import need


@pytest.fixture(scope="session")
def core17_differences(shared_data: Path, tmp_path_factory) -> tuple[np.ndarray, list[str]]:
    """topics x measures: original minus reproduced scores of two generated 50-topic runs
    (benchmarks/measures' generator) over the core17 qrels."""
    from benchmarks.measures.run import generate
    from reprokg.loaders.trec_files import read_qrels, read_run
    from reprokg.measures.effectiveness import Evaluator

    qrels_path = shared_data / "trec" / "qrels" / "core17.txt"
    tmp = tmp_path_factory.mktemp("core17")
    qrels = read_qrels(qrels_path)
    ev = Evaluator(qrels)
    a = ev.evaluate(read_run(generate(qrels_path, tmp / "a", seed=1)))
    b = ev.evaluate(read_run(generate(qrels_path, tmp / "b", seed=2)))
    return a.values - b.values, a.measures


@pytest.fixture(scope="session")
def rscript() -> str:
    path = shutil.which("Rscript")
    need(path is not None, "Rscript is not installed")
    return str(path)


def run_r(rscript: str, code: str) -> list[float]:
    """The numbers an R expression prints with cat(format(x, digits = 17))."""
    out = subprocess.run([rscript, "-e", code], capture_output=True, text=True, check=True)
    return [float("nan") if v == "NA" else float(v) for v in out.stdout.split()]


@pytest.fixture(scope="session")
def core17_four_runs(shared_data: Path, tmp_path_factory) -> tuple[list[np.ndarray], list[str]]:
    """Four generated 50-topic runs over the core17 qrels (original baseline and advanced,
    reproduced baseline and advanced), each topics x measures in the same topic order."""
    from benchmarks.measures.run import generate
    from reprokg.loaders.trec_files import read_qrels, read_run
    from reprokg.measures.effectiveness import Evaluator

    qrels_path = shared_data / "trec" / "qrels" / "core17.txt"
    tmp = tmp_path_factory.mktemp("core17-four")
    ev = Evaluator(read_qrels(qrels_path))
    scores = [
        ev.evaluate(read_run(generate(qrels_path, tmp / f"r{s}", seed=s))) for s in (5, 6, 7, 8)
    ]
    assert all(s.topics == scores[0].topics for s in scores)
    return [s.values for s in scores], scores[0].measures
