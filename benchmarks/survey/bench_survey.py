"""Survey analytics benchmark: the analysis from the graph vs the same statistics from the JSON.

    python benchmarks/survey/bench_survey.py [--runs 15] [--data ../shared/data]

Loads the 374 consolidated reviews (and the 454 per-paper site files, so the query has to
pick one data set out of a mixed graph) through the survey loader into a temporary
embedded store, then times, as the median of ``--runs`` runs:

* graph: SPARQL SELECT → pandas frame → all statistics (reprokg.survey.analysis)
* of which SPARQL + frame only
* JSON: read consolidatedData.json with pandas + the same statistics with scipy/statsmodels
  (``json_baseline.py``, no reprokg code)

and checks the two sides agree on every p-value. Not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import json_baseline  # noqa: E402

from reprokg.sparql.rows import select_rows  # noqa: E402
from reprokg.store import open_store  # noqa: E402
from reprokg.studies.registry import SIGGRAPH2020  # noqa: E402
from reprokg.studies.siggraph2020 import BH_FAMILY  # noqa: E402
from reprokg.survey import analysis as sa  # noqa: E402


def timed(fn: Callable[[], Any], runs: int) -> tuple[float, Any]:
    fn()  # warm-up (imports, statsmodels formula parser, query plan caches)
    times = []
    out = None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--data", type=Path, default=HERE.parents[2] / "shared" / "data")
    args = ap.parse_args()
    graphics = args.data / "replicability_graphics"
    consolidated = graphics / "consolidatedData.json"

    from reprokg.loaders import replicability_graphics as loader

    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(tmp)
        t0 = time.perf_counter()
        n_docs = 0
        for f in [consolidated, *sorted(graphics.glob("per_paper/*/*.json"))]:
            for doc in loader.load(f.read_bytes(), f.name):
                store.add_document(doc.iri, doc.graph)
                n_docs += 1
        load_s = time.perf_counter() - t0
        triples = store.triple_count()
        sparql = sa.papers_query("consolidated")

        def frame_only() -> Any:
            return sa.frame_from_rows(select_rows(store, sparql))

        # "corrected" leaves unscored codes out of the ANOVA, as the JSON baseline does
        t_graph, res = timed(lambda: SIGGRAPH2020.run(store, "corrected"), args.runs)
        t_frame, _ = timed(frame_only, args.runs)
        t_both, _ = timed(lambda: SIGGRAPH2020.run(store, "corrected", dataset="both"), args.runs)
        t_json, ref = timed(
            lambda: json_baseline.analyze(json_baseline.frame(consolidated)), args.runs
        )
        store.close()

    worst = max(abs(res.to_json()["tests"][tid]["p"] - ref["tests"][tid]["p"]) for tid in BH_FAMILY)
    print(
        f"store: {n_docs} documents, {triples} triples, loaded in {load_s:.1f} s (not timed below)"
    )
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"median of {args.runs} runs; {os.cpu_count()} CPUs, load average {load}\n")
    rows = [
        ("graph: SPARQL + pandas + all statistics (consolidated)", t_graph),
        ("  of which SPARQL SELECT + typed frame", t_frame),
        ("graph: both data sets (consolidated + per-paper)", t_both),
        ("JSON: pandas read + the same statistics (scipy/statsmodels)", t_json),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"| {'what':<{width}} | median (ms) |")
    print(f"|{'-' * (width + 2)}|-------------|")
    for label, t in rows:
        print(f"| {label:<{width}} | {t * 1000:11.1f} |")
    print(f"\nlargest |p(graph) - p(JSON)| over the eight tests: {worst:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
