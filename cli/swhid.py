"""``reprokg swhid PATH [--check SWHID]``: the Software Heritage identifier of a local file or
folder, recomputed offline (core/swhid.py; docs/evidence.md, Software Heritage identifiers).

``--check`` compares it with a recorded SWHID (core or qualified: the core is compared) and
exits 1 on a mismatch. Needs the optional ``swh.model`` (``pip install 'reprokg[swh]'``).
"""

from __future__ import annotations

import argparse

from reprokg.cli.base import Command


def register(command: Command) -> None:
    p = command(
        "swhid",
        "print the SWHID (Software Heritage id) of a local file or folder; --check compares "
        "it with a recorded one",
        _swhid,
    )
    p.add_argument("path", metavar="PATH", help="a file (swh:1:cnt:…) or folder (swh:1:dir:…)")
    p.add_argument(
        "--check",
        metavar="SWHID",
        help="a recorded SWHID (swh:1:dir:…, qualifiers allowed): exit 1 when PATH's differs",
    )


def _swhid(args: argparse.Namespace) -> int:
    from reprokg.core.errors import IdentifierError, UsageError
    from reprokg.core.swhid import parse_swhid, swhid_of_path

    recorded = None
    if args.check:
        try:
            recorded = parse_swhid(args.check)
        except IdentifierError as e:
            raise UsageError(f"--check: {e}") from None
    found = swhid_of_path(args.path)
    print(found.core)
    if recorded is None:
        return 0
    if recorded.core == found.core:
        print(f"matches the recorded {recorded.core}")
        return 0
    print(f"MISMATCH: recorded {recorded.core}, {args.path} is {found.core}")
    return 1
