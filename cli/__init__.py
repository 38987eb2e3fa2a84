"""The ``reprokg`` command: one sub-command per verb, each a thin call into the library.

Building the parser imports only argparse and the command modules of this package, which
import nothing heavy at module level: each handler imports its work when it runs, so
``reprokg --version`` and ``--help`` start at once (tests/cli/test_startup.py). Errors are
mapped here, once: a :class:`~reprokg.core.errors.ReprokgError` prints one line and exits
with its ``exit_code`` (0 success, 1 validation failure or an input over a limit, 2 usage
or I/O error). A reader that went away (``reprokg passport … | head``) ends any command
quietly with 141, a shell's status for SIGPIPE, instead of a ``BrokenPipeError`` traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from reprokg import __version__
from reprokg.cli import (
    alerts,
    annotate,
    compare,
    docs,
    evaluate,
    evidence,
    exchange,
    field,
    intrinsic_dimension,
    ontology,
    passport,
    qra,
    serve,
    shacl,
    stability,
    store,
    study,
    survey,
    swhid,
)
from reprokg.cli.base import Handler, quick_exit_requested
from reprokg.core.errors import ReprokgError

#: command modules in help order; each has ``register(command)``
COMMANDS = (
    store,
    exchange,
    evidence,
    field,
    swhid,
    passport,
    alerts,
    annotate,
    compare,
    evaluate,
    docs,
    ontology,
    serve,
    shacl,
    survey,
    study,
    stability,
    qra,
    intrinsic_dimension,
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

    for module in COMMANDS:
        module.register(command)
    return parser, handlers


def main(argv: Sequence[str] | None = None) -> int:
    parser, handlers = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    try:
        code = handlers[args.command](args)
        sys.stdout.flush()  # a reader gone shows here, not as the interpreter exits
        return code
    except BrokenPipeError:
        if not stdout_closed():
            raise  # another pipe (a child's, a socket's): not ours to hide
        quiet_stdout()
        return SIGPIPE_EXIT
    except ReprokgError as exc:
        message = " ".join(str(exc).split("\n"))  # one line, whatever the engine wrote
        print(f"reprokg {args.command}: {message}", file=sys.stderr)
        return exc.exit_code
    except (RecursionError, MemoryError) as exc:
        # a backstop: the input limits refuse what would get here (one line, not a
        # traceback thousands of frames long)
        print(
            f"reprokg {args.command}: {type(exc).__name__}: input too deep or large",
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        return 130


#: the exit status of a command whose reader went away (``reprokg … | head``): a shell's
#: for a process SIGPIPE ended (128 + 13), without its traceback
SIGPIPE_EXIT = 141


def stdout_closed() -> bool:
    """Whether the reader of our standard output has gone (a pipe whose other end is
    closed polls as an error)."""
    import select

    try:
        fd = sys.stdout.fileno()
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no file descriptor: assume it is ours
        return True


def quiet_stdout() -> None:
    """Point standard output at /dev/null: what is still buffered is dropped instead of
    raising ``BrokenPipeError`` again when the interpreter flushes it at exit (the
    Python documentation's recipe for SIGPIPE)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):
        pass


def run() -> None:
    """The console entry point (``reprokg``, ``python -m reprokg``): main(), then exit."""
    code = main()
    if "reprokg.core.forked" in sys.modules:  # its children still exiting, if any
        from reprokg.core.forked import wait_for_children

        wait_for_children()
    if quick_exit_requested():
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            code = SIGPIPE_EXIT
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    run()
