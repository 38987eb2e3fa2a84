"""``reprokg survey-stats``: the code-replicability study recomputed from the graph.

The name the command had before the studies were registered: it is ``reprokg study
siggraph2020`` with ``--dataset`` for the study's one option (cli/study.py).
"""

from __future__ import annotations

import argparse

from reprokg.cli.base import Command
from reprokg.cli.study import add_method_options


def register(command: Command) -> None:
    p = command(
        "survey-stats",
        "recompute the code-replicability survey statistics from the graph "
        "(= reprokg study siggraph2020)",
        _survey_stats,
    )
    add_method_options(p)
    p.add_argument(
        "--dataset", choices=["consolidated", "per-paper", "both"], default="consolidated"
    )


def _survey_stats(args: argparse.Namespace) -> int:
    from reprokg.cli.study import recompute_study

    return recompute_study(args, "siggraph2020", {"dataset": args.dataset})
