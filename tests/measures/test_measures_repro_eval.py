"""Cross-check against repro_eval 0.5.0 itself on seeded runs over the real core17/core18 qrels.

Every measure must agree to 1e-9, same-collection (RpdEvaluator) and cross-collection
(RplEvaluator). The runs have score ties and a file order that is not the score order,
so tie-breaking and the file-order rankings of KTU/RBO are exercised.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from reprokg.core import forked
from reprokg.loaders.trec import read_qrels, read_run
from reprokg.measures import comparison
from reprokg.measures.comparison import compare
from tests.conftest import need

try:  # repro_eval 0.5.0 needs setuptools<81 (pkg_resources) on import
    from repro_eval.Evaluator import RpdEvaluator, RplEvaluator
except Exception:  # pragma: no cover - reported by need() below
    RpdEvaluator = RplEvaluator = None


def write_run(qrels_path: Path, out: Path, seed: int, topics: int = 12, depth: int = 300) -> Path:
    """A run mixing judged and unjudged docs, with ties and some out-of-score-order lines."""
    rng = np.random.default_rng(seed)
    judged: dict[str, list[str]] = defaultdict(list)
    for line in qrels_path.read_text().splitlines():
        if line.strip():
            t, _, d, _ = line.split()
            judged[t].append(d)
    lines = []
    for t in sorted(judged)[:topics]:
        docs = list(judged[t])
        rng.shuffle(docs)
        n_judged = min(len(docs), depth // 2 + int(rng.integers(-20, 20)))
        pool = docs[:n_judged] + [f"U{seed}-{t}-{i}" for i in range(depth - n_judged)]
        # different runs overlap partly: shared prefix of the shuffled pool
        rng.shuffle(pool)
        scores = np.sort(rng.normal(size=depth).round(2))[::-1]  # rounding -> ties
        order = np.arange(depth)
        for i in rng.integers(0, depth - 1, size=depth // 20):  # file order != score order
            order[i], order[i + 1] = order[i + 1], order[i]
        for rank, i in enumerate(order, start=1):
            lines.append(f"{t} Q0 {pool[i]} {rank} {scores[i]} run{seed}")
    out.write_text("\n".join(lines) + "\n")
    return out


def assert_close(ref: dict, mine: dict, path: str = "") -> int:
    """Compare nested dicts; returns how many numbers were compared."""
    assert set(ref) == set(mine), (path, set(ref) ^ set(mine))
    n = 0
    for k, v in ref.items():
        if isinstance(v, dict):
            n += assert_close(v, mine[k], f"{path}/{k}")
        elif v is None or math.isnan(v) or math.isinf(v):
            assert mine[k] is None, (path, k, v, mine[k])
        else:
            assert mine[k] == pytest.approx(v, abs=1e-9, rel=0), (f"{path}/{k}", v, mine[k])
            n += 1
    return n


@pytest.fixture(scope="module")
def runs(shared_data: Path, tmp_path_factory) -> dict[str, Path]:
    need(RpdEvaluator is not None, "repro-eval==0.5.0 is not installed (pip install -e '.[test]')")
    d = tmp_path_factory.mktemp("runs")
    q17 = shared_data / "trec" / "qrels" / "core17.txt"
    q18 = shared_data / "trec" / "qrels" / "core18.txt"
    return {
        "q17": q17,
        "q18": q18,
        "ob": write_run(q17, d / "ob", 1),
        "oa": write_run(q17, d / "oa", 2),
        "rb": write_run(q17, d / "rb", 3),
        "ra": write_run(q17, d / "ra", 4),
        "xb": write_run(q18, d / "xb", 5),
        "xa": write_run(q18, d / "xa", 6),
    }


@pytest.fixture(params=["in this process", "in a forked child"])
def evaluation(request, monkeypatch) -> Iterator[list[bool]]:
    """Runs but the first evaluated here, or in a forked child (measures/comparison): the
    numbers must equal repro_eval's both ways. Yields whether each child was forked."""
    started: list[bool] = []
    if request.param == "in this process":
        monkeypatch.setattr(comparison, "CHILD_MIN_LINES", 10**12)
    else:
        if not forked.can_fork():
            pytest.skip("a Python thread is running, one CPU or not Linux: no fork here")
        monkeypatch.setattr(comparison, "CHILD_MIN_LINES", 0)

    def in_child(fn):
        later = forked.in_child(fn)
        started.append(later.forked)
        return later

    monkeypatch.setattr(comparison, "in_child", in_child)
    yield started
    assert started == ([True] if request.param == "in a forked child" else [])


def test_same_collection_equals_repro_eval(runs, evaluation):
    ev = RpdEvaluator(
        qrels_orig_path=str(runs["q17"]),
        run_b_orig_path=str(runs["ob"]),
        run_a_orig_path=str(runs["oa"]),
        run_b_rep_path=str(runs["rb"]),
        run_a_rep_path=str(runs["ra"]),
    )
    ev.trim()
    ev.evaluate()
    ref = {
        "ktu": ev.ktu(),
        "rbo": ev.rbo(),
        "rmse": ev.rmse(),
        "nrmse": ev.nrmse(),
        "pvalue": ev.ttest(),
        "er": ev.er(),
        "dri": ev.dri(),
    }
    result = compare(
        read_qrels(runs["q17"]),
        read_run(runs["ob"]),
        read_run(runs["rb"]),
        read_run(runs["oa"]),
        read_run(runs["ra"]),
    )
    assert result.kind == "same-collection"
    n = assert_close(ref, result.measures)
    assert n > 5 * 58  # every measure family over the 58 effectiveness measures


def test_cross_collection_equals_repro_eval(runs, evaluation):
    ev = RplEvaluator(
        qrels_orig_path=str(runs["q17"]),
        run_b_orig_path=str(runs["ob"]),
        run_a_orig_path=str(runs["oa"]),
        run_b_rep_path=str(runs["xb"]),
        run_a_rep_path=str(runs["xa"]),
        qrels_rpl_path=str(runs["q18"]),
    )
    ev.trim()
    ev.evaluate()
    ref = {"pvalue": ev.ttest(), "er": ev.er(), "dri": ev.dri()}
    result = compare(
        read_qrels(runs["q17"]),
        read_run(runs["ob"]),
        read_run(runs["xb"]),
        read_run(runs["oa"]),
        read_run(runs["xa"]),
        qrels_rpl=read_qrels(runs["q18"]),
    )
    assert result.kind == "cross-collection"
    assert set(result.measures) == {"pvalue", "er", "dri"}
    assert assert_close(ref, result.measures) > 2 * 58


def test_baseline_only_equals_repro_eval(runs, evaluation):
    ev = RpdEvaluator(
        qrels_orig_path=str(runs["q17"]),
        run_b_orig_path=str(runs["ob"]),
        run_b_rep_path=str(runs["rb"]),
    )
    ev.trim()
    ev.evaluate()
    ref = {"ktu": ev.ktu(), "rbo": ev.rbo(), "rmse": ev.rmse(), "pvalue": ev.ttest()}
    result = compare(read_qrels(runs["q17"]), read_run(runs["ob"]), read_run(runs["rb"]))
    assert "er" not in result.measures and "dri" not in result.measures
    mine = {k: result.measures[k] for k in ref}
    assert assert_close(ref, mine) > 58
