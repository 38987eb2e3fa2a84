"""Validating many documents at once: merged batches, and batches on every core."""

from __future__ import annotations

import gc
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from typing import NamedTuple

from rdflib import Graph, Literal
from rdflib.namespace import RDF

from reprokg.core.document import Document
from reprokg.core.lazy_graph import graph_triples, triples_kept
from reprokg.validation.checks import PYTHON_CHECKS, for_shacl, run_checks
from reprokg.validation.engine import fast_results, finish_report, validate_document
from reprokg.validation.report import Report, Result
from reprokg.validation.shapes import add_entailed_types

#: documents validated together (one SHACL run per kind per batch)
DEFAULT_BATCH_SIZE = 256


def _disjoint_batches(group: list[Document]) -> list[list[int]]:
    """Split a batch so no two documents in a part share a node either describes.

    Validated together, two documents saying different things of one shared node (a
    DOI written two ways) break its cardinality constraints although each conforms
    alone. Within a part every described node belongs to one document, so a merged
    run gives each document exactly the results it gets alone.
    """
    parts: list[tuple[list[int], set, set]] = []
    for i, d in enumerate(group):
        subjects = set(d.graph.subjects())
        nodes = subjects | {o for p, o in d.graph.predicate_objects() if p != RDF.type}
        nodes = {n for n in nodes if not isinstance(n, Literal)}
        for members, used_subjects, used_nodes in parts:
            # a node described (a subject) in one document and used in another
            if not (subjects & used_nodes) and not (nodes & used_subjects):
                members.append(i)
                used_subjects |= subjects
                used_nodes |= nodes
                break
        else:
            parts.append(([i], set(subjects), set(nodes)))
    return [members for members, _, _ in parts]


class Validated(NamedTuple):
    """A document and its report: validated once (a parse worker), stored by ingest
    without validating it again."""

    document: Document
    report: Report


def validate(docs: list[Document]) -> list[Validated]:
    """Each document with its report (:func:`validate_documents`)."""
    return [Validated(d, r) for d, r in zip(docs, validate_documents(docs), strict=True)]


_GC_LOCK = threading.Lock()
_gc_holders = 0
_gc_was_on = False


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Python's cyclic collector off while a batch is validated, back on after.

    A batch allocates a few objects per triple (N-Quads lines, term tuples) and makes
    almost no reference cycles, yet the allocations trigger collections that walk the
    caller's heap (the documents waiting to be validated and stored): a quarter of the
    CPU time of a batch of stability studies or comparisons (thousands of triples each;
    ``python -m benchmarks.ingest.kinds --collector-ab``). Nested and threaded use is counted; the
    collector comes back when the last holder leaves.
    """
    global _gc_holders, _gc_was_on
    with _GC_LOCK:
        if _gc_holders == 0:
            _gc_was_on = gc.isenabled()
            gc.disable()
        _gc_holders += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _gc_holders -= 1
            if _gc_holders == 0 and _gc_was_on:
                gc.enable()


def validate_documents(docs: list[Document]) -> list[Report]:
    """Validate many documents; the reports equal those of validating each alone.

    The compiled engine validates each kind's documents in one store, one named graph
    per document; with pyshacl (``REPROKG_SHACL_ENGINE=pyshacl``) one run per kind over
    the merged graph of documents that share no node (see ``_disjoint_batches``),
    results mapped back by focus node.
    """
    with cyclic_gc_paused(), triples_kept():
        return _validate_documents(docs)


def _validate_documents(docs: list[Document]) -> list[Report]:
    by_kind: dict[str, list[Document]] = {}
    for d in docs:
        by_kind.setdefault(d.kind, []).append(d)
    reports: dict[int, Report] = {}
    for kind, group in by_kind.items():
        # each document's triples read once for the engine's load and the checks
        lists = [graph_triples(d.graph) for d in group] if len(group) > 1 else None
        fast = fast_results(group, kind, lists) if lists is not None else None
        if fast is not None:  # one named graph per document: per-document by construction
            checked = run_checks(group, lists)  # each check screened over the batch at once
            for d, results, more in zip(group, fast, checked, strict=True):
                results += more
                reports[id(d)] = finish_report(d, results)
            continue
        for part in _disjoint_batches(group):
            members = [group[i] for i in part]
            if len(members) == 1:
                reports[id(members[0])] = validate_document(members[0])
                continue
            merged = Graph()
            owners: dict[str, list[int]] = {}  # described node -> its one document
            users: dict[str, list[int]] = {}  # node only used as a value -> documents
            for i, d in enumerate(members):
                for t in for_shacl(d.graph):
                    merged.add(t)
                for n in set(d.graph.subjects()):
                    owners.setdefault(str(n), []).append(i)
                for n in set(d.graph.objects()):
                    users.setdefault(str(n), []).append(i)
            from reprokg.validation.pyshacl_engine import shacl_results

            results = shacl_results(add_entailed_types(merged), kind)
            per_doc: list[list[Result]] = [[] for _ in members]
            for r in results:
                focus = r.focus_node or ""
                for i in owners.get(focus) or users.get(focus) or range(len(members)):
                    per_doc[i].append(Result(**asdict(r)))
            for i, d in enumerate(members):
                for check in PYTHON_CHECKS:
                    per_doc[i].extend(check(d.graph, d))
                reports[id(d)] = finish_report(d, per_doc[i])
    return [reports[id(d)] for d in docs]


#: the documents a forked validation worker reads (set in the parent just before the fork)
_FORKED_DOCS: list[Document] | None = None


def _validate_span(span: tuple[int, int]) -> list[Report]:
    assert _FORKED_DOCS is not None
    return validate_documents(_FORKED_DOCS[span[0] : span[1]])


def validate_in_processes(
    docs: list[Document], batch_size: int = 256, workers: int | None = None
) -> list[Report]:
    """``validate_documents`` over batches of ``docs``, the batches in forked processes.

    Batches are independent (each gives exactly the per-document reports), so a second
    core doubles what one process validates. The workers are forked after ``docs``
    exist and read them copy-on-write: only the batch bounds go in and the reports (plain
    strings) come back. One process when fork is unavailable, for a single batch, or
    with ``workers`` 1. Meant for batch tools (CLI, benchmarks), not for a server
    process with threads of its own.
    """
    import multiprocessing as mp

    global _FORKED_DOCS
    spans = [(i, min(i + batch_size, len(docs))) for i in range(0, len(docs), batch_size)]
    n = min(workers or os.cpu_count() or 1, len(spans))
    if n < 2 or "fork" not in mp.get_all_start_methods():
        return [r for i, j in spans for r in validate_documents(docs[i:j])]
    _FORKED_DOCS = docs
    try:
        with mp.get_context("fork").Pool(n) as pool:
            parts = pool.map(_validate_span, spans, chunksize=1)
    finally:
        _FORKED_DOCS = None
    return [r for part in parts for r in part]
