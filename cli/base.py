"""What every command module shares: the handler and registration types, the ``--store``
option, a quick exit and a malloc that keeps freed memory. Imports only argparse at import
time: building the parser must stay instant."""

from __future__ import annotations

import argparse
import sys
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


def tell(message: str) -> None:
    """What a command wrote, and where, on stderr: stdout stays the command's data (JSON,
    a table, a dump) and can be piped."""
    print(message, file=sys.stderr)


def store_location(spec: str | None) -> str:
    """The store a command used: ``--store``, else ``$REPROKG_STORE`` or the default."""
    if spec:
        return spec
    from reprokg.core.settings import settings

    return settings().store


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


#: glibc ``mallopt`` parameters and the values :func:`keep_freed_memory` sets: blocks up to
#: 32 MiB (glibc's largest mmap threshold) from the heap, which keeps 1 GiB it could give back
_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3
_KEEP = {_M_MMAP_THRESHOLD: 32 << 20, _M_TRIM_THRESHOLD: 1 << 30, _M_TOP_PAD: 64 << 20}
#: glibc's defaults, put back when the command returns (``main()`` called in-process)
_DEFAULTS = {_M_MMAP_THRESHOLD: 128 << 10, _M_TRIM_THRESHOLD: 128 << 10, _M_TOP_PAD: 128 << 10}


def keep_freed_memory(keep: bool = True) -> bool:
    """Have glibc's malloc keep freed memory for the next allocation (``keep=False``: its
    defaults again); False where there is no glibc.

    numpy's temporaries above 128 KiB are mmap'd and unmapped one by one, so every new one
    is fresh pages the kernel must fault in and zero: in ``reprokg compare`` a fifth of
    the CPU samples were the kernel clearing pages (``perf``), 47,000 page faults in all.
    Served from a heap that keeps what was freed, the same arrays reuse warm memory.
    """
    import sys

    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    for param, value in (_KEEP if keep else _DEFAULTS).items():
        mallopt(param, value)
    return True


#: files no loader claims named one per line; the rest are counted (``-v`` names all)
UNCLAIMED_SHOWN = 10


def print_skips(
    skipped: list,
    unclaimed: list,
    *,
    verbose: bool,
    advice: str = "--kind reads every file as that kind",
) -> None:
    """One line per special file skipped; the files no loader claims, named up to
    :data:`UNCLAIMED_SHOWN` (all with ``-v``), under one line saying what was tried."""
    for exc in skipped:
        print(f"skipped: {exc}", file=sys.stderr)
    if not unclaimed:
        return
    tried = ", ".join(unclaimed[0].details.get("tried", []))
    print(
        f"skipped {len(unclaimed)} file(s) no loader claims (tried {tried}"
        + (f"; {advice}):" if advice else "):"),
        file=sys.stderr,
    )
    shown = unclaimed if verbose else unclaimed[:UNCLAIMED_SHOWN]
    for exc in shown:
        print(f"  {exc.source}: {exc.reason}", file=sys.stderr)
    if len(shown) < len(unclaimed):
        print(f"  … and {len(unclaimed) - len(shown)} more (-v names them all)", file=sys.stderr)
