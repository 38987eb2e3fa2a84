"""``reprokg freeze ID -o DIR`` (a citable frozen result: RO-Crate, DataCite, tables) and
``reprokg import FORMAT PATH`` (other tools' runs into the graph); docs/exchange.md.
``reprokg export crate`` is a form of ``reprokg export``."""

from __future__ import annotations

import argparse
import json
import sys

from reprokg.cli.base import (
    Command,
    add_store_option,
    folder_made_by_open,
    open_cli_store,
    print_skips,
    remove_unwritten,
    store_location,
    tell,
)

#: import formats -> the loader kind that reads them
IMPORT_FORMATS = {
    "rocrate": "rocrate",
    "mlflow": "mlflow",
    "openml": "openml",
    "ir_metadata": "run",
    "tirex": "run",
}


def _import(args: argparse.Namespace) -> int:
    from reprokg.ingest import ingest
    from reprokg.loaders.importers import import_path

    kind = IMPORT_FORMATS[args.format]
    skipped: list = []
    docs = import_path(args.path, kind, skipped)
    print_skips(skipped, [], verbose=False)
    if args.dry_run:
        from reprokg.validation.batching import validate_documents

        reports = validate_documents(docs)
        for d, r in zip(docs, reports, strict=True):
            print(f"{d.kind:20} {'conforms' if r.conforms else 'REJECTED'}  {d.source_name}")
        return 0 if all(r.conforms for r in reports) else 1
    made = folder_made_by_open(args.store)
    with open_cli_store(args.store, create=True) as store:
        result = ingest(store, docs)
    remove_unwritten(made, wrote=result.wrote)
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


def _freeze(args: argparse.Namespace) -> int:
    from reprokg.cli.store import content_for
    from reprokg.exchange.freeze import freeze, parse_creator

    creators = [parse_creator(c) for c in args.creator]
    with open_cli_store(args.store, read_only=True) as store:
        content = content_for(store, args.id)
    out = freeze(
        content,
        args.output,
        creators=creators,
        reproduces=args.reproduces,
        publisher=args.publisher,
        license=args.license,
        version=args.version,
        doi=args.doi,
        ro_crate=args.ro_crate,
        full=args.full,
        measures=args.measure,
    )
    tell(f"froze {content.kind} {content.subject} into {out}")
    for name in sorted(p.name for p in out.iterdir() if p.is_file()):
        print(out / name)
    return 0


def register(command: Command) -> None:
    p = command(
        "freeze",
        "a citable frozen copy of a comparison (or any result, or a DOI's passport): its "
        "RO-Crate, DataCite 4.x metadata (XML and JSON) and the table as LaTeX and CSV",
        _freeze,
    )
    p.add_argument("id", metavar="ID", help="a document id, IRI or prefix; or a DOI")
    p.add_argument("-o", "--output", required=True, help="a new or empty folder")
    p.add_argument(
        "--creator",
        action="append",
        default=[],
        metavar="NAME[,ORCID]",
        help="a creator of the frozen record (repeatable; 'Family, Given,0000-0002-…')",
    )
    p.add_argument(
        "--reproduces",
        action="append",
        default=[],
        metavar="DOI",
        help="the DOI of the work this result reproduces (relation Other: 'reproduces')",
    )
    p.add_argument("--publisher", default="reprokg", help="DataCite publisher")
    p.add_argument("--license", default=None, help="SPDX licence IRI (default CC-BY-4.0)")
    p.add_argument("--version", default="1", help="version of the frozen record")
    p.add_argument(
        "--doi", help="the DOI the deposit will have (default: a DataCite test-prefix 10.5072/…)"
    )
    p.add_argument("--ro-crate", choices=["1.1", "1.2"], default="1.1")
    p.add_argument(
        "--full",
        action="store_true",
        help="a comparison's table with every value (measure, side, effect, value) instead "
        "of its headline measures sized for a paper",
    )
    p.add_argument(
        "--measure",
        action="append",
        default=[],
        metavar="NAME",
        help="a headline measure of a comparison's table (repeatable; default: those its "
        "rules judge, else AP, P@10, nDCG@10)",
    )
    add_store_option(p)

    p = command(
        "import",
        "import runs from another tool: an RO-Crate (folder, ZIP or metadata file), an "
        "MLflow file store (mlruns/ or its ZIP) or runs/search JSON, OpenML run "
        "descriptions (XML or JSON, a file or a folder of them), "
        "standalone ir_metadata YAML (tirex-tracker); validated like every document",
        _import,
    )
    p.add_argument("format", choices=sorted(IMPORT_FORMATS))
    p.add_argument("path", metavar="PATH")
    p.add_argument("--dry-run", action="store_true", help="validate only; write nothing")
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("--format-out", choices=["text", "json"], default="text")
    add_store_option(p)
