"""``reprokg passport DOI|IRI --store S [--format text|json]``: what the graph knows of a paper,
led by whether it was reproduced (the same data as the web view ``/paper``: one verdict
summary over every source, each assessment with its source, outcome, evidence and date)."""

from __future__ import annotations

import argparse
import json
import sys

from reprokg.cli.base import Command, add_store_option


def register(command: Command) -> None:
    p = command(
        "passport",
        "a paper's reproducibility passport: was it reproduced (every source's verdict, "
        "with its evidence), then everything else the graph joins on it",
        _passport,
    )
    p.add_argument(
        "work", metavar="DOI|IRI", help="a DOI (bare, doi: or https://doi.org/) or an IRI"
    )
    add_store_option(p)
    p.add_argument("--format", choices=["text", "json"], default="text")


def _passport(args: argparse.Namespace) -> int:
    from reprokg.core.identifiers import is_doi
    from reprokg.service.web.routes.paper import paper_iri, passport
    from reprokg.store import open_store

    work = args.work.strip()
    target = paper_iri(work, None) if is_doi(work) else paper_iri(None, work)
    with open_store(args.store, read_only=True) as store:
        data = passport(store, target)
    if args.format == "json":
        json.dump(data, sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
        return 0
    sys.stdout.write(format_text(data))
    return 0


def format_text(data: dict) -> str:
    facts = data["facts"]
    title = next(
        (f["value"] for f in facts if f["property"] == "http://schema.org/name"), data["paper"]
    )
    s = data["verdict_summary"]
    lines = [str(title), data["paper"], "", "Was it reproduced? " + s["text"]]
    for v in data["verdicts"]:
        state = " [superseded]" if v["superseded_by"] else " [disputed]" if v["disputed"] else ""
        where = " ".join(str(x) for x in (v["venue"], v["year"]) if x)
        lines.append(
            f"  {v['outcome_label']:<22} {v['source']}{' (' + where + ')' if where else ''}, "
            f"{v['method']}{' rule ' + v['rule'] if v['rule'] else ''}, {v['date'] or 'no date'}"
            f"{state}"
        )
        if v["note"]:
            lines.append(f"  {'':<22} {v['note']}")
        for link in v["links"]:
            lines.append(f"  {'':<22} {link}")
        for d in v.get("disputes", []):
            who = d["by_name"] or d["by"] or "someone"
            when = f" ({d['date'][:10]})" if d["date"] else ""
            lines.append(f"  {'':<22} disputed by {who}{when}: {d['reason']}")
    lines.append("")
    counts = {k: len(data[k]) for k in ("authors", "reviews", "assessments", "audits", "runs")}
    lines.append(
        "Also: " + ", ".join(f"{n} {k}" for k, n in counts.items()) + f", {len(facts)} facts"
    )
    return "\n".join(lines) + "\n"
