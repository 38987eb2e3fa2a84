"""``reprokg qra DOI|--measure M``: the degree of reproducibility (QRA's CV*) of every
quantity the graph holds an original and reproductions of (docs/statistics.md)."""

from __future__ import annotations

import argparse
import json

from reprokg.cli.base import Command, add_store_option, saved_id, store_location, tell


def register(command: Command) -> None:
    p = command(
        "qra",
        "quantified reproducibility assessment: CV* (Belz et al. 2022) of every quantity the "
        "graph holds an original and reproductions of, for a paper or a measure",
        _qra,
    )
    add_store_option(p)
    p.add_argument("paper", nargs="?", metavar="DOI", help="the paper (a DOI or its IRI)")
    p.add_argument(
        "--measure",
        action="append",
        default=[],
        metavar="NAME",
        help="only this measure as the sources name it (BLEU, map, AP, test accuracy); repeatable",
    )
    p.add_argument(
        "--origin",
        action="append",
        choices=["audit", "comparison", "reported", "stability"],
        help="only values from audits, stored comparisons, runs' reported scores or "
        "stability studies (repeatable; default all)",
    )
    p.add_argument(
        "--scale-min",
        action="append",
        default=[],
        metavar="[MEASURE=]MIN",
        help="the lowest value of a measure's scale (subtracted so that it starts at 0, as "
        "QRA prescribes; default 0): MIN for every measure or MEASURE=MIN (repeatable)",
    )
    p.add_argument(
        "--level", type=float, default=0.95, help="confidence level of the intervals (0.95)"
    )
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.add_argument("--save", action="store_true", help="write the assessment back as a document")
    p.add_argument(
        "--full",
        action="store_true",
        help="every quantity: a stored comparison's at each of its effectiveness measures "
        "(default for a paper without --measure: the headline measures, AP, P@10, nDCG@10 "
        "and those the runs report; audits, reported scores and stability studies all)",
    )


def _qra(args: argparse.Namespace) -> int:
    from reprokg.cli.base import open_cli_store
    from reprokg.core.errors import UsageError
    from reprokg.measures.qra import ORIGINS, assess, paper_iri, scale_minima

    if not args.paper and not args.measure:
        raise UsageError("give a paper's DOI, or --measure NAME (or both)")
    paper = paper_iri(args.paper) if args.paper else None
    with open_cli_store(args.store, read_only=not args.save, create=args.save) as store:
        result = assess(
            store,
            paper,
            args.measure,
            origins=args.origin or ORIGINS,
            scale_min=scale_minima(args.scale_min),
            level=args.level,
        )
        shown = result if args.full or args.measure else result.headline_only()
        if args.format == "json":
            print(json.dumps(shown.to_json(), indent=2, allow_nan=False))
        else:
            print(format_table(dict(shown.to_json())))
        if args.save:
            from reprokg.ingest import write_result

            if not result.quantities:
                tell("nothing to save: no quantity was measured twice")
                return 0
            outcome = write_result(store, result)
            tell(
                f"saved quantified reproducibility assessment as "
                f"{saved_id(store, outcome.iri)} ({outcome.iri}) "
                f"({outcome.status}) in the store {store_location(args.store)}"
            )
    return 0


def _n(x: object, fmt: str = "{:.3f}") -> str:
    return "-" if x is None else fmt.format(x)


def format_table(out: dict) -> str:
    """The assessment for people: one line per quantity, its values under it."""
    lines = [
        f"QRA of {out['paper'] or ', '.join(out['measures'])} "
        f"(CV* in %, {round(100 * out['level'])}% interval; 0 = reproduced exactly)"
    ]
    for q in out["quantities"]:
        lines.append(
            f"{q['label']}  [{q['origin']}]  n={q['n']}  mean {_n(q['mean'], '{:.4g}')}  "
            f"CV* {_n(q['cv_star'])}  [{_n(q['cv_star_low'])}, {_n(q['cv_star_high'])}]"
        )
        for m in q["measurements"]:
            lines.append(f"    {m['value']:<12.6g} {m['role']:<12} {m['label']}")
        lines += [f"    ! {w}" for w in q["warnings"]]
    for a in out["agreements"]:
        lines.append(
            f"{a['measure']}: {a['label']} against the original over {a['n']} quantities: "
            f"r {_n(a['pearson_r'])}  rho {_n(a['spearman_rho'])}  tau_b {_n(a['kendall_tau'])}"
        )
    for c in out["concordances"]:
        lines.append(
            f"{c['measure']}: Kendall's W {_n(c['kendall_w'])} over {len(c['sources'])} "
            f"sources and {len(c['quantities'])} quantities"
        )
    lines += [f"! {w}" for w in out["warnings"]]
    if out.get("other_quantities"):
        lines.append(
            f"({out['other_quantities']} more quantities of other measures: --full, or "
            f"--measure NAME; shown: {', '.join(out['headline_measures'])} and the "
            "measures audits, runs and stability studies report)"
        )
    lines += [f"note: {n}" for n in out.get("notes", [])]
    return "\n".join(lines)
