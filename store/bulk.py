"""pyoxigraph's bulk loader for the embedded store: the merge rebuilt in bulk, and the
leftovers of a bulk write that was killed.

**The merged default graph rebuilt in bulk.** The default graph is a set: re-adding a
triple it holds is a no-op, so the merge can be rebuilt by bulk-writing every document
triple into it instead of one SPARQL Update transaction (which held the whole change in
memory: benchmarks/README.md#figures-once-quoted-in-code). Three steps, each crash-safe:

1. one small transaction: :data:`~reprokg.store.merge.STALE_MARKER` instead of the merged
   marker (plus, for a store without either, the copy of default-graph triples no document
   holds to :data:`~reprokg.store.merge.LEGACY_DEFAULT_GRAPH`), the update scratch graph
   dropped, and the default-graph triples no document holds deleted (an anti-join read by
   the engine; few writes, so the transaction stays small however big the store);
2. the bulk write, streamed: the document graphs (and the legacy graph) are split into
   shares, and each share's triples are selected by one query (``VALUES ?g`` over its
   graphs, read graph by graph from the GSPO index; the cost is decoding terms, one RocksDB
   lookup each) and written by pyoxigraph as SPARQL TSV results to a temporary file, which
   is rewritten to N-Triples (TSV writes numbers and booleans in Turtle's short form) and
   ``bulk_load``-ed into the default graph. The engine releases the GIL while it evaluates
   and writes, so two threads select two shares at once, and a share's rewrite (Python)
   overlaps the other thread's select: faster than one query over all graphs (a ``FILTER``
   on the reserved graphs, the form before; benchmarks/README.md#figures-once-quoted-in-code).
   A SELECT, not a CONSTRUCT: oxigraph's CONSTRUCT keeps a set of the triples it emitted,
   a SELECT streams, and the default graph is a set anyway. A query *dataset* naming the
   graphs is not used: its memory grew with the triples read. Triples with a blank node
   are split out of the text and written as ``Quad`` objects (a text load renames blank
   nodes, which would put *other* blank nodes into the merge);
3. one small transaction: the merged marker instead of the stale one.

Killed anywhere, the store keeps the stale marker (or, before step 1 commits, the state it
had) and the next writable open redoes the rebuild: every step is idempotent. pyoxigraph's
bulk loader builds SST files and ingests them at the end of each call with one RocksDB
``IngestExternalFiles`` over all column families (all or nothing); the ``bulk-*.sst`` files
and our temporary files of a killed call stay in the database folder and are removed on
the next writable open (:func:`remove_leftovers`; the RocksDB lock is ours then, so no other
writer can be using them).
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyoxigraph as ox

from reprokg.store.merge import (
    KEEP_LEGACY_OP,
    MARK_MERGED,
    MARK_STALE,
    RESERVED_GRAPHS,
    SCRATCH_GRAPH,
    STALE_MARKER,
    delete_unheld_op,
)
from reprokg.store.terms import solutions

log = logging.getLogger(__name__)

#: temporary files of a rebuild (TSV results and N-Triples) in the database folder
TMP_PREFIX = "reprokg-merge-"
_CHUNK = 64 << 20
_XSD = b"http://www.w3.org/2001/XMLSchema#"
#: the short forms oxigraph's TSV writer uses for xsd:integer/decimal/double/boolean
#: objects (sparesults, ``write_tsv_term``): an object that starts with none of ``"<_``.
#: The object is the last field of a row, so the match is anchored between a TAB and the
#: end of the line; its lexical form is kept as written ("01" stays "01")
_SHORT = re.compile(rb"\t([^\t\n\"<_][^\t\n]*)\n")
_DOUBLE = re.compile(rb"[eE]")


def _typed(m: re.Match[bytes]) -> bytes:
    v = m.group(1)
    if v in (b"true", b"false"):
        kind = b"boolean"
    elif _DOUBLE.search(v):
        kind = b"double"
    elif b"." in v:
        kind = b"decimal"
    else:
        kind = b"integer"
    return b'\t"' + v + b'"^^<' + _XSD + kind + b">\n"


def remove_leftovers(db_dir: str | Path | None) -> int:
    """Delete the bulk loader's ``bulk-*.sst`` files and our temporary files that a killed
    bulk write left in ``db_dir``. Only on a writable open (the RocksDB lock is ours)."""
    if db_dir is None:
        return 0
    n = 0
    for pattern in ("bulk-*.sst", TMP_PREFIX + "*"):
        for f in Path(db_dir).glob(pattern):
            f.unlink(missing_ok=True)
            n += 1
    if n:
        log.info("removed %d file(s) of an interrupted bulk write from %s", n, db_dir)
    return n


def begin(store: ox.Store) -> None:
    """Step 1, one transaction: stale marker; the legacy copy unless the store is already
    stale (a crash mid-update or mid-rebuild: the default graph holds no triples of its
    own then); scratch dropped; default triples no document holds removed."""
    stale = store.contains_named_graph(ox.NamedNode(STALE_MARKER))
    ops = [] if stale else [KEEP_LEGACY_OP]
    ops += [*MARK_STALE, f"DROP SILENT GRAPH <{SCRATCH_GRAPH}>", delete_unheld_op()]
    store.update(" ;\n".join(ops))


def finish(store: ox.Store) -> None:
    """Step 3: the merge is complete."""
    store.update(" ;\n".join(MARK_MERGED))


def tsv_to_ntriples(src: str | Path, dst: str | Path) -> None:
    """SPARQL TSV results of ``?s ?p ?o`` → N-Triples, in chunks. Fields are separated by
    TABs only (a TAB inside a literal is written escaped), rows end with a newline."""
    with open(src, "rb") as fi, open(dst, "wb") as fo:
        fi.readline()  # the ?s ?p ?o header
        rest = b""
        while True:
            chunk = fi.read(_CHUNK)
            if not chunk:
                break
            chunk = rest + chunk
            cut = chunk.rfind(b"\n") + 1  # whole lines; the rest waits for the next chunk
            chunk, rest = chunk[:cut], chunk[cut:]
            chunk = _SHORT.sub(_typed, chunk)
            fo.write(chunk.replace(b"\t", b" ").replace(b"\n", b" .\n"))
        if rest.strip():
            raise ValueError("TSV results did not end with a newline")


def split_blank(path: str | Path) -> list[ox.Quad]:
    """Move the triples with a blank node out of the N-Triples file ``path`` (rewritten in
    place) and return them as default-graph ``Quad`` objects, which keep the store's blank
    node labels. Chunks without ``_:`` are copied as they are."""
    path = str(path)
    if not _contains(path, b"_:"):  # the usual case: no rewrite of the file
        return []
    tmp = path + ".plain"
    candidates: list[bytes] = []
    with open(path, "rb") as src, open(tmp, "wb") as dst:
        rest = b""
        while True:
            chunk = src.read(_CHUNK)
            if not chunk:
                break
            chunk = rest + chunk
            cut = chunk.rfind(b"\n") + 1
            chunk, rest = chunk[:cut], chunk[cut:]
            if b"_:" not in chunk:
                dst.write(chunk)
                continue
            keep = []
            for line in chunk.splitlines(keepends=True):
                if line.startswith(b"_:") or b"> _:" in line:
                    candidates.append(line)
                else:
                    keep.append(line)
            dst.write(b"".join(keep))
        dst.write(rest)
        out: list[ox.Quad] = []
        for t in ox.parse(b"".join(candidates), ox.RdfFormat.N_TRIPLES):
            if isinstance(t.subject, ox.BlankNode) or isinstance(t.object, ox.BlankNode):
                out.append(ox.Quad(t.subject, t.predicate, t.object))
            else:  # "> _:" inside a literal: a plain triple after all
                dst.write(f"{t.subject} {t.predicate} {t.object} .\n".encode())
    os.replace(tmp, path)
    return out


def engine_threads() -> int:
    """Threads that query the engine at once in a rebuild: one per usable CPU, up to 4
    (pyoxigraph releases the GIL while it evaluates). Selecting the merge's triples, each
    thread takes two shares, so one share's rewrite to N-Triples (Python, holding the
    GIL) overlaps another share's select (the engine, not holding it)."""
    return max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1))


def select_query(graphs: list[ox.NamedNode]) -> str:
    """Every triple of ``graphs``, read graph by graph from the GSPO index."""
    listed = " ".join(map(str, graphs))
    return f"SELECT ?s ?p ?o WHERE {{ VALUES ?g {{ {listed} }} GRAPH ?g {{ ?s ?p ?o }} }}"


#: the triples of graphs named by a blank node (raw writes only: documents are IRIs), which
#: the merge holds too (store/merge.py) but ``VALUES`` cannot name: a scan, only if any
SELECT_BLANK_GRAPHS = "SELECT ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } FILTER(isBlank(?g)) }"


def _select_share(
    store: ox.Store, query: str, tmp_dir: str | Path | None
) -> tuple[str, float, float]:
    """One share of the graphs selected to TSV (``query``) and rewritten to N-Triples: the
    N-Triples file's path and the seconds each step took."""
    fd, tsv = tempfile.mkstemp(prefix=TMP_PREFIX, suffix=".tsv", dir=tmp_dir)
    os.close(fd)
    try:
        t0 = time.perf_counter()
        solutions(store, query).serialize(tsv, ox.QueryResultsFormat.TSV)
        t1 = time.perf_counter()
        fd, nt = tempfile.mkstemp(prefix=TMP_PREFIX, suffix=".nt", dir=tmp_dir)
        os.close(fd)
        tsv_to_ntriples(tsv, nt)
        return nt, t1 - t0, time.perf_counter() - t1
    finally:
        os.unlink(tsv)


def _contains(path: str, needle: bytes) -> bool:
    """Whether the file holds ``needle`` (read in chunks that overlap by its length)."""
    with open(path, "rb") as f:
        tail = b""
        while chunk := f.read(_CHUNK):
            if needle in tail + chunk[: len(needle)] or needle in chunk:
                return True
            tail = chunk[-len(needle) :]
    return False


def bulk_merge(store: ox.Store, tmp_dir: str | Path | None = None) -> dict:
    """Step 2: every document triple bulk-written into the default graph (see the module)."""
    t0 = time.perf_counter()
    skip = {ox.NamedNode(g) for g in RESERVED_GRAPHS}
    names = list(store.named_graphs())
    graphs = [g for g in names if isinstance(g, ox.NamedNode) and g not in skip]
    blank_graphs = any(isinstance(g, ox.BlankNode) for g in names)
    if not graphs and not blank_graphs:
        return {"graphs": 0, "seconds": 0.0}
    threads = engine_threads()
    shares = [select_query(graphs[i :: 2 * threads]) for i in range(min(2 * threads, len(graphs)))]
    if blank_graphs:
        shares.append(SELECT_BLANK_GRAPHS)
    parts: list[str] = []
    select_s = convert_s = 0.0
    try:
        with ThreadPoolExecutor(threads, thread_name_prefix="reprokg-merge") as pool:
            for nt, sel, conv in pool.map(lambda q: _select_share(store, q, tmp_dir), shares):
                parts.append(nt)
                select_s += sel
                convert_s += conv
        t1 = time.perf_counter()
        blank: list[ox.Quad] = []
        size = 0
        for nt in parts:
            blank += split_blank(nt)
            size += os.path.getsize(nt)
        t2 = time.perf_counter()
        for nt in parts:  # each call all or nothing; a kill between: redone on open
            store.bulk_load(path=nt, format=ox.RdfFormat.N_TRIPLES)
            os.unlink(nt)
        if blank:
            store.bulk_extend(blank)
        t3 = time.perf_counter()
    finally:
        for path in parts:
            if os.path.exists(path):
                os.unlink(path)
    return {
        "graphs": len(graphs),
        "blank_named_graphs": blank_graphs,
        "threads": threads,
        "select_and_convert_s": round(t1 - t0, 3),
        "select_cpu_s": round(select_s, 3),
        "to_ntriples_cpu_s": round(convert_s, 3),
        "split_blank_s": round(t2 - t1, 3),
        "bulk_load_s": round(t3 - t2, 3),
        "blank_triples": len(blank),
        "ntriples_bytes": size,
    }


def rebuild_merge(store: ox.Store, tmp_dir: str | Path | None = None) -> dict:
    """The whole crash-safe bulk rebuild (steps 1-3); timings of each step."""
    t0 = time.perf_counter()
    begin(store)
    t1 = time.perf_counter()
    info = bulk_merge(store, tmp_dir)
    t2 = time.perf_counter()
    finish(store)
    info.update(begin_s=round(t1 - t0, 3), bulk_s=round(t2 - t1, 3))
    info["total_s"] = round(time.perf_counter() - t0, 3)
    return info
