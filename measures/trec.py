"""Reading TREC runs and qrels the way trec_eval 10 and repro_eval 0.5.0 read them.

trec_eval 10 accepts comment lines (first non-blank character ``#``) in runs and qrels;
a ``#`` inside a docno (``msmarco_v2.1_doc_50_2286987788#13_3087841662``) is data, not
a comment, so only whole lines are skipped. Topics are kept in string-sorted order and
each topic's documents in file order (repro_eval's ``load_run``), because KTU and RBO
compare rankings in file order; the score-ordered variant is opt-in (:func:`ranked`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from reprokg.errors import LoadError
from reprokg.loaders.source import decode_text, read_bytes

#: repro_eval's RUN_LENGTH: rankings are trimmed to this many documents per topic.
RUN_LENGTH = 1000


@dataclass
class Ranking:
    """One topic's documents in ranking order, with their scores."""

    docs: list[str]
    scores: np.ndarray


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
    stripped = line.lstrip()
    return not stripped or stripped.startswith("#")


def read_run(source: str | Path | bytes, name: str | None = None) -> Run:
    """Parse a TREC run (6 whitespace-separated columns); ``#`` comment lines are skipped.

    A docid repeated within a topic keeps its first occurrence (position and score) and
    is reported in ``warnings``: trec_eval refuses such runs and repro_eval silently keeps
    the first position with the last score, neither of which a reader can see.
    """
    text, display = _text(source, name)
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


def break_ties(ranking: Ranking) -> Ranking:
    """repro_eval's tie-breaking: consecutive equal scores reordered by docid, descending.

    Only *adjacent* equal scores are regrouped; the file order otherwise stands.
    """
    s = ranking.scores
    if len(s) < 2 or not np.any(s[1:] == s[:-1]):
        return ranking
    pairs: list[tuple[str, float]] = []
    for _, group in itertools.groupby(
        zip(ranking.docs, s.tolist(), strict=True), key=lambda item: item[1]
    ):
        pairs.extend(sorted(group, reverse=True))
    return Ranking([d for d, _ in pairs], np.asarray([x for _, x in pairs], dtype=float))


def score_order(ranking: Ranking) -> Ranking:
    """trec_eval's order: score descending, ties by docid descending (opt-in corrected variant)."""
    order = sorted(range(len(ranking.docs)), key=lambda i: ranking.docs[i], reverse=True)
    order.sort(key=lambda i: -ranking.scores[i])
    return Ranking([ranking.docs[i] for i in order], ranking.scores[order])


def prepare(run: Run, *, depth: int | None = RUN_LENGTH, score_ordered: bool = False) -> Run:
    """The ranking repro_eval compares: ties broken, then trimmed to ``depth`` documents."""
    topics = {}
    for t, r in run.topics.items():
        r = score_order(r) if score_ordered else break_ties(r)
        if depth is not None and len(r.docs) > depth:
            r = Ranking(r.docs[:depth], r.scores[:depth])
        topics[t] = r
    return Run(name=run.name, topics=topics, tag=run.tag, warnings=list(run.warnings))
