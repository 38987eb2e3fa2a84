"""Window minima on sorted feature rows: the inner step every φ computation shares.

φ_{k,f} is the smallest range of k consecutive sorted values of feature f (Stubbemann et
al. 2023a, Lemma 3.5). Every function here takes rows that are sorted ascending and padded
on the right with +inf (``PAD`` entries), so that a block of consecutive window sizes can
be evaluated as one 2-D array: windows that would run past the end read +inf and never win
the minimum. Temporaries are bounded by ``CHUNK`` elements, which keeps memory at O(d·n)
whatever n is.

The engines avoid most of the O(d·n²) work of the definition without changing its value:
φ_{k,f} is non-decreasing in k (a window of k+1 values contains one of k values, and
rounding a subtraction is monotone, so this holds in floating point too), and any single
window gives an upper bound of φ_{k,f}. A feature is evaluated exactly at k only when such a
cheap upper bound exceeds the best value already known at k.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

PAD = 64
"""+inf entries after each row; the largest block of window sizes is PAD + 1."""

CHUNK = 1 << 18
"""Elements per temporary array (2 MiB of float64)."""

Tick = Callable[[int], None]
"""Progress hook of the engines: called with the number of window sizes just finished."""


def _windows(rows: np.ndarray, f: int, first: int, m: int, w: int) -> np.ndarray:
    """View (m, w) of row f with view[j, i] = rows[f, first + i + j] (no copy).

    Built with the ndarray constructor: numpy's sliding_window_view costs ten times more
    per call, and the pruned engines make many small calls.
    """
    st = rows.strides[1]
    return np.ndarray(
        (m, w),
        dtype=rows.dtype,
        buffer=rows,
        offset=f * rows.strides[0] + first * st,
        strides=(st, st),
    )


def block_minima(rows: np.ndarray, f: int, n: int, k_lo: int, k_hi: int) -> tuple[np.ndarray, int]:
    """φ_k of padded row f for every k in [k_lo, k_hi], and the best window start at k_hi.

    One 2-D difference per chunk of window starts replaces k_hi - k_lo + 1 Python-level
    passes; the start of the narrowest k_hi-window is the probe for the next block.
    """
    m = k_hi - k_lo + 1
    row = rows[f]
    starts = n - k_lo + 1
    step = max(1, CHUNK // m)
    if starts <= step:
        diff = _windows(rows, f, k_lo - 1, m, starts) - row[:starts]
        return diff.min(axis=1), int(diff[-1].argmin())
    best = np.full(m, np.inf)
    arg_last, val_last = 0, np.inf
    for c0 in range(0, starts, step):
        c1 = min(starts, c0 + step)
        diff = _windows(rows, f, k_lo - 1 + c0, m, c1 - c0) - row[c0:c1]
        np.minimum(best, diff.min(axis=1), out=best)
        last = diff[-1]
        a = int(last.argmin())
        if last[a] < val_last:
            val_last, arg_last = float(last[a]), c0 + a
    return best, arg_last


def all_block_minima(rows: np.ndarray, n: int, k_lo: int, k_hi: int) -> np.ndarray:
    """φ_{k,f} of every row for every k in [k_lo, k_hi], shape (rows, k_hi - k_lo + 1).

    The per-feature scores need every feature's whole profile, so nothing can be pruned;
    this evaluates many rows per numpy call to keep the interpreter out of the loop.
    """
    r = rows.shape[0]
    m = k_hi - k_lo + 1
    starts = n - k_lo + 1
    out = np.full((r, m), np.inf)
    if r == 0:
        return out
    step = max(1, min(starts, CHUNK // m))
    rstep = max(1, CHUNK // (m * step))
    st0, st1 = rows.strides
    for c0 in range(0, starts, step):
        c1 = min(starts, c0 + step)
        for r0 in range(0, r, rstep):
            r1 = min(r, r0 + rstep)
            view = np.ndarray(
                (r1 - r0, m, c1 - c0),
                dtype=rows.dtype,
                buffer=rows,
                offset=r0 * st0 + (k_lo - 1 + c0) * st1,
                strides=(st0, st1, st1),
            )
            diff = view - rows[r0:r1, None, c0:c1]
            np.minimum(out[r0:r1], diff.min(axis=2), out=out[r0:r1])
    return out


def window_min(
    row: np.ndarray,
    n: int,
    k: int,
    buf: np.ndarray,
    *,
    stop_at: float = -np.inf,
    hint: int = 0,
) -> tuple[float, int, bool]:
    """Smallest k-window range of one row, scanning from the chunk around ``hint``.

    Returns (value, start, complete). The scan stops as soon as a window of range
    ≤ ``stop_at`` is found (complete is then False and value is only an upper bound):
    a feature that cannot beat the current maximum need not be scanned to the end.
    """
    starts = n - k + 1
    step = buf.shape[0]
    first = (min(max(hint, 0), starts - 1) // step) * step
    best, arg = np.inf, first
    c0 = first
    while True:
        c1 = min(starts, c0 + step)
        diff = buf[: c1 - c0]
        np.subtract(row[k - 1 + c0 : k - 1 + c1], row[c0:c1], out=diff)
        a = int(diff.argmin())
        if diff[a] < best:
            best, arg = float(diff[a]), c0 + a
        if best <= stop_at:
            return best, arg, False
        c0 = c1 if c1 < starts else 0
        if c0 == first:
            return best, arg, True


def probe(
    rows: np.ndarray, n: int, idx: np.ndarray, starts: np.ndarray, ks: np.ndarray
) -> np.ndarray:
    """Upper bounds of φ_{k,f}: the range of one k-window per row (the last best start).

    The start is clamped to n - k; the result is non-decreasing in k for each row, so its
    value at the block's last k bounds the whole block.
    """
    s = np.minimum(starts[:, None], n - ks[None, :])
    r = idx[:, None]
    return rows[r, s + ks - 1] - rows[r, s]


def pruned_profile(
    rows: np.ndarray,
    n: int,
    k_lo: int,
    k_hi: int,
    out: np.ndarray,
    *,
    subset: np.ndarray | None = None,
    lower: float = 0.0,
    floor: np.ndarray | None = None,
    starts: np.ndarray | None = None,
    block: int = 64,
    tick: Tick | None = None,
) -> None:
    """Write out[k] = max(floor[k], max_f φ_{k,f}) for k in [k_lo, k_hi], exactly.

    ``lower`` must be a lower bound of out[k_lo] (0, or the exact value at k_lo - 1: the
    profile is non-decreasing); ``floor`` (non-decreasing, indexed by k) stands for
    features handled elsewhere, e.g. earlier hops. Features are tried in order of their
    probe bound and evaluated only at the k where the bound beats what is already known.
    ``starts`` (one window start per row of ``rows``) is updated in place.
    """
    idx = np.arange(rows.shape[0]) if subset is None else np.asarray(subset, dtype=np.intp)
    if starts is None:
        starts = np.zeros(rows.shape[0], dtype=np.intp)
    block = max(1, min(block, PAD + 1))
    low = float(lower)
    k = k_lo
    while k <= k_hi:
        kb = min(k_hi, k + block - 1)
        ks = np.arange(k, kb + 1)
        known = np.full(ks.size, low)
        if floor is not None:
            np.maximum(known, floor[k : kb + 1], out=known)
        if idx.size:
            bound = probe(rows, n, idx, starts[idx], ks)
            cand = np.flatnonzero((bound > known).any(axis=1))
            last = bound[:, -1]
            for j in cand[np.argsort(-last[cand], kind="stable")].tolist():
                if last[j] <= known[0]:
                    break
                need = np.flatnonzero(bound[j] > known)
                if need.size == 0:
                    continue
                j0, j1 = int(need[0]), int(need[-1])
                f = int(idx[j])
                phis, best = block_minima(rows, f, n, k + j0, k + j1)
                np.maximum(known[j0 : j1 + 1], phis, out=known[j0 : j1 + 1])
                if j1 == ks.size - 1:
                    starts[f] = best
        out[k : kb + 1] = known
        low = float(known[-1])
        if tick is not None:
            tick(ks.size)
        k = kb + 1


def support_maxima(
    rows: np.ndarray,
    n: int,
    support: np.ndarray,
    *,
    floor: np.ndarray | None = None,
    starts: np.ndarray | None = None,
    tick: Tick | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """φ_s = max_f φ_{s,f} at each support point s, plus an upper bound of every φ_{s,f}.

    The maximum is exact; for a feature that provably cannot reach it only an upper bound
    is kept (enough to decide which features can matter inside a gap when refining).
    ``floor`` (one value per support point) stands for features handled elsewhere.
    """
    d = rows.shape[0]
    l_ = support.shape[0]
    phi = np.zeros(l_)
    upper = np.zeros((d, l_))
    if starts is None:
        starts = np.zeros(d, dtype=np.intp)
    idx = np.arange(d)
    buf = np.empty(min(CHUNK, max(1, n)))
    low = 0.0
    for i, s in enumerate(support.tolist()):
        best = low if floor is None else max(low, float(floor[i]))
        if d:
            bound = probe(rows, n, idx, starts, np.array([s]))[:, 0]
            upper[:, i] = bound
            for f in np.argsort(-bound, kind="stable"):
                if bound[f] <= best:
                    break
                value, start, complete = window_min(
                    rows[f], n, s, buf, stop_at=best, hint=int(starts[f])
                )
                starts[f] = start
                upper[f, i] = value
                if complete:
                    best = value
        phi[i] = best
        low = best
        if tick is not None:
            tick(1)
    return phi, upper


def support_minima(
    rows: np.ndarray, n: int, support: np.ndarray, tick: Tick | None = None
) -> np.ndarray:
    """φ_{s,f} of every row at every support point, shape (rows, len(support)).

    Per-feature scores need each feature's own value at every support point.
    """
    r = rows.shape[0]
    out = np.empty((r, support.shape[0]))
    for i, s in enumerate(support.tolist()):
        starts = n - s + 1
        step = max(1, min(starts, CHUNK // max(1, r)))
        col = np.full(r, np.inf)
        for c0 in range(0, starts, step):
            c1 = min(starts, c0 + step)
            diff = rows[:, s - 1 + c0 : s - 1 + c1] - rows[:, c0:c1]
            np.minimum(col, diff.min(axis=1), out=col)
        out[:, i] = col
        if tick is not None:
            tick(1)
    return out
