"""Reading TREC runs and qrels the way trec_eval 10 and repro_eval 0.5.0 read them.

trec_eval 10 accepts comment lines (first non-blank character ``#``) in runs and qrels;
a ``#`` inside a docno (``msmarco_v2.1_doc_50_2286987788#13_3087841662``) is data, not
a comment, so only whole lines are skipped. Topics are kept in string-sorted order and
each topic's documents in file order (repro_eval's ``load_run``), because KTU and RBO
compare rankings in file order; the score-ordered variant is opt-in (:func:`ranked`).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path

import numpy as np

from reprokg.core.errors import LoadError
from reprokg.loaders.source import decode_text, read_bytes
from reprokg.loaders.trec import is_comment

#: repro_eval's RUN_LENGTH: rankings are trimmed to this many documents per topic.
RUN_LENGTH = 1000


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


def _joined(raw: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> bytes:
    """The tokens ``raw[starts[i]:ends[i]]`` joined by newlines, gathered in one pass."""
    lengths = ends - starts + 1  # each token and its newline
    offsets = np.cumsum(lengths) - lengths
    idx = np.arange(int(lengths.sum())) + np.repeat(starts - offsets, lengths)
    out = raw[np.minimum(idx, raw.size - 1)]
    out[offsets + lengths - 1] = 10
    return out[:-1].tobytes()


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
        score_tokens = _joined(raw, starts[:, 4], ends[:, 4]).split(b"\n")
        scores = np.fromiter(map(float, score_tokens), dtype=float, count=len(score_tokens))
    except ValueError:
        return None
    docs = _joined(raw, starts[:, 2], ends[:, 2]).decode("ascii").split("\n")
    keys = _fixed(raw, starts[:, 2], ends[:, 2])
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
    cols = _fast_columns(text, 4)
    if cols is not None:
        try:
            rels = list(map(int, cols[3]))
        except ValueError:
            pass
        else:
            fast: dict[str, dict[str, int]] = {}
            for t, spans in _topic_blocks(cols[0]).items():
                judged = fast.setdefault(t, {})
                for a, b in spans:
                    judged.update(zip(cols[2][a:b], rels[a:b], strict=True))
            return {t: fast[t] for t in sorted(fast)}
    qrels: dict[str, dict[str, int]] = {}
    for lineno, line in enumerate(text.split("\n"), start=1):
        if _is_comment(line):
            continue
        cols = line.split()
        if len(cols) != 4:
            raise LoadError(
                f"expected 4 columns (topic iteration docid relevance), found {len(cols)}",
                source=display,
                line=lineno,
            )
        try:
            rel = int(cols[3])
        except ValueError:
            raise LoadError(
                f"relevance {cols[3]!r} is not an integer",
                source=display,
                line=lineno,
                field="relevance",
            ) from None
        qrels.setdefault(cols[0], {})[cols[2]] = rel
    return {t: qrels[t] for t in sorted(qrels)}


def break_ties(ranking: Ranking, ranks: np.ndarray | None = None) -> Ranking:
    """repro_eval's tie-breaking: consecutive equal scores reordered by docid, descending.

    Only *adjacent* equal scores are regrouped; the file order otherwise stands
    (``itertools.groupby`` over the file order in repro_eval; vectorised here).
    ``ranks`` are the documents' positions in docid order (computed when not given).
    """
    s = ranking.scores
    if len(s) < 2:
        return ranking
    same = s[1:] == s[:-1]
    if not same.any():
        return ranking
    group = np.concatenate(([0], np.cumsum(~same)))
    if ranks is None:
        ranks = ranking.codes
    if ranks is None:
        # numpy's fixed-width unicode compares by code point, as Python's str does
        ranks = np.unique(np.asarray(ranking.docs, dtype=str), return_inverse=True)[1]
    elif ranks.dtype.kind == "S":
        ranks = np.unique(ranks, return_inverse=True)[1]
    order = np.lexsort((-np.asarray(ranks), group))
    return ranking.take(order)


def _docid_ranks(run: Run) -> dict[str, np.ndarray]:
    """Each topic's documents' positions in docid order, from one sort over the whole run."""
    docs = [d for r in run.topics.values() for d in r.docs]
    if not docs:
        return {}
    inverse = np.unique(np.asarray(docs, dtype=str), return_inverse=True)[1]
    out, start = {}, 0
    for t, r in run.topics.items():
        out[t] = inverse[start : start + len(r.docs)]
        start += len(r.docs)
    return out


def _break_ties_reference(ranking: Ranking) -> Ranking:
    """repro_eval's ``break_ties`` verbatim (kept to test the vectorised one against)."""
    pairs: list[tuple[str, float]] = []
    for _, group in itertools.groupby(
        zip(ranking.docs, ranking.scores.tolist(), strict=True), key=lambda item: item[1]
    ):
        pairs.extend(sorted(group, reverse=True))
    return Ranking([d for d, _ in pairs], np.asarray([x for _, x in pairs], dtype=float))


def score_order(ranking: Ranking) -> Ranking:
    """trec_eval's order: score descending, ties by docid descending (opt-in corrected variant)."""
    order = sorted(range(len(ranking.docs)), key=lambda i: ranking.docs[i], reverse=True)
    scores = ranking.scores.tolist()
    order.sort(key=lambda i: -scores[i])
    return ranking.take(np.asarray(order, dtype=np.int64))


def prepare(run: Run, *, depth: int | None = RUN_LENGTH, score_ordered: bool = False) -> Run:
    """The ranking repro_eval compares: ties broken, then trimmed to ``depth`` documents."""
    if not score_ordered and run.topics:
        fast = _prepare_coded(run, depth)
        if fast is not None:
            return fast
    topics = {}
    ranks: dict[str, np.ndarray] | None = None
    for t, r in run.topics.items():
        if score_ordered:
            r = score_order(r)
        elif len(r.scores) > 1 and np.any(r.scores[1:] == r.scores[:-1]):
            if r.codes is None and ranks is None:
                ranks = _docid_ranks(run)
            r = break_ties(r, r.codes if r.codes is not None else ranks[t])
        if depth is not None and len(r.docs) > depth:
            r = r.take(slice(0, depth))
        topics[t] = r
    return Run(name=run.name, topics=topics, tag=run.tag, warnings=list(run.warnings))


def _prepare_coded(run: Run, depth: int | None) -> Run | None:
    """:func:`prepare` (file order) of a run whose rankings all carry integer codes.

    :func:`break_ties` for every topic in one stable sort: groups of adjacent equal scores
    never span two topics, so sorting by (group, code descending) over the whole run
    reorders each topic exactly as the per-topic call does, and leaves tie-free topics as
    they are. None when a ranking has no integer codes.
    """
    rankings = list(run.topics.values())
    if not all(r.codes is not None and r.codes.dtype.kind in "iu" for r in rankings):
        return None
    lengths = [len(r.docs) for r in rankings]
    scores = np.concatenate([r.scores for r in rankings])
    codes = np.concatenate([r.codes for r in rankings]).astype(np.int64)
    ends = np.cumsum(lengths)
    if len(scores) == 0:
        return None
    same = scores[1:] == scores[:-1]
    starts = ends[:-1]
    same[starts[(starts > 0) & (starts < len(scores))] - 1] = False  # topics start groups
    group = np.concatenate(([0], np.cumsum(~same)))
    low, high = int(codes.min()), int(codes.max())
    if (int(group[-1]) + 1) * (high - low + 1) < 2**62:
        # one key, group-major and code descending; nearly sorted, so timsort is quick
        order = np.argsort(group * (high - low + 1) + (high - codes), kind="stable")
    else:
        order = np.lexsort((-codes, group))
    docs = list(itertools.chain.from_iterable(r.docs for r in rankings))
    if len(order) > 1:
        docs = list(itemgetter(*order.tolist())(docs))
    scores, codes_sorted = scores[order], np.concatenate([r.codes for r in rankings])[order]
    topics = {}
    start = 0
    for t, n in zip(run.topics, lengths, strict=True):
        stop = start + (n if depth is None else min(n, depth))
        topics[t] = Ranking(docs[start:stop], scores[start:stop], codes_sorted[start:stop])
        start += n
    return Run(name=run.name, topics=topics, tag=run.tag, warnings=list(run.warnings))
