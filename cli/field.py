"""``reprokg field build SOURCES_DIR --store DIR --out DIR``: the whole field in one store,
reproducibly (evidence/field.py; docs/evidence.md, The field build).

Every source of ``evidence.field.FIELD_SOURCES`` under the folder is loaded in its fixed
order with one date (``--date``, else ``$SOURCE_DATE_EPOCH``, else the epoch), then the
store's documents are written as a canonical gzipped N-Quads dump beside a manifest (each
source file's sha256 and counts, the version, the date, the dump's sha256, the coverage
before and after following the accepted links), and both coverages are printed.
``reprokg restore DUMP --store DIR`` serves it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from reprokg.cli.base import Command, add_store_option, open_cli_store, store_location, tell


def register(command: Command) -> None:
    p = command(
        "field",
        "build the whole field's graph reproducibly: every source of a data folder, in a "
        "fixed order, one date; a canonical dump, a manifest and the coverage",
        _field,
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    build = actions.add_parser(
        "build",
        help="load every source of SOURCES_DIR, write the dump and its manifest",
        description="load every source of SOURCES_DIR (laid out as the field's data) in a "
        "fixed order into the store, write a canonical gzipped N-Quads dump and a manifest "
        "to --out, print the coverage",
    )
    build.add_argument(
        "sources",
        metavar="SOURCES_DIR",
        help="folder laid out as the data, or holding checkouts of its upstream repositories",
    )
    build.add_argument("--out", required=True, metavar="DIR", help="folder for dump + manifest")
    build.add_argument(
        "--date",
        help="the date every document is stamped with (ISO date or date-time; default "
        "$SOURCE_DATE_EPOCH, else 1970-01-01T00:00:00Z)",
    )
    build.add_argument(
        "--only",
        action="append",
        metavar="SOURCE",
        help="load only this source of the list (repeatable; e.g. artifact-evaluation)",
    )
    build.add_argument("--format", choices=["text", "json"], default="text")
    add_store_option(build)


def _field(args: argparse.Namespace) -> int:
    from reprokg.core.settings import settings
    from reprokg.evidence.field import (
        FieldBuild,
        accepted_links,
        coverage_of,
        dump_name,
        linked_coverage_of,
        manifest,
        plan_field,
        source_date,
        write_dump,
    )
    from reprokg.evidence.outcomes import work_outcomes
    from reprokg.ingest import ingest_walk

    when, date_from = source_date(args.date, settings().source_date_epoch)
    out = Path(args.out)
    plan = plan_field(args.sources, args.only)  # a folder without sources makes no store
    build = FieldBuild(
        plan.root, when, date_from, missing=plan.missing, unrecognised=plan.unrecognised
    )
    with open_cli_store(args.store, create=True) as store:
        for walked in plan.walks:
            # file by file, attributed to nobody ($REPROKG_USER would make two people's
            # builds differ), every document stamped with the build's date
            build.record(walked, ingest_walk(store, walked.walk, by_file=True, user="", when=when))
        dump = write_dump(store, out / dump_name())
        outcomes = work_outcomes(store)  # one read of every assessment, for both counts
        cover = coverage_of(outcomes.values())
        linked = linked_coverage_of(outcomes, accepted_links(store))
    doc = manifest(build, dump, cover, linked)
    manifest_path = out / dump_name(".manifest.json")
    manifest_path.write_text(json.dumps(doc, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    r = build.result
    if args.format == "json":
        json.dump(doc, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for src, files in build.by_source():
            print(
                f"{src}: {len(files)} file(s), {sum(f.records for f in files):,} record(s), "
                f"{sum(f.documents for f in files):,} document(s), "
                f"{sum(f.rejected for f in files)} rejected, {sum(f.warned for f in files)} warned"
            )
        for name in build.missing:
            print(f"not found: {name} (nothing under {args.sources} matches it)")
        for src, checkouts in build.checkouts.items():
            print(f"{src} read from: " + ", ".join(f"{f} ({r})" for f, r in checkouts))
        for folder in build.unrecognised:
            print(f"not recognised: {folder}")
        print(r.summary())
        print(f"documents stamped {doc['build_date']} ({date_from})")
        print(cover.to_text())
        print(linked.to_text())
        print(f"dump {dump.path}: {dump.quads:,} quads, {dump.bytes:,} bytes, sha256 {dump.sha256}")
        print(f"manifest {manifest_path} (each file's sha256 and counts)")
    for err in r.errors:
        print(f"error: {err}", file=sys.stderr)
    tell(
        f"field built into the store {store_location(args.store)}; serve the dump with: "
        f"reprokg restore {dump.path} --store DIR && reprokg serve --store DIR"
    )
    if r.errors:
        return 2
    return 1 if r.count("rejected") else 0
