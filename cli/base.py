"""What every command module shares: the handler and registration types, the ``--store``
option, a quick exit and a malloc that keeps freed memory. Imports only argparse at import
time: building the parser must stay instant."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reprokg.ingest import IngestResult
    from reprokg.store.base import Store
    from reprokg.validation.report import Result

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


#: what a command that finds no store tells the user makes one
MAKERS = (
    "reprokg load, import, evidence load, restore and serve create one, as does a command's --save"
)


def _is_folder_spec(spec: str) -> bool:
    return spec != ":memory:" and "://" not in spec


def has_store(spec: str) -> bool:
    """Whether ``spec`` names a store that exists (a URL or ``:memory:`` always does)."""
    if not _is_folder_spec(spec):
        return True
    root = Path(spec)
    return (root / "oxigraph").is_dir() or (root / "CURRENT").is_file()


def folder_made_by_open(spec: str | None) -> Path | None:
    """The outermost folder a writable open of ``spec`` would create (None: it exists, or
    ``spec`` is a URL): what a load that wrote nothing removes again."""
    where = store_location(spec)
    if not _is_folder_spec(where):
        return None
    root = Path(where).absolute()
    made = None
    while not root.exists() and root != root.parent:
        made, root = root, root.parent
    return made


def remove_unwritten(made: Path | None, wrote: bool) -> None:
    """Remove the store folder a command created (``made``) when it wrote nothing into
    it: a failed load (a wrong ``--kind``, no loadable file) leaves no empty store."""
    if made is None or wrote:
        return
    import shutil

    shutil.rmtree(made, ignore_errors=True)


def open_cli_store(spec: str | None, *, read_only: bool = False, create: bool = False) -> Store:
    """The store a command works on. Only a command that writes (``create``) may make
    one: a read of a mistyped ``--store`` is refused instead of answering from a new
    empty store; a store another process holds says so, and what works instead."""
    from reprokg.core.errors import StoreInUse, UsageError
    from reprokg.store import open_store

    where = store_location(spec)
    if not create and not has_store(where):
        raise UsageError(
            f"no store at {where} (no folder {Path(where) / 'oxigraph'}); check --store or "
            f"$REPROKG_STORE. {MAKERS}"
        )
    try:
        return open_store(where, read_only=read_only)
    except StoreInUse as exc:
        raise StoreInUse(
            f"{exc}. If it is reprokg serve: write through it over HTTP (POST /documents "
            "with Authorization: Bearer <the REPROKG_WRITE_TOKEN it was started with>), or "
            "stop it and run this again; query, export and dump can read now with "
            "--read-only (a snapshot as of opening)",
            details=exc.details,
        ) from exc


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


#: warnings (and documents written) shown one per line before "… and N more (--all)"
SHOWN = 10


def first_of(lines: list[str], *, show_all: bool, flag: str = "--all") -> list[str]:
    """The first :data:`SHOWN` of ``lines`` (all with ``show_all``), and a last line saying
    how many more there are and which option shows them: never a silent cut."""
    shown = lines if show_all else lines[:SHOWN]
    more = len(lines) - len(shown)
    return [*shown, f"… and {more} more ({flag})"] if more else list(shown)


def warning_results(result: IngestResult) -> list[Result]:
    """The warnings of the documents stored (a rejected document's report is printed whole)."""
    return [
        r
        for d in result.documents
        if d.report is not None and d.status != "rejected"
        for r in d.report.results
        if r.severity == "Warning"
    ]


def print_warnings(result: IngestResult, *, show_all: bool) -> None:
    """Every command that counts warnings prints them: the first ten on stderr, ``--all``
    for the rest (load, import and evidence load share this)."""
    lines = [r.to_text() for r in warning_results(result)]
    for line in first_of(lines, show_all=show_all):
        print(line, file=sys.stderr)


def warnings_json(result: IngestResult, *, show_all: bool) -> dict[str, object]:
    """The same warnings for ``--format json``: ``warning_count`` and the first ten (all
    with ``--all``) as ``warnings``, ``warnings_more`` for how many were left out."""
    found = warning_results(result)
    shown = found if show_all else found[:SHOWN]
    return {
        "warning_count": len(found),
        "warnings": [{**r.to_dict(), "text": r.to_text()} for r in shown],
        "warnings_more": len(found) - len(shown),
    }


def add_all_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--all",
        dest="show_all",
        action="store_true",
        help=f"every warning (else the first {SHOWN}) and every document written",
    )


def saved_id(store: Store, iri: object) -> str:
    """The short id of the document a command just saved (``iri``: its document or what it
    is about), which every other command accepts (:mod:`reprokg.store.catalog`)."""
    from reprokg.store.catalog import resolve, short_id

    return short_id(store, resolve(store, str(iri)).document)


def written_lines(result: IngestResult, store: Store, *, verbose: bool) -> list[str]:
    """``added    0925391c  run  file.txt``: each document added or revised (``verbose``:
    every document, its IRI too), by the short id every other command accepts."""
    from reprokg.store.catalog import document_id, short_ids

    shown = [d for d in result.documents if verbose or d.status in ("added", "revised")]
    if not shown:
        return []
    shorts = short_ids(document_id(d) for d in store.documents())
    out = []
    for d in shown:
        ident = shorts.get(document_id(d.iri), document_id(d.iri)[:8])
        extra = f" (revision of {d.revision_of})" if d.revision_of else ""
        iri = f" {d.iri}" if verbose else ""
        out.append(f"{d.status:9} {ident}  {d.kind}  {d.source}{iri}{extra}")
    return out
