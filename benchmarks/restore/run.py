"""A store from an N-Quads dump, as whole processes: ``reprokg restore`` against the ways
round it, on the same generated run data (:mod:`benchmarks.sparql.generate`).

    python -m benchmarks.restore.run [--triples 1000000] [--repeats 2] [--data DIR]

Each mode starts from an empty folder and runs the commands a user runs; wall time,
CPU time and peak RSS are those of the child processes (``os.wait4``), medians of
``--repeats``:

* ``reprokg-restore``      ``reprokg restore runs.nq --store DIR``: the documents, their
                           merge, the document count and the leaderboard ranks, compacted
                           (one bulk call for the quads, store/oxigraph.py ``restore``);
* ``bulk-load+rebuild``    pyoxigraph's ``bulk_load`` of the file, then
                           ``reprokg rebuild-merge --store DIR`` (what a store bulk-loaded
                           outside reprokg needs before it is served);
* ``pyoxigraph-bulk-load`` pyoxigraph's ``bulk_load`` alone: the engine's floor (no merge,
                           no count, no ranks), as ``python -c``.

For the code before the bulk restore (one transaction holding the whole dump), run the
``reprokg-restore`` mode with ``PYTHONPATH=DIR``, ``DIR/reprokg`` a checkout of it.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODES = ("reprokg-restore", "bulk-load+rebuild", "pyoxigraph-bulk-load")

BULK_LOAD = (
    "import sys, pyoxigraph as ox; s = ox.Store(sys.argv[1]); "
    "s.bulk_load(path=sys.argv[2], format=ox.RdfFormat.N_QUADS); s.flush()"
)


def _child(cmd: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak RSS (MB) of one command, run to its end."""
    with tempfile.TemporaryFile() as log:  # a file, not a pipe: nothing reads until the end
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        if os.waitstatus_to_exitcode(status) != 0:
            log.seek(0)
            raise SystemExit(f"{' '.join(cmd)} failed:\n{log.read().decode()[-4000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def run_mode(mode: str, nq: Path, work: Path) -> dict:
    store = work / "store"
    shutil.rmtree(store, ignore_errors=True)
    store.mkdir(parents=True)
    reprokg = [sys.executable, "-m", "reprokg"]
    if mode == "reprokg-restore":
        steps = [[*reprokg, "restore", str(nq), "--store", str(store)]]
    elif mode == "bulk-load+rebuild":
        steps = [
            [sys.executable, "-c", BULK_LOAD, str(store / "oxigraph"), str(nq)],
            [*reprokg, "rebuild-merge", "--store", str(store)],
        ]
    elif mode == "pyoxigraph-bulk-load":
        steps = [[sys.executable, "-c", BULK_LOAD, str(store / "oxigraph"), str(nq)]]
    else:
        raise SystemExit(f"unknown mode {mode}")
    timings = [_child(cmd) for cmd in steps]
    shutil.rmtree(store, ignore_errors=True)
    return {
        "seconds": sum(t[0] for t in timings),
        "steps_s": [round(t[0], 2) for t in timings],
        "cpu_seconds": sum(t[1] for t in timings),
        "maxrss_mb": max(t[2] for t in timings),
    }


def main(argv: list[str] | None = None) -> None:
    from benchmarks.sparql.generate import write

    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--triples", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--data", help="folder of an earlier run's runs.nq (reused)")
    ap.add_argument("--json", metavar="FILE", help="also write the results here")
    args = ap.parse_args(argv)

    work = Path(args.data or tempfile.mkdtemp(prefix="reprokg-bench-restore-"))
    work.mkdir(parents=True, exist_ok=True)
    nq = work / "runs.nq"
    if nq.is_file():
        with open(nq, "rb") as fh:
            quads = sum(1 for _ in fh)
        print(f"reusing {quads} quads in {nq}", flush=True)
    else:
        quads = write(str(nq), args.triples)
        print(f"generated {quads} quads in {nq}", flush=True)
    load_before = os.getloadavg()
    rows = []
    modes = args.modes.split(",")
    for _ in range(args.repeats):  # modes interleaved: a drift of the machine hits all
        for mode in modes:
            rows.append({"mode": mode, **run_mode(mode, nq, work)})
            print(f"  {mode}: {rows[-1]['seconds']:.1f} s {rows[-1]['steps_s']}", flush=True)
    floor = [r["seconds"] for r in rows if r["mode"] == "pyoxigraph-bulk-load"]
    base = statistics.median(floor) if floor else float("nan")
    print(f"\n{quads:,} quads, median of {args.repeats}; whole processes")
    before = " ".join(f"{x:.2f}" for x in load_before)
    after = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average (1, 5, 15 min) before: {before}, after: {after}")
    print(f"{'mode':22} {'wall s':>8} {'x bulk load':>11} {'CPU s':>8} {'peak RSS MB':>11}  runs")
    summary = []
    for mode in modes:
        mine = [r for r in rows if r["mode"] == mode]
        wall = statistics.median(r["seconds"] for r in mine)
        cpu = statistics.median(r["cpu_seconds"] for r in mine)
        rss = max(r["maxrss_mb"] for r in mine)
        runs = ", ".join(f"{r['seconds']:.1f}" for r in mine)
        print(f"{mode:22} {wall:8.1f} {wall / base:11.2f} {cpu:8.1f} {rss:11.0f}  {runs}")
        summary.append(
            {
                "mode": mode,
                "median_s": wall,
                "ratio_to_bulk_load": wall / base,
                "median_cpu_s": cpu,
                "peak_rss_mb": rss,
                "runs": mine,
            }
        )
    if args.json:
        Path(args.json).write_text(json.dumps({"quads": quads, "modes": summary}, indent=2))


if __name__ == "__main__":
    main()
