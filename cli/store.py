"""CLI verbs over the store: load, validate, query, export, dump, restore, backup.

Thin on purpose: parse arguments, call :mod:`reprokg.ingest` / :mod:`reprokg.store`,
print. Exit codes follow :mod:`reprokg.cli`: 0 ok, 1 validation failure, 2 usage / I/O.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from reprokg.cli.base import (
    Command,
    add_all_option,
    add_store_option,
    first_of,
    folder_made_by_open,
    open_cli_store,
    print_skips,
    print_warnings,
    remove_unwritten,
    store_location,
    tell,
    written_lines,
)
from reprokg.core.errors import UsageError

if TYPE_CHECKING:  # the command line imports no rdflib or pyoxigraph before a handler runs
    from typing import BinaryIO

    from reprokg.sparql.named import Page
    from reprokg.store.base import QueryResult, SelectResult, Store
    from reprokg.store.catalog import Catalog
    from reprokg.validation.report import Report, Result


def _store(args: argparse.Namespace, *, read_only: bool = False, create: bool = False) -> Store:
    """The store of ``--store``; only a command that writes (``create``) makes one."""
    return open_cli_store(args.store, read_only=read_only, create=create)


# --------------------------------------------------------------------------- load


class _Counter:
    """``loaded 120 documents (file.yaml)`` on stderr, redrawn at most 10 times a second."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.last = 0.0
        self.shown = False

    def __call__(self, done: int, _seen: int, name: str) -> None:
        now = time.monotonic()
        if self.enabled and now - self.last > 0.1:
            self.last = now
            self.shown = True
            sys.stderr.write(f"\r\x1b[Kloaded {done} document(s) ({Path(name).name})")
            sys.stderr.flush()

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _check_inputs(args: argparse.Namespace) -> None:
    """Every missing path named, and an unknown ``--kind`` refused, before a store is
    opened (or created) or a file read."""
    from reprokg.loaders import loader_for
    from reprokg.loaders.files import check_paths

    check_paths(args.paths)
    if args.kind is not None:
        loader_for(args.kind)


def cmd_load(args: argparse.Namespace) -> int:
    from reprokg.ingest import ingest_paths

    _check_inputs(args)
    counter = _Counter(enabled=not args.quiet and sys.stderr.isatty())
    made = folder_made_by_open(args.store)
    with _store(args, create=True) as store, _ctrl_c_noted() as asked:
        before = _document_count(store)
        interrupted: int | None = None

        def progress(done: int, total: int, source: str) -> None:
            if asked():  # a Ctrl+C whose exception a finalizer swallowed: stop here
                raise KeyboardInterrupt
            counter(done, total, source)

        try:
            result = ingest_paths(
                store,
                args.paths,
                kind=args.kind,
                progress=progress,
                batch_size=args.batch_size,
                force=args.force,
                keep_originals=not args.no_originals,
            )
        except KeyboardInterrupt:  # the batch being written has finished: count them
            counter.close()
            interrupted = _document_count(store) - before
        else:
            counter.close()
            lines = written_lines(result, store, verbose=args.verbose)
    if interrupted is not None:
        return _interrupted(args, made, interrupted)
    remove_unwritten(made, wrote=result.wrote)
    for err in result.errors:
        print(f"error: {err}", file=sys.stderr)
    print_skips(result.skipped, result.unclaimed, verbose=args.verbose)
    for d in result.documents:
        if d.status == "rejected" and d.report is not None:
            print(f"rejected (nothing written): {d.report.to_text()}", file=sys.stderr)
    print_warnings(result, show_all=args.show_all or args.verbose)
    for line in first_of(lines, show_all=args.show_all or args.verbose, flag="-v"):
        print(line)
    print(f"{result.summary()} (store: {store_location(args.store)})")
    if not result.documents:
        print(f"nothing loaded: no document in {', '.join(args.paths)}", file=sys.stderr)
    if made is not None and not result.wrote:
        tell(f"no store made at {made}: nothing was written")
    return result.exit_code


@contextlib.contextmanager
def _ctrl_c_noted() -> Iterator[Callable[[], bool]]:
    """Ctrl+C noted as well as raised: Python drops an exception raised while a finalizer
    (``__del__``, a weakref callback) runs, so a load could go on to its end; the load
    checks the note after each document it commits. Yields whether Ctrl+C was pressed."""
    pressed = threading.Event()

    def handler(signum: int, frame: object) -> None:
        pressed.set()
        raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread():
        yield pressed.is_set
        return
    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield pressed.is_set
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_DFL)


def _interrupted(args: argparse.Namespace, made: Path | None, written: int) -> int:
    """Ctrl+C during a load: each document is written whole or not at all (the batch being
    written finishes first), so say how many are stored and that the same command resumes
    (documents already stored come back ``unchanged``); 130 as a shell reports SIGINT."""
    remove_unwritten(made, wrote=written > 0)
    where = store_location(args.store)
    tell(
        f"interrupted: {written} new document(s) stored in {where} before Ctrl+C, each "
        "complete; run the same command again to resume (documents already stored come "
        "back unchanged)"
        if written > 0 or made is None
        else f"interrupted: nothing was written; no store made at {made}"
    )
    return 130


# --------------------------------------------------------------------------- validate


def cmd_validate(args: argparse.Namespace) -> int:
    from reprokg.loaders.files import SourceWalk
    from reprokg.validation.paths import validate_walk
    from reprokg.validation.report import reports_to_json

    _check_inputs(args)
    walk = SourceWalk(args.paths, args.kind)
    reports = validate_walk(walk)
    if args.format == "json":
        print(reports_to_json(reports))
    elif args.format == "turtle":
        from rdflib import Graph

        g = Graph()
        for r in reports:
            g += r.to_graph()
        from reprokg.core.namespaces import bind_prefixes

        print(bind_prefixes(g).serialize(format="turtle"))
    else:
        refused = 0
        for r in reports:
            if _refused(r):  # one line: the file, the place and why (no report block)
                refused += 1
                print(_refusal(r.results[0]))
            else:
                print(r.to_text())
        if refused < len(reports):  # a summary only when something was read
            ok = sum(1 for r in reports if r.conforms)
            print(f"{ok} of {len(reports)} document(s) conform")
    print_skips(walk.skipped, walk.unclaimed, verbose=False)
    if not reports:
        print(f"nothing validated: no document in {', '.join(args.paths)}", file=sys.stderr)
        return 2
    if any(r.constraint == "LoadError" for rep in reports for r in rep.results):
        return 2  # unreadable input
    # 1: violations, or an input refused by a limit (read, and refused like a violation)
    return 0 if all(r.conforms for r in reports) else 1


def _refused(report: Report) -> bool:
    """A source that could not be read or was over a limit (nothing was validated)."""
    return len(report.results) == 1 and report.results[0].constraint in (
        "LoadError",
        "LimitExceeded",
    )


def _refusal(result: Result) -> str:
    """``error: file:line [field]: message`` (a source not read is no violation), or
    ``refused: …`` for a source over an input limit."""
    where = (result.source or "<input>") + (f":{result.line}" if result.line else "")
    field = f" [{result.path}]" if result.path else ""
    label = "refused" if result.constraint == "LimitExceeded" else "error"
    return f"{label}: {where}{field}: {result.message}"


# --------------------------------------------------------------------------- query


def read_sparql(arg: str) -> str:
    """The query text from an argument, ``@file.rq`` or ``-`` (stdin)."""
    if arg == "-":
        return sys.stdin.read()
    if arg.startswith("@"):
        try:
            return Path(arg[1:]).read_text(encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot read query file {arg[1:]}: {exc.strerror}") from exc
    return arg


def _cell(t: object) -> str:
    return "" if t is None else str(t)


def format_table(res: SelectResult, footer: str | None = None) -> str:
    rows = [[_cell(t) for t in row] for row in res.rows]
    widths = [max([len(v), *(len(r[i]) for r in rows)]) for i, v in enumerate(res.variables)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True))  # noqa: E731
    out = [line(res.variables), line(["-" * w for w in widths])]
    out += [line(r) for r in rows]
    out.append(footer or f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(x.rstrip() for x in out)


def print_result(res: QueryResult, fmt: str, footer: str | None = None) -> None:
    from reprokg.store.base import AskResult, GraphResult

    if isinstance(res, GraphResult):
        from reprokg.core.namespaces import bind_prefixes

        g = bind_prefixes(res.graph)
        print(g.serialize(format="json-ld" if fmt == "json" else "turtle"))
        return
    if fmt == "json" or (fmt == "csv" and isinstance(res, AskResult)):
        from reprokg.sparql.result_formats import JSON, serialize

        sys.stdout.write(serialize(res, JSON).decode("utf-8") + "\n")
    elif fmt == "csv":
        from reprokg.sparql.result_formats import CSV, serialize

        sys.stdout.write(serialize(res, CSV).decode("utf-8"))
    elif isinstance(res, AskResult):
        print("true" if res.value else "false")
    else:
        print(format_table(res, footer))


def page_footer(page: Page) -> str:
    """What a named query's answer is of the whole: ``(1,000 of 7,720 rows (1-1,000);
    next page: --param offset=1000; every row: --all)`` (never a silent cut)."""
    text = page.sentence()
    if page.truncated:
        text += f"; next page: --param offset={page.next_offset}; every row: --all"
    return f"({text})"


def _no_rows(res: QueryResult) -> bool:
    from reprokg.store.base import SelectResult

    return isinstance(res, SelectResult) and not res.rows


def cmd_query(args: argparse.Namespace) -> int:
    footer = None
    if args.name:
        from reprokg.sparql import named as named_queries
        from reprokg.sparql import ranked

        given = named_queries.parse_param_args(args.param or [])
        with _store(args, read_only=args.read_only) as store:
            res, page, params = ranked.answer(
                store, args.name, given, whole=args.all, timeout=args.timeout
            )
        if page is not None:
            footer = page_footer(page)
            if page.truncated and args.format != "table":  # stdout stays the result
                print(f"reprokg query: {footer[1:-1]}", file=sys.stderr)
        if _no_rows(res):  # an empty answer says what was looked for
            bound = ", ".join(f"{k}={v}" for k, v in sorted(params.items())) or "no --param"
            footer = f"(0 rows: {args.name} with {bound})"
    else:
        if args.all:
            raise UsageError("--all applies to a named query (--name); write no LIMIT instead")
        if not args.sparql:
            raise UsageError("give a SPARQL query (text, @file.rq or - for stdin) or --name")
        sparql = read_sparql(args.sparql)
        with _store(args, read_only=args.read_only) as store:
            res = store.query(sparql, timeout=args.timeout)
    print_result(res, args.format, footer)
    return 0


# --------------------------------------------------------------------------- export


def cmd_export(args: argparse.Namespace) -> int:
    if args.target[0] == "crate" and len(args.target) == 2:
        return export_crate(args, args.target[1])
    if len(args.target) != 1:
        raise UsageError("give one DOC_ID, or: export crate ID -o DIR|FILE.zip")
    from reprokg.exchange.views import document_text

    with _store(args, read_only=args.read_only) as store:
        text = document_text(store, args.target[0], args.format)
    sys.stdout.write(text if args.format != "turtle" else text + "\n")
    return 0


# --------------------------------------------------------------------------- export crate


def _export_crate(args: argparse.Namespace) -> int:
    from reprokg.exchange.crate import crate_files, write_files
    from reprokg.exchange.views import crate_content

    with open_cli_store(args.store, read_only=True) as store:
        content = crate_content(store, args.id)
        files = crate_files(content, args.ro_crate)
    out = write_files(files, args.output)
    tell(
        f"wrote {out}: an RO-Crate {args.ro_crate} (Process Run Crate) of {content.kind} "
        f"{content.subject}, {len(files)} files, {len(content.runs)} run(s) with PRIMAD"
    )
    return 0


def add_crate_export(p: argparse.ArgumentParser) -> None:
    """The options ``reprokg export crate`` adds to ``reprokg export``."""
    p.add_argument("-o", "--output", help="crate: a new or empty folder, or a .zip")
    p.add_argument("--ro-crate", choices=["1.1", "1.2"], default="1.1", help="crate: version")


def export_crate(args: argparse.Namespace, ident: str) -> int:
    if not args.output:
        raise UsageError("export crate needs -o DIR or -o FILE.zip")
    args.id = ident
    return _export_crate(args)


# --------------------------------------------------------------------------- list


def cmd_list(args: argparse.Namespace) -> int:
    """What the store holds: kind, id (the short id every command accepts), title, date."""
    from reprokg.store.catalog import catalog

    if args.limit < 1 or args.offset < 0:
        raise UsageError("--limit must be at least 1 and --offset at least 0")
    with _store(args, read_only=args.read_only) as store:
        page = catalog(
            store,
            kind=args.kind,
            text=args.text,
            limit=None if args.all else args.limit,
            offset=args.offset,
        )
    if args.format == "json":
        import json

        print(json.dumps(page.to_json(), indent=2))
        if page.truncated:
            print(f"reprokg list: {_list_footer(page)}", file=sys.stderr)
        return 0
    if not page.entries:
        looked = [f"kind {args.kind}" if args.kind else "", repr(args.text) if args.text else ""]
        what = " and ".join(x for x in looked if x)
        print(
            f"(no documents{' matching ' + what if what else ''} in the store "
            f"{store_location(args.store)}"
            + (f"; {page.total} match, none from offset {args.offset}" if page.total else "")
            + ")"
        )
        return 0
    rows = [(e.kind, e.id, e.title, e.date[:19].replace("T", " ")) for e in page.entries]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(_LIST_HEAD)]
    widths[2] = min(widths[2], 60)
    for row in [_LIST_HEAD, *rows]:
        cells = [c if len(c) <= w else c[: w - 1] + "…" for c, w in zip(row, widths, strict=True)]
        print("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip())
    print(f"({_list_footer(page)})")
    return 0


_LIST_HEAD = ("kind", "id", "title", "date")


def _list_footer(page: Catalog) -> str:
    text = page.sentence()
    if page.truncated:
        text += f"; next page: --offset {page.offset + len(page.entries)}; every one: --all"
    return text


# ------------------------------------------------------------------ dump / restore / backup


def cmd_dump(args: argparse.Namespace) -> int:
    with _store(args, read_only=args.read_only) as store:
        if args.output and args.output != "-":
            try:
                with open(args.output, "wb") as fh:
                    store.dump(fh, args.format)
                    size = fh.tell()
            except OSError as exc:
                raise UsageError(f"cannot write {args.output}: {exc.strerror}") from exc
            tell(
                f"wrote {args.output}: {_document_count(store)} document(s) of the store "
                f"{store_location(args.store)}, {size:,} bytes of {args.format}"
            )
        else:
            store.dump(sys.stdout.buffer, args.format)
            sys.stdout.buffer.flush()
    return 0


def _document_count(store: Store) -> int:
    """:func:`~reprokg.store.base.count_documents`, imported when a handler runs."""
    from reprokg.store.base import count_documents

    return count_documents(store)


def _unzipped(fh: BinaryIO) -> BinaryIO:
    """A gzipped dump (``reprokg field build``'s ``.nq.gz``) read through gzip, known by its
    magic bytes (a file or a pipe opened for reading is buffered: peeking reads nothing
    away); any other input as it is."""
    import gzip
    import io
    from typing import cast

    if isinstance(fh, io.BufferedReader) and fh.peek(2)[:2] == b"\x1f\x8b":
        return cast("BinaryIO", gzip.GzipFile(fileobj=fh, mode="rb"))
    return fh


def cmd_restore(args: argparse.Namespace) -> int:
    with _store(args, create=True) as store:
        before = _document_count(store)
        try:
            if args.input == "-":
                store.restore(_unzipped(sys.stdin.buffer), args.format)
            else:
                with open(args.input, "rb") as fh:
                    store.restore(_unzipped(fh), args.format)
        except OSError as exc:
            raise UsageError(f"cannot read {args.input}: {exc.strerror}") from exc
        after = _document_count(store)
    print(
        f"restored {args.input} into the store {store_location(args.store)}: "
        f"{after} document(s) there ({after - before:+d})"
    )
    return 0


def cmd_backup(args: argparse.Namespace) -> int:
    from reprokg.store.base import Backup

    with _store(args) as store:
        if not isinstance(store, Backup):
            raise UsageError(f"{type(store).__name__} cannot be backed up; use dump")
        try:
            store.backup(args.target)
        except OSError as exc:
            raise UsageError(f"backup failed: {exc}") from exc
    print(f"backup of the store {store_location(args.store)} written to {args.target}")
    return 0


def cmd_rebuild_merge(args: argparse.Namespace) -> int:
    """Rebuild the merged default graph (automatic for a pre-merge store opened writable;
    this forces it, e.g. after raw pyoxigraph writes)."""
    from reprokg.store.base import MergeMaintenance, SelectResult

    with _store(args) as store:
        if not isinstance(store, MergeMaintenance):
            raise UsageError(f"{type(store).__name__} keeps no merged default graph")
        if not store.merge_built_at_open:
            store.rebuild_merge()
        res = store.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
        n = int(res.rows[0][0] or 0) if isinstance(res, SelectResult) and res.rows else 0
        docs = _document_count(store)
    print(f"default graph rebuilt: {n} distinct triple(s) from {docs} document(s)")
    return 0


# --------------------------------------------------------------------------- registration


def register(command: Command) -> None:
    p = command("load", "load source files or folders into the store (validated)", cmd_load)
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--kind", help="document kind (run, survey, audit, …); detected if omitted")
    p.add_argument("--batch-size", type=int, default=256, help="documents validated together")
    p.add_argument("--force", action="store_true", help="rewrite documents already stored")
    p.add_argument(
        "--no-originals",
        action="store_true",
        help="do not keep each source file (GET /documents/{id}?original=true)",
    )
    p.add_argument(
        "-v", "--verbose", action="store_true", help="one line per document, every file skipped"
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress counter")
    add_all_option(p)
    add_store_option(p)

    p = command("validate", "validate source files without writing anything", cmd_validate)
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--kind", help="document kind; detected per file if omitted")
    p.add_argument("--format", choices=["text", "json", "turtle"], default="text")

    p = command("query", "run a SPARQL query over all documents", cmd_query)
    p.add_argument("sparql", nargs="?", help="query text, @file.rq, or - for stdin")
    p.add_argument("--format", choices=["table", "csv", "json"], default="table")
    p.add_argument("--name", help="a named query (see queries/)")
    p.add_argument("--param", action="append", metavar="K=V", help="named-query parameter")
    p.add_argument(
        "--all",
        action="store_true",
        help="a named query's every row (its LIMIT dropped; else a page: limit, offset)",
    )
    p.add_argument("--timeout", type=float, default=None, help="seconds")
    p.add_argument("--read-only", action="store_true", help="open the store read-only")
    add_store_option(p)

    p = command(
        "export",
        "write one stored document back as RDF or YAML; 'export crate ID -o DIR|ZIP' writes "
        "a result, a run or a DOI's passport as an RO-Crate",
        cmd_export,
    )
    p.add_argument(
        "target",
        nargs="+",
        metavar="DOC_ID | crate ID",
        help="document IRI, sha256 id or id prefix; or 'crate' and a document or DOI",
    )
    p.add_argument("--format", choices=["turtle", "nquads", "yaml"], default="turtle")
    p.add_argument("--read-only", action="store_true")
    add_crate_export(p)
    add_store_option(p)

    p = command(
        "list",
        "what the store holds: each document's kind, id (the short id every command "
        "accepts), title and date, newest first",
        cmd_list,
    )
    p.add_argument("text", nargs="?", help="only documents whose title, id or source has it")
    p.add_argument("--kind", help="only documents of this kind (run, comparison, …)")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.add_argument("--limit", type=int, default=50, help="documents per page (default 50)")
    p.add_argument("--offset", type=int, default=0, help="the first document of the page")
    p.add_argument("--all", action="store_true", help="every document, no page")
    p.add_argument("--read-only", action="store_true", help="open the store read-only")
    add_store_option(p)

    p = command(
        "dump",
        "write every document quad (N-Quads or TriG; the merged default graph is derived "
        "and left out, restore rebuilds it)",
        cmd_dump,
    )
    p.add_argument("-o", "--output", help="file (default stdout)")
    p.add_argument("--format", choices=["nquads", "trig"], default="nquads")
    p.add_argument("--read-only", action="store_true")
    add_store_option(p)

    p = command("restore", "add the quads of a dump to the store", cmd_restore)
    p.add_argument("input", metavar="FILE", help="dump file, or - for stdin")
    p.add_argument("--format", choices=["nquads", "trig"], default="nquads")
    add_store_option(p)

    p = command("backup", "consistent copy of an embedded store to a new folder", cmd_backup)
    p.add_argument("target", metavar="DIR")
    add_store_option(p)

    p = command(
        "rebuild-merge",
        "rebuild the default graph (the merge of all documents) from the named graphs",
        cmd_rebuild_merge,
    )
    add_store_option(p)
