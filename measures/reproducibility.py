"""Reproducibility measures over rankings and topic scores, vectorised with numpy.

Defaults follow repro_eval 0.5.0 (Breuer et al., SIGIR 2020) so the numbers agree with it;
where repro_eval would crash or return ``nan``/``inf`` the value here is ``None`` and a
sentence is appended to ``warnings`` (see ``docs/comparisons.md`` for the policy):

* a topic in one run and not the other: paired measures (KTU, RBO, RMSE, paired t-test,
  ER's per-topic improvements) use the topics both have; the others are named in a warning;
* rankings of different lengths (runs shorter than the cutoff): KTU compares the first
  ``min(len)`` documents (Kendall's tau needs equal sizes); RBO handles it natively;
* a topic whose KTU is undefined (fewer than two documents): left out of the mean;
* zero original improvement (ER) or zero baseline mean (DRI): ``None``;
* a measure constant over topics, so the t-test is undefined: ``None`` — except
  repro_eval's own rule, which gives every p-value 1.0 when *all* are undefined and the
  two score sets are identical.
"""

from __future__ import annotations

import math
import warnings as _warnings

import numpy as np

from reprokg.loaders.trec_files import Run
from reprokg.measures.effectiveness import TopicScores
from reprokg.stats.student_t import two_sided_p

#: repro_eval's RBO defaults
RBO_P = 0.95
RBO_DEPTH = 1000

Values = dict[str, float | None]


def _clean(x: float) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def common_topics(a: list[str], b: list[str], what: str, warnings: list[str]) -> list[str]:
    """Topics in both, sorted; the ones in only one side are named in a warning."""
    sa, sb = set(a), set(b)
    both = sorted(sa & sb)
    only_a, only_b = sorted(sa - sb), sorted(sb - sa)
    if only_a or only_b:
        parts = []
        if only_a:
            parts.append(f"only in the first: {', '.join(only_a[:10])}")
        if only_b:
            parts.append(f"only in the second: {', '.join(only_b[:10])}")
        warnings.append(f"{what}: topics not in both runs were left out ({'; '.join(parts)})")
    return both


# --- document orderings -------------------------------------------------------------------


def _encode(*rankings: list[str]) -> list[np.ndarray]:
    """Integer codes in docid (code point) order, shared by all the rankings given.

    KTU depends only on the relative order of the union positions and RBO only on equality,
    so codes over all topics at once serve every topic.
    """
    docs = [d for r in rankings for d in r]
    if not docs:
        return [np.empty(0, dtype=np.int64) for _ in rankings]
    _, inv = np.unique(np.asarray(docs, dtype=str), return_inverse=True)
    out, start = [], 0
    for r in rankings:
        out.append(inv[start : start + len(r)])
        start += len(r)
    return out


#: sequences are cut into blocks of this many values whose pairs are compared all at once
#: (16 x 16 per block) before merging: the merge's first four levels, a third of its time
DISCORDANT_BLOCK = 16


def discordant_pairs(ranks: list[np.ndarray]) -> np.ndarray:
    """For each sequence of distinct values, the pairs ``i < j`` with ``a[i] > a[j]``.

    Each sequence is padded to whole blocks of :data:`DISCORDANT_BLOCK` with a value above
    every other (at the end, a pad makes no pair), each block's pairs are compared at
    once, and the sorted blocks are merged bottom-up over all sequences together: at each
    level every element of a right half counts the elements of its left half that are
    greater (one ``searchsorted`` over the keys ``block * span + value``, sorted within
    blocks by the level before; the left half's end is its count of elements), and one
    stable sort merges the two sorted runs of each block in linear time. This is the count
    ``scipy.stats.kendalltau`` makes; importing ``scipy.stats`` for it was most of the start
    of every ``reprokg compare`` (benchmarks/README.md#figures-once-quoted-in-code), and
    tests/measures check the two agree.
    """
    n_seq = len(ranks)
    lengths = np.asarray([len(r) for r in ranks], dtype=np.int64)
    out = np.zeros(n_seq, dtype=np.int64)
    if int(lengths.sum()) == 0:
        return out
    values = np.concatenate(ranks).astype(np.int64)
    values -= values.min()
    pad = int(values.max()) + 1
    size = DISCORDANT_BLOCK
    padded = -(-lengths // size) * size
    offsets = np.cumsum(padded) - padded  # where each padded sequence starts
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    into = np.repeat(offsets, lengths) + (np.arange(len(values)) - starts)
    full = np.full(int(padded.sum()), pad, dtype=np.int64)
    full[into] = values
    blocks = full.reshape(-1, size)
    pairs = np.triu(np.ones((size, size), dtype=bool), 1)  # i < j
    inside = np.count_nonzero((blocks[:, :, None] > blocks[:, None, :]) & pairs, axis=(1, 2))
    of_block = np.repeat(np.arange(n_seq), padded // size)
    out += np.bincount(of_block, weights=inside, minlength=n_seq).astype(np.int64)
    blocks.sort(axis=1)
    span = pad + 1
    longest = int(padded.max())
    # the keys below stay under n_seq * (longest + 1) * span: int32 when that fits (half
    # the memory traffic for every sort and search of the merge)
    kind = np.int32 if n_seq * (longest + 1) * span < 2**31 else np.int64
    values = full.astype(kind)
    seq = np.repeat(np.arange(n_seq, dtype=kind), padded)
    pos = np.arange(len(full), dtype=kind) - np.repeat(offsets, padded).astype(kind)
    width = size
    while width < longest:
        block = pos // (2 * width)
        # block ids that grow along the array: (sequence, block within it)
        gid = seq * (longest // (2 * width) + 1) + block
        keys = gid * span + values
        left = (pos // width) % 2 == 0
        left_keys = keys[left]
        right = ~left
        le = np.searchsorted(left_keys, keys[right], side="right")
        end = np.cumsum(np.bincount(gid[left]))[gid[right]]  # left elements to its block's end
        out += np.bincount(seq[right], weights=end - le, minlength=n_seq).astype(np.int64)
        values = np.sort(keys, kind="stable") - gid * span
        width *= 2
    return out


def _ktu_codes(x: np.ndarray, y: np.ndarray) -> float:
    n = len(x)
    if n >= 2 and len(y) == n:
        by_x = np.argsort(x, kind="stable")
        ys = y[by_x]
        by_y = np.argsort(ys, kind="stable")
        xs_sorted, ys_sorted = x[by_x], ys[by_y]
        if not (np.any(xs_sorted[1:] == xs_sorted[:-1]) or np.any(ys_sorted[1:] == ys_sorted[:-1])):
            # no ties: tau-b = (tot - 2 dis) / sqrt(tot) / sqrt(tot), scipy's own expression
            ranks = np.empty(n, dtype=np.intp)
            ranks[by_y] = np.arange(1, n + 1)
            dis = int(discordant_pairs([ranks])[0])
            tot = n * (n - 1) // 2
            return float(round((tot - 2 * dis) / np.sqrt(tot) / np.sqrt(tot), 14))
    from scipy import stats  # ties: scipy's tau-b (rare; its import costs a second)

    with _warnings.catch_warnings():
        _warnings.simplefilter("ignore")
        tau = stats.kendalltau(x, y).statistic
    return float(round(tau, 14))


def _ktu_all(pairs: list[tuple[np.ndarray, np.ndarray]]) -> list[float]:
    """:func:`_ktu_codes` of many equal-length pairs, the two sorts done for all at once.

    Keys ``topic * span + code`` sort every topic's documents in one ``argsort`` (the codes
    are unique within a ranking, so any sort gives the permutation a stable sort gives);
    the discordant pairs of all topics are counted in one :func:`discordant_pairs`. Topics
    with a repeated code, or fewer than two documents, go through :func:`_ktu_codes`.
    """
    values: list[float] = [math.nan] * len(pairs)
    todo = [i for i, (a, _) in enumerate(pairs) if len(a) >= 2]
    if not todo:
        return [_ktu_codes(a, b) if len(a) >= 2 else math.nan for a, b in pairs]
    xs = [pairs[i][0] for i in todo]
    ys = [pairs[i][1] for i in todo]
    lengths = np.asarray([len(x) for x in xs])
    offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    span = max(int(max(int(x.max()) for x in xs)), int(max(int(y.max()) for y in ys))) + 1
    kind = np.int32 if len(todo) * span < 2**31 else np.int64  # sorts faster when it fits
    topic: np.ndarray = np.repeat(np.arange(len(todo), dtype=kind) * span, lengths)
    kx = topic + np.concatenate(xs).astype(kind)
    by_x = np.argsort(kx)
    ky = topic + np.concatenate(ys).astype(kind)[by_x]
    by_y = np.argsort(ky)
    within = np.arange(len(kx)) - np.repeat(offsets, lengths)
    ranks = np.empty(len(kx), dtype=np.intp)
    ranks[by_y] = within + 1
    kx_sorted, ky_sorted = kx[by_x], ky[by_y]
    repeated = np.zeros(len(todo), dtype=bool)
    for keys in (kx_sorted, ky_sorted):
        same = np.flatnonzero(keys[1:] == keys[:-1])
        repeated[(keys[same] // span)] = True
    clean = [j for j in range(len(todo)) if not repeated[j]]
    dis = discordant_pairs(
        [ranks[int(offsets[j]) : int(offsets[j]) + int(lengths[j])] for j in clean]
    )
    for j, d in zip(clean, dis.tolist(), strict=True):
        n = int(lengths[j])
        tot = n * (n - 1) // 2
        values[todo[j]] = float(round((tot - 2 * d) / np.sqrt(tot) / np.sqrt(tot), 14))
    for j in range(len(todo)):
        if repeated[j]:
            values[todo[j]] = _ktu_codes(*pairs[todo[j]])
    return values


def ktu_topic(orig: list[str], rep: list[str]) -> float:
    """Kendall's tau Union of one topic, as repro_eval computes it (rounded to 14 digits).

    Both rankings are mapped to positions in the sorted union of their documents and the
    two position sequences are correlated rank by rank (they must have equal length).
    """
    x, y = _encode(orig, rep)
    return _ktu_codes(x, y)


Pairs = dict[str, tuple[np.ndarray, np.ndarray]]


def encode_pairs(orig: Run, rep: Run, topics: list[str]) -> Pairs:
    """Per topic, both rankings as integer codes in docid order of their union.

    Computed once per pair of runs and shared by KTU and RBO.
    """
    out: Pairs = {}
    for t in topics:
        a, b = orig.topics[t].docs, rep.topics[t].docs
        code = {d: i for i, d in enumerate(sorted(set(a).union(b)))}
        out[t] = (
            np.fromiter(map(code.__getitem__, a), dtype=np.int64, count=len(a)),
            np.fromiter(map(code.__getitem__, b), dtype=np.int64, count=len(b)),
        )
    return out


def attach_codes(orig: Run, rep: Run) -> None:
    """Give the rankings of the topics both runs have shared docid-order codes.

    Done once on the raw runs, the codes then serve tie-breaking (``prepare``) and, carried
    through reordering and trimming, KTU and RBO. When the reader left byte sort keys on
    every ranking, one vectorised sort over both runs codes them all (codes over all
    topics at once serve every topic: only their order and equality matter).
    """
    both = sorted(set(orig.topics) & set(rep.topics))
    rankings = [orig.topics[t] for t in both] + [rep.topics[t] for t in both]
    if rankings and all(r.codes is not None and r.codes.dtype.kind == "S" for r in rankings):
        codes = key_codes(np.concatenate([r.codes for r in rankings]))
        start = 0
        for r in rankings:
            r.codes = codes[start : start + len(r.docs)]
            start += len(r.docs)
        return
    for t, (a, b) in encode_pairs(orig, rep, both).items():
        orig.topics[t].codes = a
        rep.topics[t].codes = b


def key_codes(keys: np.ndarray) -> np.ndarray:
    """Integer codes of NUL-free byte keys (numpy ``S``) in byte order.

    Byte order of UTF-8 is code point order, as Python compares ``str``. Keys of at most
    8 bytes are sorted as big-endian integers (NUL padding sorts a prefix first, as ``str``
    does), longer ones as bytes.
    """
    if keys.dtype.itemsize <= 8:
        return np.unique(keys.astype("S8").view(">u8"), return_inverse=True)[1]
    return np.unique(keys, return_inverse=True)[1]


def _pairs(orig: Run, rep: Run, topics: list[str], pairs: Pairs | None) -> Pairs:
    if pairs is not None and all(t in pairs for t in topics):
        return {t: pairs[t] for t in topics}
    out: Pairs = {}
    for t in topics:
        a, b = orig.topics[t].codes, rep.topics[t].codes
        if a is None or b is None:
            return encode_pairs(orig, rep, topics)
        if a.dtype.kind == "S" or b.dtype.kind == "S":
            if a.dtype.kind != b.dtype.kind:
                return encode_pairs(orig, rep, topics)
            ab = key_codes(np.concatenate((a, b)))
            a, b = ab[: len(a)], ab[len(a) :]
        out[t] = (a, b)
    return out


def ktu(
    orig: Run, rep: Run, warnings: list[str], *, label: str = "KTU", pairs: Pairs | None = None
) -> tuple[float | None, dict[str, float | None]]:
    """Mean KTU over the topics both runs have, and the per-topic values."""
    per_topic: dict[str, float | None] = {}
    short, undefined = [], []
    topics = common_topics(list(orig.topics), list(rep.topics), label, warnings)
    equal: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for t, (a, b) in _pairs(orig, rep, topics, pairs).items():
        if len(a) != len(b):
            short.append(t)
            n = min(len(a), len(b))
            a, b = a[:n], b[:n]
        equal[t] = (a, b)
    for t, value in zip(equal, _ktu_all(list(equal.values())), strict=True):
        per_topic[t] = _clean(value)
        if per_topic[t] is None:
            undefined.append(t)
    if short:
        warnings.append(
            f"{label}: rankings of different lengths compared on their common depth "
            f"for topic(s) {', '.join(short[:10])}"
        )
    if undefined:
        warnings.append(
            f"{label}: undefined (fewer than two documents or constant) for topic(s) "
            f"{', '.join(undefined[:10])}; left out of the mean"
        )
    defined = [v for v in per_topic.values() if v is not None]
    return (float(np.mean(defined)) if defined else None), per_topic


def _overlaps(a: np.ndarray, b: np.ndarray, depth: int) -> np.ndarray:
    """``X[d-1]`` = |a[:d] ∩ b[:d]| for d = 1..depth (a, b: duplicate-free codes)."""
    _, ia, ib = np.intersect1d(a[:depth], b[:depth], assume_unique=True, return_indices=True)
    return np.cumsum(np.bincount(np.maximum(ia, ib), minlength=depth)[:depth])


def _weights(p: float, depth: int) -> np.ndarray:
    # repeated multiplication, as repro_eval (Clarke et al.'s code) accumulates them
    return np.cumprod(np.concatenate(([1.0], np.full(depth - 1, p))))


def _rbo_codes(orig: np.ndarray, rep: np.ndarray, p: float, depth: int) -> float:
    x = _overlaps(rep, orig, depth)
    w = _weights(p, depth)
    return float(np.sum(w * x / np.arange(1, depth + 1)) / np.sum(w))


def _rbo_all(pairs: list[tuple[np.ndarray, np.ndarray]], p: float, depth: int) -> list[float]:
    """:func:`_rbo_codes` of many topics at once, without a sort.

    A document's position in one ranking is looked up through a table indexed by code
    (filled and cleared per topic); the overlap curves of all topics are the rows of one
    cumulative count. Rankings with a repeated code go through :func:`_rbo_codes`.
    """
    n = len(pairs)
    w = _weights(p, depth)
    span = max((int(c.max()) + 1 for pair in pairs for c in pair if len(c)), default=1)
    lookup = np.full(span, -1, dtype=np.int64)
    firsts, slow = [], {}
    for t, (orig, rep) in enumerate(pairs):
        a, b = rep[:depth], orig[:depth]  # as _rbo_codes: overlaps of (rep, orig)
        lookup[a] = np.arange(len(a))
        unique = np.array_equal(lookup[a], np.arange(len(a)))
        lookup[a] = -1
        lookup[b] = np.arange(len(b))
        unique = unique and np.array_equal(lookup[b], np.arange(len(b)))
        pb = lookup[a]
        lookup[b] = -1
        if not unique:
            slow[t] = _rbo_codes(orig, rep, p, depth)
            continue
        hit = np.flatnonzero(pb >= 0)
        firsts.append(t * depth + np.maximum(hit, pb[hit]))
    flat = np.concatenate(firsts) if firsts else np.empty(0, dtype=np.int64)
    x = np.cumsum(np.bincount(flat, minlength=n * depth).reshape(n, depth), axis=1)
    ranks = np.arange(1, depth + 1)
    total = np.sum(w)
    return [
        slow[t] if t in slow else float(np.sum(w * row / ranks) / total) for t, row in enumerate(x)
    ]


def rbo_topic(orig: list[str], rep: list[str], p: float = RBO_P, depth: int = RBO_DEPTH) -> float:
    """repro_eval's RBO (Clarke et al.'s normalised, truncated form) of one topic."""
    a, b = _encode(orig, rep)
    return _rbo_codes(a, b, p, depth)


def _rbo_ext_codes(orig: np.ndarray, rep: np.ndarray, p: float) -> dict[str, float]:
    s_arr, l_arr = (orig, rep) if len(orig) <= len(rep) else (rep, orig)
    s, l_ = len(s_arr), len(l_arr)
    if s == 0:
        return {"ext": 0.0, "min": 0.0, "max": 1.0, "res": 1.0}
    x = _overlaps(s_arr, l_arr, l_)  # X_1..X_l; beyond s only L keeps growing
    d = np.arange(1, l_ + 1, dtype=float)
    pd = p**d
    x_s, x_l = float(x[s - 1]), float(x[l_ - 1])
    sum1 = float(np.sum(pd * x / d))
    tail = d > s
    sum2 = float(np.sum(pd[tail] * x_s * (d[tail] - s) / (s * d[tail])))
    ext = (1 - p) / p * (sum1 + sum2) + p**l_ * ((x_l - x_s) / l_ + x_s / s)
    # lower bound (eq. 11) at depth s, where both rankings are fully seen
    ds, xs = d[:s], x[:s]
    rbo_min = (1 - p) / p * (float(np.sum(p**ds / ds * (xs - x_s))) - x_s * math.log(1 - p))
    # residual (eq. 30): the most the unseen documents could still add
    f = l_ + s - int(x_l)
    df = np.arange(1, f + 1, dtype=float)
    inv = p**df / df
    term1 = s * float(np.sum(inv[s:f]))
    term2 = l_ * float(np.sum(inv[l_:f]))
    term3 = x_l * (math.log(1 / (1 - p)) - float(np.sum(inv)))
    res = p**s + p**l_ - p**f - (1 - p) / p * (term1 + term2 + term3)
    return {
        "ext": float(ext),
        "min": float(rbo_min),
        "max": float(rbo_min + res),
        "res": float(res),
    }


def rbo_ext_topic(orig: list[str], rep: list[str], p: float = RBO_P) -> dict[str, float]:
    """Webber et al.'s extrapolated RBO (eq. 32) with its bounds (min eq. 11, residual eq. 30).

    Opt-in corrected variant: two identical rankings score 1.0 whatever their length,
    where the truncated normalised form used by repro_eval scores them below 1.
    """
    a, b = _encode(orig, rep)
    return _rbo_ext_codes(a, b, p)


def rbo(
    orig: Run,
    rep: Run,
    warnings: list[str],
    *,
    p: float = RBO_P,
    depth: int = RBO_DEPTH,
    extrapolated: bool = False,
    label: str = "RBO",
    pairs: Pairs | None = None,
) -> tuple[float | None, dict[str, float | None]]:
    """Mean RBO over the topics both runs have (repro_eval's form unless ``extrapolated``)."""
    per_topic: dict[str, float | None] = {}
    topics = common_topics(list(orig.topics), list(rep.topics), label, warnings)
    coded = _pairs(orig, rep, topics, pairs)
    if extrapolated:
        for t, (a, b) in coded.items():
            per_topic[t] = _clean(_rbo_ext_codes(a, b, p)["ext"])
    elif coded:
        values = _rbo_all(list(coded.values()), p, depth)
        per_topic = {t: _clean(v) for t, v in zip(coded, values, strict=True)}
    defined = [v for v in per_topic.values() if v is not None]
    return (float(np.mean(defined)) if defined else None), per_topic


# --- topic scores -------------------------------------------------------------------------


def _paired(
    orig: TopicScores, rep: TopicScores, label: str, warnings: list[str]
) -> tuple[TopicScores, TopicScores]:
    topics = common_topics(orig.topics, rep.topics, label, warnings)
    return orig.restrict(topics), rep.restrict(topics)


def rmse(orig: TopicScores, rep: TopicScores, warnings: list[str], label: str = "RMSE") -> Values:
    """Root mean square error of the per-topic scores, per measure."""
    o, r = _paired(orig, rep, label, warnings)
    if not o.topics:
        warnings.append(f"{label}: no topic in common; undefined")
        return dict.fromkeys(orig.measures)
    diff = o.values - r.values
    values = np.sqrt(np.sum(np.square(diff), axis=0) / len(o.topics))
    return {m: _clean(v) for m, v in zip(o.measures, values.tolist(), strict=True)}


def nrmse(orig: TopicScores, rep: TopicScores, warnings: list[str]) -> Values:
    """RMSE divided by the largest RMSE the original scores allow (max(x, 1-x) per topic)."""
    o, r = _paired(orig, rep, "nRMSE", [])
    plain = rmse(orig, rep, warnings, label="nRMSE")
    if not o.topics:
        return plain
    worst = np.sqrt(np.sum(np.square(np.maximum(o.values, 1 - o.values)), axis=0) / len(o.topics))
    out: Values = {}
    for m, w in zip(o.measures, worst.tolist(), strict=True):
        v = plain[m]
        out[m] = None if v is None or w == 0 else _clean(v / w)
    return out


def _t_p(t: np.ndarray, df: float) -> np.ndarray:
    """Two-sided p of Student's t, per measure (:mod:`reprokg.stats.student_t`)."""
    return np.asarray([two_sided_p(x, df) for x in np.atleast_1d(t).tolist()], dtype=float)


def _ttest_rel_p(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``scipy.stats.ttest_rel(a, b, axis=0).pvalue``: columns are measures, rows topics."""
    d = a - b
    n = d.shape[0]
    t = d.mean(axis=0) / np.sqrt(d.var(axis=0, ddof=1) / n)
    return _t_p(t, n - 1)


def _ttest_ind_p(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``scipy.stats.ttest_ind(a, b, axis=0).pvalue`` (Student's, equal variances)."""
    n1, n2 = a.shape[0], b.shape[0]
    df = n1 + n2 - 2
    pooled = ((n1 - 1) * a.var(axis=0, ddof=1) + (n2 - 1) * b.var(axis=0, ddof=1)) / df
    t = (a.mean(axis=0) - b.mean(axis=0)) / np.sqrt(pooled * (1.0 / n1 + 1.0 / n2))
    return _t_p(t, df)


def ttest(
    orig: TopicScores, rep: TopicScores, warnings: list[str], *, paired: bool, label: str
) -> Values:
    """Two-sided p-values: paired t-test (same collection) or Student's unpaired t-test."""
    if paired:
        o, r = _paired(orig, rep, label, warnings)
        a, b = o.values, r.values
    else:
        a, b = orig.values, rep.values
    with _warnings.catch_warnings(), np.errstate(all="ignore"):
        _warnings.simplefilter("ignore")
        if len(a) < 2 or len(b) < 2:
            p = np.full(len(orig.measures), np.nan)
        elif paired:
            p = _ttest_rel_p(a, b)
        else:
            p = _ttest_ind_p(a, b)
    nan = np.isnan(p)
    if nan.all() and a.shape == b.shape and np.array_equal(a, b):
        # repro_eval: every p-value undefined and identical scores -> 1.0
        return dict.fromkeys(orig.measures, 1.0)
    if nan.any():
        names = [m for m, flag in zip(orig.measures, nan.tolist(), strict=True) if flag]
        warnings.append(
            f"{label}: t-test undefined (scores constant over topics or too few topics) "
            f"for {', '.join(names[:12])}{' …' if len(names) > 12 else ''}"
        )
    return {m: _clean(v) for m, v in zip(orig.measures, p.tolist(), strict=True)}


def mean_improvement(adv: TopicScores, base: TopicScores, label: str, warnings: list[str]):
    """Mean per-topic improvement of the advanced over the baseline run, per measure."""
    a, b = _paired(adv, base, label, warnings)
    if not a.topics:
        return np.full(len(adv.measures), np.nan)
    return (a.values - b.values).mean(axis=0)


def effect_ratio(
    orig_base: TopicScores,
    orig_adv: TopicScores,
    rep_base: TopicScores,
    rep_adv: TopicScores,
    warnings: list[str],
) -> Values:
    """ER = mean reproduced improvement / mean original improvement, per measure."""
    mi_orig = mean_improvement(orig_adv, orig_base, "ER (original)", warnings)
    mi_rep = mean_improvement(rep_adv, rep_base, "ER (reproduced)", warnings)
    out: Values = {}
    zero = []
    for m, o, r in zip(orig_adv.measures, mi_orig.tolist(), mi_rep.tolist(), strict=True):
        if o == 0 or not math.isfinite(o):
            zero.append(m)
            out[m] = None
        else:
            out[m] = _clean(r / o)
    if zero:
        warnings.append(
            f"ER: original improvement is zero, ratio undefined for {', '.join(zero[:12])}"
            f"{' …' if len(zero) > 12 else ''}"
        )
    return out


def delta_relative_improvement(
    orig_base: TopicScores,
    orig_adv: TopicScores,
    rep_base: TopicScores,
    rep_adv: TopicScores,
    warnings: list[str],
) -> Values:
    """ΔRI = RI(original) − RI(reproduced), RI = (mean adv − mean base) / mean base."""
    out: Values = {}
    zero = []
    means = [s.values.mean(axis=0) for s in (orig_base, orig_adv, rep_base, rep_adv)]
    for j, m in enumerate(orig_adv.measures):
        ob, oa, rb, ra = (float(x[j]) for x in means)
        if ob == 0 or rb == 0:
            zero.append(m)
            out[m] = None
        else:
            out[m] = _clean((oa - ob) / ob - (ra - rb) / rb)
    if zero:
        warnings.append(
            f"DRI: a baseline mean is zero, relative improvement undefined for "
            f"{', '.join(zero[:12])}{' …' if len(zero) > 12 else ''}"
        )
    return out
