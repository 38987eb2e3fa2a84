"""``reprokg passport DOI|IRI --store S [--format text|json]``: what the graph knows of a paper,
led by its title, identifiers and whether it was reproduced (the same data as the web view
``/paper``: one verdict summary over every source, each assessment with its source,
outcome, evidence and date)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from reprokg.cli.base import Command, add_store_option

if TYPE_CHECKING:
    from reprokg.evidence.passport import Passport


def register(command: Command) -> None:
    p = command(
        "passport",
        "a paper's reproducibility passport: was it reproduced (every source's verdict, "
        "with its evidence), then everything else the graph joins on it",
        _passport,
    )
    p.add_argument(
        "work",
        metavar="DOI|IRI|ID",
        help="a DOI (bare, doi: or https://doi.org/), an IRI, or an id reprokg list prints",
    )
    add_store_option(p)
    p.add_argument("--format", choices=["text", "json"], default="text")
    runs = p.add_mutually_exclusive_group()
    runs.add_argument(
        "--runs-offset",
        type=int,
        default=0,
        metavar="N",
        help="the page of runs naming the paper that starts after N runs (pages of 100)",
    )
    runs.add_argument(
        "--all-runs", action="store_true", help="every run naming the paper, not a page"
    )


def _passport(args: argparse.Namespace) -> int:
    from reprokg.cli.base import open_cli_store
    from reprokg.evidence.passport import RUNS_PAGE, passport, resolve_work

    with open_cli_store(args.store, read_only=True) as store:
        found = passport(
            store,
            resolve_work(store, args.work),
            runs_offset=args.runs_offset,
            runs_limit=None if args.all_runs else RUNS_PAGE,
        )
    if args.format == "json":
        json.dump(found.to_json(), sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
        return 0
    sys.stdout.write(format_text(found))
    return 0


def format_text(found: Passport) -> str:
    """The answer first: title (or, once, that no source gives one), identifiers, one line
    per kind of evidence; then each decision with its sources; then what else the graph
    joins on the work, each count saying what it counts."""
    s = found.summary
    ids = " · ".join(f"{scheme} {value}" for scheme, value in found.labelled_identifiers)
    lines = [found.title or "Untitled: no source in the graph gives this paper's title", ids]
    if found.published:
        lines.append(f"published in {found.published}")
    lines.append("")
    if found.resolved_from:
        lines.append(f"(found through its artifact {found.resolved_from})")
    for o in found.replication_of:
        lines.append(f"A replication of {o.get('title') or o['original']} ({o['original']})")
    if not s.decisions:
        lines.append("Was it reproduced? " + s.text)
    else:
        lines.append("Was it reproduced?")
        if s.conflict:
            titled = sum(c.title is not None for c in s.claims)
            lines.append(f"  This DOI is claimed by {titled} works, each with its own evidence:")
        for c in s.claims:
            indent = "  "
            if s.conflict:
                lines.append(f"  «{c.title or 'no title given'}»")
                indent = "    "
            lines += [indent + line for line in c.lines]
    for a in found.artifacts:  # next to the badge: is the artifact still there?
        if a.accessible is not None:
            lines.append(f"  {a.text}")
    if found.links:  # records of other sources naming the work without a shared identifier
        accepted = sum(link.accepted for link in found.links)
        lines.append(f"Linked across sources: {accepted} accepted of {len(found.links)}")
        lines += [f"  {link.text}" for link in found.links]
    decisions = [d.to_json() for d in found.decisions]
    if decisions:
        lines.append("")
        extra = f" stated by {s.records} records" if s.records != s.decisions else ""
        lines.append(
            f"{s.decisions} decision{'s' if s.decisions != 1 else ''} on whether it was "
            f"reproduced{extra}, each with its source:"
        )
    for v in decisions:
        state = " [superseded]" if v["superseded_by"] else " [disputed]" if v["disputed"] else ""
        where = " ".join(str(x) for x in (v["venue"], v["year"]) if x)
        lines.append(
            f"  {v['kind_label'] + ': ' + v['outcome_label']:<40} {v['source']}"
            f"{' (' + where + ')' if where else ''}"
            f"{', rule ' + v['rule'] if v['rule'] else ''}, {v['date'] or 'no date'}{state}"
        )
        if s.conflict:
            lines.append(f"  {'':<40} for «{v['claimed_title'] or 'no title given'}»")
        if v["note"]:
            lines.append(f"  {'':<40} {v['note']}")
        if v.get("by"):
            lines.append(f"  {'':<40} by {', '.join(v['by'])}")
        for caveat in v.get("caveats", []):
            if v["note"] and caveat in v["note"]:
                continue  # the note above says it already
            lines.append(f"  {'':<40} note: {caveat}")
        for link in v["links"]:
            lines.append(f"  {'':<40} {link}")
        for d in v.get("disputes", []):
            who = d["by_name"] or d["by"] or "someone"
            when = f" ({d['date'][:10]})" if d["date"] else ""
            lines.append(f"  {'':<40} disputed by {who}{when}: {d['reason']}")
    lines.append("")
    counts = found.counts()
    held = [c for c in counts if c.n]
    if held:
        lines.append("Also in the graph:")
        lines += [f"  {c.n:>3} {c.what}" for c in held]
    missing = [c.what for c in counts if not c.n]
    if missing:
        lines.append("Not in the graph: " + "; ".join(missing))
    return "\n".join(lines) + "\n"
