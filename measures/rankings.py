"""Rankings prepared the way repro_eval 0.5.0 compares them: ties broken, trimmed.

Runs and qrels are read by :mod:`reprokg.loaders.trec_files` (the one TREC reader). KTU and RBO
compare rankings in file order with repro_eval's tie-breaking; the score-ordered variant
(trec_eval's order) is opt-in (:func:`score_order`).
"""

from __future__ import annotations

import itertools
from operator import itemgetter

import numpy as np

from reprokg.loaders.trec_files import Ranking, Run

#: repro_eval's RUN_LENGTH: rankings are trimmed to this many documents per topic.
RUN_LENGTH = 1000


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
            if r.codes is not None:
                keys = r.codes
            else:
                if ranks is None:
                    ranks = _docid_ranks(run)
                keys = ranks[t]
            r = break_ties(r, keys)
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
