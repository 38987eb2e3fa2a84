"""``reprokg import FORMAT PATH``: other tools' runs into the graph (docs/exchange.md;
``reprokg export crate`` is a form of ``reprokg export``)."""

from __future__ import annotations

import argparse
import json
import sys

from reprokg.cli.base import Command, add_store_option, store_location

#: import formats -> the loader kind that reads them
IMPORT_FORMATS = {
    "rocrate": "rocrate",
    "ir_metadata": "run",
    "tirex": "run",
}


def _import(args: argparse.Namespace) -> int:
    from reprokg.ingest import ingest
    from reprokg.loaders.importers import import_path
    from reprokg.store import open_store

    kind = IMPORT_FORMATS[args.format]
    docs = import_path(args.path, kind)
    if args.dry_run:
        from reprokg.validation.engine import validate_document

        reports = [validate_document(d) for d in docs]
        for d, r in zip(docs, reports, strict=True):
            print(f"{d.kind:20} {'conforms' if r.conforms else 'REJECTED'}  {d.source_name}")
        return 0 if all(r.conforms for r in reports) else 1
    with open_store(args.store) as store:
        result = ingest(store, docs)
    for d in result.documents:
        if d.status == "rejected" and d.report is not None:
            print(f"rejected (nothing written): {d.report.to_text()}", file=sys.stderr)
        elif args.verbose:
            print(f"{d.status:9} {d.kind:20} {d.iri} {d.source}")
    if args.format_out == "json":
        print(
            json.dumps(
                [
                    {"status": d.status, "kind": d.kind, "iri": str(d.iri), "source": d.source}
                    for d in result.documents
                ],
                indent=2,
            )
        )
    print(f"{result.summary()} (store: {store_location(args.store)})")
    return result.exit_code


def register(command: Command) -> None:
    p = command(
        "import",
        "import runs from another tool: an RO-Crate (folder, ZIP or metadata file), "
        "standalone ir_metadata YAML (tirex-tracker); validated like every document",
        _import,
    )
    p.add_argument("format", choices=sorted(IMPORT_FORMATS))
    p.add_argument("path", metavar="PATH")
    p.add_argument("--dry-run", action="store_true", help="validate only; write nothing")
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("--format-out", choices=["text", "json"], default="text")
    add_store_option(p)
