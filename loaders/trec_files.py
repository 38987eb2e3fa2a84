"""The one reader of TREC runs (``qid Q0 docno rank score tag``) and qrels
(``qid iteration docno relevance``), as trec_eval 10 and repro_eval 0.5.0 read them.

trec_eval 10 accepts comment lines (first non-blank character ``#``) in runs and qrels;
a ``#`` inside a docno (``msmarco_v2.1_doc_50_2286987788#13_3087841662``) is data, not
a comment, so only whole lines are skipped. Topics are kept in string-sorted order and
each topic's documents in file order (repro_eval's ``load_run``), because KTU and RBO
compare rankings in file order.

The run loader and the measures read run lines through :func:`parse_run_text` once: one
columnar pass gives both the summary the graph stores (topics, documents per topic, tags
and the normalised lines kept as an attachment) and the rankings the measures compare.
Clean ASCII tables take a vectorised path; anything irregular is read line by line, which
reports the exact line and column of an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from operator import itemgetter
from pathlib import Path

import numpy as np

from reprokg.core.errors import LoadError
from reprokg.core.hashing import content_hash
from reprokg.loaders.reading.limits import check_lines
from reprokg.loaders.reading.source import decode_text, read_bytes

#: Columns of a TREC run line.
RUN_COLUMNS = ("topic", "iteration", "docno", "rank", "score", "tag")
#: a TREC run line (topic Q0 docno rank score tag): a file starting so has no YAML header
RUN_LINE = re.compile(r"^\s*\S+\s+\S+\s+\S+\s+-?\d+\s+\S+\s+\S+\s*$")
_NOT_SPACE = re.compile(r"\S")


def first_nonblank_line(text: str) -> str:
    """The first non-blank line of ``text`` ("" when there is none), found without
    splitting the whole text into lines."""
    m = _NOT_SPACE.search(text)
    if m is None:
        return ""
    start = text.rfind("\n", 0, m.start()) + 1
    end = text.find("\n", m.start())
    return text[start:] if end < 0 else text[start:end]


@dataclass
class RunSummary:
    """What the graph says about the run lines; the lines live in the attachment."""

    lines: int = 0
    topics: int = 0
    min_docs: int = 0
    max_docs: int = 0
    mean_docs: float = 0.0
    tags: list[str] = field(default_factory=list)
    #: first line number (1-based, in the whole file) where each tag occurs
    tag_lines: dict[str, int] = field(default_factory=dict)
    #: the run lines, normalised (LF ends, comments dropped), as stored in the attachment
    data: bytes = b""
    #: line number (1-based, in the whole file) of the first run line
    first_line: int = 0

    @cached_property
    def sha256(self) -> str:
        """Asked for by the document, its run-file node and the comparison: hashed once."""
        return content_hash(self.data)


def is_comment(line: str) -> bool:
    """A whole-line comment as trec_eval 10 reads it (first non-blank char is ``#``)."""
    return line.lstrip().startswith("#")


def parse_run_line(line: str, lineno: int, name: str) -> tuple[str, str, str, int, float, str]:
    """One run line split and type-checked; errors name the file, line and column."""
    parts = line.split()
    if len(parts) != 6:
        raise LoadError(
            f"run line has {len(parts)} columns; expected 6: topic Q0 docno rank score tag",
            source=name,
            line=lineno,
            field="run line",
        )
    topic, it, docno, rank_s, score_s, tag = parts
    try:
        rank = int(rank_s)
    except ValueError:
        raise LoadError(
            f"rank {rank_s!r} is not an integer (column 4 of: topic Q0 docno rank score tag)",
            source=name,
            line=lineno,
            column=line.find(rank_s) + 1,
            field="run line.rank",
        ) from None
    try:
        score = float(score_s)
    except ValueError:
        raise LoadError(
            f"score {score_s!r} is not a number (column 5 of: topic Q0 docno rank score tag)",
            source=name,
            line=lineno,
            column=line.find(score_s, line.find(rank_s) + len(rank_s)) + 1,
            field="run line.score",
        ) from None
    return topic, it, docno, rank, score, tag


def summarise(lines: list[tuple[int, str]], name: str) -> RunSummary:
    """Summary of ``(line number, text)`` pairs; blank and comment lines are skipped."""
    per_topic: dict[str, int] = {}
    tag_lines: dict[str, int] = {}
    kept: list[str] = []
    first = 0
    for lineno, text in lines:
        if not text.strip() or is_comment(text):
            continue
        first = first or lineno
        topic, _it, _docno, _rank, _score, tag = parse_run_line(text, lineno, name)
        per_topic[topic] = per_topic.get(topic, 0) + 1
        tag_lines.setdefault(tag, lineno)
        kept.append(text.rstrip("\r\n"))
    counts = list(per_topic.values())
    return RunSummary(
        lines=len(kept),
        topics=len(per_topic),
        min_docs=min(counts) if counts else 0,
        max_docs=max(counts) if counts else 0,
        mean_docs=(sum(counts) / len(counts)) if counts else 0.0,
        tags=sorted(tag_lines),
        tag_lines=tag_lines,
        data=("\n".join(kept) + "\n").encode("utf-8") if kept else b"",
        first_line=first,
    )


@dataclass
class Ranking:
    """One topic's documents in ranking order, with their scores."""

    docs: list[str]
    scores: np.ndarray
    #: optional sort keys of ``docs``: equal docids have equal keys and keys order as the
    #: docids do (code point order). Integer codes shared with another ranking, or the
    #: docids' UTF-8 bytes (numpy ``S``, NUL-free) as the fast reader leaves them.
    codes: np.ndarray | None = None

    def take(self, order: np.ndarray | slice) -> Ranking:
        """The ranking reordered or cut by ``order`` (codes follow)."""
        if isinstance(order, slice):
            docs = self.docs[order]
        elif len(order) == 1:
            docs = [self.docs[int(order[0])]]
        else:
            docs = list(itemgetter(*order.tolist())(self.docs)) if len(order) else []
        codes = None if self.codes is None else self.codes[order]
        return Ranking(docs, self.scores[order], codes)


@dataclass
class Run:
    """A TREC run: topic -> :class:`Ranking`; topics sorted as strings."""

    name: str
    topics: dict[str, Ranking]
    tag: str | None = None
    #: what the reader did that a person should know (duplicates dropped, ...)
    warnings: list[str] = field(default_factory=list)

    def nested(self) -> dict[str, dict[str, float]]:
        """``{topic: {doc: score}}`` as ir_measures/pytrec_eval take it."""
        return {
            t: dict(zip(r.docs, r.scores.tolist(), strict=True)) for t, r in self.topics.items()
        }

    def __len__(self) -> int:
        return sum(len(r.docs) for r in self.topics.values())


Qrels = dict[str, dict[str, int]]


def _text(source: str | Path | bytes, name: str | None) -> tuple[str, str]:
    data, display = read_bytes(source, name)
    return decode_text(data, display), display


def _is_comment(line: str) -> bool:
    """Blank lines and trec_eval's whole-line comments (the run loader's rule) are skipped."""
    return not line.strip() or is_comment(line)


_COMMENT_LINE = re.compile(r"^[ \t]*#[^\n]*(?:\n|$)", re.MULTILINE)
#: whitespace str.split() knows but the pandas tokenizer does not: use the slow path
_ODD_SPACE = "\r\x0b\x0c\x1c\x1d\x1e\x1f"


def _fast_columns(text: str, ncols: int) -> list[list[str]] | None:
    """Columns of a clean whitespace table, or None to parse line by line.

    Only pure-ASCII text without exotic whitespace takes this path, so the tokens are
    exactly ``str.split()``'s; a vectorised count of tokens per line proves every
    non-blank line has ``ncols`` columns before the flat token list is sliced into
    columns. Anything irregular goes to the line parser, which reports the exact line.
    """
    if not text.isascii() or any(c in text for c in _ODD_SPACE):
        return None
    if "#" in text:
        text = _COMMENT_LINE.sub("", text)
    raw = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    if raw.size == 0:
        return [[] for _ in range(ncols)]
    newline = raw == 10
    space = (raw == 32) | (raw == 9) | newline
    starts = np.flatnonzero(~space & np.concatenate(([True], space[:-1])))
    # tokens per line = token starts between consecutive newlines
    ends = np.append(np.flatnonzero(newline), raw.size)
    per_line = np.diff(np.searchsorted(starts, ends), prepend=0)
    if not np.all((per_line == 0) | (per_line == ncols)):
        return None
    tokens = text.split()
    return [tokens[i::ncols] for i in range(ncols)]


def read_run(source: str | Path | bytes, name: str | None = None) -> Run:
    """Parse a TREC run (6 whitespace-separated columns); ``#`` comment lines are skipped.

    A docid repeated within a topic keeps its first occurrence (position and score) and
    is reported in ``warnings``: trec_eval refuses such runs and repro_eval silently keeps
    the first position with the last score, neither of which a reader can see.
    """
    data, display = read_bytes(source, name)
    fast = _read_run_bytes(data, display)
    if fast is not None:
        return fast
    text = decode_text(data, display)
    check_lines(text, display)  # line length and fields before anything splits lines
    cols = _fast_columns(text, 6)
    if cols is not None:
        try:
            scores = np.fromiter(map(float, cols[4]), dtype=float, count=len(cols[4]))
        except ValueError:
            pass
        else:
            return _group_run(display, cols[0], cols[2], scores, cols[5])
    return _read_run_lines(text, display)


_COMMENT_LINE_BYTES = re.compile(rb"^[ \t]*#[^\n]*(?:\n|$)", re.MULTILINE)


def _token_bounds(data: bytes, ncols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(bytes, token starts, token ends) of a clean ASCII table, ``ncols`` per line; or None.

    Pure ASCII whose only control bytes are tab and newline (no CR, NUL, other
    whitespace) has exactly the tokens ``str.split()`` gives on the decoded text. That
    every non-blank line has ``ncols`` tokens is proven vectorised: each group of
    ``ncols`` consecutive token starts lies on one line, and the next group on a later
    one. Starts and ends come back as ``(lines, ncols)`` arrays.
    """
    if not data.isascii():
        return None
    if b"#" in data:
        data = _COMMENT_LINE_BYTES.sub(b"", data)
    raw = np.frombuffer(data, dtype=np.uint8)
    space = np.empty(raw.size + 2, dtype=bool)
    space[0] = space[-1] = True
    np.less_equal(raw, 32, out=space[1:-1])
    newlines = np.flatnonzero(raw == 10)
    # every control byte below 32 other than tab and newline sends the file to the text path
    if np.count_nonzero(raw < 32) != len(newlines) + np.count_nonzero(raw == 9):
        return None
    edges = np.flatnonzero(space[1:] != space[:-1])  # token start, end, start, end, ...
    starts, ends = edges[0::2], edges[1::2]
    if len(starts) % ncols:
        return None
    if len(starts):
        first = np.searchsorted(newlines, starts[0::ncols])
        last = np.searchsorted(newlines, starts[ncols - 1 :: ncols])
        if not np.array_equal(first, last) or np.any(first[1:] <= last[:-1]):
            return None
    return raw, starts.reshape(-1, ncols), ends.reshape(-1, ncols)


def _fixed(raw: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The tokens ``raw[starts[i]:ends[i]]`` as a numpy ``S`` array (NUL-padded).

    Filled one byte column at a time (a docid is a few to a few dozen bytes), which
    touches less memory than gathering a full ``tokens x width`` index matrix.
    """
    lengths = ends - starts
    width = max(int(lengths.max()), 1)
    out = np.zeros((len(starts), width), dtype=np.uint8)
    for k in range(width):
        longer = lengths > k
        if longer.all():
            out[:, k] = raw[starts + k]
        else:
            out[longer, k] = raw[starts[longer] + k]
    return out.view(f"S{width}").ravel()


def _all_digits(raw: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> bool:
    """Every token ``raw[starts[i]:ends[i]]`` is ASCII digits only (an unsigned integer)."""
    return _digits_only(_fixed(raw, starts, ends))


def _digits_only(tokens: np.ndarray) -> bool:
    """Every token of a :func:`_fixed` array is ASCII digits only."""
    b = tokens.view(np.uint8)  # NUL-padded to the widest token
    return bool(np.all(((b >= 48) & (b <= 57)) | (b == 0)))


def _numbers(raw: np.ndarray, starts: np.ndarray, ends: np.ndarray, dtype: type) -> np.ndarray:
    """The tokens as numbers, parsed by numpy's cast of byte strings, which reads them as
    Python's ``float``/``int`` do (tests/loaders/test_trec.py); ValueError as they would.
    Floats in plain decimal notation take :func:`_plain_decimals` first."""
    tokens = _fixed(raw, starts, ends)
    if dtype is not np.float64:
        return tokens.astype(dtype)
    values, plain = _plain_decimals(tokens)
    if not plain.all():
        values[~plain] = tokens[~plain].astype(np.float64)
    return values


#: 10**k as floats, exact for k <= 22 (5**22 < 2**53)
_POWERS_OF_TEN = np.asarray([float(10**k) for k in range(23)])


def _plain_decimals(tokens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Floats of the tokens ``[+-]digits[.digits]`` whose digits make an integer m below
    2**53 with at most 22 decimals, and a mask of those tokens.

    Such a token is m / 10**k with both operands exact doubles, and IEEE division rounds
    the quotient correctly: it is the correctly rounded value ``float`` gives (Clinger's
    fast path, the first case of every correct strtod). Read one byte column at a time,
    about three times faster than numpy's cast, which took a third of a run file's parse.
    Other tokens (exponents, more digits, inf, nan, underscores) are left to the cast.
    """
    n = len(tokens)
    b = tokens.view(np.uint8).reshape(n, -1)
    d = b - np.uint8(48)  # a digit's value; other bytes wrap to 10 or more
    digit = d < 10
    dot = b == 46
    first = b[:, 0]
    negative = first == 45
    # a sign only first; NUL is the padding (tokens hold no NUL)
    plain = np.all(digit[:, 1:] | dot[:, 1:] | (b[:, 1:] == 0), axis=1)
    plain &= negative | (first == 43) | dot[:, 0] | digit[:, 0]
    mantissa = np.zeros(n, dtype=np.int64)
    digits = np.zeros(n, dtype=np.int64)
    decimals = np.zeros(n, dtype=np.int64)
    dots = np.zeros(n, dtype=np.int64)
    after_dot = np.zeros(n, dtype=bool)
    for k in range(b.shape[1]):  # Horner's rule, one byte column at a time
        g = digit[:, k]
        mantissa = np.where(g, mantissa * 10 + d[:, k], mantissa)
        digits += g
        decimals += g & after_dot
        after_dot |= dot[:, k]
        dots += dot[:, k]
    # more than 18 digits may have wrapped int64: the cast reads those
    plain &= (dots <= 1) & (digits >= 1) & (digits <= 18) & (mantissa <= 2**53)
    plain &= decimals <= 22
    values = mantissa / _POWERS_OF_TEN[np.minimum(decimals, 22)]
    np.negative(values, out=values, where=negative)
    return values, plain


def _read_run_bytes(data: bytes, display: str) -> Run | None:
    """:func:`read_run` of a clean ASCII run without a Python object per token; or None.

    Only the docids become ``str`` (and ``S`` sort keys for the comparison's docid codes);
    scores are parsed by ``float`` as on the text path; topics are read once per block of
    consecutive lines. None (the text path decides) when anything is irregular.
    """
    bounds = _token_bounds(data, 6)
    if bounds is None:
        return None
    raw, starts, ends = bounds
    if len(starts) == 0:
        return Run(name=display, topics={})
    try:
        scores = _numbers(raw, starts[:, 4], ends[:, 4], np.float64)
    except (ValueError, OverflowError):
        return None
    return _run_from_columns(display, raw, starts, ends, scores)


def _run_from_columns(
    display: str,
    raw: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    scores: np.ndarray,
    topic_keys: np.ndarray | None = None,
) -> Run:
    """The rankings of a tokenised table: only the docids become ``str`` (and ``S`` sort
    keys for the comparison's docid codes); topics are read once per block of lines."""
    keys = _fixed(raw, starts[:, 2], ends[:, 2])
    # the docids as str from their keys (NUL-free ASCII: the padding is all they lose)
    docs = b"\n".join(keys.tolist()).decode("ascii").split("\n")
    if topic_keys is None:
        topic_keys = _fixed(raw, starts[:, 0], ends[:, 0])
    change = np.flatnonzero(topic_keys[1:] != topic_keys[:-1]) + 1
    block_starts = np.concatenate(([0], change)).tolist()
    block_ends = np.concatenate((change, [len(topic_keys)])).tolist()
    blocks: dict[str, list[tuple[int, int]]] = {}
    for t, a, b in zip(topic_keys[block_starts].tolist(), block_starts, block_ends, strict=True):
        blocks.setdefault(t.decode("ascii"), []).append((a, b))
    tag = raw[int(starts[-1, 5]) : int(ends[-1, 5])].tobytes().decode("ascii")
    return _assemble(display, blocks, docs, scores, tag, keys)


def _topic_blocks(topics: list[str]) -> dict[str, list[tuple[int, int]]]:
    """Spans ``[a, b)`` of each topic's lines; one span per topic when the file is grouped.

    The grouped case is proven with C-speed list operations: the spans between the first
    occurrences of successive topics tile the list, and each holds only its own topic.
    Otherwise every change of topic starts a span.
    """
    n = len(topics)
    uniq = list(dict.fromkeys(topics))
    bounds = [0]
    for t in uniq[1:]:
        bounds.append(topics.index(t, bounds[-1]))
    bounds.append(n)
    if all(
        topics[a:b].count(t) == b - a for t, a, b in zip(uniq, bounds[:-1], bounds[1:], strict=True)
    ):
        return {t: [(a, b)] for t, a, b in zip(uniq, bounds[:-1], bounds[1:], strict=True)}
    change = [0] + [i for i in range(1, n) if topics[i] != topics[i - 1]] + [n]
    blocks: dict[str, list[tuple[int, int]]] = {}
    for a, b in zip(change[:-1], change[1:], strict=True):
        blocks.setdefault(topics[a], []).append((a, b))
    return blocks


def _group_run(
    display: str,
    topics: list[str],
    docs: list[str],
    scores: np.ndarray,
    tags: list[str],
    keys: np.ndarray | None = None,
) -> Run:
    """Per-topic rankings in file order from flat columns; first occurrence of a docid wins."""
    n = len(topics)
    if n == 0:
        return Run(name=display, topics={})
    return _assemble(display, _topic_blocks(topics), docs, scores, tags[-1], keys)


def _assemble(
    display: str,
    blocks: dict[str, list[tuple[int, int]]],
    docs: list[str],
    scores: np.ndarray,
    tag: str,
    keys: np.ndarray | None,
) -> Run:
    """Per-topic rankings from each topic's line spans; first occurrence of a docid wins."""
    duplicates = 0
    result: dict[str, Ranking] = {}
    for t in sorted(blocks):
        spans = blocks[t]
        if len(spans) == 1:
            a, b = spans[0]
            d, sc = docs[a:b], scores[a:b]
            k = None if keys is None else keys[a:b]
        else:
            idx = np.concatenate([np.arange(a, b) for a, b in spans])
            d, sc = [docs[i] for i in idx.tolist()], scores[idx]
            k = None if keys is None else keys[idx]
        if len(set(d)) != len(d):
            first: dict[str, int] = {}
            for i, doc in enumerate(d):
                first.setdefault(doc, i)
            keep = sorted(first.values())
            duplicates += len(d) - len(keep)
            d, sc = [d[i] for i in keep], sc[keep]
            k = None if k is None else k[keep]
        result[t] = Ranking(list(d), np.asarray(sc, dtype=float), k)
    warnings = []
    if duplicates:
        warnings.append(
            f"{display}: {duplicates} duplicate docid line(s) ignored (first occurrence kept)"
        )
    return Run(name=display, topics=result, tag=tag, warnings=warnings)


def _read_run_lines(text: str, display: str) -> Run:
    """Line-by-line parser: the reference behaviour, with exact error positions."""
    per_topic: dict[str, tuple[list[str], list[float]]] = {}
    seen: dict[str, set[str]] = {}
    duplicates = 0
    tag: str | None = None
    for lineno, line in enumerate(text.split("\n"), start=1):
        if _is_comment(line):
            continue
        cols = line.split()
        if len(cols) != 6:
            raise LoadError(
                f"expected 6 columns (topic Q0 docid rank score tag), found {len(cols)}",
                source=display,
                line=lineno,
            )
        topic, _q0, doc, _rank, score_text, tag = cols
        try:
            score = float(score_text)
        except ValueError:
            raise LoadError(
                f"score {score_text!r} is not a number",
                source=display,
                line=lineno,
                column=line.find(score_text) + 1,
                field="score",
            ) from None
        entry = per_topic.get(topic)
        if entry is None:
            entry = per_topic[topic] = ([], [])
            seen[topic] = set()
        if doc in seen[topic]:
            duplicates += 1
            continue
        seen[topic].add(doc)
        entry[0].append(doc)
        entry[1].append(score)
    warnings = []
    if duplicates:
        warnings.append(
            f"{display}: {duplicates} duplicate docid line(s) ignored (first occurrence kept)"
        )
    topics = {
        t: Ranking(per_topic[t][0], np.asarray(per_topic[t][1], dtype=float))
        for t in sorted(per_topic)
    }
    return Run(name=display, topics=topics, tag=tag, warnings=warnings)


def read_qrels(source: str | Path | bytes, name: str | None = None) -> Qrels:
    """Parse TREC qrels (topic iteration docid relevance); ``#`` comment lines are skipped."""
    text, display = _text(source, name)
    return parse_qrels_text(text, display).qrels


@dataclass
class ParsedQrels:
    """Qrels read once: the judgements, and what the qrels document stores."""

    qrels: Qrels
    topics: int
    judgements: int
    #: the test collection a leading ``# ir_datasets: <id>`` comment names
    collection: str | None
    #: line number of the first judgement
    first_line: int
    #: the four token columns, from which ``data`` is written when asked for
    columns: list[list[str]] = field(repr=False, default_factory=list)

    @cached_property
    def data(self) -> bytes:
        """The lines normalised (tokens joined by one space, LF ends, comments dropped):
        what the qrels document stores and hashes (``reprokg compare`` needs neither)."""
        lines = "\n".join(map(" ".join, zip(*self.columns, strict=True))) + "\n"
        return lines.encode("utf-8")

    @cached_property
    def sha256(self) -> str:
        """The normalised lines' sha256: the qrels document's node and attachment key."""
        return content_hash(self.data)


_COLLECTION_COMMENT = re.compile(
    r"^\s*#\s*(?:ir_datasets|ir-datasets|test[ _]collection|collection)\s*:\s*(\S.*?)\s*$",
    re.IGNORECASE,
)


def parse_qrels_text(text: str, name: str) -> ParsedQrels:
    """The judgements of a qrels file; errors name the line and column (a clean table is
    read column-wise, anything else line by line)."""
    data = text.encode("utf-8")
    body = data[:-1] if data.endswith(b"\n") else data
    if _clean(body):
        fast = _qrels_columns(body)
        if fast is not None:
            return _parsed_qrels(*fast, None, 1)
        cols = _fast_columns(text, 4)
        if cols is not None:
            try:
                rels = list(map(int, cols[3]))
            except ValueError:
                pass
            else:
                return _parsed_qrels(cols, rels, None, 1)
    check_lines(text, name)  # before the line-by-line reader
    columns: list[list[str]] = [[], [], [], []]
    rels = []
    collection: str | None = None
    first = 0
    for lineno, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            m = _COLLECTION_COMMENT.match(line)
            if m and collection is None and not rels:
                collection = m.group(1)
            continue
        tokens = stripped.split()
        if len(tokens) != 4:
            raise LoadError(
                f"qrels line has {len(tokens)} columns; "
                "expected 4: topic iteration docno relevance",
                source=name,
                line=lineno,
                field="qrels line",
            )
        try:
            rel = int(tokens[3])
        except ValueError:
            raise LoadError(
                f"relevance {tokens[3]!r} is not an integer (column 4 of: topic iteration docno "
                "relevance)",
                source=name,
                line=lineno,
                column=line.rfind(tokens[3]) + 1,
                field="qrels line.relevance",
            ) from None
        first = first or lineno
        for column, token in zip(columns, tokens, strict=True):
            column.append(token)
        rels.append(rel)
    if not rels:
        raise LoadError("no qrels lines (topic iteration docno relevance) found", source=name)
    return _parsed_qrels(columns, rels, collection, first)


def _qrels_columns(body: bytes) -> tuple[list[list[str]], list[int]] | None:
    """The token columns and relevance of a clean ASCII qrels table whose relevance values
    are unsigned integers, without a Python object per token until the columns are made;
    None sends it to the text path (signed or odd relevance values: ``int`` reads those)."""
    bounds = _token_bounds(body, 4)
    if bounds is None or len(bounds[1]) == 0:
        return None
    raw, starts, ends = bounds
    keys = [_fixed(raw, starts[:, k], ends[:, k]) for k in range(4)]  # each column once
    relevance = keys[3]
    if relevance.dtype.itemsize > 18 or not _digits_only(relevance):
        return None  # int64 holds 18 digits
    columns = [b"\n".join(k.tolist()).decode("ascii").split("\n") for k in keys]
    return columns, relevance.astype(np.int64).tolist()


def _parsed_qrels(
    columns: list[list[str]], rels: list[int], collection: str | None, first_line: int
) -> ParsedQrels:
    """Judgements from the four token columns (relevance also parsed); a docid judged twice
    for a topic keeps its last judgement, as trec_eval."""
    topics, docs = columns[0], columns[2]
    judged: dict[str, dict[str, int]] = {}
    for t, spans in _topic_blocks(topics).items():
        d = judged.setdefault(t, {})
        for a, b in spans:
            d.update(zip(docs[a:b], rels[a:b], strict=True))
    return ParsedQrels(
        qrels={t: judged[t] for t in sorted(judged)},
        topics=len(judged),
        judgements=len(rels),
        collection=collection,
        first_line=first_line,
        columns=columns,
    )


# --------------------------------------------------------------------------- one pass


@dataclass
class ParsedRun:
    """Run lines read once: what the graph stores and what the measures compare."""

    summary: RunSummary
    run: Run


_BLANK_OR_COMMENT_AFTER_NEWLINE = re.compile(rb"\n[ \t]*(?:#|\n)")
_INDENT = re.compile(rb"[ \t]*")


def _clean(body: bytes) -> bool:
    """No comment, blank or whitespace-only line in ``body`` (its final newline cut off).

    Searched from each newline (a pattern that starts with a literal scans at C speed:
    a third of the time of one anchored at every position on a 50,000-line run)."""
    if not body:
        return False
    # the pattern matches the empty string
    indent = _INDENT.match(body).end()  # type: ignore[union-attr]
    first = body[indent : indent + 1]  # (lstrip and rsplit would copy the whole body)
    last = body[body.rfind(b"\n") + 1 :]
    if first in (b"#", b"\n", b"") or not last.strip(b" \t"):
        return False
    return _BLANK_OR_COMMENT_AFTER_NEWLINE.search(body) is None


def parse_run_text(text: str, name: str, first_line: int = 1) -> ParsedRun:
    """The run lines of a file (starting at line ``first_line``), parsed once.

    ``summary`` equals :func:`summarise` of the same lines and ``run`` equals
    :func:`read_run` of the summary's normalised lines (tests/loaders/test_trec.py checks
    both on real and irregular files). A clean table (ASCII, no comment or blank lines)
    is read column-wise without a Python object per token; anything else line by line.
    """
    fast = _parse_clean_bytes(text.encode("utf-8"), name, first_line)
    if fast is not None:
        return fast
    check_lines(text, name, line_offset=first_line - 1)  # before the line-by-line reader
    lines = text.split("\n")
    summary = summarise([(first_line + i, t) for i, t in enumerate(lines)], name)
    return ParsedRun(summary, read_run(summary.data, name))


def parse_run_bytes(data: bytes, name: str) -> ParsedRun:
    """:func:`parse_run_text` of ASCII bytes without CR or NUL (the text they decode to
    encodes back to them): a clean table is read without decoding it first."""
    fast = _parse_clean_bytes(data, name, 1)
    return fast if fast is not None else parse_run_text(data.decode("ascii"), name)


def _parse_clean_bytes(data: bytes, name: str, first_line: int) -> ParsedRun | None:
    body = data[:-1] if data.endswith(b"\n") else data
    return _parse_clean(body, name, first_line) if _clean(body) else None


def _parse_clean(body: bytes, name: str, first_line: int) -> ParsedRun | None:
    """:func:`parse_run_text` of a table without comment or blank lines; None when the
    vectorised path cannot prove it reads it exactly as the line parser would."""
    bounds = _token_bounds(body, 6)
    if bounds is None:
        return None
    raw, starts, ends = bounds
    n = len(starts)
    try:
        scores = _numbers(raw, starts[:, 4], ends[:, 4], np.float64)
    except (ValueError, OverflowError):  # the line parser says where
        return None
    if not _all_digits(raw, starts[:, 3], ends[:, 3]):  # a signed or odd rank: the line
        return None  # parser reads it (int() takes '+1', '1_0') or says where it fails
    topic_keys = _fixed(raw, starts[:, 0], ends[:, 0])
    tag_keys = _fixed(raw, starts[:, 5], ends[:, 5])
    change = np.flatnonzero(topic_keys[1:] != topic_keys[:-1]) + 1
    # each topic's lines in one block: the blocks' topics are distinct (sorted, no neighbour
    # equal; np.unique without counts would import numpy.ma at every compare's start)
    firsts = np.sort(topic_keys[np.concatenate(([0], change))])
    if not np.any(firsts[1:] == firsts[:-1]):
        per_topic = np.diff(np.concatenate(([0], change, [n])))  # one block per topic
    else:
        _, per_topic = np.unique(topic_keys, return_counts=True)
    if np.all(tag_keys == tag_keys[0]):  # one tag, the usual case
        tags, first_index = tag_keys[:1], np.zeros(1, dtype=np.intp)
    else:
        tags, first_index = np.unique(tag_keys, return_index=True)
    tag_names = [t.decode("ascii") for t in tags.tolist()]
    summary = RunSummary(
        lines=n,
        topics=len(per_topic),
        min_docs=int(per_topic.min()),
        max_docs=int(per_topic.max()),
        mean_docs=float(per_topic.sum() / len(per_topic)),
        tags=tag_names,
        tag_lines={t: first_line + int(i) for t, i in zip(tag_names, first_index, strict=True)},
        data=body + b"\n",
        first_line=first_line,
    )
    return ParsedRun(summary, _run_from_columns(name, raw, starts, ends, scores, topic_keys))
