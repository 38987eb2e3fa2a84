"""A comparison of runs named by path or stored document id: the one way the CLI and the
Python API compute it.

Runs given as files of a megabyte or more are read in parallel: a cross-collection
study's advanced runs by a forked child while this process reads the qrels and the
baselines; a same-collection study's child reads the advanced runs and goes on to
compute their side of the comparison (:func:`reprokg.measures.comparison.advanced_side`),
so neither process copies the other's runs. The HTTP twin (``POST /comparisons``) is
given bytes, not paths: it parses them in its analysis worker and computes the same
comparison with :func:`~reprokg.measures.run_comparison.compare_inputs`, which this calls
too. Smaller runs, document ids, or a busy second core: everything in order, here.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

from reprokg.measures.inputs import QrelsInput, RunInput, resolve_qrels, resolve_run
from reprokg.measures.registry import Options
from reprokg.measures.run_comparison import RunComparison, compare_inputs

if TYPE_CHECKING:
    from reprokg.core.forked import Later
    from reprokg.measures.comparison import Side
    from reprokg.store.base import Store

#: run file bytes read in a forked child below which the fork costs more than it saves
CHILD_MIN_BYTES = 1_000_000


def compare_refs(
    qrels: str,
    refs: Sequence[str | None],
    options: Options,
    *,
    store: Store | None = None,
    qrels_rpl: str | None = None,
    collection: str | None = None,
    collection_rpl: str | None = None,
) -> RunComparison:
    """Compare the runs ``refs`` (original and reproduced baseline, then the optional
    advanced runs: paths or document ids in ``store``) judged by ``qrels``
    (``qrels_rpl``: the reproduced runs' own collection)."""
    orig_base, rep_base, orig_adv, rep_adv = (list(refs) + [None, None])[:4]
    # files only: a store is not shared with a forked child
    later = _read_in_child([orig_adv, rep_adv]) if store is None and qrels_rpl else None
    steps = None
    try:
        q = resolve_qrels(qrels, store, collection)
        q_rpl = resolve_qrels(qrels_rpl, store, collection_rpl) if qrels_rpl else None
        if store is None and not qrels_rpl:
            steps = _advanced_in_child(q, [orig_adv, rep_adv], options)
        runs = [resolve_run(r, store) if r else None for r in (orig_base, rep_base)]
        if later is not None:
            runs += later.result()
        elif steps is not None:
            runs += cast("list[RunInput | None]", steps[0].result())
        else:
            runs += [resolve_run(r, store) if r else None for r in (orig_adv, rep_adv)]
        ob, rb = runs[0], runs[1]
        assert ob is not None and rb is not None  # both baselines are required
        return compare_inputs(
            q,
            ob,
            rb,
            runs[2],
            runs[3],
            q_rpl,
            options,
            advanced=cast("Later[Side]", steps[1]) if steps is not None else None,
        )
    finally:
        for pending in [later, *(steps or [])]:
            if pending is not None:
                pending.discard()


def _worth_a_child(refs: Sequence[str | None]) -> bool:
    """Whether the runs ``refs`` are files large enough to be read by a forked child."""
    paths = [Path(r) for r in refs if r]
    if not all(p.is_file() for p in paths):
        return False  # a document id or a missing file: read (or reported) in order
    return sum(p.stat().st_size for p in paths) >= CHILD_MIN_BYTES


def _read_in_child(refs: list[str | None]) -> Later[list[RunInput | None]] | None:
    """The runs ``refs`` read by a forked child while this process reads the qrels and the
    baselines (runs come back pickled, in a fraction of the time reading them takes);
    None when they are too small."""
    from reprokg.core.forked import in_child

    if not _worth_a_child(refs):
        return None
    return in_child(lambda: [resolve_run(r, None) if r else None for r in refs], when_idle=True)


def _advanced_in_child(
    qrels: QrelsInput, refs: list[str | None], options: Options
) -> list[Later[object]] | None:
    """A same-collection study's advanced runs read by a forked child, which sends them
    back (without their rankings where nothing reads them later: no header) and goes on to
    compute their side of the comparison while this process reads the baselines and
    computes theirs. None when the runs are too small (or only one is given)."""
    from reprokg.core.forked import in_child_steps
    from reprokg.measures.comparison import advanced_side

    if not all(refs) or not _worth_a_child(refs):
        return None

    def steps() -> Iterator[object]:
        read = [resolve_run(r, None) for r in refs if r is not None]
        yield [r if r.has_header or r.document is not None else r.without_rankings() for r in read]
        yield advanced_side(qrels.qrels, read[0].run, read[1].run, options)

    return in_child_steps(steps, 2, when_idle=True)
