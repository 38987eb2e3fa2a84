"""Validation of one document (or a batch) before anything touches the store.

Every kind runs on the project's SHACL engine, the shapes compiled to SPARQL on pyoxigraph
(:mod:`reprokg.validation.fast`, one named graph per document; it passes the W3C SHACL
Core suite). pyshacl (:mod:`reprokg.validation.pyshacl_engine`) is the test oracle: it
runs only when asked, ``REPROKG_SHACL_ENGINE=pyshacl`` (it alone) or ``=compare`` (both,
raising ``EngineMismatch`` when they disagree: the equivalence gate). Checks SHACL cannot express
(:mod:`reprokg.validation.checks`) and the loader's own findings join the same report.
"""

from __future__ import annotations

from collections.abc import Iterable

from reprokg.core.document import Document
from reprokg.core.settings import settings
from reprokg.validation.checks import PYTHON_CHECKS, for_shacl
from reprokg.validation.report import SEVERITIES, Report, Result
from reprokg.validation.shapes import materialise_types


def engine() -> str:
    """``fast`` (compiled SPARQL on pyoxigraph, reprokg.validation.fast), ``pyshacl`` or
    ``compare`` (``REPROKG_SHACL_ENGINE``)."""
    return settings().shacl_engine


class EngineMismatch(AssertionError):
    """``REPROKG_SHACL_ENGINE=compare``: the fast engine and pyshacl disagreed."""


def shacl_key(results: Iterable[Result]) -> set[tuple]:
    """What both engines must agree on: (focus node, path, severity, component, value)."""
    return {(r.focus_node, r.path, r.severity, r.constraint, r.value) for r in results}


def fast_results(
    docs: list[Document], kind: str, triples: list[list[tuple]] | None = None
) -> list[list[Result]] | None:
    """SHACL results per document from reprokg.validation.fast, or None when
    ``REPROKG_SHACL_ENGINE=pyshacl`` (pyshacl validates then). ``triples``: each
    document's triples, when the caller has read them (read once per batch)."""
    from reprokg.validation.fast.runtime import evaluate

    if engine() == "pyshacl":
        return None
    # triples with a term the store refuses are left out as they are loaded (what
    # for_shacl does for pyshacl; check_terms_the_store_takes reports them)
    evaluated = evaluate(kind, [d.graph for d in docs], triples)
    out = []
    for found in evaluated:
        out.append(
            [
                Result(
                    severity=b.severity,
                    message=b.message,
                    path=b.path,
                    focus_node=focus,
                    value=value,
                    shape=b.shape,
                    constraint=b.component,
                )
                for b, focus, value in found
            ]
        )
    if engine() == "compare":  # the equivalence gate: every document checked by both
        from reprokg.validation.pyshacl_engine import shacl_results

        for d, results in zip(docs, out, strict=True):
            ref = shacl_key(shacl_results(materialise_types(for_shacl(d.graph)), kind))
            got = shacl_key(results)
            if ref != got:
                raise EngineMismatch(
                    f"{d.source_name}: pyshacl only {sorted(ref - got, key=str)}; "
                    f"fast only {sorted(got - ref, key=str)}"
                )
    return out


def finish_report(doc: Document, results: list[Result]) -> Report:
    if not results and not doc.messages:  # a conformant document: nothing to place or sort
        return Report(source=doc.source_name, results=results, document=str(doc.iri))
    for m in doc.messages:
        results.append(
            Result(
                m.severity,
                m.message,
                path=m.path,
                focus_node=m.focus_node,
                value=m.value,
                line=m.line,
            )
        )
    for r in results:
        r.source = doc.source_name
        if r.line is None and r.path and r.path in doc.lines:
            r.line = doc.lines[r.path]
    order = {s: i for i, s in enumerate(SEVERITIES)}
    results.sort(key=lambda r: (order.get(r.severity, 9), r.line or 0, r.path or ""))
    return Report(source=doc.source_name, results=results, document=str(doc.iri))


def validate_document(doc: Document) -> Report:
    fast = fast_results([doc], doc.kind)
    if fast is not None:
        results = fast[0]
    else:
        from reprokg.validation.pyshacl_engine import shacl_results

        results = shacl_results(materialise_types(for_shacl(doc.graph)), doc.kind)
    for check in PYTHON_CHECKS:
        results.extend(check(doc.graph, doc))
    return finish_report(doc, results)
