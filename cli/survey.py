"""``reprokg survey-stats``: the code-replicability survey statistics recomputed from the graph."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from reprokg.cli.base import Command, add_store_option


def register(command: Command) -> None:
    p = command(
        "survey-stats",
        "recompute the code-replicability survey statistics from the graph",
        _survey_stats,
    )
    add_store_option(p)
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.add_argument(
        "--dataset", choices=["consolidated", "per-paper", "both"], default="consolidated"
    )
    p.add_argument("--save", action="store_true", help="write the result back as a document")
    p.add_argument("--charts", metavar="DIR", help="also write the charts (SVG, PNG) here")


def _survey_stats(args: argparse.Namespace) -> int:
    from reprokg.store import open_store
    from reprokg.survey import charts as sc
    from reprokg.survey.analysis import (
        DATASETS,
        analyze_frame,
        format_table,
        paper_frame,
        papers_query,
        save_result,
    )

    with open_store(args.store, read_only=not args.save) as store:
        datasets = DATASETS if args.dataset == "both" else (args.dataset,)
        frames = {d: paper_frame(store, d) for d in datasets}
        if all(f.empty for f in frames.values()):
            print("no survey papers in the store (load the survey data first)")
            return 1
        results = {d: analyze_frame(frames[d], papers_query(d)) for d in datasets}
        if args.format == "json":
            payload = results if args.dataset == "both" else results[args.dataset]
            print(json.dumps(payload, indent=2, default=str))
        else:
            for d, res in results.items():
                print(f"== {d} ({res['n_papers']} papers)")
                print(format_table(res))
                print()
        if args.charts:
            out = Path(args.charts)
            out.mkdir(parents=True, exist_ok=True)
            for d, res in results.items():
                for name in sc.CHARTS:
                    for fmt in sc.FORMATS:
                        chart = sc.render(name, res, frames[d], fmt)
                        (out / f"{d}-{name}.{fmt}").write_bytes(chart)
        if args.save:
            for d, res in results.items():
                iri = save_result(store, res, d)
                print(f"saved {d} analysis as {iri}")
    return 0
