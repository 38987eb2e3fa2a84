"""The compiled queries run: documents loaded into a pyoxigraph store (one named graph
each, only the triples the queries can match), the queries evaluated, results decoded."""

from __future__ import annotations

import json.encoder
import re
from functools import cache

import pyoxigraph as ox
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF

from reprokg.core.errors import ShapesError
from reprokg.core.lazy_graph import graph_triples
from reprokg.validation.fast.compiler import (
    Branch,
    Compiled,
    Unsupported,
    compile_kind,
)
from reprokg.validation.fast.queries import (
    BOUND_CALL,
    OPEN_TYPES,
    Merged,
    Screen,
    body_start,
    query_iris,
    solution_get,
)
from reprokg.validation.fast.terms import (
    CANONICAL_FORMS,
    GRAPH_MARK,
    ILL_TYPED,
    LOSSLESS,
    RDF_TYPE,
    SHAPES_GRAPH,
    XSD_PREFIX,
    XSD_STRING,
    OxTerm,
    encode_literal,
)


def _ox(term: object) -> ox.NamedNode | ox.BlankNode | ox.Literal:
    if isinstance(term, URIRef):
        return ox.NamedNode(str(term))
    if isinstance(term, BNode):
        return ox.BlankNode(str(term))
    assert isinstance(term, Literal)
    return encode_literal(term)


_RDF_LANG_STRING = str(RDF.langString)
#: a string as an N-Triples quoted literal (C; its escapes are N-Triples ones)
_quote = json.encoder.encode_basestring


#: an IRI as the compiler writes it (``_n3``, ``path``): always in angle brackets
_WRITTEN_IRI = re.compile(r"<([^<>\"{}|^`\\\s]*)>")


@cache
def relevant_predicates(kind: str) -> frozenset[str] | None:
    """IRIs the kind's constraint queries can match (``rdf:type`` always), or None when
    any predicate can. Triples with other predicates cannot change any query's
    solutions, so they are not loaded: fewer quads to build, load and scan. Likewise
    ``rdf:type`` triples (asserted or entailed) of a class no query names, unless the
    set holds :data:`OPEN_TYPES`.

    Only the ``sh:select`` bodies are parsed (:func:`query_iris`): the rest of each query
    is the compiler's own text, whose predicates are always written IRIs (targets, paths,
    ``a <class>``), so every IRI written there is kept. Parsing the whole queries with
    rdflib took seconds per kind (benchmarks/README.md#figures-once-quoted-in-code), paid by the
    first validation of each kind in every process. Over-approximating is safe (more triples
    loaded); ``rdf:type`` written as an IRI (a path or a target on it) opens the types.
    """
    compiled = compile_kind(kind)
    if compiled is None:
        return None
    keep = {RDF_TYPE}
    for query in compiled.queries:
        keep.update(_WRITTEN_IRI.findall(query, len(compiled.head)))
    if f"<{RDF_TYPE}>" in compiled.query:
        keep.add(OPEN_TYPES)
    for body in compiled.bodies:
        iris = query_iris(compiled.head + "SELECT * WHERE {" + body + "}")
        if iris is None:
            return None
        keep |= iris
    return frozenset(keep)


class _Converter:
    """rdflib terms -> N-Triples text (pyoxigraph's own rendering), memoised; predicates
    and classes across batches.

    Predicates (and the classes of ``rdf:type`` triples) are few and repeat in every
    document; subjects and values repeat within one. The per-predicate entry is the
    term's text, or None for a predicate no query reads.
    """

    _LIMIT = 10_000

    def __init__(self, keep: frozenset[str] | None, strict: bool = False) -> None:
        self.keep = keep
        #: a refused predicate is an error (a user's data), not a triple left out
        self.strict = strict
        self.predicates: dict[object, str | None] = {}
        self.types: dict[object, list[str] | None] = {}
        #: the one text every rdf:type predicate maps to (tested by identity)
        self.rdf_type = str(ox.NamedNode(RDF_TYPE))

    def predicate(self, p: object) -> str | None:
        if len(self.predicates) > self._LIMIT:  # unknown keys mint predicates: stay bounded
            self.predicates.clear()
        if isinstance(p, URIRef) and str(p) == RDF_TYPE:
            x: str | None = self.rdf_type
        elif self.keep is not None and str(p) not in self.keep:
            x = None
        else:
            x = _nt(p)  # None: refused, its triples left out like those no query reads
            if x is None and self.strict:
                _refused_loudly(p)
        self.predicates[p] = x
        return x

    def classes(self, c: object) -> list[str] | None:
        """The class and its superclasses (``materialise_types``) as N-Triples terms,
        those no query names left out (:func:`relevant_predicates`)."""
        from reprokg.validation.shapes import superclasses

        if len(self.types) > self._LIMIT:
            self.types.clear()
        # c is an rdflib term; a miss is ()
        found = [c, *superclasses().get(c, ())]  # type: ignore[call-overload]
        keep = self.keep
        if keep is not None and OPEN_TYPES not in keep:
            found = [x for x in found if str(x) in keep]
        if _nt(c) is None:  # refused: the triple is left out (None: told apart from [])
            self.types[c] = None
            return None
        x = self.types[c] = [_nt(t) or "" for t in found]
        return x


class _BlankNodeFound(Exception):
    """An N-Quads load renames blank nodes, and a focus node's label is reported."""


def _nt(term: object) -> str | None:
    """A term in N-Triples, or None when pyoxigraph (and so the store) refuses it.

    IRIs are checked by pyoxigraph's own parser (``NamedNode``: RFC 3987, the store's
    rule) and written as ``<iri>``: an IRI it accepts holds no character N-Triples
    escapes. Literals are quoted by the json module's C escaper (its escapes are
    N-Triples ECHAR/UCHAR) rather than made into pyoxigraph terms and printed: half the
    cost per term, and the load parses the same value back.
    """
    if isinstance(term, URIRef):
        try:
            ox.NamedNode(term)
        except (ValueError, UnicodeEncodeError):
            return None
        return f"<{term}>"
    if isinstance(term, Literal):
        return _literal_nt(term)
    if isinstance(term, BNode):
        raise _BlankNodeFound
    return None


#: per datatype seen: its N-Triples text ("" when refused) and how its literals are
#: written (one of the ``_AS_*`` below, or the pattern a canonical lexical form matches)
_DATATYPE_NT: dict[object, tuple[str, object]] = {}
_AS_STRING, _AS_KEPT, _AS_LOSSLESS, _AS_ENCODED = "string", "kept", "lossless", "encoded"


def _datatype_nt(dt: object) -> tuple[str, object]:
    """How literals of datatype ``dt`` are written, decided once per datatype (what
    :func:`is_canonical` decides per literal)."""
    d = _nt(URIRef(str(dt))) or ""
    iri = d[1:-1]
    if not d or iri == XSD_STRING:
        how: object = _AS_STRING
    elif iri == _RDF_LANG_STRING:
        how = _AS_ENCODED
    elif iri in CANONICAL_FORMS:
        how = CANONICAL_FORMS[iri]
    else:
        how = _AS_LOSSLESS if iri.startswith(XSD_PREFIX) else _AS_KEPT
    return d, how


def _literal_nt(term: Literal) -> str | None:
    """A literal as :func:`encode_literal` stores it, in N-Triples; None when refused (a
    lone surrogate, a datatype IRI the store refuses).

    A tenth of validating a batch: the literal's own text is quoted (no ``str`` copy)
    and what its datatype needs is looked up once per datatype.
    """
    if not term.isascii():
        try:
            term.encode("utf-8")
        except UnicodeEncodeError:
            return None
    # rdflib's slots, not its properties (a Python call each, per literal of a batch)
    dt = term._datatype
    if term._language:
        how: object = _AS_ENCODED
    elif dt is None:
        return _quote(term)
    else:
        entry = _DATATYPE_NT.get(dt)
        if entry is None:
            if len(_DATATYPE_NT) > 10_000:
                _DATATYPE_NT.clear()
            entry = _DATATYPE_NT[dt] = _datatype_nt(dt)
        d, how = entry
        if not d:
            return None
        if how is _AS_STRING:
            return _quote(term)
        if how is not _AS_ENCODED:
            if term._ill_typed:
                return f"{_quote(term)}^^<{ILL_TYPED}{d[1:]}"
            # how is a Pattern here
            if how is _AS_KEPT or (how is not _AS_LOSSLESS and how.fullmatch(term)):  # type: ignore[attr-defined]
                return f"{_quote(term)}^^{d}"
            return f"{_quote(term)}^^<{LOSSLESS}{d[1:]}"
    try:  # rare: pyoxigraph's own reading of the tag
        return str(encode_literal(term))
    except (ValueError, UnicodeEncodeError):
        return None


_MARK = ox.NamedNode(GRAPH_MARK[1:-1])


def _quads(graphs: list[Graph], names: list[str], entail: bool = True) -> list[ox.Quad]:
    """Every triple as a ``pyoxigraph.Quad`` (blank node labels kept) with the entailed
    superclass types (``entail``): for graphs with blank nodes."""
    from reprokg.validation.shapes import superclasses

    sup = superclasses() if entail else {}
    type_term = URIRef(RDF_TYPE)
    quads = []
    for name, g in zip(names, graphs, strict=True):
        gn = ox.NamedNode(name[1:-1])
        quads.append(ox.Quad(_MARK, _MARK, _MARK, gn))
        for s, p, o in graph_triples(g):
            try:
                xs, xp, xo = _ox(s), _ox(p), _ox(o)
            except (ValueError, UnicodeEncodeError):
                if not entail:  # a user's data graph: an error (as in _nquads)
                    raise
                continue  # a term the store refuses: left out (as in _nquads)
            # pyoxigraph checks the terms
            quads.append(ox.Quad(xs, xp, xo, gn))  # type: ignore[arg-type]
            if p == type_term:
                for c in sup.get(o, ()):
                    # a class is a NamedNode
                    quads.append(ox.Quad(xs, xp, _ox(c), gn))  # type: ignore[arg-type]
    return quads


@cache
def _converter(kind: str) -> _Converter:
    return _Converter(relevant_predicates(kind))


def _nquads(
    graphs: list[Graph],
    names: list[str],
    kind: str | None = None,
    triples: list[list[tuple]] | None = None,
) -> str:
    """The graphs as N-Quads text (graph ``names[i]``, N-Triples IRIs) with the entailed
    superclass types (as ``materialise_types``) and the graph mark ``sh:targetNode`` needs.

    One pass, no rdflib copy: copying each graph to add the types took twice as long as
    evaluating every constraint. Text, not ``pyoxigraph.Quad`` objects: building a
    Quad (four terms copied into Rust) cost more than pyoxigraph parsing the same quad
    back (benchmarks/README.md#figures-once-quoted-in-code). With ``kind``, only the triples its
    queries can match are written (:func:`relevant_predicates`). ``triples``: each graph's
    triples, when the caller has read them already.
    """
    conv = _converter(kind) if kind is not None else _Converter(None, strict=True)
    refused = _refused_quietly if kind is not None else _refused_loudly
    preds, types = conv.predicates, conv.types
    memo: dict[object, str] = {}
    rdf_type = conv.rdf_type
    lines: list[str] = []
    append = lines.append
    lists = triples if triples is not None else [graph_triples(g) for g in graphs]
    for name, found in zip(names, lists, strict=True):
        end = f" {name} .\n"
        append(f"{GRAPH_MARK} {GRAPH_MARK} {GRAPH_MARK}{end}")
        for s, p, o in found:
            op = preds.get(p, False)
            if op is False:
                op = conv.predicate(p)
            if op is None:
                continue
            ts = memo.get(s)
            if ts is None:
                ts = memo[s] = _nt(s) or ""
            if not ts:
                refused(s)
                continue
            if op is rdf_type:
                try:  # memoised per class: a miss is the first sight of it
                    oc = types[o]
                except KeyError:
                    oc = conv.classes(o)
                if oc is None:
                    refused(o)
                    continue
                for c in oc:
                    append(f"{ts} {rdf_type} {c}{end}")
                continue
            if type(o) is Literal:  # hashing a Literal is Python code: not memoised
                to = _literal_nt(o)
            else:
                to = memo.get(o)
                if to is None:
                    to = memo[o] = _nt(o) or ""
            if not to:
                refused(o)
                continue
            append(f"{ts} {op} {to}{end}")
    return "".join(lines)


def _refused_quietly(term: object) -> None:
    """A project document's term the store refuses: its triple is not validated
    (``checks.check_terms_the_store_takes`` reports it, as ``for_shacl`` leaves it out)."""


def _refused_loudly(term: object) -> None:
    """A user's data graph (``reprokg shacl``): a term the engine cannot hold is an error."""
    raise ValueError(f"not an RDF term pyoxigraph accepts: {term!r}")


#: one failure: (branch, focus node, value or None, result path or None), pyoxigraph terms
#: a failure: (branch, focus node, value, path), the terms as the query answered them
Found = tuple[Branch, OxTerm, OxTerm | None, OxTerm | None]


def _load(
    store: ox.Store,
    graphs: list[Graph],
    names: list[str],
    kind: str | None,
    triples: list[list[tuple]] | None = None,
) -> None:
    try:
        text = _nquads(graphs, names, kind, triples)
        # lenient: every term was written by pyoxigraph itself (checked when made)
        store.load(text, format=ox.RdfFormat.N_QUADS, lenient=True)
    except _BlankNodeFound:
        store.bulk_extend(_quads(graphs, names, entail=kind is not None))


def evaluate_compiled(
    compiled: Compiled,
    graphs: list[Graph],
    kind: str | None = None,
    triples: list[list[tuple]] | None = None,
) -> list[list[Found]]:
    """Per data graph, the failures of every compiled constraint.

    With ``kind`` the graphs are the project's documents: their entailed superclass
    types are added and only triples the kind's queries can match are loaded.
    """
    names = [f"<urn:reprokg:shacl-fast:{i}>" for i in range(len(graphs))]
    store = ox.Store()
    _load(store, graphs, names, kind, triples)
    if compiled.shapes is not None:
        gn = ox.NamedNode(SHAPES_GRAPH)
        # _ox answers a literal too; a shape triple never has one where Quad refuses it
        store.bulk_extend([ox.Quad(_ox(s), _ox(p), _ox(o), gn) for s, p, o in compiled.shapes])  # type: ignore[arg-type]
    index = {n[1:-1]: i for i, n in enumerate(names)}
    try:
        return _evaluate(store, compiled, index, len(graphs))
    except SyntaxError as exc:  # a query the checks let through: still the shapes' fault
        raise ShapesError(f"a compiled query the engine cannot parse: {exc}") from None


def _evaluate(
    store: ox.Store, compiled: Compiled, index: dict[str, int], count: int
) -> list[list[Found]]:
    #: per document, (branch index, failure): sorted by branch at the end, the order of
    #: the branches' own queries, whichever query found them
    out: list[list[tuple[int, Found]]] = [[] for _ in range(count)]
    per_focus = {i: (bind, text) for i, bind, text in compiled.per_focus}
    per_value = dict(compiled.per_value)
    branches = compiled.branches
    plan: list[tuple[int | Merged, str]] = []
    for step, query in compiled.plan:
        if isinstance(step, Screen):
            # a focus node may fail: the merged queries flagged decide, as without a screen
            plan += step.flagged(store.query(query))
            continue
        plan.append((step, query))
    for step, query in plan:
        solutions = store.query(query)
        assert isinstance(solutions, ox.QuerySolutions)  # every query here is a SELECT
        if isinstance(step, Merged):
            for sol in solutions:
                g, this = sol["g"], sol["this"]
                if g is None or this is None or g.value not in index:
                    continue
                doc = index[g.value]
                for i, value in step.failed(sol):
                    out[doc].append((i, (branches[i], this, value, None)))
            continue
        i = step
        branch = branches[i]
        for sol in solutions:
            g, this = sol["g"], sol["this"]
            if g is None or this is None or g.value not in index:
                continue  # an aggregate over no targets gives one empty group here, not none
            doc = index[g.value]
            if i in per_focus:
                for value, path in _run_pre_bound(store, compiled.head, *per_focus[i], g, this):
                    out[doc].append((i, (branch, this, value, path)))
                continue
            value = sol["value"] if branch.has_value else None
            if i in per_value and _ask(store, compiled.head, per_value[i], g, this, value):
                continue  # the ASK validator holds for this value node
            path = sol["path"] if branch.dynamic_path else None
            out[doc].append((i, (branch, this, value, path)))
    return [[f for _i, f in sorted(found, key=lambda x: x[0])] for found in out]


def _run_pre_bound(
    store: ox.Store, head: str, bind: str, text: str, graph: object, focus: OxTerm
) -> list[tuple[OxTerm | None, OxTerm | None]]:
    """A SPARQL constraint's query with ``$this`` replaced by the focus node (SHACL's
    pre-binding), in the focus node's graph: (value, path) of each solution."""
    if isinstance(focus, ox.BlankNode):
        raise Unsupported("pre-binding $this to a blank node in a nested SPARQL query")
    term = str(focus)
    code = BOUND_CALL.sub("(true)", text)
    code = body_start(code)
    # ``$this`` leaves the projections (of the query and of its sub-SELECTs): it is a constant
    code = re.sub(
        r"(?i:(\bSELECT\s+(?:DISTINCT\s+|REDUCED\s+)?))([^{]*?)(?=(?i:\bWHERE\b)|\{)",
        lambda m: m.group(1) + (m.group(2).replace("$this", "").strip() or "*") + " ",
        code,
    )
    m = re.match(
        r"\s*SELECT\s+(DISTINCT\s+|REDUCED\s+)?([^{]*?)\s*WHERE\s*\{",
        code,
        re.IGNORECASE | re.DOTALL,
    )
    assert m is not None
    projection = m.group(2).strip() or "*"
    where = code[m.end() : code.rindex("}")]
    tail = code[code.rindex("}") + 1 :]
    query = (
        f"{head}SELECT {projection} WHERE {{ GRAPH {graph} {{ {where.replace('$this', term)} }}"
        f"{bind.replace('?this', term)} }}{tail}"
    )
    found = []
    solutions = store.query(query)
    assert isinstance(solutions, ox.QuerySolutions)  # the query is a SELECT
    for sol in solutions:
        value = solution_get(sol, "value")
        found.append(
            (value if value is not None else (focus if bind else None), solution_get(sol, "path"))
        )
    return found


def _ask(
    store: ox.Store, head: str, text: str, graph: object, focus: object, value: object
) -> bool:
    """A component's ASK validator with ``$this`` and ``$value`` pre-bound, in the graph."""
    if isinstance(focus, ox.BlankNode) or isinstance(value, ox.BlankNode):
        raise Unsupported("pre-binding a blank node in an ASK validator")
    code = re.sub(r"[?$]this\b", str(focus), text)
    code = re.sub(r"\?value\b", str(value), code)
    start, end = code.index("{"), code.rindex("}")
    query = f"{head}{code[:start]}{{ GRAPH {graph} {{ {code[start + 1 : end]} }} }}"
    return bool(store.query(query))


def evaluate(
    kind: str, graphs: list[Graph], triples: list[list[tuple]] | None = None
) -> list[list[tuple[Branch, str, str | None]]]:
    """Per document graph of ``kind``: (branch, focus node, value) of each failure, as text
    (``triples``: each graph's triples, when the caller has read them)."""
    found = evaluate_compiled(compile_kind(kind), graphs, kind, triples)
    return [
        [
            (b, focus.value, value.value if value is not None else None)
            for b, focus, value, _p in doc
        ]
        for doc in found
    ]
