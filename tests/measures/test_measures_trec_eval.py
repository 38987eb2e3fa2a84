"""Run/qrels reading against trec_eval 10's own fixtures and expected outputs.

trec_eval's ``out.*`` files are the reference: the per-run means printed there (4 decimals)
must be what ir-measures computes on the runs and qrels *as we read them* — which checks
that ``#`` comment lines are skipped and that a docno containing ``#`` is kept.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reprokg.core.errors import LoadError
from reprokg.loaders.trec_files import read_qrels, read_run
from reprokg.measures.effectiveness import Evaluator

#: trec_eval name -> ir-measures name
NAMES = {
    "map": "AP",
    "Rprec": "Rprec",
    "bpref": "Bpref",
    "recip_rank": "RR",
    **{f"iprec_at_recall_{r / 10:.2f}": f"IPrec@{r / 10:.1f}" for r in range(11)},
    **{f"P_{k}": f"P@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)},
}


#: trec_eval prints 4 decimals
TOL = 5.0001e-5
#: interpolated precision at recall levels: ir-measures (pytrec_eval, trec_eval 9 code)
#: differs from trec_eval 10.0's printed values on these fixtures (10.0 changed how the
#: recall cut-offs are compared). repro_eval uses ir-measures, so we keep its numbers;
#: the divergence is pinned by an xfail(strict) test below.
IPREC = {k for k in NAMES if k.startswith("iprec")}


def trec_eval_out(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        name, _all, value = line.split()
        out[name] = value
    return out


@pytest.fixture(scope="module")
def fixtures(shared_data: Path) -> Path:
    return shared_data / "trec" / "trec_eval_fixtures"


@pytest.mark.parametrize(
    ("results", "qrels", "out"),
    [
        ("results.test", "qrels.test", "out.test"),
        ("results.test", "qrels.test.with-comments", "out.test"),
        ("results.comment.test", "qrels.comment.test", "out.comment.test"),
    ],
)
def test_means_equal_trec_eval_output(fixtures: Path, results: str, qrels: str, out: str):
    expected = trec_eval_out(fixtures / out)
    run = read_run(fixtures / results)
    q = read_qrels(fixtures / qrels)
    scores = Evaluator(q, tuple(NAMES.values())).evaluate(run)
    assert len(scores.topics) == int(expected["num_q"])
    judged = [t for t in run.topics if t in q]
    assert sum(len(run.topics[t].docs) for t in judged) == int(expected["num_ret"])
    assert sum(1 for t in q for r in q[t].values() if r > 0) == int(expected["num_rel"])
    means = scores.means()
    for te_name, im_name in NAMES.items():
        if te_name in IPREC:
            continue
        assert means[im_name] == pytest.approx(float(expected[te_name]), abs=TOL), te_name


@pytest.mark.xfail(strict=True, reason="ir-measures' IPrec differs from trec_eval 10.0")
def test_iprec_equals_trec_eval_10(fixtures: Path):
    expected = trec_eval_out(fixtures / "out.comment.test")
    run = read_run(fixtures / "results.comment.test")
    means = Evaluator(read_qrels(fixtures / "qrels.comment.test"), tuple(NAMES.values()))
    got = means.evaluate(run).means()
    for te_name in sorted(IPREC):
        assert got[NAMES[te_name]] == pytest.approx(float(expected[te_name]), abs=TOL), te_name


def test_comment_lines_skipped_but_hash_in_docno_kept(fixtures: Path):
    q = read_qrels(fixtures / "qrels.test.with-comments")
    plain = read_qrels(fixtures / "qrels.test")
    # the file has three '# ...' lines; one of its judgements has docno 'CR#93E-1860'
    assert q["301"]["CR#93E-1860"] == 0
    assert "CR93E-1860" not in q["301"] and plain["301"]["CR93E-1860"] == 0
    assert sum(map(len, q.values())) == sum(map(len, plain.values()))
    run = read_run(fixtures / "results.comment.test")
    docs = run.topics["2024-224960"].docs
    assert docs[0] == "msmarco_v2.1_doc_50_2286987788#13_3087841662"


def test_comment_lines_in_run_and_indented_comment():
    text = (
        "# ir_metadata.start\n#   tag: x\n# ir_metadata.end\n"
        "1 Q0 a#1 1 2.0 t\n   # indented comment\n\n1 Q0 b 2 1.0 t\n"
    )
    run = read_run(text.encode(), "r.txt")
    assert run.topics["1"].docs == ["a#1", "b"]


def test_slow_and_fast_paths_agree():
    """Non-ASCII text takes the line parser; it must read the same run."""
    ascii_run = "2 Q0 d2 1 3.5 t\n1 Q0 d1 1 1.25 t\n1 Q0 d3 2 1.0 t\n2 Q0 d4 2 -1 t\n"
    fast = read_run(ascii_run.encode(), "a")
    slow = read_run(("# é\n" + ascii_run).encode(), "b")
    assert list(fast.topics) == list(slow.topics) == ["1", "2"]
    for t in fast.topics:
        assert fast.topics[t].docs == slow.topics[t].docs
        assert fast.topics[t].scores.tolist() == slow.topics[t].scores.tolist()


@pytest.mark.parametrize(
    ("text", "line", "what"),
    [
        ("1 Q0 a 1 1.0 t\n1 Q0 b 2 t\n", 2, "6 columns"),
        ("1 Q0 a 1 1.0 t\n1 Q0 b 2 x t\n", 2, "not a number"),
        ("1 Q0 a 1 1.0 t extra\n", 1, "6 columns"),
    ],
)
def test_malformed_run_names_the_line(text: str, line: int, what: str):
    with pytest.raises(LoadError) as exc:
        read_run(text.encode(), "bad.run")
    assert exc.value.line == line and what in exc.value.message
    assert str(exc.value).startswith(f"bad.run:{line}")


def test_malformed_qrels_names_the_line():
    with pytest.raises(LoadError) as exc:
        read_qrels(b"1 0 a 1\n1 0 b one\n", "bad.qrels")
    assert exc.value.line == 2 and exc.value.field == "qrels line.relevance"
