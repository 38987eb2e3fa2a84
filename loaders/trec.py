"""Reading TREC run lines (``qid Q0 docno rank score tag``) and summarising them.

The lines themselves are not turned into triples: they are kept as a content-addressed
attachment for the measures, and the graph only gets a summary (topics, documents per
topic, tags). trec_eval 10 accepts ``#`` comment lines, so a line whose first
non-blank character is ``#`` is skipped; a ``#`` inside a docno is data, not a comment.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from reprokg.core.errors import LoadError

#: Columns of a TREC run line.
RUN_COLUMNS = ("topic", "iteration", "docno", "rank", "score", "tag")


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

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


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
    for lineno, text in lines:
        if not text.strip() or is_comment(text):
            continue
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
    )
