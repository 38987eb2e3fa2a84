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
``reprokg evidence match --store S`` records candidate matches between papers of different
records (evidence/candidate_matches.py); ``reprokg evidence dispute`` contests an assessment.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from reprokg.cli.base import (
    Command,
    add_all_option,
    add_store_option,
    first_of,
    folder_made_by_open,
    open_cli_store,
    remove_unwritten,
    written_lines,
)

if TYPE_CHECKING:
    from reprokg.ingest import IngestResult
    from reprokg.loaders.files import SourceWalk
    from reprokg.loaders.reading.summary import LoadSummary


def register(command: Command) -> None:
    p = command(
        "evidence",
        "load reproduction evidence (artifact-evaluation badges, ReScience C, re-execution "
        "logs) and report what was normalised and skipped",
        _evidence,
    )
    # one parser per action: a positional PATH list that ``match`` lacks could not be
    # optional in a flat parser (argparse binds an empty list before ``--dry-run PATH``)
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    load = actions.add_parser(
        "load", help="read, store and summarise", description="read, store and summarise"
    )
    load.add_argument("paths", nargs="+", metavar="PATH", help="files or folders of evidence")
    load.add_argument("-v", "--verbose", action="store_true", help="name every file not claimed")
    add_all_option(load)
    dispute = actions.add_parser(
        "dispute",
        help="contest a stored assessment (its IRI as PATH) in a document of its own",
        description="contest a stored assessment in a document of its own; it stays as it is",
    )
    dispute.add_argument("paths", nargs="+", metavar="IRI", help="assessment IRIs")
    dispute.add_argument("--reason", help="why the assessment is wrong")
    dispute.add_argument("--by", help="who disputes (an ORCID iD, or a name)")
    match = actions.add_parser(
        "match",
        help="record candidate matches between papers of different records",
        description="record candidate matches between papers of different records (same "
        "venue, year and normalised title; never merged)",
    )
    for sp in (load, dispute, match):
        add_store_option(sp)
    for sp in (load, match):
        sp.add_argument("--format", choices=["text", "json"], default="text")
        sp.add_argument("--dry-run", action="store_true", help="read and summarise; store nothing")


#: the evidence loaders' kinds: ``evidence load`` asks only these
EVIDENCE_KINDS = ("artifact-evaluation", "artifact-availability", "rescience", "re-execution")


def _evidence(args: argparse.Namespace) -> int:
    if args.action == "match":
        return _match(args)
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
    written: list[str] = []
    if args.dry_run:
        for _ in walk.per_file():
            pass
    else:
        from reprokg.ingest import ingest_walk

        made = folder_made_by_open(args.store)
        with open_cli_store(args.store, create=True) as store:
            outcome = ingest_walk(store, walk, by_file=True)
            written = written_lines(outcome, store, verbose=False)
        remove_unwritten(made, wrote=outcome.wrote)
    if args.format == "json":
        _print_json(summaries, walk, outcome, show_all=args.show_all, written=written)
    else:
        _print_text(
            summaries, walk, outcome, verbose=args.verbose, show_all=args.show_all, written=written
        )
    if walk.errors or not summaries:
        return 2
    return 1 if outcome is not None and outcome.count("rejected") else 0


def _print_json(
    summaries: list[LoadSummary],
    walk: SourceWalk,
    outcome: IngestResult | None,
    *,
    show_all: bool,
    written: list[str],
) -> None:
    from reprokg.cli.base import warnings_json

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
        out.update(warnings_json(outcome, show_all=show_all))
        out["written"] = [" ".join(line.split()) for line in written]
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")


def _print_text(
    summaries: list[LoadSummary],
    walk: SourceWalk,
    outcome: IngestResult | None,
    *,
    verbose: bool,
    show_all: bool,
    written: list[str],
) -> None:
    from reprokg.cli.base import print_skips, print_warnings

    for s in summaries:
        print(s.to_text())
    for err in walk.errors:
        print(f"error: {err}", file=sys.stderr)
    print_skips(walk.skipped, walk.unclaimed, verbose=verbose, advice="")
    if outcome is not None:
        for d in outcome.documents:
            if d.status == "rejected" and d.report is not None:
                print(f"rejected (nothing written): {d.report.to_text()}", file=sys.stderr)
        print_warnings(outcome, show_all=show_all or verbose)
        for line in first_of(written, show_all=show_all):  # the ids every command accepts
            print(line)
        print(outcome.summary())
    if not summaries:
        print(f"nothing loaded: no evidence in {', '.join(map(str, walk.paths))}", file=sys.stderr)


def _dispute(args: argparse.Namespace) -> int:
    """One dispute per assessment named; the assessments stay as they are."""
    from reprokg.evidence.verdicts import dispute
    from reprokg.ingest import write_result

    with open_cli_store(args.store) as store:
        for assessment in args.paths:
            found = dispute(store, assessment, args.reason or "", args.by or "")
            outcome = write_result(store, found)
            print(f"{outcome.status} dispute {outcome.subject} of {assessment.strip()}")
    return 0


def _match(args: argparse.Namespace) -> int:
    """One pass over the store's titled papers; the matches stored as one document."""
    from reprokg.evidence.candidate_matches import find

    with open_cli_store(args.store, read_only=args.dry_run) as store:
        found = find(store)
        stored = None
        if not args.dry_run:
            from reprokg.ingest import write_result

            stored = write_result(store, found)
    if args.format == "json":
        out = found.to_json()
        if stored is not None:
            out["stored"] = {"document": str(stored.iri), "status": stored.status}
        json.dump(out, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print(
        f"{found.papers} titled paper node(s) in {found.records} record(s), {found.keyed} with "
        f"venue, year and title: {len(found.matches)} candidate match(es) across records "
        f"({sum(m.accepted for m in found.matches)} accepted for joins); "
        f"{found.recorded} pair(s) matched by their loader already; "
        f"{len(found.distinct_dois)} pair(s) of distinct DOIs left apart"
    )
    for m in found.matches:
        state = "accepted" if m.accepted else "not accepted"
        print(f"  {m.a}  ~  {m.b}  [{state}]\n    {m.evidence}\n    {m.reason}")
    for a, b in found.distinct_dois:
        print(f"  two DOIs, one key (two papers): {a}  {b}")
    if stored is not None:
        print(f"{stored.status} {stored.iri}")
    return 0
