"""The vectorised paths of the measures against plain references written here.

The byte reader is checked against a line-by-line reading in this file (``str.split``
per line, ``#`` lines skipped, first occurrence of a docid kept); run-wide tie-breaking
against repro_eval's ``break_ties`` (kept verbatim in ``trec``); all-topic KTU and RBO
against the one-topic functions, value for value.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from reprokg.core.errors import LoadError
from reprokg.loaders.trec_files import read_run
from reprokg.measures import rankings
from reprokg.measures import reproducibility as rp


def _reference(text: str) -> tuple[dict[str, list[tuple[str, float]]], str | None]:
    topics: dict[str, list[tuple[str, float]]] = {}
    tag = None
    for line in text.split("\n"):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        t, _, d, _, s, tag = line.split()
        entries = topics.setdefault(t, [])
        if d not in [e[0] for e in entries]:
            entries.append((d, float(s)))
    return {t: topics[t] for t in sorted(topics)}, tag


CASES = [
    "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.5 t\n",
    "1 Q0 a 1 2.0 t",  # no final newline
    "\n\n  1\tQ0  a 1 2 t  \n\t\n1 Q0 b 2 1 t\n\n",  # tabs, runs of spaces, blank lines
    "# c\n  # indented\n1 Q0 a#1 1 3 t\n2 Q0 x 1 1_0 t\n",  # comments, '#' in a docid
    "2 Q0 a 1 3 t\n1 Q0 b 1 2 t\n2 Q0 c 2 1 t\n1 Q0 d 2 0 t\n",  # topics interleaved
    "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 a 3 1 t\n",  # duplicate docid
    "10 Q0 a 1 1e3 t\n9 Q0 b 1 -inf t\n100 Q0 verylongdocid-0123456789 1 .5 u\n",
    "1 Q0 a 1 1.0 t\r\n1 Q0 b 2 0.5 t\r\n",  # CRLF: text path
    "1 Q0 é 1 1.0 t\n1 Q0 e 2 0.5 t\n",  # non-ASCII: text path
    "",
    "# only a comment\n",
]


@pytest.mark.parametrize("text", CASES)
def test_reader_matches_line_reading(text: str):
    run = read_run(text.encode(), "r")
    topics, tag = _reference(text.replace("\r\n", "\n"))
    assert list(run.topics) == list(topics)
    for t, entries in topics.items():
        assert run.topics[t].docs == [d for d, _ in entries]
        assert run.topics[t].scores.tolist() == [s for _, s in entries]
    assert run.tag == tag
    assert bool(run.warnings) == ("1 Q0 a 3 1 t" in text)


@pytest.mark.parametrize(
    "text", ["1 Q0 a 1 1.0 t\n1 Q0 b 2 t\n", "1 Q0 a 1 1.0 t x\n", "1 Q0 a 1 one t\n"]
)
def test_reader_still_refuses_malformed_lines(text: str):
    with pytest.raises(LoadError):
        read_run(text.encode(), "bad")


def _random_pair(rng: np.random.Generator, topics: int) -> tuple[rankings.Run, rankings.Run]:
    lines = {0: [], 1: []}
    for t in range(topics):
        for side in (0, 1):
            n = int(rng.integers(0, 40))
            docs = rng.permutation(60)[:n]
            scores = np.sort(rng.integers(0, 6, size=n))[::-1]
            pairs = enumerate(zip(docs, scores, strict=True))
            lines[side] += [f"{t} Q0 D{d} {i} {s} r" for i, (d, s) in pairs]
    orig, rep = (read_run(("\n".join(lines[s]) + "\n").encode(), str(s)) for s in (0, 1))
    return orig, rep


@pytest.mark.parametrize("seed", range(5))
def test_tie_breaking_and_ktu_rbo_match_per_topic_references(seed: int):
    rng = np.random.default_rng(seed)
    orig, rep = _random_pair(rng, 8)
    rp.attach_codes(orig, rep)
    prepared = [rankings.prepare(r, depth=25) for r in (orig, rep)]
    for raw, done in zip((orig, rep), prepared, strict=True):
        for t, r in raw.topics.items():
            assert done.topics[t].docs == rankings._break_ties_reference(r).docs[:25]
    warnings: list[str] = []
    _, ktu = rp.ktu(prepared[0], prepared[1], warnings)
    _, rbo = rp.rbo(prepared[0], prepared[1], warnings)
    for t in prepared[0].topics.keys() & prepared[1].topics.keys():
        a, b = prepared[0].topics[t].docs, prepared[1].topics[t].docs
        n = min(len(a), len(b))
        ref = rp.ktu_topic(a[:n], b[:n]) if n >= 2 else math.nan
        assert ktu[t] == (None if math.isnan(ref) else ref)
        assert rbo[t] == rp.rbo_topic(a, b)


def test_discordant_pairs_match_scipy_and_brute_force() -> None:
    """The merge-sort count that replaced scipy's private ``_kendall_dis``."""
    from scipy import stats

    rng = np.random.default_rng(12)
    # lengths around the blocks compared whole (DISCORDANT_BLOCK = 16) and merged after
    lengths = (0, 1, 2, 3, 7, 15, 16, 17, 31, 33, 64, 100, 999, 1000, 1537)
    seqs = [rng.permutation(n) + 5 for n in lengths]
    got = rp.discordant_pairs(seqs)
    # keys past int32 (sequences x length x values > 2**31) take int64 keys
    big = rng.permutation(70_000)
    pairs = 70_000 * 69_999 // 2
    dis = int(rp.discordant_pairs([big])[0])
    tau = stats.kendalltau(np.arange(70_000), big).statistic
    assert (pairs - 2 * dis) / pairs == pytest.approx(tau, abs=1e-12)
    for s, dis in zip(seqs, got.tolist(), strict=True):
        n = len(s)
        if n <= 100:
            assert dis == sum(1 for i in range(n) for j in range(i + 1, n) if s[i] > s[j])
        if n >= 2:  # tau-b without ties is (pairs - 2 * discordant) / pairs
            pairs = n * (n - 1) // 2
            tau = stats.kendalltau(np.arange(n), s).statistic
            assert (pairs - 2 * dis) / pairs == pytest.approx(tau, abs=1e-12)


def test_default_measures_are_named_as_ir_measures_names_them_for_pytrec_eval() -> None:
    """The table the default evaluation calls pytrec_eval with (no ir-measures import) is
    ir-measures' own: one invocation, the same trec_eval names, every default 0."""
    import ir_measures

    from reprokg.measures.effectiveness import DEFAULT_MEASURES, TREC_EVAL_NAMES

    parsed = [ir_measures.parse_measure(n) for n in DEFAULT_MEASURES]
    evaluator = ir_measures.evaluator(parsed, {"1": {"d": 1}})
    (invoker,) = evaluator.invokers  # one pytrec_eval invocation, as the direct path makes
    provider = {str(m): key for key, (m, _) in invoker.measure_map.items()}
    assert provider == {n: TREC_EVAL_NAMES[n] for n in DEFAULT_MEASURES}
    assert {float(m.DEFAULT) for m in parsed} == {0.0}


def test_direct_evaluation_equals_ir_measures_on_real_runs(shared_data) -> None:
    """On the toy tutorial's real runs and qrels (a run lacking a judged topic included),
    the direct pytrec_eval path gives ir-measures' ``iter_calc`` values, topic for topic."""
    import ir_measures

    from reprokg.loaders.trec_files import read_qrels
    from reprokg.measures.effectiveness import DEFAULT_MEASURES, Evaluator

    toy = shared_data / "trec" / "toy"
    qrels = read_qrels(toy / "qrels.toy")
    qrels["999"] = {"x": 1}  # a judged topic no run has: scored with the defaults
    parsed = [ir_measures.parse_measure(n) for n in DEFAULT_MEASURES]
    for name in ("run_a", "run_b", "run_c"):
        run = read_run(toy / name)
        ref: dict[tuple[str, str], float] = {
            (m.query_id, str(m.measure)): m.value
            for m in ir_measures.iter_calc(parsed, qrels, run.nested())
        }
        mine = Evaluator(qrels)
        assert mine._parsed is None  # the direct path
        scores = mine.evaluate(run)
        for i, t in enumerate(scores.topics):
            for j, m in enumerate(scores.measures):
                assert scores.values[i, j] == ref.get((t, m), 0.0), (name, t, m)
