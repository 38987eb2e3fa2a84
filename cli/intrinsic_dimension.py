"""``reprokg intrinsic-dimension``: the geometric intrinsic dimension of a data set.

Imports only argparse at module level; numpy, pandas and the computation load in the
handler (tests/cli/test_startup.py).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from typing import Any, TextIO

from reprokg.cli.base import Command, add_store_option, saved_id, store_location, tell


def register(command: Command) -> None:
    p = command(
        "intrinsic-dimension",
        "geometric intrinsic dimension of a data set: exact, bounded, per feature, along "
        "graph hops",
        _intrinsic_dimension,
    )
    p.usage = (
        "reprokg intrinsic-dimension DATA [--exact] [--support N] [--features] "
        "[--hops K --graph EDGES] [--columns NAME ...] [--dataset IRI|DOI] "
        "[--format table|json] [--save] [--store DIR|URL]"
    )
    p.add_argument("data", metavar="DATA", help="a CSV with a header row, a .npy or a .npz")
    p.add_argument(
        "--exact",
        action="store_true",
        help="the exact value (default below 100,000 points); with --support also the "
        "bounds, refined to the exact value",
    )
    p.add_argument(
        "--support",
        type=int,
        metavar="N",
        help="bound the ID with a support sequence of length N (the authors' geometric "
        "sequence; default 10,000 from 100,000 points on)",
    )
    p.add_argument(
        "--features",
        action="store_true",
        help="also the normalized intrinsic dimension of every feature and its rank",
    )
    p.add_argument(
        "--score",
        choices=["fscod", "range"],
        default="fscod",
        help="per-feature score: fscod (Stubbemann et al. 2023b, the default) or range",
    )
    p.add_argument("--hops", type=int, metavar="K", help="also the ID after 1..K hops")
    p.add_argument(
        "--graph", metavar="EDGES", help="CSV of edges (two columns of 0-based row indices)"
    )
    p.add_argument(
        "--columns",
        nargs="+",
        metavar="NAME",
        help="the feature columns to use (names; for arrays 0-based indices); commas work too",
    )
    p.add_argument("--array", metavar="NAME", help="the array of an .npz holding several")
    p.add_argument(
        "--dataset",
        metavar="IRI|DOI",
        help="the data set the file holds (stored with --save; default: minted from the "
        "file's sha256)",
    )
    p.add_argument(
        "--dataset-name",
        metavar="NAME",
        help="the data set's name (stored with --save as rk:dataSetName; the pages call the "
        "estimate by it instead of the file's path)",
    )
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.add_argument(
        "--save",
        action="store_true",
        help="store the result as a document linked to the data set",
    )
    p.add_argument("--workers", type=int, metavar="N", help="threads (default: every core)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    add_store_option(p)


class ProgressBar:
    """A progress bar on ``stream`` for long runs: shown only on a terminal, only after
    ``delay`` seconds, redrawn at most every ``interval`` seconds (the hook is called from
    worker threads, so it only takes a lock and compares times)."""

    def __init__(
        self, stream: TextIO, *, delay: float = 1.0, interval: float = 0.1, width: int = 30
    ) -> None:
        self.stream = stream
        self.enabled = stream.isatty()
        self.start = time.monotonic()
        self.delay, self.interval, self.width = delay, interval, width
        self.last = 0.0
        self.shown = False
        self.lock = threading.Lock()

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < self.delay or (now - self.last < self.interval and done < total):
            return
        with self.lock:
            self.last = now
            frac = done / total if total else 1.0
            bar = "#" * int(frac * self.width)
            self.stream.write(
                f"\r{stage:>10} [{bar:<{self.width}}] {frac:6.1%} {now - self.start:6.1f}s"
            )
            self.stream.flush()
            self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def _columns(raw: list[str] | None) -> list[str] | None:
    if not raw:
        return None
    return [c.strip() for item in raw for c in item.split(",") if c.strip()]


def _intrinsic_dimension(args: argparse.Namespace) -> int:
    from reprokg.core.errors import UsageError

    if (args.hops is None) != (args.graph is None):
        raise UsageError("--hops K and --graph EDGES go together")
    if args.hops is not None and args.hops < 0:
        raise UsageError("--hops must be 0 or more")
    if args.support is not None and args.support < 2:
        raise UsageError("--support needs at least 2 points")

    from reprokg.intrinsic_dimension.features import SCORES
    from reprokg.intrinsic_dimension.io import read_data, read_edges
    from reprokg.intrinsic_dimension.result import analysis, default_support

    columns = _columns(args.columns)
    if args.dataset or args.save:  # rdflib and the store load only to link and save
        from reprokg.intrinsic_dimension.document import dataset_ref
    if args.dataset:
        dataset_ref(args.dataset, "")  # a bad identifier fails before the data is read
    table = read_data(args.data, columns=columns, array=args.array)
    dataset = (
        dataset_ref(args.dataset, table.sha256, args.dataset_name)
        if args.save or args.dataset
        else None
    )
    edges = read_edges(args.graph, table.n) if args.graph else None
    support = default_support(table.n, exact=args.exact, support=args.support)
    bar = ProgressBar(sys.stderr) if not args.no_progress else None
    try:
        done = analysis(
            table.values,
            table.names,
            support=support,
            exact=args.exact,
            features=args.features,
            score=SCORES[args.score],
            hops=args.hops,
            edges=edges,
            workers=args.workers,
            progress=bar,
        )
    finally:
        if bar is not None:
            bar.close()
    result = done.result.to_json()
    if args.format == "json":
        print(json.dumps(result, indent=2, allow_nan=False))
    else:
        print(format_table(dict(result), table, done))
    if args.save:
        from reprokg.cli.base import open_cli_store
        from reprokg.ingest import write_result
        from reprokg.intrinsic_dimension.document import stored_answer

        assert dataset is not None
        kept = done.result.stored(
            file_name=table.source,
            sha256=table.sha256,
            dataset=dataset,
            columns=columns,
            score=args.score,
        )
        with open_cli_store(args.store, create=True) as store:
            stored = stored_answer(kept, write_result(store, kept))
            stored_id = saved_id(store, stored["iri"])
        tell(
            f"{stored['status']}: {stored_id} {stored['iri']} (data set {stored['dataset']}) "
            f"in the store {store_location(args.store)}"
        )
    return 0


def _g(x: Any, digits: int = 10) -> str:
    return "∞ (null)" if x is None else f"{x:.{digits}g}"


def format_table(result: dict[str, Any], table: Any, done: Any) -> str:
    """The result for people: the data, the value or bounds, features, hops, warnings."""
    lines = [
        f"data                 {table.source} (sha256 {table.sha256[:12]}…)",
        f"points × features    {result['n']} × {result['d']}",
        f"observable diameter  {_g(result['observable_diameter'])}",
    ]
    if result["discriminability"] is not None:
        lines.append(f"discriminability     {_g(result['discriminability'], 15)}")
        lines.append(f"intrinsic dimension  {_g(result['id'], 15)}  (exact)")
    b = result["bounds"]
    if b is not None:
        lo, hi = b["discriminability"]
        id_lo, id_hi = b["id"]
        rel = b["relative_error"]
        lines.append(f"discriminability in  [{lo:.10g}, {hi:.10g}]")
        lines.append(
            f"intrinsic dimension in [{_g(id_lo)}, {_g(id_hi)}]  certified relative error "
            f"{'∞' if rel is None else f'{rel:.4%}'} ({len(b['support'])} support points)"
        )
    features = result["features"]
    if features is not None:
        lines.append("")
        lines.append(
            f"features (score {done.features.score.name}; rank 1 = highest NID, discarded first)"
        )
        width = max(24, *(len(name) for name in features))  # long CSV headers stay aligned
        lines.append(f"{'rank':>5}  {'feature':<{width}} {'delta':>14} {'NID':>16}")
        for name, f in sorted(features.items(), key=lambda kv: kv[1]["rank"]):
            lines.append(
                f"{f['rank']:>5}  {name:<{width}} {f['delta']:>14.8g} {_g(f['id'], 10):>16}"
            )
        from reprokg.intrinsic_dimension.features import discard_curve

        lines.append("")
        lines.append("discard curve: fraction discarded → share of the total δ that remains")
        for step in discard_curve(done.features):
            lines.append(
                f"  {step.fraction:4.1f}  {len(step.discarded):>5} feature(s)  "
                f"{step.remaining_share:8.4f}"
            )
    hops = result["hops"]
    if hops is not None:
        lines.append("")
        lines.append("hops  intrinsic dimension")
        for k, v in hops.items():
            lines.append(f"{k:>4}  {_g(v, 15)}")
    for w in result["warnings"]:
        lines.append(f"warning: {w}")
    return "\n".join(lines)
