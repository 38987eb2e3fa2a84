"""``reprokg freeze ID -o DIR`` (a citable frozen result: RO-Crate, DataCite, tables) and
``reprokg import FORMAT PATH`` (other tools' runs into the graph); docs/exchange.md.
``reprokg export crate`` is a form of ``reprokg export``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator

from reprokg.cli.base import (
    Command,
    add_all_option,
    add_store_option,
    first_of,
    folder_made_by_open,
    open_cli_store,
    print_skips,
    print_warnings,
    remove_unwritten,
    store_location,
    tell,
    warnings_json,
    written_lines,
)


class _Formats:
    """The formats ``reprokg import`` takes: the loader registry's
    (:func:`reprokg.loaders.import_formats`), asked only when a format is checked or the
    help is shown, so building the parser imports no loader."""

    def _names(self) -> list[str]:
        from reprokg.loaders import import_formats

        return list(import_formats())

    def __contains__(self, name: object) -> bool:
        return name in self._names()

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())


class _FormatsHelp(argparse.HelpFormatter):
    """``import --help`` lists each format with what it reads (``INFO.reads``)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if not isinstance(action.choices, _Formats):
            return action.help
        from reprokg.loaders import import_formats

        lines = [f"{f}: {m.INFO.reads}" for f, m in import_formats().items()]
        return f"{action.help}; one of: " + "; ".join(lines).replace("%", "%%")


def _import(args: argparse.Namespace) -> int:
    from reprokg.ingest import ingest
    from reprokg.loaders.importers import import_path
    from reprokg.loaders.reading.contract import LoadOptions
    from reprokg.store.catalog import document_id, short_ids

    skipped: list = []
    options = LoadOptions(experiment_from=tuple(args.experiment_from))
    docs = import_path(args.path, args.format, skipped, options)
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
        lines = written_lines(result, store, verbose=args.verbose)
        shorts = short_ids(document_id(d) for d in store.documents())
    remove_unwritten(made, wrote=result.wrote)
    for outcome in result.documents:
        if outcome.status == "rejected" and outcome.report is not None:
            print(f"rejected (nothing written): {outcome.report.to_text()}", file=sys.stderr)
    show_all = args.show_all or args.verbose
    if args.format_out == "json":
        ident = lambda d: shorts.get(document_id(d.iri))  # noqa: E731
        out = {
            "documents": [
                {
                    "status": d.status,
                    "kind": d.kind,
                    "id": ident(d),
                    "iri": str(d.iri),
                    "source": d.source,
                }
                for d in result.documents
            ],
            **warnings_json(result, show_all=show_all),
            "summary": result.summary(),
        }
        print(json.dumps(out, indent=2))  # stdout stays one JSON value; the line on stderr
        tell(f"{result.summary()} (store: {store_location(args.store)})")
        return result.exit_code
    print_warnings(result, show_all=show_all)
    for line in first_of(lines, show_all=show_all, flag="-v"):
        print(line)
    print(f"{result.summary()} (store: {store_location(args.store)})")
    return result.exit_code


def _freeze(args: argparse.Namespace) -> int:
    from reprokg.exchange.freeze import freeze, parse_creator
    from reprokg.exchange.views import crate_content

    creators = [parse_creator(c) for c in args.creator]
    with open_cli_store(args.store, read_only=True) as store:
        content = crate_content(store, args.id)
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
        "import runs from another tool (RO-Crate, MLflow, OpenML, ir_metadata/tirex-tracker; "
        "import --help lists what each format reads); validated like every document",
        _import,
    )
    p.formatter_class = _FormatsHelp
    p.add_argument("format", metavar="FORMAT", choices=_Formats(), help="the other tool's format")
    p.add_argument("path", metavar="PATH", help="a file, a folder or a database")
    p.add_argument(
        "--experiment-from",
        action="append",
        default=[],
        metavar="PARAM",
        help="(mlflow) a logged parameter whose values define the experiment, as well as "
        "the MLflow experiment (repeatable: --experiment-from optimizer "
        "--experiment-from dataset); the other parameters stay the configuration",
    )
    p.add_argument("--dry-run", action="store_true", help="validate only; write nothing")
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("--format-out", choices=["text", "json"], default="text")
    add_all_option(p)
    add_store_option(p)
