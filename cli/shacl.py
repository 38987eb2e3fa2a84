"""``reprokg shacl --shapes SHAPES.ttl DATA...``: any data against any SHACL shapes graph,
with reprokg's engine (W3C SHACL Core conformant); exit 0 when every file conforms, 1 when
one does not (as pyshacl's command), 2 when a file or the shapes cannot be used.

The validation runs in a child process with a time and a memory limit (``--timeout``,
``REPROKG_SHACL_TIMEOUT`` and ``REPROKG_SHACL_MEMORY_MB``, as ``POST /shacl``): user shapes
can be built to run for ever (a ``*`` path over a cycle, a wide SPARQL join)."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from reprokg.cli.base import Command


def register(command: Command) -> None:
    p = command(
        "shacl",
        "validate RDF files against a SHACL shapes graph (text, JSON or a Turtle report)",
        _shacl,
    )
    p.add_argument("--shapes", "-s", required=True, metavar="SHAPES", help="shapes graph file")
    p.add_argument("data", nargs="+", metavar="DATA", help="data graph files (one report each)")
    p.add_argument(
        "--format",
        "-f",
        choices=("text", "json", "turtle"),
        default="text",
        help="report format (turtle: SHACL's sh:ValidationReport graph)",
    )
    p.add_argument(
        "--allow-warnings",
        "-a",
        action="store_true",
        help="warnings and infos do not break conformance (exit 0)",
    )
    p.add_argument(
        "--timeout",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="seconds the validation may take before it is stopped (exit 2); default "
        "REPROKG_SHACL_TIMEOUT (30), as POST /shacl",
    )


def _seconds(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {raw!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {raw!r}")
    return value


def _shacl(args: argparse.Namespace) -> int:
    from rdflib import Graph

    from reprokg.core.settings import settings
    from reprokg.service.parsing import ParsePool
    from reprokg.validation.report import reports_to_json

    sources = [(str(p), Path(p).read_bytes()) for p in [args.shapes, *args.data]]
    # the service's log line of a killed worker: the error's one line says it here
    logging.getLogger("reprokg.service").addHandler(logging.NullHandler())
    s = settings()
    # one SHACL worker, as the service's (time, memory, error messages): the same budget
    limits = s.with_(shacl_workers=1, shacl_timeout=args.timeout or s.shacl_timeout)
    workers = ParsePool(limits)
    try:
        reports = workers.shacl(sources)
    finally:
        workers.close()
    for r in reports:
        r.allow_warnings = args.allow_warnings
    if args.format == "json":
        print(reports_to_json(reports))
    elif args.format == "turtle":
        g = Graph()
        for r in reports:
            g += r.to_graph()
        g.bind("sh", "http://www.w3.org/ns/shacl#")
        sys.stdout.write(g.serialize(format="turtle"))
    else:
        for r in reports:
            print(r.to_text())
    return 0 if all(r.conforms for r in reports) else 1
