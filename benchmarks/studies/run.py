"""Each registered study recomputed from its graph: how long reading and computing take.

    python benchmarks/studies/run.py [--runs 21] [--data ../shared/data] [--json out.json]

Builds a temporary embedded store from the real sources through their loaders — the 374
consolidated SIGGRAPH reviews, the 400 Gundersen & Kjensmo evaluations, the 221 Papers with
Code checklist rows, the 460 GRSI stamps and the four example audits — (not timed), then
times each study as ``reprokg study NAME`` runs it: ``read`` (its SPARQL SELECTs and the
typed frames), ``analyze`` (the statistics) and the whole ``run``, each the median wall and
CPU time of ``--runs`` warm runs after one cold run (the cold run includes importing
scipy/pandas and the query plans). Charts and
the write-back are timed too (once each, cold matplotlib excluded by a warm-up).
A benchmark, not a test: the machine is shared, so the load average is printed with it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

SOURCES = (
    "replicability_graphics/consolidatedData.json",
    "surveys/gundersen_kjensmo_2018/data/evaluations.csv",
    "surveys/pwc_code_checklist_neurips2019/notebooks/code_checklist-neurips2019.csv",
    "surveys/grsi_isenberg/publication_data/grsi_paper_data.json",
)


def timed(fn: Any, runs: int) -> tuple[float, float, float, Any]:
    """(cold wall seconds, median warm wall seconds, median warm CPU seconds, last result).
    CPU time (every thread of the process) is the steadier figure on a shared machine."""
    t0 = time.perf_counter()
    out = fn()
    cold = time.perf_counter() - t0
    wall, cpu = [], []
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return cold, statistics.median(wall), statistics.median(cpu), out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args(argv)

    from reprokg.ingest import write_result
    from reprokg.loaders.files import load_path
    from reprokg.store import open_store
    from reprokg.store.base import DocumentWrite
    from reprokg.studies.registry import REGISTRY

    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(Path(tmp) / "store")
        t0 = time.perf_counter()
        writes = []
        for src in [*(args.data / s for s in SOURCES), ROOT / "examples" / "audits"]:
            for doc in load_path(src):
                writes.append(DocumentWrite(doc.iri, list(doc.graph)))
        store.write_documents(writes)
        load_s = time.perf_counter() - t0
        triples = store.triple_count()
        load_avg = os.getloadavg()
        for name, study in REGISTRY.items():
            for method in (m.name for m in study.methods):
                c_read, w_read, p_read, inputs = timed(lambda s=study: s.read(store), args.runs)
                c_an, w_an, p_an, res = timed(
                    lambda s=study, i=inputs, m=method: s.analyze(i, m), args.runs
                )
                _, w_run, p_run, _ = timed(lambda s=study, m=method: s.run(store, m), args.runs)
                impl = study.impl()
                impl.charts(res, inputs, "svg")  # warm-up: matplotlib's first figure
                t0 = time.perf_counter()
                n_charts = len(impl.charts(res, inputs, "svg"))
                t_charts = time.perf_counter() - t0
                t0 = time.perf_counter()
                write_result(store, res)
                t_save = time.perf_counter() - t0
                rows.append(
                    {
                        "study": name,
                        "method": method,
                        "read_ms": w_read * 1e3,
                        "read_cpu_ms": p_read * 1e3,
                        "analyze_ms": w_an * 1e3,
                        "analyze_cpu_ms": p_an * 1e3,
                        "run_ms": w_run * 1e3,
                        "run_cpu_ms": p_run * 1e3,
                        "cold_ms": (c_read + c_an) * 1e3,
                        "charts_ms": t_charts * 1e3,
                        "charts": n_charts,
                        "save_ms": t_save * 1e3,
                    }
                )
        store.close()
    load_end = os.getloadavg()
    print(
        f"store: {len(writes)} documents, {triples} triples, written in {load_s:.1f} s "
        f"(not timed below); median of {args.runs} warm runs; {os.cpu_count()} CPUs, load "
        f"average {load_avg[0]:.1f} before, {load_end[0]:.1f} after\n"
    )
    head = (
        "| study | method | read: SPARQL + frame, ms (CPU) | analyze ms (CPU) | **run ms** (CPU) "
        "| cold read + analyze ms | charts (SVG) ms | save ms |"
    )
    print(head)
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['study']} | {r['method']} | {r['read_ms']:.0f} ({r['read_cpu_ms']:.0f}) | "
            f"{r['analyze_ms']:.0f} ({r['analyze_cpu_ms']:.0f}) | **{r['run_ms']:.0f}** "
            f"({r['run_cpu_ms']:.0f}) | {r['cold_ms']:.0f} | {r['charts_ms']:.0f} "
            f"({r['charts']}) | {r['save_ms']:.0f} |"
        )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "documents": len(writes),
                    "triples": triples,
                    "runs": args.runs,
                    "load_average": [load_avg[0], load_end[0]],
                    "rows": rows,
                },
                indent=2,
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
