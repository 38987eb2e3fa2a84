"""Each edge case of the measures has a stated outcome: a value, or ``None`` plus a warning.

Expected outcomes follow the policy in ``docs/comparisons.md``; numbers are worked out by
hand in the comments.
"""

from __future__ import annotations

import itertools
import json

import numpy as np

from reprokg.loaders.trec_files import Ranking, read_run
from reprokg.measures.comparison import compare
from reprokg.measures.rankings import _break_ties_reference, break_ties, prepare
from tests.conftest import need

QRELS = {
    "1": {"a": 1, "b": 1, "c": 0, "d": 1},
    "2": {"e": 1, "f": 0, "g": 1},
    "3": {"h": 1, "i": 1},
}


def run(text: str, name: str = "r"):
    return read_run(text.encode(), name)


BASE = run(
    "1 Q0 a 1 3 t\n1 Q0 c 2 2 t\n1 Q0 b 3 1 t\n"
    "2 Q0 f 1 3 t\n2 Q0 e 2 2 t\n2 Q0 g 3 1 t\n"
    "3 Q0 x 1 2 t\n3 Q0 h 2 1 t\n"
)
ADV = run(
    "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 d 3 1 t\n"
    "2 Q0 e 1 3 t\n2 Q0 g 2 2 t\n2 Q0 f 3 1 t\n"
    "3 Q0 h 1 2 t\n3 Q0 i 2 1 t\n"
)


def test_topic_in_one_run_only():
    rep = run(
        "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n2 Q0 f 1 3 t\n2 Q0 g 2 2 t\n2 Q0 e 3 1 t\n"
    )  # no topic 3
    c = compare(QRELS, BASE, rep)
    assert any("topics not in both runs" in w and "3" in w for w in c.warnings)
    # paired measures over topics 1 and 2 only; all defined
    assert c.measures["ktu"]["baseline"] is not None
    assert set(c.measures["rmse"]["baseline"]) >= {"AP", "P@10"}
    json.dumps(c.to_json())  # JSON-serialisable (no NaN)


def test_runs_shorter_than_cutoff_and_of_different_length():
    short = run("1 Q0 a 1 3 t\n1 Q0 c 2 2 t\n2 Q0 f 1 3 t\n2 Q0 e 2 2 t\n3 Q0 x 1 2 t\n")
    c = compare(QRELS, BASE, short)
    assert any("different lengths" in w for w in c.warnings)
    # topic 1: first two docs identical (a c / a c) -> tau 1; topic 2 likewise (f e / f e);
    # topic 3: one common-depth document -> undefined, left out of the mean
    assert c.measures["ktu"]["baseline"] == 1.0
    assert any("undefined" in w and "KTU" in w for w in c.warnings)


def test_duplicate_docids_keep_first_occurrence():
    dup = run("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 a 3 1 t\n", "dup.run")
    assert dup.topics["1"].docs == ["a", "b"]
    assert dup.topics["1"].scores.tolist() == [3.0, 2.0]
    assert dup.warnings and "1 duplicate" in dup.warnings[0]
    c = compare(QRELS, dup, dup)
    assert any("duplicate" in w for w in c.warnings)


def test_score_ties_broken_like_repro_eval():
    # adjacent equal scores are reordered by docid descending; the file order stays otherwise
    r = run("1 Q0 b 1 2 t\n1 Q0 c 2 2 t\n1 Q0 a 3 2 t\n1 Q0 z 4 5 t\n1 Q0 y 5 1 t\n")
    assert prepare(r).topics["1"].docs == ["c", "b", "a", "z", "y"]
    # the vectorised version equals repro_eval's groupby code on random tied rankings
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(1, 30))
        docs = [f"d{int(i)}" for i in rng.choice(1000, size=n, replace=False)]
        scores = rng.integers(0, 4, size=n).astype(float)
        ranking = Ranking(docs, scores)
        got, ref = break_ties(ranking), _break_ties_reference(ranking)
        assert got.docs == ref.docs and got.scores.tolist() == ref.scores.tolist()


def test_reference_tie_breaking_is_repro_eval_code():
    try:
        from repro_eval.util import break_ties as re_break_ties
    except ImportError:
        re_break_ties = None
    need(re_break_ties is not None, "repro-eval==0.5.0 is not installed")

    docs = ["b", "c", "a", "z", "y", "x"]
    scores = [2.0, 2.0, 2.0, 5.0, 1.0, 1.0]
    ref = list(re_break_ties({"1": dict(zip(docs, scores, strict=True))})["1"])
    assert _break_ties_reference(Ranking(docs, np.asarray(scores))).docs == ref


def test_zero_original_improvement_gives_null_er():
    c = compare(QRELS, BASE, ADV, BASE, BASE)  # original advanced == original baseline
    assert set(c.measures["er"].values()) == {None}
    assert any(w.startswith("ER: original improvement is zero") for w in c.warnings)
    assert "dri" in c.measures  # DRI is defined (baseline means are not zero)


def test_constant_measure_gives_null_pvalue_with_warning():
    # rep differs from BASE only on topic 3, so P@5 differences are 0,0,x: defined;
    # P@1000 differences also vary; but SetP-like measures that are equal on every
    # topic have all-zero differences -> paired t undefined
    rep = run(
        "1 Q0 a 1 3 t\n1 Q0 c 2 2 t\n1 Q0 b 3 1 t\n"
        "2 Q0 f 1 3 t\n2 Q0 e 2 2 t\n2 Q0 g 3 1 t\n"
        "3 Q0 h 1 2 t\n3 Q0 x 2 1 t\n"
    )
    c = compare(QRELS, BASE, rep)
    p = c.measures["pvalue"]["baseline"]
    # same documents retrieved per topic -> P@5 identical on every topic -> undefined
    assert p["P@5"] is None
    # RR differs on topic 3 only (1/2 -> 1): defined
    assert p["RR"] is not None
    assert any(w.startswith("t-test baseline: t-test undefined") and "P@5" in w for w in c.warnings)


def test_no_judged_topic_does_not_crash():
    other = run("9 Q0 a 1 1 t\n9 Q0 b 2 0.5 t\n")
    c = compare(QRELS, other, other)
    assert any("no topic of the run is judged" in w for w in c.warnings)
    json.dumps(c.to_json())


def test_output_has_no_nan_or_inf():
    c = compare(QRELS, BASE, ADV, ADV, BASE)
    values = []

    def walk(x):
        if isinstance(x, dict):
            for v in x.values():
                walk(v)
        else:
            values.append(x)

    walk(c.measures)
    assert all(v is None or np.isfinite(v) for v in values)
    assert list(itertools.islice(c.measures, 7)) == [
        "ktu",
        "rbo",
        "rmse",
        "nrmse",
        "pvalue",
        "er",
        "dri",
    ]
