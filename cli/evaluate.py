"""``reprokg evaluate``: the measures run headers report, computed on qrels, on leaderboards.

``reprokg evaluate RUN… --qrels Q [--save]`` evaluates each run's reported measures
(``research goal.evaluation.reported measures`` of its ir_metadata header) with the same
code ``reprokg compare`` uses for the runs it compares, prints them, and with ``--save``
stores them (and the run and qrels documents) as an ``evaluation`` document: each score on
the leaderboard of its measure on the run's test collection, which *find baselines* ranks.
"""

from __future__ import annotations

import argparse
import json
import sys

from reprokg.cli.base import Command, add_store_option, saved_id, store_location, tell


def register(command: Command) -> None:
    p = command(
        "evaluate",
        "evaluate the measures run headers report on qrels and put the scores on the "
        "leaderboards (--save)",
        _evaluate,
    )
    p.add_argument("runs", nargs="+", metavar="RUN", help="run files or stored document ids")
    p.add_argument("--qrels", required=True, metavar="Q", help="qrels file or document id")
    p.add_argument("--collection", help="ir_datasets id of the qrels' test collection")
    p.add_argument("--format", choices=["table", "json"], default="table")
    add_store_option(p)
    p.add_argument("--save", action="store_true", help="store the scores (an evaluation document)")


def _evaluate(args: argparse.Namespace) -> int:
    from pathlib import Path

    from reprokg.measures.evaluation import evaluate_runs
    from reprokg.measures.inputs import looks_like_document_id, resolve_qrels, resolve_run

    refs = [args.qrels, *args.runs]
    by_id = any(not Path(r).exists() and looks_like_document_id(r) for r in refs)
    store = None
    if args.save or args.store or by_id:
        from reprokg.cli.base import open_cli_store

        store = open_cli_store(args.store, read_only=not args.save, create=args.save)
    try:
        qrels = resolve_qrels(args.qrels, store, args.collection)
        ev = evaluate_runs(qrels, [resolve_run(r, store) for r in args.runs])
        out = ev.to_json()
        if args.save:
            assert store is not None  # --save opened it above
            from reprokg.ingest import write_result

            out["iri"] = str(write_result(store, ev, inputs=ev.source_documents()).subject)
            out["id"] = saved_id(store, out["iri"])
            tell(
                f"saved the evaluation as {out['id']} ({out['iri']}) "
                f"in the store {store_location(args.store)}"
            )
        if args.format == "json":
            json.dump(out, sys.stdout, indent=2)
            sys.stdout.write("\n")
        else:
            sys.stdout.write(format_table(out))
        return 0
    finally:
        if store is not None:
            store.close()


def format_table(out: dict) -> str:
    """One line per run and measure: tag, measure as reported, ir-measures name, score."""
    lines = []
    if out.get("iri"):
        lines.append(f"stored   {out['iri']}")
    for r in out["runs"]:
        name = r["tag"] or r["file"] or r["run"]
        board = r["leaderboard_collection"] or "no leaderboard (collection unknown)"
        lines.append(f"{name}  ({board})")
        for measure, s in r["scores"].items():
            lines.append(f"  {measure:<12} {s['ir_measures']:<12} {s['value']:.4f}")
    lines += [f"warning: {w}" for w in out["warnings"]]
    return "\n".join(lines) + "\n"
