"""The toy runs of a published reproducibility tutorial (3 topics x 10 docs, runs a/b/c).

Expected values come from the qrels read by eye (documented inline) or from repro_eval
0.5.0 itself; nothing is computed by the code under test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reprokg.loaders.trec_files import read_qrels, read_run
from reprokg.measures import reproducibility as rp
from reprokg.measures.comparison import compare
from reprokg.measures.effectiveness import Evaluator
from reprokg.measures.registry import Options
from tests.conftest import need


@pytest.fixture(scope="module")
def toy(shared_data: Path) -> Path:
    return shared_data / "trec" / "toy"


def test_toy_precision_from_the_qrels(toy: Path):
    # topic 1 judges doc1-doc4 and doc105-doc110 relevant; run_a ranks doc1..doc10:
    # 4 relevant in the top 10, the first 4 ranks relevant -> P@5 = 4/5, RR = 1
    # run_b ranks doc25, doc23, doc1, doc24, doc105, ... on topic 1: relevant at 3 and 5..8
    q = read_qrels(toy / "qrels.toy")
    ev = Evaluator(q, ("P@5", "P@10", "RR"))
    a = ev.evaluate(read_run(toy / "run_a"))
    assert a.topics == ["1", "2", "3"]
    assert a.column("P@10")[0] == pytest.approx(0.4)
    assert a.column("P@5")[0] == pytest.approx(0.8)
    b = ev.evaluate(read_run(toy / "run_b"))
    assert b.column("RR")[0] == pytest.approx(1 / 3)
    assert b.column("P@10")[0] == pytest.approx(0.5)


def test_identical_runs(toy: Path):
    q = read_qrels(toy / "qrels.toy")
    a = read_run(toy / "run_a")
    c = compare(q, a, a, a, a)
    m = c.measures
    assert m["ktu"] == {"baseline": 1.0, "advanced": 1.0}
    assert all(v == 0 for v in m["rmse"]["baseline"].values())
    # repro_eval: all p-values undefined and identical scores -> 1.0
    assert set(m["pvalue"]["baseline"].values()) == {1.0}
    # zero improvement: ER undefined everywhere, stated, not crashed
    assert set(m["er"].values()) == {None}
    assert any(w.startswith("ER:") for w in c.warnings)


def test_rbo_of_identical_ten_document_runs_against_repro_eval(toy: Path):
    try:
        from repro_eval.measure.document_order import _rbo
    except ImportError:
        _rbo = None
    need(_rbo is not None, "repro-eval==0.5.0 is not installed")
    docs = read_run(toy / "run_a").topics["1"].docs
    assert len(docs) == 10
    ref = _rbo(docs, docs, 0.95, 1000)
    assert ref == pytest.approx(0.672, abs=5e-4)  # the number the issue quotes
    assert rp.rbo_topic(docs, docs) == pytest.approx(ref, abs=1e-12)
    # Webber's extrapolated RBO: identical rankings agree completely
    ext = rp.rbo_ext_topic(docs, docs)
    assert ext["ext"] == pytest.approx(1.0, abs=1e-12)
    assert ext["min"] <= ext["ext"] <= ext["max"] + 1e-12


def test_rbo_ext_bounds_on_disjoint_and_partial(toy: Path):
    a = ["a", "b", "c", "d"]
    disjoint = rp.rbo_ext_topic(a, ["w", "x", "y", "z"])
    assert disjoint["ext"] == 0.0 and disjoint["min"] == 0.0
    # Webber et al. eq. 32 by hand, p = 0.9, S = L = (a b c d) vs (b a c e): X = 0,2,3,3
    p = 0.9
    x = [0, 2, 3, 3]
    by_hand = (1 - p) / p * sum(x[d - 1] / d * p**d for d in range(1, 5)) + x[3] / 4 * p**4
    part = rp.rbo_ext_topic(a, ["b", "a", "c", "e"], p=p)
    assert part["ext"] == pytest.approx(by_hand, abs=1e-12)
    assert part["min"] <= part["ext"] <= part["max"]
    # uneven lengths, S = (a b), L = (b c a): X1 = 0, X2 = 1, X3 = 2 (X_s = 1, X_l = 2);
    # eq. 32: (1-p)/p * [0 + 1/2 p^2 + 2/3 p^3 + X_s (3-2)/(2*3) p^3] + [(2-1)/3 + 1/2] p^3
    by_hand = (1 - p) / p * (0.5 * p**2 + 2 / 3 * p**3 + 1 / 6 * p**3) + (1 / 3 + 1 / 2) * p**3
    uneven = rp.rbo_ext_topic(["a", "b"], ["b", "c", "a"], p=p)
    assert uneven["ext"] == pytest.approx(by_hand, abs=1e-12)
    assert uneven["min"] <= uneven["ext"] <= uneven["max"]


def test_toy_comparison_equals_repro_eval(toy: Path):
    try:
        from repro_eval.Evaluator import RpdEvaluator
    except ImportError:
        RpdEvaluator = None
    need(RpdEvaluator is not None, "repro-eval==0.5.0 is not installed")
    ev = RpdEvaluator(
        qrels_orig_path=str(toy / "qrels.toy"),
        run_b_orig_path=str(toy / "run_a"),
        run_a_orig_path=str(toy / "run_b"),
        run_b_rep_path=str(toy / "run_c"),
        run_a_rep_path=str(toy / "run_b"),
    )
    ev.trim()
    ev.evaluate()
    c = compare(
        read_qrels(toy / "qrels.toy"),
        read_run(toy / "run_a"),
        read_run(toy / "run_c"),
        read_run(toy / "run_b"),
        read_run(toy / "run_b"),
    )
    for role in ("baseline", "advanced"):
        assert c.measures["ktu"][role] == pytest.approx(ev.ktu()[role], abs=1e-9)
        assert c.measures["rbo"][role] == pytest.approx(ev.rbo()[role], abs=1e-9)
        for name, value in ev.rmse()[role].items():
            assert c.measures["rmse"][role][name] == pytest.approx(value, abs=1e-9)
    for name, value in ev.er().items():
        mine = c.measures["er"][name]
        assert (
            (mine is None)
            if value != value or abs(value) == float("inf")
            else (mine == pytest.approx(value, abs=1e-9))
        )


def test_score_ordered_variant_differs_only_when_file_order_is_not_score_order():
    q = {"1": {"a": 1, "b": 0, "c": 1}}
    shuffled = read_run(b"1 Q0 c 1 1.0 t\n1 Q0 a 2 3.0 t\n1 Q0 b 3 2.0 t\n", "x")
    ordered = read_run(b"1 Q0 a 1 3.0 t\n1 Q0 b 2 2.0 t\n1 Q0 c 3 1.0 t\n", "y")
    file_order = compare(q, ordered, shuffled)
    score_order = compare(q, ordered, shuffled, options=Options(order="score"))
    # by score both runs rank a, b, c: same ranking; in file order c a b vs a b c
    assert score_order.measures["ktu"]["baseline"] == 1.0
    assert file_order.measures["ktu"]["baseline"] < 1.0
    # effectiveness (trec_eval sorts by score) is the same either way
    assert file_order.measures["rmse"] == score_order.measures["rmse"]
