"""``reprokg compare``: reproducibility measures for original vs reproduced runs.

Runs and qrels are given by path or by stored document id; ``--format json`` prints the
comparison object (docs/comparisons.md), ``--save`` stores it as a ``comparison``
document (with the run and qrels documents read from files), so *reproductions of a
DOI* finds it.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reprokg.cli.base import (
    Command,
    add_store_option,
    exit_quickly,
    keep_freed_memory,
    saved_id,
    store_location,
    tell,
)

if TYPE_CHECKING:
    from reprokg.evidence.verdicts import ComparisonVerdict, Verdict
    from reprokg.measures.headline import ComparisonSummary
    from reprokg.measures.run_comparison import RunComparison


def register(command: Command) -> None:
    p = command(
        "compare",
        "reproducibility measures (KTU, RBO, RMSE, nRMSE, p-values, ER, DRI), the PRIMAD "
        "signature, and paired tests, effect sizes and intervals with corrected p-values, of "
        "original vs reproduced runs",
        _compare,
    )
    p.add_argument("--qrels", required=True, metavar="Q", help="qrels file or document id")
    p.add_argument("--orig-base", required=True, metavar="RUN", help="original baseline run")
    p.add_argument("--orig-adv", metavar="RUN", help="original advanced run")
    p.add_argument("--rep-base", required=True, metavar="RUN", help="reproduced baseline run")
    p.add_argument("--rep-adv", metavar="RUN", help="reproduced advanced run")
    p.add_argument(
        "--qrels-rpl",
        metavar="Q2",
        help="qrels judging the reproduced runs (cross-collection study)",
    )
    p.add_argument("--collection", help="ir_datasets id of the --qrels test collection")
    p.add_argument("--collection-rpl", help="ir_datasets id of the --qrels-rpl test collection")
    p.add_argument("--format", choices=["table", "json"], default="table")
    add_store_option(p)
    p.add_argument("--save", action="store_true", help="store the comparison as a document")
    p.add_argument(
        "--order",
        choices=["file", "score"],
        default="file",
        help="rankings for KTU/RBO: file order as repro_eval (default) or score order",
    )
    p.add_argument(
        "--rbo-extrapolated",
        action="store_true",
        help="Webber's extrapolated RBO instead of repro_eval's truncated normalised RBO",
    )
    p.add_argument("--rbo-p", type=float, help="RBO persistence (default: repro_eval's)")
    p.add_argument("--depth", type=int, help="ranking cutoff (default: repro_eval's)")
    p.add_argument(
        "--measures",
        help="comma-separated ir-measures names (default: repro_eval's 58 trec_eval measures)",
    )
    p.add_argument(
        "--correction",
        choices=["holm", "bonferroni", "hochberg", "hommel", "BH", "fdr", "BY", "none"],
        default="holm",
        help="multiple-comparison correction of each test's p-values over every measure and "
        "side, as R's p.adjust (default holm)",
    )
    p.add_argument(
        "--resamples",
        type=int,
        default=9999,
        help="Monte Carlo resamples of the randomization test (when not exact) and the "
        "bootstrap intervals (default 9999, scipy's)",
    )
    p.add_argument("--seed", type=int, default=0, help="their random seed (default 0)")
    p.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="NAME",
        help="a declared acceptance rule (a preset such as er-within-10pct, or a rule of "
        "--rules): the verdict with its evidence, stored with --save; repeatable. Without a "
        "rule there is no verdict",
    )
    p.add_argument("--rules", metavar="FILE", help="a YAML file of your own named rules")
    p.add_argument(
        "--measure",
        action="append",
        default=[],
        metavar="NAME",
        help="an effectiveness measure the summary reports (repeatable; default: the measures "
        "the rules judge, else those the original run reports, else AP, P@10 and nDCG@10)",
    )
    p.add_argument(
        "--full",
        action="store_true",
        help="after the summary, every measure and statistic (the full tables) and each "
        "rule's verdict in detail",
    )


def _needs_store(args: argparse.Namespace) -> bool:
    from reprokg.measures.inputs import looks_like_document_id

    refs = [args.qrels, args.orig_base, args.orig_adv, args.rep_base, args.rep_adv, args.qrels_rpl]
    ids = any(r and not Path(r).exists() and looks_like_document_id(r) for r in refs)
    return bool(args.save or args.store or ids)


def _compare(args: argparse.Namespace) -> int:
    # a command of a second or less that makes ~10^6 objects and no garbage cycles: the
    # cyclic collector ran often for nothing (benchmarks/README.md#figures-once-quoted-in-code);
    # back on after
    gc_was_on = gc.isenabled()
    gc.disable()
    kept = keep_freed_memory()
    # one BLAS thread: the statistics' matrix products are small (10^4 x 50 x 58), and the
    # command already puts the second core to work with a forked child; OpenBLAS's threads
    # spun against it (perf: blas_thread_server). Read when numpy loads, which is below.
    if "numpy" not in sys.modules:
        from reprokg.core.settings import one_blas_thread

        one_blas_thread()
    try:
        return _compare_runs(args)
    finally:
        if kept:
            keep_freed_memory(False)
        if gc_was_on:
            gc.enable()


def _compare_runs(args: argparse.Namespace) -> int:
    from reprokg.measures.compare_refs import compare_refs
    from reprokg.measures.effectiveness import DEFAULT_MEASURES
    from reprokg.measures.registry import Options

    rules = _rules(args)  # an unknown rule is refused before any run is read
    store = None
    if _needs_store(args):
        from reprokg.cli.base import open_cli_store

        store = open_cli_store(args.store, read_only=not args.save, create=args.save)
    try:
        measures = (
            tuple(m.strip() for m in args.measures.split(",") if m.strip())
            if args.measures
            else DEFAULT_MEASURES
        )
        given = {"depth": args.depth, "rbo_p": args.rbo_p}  # unset: the registry's defaults
        from reprokg.stats.multiplicity import correction_name

        options = Options(
            measures=measures,
            order=args.order,
            rbo_extrapolated=args.rbo_extrapolated,
            correction=correction_name(args.correction),
            resamples=args.resamples,
            seed=args.seed,
            **{k: v for k, v in given.items() if v is not None},
        )
        study = compare_refs(
            args.qrels,
            [args.orig_base, args.rep_base, args.orig_adv, args.rep_adv],
            options,
            store=store,
            qrels_rpl=args.qrels_rpl,
            collection=args.collection,
            collection_rpl=args.collection_rpl,
        )
        out: dict[str, Any] = dict(study.to_json())
        verdicts: list = []
        whole = None
        if args.save:
            from reprokg.ingest import write_result  # validation and the store: only when saving

            assert store is not None  # --save opened it
            saved = write_result(store, study, inputs=study.source_documents())
            out["iri"] = str(saved.subject)
            tell(
                f"saved the comparison as {saved_id(store, out['iri'])} ({out['iri']}) "
                f"in the store {store_location(args.store)}"
            )
            if rules:
                from reprokg.evidence.verdicts import verdicts_on_saved

                verdicts, whole = verdicts_on_saved(store, study, out["iri"], rules)
                write_result(store, whole, inputs=whole.rule_documents())
        elif rules:
            from reprokg.evidence.verdicts import verdicts_of

            verdicts, whole = verdicts_of(study, rules)
        if verdicts:
            out["verdicts"] = [v.to_json() for v in verdicts]
        if whole is not None:
            out["verdict"] = whole.to_json()
        summary = summarise(study, rules, verdicts, whole, args.measure, out.get("iri"))
        if args.format == "json":
            json.dump({"summary": summary.to_json(), **out}, sys.stdout, indent=2)
            sys.stdout.write("\n")
        else:
            sys.stdout.write("\n".join(summary.lines()) + "\n")
            if args.full:
                sys.stdout.write("\n" + format_table(study, out.get("iri")))
                for v in verdicts:
                    sys.stdout.write(format_verdict(v, stored=args.save))
                if whole is not None:
                    sys.stdout.write(format_comparison_verdict(whole, stored=args.save))
            else:
                sys.stdout.write(format_rest(study, summary.more))
        if store is None:
            exit_quickly()  # nothing to close: skip freeing the rankings at exit
        return 0
    finally:
        if store is not None:
            store.close()


def summarise(
    study: RunComparison,
    rules: list,
    verdicts: list,
    whole: ComparisonVerdict | None,
    chosen: list[str],
    stored: str | None = None,
) -> ComparisonSummary:
    """The comparison's summary (measures/headline.py): runs, collection, PRIMAD in words,
    the headline measures with their intervals, the verdict and its reason."""
    from reprokg.measures.headline import comparison_summary, flat_values, verdict_summary

    c = study.comparison
    runs = {}
    for role, inp in study.inputs.items():
        tag = inp.run.tag
        runs[role] = f"{inp.name}" + (f" (tag {tag})" if tag and tag != inp.name else "")
    collection = _collection_text(study)
    verdict = None
    if whole is not None:
        reasons = []
        for v in verdicts:
            prefix = f"{v.rule.name}: " if len(verdicts) > 1 else ""
            reasons += [prefix + r.text() for r in v.results]
            reasons += [prefix + f"insufficient evidence: {s}" for s in v.shortfall]
        w = whole.to_json()
        reasons.append(f"judges {w['work']}")
        verdict = verdict_summary(w["outcome"], [v.rule.name for v in verdicts], reasons)
    reported = [ir for ir, _mean in study.reported.get("orig_base", {}).values() if ir]
    return comparison_summary(
        title=study.title,
        study=study_kind_label(c.primad),
        runs=runs,
        collection=collection,
        kind=c.kind,
        primad=c.primad,
        values=flat_values(c.measures),
        available=list(c.options.measures),
        chosen=chosen,
        judged=[cond.at for r in rules for cond in r.conditions if cond.at],
        reported=reported,
        level=c.options.level,
        verdict=verdict,
        stored=stored,
    )


def _collection_text(study: RunComparison) -> str:
    """The test collection(s) by name (:meth:`RunComparison.collections`, as the title
    names them), and the qrels that judged the runs."""
    q = study.qrels
    text = f"{', '.join(study.collections('orig')) or 'not named'} (qrels {q.name})"
    if study.qrels_rpl is not None:
        rep = ", ".join(study.collections("rep")) or "not named"
        text += f"; reproduced runs: {rep} (qrels {study.qrels_rpl.name})"
    return text


def format_rest(study: RunComparison, more: int) -> str:
    """Under the summary: the comparison's warnings and where the rest is."""
    c = study.comparison
    lines = [""]
    lines += [f"warning: {w}" for w in c.warnings]
    lines.append(
        f"(--full: all {len(c.options.measures)} effectiveness measures ({more} more) with "
        "RMSE, p-values, effect sizes and intervals; --measure NAME to choose the headline)"
    )
    return "\n".join(lines) + "\n"


def _rules(args: argparse.Namespace) -> list:
    """The acceptance rules asked for (resolved before anything is computed)."""
    if not args.rule:
        if args.rules:
            from reprokg.core.errors import UsageError

            raise UsageError("--rules names a file of rules; choose one with --rule NAME")
        return []
    from reprokg.evidence.verdicts import resolve

    return [resolve(name, args.rules) for name in args.rule]


def format_verdict(verdict: Verdict, stored: bool = False) -> str:
    """One verdict: the rule, the outcome, each condition with its value."""
    v = verdict.to_json()
    lines = [f"\nverdict  {v['outcome']} (rule {v['rule']['name']})"]
    lines += [f"  {c}" for c in (r.text() for r in verdict.results)]
    lines += [f"  insufficient evidence: {r}" for r in v["insufficient_evidence"]]
    if stored:
        lines.append(f"  stored {v['assessment']}")
    return "\n".join(lines) + "\n"


def format_comparison_verdict(whole: ComparisonVerdict, stored: bool = False) -> str:
    """The comparison's one verdict over its rules, and the work it judges."""
    v = whole.to_json()
    names = ", ".join(r["name"] for r in v["rules"])
    lines = [
        f"\ncomparison verdict  {v['outcome']} (rules {names}: reproduced only if every rule "
        "says reproduced)",
        f"  judges {v['work']}: {v['reason']}",
    ]
    if v["warnings"]:
        lines.append(f"  with the comparison's {len(v['warnings'])} warning(s) above")
    if stored:
        lines.append(f"  stored {v['assessment']}")
    return "\n".join(lines) + "\n"


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.4f}"


def study_kind_label(signature: str | None) -> str:
    """The study kind as the pages show it (one label function: measures.primad's)."""
    if not signature:
        return "-"  # a run without a header: nothing to import rdflib for
    from reprokg.measures.primad import study_kind_label as label

    return label(signature)


def format_table(study: RunComparison, iri: str | None = None) -> str:
    """A trec_eval-like table: one row per effectiveness measure."""
    c = study.comparison
    m = c.measures
    lines = [
        study.title,
        f"PRIMAD   {c.primad or '-'}",
        f"kind     {c.kind}",
        f"study    {study_kind_label(c.primad)}",
    ]
    if iri:
        lines.append(f"stored   {iri}")
    for name in ("ktu", "rbo"):
        if name in m:
            sides = "  ".join(f"{s} {_fmt(v)}" for s, v in m[name].items())
            lines.append(f"{name.upper():<8} {sides}")
    cols = []
    for name in ("rmse", "nrmse", "pvalue"):
        for side in ("baseline", "advanced"):
            if name in m and side in m[name]:
                cols.append((f"{name}:{side[:4]}", m[name][side]))
    for name in ("er", "dri", "dri_low", "dri_high"):  # ΔRI's interval beside ΔRI
        if name in m:
            cols.append((name, m[name]))
    if cols:
        effs = list(cols[0][1])
        width = max(len(e) for e in effs) + 2
        lines.append("")
        lines.append("measure".ljust(width) + "".join(f"{h:>12}" for h, _ in cols))
        for e in effs:
            lines.append(e.ljust(width) + "".join(f"{_fmt(v.get(e)):>12}" for _, v in cols))
    lines += _statistics_table(c)
    if c.warnings:
        lines.append("")
        lines += [f"warning: {w}" for w in c.warnings]
    return "\n".join(lines) + "\n"


def _statistics_table(c) -> list[str]:
    """Per side: the mean difference with its interval, d_z with its interval and the
    three tests' corrected p-values, one row per effectiveness measure."""
    m = c.measures
    if "dz" not in m and "pvalue_adjusted" not in m:
        return []
    opts = c.options
    lines = [
        "",
        f"statistics: original - reproduced; {opts.level:.0%} intervals (mean: BCa bootstrap, "
        f"{opts.resamples} resamples, seed {opts.seed}; d_z: noncentral t); p-values "
        f"corrected by {opts.correction} over every measure and side",
    ]
    cols = [
        ("mean diff", "mean_diff", None),
        ("interval", "mean_diff_low", "mean_diff_high"),
        ("d_z", "dz", None),
        ("interval", "dz_low", "dz_high"),
        ("p t adj", "pvalue_adjusted", None),
        ("p W adj", "wilcoxon_adjusted", None),
        ("p rand adj", "randomization_adjusted", None),
    ]
    cols = [col for col in cols if col[1] in m]
    for side in ("baseline", "advanced"):
        first = m[cols[0][1]] if cols else {}
        if side not in first:
            continue
        effs = list(first[side])
        width = max(len(e) for e in effs) + 2
        lines.append(f"{side}")
        head = "".join(f"{h:>20}" if hi else f"{h:>11}" for h, _, hi in cols)
        lines.append("measure".ljust(width) + head)
        for e in effs:
            cells = []
            for _, lo, hi in cols:
                if hi is None:
                    cells.append(f"{_fmt(m[lo][side].get(e)):>11}")
                else:
                    pair = f"[{_fmt(m[lo][side].get(e))}, {_fmt(m[hi][side].get(e))}]"
                    cells.append(f"{pair:>20}")
            lines.append(e.ljust(width) + "".join(cells))
    return lines
