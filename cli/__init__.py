"""The ``reprokg`` command: one sub-command per verb, each a thin call into the library.

Exit codes: 0 success, 1 validation failure, 2 usage or I/O error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from reprokg import __version__
from reprokg.core.errors import ReprokgError

Handler = Callable[[argparse.Namespace], int]


def _add_store_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--store",
        metavar="DIR|URL",
        default=None,
        help="embedded store directory, or a SPARQL endpoint URL "
        "(default: $REPROKG_STORE or ./reprokg-data)",
    )


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, Handler]]:
    parser = argparse.ArgumentParser(
        prog="reprokg",
        description="A reproducibility knowledge graph: load run metadata, audits and surveys "
        "as validated RDF, query them over SPARQL, compute reproducibility measures.",
    )
    parser.add_argument("--version", action="version", version=f"reprokg {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    handlers: dict[str, Handler] = {}

    def command(name: str, help_: str, handler: Handler) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_, description=help_)
        handlers[name] = handler
        return p

    # Each sub-command registers itself below: parser options, then its handler.
    # --- commands ---
    # load, validate, query, export, dump, restore, backup (see reprokg.cli.store)
    from reprokg.cli.store import register as _register_store

    _register_store(command, _add_store_option)

    # annotate (write ir_metadata headers into run files; see reprokg.loaders.ir_metadata.annotate)
    from reprokg.loaders.ir_metadata.annotate import register as _register_annotate

    _register_annotate(command)

    # compare (reproducibility measures and PRIMAD; see reprokg.cli.compare)
    from reprokg.cli.compare import register as _register_compare

    _register_compare(command, _add_store_option)

    # docs (docs/ontology.md from the ontology; see reprokg.ontology.reference)
    from reprokg.ontology.reference import register as _register_docs

    _register_docs(command)

    # serve (the service; see reprokg.cli.serve)
    from reprokg.cli.serve import register as _register_serve

    _register_serve(command)

    def _survey_stats(args: argparse.Namespace) -> int:
        from reprokg.survey.analysis import run_cli

        return run_cli(args)

    p = command(
        "survey-stats",
        "recompute the code-replicability survey statistics from the graph",
        _survey_stats,
    )
    _add_store_option(p)
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.add_argument(
        "--dataset", choices=["consolidated", "per-paper", "both"], default="consolidated"
    )
    p.add_argument("--save", action="store_true", help="write the result back as a document")
    p.add_argument("--charts", metavar="DIR", help="also write the charts (SVG, PNG) here")

    return parser, handlers


def main(argv: Sequence[str] | None = None) -> int:
    parser, handlers = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    try:
        return handlers[args.command](args)
    except ReprokgError as exc:
        print(f"reprokg {args.command}: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
