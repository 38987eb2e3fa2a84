"""``reprokg docs``: write (or check) docs/ontology.md, the ontology's reference."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from reprokg.cli.base import Command


def register(command: Command) -> None:
    p = command("docs", "generate docs/ontology.md from the ontology", _docs)
    p.add_argument("--output", help="where to write (default: the checkout's docs/ontology.md)")
    p.add_argument(
        "--check", action="store_true", help="only check the file is up to date (exit 1 if not)"
    )


def _docs(args: argparse.Namespace) -> int:
    from reprokg.ontology.reference import DEFAULT_OUTPUT, render

    out = Path(args.output) if args.output else DEFAULT_OUTPUT
    text = render()
    if args.check:
        current = out.read_text(encoding="utf-8") if out.is_file() else ""
        if current != text:
            print(f"{out} is out of date; run `reprokg docs`", file=sys.stderr)
            return 1
        print(f"{out} is up to date")
        return 0
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out}")
    return 0
