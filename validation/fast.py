"""SHACL shapes compiled to one SPARQL query per kind, evaluated by pyoxigraph.

pyshacl evaluates every constraint per focus node in Python (~21 run headers/s here).
The shapes we use are simple enough to compile: each constraint becomes a SPARQL
pattern that yields its failing (focus node, value) pairs, and all of a kind's
patterns are one UNION query over a ``pyoxigraph.Store`` holding the batch, every
document in its own named graph (``GRAPH ?g``), so results are per document exactly
as if each were validated alone. A kind whose shapes use a feature this module does
not compile is reported by ``compile_kind`` as ``None`` and validated by pyshacl;
so is a document holding an ill-typed literal (pyshacl's ``sh:datatype`` rejects
those; SPARQL cannot see them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

import pyoxigraph as ox
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import RDF, SH

from reprokg.core.lazy_graph import graph_triples
from reprokg.core.namespaces import RK

#: shape-graph predicates this compiler understands (anything else in sh: -> pyshacl)
_SUPPORTED = {
    SH[n]
    for n in [
        "targetClass",
        "targetSubjectsOf",
        "targetObjectsOf",
        "target",
        "property",
        "path",
        "datatype",
        "nodeKind",
        "class",
        "minCount",
        "maxCount",
        "pattern",
        "flags",
        "in",
        "hasValue",
        "minInclusive",
        "maxInclusive",
        "minExclusive",
        "maxExclusive",
        "minLength",
        "maxLength",
        "or",
        "not",
        "and",
        "node",
        "lessThanOrEquals",
        "sparql",
        "select",
        "prefixes",
        "declare",
        "prefix",
        "namespace",
        "severity",
        "message",
        "deactivated",
        "name",
        "description",
        "order",
        "group",
        "inversePath",
        "alternativePath",
    ]
}
_COMPONENT = "http://www.w3.org/ns/shacl#"


class Unsupported(Exception):
    """A shape feature not compiled here; the kind is validated by pyshacl."""


@dataclass(frozen=True)
class Branch:
    """What one UNION branch reports: its shape, source path, severity, message, component."""

    shape: str | None
    path: str | None
    severity: str
    message: str
    component: str
    has_value: bool


def _n3(term: object) -> str:
    if isinstance(term, URIRef):
        return f"<{term}>"
    if isinstance(term, Literal):
        return term.n3()
    raise Unsupported(f"term {term!r}")


class _Compiler:
    def __init__(self, shapes: Graph) -> None:
        self.g = shapes
        self.branches: list[Branch] = []
        self.patterns: list[str] = []
        self.prefixes: dict[str, str] = {}
        #: the ``sh:select`` bodies inlined (renamed): the only text not written here
        self.bodies: list[str] = []
        for _s, p, _o in shapes:
            if p.startswith(_COMPONENT) and p not in _SUPPORTED:
                raise Unsupported(str(p))

    # ----------------------------------------------------------------- helpers
    def one(self, node: object, pred: URIRef) -> object:
        return self.g.value(node, pred)  # type: ignore[arg-type]

    def items(self, node: object) -> list:
        return list(Collection(self.g, node))  # type: ignore[arg-type]

    def path(self, node: object) -> str:
        if isinstance(node, URIRef):
            return f"<{node}>"
        inv = self.one(node, SH.inversePath)
        if inv is not None:
            return f"^({self.path(inv)})"
        alt = self.one(node, SH.alternativePath)
        if alt is not None:
            return "(" + "|".join(self.path(x) for x in self.items(alt)) + ")"
        if self.one(node, RDF.first) is not None:
            return "(" + "/".join(self.path(x) for x in self.items(node)) + ")"
        raise Unsupported(f"path {node!r}")

    def severity(self, shape: object) -> str:
        sev = self.one(shape, SH.severity)
        return str(sev).rsplit("#", 1)[-1] if sev is not None else "Violation"

    def source_path(self, shape: object, path: object) -> str | None:
        sp = self.one(shape, RK.sourcePath)
        if sp is not None:
            return str(sp)
        if isinstance(path, URIRef):
            return str(path).rsplit("#", 1)[-1].rsplit("/", 1)[-1]
        return None

    def declare(self, prefixes_node: object) -> None:
        for decl in self.g.objects(prefixes_node, SH.declare):  # type: ignore[arg-type]
            self.prefixes[str(self.one(decl, SH.prefix))] = str(self.one(decl, SH.namespace))

    def sparql_body(self, node: object) -> str:
        """The WHERE body of a ``sh:select``, ``$this`` as ``?this``, other variables renamed.

        Inlined rather than a sub-SELECT: pyoxigraph 0.5 does not evaluate a sub-SELECT
        inside ``GRAPH ?g`` against that graph (measured: it lost every solution).
        """
        for pn in self.g.objects(node, SH.prefixes):  # type: ignore[arg-type]
            self.declare(pn)
        text = str(self.one(node, SH.select)).replace("$this", "?this")
        start, end = text.index("{"), text.rindex("}")
        upper = text.upper()
        if any(w in upper for w in ("GROUP BY", "LIMIT", "OFFSET", "ORDER BY", "FROM")):
            raise Unsupported("sh:select form")
        if "$" in text or "SELECT" in upper[start:]:
            raise Unsupported("sh:select form")
        n = len(self.bodies) + 1

        def rename(m: re.Match[str]) -> str:
            name = m.group(1)
            return m.group(0) if name in ("this", "value") else f"?{name}_{n}"

        body = re.sub(r"\?(\w+)", rename, text[start + 1 : end])
        self.bodies.append(body)
        return body

    # ----------------------------------------------------------------- targets
    def targets(self, shape: object) -> str | None:
        alts = []
        for c in self.g.objects(shape, SH.targetClass):  # type: ignore[arg-type]
            alts.append(f"?this a {_n3(c)} .")
        for p in self.g.objects(shape, SH.targetSubjectsOf):  # type: ignore[arg-type]
            alts.append(f"?this {_n3(p)} [] .")
        for p in self.g.objects(shape, SH.targetObjectsOf):  # type: ignore[arg-type]
            alts.append(f"[] {_n3(p)} ?this .")
        for t in self.g.objects(shape, SH.target):  # type: ignore[arg-type]
            if (t, RDF.type, SH.SPARQLTarget) not in self.g:
                raise Unsupported("custom target")
            alts.append(self.sparql_body(t))
        if not alts:
            return None
        return "{ " + " UNION ".join("{ " + a + " }" for a in alts) + " }"

    # ----------------------------------------------------------------- value expressions
    def value_exprs(self, shape: object, v: str) -> list[tuple[str, str]]:
        """(component, expression true when value ``v`` conforms) for per-value constraints."""
        out: list[tuple[str, str]] = []
        g = self.g
        for dt in g.objects(shape, SH.datatype):  # type: ignore[arg-type]
            if str(dt) == "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString":
                e = f"(isLiteral({v}) && lang({v}) != '')"
            else:
                e = f"(isLiteral({v}) && lang({v}) = '' && datatype({v}) = {_n3(dt)})"
            out.append(("DatatypeConstraintComponent", e))
        for nk in g.objects(shape, SH.nodeKind):  # type: ignore[arg-type]
            name = str(nk).rsplit("#", 1)[-1]
            e = {
                "IRI": f"isIRI({v})",
                "Literal": f"isLiteral({v})",
                "BlankNode": f"isBlank({v})",
                "BlankNodeOrIRI": f"(isBlank({v}) || isIRI({v}))",
                "BlankNodeOrLiteral": f"(isBlank({v}) || isLiteral({v}))",
                "IRIOrLiteral": f"(isIRI({v}) || isLiteral({v}))",
            }[name]
            out.append(("NodeKindConstraintComponent", e))
        for c in g.objects(shape, SH["class"]):  # type: ignore[arg-type]
            out.append(("ClassConstraintComponent", f"EXISTS {{ {v} a {_n3(c)} }}"))
        for pat in g.objects(shape, SH.pattern):  # type: ignore[arg-type]
            flags = self.one(shape, SH.flags)
            fl = f", {Literal(str(flags)).n3()}" if flags is not None else ""
            lit = Literal(str(pat)).n3()
            out.append(
                ("PatternConstraintComponent", f"(!isBlank({v}) && REGEX(STR({v}), {lit}{fl}))")
            )
        for lst in g.objects(shape, SH["in"]):  # type: ignore[arg-type]
            alts = " || ".join(f"sameTerm({v}, {_n3(x)})" for x in self.items(lst)) or "false"
            out.append(("InConstraintComponent", f"({alts})"))
        for pred, op, comp in (
            (SH.minInclusive, ">=", "MinInclusive"),
            (SH.maxInclusive, "<=", "MaxInclusive"),
            (SH.minExclusive, ">", "MinExclusive"),
            (SH.maxExclusive, "<", "MaxExclusive"),
        ):
            for lim in g.objects(shape, pred):  # type: ignore[arg-type]
                out.append((f"{comp}ConstraintComponent", f"({v} {op} {_n3(lim)})"))
        for pred, op, comp in (
            (SH.minLength, ">=", "MinLength"),
            (SH.maxLength, "<=", "MaxLength"),
        ):
            for lim in g.objects(shape, pred):  # type: ignore[arg-type]
                e = f"(!isBlank({v}) && STRLEN(STR({v})) {op} {int(lim)})"
                out.append((f"{comp}ConstraintComponent", e))
        for lst in g.objects(shape, SH["or"]):  # type: ignore[arg-type]
            alts = [self.conforms(x, v) for x in self.items(lst)]
            out.append(("OrConstraintComponent", "(" + " || ".join(alts) + ")"))
        for lst in g.objects(shape, SH["and"]):  # type: ignore[arg-type]
            alts = [self.conforms(x, v) for x in self.items(lst)]
            out.append(("AndConstraintComponent", "(" + " && ".join(alts) + ")"))
        for x in g.objects(shape, SH["not"]):  # type: ignore[arg-type]
            out.append(("NotConstraintComponent", f"(!{self.conforms(x, v)})"))
        for x in g.objects(shape, SH.node):  # type: ignore[arg-type]
            out.append(("NodeConstraintComponent", self.conforms(x, v)))
        return out

    def conforms(self, shape: object, v: str) -> str:
        """An expression true when ``v`` conforms to a nested shape of value constraints."""
        for p in self.g.predicates(shape):  # type: ignore[arg-type]
            if p in (SH.property, SH.path, SH.hasValue, SH.sparql, SH.minCount, SH.maxCount):
                if p == SH.hasValue and self.one(shape, SH.path) is None:
                    continue
                raise Unsupported(f"nested {p}")
            if p in (SH.targetClass, SH.target, SH.targetSubjectsOf, SH.targetObjectsOf):
                continue
        exprs = [f"COALESCE({e}, false)" for _c, e in self.value_exprs(shape, v)]
        for hv in self.g.objects(shape, SH.hasValue):  # type: ignore[arg-type]
            exprs.append(f"sameTerm({v}, {_n3(hv)})")
        return "(" + (" && ".join(exprs) or "true") + ")"

    # ----------------------------------------------------------------- shapes
    def add(self, info: Branch, pattern: str) -> None:
        i = len(self.branches)
        self.branches.append(info)
        self.patterns.append(f"{{ {pattern} BIND({i} AS ?cid) }}")

    def shape(self, shape: object, tgt: str) -> None:
        deact = self.one(shape, SH.deactivated)
        if deact is not None and bool(deact.toPython()):  # type: ignore[union-attr]
            return
        path_node = self.one(shape, SH.path)
        sev = self.severity(shape)
        msg = self.one(shape, SH.message)
        sp = self.source_path(shape, path_node)
        name = str(shape) if isinstance(shape, URIRef) else None

        def info(component: str, has_value: bool) -> Branch:
            text = str(msg) if msg is not None else f"{component} not met"
            return Branch(name, sp, sev, text, _COMPONENT + component, has_value)

        if path_node is None:  # node shape: the focus node is the value node
            for comp, e in self.value_exprs(shape, "?this"):
                self.add(
                    info(comp, True),
                    f"{tgt} BIND(?this AS ?value) FILTER(!COALESCE({e}, false))",
                )
            for hv in self.g.objects(shape, SH.hasValue):  # type: ignore[arg-type]
                self.add(
                    info("HasValueConstraintComponent", True),
                    f"{tgt} BIND(?this AS ?value) FILTER(!sameTerm(?this, {_n3(hv)}))",
                )
            for ps in self.g.objects(shape, SH.property):  # type: ignore[arg-type]
                self.shape(ps, tgt)
            for sc in self.g.objects(shape, SH.sparql):  # type: ignore[arg-type]
                d = self.one(sc, SH.deactivated)
                if d is not None and bool(d.toPython()):  # type: ignore[union-attr]
                    continue
                body = self.sparql_body(sc)
                if "?value" not in body:
                    raise Unsupported("sh:sparql without ?value")  # value = focus? keep pyshacl
                m = self.one(sc, SH.message) or msg
                self.add(
                    Branch(
                        name,
                        sp,
                        sev,
                        str(m) if m is not None else "SPARQL constraint not met",
                        _COMPONENT + "SPARQLConstraintComponent",
                        True,
                    ),
                    f"{tgt} {{ {body} }}",
                )
            return
        if self.one(shape, SH.sparql) is not None or self.one(shape, SH.property) is not None:
            raise Unsupported("sparql/property under a property shape")
        p = self.path(path_node)
        for comp, e in self.value_exprs(shape, "?value"):
            self.add(info(comp, True), f"{tgt} ?this {p} ?value . FILTER(!COALESCE({e}, false))")
        # minCount 1 / maxCount 1 (most of them) without aggregation: "no value" and
        # "two distinct values" say the same as COUNT(DISTINCT ?v) < 1 / > 1, and took
        # half the time of the GROUP BY form on pyoxigraph (measured on 256 run headers)
        for lim in self.g.objects(shape, SH.minCount):  # type: ignore[arg-type]
            if int(lim) == 1:
                pattern = f"{tgt} FILTER NOT EXISTS {{ ?this {p} ?v }}"
            else:
                pattern = (
                    f"{{ SELECT ?g ?this (COUNT(DISTINCT ?v) AS ?n) WHERE {{ GRAPH ?g {{ {tgt} }} "
                    f"OPTIONAL {{ GRAPH ?g {{ ?this {p} ?v }} }} }} GROUP BY ?g ?this }} "
                    f"FILTER(?n < {int(lim)})"
                )
            self.add(info("MinCountConstraintComponent", False), pattern)
        for lim in self.g.objects(shape, SH.maxCount):  # type: ignore[arg-type]
            if int(lim) == 1:
                pattern = (
                    f"{tgt} ?this {p} ?mc_a . ?this {p} ?mc_b . FILTER(!sameTerm(?mc_a, ?mc_b))"
                )
            else:
                pattern = (
                    f"{{ SELECT ?g ?this (COUNT(DISTINCT ?v) AS ?n) WHERE {{ GRAPH ?g {{ {tgt} "
                    f"?this {p} ?v }} }} GROUP BY ?g ?this }} FILTER(?n > {int(lim)})"
                )
            self.add(info("MaxCountConstraintComponent", False), pattern)
        for hv in self.g.objects(shape, SH.hasValue):  # type: ignore[arg-type]
            self.add(
                info("HasValueConstraintComponent", False),
                f"{tgt} FILTER NOT EXISTS {{ ?this {p} {_n3(hv)} }}",
            )
        for other in self.g.objects(shape, SH.lessThanOrEquals):  # type: ignore[arg-type]
            self.add(
                info("LessThanOrEqualsConstraintComponent", True),
                f"{tgt} ?this {p} ?value . ?this {_n3(other)} ?o . "
                "FILTER(!COALESCE(?value <= ?o, false))",
            )


@dataclass
class Compiled:
    """The kind's UNION query (for reading) and the same branches as separate queries.

    Measured on 256 run headers: the 120 branches as separate queries took 0.12 s,
    as one UNION query 0.5 s; the separate queries are what ``evaluate`` runs.
    """

    query: str
    branches: list[Branch]
    queries: list[str]
    #: the PREFIX lines and the ``sh:select`` bodies the queries inline
    head: str = ""
    bodies: list[str] = field(default_factory=list)


@cache
def compile_kind(kind: str) -> Compiled | None:
    """The kind's shapes as one SPARQL query, or None when pyshacl must validate it."""
    from reprokg.validation.shapes import shapes_graph

    shapes = shapes_graph(kind)
    try:
        c = _Compiler(shapes)
        roots = set(shapes.subjects(RDF.type, SH.NodeShape)) | {
            s
            for p in (SH.targetClass, SH.target, SH.targetSubjectsOf, SH.targetObjectsOf)
            for s in shapes.subjects(p)
        }
        for shape in sorted(roots, key=str):
            if isinstance(shape, BNode) and (None, None, shape) in shapes:
                continue  # nested (sh:or / sh:not / sh:node member): compiled as expressions
            tgt = c.targets(shape)
            if tgt is None:
                continue
            c.shape(shape, tgt)
    except (Unsupported, KeyError, ValueError) as exc:  # pragma: no cover - depends on shapes
        _UNSUPPORTED[kind] = str(exc)
        return None
    head = "".join(f"PREFIX {p}: <{ns}>\n" for p, ns in sorted(c.prefixes.items()))
    # aggregate branches carry their own GRAPH; others are wrapped per graph
    parts = []
    for pat in c.patterns:
        if pat.startswith("{ { SELECT ?g"):
            parts.append(pat)
        else:
            inner = pat[1 : pat.rindex("BIND(")]
            bind = pat[pat.rindex("BIND(") : -1]
            parts.append(f"{{ GRAPH ?g {{ {inner} }} {bind} }}")
    query = (
        head + "SELECT DISTINCT ?g ?this ?value ?cid WHERE {\n" + "\nUNION\n".join(parts) + "\n}"
    )
    queries = [head + "SELECT DISTINCT ?g ?this ?value WHERE {" + p + "}" for p in parts]
    return Compiled(query, c.branches, queries, head, c.bodies)


#: kind -> why it is not compiled (for the benchmark and tests to show)
_UNSUPPORTED: dict[str, str] = {}


def unsupported_reason(kind: str) -> str | None:
    compile_kind(kind)
    return _UNSUPPORTED.get(kind)


# --------------------------------------------------------------------------- evaluation


_DATATYPES: dict[object, ox.NamedNode] = {}


def _ox(term: object) -> ox.NamedNode | ox.BlankNode | ox.Literal:
    if isinstance(term, URIRef):
        return ox.NamedNode(str(term))
    if isinstance(term, BNode):
        return ox.BlankNode(str(term))
    assert isinstance(term, Literal)
    if term.language:
        return ox.Literal(str(term), language=term.language)
    dt = term.datatype
    if dt is not None:
        node = _DATATYPES.get(dt)
        if node is None:
            if len(_DATATYPES) > 1000:
                _DATATYPES.clear()
            node = _DATATYPES[dt] = ox.NamedNode(str(dt))
        return ox.Literal(str(term), datatype=node)
    return ox.Literal(str(term))


def has_ill_typed(graph: Graph) -> bool:
    """True when a literal does not match its datatype (SPARQL cannot tell; pyshacl does)."""
    return any(isinstance(o, Literal) and o.ill_typed for o in graph.objects())


_RDF_TYPE = str(RDF.type)
#: in ``_query_iris``' answer: some pattern reads rdf:type with a non-constant class
OPEN_TYPES = "urn:reprokg:shacl-fast:any-class"


def _query_iris(query: str) -> set[str] | None:
    """Every IRI a query mentions, or None when a triple pattern's predicate is not a
    fixed IRI (a variable or a negated property set: any predicate may match). The set
    holds :data:`OPEN_TYPES` when an ``rdf:type`` pattern's class is not a fixed IRI
    (or rdf:type is part of a longer path): then any class may match."""
    from rdflib.paths import AlternativePath, InvPath, MulPath, NegatedPath, SequencePath
    from rdflib.plugins.sparql import prepareQuery
    from rdflib.term import Variable

    found: set[str] = set()

    def path_ok(p: object) -> bool:
        if isinstance(p, URIRef):
            found.add(str(p))
            if str(p) == _RDF_TYPE:
                found.add(OPEN_TYPES)  # inside a path: its class end is not fixed
            return True
        if isinstance(p, SequencePath | AlternativePath):
            return all(path_ok(x) for x in p.args)
        if isinstance(p, InvPath | MulPath):
            return path_ok(p.path)
        return False  # a variable, a negated property set, anything new

    def walk(node: object) -> bool:
        if isinstance(node, URIRef):
            found.add(str(node))
        elif isinstance(node, NegatedPath):
            return False
        elif isinstance(node, dict):  # algebra nodes (CompValue) are dicts
            for key, value in node.items():
                if key == "triples" and isinstance(value, list):
                    for t in value:
                        if len(t) != 3 or isinstance(t[1], Variable):
                            return False
                        if isinstance(t[1], URIRef):
                            found.add(str(t[1]))
                            if str(t[1]) == _RDF_TYPE and not isinstance(t[2], URIRef):
                                found.add(OPEN_TYPES)
                        elif not path_ok(t[1]):
                            return False
                        walk(t[0])
                        walk(t[2])
                elif not walk(value):
                    return False
        elif isinstance(node, list | tuple | set):
            return all(walk(x) for x in node)
        return True

    try:
        algebra = prepareQuery(query).algebra
    except Exception:  # noqa: BLE001 - an unparsable text: read everything
        return None
    return found if walk(algebra) else None


#: an IRI as the compiler writes it (``_n3``, ``path``): always in angle brackets
_WRITTEN_IRI = re.compile(r"<([^<>\"{}|^`\\\s]*)>")


@cache
def relevant_predicates(kind: str) -> frozenset[str] | None:
    """IRIs the kind's constraint queries can match (``rdf:type`` always), or None when
    any predicate can. Triples with other predicates cannot change any query's
    solutions, so they are not loaded: fewer quads to build, load and scan. Likewise
    ``rdf:type`` triples (asserted or entailed) of a class no query names, unless the
    set holds :data:`OPEN_TYPES`.

    Only the ``sh:select`` bodies are parsed (:func:`_query_iris`): the rest of each query
    is the compiler's own text, whose predicates are always written IRIs (targets, paths,
    ``a <class>``), so every IRI written there is kept. Parsing the whole queries with
    rdflib took 2-9 s per kind (its pyparsing grammar reads ~10 KB/s), paid by the first
    validation of each kind in every process. Over-approximating is safe (more triples
    loaded); ``rdf:type`` written as an IRI (a path or a target on it) opens the types.
    """
    compiled = compile_kind(kind)
    if compiled is None:
        return None
    keep = {_RDF_TYPE}
    for query in compiled.queries:
        keep.update(_WRITTEN_IRI.findall(query, len(compiled.head)))
    if f"<{_RDF_TYPE}>" in compiled.query:
        keep.add(OPEN_TYPES)
    for body in compiled.bodies:
        iris = _query_iris(compiled.head + "SELECT * WHERE {" + body + "}")
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

    def __init__(self, keep: frozenset[str] | None) -> None:
        self.keep = keep
        self.predicates: dict[object, str | None] = {}
        self.types: dict[object, list[str]] = {}
        #: the one text every rdf:type predicate maps to (tested by identity)
        self.rdf_type = str(ox.NamedNode(_RDF_TYPE))

    def predicate(self, p: object) -> str | None:
        if len(self.predicates) > self._LIMIT:  # unknown keys mint predicates: stay bounded
            self.predicates.clear()
        if isinstance(p, URIRef) and str(p) == _RDF_TYPE:
            x: str | None = self.rdf_type
        elif self.keep is not None and str(p) not in self.keep:
            x = None
        else:
            x = _nt(p)
        self.predicates[p] = x
        return x

    def classes(self, c: object) -> list[str]:
        """The class and its superclasses (``materialise_types``) as N-Triples terms,
        those no query names left out (:func:`relevant_predicates`)."""
        from reprokg.validation.shapes import superclasses

        if len(self.types) > self._LIMIT:
            self.types.clear()
        found = [c, *superclasses().get(c, ())]  # type: ignore[call-overload]
        keep = self.keep
        if keep is not None and OPEN_TYPES not in keep:
            found = [x for x in found if str(x) in keep]
        x = self.types[c] = [_nt(t) for t in found]
        return x


class _BlankNodeFound(Exception):
    """An N-Quads load renames blank nodes, and a focus node's label is reported."""


def _nt(term: object) -> str:
    """A term in N-Triples, as pyoxigraph writes it (escaping, and its term checks)."""
    if isinstance(term, BNode):
        raise _BlankNodeFound
    return str(_ox(term))


def _quads(graphs: list[Graph], names: list[str]) -> list[ox.Quad] | None:
    """Every triple as a ``pyoxigraph.Quad`` (blank node labels kept) with the entailed
    superclass types, or None when a literal is ill-typed: for graphs with blank nodes."""
    from reprokg.validation.shapes import superclasses

    sup = superclasses()
    type_term = URIRef(_RDF_TYPE)
    quads = []
    for name, g in zip(names, graphs, strict=True):
        gn = ox.NamedNode(name[1:-1])
        for s, p, o in graph_triples(g):
            if isinstance(o, Literal) and o.ill_typed:
                return None
            xs, xp = _ox(s), _ox(p)
            quads.append(ox.Quad(xs, xp, _ox(o), gn))  # type: ignore[arg-type]
            if p == type_term:
                for c in sup.get(o, ()):  # type: ignore[call-overload]
                    quads.append(ox.Quad(xs, xp, _ox(c), gn))  # type: ignore[arg-type]
    return quads


@cache
def _converter(kind: str) -> _Converter:
    return _Converter(relevant_predicates(kind))


def _nquads(graphs: list[Graph], names: list[str], kind: str | None = None) -> str | None:
    """The graphs as N-Quads text (graph ``names[i]``, N-Triples IRIs) with the entailed
    superclass types (as ``materialise_types``), or None when a literal is ill-typed.

    One pass, no rdflib copy: copying each graph to add the types took twice as long as
    evaluating every constraint. Text, not ``pyoxigraph.Quad`` objects: building a
    Quad (four terms copied into Rust) cost more than pyoxigraph parsing the same quad
    back (measured on 256 run headers: 92 ms for the Quads + 40 ms ``bulk_extend``
    against ~20 ms of text + 43 ms ``load``). With ``kind``, only the triples its
    queries can match are written (:func:`relevant_predicates`).
    """
    conv = _converter(kind) if kind is not None else _Converter(None)
    preds, types = conv.predicates, conv.types
    memo: dict[object, str] = {}
    rdf_type = conv.rdf_type
    lines: list[str] = []
    append = lines.append
    for name, g in zip(names, graphs, strict=True):
        end = f" {name} .\n"
        for s, p, o in graph_triples(g):
            op = preds.get(p, False)
            if op is False:
                op = conv.predicate(p)
            if op is None:
                if isinstance(o, Literal) and o.ill_typed:
                    return None
                continue
            ts = memo.get(s)
            if ts is None:
                ts = memo[s] = _nt(s)
            if op is rdf_type:
                if isinstance(o, Literal) and o.ill_typed:
                    return None
                oc = types.get(o)
                if oc is None:
                    oc = conv.classes(o)
                for c in oc:
                    append(f"{ts} {rdf_type} {c}{end}")
                continue
            to = memo.get(o)
            if to is None:  # a term seen before was checked then (equal terms, same check)
                if isinstance(o, Literal) and o.ill_typed:
                    return None
                to = memo[o] = _nt(o)
            append(f"{ts} {op} {to}{end}")
    return "".join(lines)


def evaluate(kind: str, graphs: list[Graph]) -> list[list[tuple[Branch, str, str | None]]] | None:
    """Per document graph: (branch, focus node, value) of each failure; None for pyshacl.

    Entailed types are added here. None when a graph holds an ill-typed literal.
    """
    compiled = compile_kind(kind)
    assert compiled is not None
    names = [f"<urn:reprokg:shacl-fast:{i}>" for i in range(len(graphs))]
    store = ox.Store()
    try:
        text = _nquads(graphs, names, kind)
        if text is None:
            return None
        # lenient: every term was written by pyoxigraph itself (checked when made)
        store.load(text, format=ox.RdfFormat.N_QUADS, lenient=True)
    except _BlankNodeFound:
        quads = _quads(graphs, names)
        if quads is None:
            return None
        store.bulk_extend(quads)
    index = {n[1:-1]: i for i, n in enumerate(names)}
    out: list[list[tuple[Branch, str, str | None]]] = [[] for _ in graphs]
    for branch, query in zip(compiled.branches, compiled.queries, strict=True):
        for sol in store.query(query):  # type: ignore[union-attr]
            if sol["g"] is None or sol["this"] is None:
                continue  # an aggregate over no targets gives one empty group here, not none
            value = sol["value"]
            out[index[sol["g"].value]].append(
                (branch, sol["this"].value, value.value if branch.has_value and value else None)
            )
    return out
