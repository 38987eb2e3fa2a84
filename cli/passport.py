"""``reprokg passport DOI|IRI --store S [--format text|json]``: what the graph knows of a paper,
led by whether it was reproduced (the same data as the web view ``/paper``: one verdict
summary over every source, each assessment with its source, outcome, evidence and date)."""

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


def _passport(args: argparse.Namespace) -> int:
    from reprokg.cli.base import open_cli_store
    from reprokg.core.identifiers import is_doi
    from reprokg.evidence.passport import passport, work_iri

    work = args.work.strip()
    with open_cli_store(args.store, read_only=True) as store:
        if is_doi(work):
            target = work_iri(work, None)
        elif ":" in work:
            target = work_iri(None, work)
        else:  # an id a command printed: what its document is about
            from reprokg.store.catalog import resolve

            target = work_iri(None, str(resolve(store, work).target))
        found = passport(store, target)
    if args.format == "json":
        json.dump(found.to_json(), sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
        return 0
    sys.stdout.write(format_text(found))
    return 0


#: the passport's other parts, in words (``assessments`` are GK2018's documentation ones)
PART_WORDS = {
    "authors": "authors",
    "reviews": "survey reviews",
    "assessments": "documentation assessments",
    "audits": "audits",
    "runs": "runs",
}


def format_text(found: Passport) -> str:
    """The answer first: title, identifiers, one line per kind of evidence; then each
    decision with its sources; then what else the graph joins on the work."""
    s = found.summary
    lines = [found.title or "(no source gives a title)", " · ".join(found.identifiers), ""]
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
        lines.append(f"{s.decisions} decision{'s' if s.decisions != 1 else ''}{extra}:")
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
            lines.append(f"  {'':<40} note: {caveat}")
        for link in v["links"]:
            lines.append(f"  {'':<40} {link}")
        for d in v.get("disputes", []):
            who = d["by_name"] or d["by"] or "someone"
            when = f" ({d['date'][:10]})" if d["date"] else ""
            lines.append(f"  {'':<40} disputed by {who}{when}: {d['reason']}")
    lines.append("")
    counts = [f"{len(found.authors)} authors"]
    counts += [
        f"{len(found.parts.get(k, []))} {w}" for k, w in PART_WORDS.items() if k != "authors"
    ]
    lines.append(
        "Also in the graph: " + ", ".join(counts) + f", {len(found.facts)} statements about it"
    )
    return "\n".join(lines) + "\n"
