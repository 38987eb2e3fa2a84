"""``reprokg annotate``: write an ir_metadata header into a TREC run file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from reprokg.cli.base import Command, tell
from reprokg.core.errors import UsageError


def register(command: Command) -> None:
    p = command(
        "annotate",
        "write an ir_metadata header into a TREC run file (repro_eval-compatible; an "
        "existing header is replaced)",
        cmd_annotate,
    )
    p.add_argument("run", metavar="RUN", help="the TREC run file (with or without a header)")
    p.add_argument(
        "--metadata",
        metavar="M.yaml",
        help="ir_metadata YAML to write (default: the run file's existing header)",
    )
    p.add_argument(
        "--complete",
        action="store_true",
        help="fill platform from this machine and implementation from git, "
        "without overwriting given values",
    )
    p.add_argument("--repo", metavar="DIR", help="git work tree for --complete (default: .)")
    p.add_argument("--output", "-o", metavar="OUT", help="where to write (default: stdout)")


def cmd_annotate(args: argparse.Namespace) -> int:
    from reprokg.loaders.ir_metadata.annotate import annotate
    from reprokg.loaders.reading.source import read_bytes

    run, run_name = read_bytes(args.run)
    meta, meta_name = (None, "metadata.yaml")
    if args.metadata:
        meta, meta_name = read_bytes(args.metadata)
    out = annotate(
        run,
        run_name,
        meta,
        meta_name,
        complete_metadata=args.complete,
        repo=Path(args.repo) if args.repo else None,
    )
    if args.output and args.output != "-":
        try:
            Path(args.output).write_text(out, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {args.output}: {exc.strerror}") from exc
        tell(f"wrote {args.output}: {run_name} with its ir_metadata header")
    else:
        sys.stdout.write(out)
    return 0
