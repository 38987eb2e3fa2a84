"""The one TREC reader: reading run lines once gives what the line-by-line reader gives,
and qrels are read one way for the qrels document and for the measures."""

from __future__ import annotations

from pathlib import Path

import pytest

from reprokg.core.errors import LoadError
from reprokg.loaders.trec_files import parse_qrels_text, parse_run_text, read_run, summarise

IRREGULAR_RUNS = [
    "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.5 t\n",
    "1 Q0 a 1 2.0 t",  # no final newline
    "\n\n  1\tQ0  a 1 2 t  \n\t\n1 Q0 b 2 1 t\n\n",  # blank lines, tabs, trailing spaces
    "# c\n  # indented\n1 Q0 a#1 1 3 t\n2 Q0 x 1 1_0 t\n",  # comments, '#' inside a docno
    "2 Q0 a 1 3 t\n1 Q0 b 1 2 t\n2 Q0 c 2 1 t\n1 Q0 d 2 0 t\n",  # topics interleaved
    "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 a 3 1 t\n",  # a repeated docid
    "10 Q0 a 1 1e3 t\n9 Q0 b 1 -inf t\n100 Q0 verylongdocid-0123456789 1 .5 u\n",  # two tags
    "1 Q0 \u00e9 1 1.0 t\n1 Q0 e 2 0.5 t\n",  # non-ASCII docid
    "1 Q0 a 1 1.0 t \n",  # trailing space on the last line
]


def _line_by_line(text: str, first_line: int):
    """The reference: the line-by-line summary and a reader pass over its lines."""
    lines = [(first_line + i, t) for i, t in enumerate(text.split("\n"))]
    summary = summarise(lines, "r")
    return summary, read_run(summary.data, "r")


def _check(text: str, first_line: int = 1) -> None:
    parsed = parse_run_text(text, "r", first_line)
    summary, run = _line_by_line(text, first_line)
    assert parsed.summary == summary
    assert parsed.run.nested() == run.nested()
    assert list(parsed.run.topics) == list(run.topics)
    for t in run.topics:
        assert parsed.run.topics[t].docs == run.topics[t].docs
    assert parsed.run.tag == run.tag and parsed.run.warnings == run.warnings


@pytest.mark.parametrize("text", IRREGULAR_RUNS)
def test_one_pass_equals_the_line_reader(text: str) -> None:
    _check(text)
    _check(text, first_line=40)  # after a 38-line header


def test_one_pass_equals_the_line_reader_on_real_runs(shared_data: Path) -> None:
    files = [
        *sorted((shared_data / "trec" / "toy").glob("run_*")),
        shared_data / "trec" / "trec_eval_fixtures" / "results.test",
        shared_data / "trec" / "trec_eval_fixtures" / "results.comment.test",
    ]
    for f in files:
        _check(f.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("1 Q0 a 1 1.0 t\n1 Q0 b 2 t\n", 2),
        ("1 Q0 a 1 1.0 t x\n", 1),
        ("1 Q0 a 1 one t\n", 1),
        ("1 Q0 a one 1.0 t\n", 1),
    ],
)
def test_malformed_run_lines_are_located(text: str, line: int) -> None:
    with pytest.raises(LoadError) as exc:
        parse_run_text(text, "bad.run", 7)
    assert exc.value.line == line + 6 and exc.value.source == "bad.run"


def _qrels_by_hand(text: str) -> tuple[dict[str, dict[str, int]], bytes, str | None]:
    """Judgements, normalised lines and the leading collection comment, written out."""
    judged: dict[str, dict[str, int]] = {}
    kept, collection = [], None
    for line in text.split("\n"):
        if not line.strip():
            continue
        if line.strip().startswith("#"):
            if not kept and collection is None and ":" in line:
                key, _, value = line.strip("# \t").partition(":")
                if key.strip().lower() in ("ir_datasets", "collection"):
                    collection = value.strip()
            continue
        topic, it, doc, rel = line.split()
        judged.setdefault(topic, {})[doc] = int(rel)
        kept.append(" ".join((topic, it, doc, rel)))
    return judged, ("\n".join(kept) + "\n").encode(), collection


@pytest.mark.parametrize(
    "relpath",
    [
        "trec/qrels/core17.txt",
        "trec/qrels/robust05.txt",
        "trec/toy/qrels.toy",
        "trec/trec_eval_fixtures/qrels.test",
        "trec/trec_eval_fixtures/qrels.comment.test",
        "trec/trec_eval_fixtures/qrels.test.with-comments",
    ],
)
def test_qrels_read_once_for_the_document_and_the_measures(shared_data: Path, relpath: str):
    text = (shared_data / relpath).read_text(encoding="utf-8")
    parsed = parse_qrels_text(text, relpath)
    judged, data, collection = _qrels_by_hand(text)
    assert parsed.qrels == judged and list(parsed.qrels) == sorted(judged)
    assert parsed.data == data
    assert parsed.topics == len(judged)
    assert parsed.judgements == data.count(b"\n")
    assert parsed.collection == collection


def test_qrels_relevance_the_columnar_reader_leaves_to_int() -> None:
    """Signed and 19-digit relevance values are read by ``int`` (the text path), unsigned
    ones column-wise: the judgements are ``int``'s either way."""
    text = "1 0 a -1\n1 0 b 2\n2 0 c 0012\n2 0 d 1234567890123456789\n"
    parsed = parse_qrels_text(text, "q")
    assert parsed.qrels == {"1": {"a": -1, "b": 2}, "2": {"c": 12, "d": 1234567890123456789}}
    clean = parse_qrels_text("1 0 a 1\n1 0 b 0012\n", "q")
    assert clean.qrels == {"1": {"a": 1, "b": 12}}
    assert clean.data == b"1 0 a 1\n1 0 b 0012\n"


def test_qrels_collection_comment_and_errors() -> None:
    parsed = parse_qrels_text("# ir_datasets: nyt\n\n1 0 a 1\n1 0 b 0\n", "q")
    assert parsed.collection == "nyt" and parsed.first_line == 3
    with pytest.raises(LoadError) as exc:
        parse_qrels_text("1 0 a 1\n1 0 b one\n", "bad.qrels")
    assert (exc.value.line, exc.value.column, exc.value.field) == (2, 7, "qrels line.relevance")


def test_numbers_are_read_as_python_reads_them() -> None:
    """The columnar path casts byte strings with numpy; it must agree with ``float``/``int``
    (and refuse what they refuse), since the line reader is the reference."""
    import numpy as np

    from reprokg.loaders.trec_files import _numbers, _token_bounds

    tokens = [b"1", b"-0", b"1e3", b".5", b"5.", b"1_0", b"inf", b"-inf", b"Infinity", b"+3"]
    tokens += [b"0.1000000000000000055511151231257827", b"1e-400", b"1e400", b"9007199254740993"]
    raw, starts, ends = _token_bounds(b"\n".join(tokens), 1)
    got = _numbers(raw, starts[:, 0], ends[:, 0], np.float64)
    assert got.tolist() == [float(t) for t in tokens]
    for bad in (b"0x10", b"--1", b"1.2.3", b"one"):
        raw, starts, ends = _token_bounds(bad, 1)
        with pytest.raises(ValueError):
            _numbers(raw, starts[:, 0], ends[:, 0], np.float64)
    raw, starts, ends = _token_bounds(b"12\n-3\n+4", 1)
    assert _numbers(raw, starts[:, 0], ends[:, 0], np.int64).tolist() == [12, -3, 4]


def test_plain_decimals_are_bitwise_what_float_reads() -> None:
    """The column-wise decimal reader (Clinger's fast path) against Python's ``float``,
    bit for bit (signed zeros included), on the forms run files hold and on the edges of
    the fast path: 15-18 digits, mantissas around 2**53, 22 and 23 decimals, leading zeros;
    tokens outside it must come back from numpy's cast with the same value."""
    import random

    import numpy as np

    from reprokg.loaders.trec_files import _numbers, _plain_decimals, _token_bounds

    rng = random.Random(12)
    tokens = [b"0", b"-0", b"-0.0", b"+0.5", b".5", b"5.", b"-.25", b"007.50", b"1.000"]
    tokens += [b"9007199254740992", b"9007199254740993", b"0.9007199254740993", b"-12.5e3"]
    tokens += [b"1" + b"0" * 17, b"1" * 18, b"1" * 19, b"0." + b"0" * 21 + b"7"]
    tokens += [b"0." + b"0" * 22 + b"7", b"3.14159265358979311599796346854"]
    for _ in range(3000):
        mantissa = str(rng.randrange(10 ** rng.randint(1, 19)))
        cut = rng.randint(0, len(mantissa))
        token = mantissa[:cut] + "." + mantissa[cut:] if rng.random() < 0.8 else mantissa
        tokens.append((rng.choice(["", "-", "+"]) + token).encode())
    tokens += [repr(rng.uniform(-50, 50)).encode() for _ in range(2000)]
    raw, starts, ends = _token_bounds(b"\n".join(tokens), 1)
    got = _numbers(raw, starts[:, 0], ends[:, 0], np.float64)
    want = np.asarray([float(t) for t in tokens])
    assert got.view(np.int64).tolist() == want.view(np.int64).tolist()
    # the fast path took most of them, and refused what it cannot read exactly
    from reprokg.loaders.trec_files import _fixed

    _values, plain = _plain_decimals(_fixed(raw, starts[:, 0], ends[:, 0]))
    assert plain.mean() > 0.5
    refused = {t for t, p in zip(tokens, plain.tolist(), strict=True) if not p}
    assert {b"9007199254740993", b"-12.5e3", b"1" * 19, b"0." + b"0" * 22 + b"7"} <= refused


@pytest.mark.parametrize("rank", ["+1", "1_0", "-2", "007"])
def test_ranks_int_accepts_go_the_line_reader_way(rank: str) -> None:
    _check(f"1 Q0 a {rank} 2.0 t\n1 Q0 b 2 1.0 t\n")
