"""What every command module shares: the handler and registration types, the ``--store``
option. Imports only argparse: building the parser must stay instant."""

from __future__ import annotations

import argparse
from collections.abc import Callable

Handler = Callable[[argparse.Namespace], int]
#: ``command(name, help, handler)`` adds a sub-command and returns its parser
Command = Callable[[str, str, Handler], argparse.ArgumentParser]


def add_store_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--store",
        metavar="DIR|URL",
        default=None,
        help="embedded store directory, or a SPARQL endpoint URL "
        "(default: $REPROKG_STORE or ./reprokg-data)",
    )
