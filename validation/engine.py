"""Validation of one document (or a batch) before anything touches the store.

pyshacl runs on an in-memory rdflib graph with the shapes of the document's kind;
the small RDFS closure of our ontology (subclass types) is materialised into the
copy first instead of running ``inference="owlrl"`` per document (DESIGN.md).
Checks SHACL cannot express (the ORCID check digit, loader findings with line
numbers) become results of the same form, so users read one report.

By default the shapes run compiled to SPARQL on pyoxigraph (``reprokg.validation.fast``,
one named graph per document); kinds it does not compile, documents with ill-typed
literals, and ``REPROKG_SHACL_ENGINE=pyshacl`` use pyshacl. ``=compare`` runs both
and raises ``EngineMismatch`` when they disagree (the equivalence gate).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from functools import cache, lru_cache

from pyshacl import validate as shacl_validate
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF, RDFS, SH

from reprokg.core.document import Document
from reprokg.core.identifiers import IdentifierError, orcid_iri
from reprokg.core.namespaces import RK, bind_prefixes, new_graph
from reprokg.core.resources import data_dir, iter_files

SEVERITIES = ("Violation", "Warning", "Info")
_SEVERITY_IRI = {"Violation": SH.Violation, "Warning": SH.Warning, "Info": SH.Info}


@dataclass
class Result:
    """One finding, in SHACL terms, plus the source path and line a person edits."""

    severity: str
    message: str
    path: str | None = None
    focus_node: str | None = None
    value: str | None = None
    line: int | None = None
    source: str | None = None  # file name
    shape: str | None = None
    constraint: str | None = None

    def to_text(self) -> str:
        where = self.source or ""
        if self.line is not None:
            where += f":{self.line}"
        path = f" {self.path}:" if self.path else ""
        return f"{where}: {self.severity}:{path} {self.message}".lstrip(": ")


@dataclass
class Report:
    source: str
    results: list[Result] = field(default_factory=list)
    document: str | None = None  # document IRI

    @property
    def conforms(self) -> bool:
        return not any(r.severity == "Violation" for r in self.results)

    def count(self, severity: str) -> int:
        return sum(1 for r in self.results if r.severity == severity)

    def summary(self) -> str:
        counts = ", ".join(f"{self.count(s)} {s.lower()}(s)" for s in SEVERITIES)
        return f"{self.source}: {'conforms' if self.conforms else 'does not conform'} ({counts})"

    def to_dict(self) -> dict:
        return {
            "source": self.source,
            "document": self.document,
            "conforms": self.conforms,
            "results": [asdict(r) for r in self.results],
        }

    def to_text(self) -> str:
        lines = [self.summary()]
        lines += ["  " + r.to_text() for r in self.results]
        return "\n".join(lines)

    def to_graph(self) -> Graph:
        """The report as a ``sh:ValidationReport`` graph (Turtle output of the CLI)."""
        g = bind_prefixes(Graph())
        report = BNode()
        g.add((report, RDF.type, SH.ValidationReport))
        g.add((report, SH.conforms, Literal(self.conforms)))
        for r in self.results:
            node = BNode()
            g.add((report, SH.result, node))
            g.add((node, RDF.type, SH.ValidationResult))
            g.add((node, SH.resultSeverity, _SEVERITY_IRI[r.severity]))
            g.add((node, SH.resultMessage, Literal(r.message)))
            if r.focus_node:
                g.add((node, SH.focusNode, _term(r.focus_node)))
            if r.value is not None:
                g.add((node, SH.value, Literal(r.value)))
            if r.path:
                g.add((node, RK.sourcePath, Literal(r.path)))
            if r.line is not None:
                g.add((node, RK.sourceLine, Literal(r.line)))
        return g


def _term(value: str) -> URIRef | BNode:
    return URIRef(value) if "://" in value or value.startswith("urn:") else BNode(value)


def reports_to_json(reports: Iterable[Report]) -> str:
    return json.dumps([r.to_dict() for r in reports], indent=2, ensure_ascii=False)


# --------------------------------------------------------------------------- shapes & ontology


@lru_cache(maxsize=1)
def ontology_graph() -> Graph:
    """Our ontology (all ``ontology/*.ttl`` modules) as one graph, imports excluded."""
    g = new_graph()
    for f in iter_files("ontology", ".ttl"):
        g.parse(data=f.read_text(encoding="utf-8"), format="turtle", publicID=f.name)
    return g


@lru_cache(maxsize=1)
def _superclasses() -> dict[URIRef, frozenset[URIRef]]:
    """Transitive ``rdfs:subClassOf`` closure over named classes of the ontology."""
    g = ontology_graph()
    direct: dict[URIRef, set[URIRef]] = {}
    for s, o in g.subject_objects(RDFS.subClassOf):
        if isinstance(s, URIRef) and isinstance(o, URIRef):
            direct.setdefault(s, set()).add(o)
    closure: dict[URIRef, frozenset[URIRef]] = {}
    for cls in direct:
        seen: set[URIRef] = set()
        stack = list(direct[cls])
        while stack:
            c = stack.pop()
            if c not in seen:
                seen.add(c)
                stack.extend(direct.get(c, ()))
        closure[cls] = frozenset(seen)
    return closure


def add_entailed_types(graph: Graph) -> Graph:
    """Add, in place, the superclass types our ontology entails; returns ``graph``."""
    sup = _superclasses()
    extra = [
        (s, RDF.type, c)
        for s, cls in graph.subject_objects(RDF.type)
        for c in sup.get(cls, ())  # type: ignore[arg-type]
    ]
    for t in extra:
        graph.add(t)
    return graph


def materialise_types(graph: Graph) -> Graph:
    """A copy of ``graph`` with the superclass types our ontology entails added."""
    out = Graph()
    for t in graph:
        out.add(t)
    return add_entailed_types(out)


@cache
def shapes_graph(kind: str) -> Graph:
    """``shapes/common.ttl`` (if any) plus ``shapes/{kind}.ttl``."""
    g = new_graph()
    folder = data_dir("shapes")
    for name in ("common.ttl", f"{kind}.ttl"):
        f = folder.joinpath(name)
        if f.is_file():
            g.parse(data=f.read_text(encoding="utf-8"), format="turtle", publicID=name)
    return g


def known_kinds() -> list[str]:
    return [f.name[:-4] for f in iter_files("shapes", ".ttl") if f.name != "common.ttl"]


# --------------------------------------------------------------------------- python checks

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
    from reprokg.core.lazy_graph import pending_triples
    from reprokg.validation.fast import graph_triples

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


# --------------------------------------------------------------------------- running


def _source_path(shapes: Graph, shape: object, result_path: object) -> str | None:
    if shape is not None:
        sp = shapes.value(shape, RK.sourcePath)  # type: ignore[arg-type]
        if sp is not None:
            return str(sp)
    if isinstance(result_path, URIRef):
        return str(result_path).rsplit("#", 1)[-1].rsplit("/", 1)[-1]
    return None


@cache
def _install_prepared_query_cache() -> None:
    """Parse each SHACL-SPARQL constraint once, not once per focus node.

    pyshacl 0.40 hands the constraint's text to ``Graph.query`` for every focus node,
    and rdflib parses it each time (~0.1 s here; over half of validating a batch of
    run headers, measured by benchmarks/ingest). The same text with the same initial
    bindings gives the same results prepared or not: rdflib's ``prepareQuery`` exists
    for exactly this reuse. Parse errors still surface from pyshacl as before.
    """
    try:
        from pyshacl.constraints.sparql.sparql_based_constraints import SPARQLBasedConstraint
        from rdflib.plugins.sparql import prepareQuery
    except ImportError:
        return
    original = SPARQLBasedConstraint._validate_sparql_query

    @lru_cache(maxsize=512)
    def prepared(text: str):  # type: ignore[no-untyped-def]
        return prepareQuery(text)

    def validate_sparql_query(self, query, init_binds, target_graph):  # type: ignore[no-untyped-def]
        if isinstance(query, str):
            # a text rdflib cannot parse goes on as text: pyshacl reports it as it always did
            with contextlib.suppress(Exception):
                query = prepared(query)
        return original(self, query, init_binds, target_graph)

    SPARQLBasedConstraint._validate_sparql_query = validate_sparql_query  # type: ignore[method-assign]
    _install_constraint_lookup()


class _ParameterList(list):
    """pyshacl's list of constraint parameters with set-speed ``in`` (same members, order).

    ``Shape.validate`` tests every predicate of a shape with ``p in <list of ~40
    IRIs>`` on each call, and nested shapes (``sh:node``, ``sh:or``) are validated per
    value node: ~25% of validating a batch of run headers went to these comparisons.
    """

    def __init__(self, items: Iterable[object] = ()) -> None:
        super().__init__(items)
        self._members = set(self)

    def __contains__(self, item: object) -> bool:
        return item in self._members

    def copy(self) -> _ParameterList:  # type: ignore[override]
        return _ParameterList(self)

    def append(self, item: object) -> None:
        super().append(item)
        self._members.add(item)


def _install_constraint_lookup() -> None:
    """Seed the module cache pyshacl's ``Shape.validate`` reads its parameter list from."""
    try:
        from pyshacl import shape as shape_module
        from pyshacl.constraints import ALL_CONSTRAINT_PARAMETERS, CONSTRAINT_PARAMETERS_MAP
    except ImportError:
        return
    shape_module.CONSTRAINT_PARAMS = (  # type: ignore[attr-defined]
        _ParameterList(ALL_CONSTRAINT_PARAMETERS),
        CONSTRAINT_PARAMETERS_MAP,
    )


def _shacl_results(data: Graph, kind: str) -> list[Result]:
    shapes = shapes_graph(kind)
    if len(shapes) == 0:
        return []
    _install_prepared_query_cache()
    _conforms, report, _text = shacl_validate(
        data,
        shacl_graph=shapes,
        inference=None,
        advanced=True,
        allow_warnings=True,
        abort_on_first=False,
        # ``data`` is always our private copy: no second clone (advanced mode clones)
        inplace=True,
    )
    out = []
    for res in report.subjects(RDF.type, SH.ValidationResult):
        sev = report.value(res, SH.resultSeverity)
        severity = str(sev).rsplit("#", 1)[-1] if sev is not None else "Violation"
        shape = report.value(res, SH.sourceShape)
        value = report.value(res, SH.value)
        focus = report.value(res, SH.focusNode)
        out.append(
            Result(
                severity=severity,
                message=str(report.value(res, SH.resultMessage) or "constraint not met"),
                path=_source_path(shapes, shape, report.value(res, SH.resultPath)),
                focus_node=str(focus) if focus is not None else None,
                value=str(value) if value is not None else None,
                shape=str(shape) if isinstance(shape, URIRef) else None,
                constraint=str(report.value(res, SH.sourceConstraintComponent) or "") or None,
            )
        )
    return out


def engine() -> str:
    """``fast`` (compiled SPARQL on pyoxigraph, reprokg.validation.fast) unless
    ``REPROKG_SHACL_ENGINE=pyshacl``; the fast engine itself hands to pyshacl any kind
    whose shapes it does not compile and any document with an ill-typed literal."""
    value = os.environ.get("REPROKG_SHACL_ENGINE", "fast")
    return value if value in ("pyshacl", "compare") else "fast"


class EngineMismatch(AssertionError):
    """``REPROKG_SHACL_ENGINE=compare``: the fast engine and pyshacl disagreed."""


def shacl_key(results: Iterable[Result]) -> set[tuple]:
    """What both engines must agree on: (focus node, path, severity, component, value)."""
    return {(r.focus_node, r.path, r.severity, r.constraint, r.value) for r in results}


def _fast_results(docs: list[Document], kind: str) -> list[list[Result]] | None:
    """SHACL results per document from reprokg.validation.fast, or None for pyshacl."""
    from reprokg.validation import fast as shacl_fast

    if engine() == "pyshacl" or shacl_fast.compile_kind(kind) is None:
        return None
    evaluated = shacl_fast.evaluate(kind, [d.graph for d in docs])
    if evaluated is None:  # an ill-typed literal: pyshacl's sh:datatype sees it
        return None
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
        for d, results in zip(docs, out, strict=True):
            ref = shacl_key(_shacl_results(materialise_types(d.graph), kind))
            got = shacl_key(results)
            if ref != got:
                raise EngineMismatch(
                    f"{d.source_name}: pyshacl only {sorted(ref - got, key=str)}; "
                    f"fast only {sorted(got - ref, key=str)}"
                )
    return out


def _finish(doc: Document, results: list[Result]) -> Report:
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
    fast = _fast_results([doc], doc.kind)
    results = (
        fast[0] if fast is not None else _shacl_results(materialise_types(doc.graph), doc.kind)
    )
    for check in PYTHON_CHECKS:
        results.extend(check(doc.graph, doc))
    return _finish(doc, results)


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


def validate_documents(docs: list[Document]) -> list[Report]:
    """Validate many documents; the reports equal those of validating each alone.

    One pyshacl run per kind over the merged graph of documents that share no node
    (see ``_disjoint_batches``); results are mapped back by focus node.
    """
    by_kind: dict[str, list[Document]] = {}
    for d in docs:
        by_kind.setdefault(d.kind, []).append(d)
    reports: dict[int, Report] = {}
    for kind, group in by_kind.items():
        fast = _fast_results(group, kind) if len(group) > 1 else None
        if fast is not None:  # one named graph per document: per-document by construction
            for d, results in zip(group, fast, strict=True):
                for check in PYTHON_CHECKS:
                    results.extend(check(d.graph, d))
                reports[id(d)] = _finish(d, results)
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
                for t in d.graph:
                    merged.add(t)
                for n in set(d.graph.subjects()):
                    owners.setdefault(str(n), []).append(i)
                for n in set(d.graph.objects()):
                    users.setdefault(str(n), []).append(i)
            results = _shacl_results(add_entailed_types(merged), kind)
            per_doc: list[list[Result]] = [[] for _ in members]
            for r in results:
                focus = r.focus_node or ""
                for i in owners.get(focus) or users.get(focus) or range(len(members)):
                    per_doc[i].append(Result(**asdict(r)))
            for i, d in enumerate(members):
                for check in PYTHON_CHECKS:
                    per_doc[i].extend(check(d.graph, d))
                reports[id(d)] = _finish(d, per_doc[i])
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
