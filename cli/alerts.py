"""``reprokg alerts --store S [--work IRI] [--venue V] [--orcid ID] [--kind K]``: the
contradictions in the evidence (``/alerts``'s read model), latest first, with the count by
kind."""

from __future__ import annotations

import argparse
import json
import sys

from reprokg.cli.base import Command, add_store_option


def register(command: Command) -> None:
    p = command(
        "alerts",
        "contradictions: works the evidence in force says were reproduced and were not (a "
        "failed replication of a badged paper, a computed verdict, a dispute)",
        _alerts,
    )
    p.add_argument("--work", default="", help="a work's IRI (https://doi.org/… for a DOI)")
    p.add_argument("--venue", default="", help="either side's venue, as written")
    p.add_argument("--orcid", default="", help="an author's ORCID iD")
    p.add_argument("--kind", default="", help="a contradiction kind (failed-replication, …)")
    add_store_option(p)
    p.add_argument("--format", choices=["text", "json"], default="text")


def _alerts(args: argparse.Namespace) -> int:
    from reprokg.cli.base import open_cli_store
    from reprokg.core.errors import UsageError
    from reprokg.evidence.contradictions import (
        KINDS,
        ContradictionFilters,
        contradictions,
        counts,
    )

    if args.kind and args.kind not in KINDS:
        raise UsageError(f"--kind must be one of {', '.join(KINDS)}, got {args.kind!r}")
    filters = ContradictionFilters(args.work.strip(), args.venue.strip(), args.orcid.strip(),
                                   args.kind)  # fmt: skip
    with open_cli_store(args.store, read_only=True) as store:
        found = contradictions(store, filters)
    by_kind = counts(found)
    if args.format == "json":
        doc = {
            "total": len(found),
            "counts": by_kind,
            "contradictions": [c.to_json() for c in found],
        }
        json.dump(doc, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    out = [f"{len(found)} contradictions: " + ", ".join(f"{k} {n}" for k, n in by_kind.items())]
    for c in found:
        out.append(f"{c.date or 'no date':<25} {c.kind:<24} {c.work}  {c.title or ''}".rstrip())
        out.append(f"    {c.text}")
    sys.stdout.write("\n".join(out) + "\n")
    return 0
