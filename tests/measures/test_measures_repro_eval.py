"""Cross-check against repro_eval 0.5.0 itself on seeded runs over the real core17/core18 qrels.

Every measure must agree to 1e-9, same-collection (RpdEvaluator) and cross-collection
(RplEvaluator). The runs have score ties and a file order that is not the score order,
so tie-breaking and the file-order rankings of KTU/RBO are exercised.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from reprokg.loaders.trec_files import read_qrels, read_run
from reprokg.measures import comparison
from reprokg.measures.comparison import compare
from tests.conftest import need

try:  # repro_eval 0.5.0 needs setuptools<81 (pkg_resources) on import
    from repro_eval.Evaluator import RpdEvaluator, RplEvaluator
except ImportError:  # pragma: no cover - reported by need() below
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


#: what a comparison reports next to repro_eval's measures (reprokg.stats): never in place of
#: them, so repro_eval's keys stay exactly repro_eval's
STATISTICS = {
    "wilcoxon",
    "randomization",
    "original_mean",
    "reproduced_mean",
    "mean_diff",
    "mean_diff_low",
    "mean_diff_high",
    "dri_low",
    "dri_high",
    "dz",
    "dz_low",
    "dz_high",
    "gz",
    "gz_low",
    "gz_high",
    "pvalue_adjusted",
    "wilcoxon_adjusted",
    "randomization_adjusted",
}

#: the statistics per effectiveness measure (ΔRI's interval), not per side
PER_MEASURE = {"dri_low", "dri_high"}


def assert_close(ref: dict, mine: dict, path: str = "") -> int:
    """Compare nested dicts; returns how many numbers were compared. At the top, the
    statistics reprokg adds are set aside (each must be there, for every side repro_eval
    reports)."""
    if not path:
        extra = set(mine) - set(ref)
        assert extra <= STATISTICS, extra
        for name in extra - PER_MEASURE:
            assert set(mine[name]) <= {"baseline", "advanced"}, name
        for name in extra & PER_MEASURE:  # like repro_eval's er and dri: no sides
            assert set(mine[name]) == set(ref["dri"]), name
        mine = {k: v for k, v in mine.items() if k in ref}
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


#: compare() in a fresh interpreter, every run but the first evaluated in a forked child:
#: pytest's process may hold threads (then nothing forks), a fresh one holds none
FORKED_COMPARE = r"""
import json, sys
from reprokg.core import forked
from reprokg.loaders.trec_files import read_qrels, read_run
from reprokg.measures import comparison

started = []
def in_child(fn, **kw):
    later = forked.in_child(fn)  # forked whatever the machine's load
    started.append(later.forked)
    return later

comparison.CHILD_MIN_LINES = 0
comparison.in_child = in_child
a = json.loads(sys.argv[1])
result = comparison.compare(
    read_qrels(a["qrels"]),
    *[read_run(p) if p else None for p in a["runs"]],
    qrels_rpl=read_qrels(a["qrels_rpl"]) if a["qrels_rpl"] else None,
)
print(json.dumps({"forked": started, "kind": result.kind, "measures": result.measures}))
"""

Compare = Callable[..., tuple[str, dict]]


@pytest.fixture(params=["in this process", "in a forked child"])
def evaluation(request, monkeypatch) -> Compare:
    """compare() with the runs but the first evaluated here, or in a forked child
    (measures/comparison): the numbers must equal repro_eval's both ways."""

    def here(qrels, *runs, qrels_rpl=None) -> tuple[str, dict]:
        monkeypatch.setattr(comparison, "CHILD_MIN_LINES", 10**12)
        rpl = read_qrels(qrels_rpl) if qrels_rpl else None
        result = compare(read_qrels(qrels), *map(read_run, runs), qrels_rpl=rpl)
        return result.kind, result.measures

    def in_child(qrels, *runs, qrels_rpl=None) -> tuple[str, dict]:
        if not sys.platform.startswith("linux") or len(os.sched_getaffinity(0)) < 2:
            pytest.skip("not Linux, or one CPU: in_child computes in the parent here")
        paths = [str(r) for r in runs] + [None] * (4 - len(runs))
        arg = {"qrels": str(qrels), "runs": paths, "qrels_rpl": qrels_rpl and str(qrels_rpl)}
        proc = subprocess.run(
            [sys.executable, "-c", FORKED_COMPARE, json.dumps(arg)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        assert out["forked"] == [True]  # the child really evaluated
        return out["kind"], out["measures"]

    return here if request.param == "in this process" else in_child


@pytest.mark.slow
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
    kind, measures = evaluation(runs["q17"], runs["ob"], runs["rb"], runs["oa"], runs["ra"])
    assert kind == "same-collection"
    n = assert_close(ref, measures)
    assert n > 5 * 58  # every measure family over the 58 effectiveness measures


@pytest.mark.slow
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
    kind, measures = evaluation(
        runs["q17"], runs["ob"], runs["xb"], runs["oa"], runs["xa"], qrels_rpl=runs["q18"]
    )
    assert kind == "cross-collection"
    # no paired statistics; the runs' means are there on both kinds
    assert set(measures) == {
        "pvalue",
        "er",
        "dri",
        "original_mean",
        "reproduced_mean",
        "pvalue_adjusted",
    }
    assert assert_close(ref, measures) > 2 * 58


@pytest.mark.slow
def test_baseline_only_equals_repro_eval(runs, evaluation):
    ev = RpdEvaluator(
        qrels_orig_path=str(runs["q17"]),
        run_b_orig_path=str(runs["ob"]),
        run_b_rep_path=str(runs["rb"]),
    )
    ev.trim()
    ev.evaluate()
    ref = {"ktu": ev.ktu(), "rbo": ev.rbo(), "rmse": ev.rmse(), "pvalue": ev.ttest()}
    _kind, measures = evaluation(runs["q17"], runs["ob"], runs["rb"])
    assert "er" not in measures and "dri" not in measures
    mine = {k: measures[k] for k in ref}
    assert assert_close(ref, mine) > 58
