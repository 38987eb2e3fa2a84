"""``reprokg evidence``: load the field's reproduction evidence and say what was read.

``reprokg evidence load --store S PATH…`` walks files and folders for the three evidence
sources (ReproDB JSON and sysartifacts/secartifacts ``results.md`` pages, the ReScience C
bibliography, the Dataverse R re-execution logs), loads each with its loader, stores the
documents through ingest (validated; the same files again change nothing) and prints, per
file, what was normalised, what was skipped and why, and the outcomes read
(``--format json`` for the same as JSON). ``--dry-run`` reads and reports without a store.
It walks like ``reprokg load`` (:class:`~reprokg.loaders.files.SourceWalk`: unreadable and
special files named, never a crash), asking only the evidence loaders, reading results
pages (``.md``) and storing file by file; this command adds the summaries.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from reprokg.cli.base import Command, add_store_option

if TYPE_CHECKING:
    from reprokg.ingest import IngestResult
    from reprokg.loaders.files import SourceWalk
    from reprokg.loaders.summary import LoadSummary


def register(command: Command) -> None:
    p = command(
        "evidence",
        "load reproduction evidence (artifact-evaluation badges, ReScience C, re-execution "
        "logs) and report what was normalised and skipped",
        _evidence,
    )
    p.add_argument(
        "action",
        choices=["load", "dispute"],
        help="load: read, store and summarise; dispute: contest a stored assessment (its IRI "
        "as PATH) in a document of its own, with --reason and --by",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders of evidence")
    p.add_argument("--reason", help="dispute: why the assessment is wrong")
    p.add_argument("--by", help="dispute: who disputes (an ORCID iD, or a name)")
    add_store_option(p)
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--dry-run", action="store_true", help="read and summarise; store nothing")
    p.add_argument("-v", "--verbose", action="store_true", help="name every file not claimed")


#: the evidence loaders' kinds: ``evidence load`` asks only these
EVIDENCE_KINDS = ("artifact-evaluation", "rescience", "re-execution")


def _evidence(args: argparse.Namespace) -> int:
    if args.action == "dispute":
        return _dispute(args)
    from reprokg.loaders.files import SourceWalk, check_paths

    check_paths(args.paths)  # every missing path named before a store is made
    summaries: list[LoadSummary] = []
    # results pages are .md files, which a folder walk otherwise skips as documentation
    walk = SourceWalk(
        args.paths, kinds=EVIDENCE_KINDS, read_suffixes={".md"}, summary=summaries.append
    )
    outcome = None
    if args.dry_run:
        for _ in walk.per_file():
            pass
    else:
        from reprokg.ingest import ingest_walk
        from reprokg.store import open_store

        with open_store(args.store) as store:
            outcome = ingest_walk(store, walk, by_file=True, keep_originals=False)
    if args.format == "json":
        _print_json(summaries, walk, outcome)
    else:
        _print_text(summaries, walk, outcome, verbose=args.verbose)
    if walk.errors or not summaries:
        return 2
    return 1 if outcome is not None and outcome.count("rejected") else 0


def _print_json(
    summaries: list[LoadSummary], walk: SourceWalk, outcome: IngestResult | None
) -> None:
    out: dict[str, object] = {"files": [s.to_json() for s in summaries]}
    out["errors"] = [e.to_dict() for e in walk.errors]
    out["skipped"] = [e.to_dict() for e in walk.skipped]
    out["unclaimed"] = [e.to_dict() for e in walk.unclaimed]
    if outcome is not None:
        out["stored"] = {s: outcome.count(s) for s in ("added", "unchanged", "revised", "rejected")}
        out["rejected"] = [
            d.report.to_dict()
            for d in outcome.documents
            if d.status == "rejected" and d.report is not None
        ]
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")


def _print_text(
    summaries: list[LoadSummary],
    walk: SourceWalk,
    outcome: IngestResult | None,
    *,
    verbose: bool,
) -> None:
    from reprokg.cli.base import print_skips

    for s in summaries:
        print(s.to_text())
    for err in walk.errors:
        print(f"error: {err}", file=sys.stderr)
    print_skips(walk.skipped, walk.unclaimed, verbose=verbose, advice="")
    if outcome is not None:
        for d in outcome.documents:
            if d.status == "rejected" and d.report is not None:
                print(f"rejected (nothing written): {d.report.to_text()}", file=sys.stderr)
        print(outcome.summary())
    if not summaries:
        print(f"nothing loaded: no evidence in {', '.join(map(str, walk.paths))}", file=sys.stderr)


def _dispute(args: argparse.Namespace) -> int:
    """One dispute per assessment named; the assessments stay as they are."""
    from reprokg.measures.verdicts import file_dispute
    from reprokg.store import open_store

    with open_store(args.store) as store:
        for assessment in args.paths:
            doc, outcome = file_dispute(store, assessment, args.reason or "", args.by or "")
            print(f"{outcome.status} dispute {doc.subject} of {assessment.strip()}")
    return 0
