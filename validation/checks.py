"""Checks SHACL cannot express (the ORCID check digit), reported as SHACL-form results."""

from __future__ import annotations

from collections.abc import Callable

from rdflib import Graph, URIRef

from reprokg.core.document import Document
from reprokg.core.errors import IdentifierError
from reprokg.core.identifiers import orcid_iri
from reprokg.core.lazy_graph import graph_triples, pending_triples
from reprokg.core.namespaces import RK
from reprokg.validation.report import Result

Check = Callable[[Graph, "Document | None"], list[Result]]
#: Checks SHACL cannot express; each gets the document graph (and the document, for
#: its source paths) and returns results.
PYTHON_CHECKS: list[Check] = []


def python_check(fn: Check) -> Check:
    PYTHON_CHECKS.append(fn)
    return fn


def _orcid_source_path(doc: Document | None) -> str:
    """The source path of the document's ORCID field, from its ``lines`` if unambiguous.

    Loaders record every ORCID key they read (``actor.orcid``, ``authors[2].orcid``);
    paths at the same line are one field under two names (the audit loader keeps an
    ``actor.orcid`` alias), and the most specific of them is the one a person edits.
    Several ORCID fields on different lines cannot be told apart by value here, so
    the generic ``orcid`` is used then.
    """
    if doc is None:
        return "orcid"
    found = [p for p in doc.lines if p.rsplit(".", 1)[-1].lower().endswith("orcid")]
    if found and len({doc.lines[p] for p in found}) == 1:
        return max(found, key=lambda p: (len(p), p))
    return "orcid"


@python_check
def check_orcids(graph: Graph, doc: Document | None = None) -> list[Result]:
    """ORCID iDs (as IRIs, or as written in ``rk:orcidAsWritten``) must pass MOD 11-2.

    A finding a loader already reported (same focus node and value, with its own path
    and line) is not repeated. One pass over the document's triples (no graph index
    lookups): validating a batch spent a sixth of its time here.
    """
    as_written = RK.orcidAsWritten
    triples = graph_triples(graph)
    written: dict[object, list[object]] = {}  # value -> subjects, in graph.subject_objects order
    nodes: set[str] = set()
    # str's own methods: rdflib's startswith and __eq__ are Python functions, and this
    # loop sees every triple (terms are all str; the type checks follow the text test)
    same, starts, prefix = str.__eq__, str.startswith, "https://orcid.org/"
    for s, p, o in triples:
        if same(p, as_written) and type(p) is type(as_written):
            written.setdefault(o, []).append(s)
        if starts(s, prefix) and isinstance(s, URIRef):
            nodes.add(str(s))
        if starts(o, prefix) and isinstance(o, URIRef):
            nodes.add(str(o))
    pairs: list[tuple[object, object]]
    if pending_triples(graph) is not None:  # the order the filled graph would give
        pairs = [(s, o) for o, subjects in written.items() for s in subjects]
    else:
        pairs = list(graph.subject_objects(RK.orcidAsWritten)) if written else []
    if not pairs and not nodes:
        return []
    reported = {(m.focus_node, m.value) for m in doc.messages} if doc is not None else set()
    found: list[tuple[str, str, str | None]] = []  # (message, focus node, value)
    for s, o in pairs:
        try:
            orcid_iri(str(o))
        except IdentifierError as exc:
            if (str(s), str(o)) not in reported:
                found.append((str(exc), str(s), str(o)))
    for iri in nodes:
        try:
            orcid_iri(iri)
        except IdentifierError as exc:
            if (iri, None) not in reported and (iri, iri) not in reported:
                found.append((str(exc), iri, None))
    if not found:
        return []
    path = _orcid_source_path(doc)
    return [Result("Violation", m, path=path, focus_node=f, value=v) for m, f, v in found]
