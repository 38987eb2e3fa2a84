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


_quick_exit = False


def exit_quickly() -> None:
    """Ask the console entry point to end the process without Python's teardown.

    Freeing the objects of a finished comparison (rankings of four 50,000-line runs) took
    a sixth of ``reprokg compare``'s time. Only a command holding nothing to close (no
    store, no temporary files, no worker processes) may ask; ``main()`` called in-process
    (tests, other programs) is unaffected.
    """
    global _quick_exit
    _quick_exit = True


def quick_exit_requested() -> bool:
    return _quick_exit
