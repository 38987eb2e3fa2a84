"""``reprokg stability``: the stability analysis of seed 003 (lme4/lmerTest's numbers) of a
study read from the graph."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from reprokg.cli.base import Command, add_store_option, saved_id, store_location, tell


def register(command: Command) -> None:
    p = command(
        "stability",
        "fit the stability model (value ~ experiment + (1 | seed) + (1 | repeat)) of a stored "
        "study and test H1-H3 as lme4/lmerTest do",
        _stability,
    )
    add_store_option(p)
    p.add_argument(
        "--study",
        metavar="IRI|ID",
        help="the study: IRI, id (last IRI segment, or a unique prefix) or title "
        "(default: the only study in the store)",
    )
    method = p.add_mutually_exclusive_group()
    method.add_argument(
        "--reml", dest="reml", action="store_true", default=True, help="fit by REML (default)"
    )
    method.add_argument("--ml", dest="reml", action="store_false", help="fit by ML")
    p.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="significance level of the decisions (default 0.05)",
    )
    p.add_argument(
        "--metric", help="which observed metric (default: the study's only or most observed one)"
    )
    p.add_argument(
        "--pair",
        action="append",
        default=[],
        metavar="A:B",
        help="also estimate the contrast A - B of two experiments (repeatable)",
    )
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.add_argument("--save", action="store_true", help="write the analysis back as a document")
    p.add_argument(
        "--charts", metavar="DIR", help="also write the chart (SVG and PNG) into this folder"
    )
    p.add_argument(
        "--list", action="store_true", help="list the stability studies in the store and stop"
    )
    p.add_argument(
        "--compare",
        nargs=2,
        metavar=("A", "B"),
        help="compare two experiments over their runs instead: ASO both ways, P(A>B) and the "
        "IQM with stratified-bootstrap intervals",
    )
    p.add_argument(
        "--cd",
        action="store_true",
        help="rank every experiment instead: Friedman test, Nemenyi critical difference "
        "(the diagram as SVG with --charts)",
    )
    p.add_argument(
        "--block",
        choices=["seed", "configuration", "repeat"],
        default="seed",
        help="--cd's blocks: one per seed (default), configuration or repeat",
    )
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed of --compare")


def _pairs(specs: list[str]) -> list[tuple[str, str]]:
    from reprokg.core.errors import UsageError

    out = []
    for spec in specs:
        a, sep, b = spec.partition(":")
        if not sep or not a or not b:
            raise UsageError(f"--pair expects A:B (two experiment names), not {spec!r}")
        out.append((a, b))
    return out


def _stability(args: argparse.Namespace) -> int:
    from reprokg.cli.base import open_cli_store
    from reprokg.stability.observations import list_studies
    from reprokg.stability.study import analyse_study, chart, check_alpha
    from reprokg.stability.table import format_table

    check_alpha(args.alpha)
    pairs = _pairs(args.pair)
    with open_cli_store(args.store, read_only=not args.save, create=args.save) as store:
        if args.list:
            studies = [s.to_json() for s in list_studies(store)]
            if args.format == "json":
                print(json.dumps(studies, indent=2))
            for s in studies if args.format == "table" else ():
                flag = "  (illustrative)" if s["illustrative"] else ""
                print(f"{s['id']}  {s['title'] or '(untitled)'}{flag}")
            if not studies:  # an empty answer says what was looked for, and where
                print(
                    f"no stability studies in {store_location(args.store)} "
                    "(reprokg load examples/stability adds one)",
                    file=sys.stderr,
                )
            return 0
        if args.compare or args.cd:
            return _seed_variance(args, store)
        analysis = analyse_study(
            store, args.study, reml=args.reml, alpha=args.alpha, metric=args.metric, pairs=pairs
        )
        if args.format == "json":
            print(json.dumps(analysis.result.to_json(), indent=2, allow_nan=False))
        else:
            title = analysis.study.title or ""
            metric = f" (metric: {analysis.metric})" if analysis.metric else ""
            print(
                format_table(
                    dict(analysis.result.to_json()), f"Stability analysis: {title}{metric}"
                )
            )
        if args.charts:
            out = Path(args.charts)
            out.mkdir(parents=True, exist_ok=True)
            stem = f"stability-{analysis.study.id}-{analysis.result.method.lower()}"
            for fmt in ("svg", "png"):
                path = out / f"{stem}.{fmt}"
                path.write_bytes(chart(analysis, fmt))
                print(f"wrote {path}", file=sys.stderr)
        if args.save:
            from reprokg.ingest import write_result

            outcome = write_result(store, analysis.result)
            tell(
                f"saved stability analysis as {saved_id(store, outcome.iri)} "
                f"({outcome.iri}, {outcome.status}) "
                f"in the store {store_location(args.store)}"
            )
    return 0


def _seed_variance(args: argparse.Namespace, store) -> int:
    """``--compare A B`` and ``--cd``: the study's runs of one metric, compared."""
    from reprokg.stability.seed_variance import seed_variance

    out, results = seed_variance(
        store,
        args.study,
        metric=args.metric,
        compare=tuple(args.compare) if args.compare else None,
        cd=args.cd,
        block=args.block,
        alpha=args.alpha,
        seed=args.seed,
    )
    if args.charts and "cd" in results:
        folder = Path(args.charts)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"cd-{out['study'].rstrip('/').rsplit('/', 1)[-1]}.svg"
        path.write_bytes(results["cd"].diagram(f"{out['title']}: {out['metric']}"))
        print(f"wrote {path}", file=sys.stderr)
    if args.format == "json":
        print(json.dumps({k: v for k, v in out.items() if k != "title"}, indent=2, allow_nan=False))
    else:
        print(_seed_variance_table(out))
    if args.save:
        from reprokg.ingest import write_result

        for result in results.values():
            outcome = write_result(store, result)
            tell(
                f"saved {result.KIND} as {saved_id(store, outcome.iri)} "
                f"({outcome.iri}, {outcome.status}) "
                f"in the store {store_location(args.store)}"
            )
    return 0


def _seed_variance_table(out: dict) -> str:
    lines = [f"study {out['study']}  metric {out['metric']}"]
    c = out.get("compare")
    if c:
        aso = c["aso"]
        p = c["p_a_beats_b"]
        lines += [
            f"{c['a']} ({c['runs']['a']} runs) vs {c['b']} ({c['runs']['b']} runs)",
            f"  ASO epsilon_min  A over B {aso['epsilon_min_a_over_b']:.4f}   "
            f"B over A {aso['epsilon_min_b_over_a']:.4f}   (< 0.5: almost stochastically better)",
            f"  P(A > B)         {p['value']:.4f}  [{p['low']:.4f}, {p['high']:.4f}]",
        ]
        for name, v in c["iqm"].items():
            lines.append(f"  IQM {name:<12} {v['value']:.4f}  [{v['low']:.4f}, {v['high']:.4f}]")
    cd = out.get("critical_difference")
    if cd:
        p = cd["friedman_pvalue"]
        lines.append(
            f"Friedman over {cd['blocks']} {cd['block']} blocks: p = "
            f"{'-' if p is None else f'{p:.4g}'}; Nemenyi CD = {cd['critical_difference']:.3f}"
        )
        for name, rank in sorted(cd["average_ranks"].items(), key=lambda kv: kv[1]):
            lines.append(f"  {rank:6.3f}  {name}")
    return "\n".join(lines)
