"""SHACL shapes compiled to SPARQL (evaluated by pyoxigraph): the one SHACL engine's compiler.

Every SHACL Core constraint component, all targets (implicit class targets and the
``rdfs:subClassOf`` closure included), every property path, and SHACL-SPARQL constraints
become SPARQL patterns that yield the failing (focus node, value) pairs. A shape reached
through ``sh:node``, ``sh:or``, ``sh:and``, ``sh:not``, ``sh:xone``,
``sh:qualifiedValueShape`` or a nested ``sh:property`` becomes one boolean expression
(``EXISTS`` / ``NOT EXISTS`` over its paths, counts as "n distinct values exist"), so
nesting costs no extra query. Each constraint is one query over a ``pyoxigraph.Store``
holding the batch, every document in its own named graph (``GRAPH ?g``), so results are
per document exactly as if each were validated alone. The W3C SHACL test suite checks
conformance (``tests/validation/test_w3c_shacl.py``); pyshacl is the test oracle only.

Constants are written as the store holds them: typed literals it would normalise
under a marker datatype (:mod:`reprokg.validation.fast.terms`). The compiled plan is run
by :mod:`reprokg.validation.fast.runtime`; the SPARQL text it reuses (merged queries,
screens, SHACL-SPARQL checks) is :mod:`reprokg.validation.fast.queries`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, partial

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDF, RDFS, SH
from rdflib.term import Node

from reprokg.core.errors import ShapesError
from reprokg.core.namespaces import RK
from reprokg.validation.fast.queries import (
    BOUND_CALL,
    STRINGS,
    Merged,
    Screen,
    body_start,
    check_sparql,
    exists_filters,
    join_safe,
    with_graph,
)
from reprokg.validation.fast.terms import (
    GRAPH_MARK,
    LOSSLESS,
    SHAPES_GRAPH,
    XSD_STRING,
    encode_literal,
)

_COMPONENT = "http://www.w3.org/ns/shacl#"
#: deepest nesting of property shapes under property shapes
_MAX_DEPTH = 8
#: the parent focus variables a nested property shape's results keep apart
_PARENTS = " ".join(f"?_pf{d}" for d in range(1, _MAX_DEPTH + 2))
#: most values an at-least / at-most count compiles to (n distinct values = n^2 filters)
_MAX_COUNT = 24


class Unsupported(ShapesError):
    """A shapes graph this engine does not compile (recursive shapes, SPARQL in a nested
    shape, SPARQL-based constraint components)."""


@dataclass(frozen=True)
class Branch:
    """What one compiled constraint reports: its shape, source path, severity, message,
    component, and the shapes-graph terms a SHACL report graph names."""

    shape: str | None
    path: str | None
    severity: str
    message: str
    component: str
    has_value: bool
    shape_node: Node | None = None
    path_node: Node | None = None
    constraint_node: Node | None = None
    #: the result path comes from the query's ``?path`` (sh:closed, SPARQL constraints)
    dynamic_path: bool = False
    #: the SPARQL path text of ``path_node`` (for text and JSON reports)
    path_text: str | None = None
    #: ``message`` is the shape's ``sh:message`` (not a default)
    message_given: bool = False


def _n3(term: Node | None) -> str:
    """A constant as the stored data holds it (lossless literals encoded the same way)."""
    if isinstance(term, URIRef):
        return f"<{term}>"
    if isinstance(term, Literal):
        return str(encode_literal(term))
    raise ShapesError(f"a blank node or list where a constant is expected: {term!r}")


def _value_n3(term: Node | None) -> str:
    """A constant compared by value (``sh:minInclusive``): its own datatype, not encoded."""
    if isinstance(term, Literal) and not term.language and term.datatype is not None:
        return f'"{_escape(str(term))}"^^<{term.datatype}>'
    return _n3(term)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")


def _decoded(v: str) -> str:
    """SPARQL for the value of ``v`` with a lossless marker datatype undone."""
    return (
        f'IF(isLiteral({v}) && STRSTARTS(STR(DATATYPE({v})), "{LOSSLESS}"), '
        f'STRDT(STR({v}), IRI(STRAFTER(STR(DATATYPE({v})), "{LOSSLESS}"))), {v})'
    )


def _subjects_of(pred: Node, v: str) -> str:
    """The pattern of ``sh:targetSubjectsOf``: ``v`` has a value for ``pred``."""
    return f"{v} {_n3(pred)} [] ."


def _objects_of(pred: Node, v: str) -> str:
    """The pattern of ``sh:targetObjectsOf``: ``v`` is the value of some ``pred``."""
    return f"[] {_n3(pred)} {v} ."


def _true(node: Node | None) -> bool:
    """A boolean parameter that is ``true`` (``"1"^^xsd:boolean`` is not: W3C uniqueLang-002)."""
    return node is not None and str(node).strip() == "true"


class _Compiler:
    def __init__(self, shapes: Graph, closure: bool) -> None:
        self.g = shapes
        #: ``rdf:type/rdfs:subClassOf*`` (the data may hold subclass triples) or plain ``a``
        self.closure = closure
        self.branches: list[Branch] = []
        self.patterns: list[tuple[str, bool]] = []  # (pattern, wrapped in GRAPH ?g)
        self.prefixes: dict[str, str] = {}
        #: the ``sh:select`` bodies inlined (renamed): the only text not written here
        self.bodies: list[str] = []
        self._n = itertools.count()
        self._expanding: list[Node] = []
        self.uses_shapes_graph = False
        #: per focus-node queries (SPARQL constraints that need real pre-binding)
        self.per_focus: list[tuple[int, str, str]] = []  # (branch index, target, query)
        #: per value-node ASK validators of SPARQL-based constraint components
        self.per_value: list[tuple[int, str]] = []  # (branch index, ASK query)
        self.components = _components(shapes)
        #: constraints evaluated together (:class:`Merged`), by (what, target pattern)
        self.merged: dict[tuple[str, str], Merged] = {}
        #: the branches a merged query answers (not run alone)
        self.in_merged: set[int] = set()

    # ----------------------------------------------------------------- helpers
    def one(self, node: Node, pred: Node) -> Node | None:
        return self.g.value(node, pred)

    def all(self, node: Node, pred: Node) -> list:
        return list(self.g.objects(node, pred))

    def items(self, node: Node) -> list:
        return list(Collection(self.g, node))

    def fresh(self) -> str:
        return f"?_v{next(self._n)}"

    def is_a(self, v: str, cls: Node) -> str:
        if self.closure:
            return f"{v} <{RDF.type}>/<{RDFS.subClassOf}>* {_n3(cls)} ."
        return f"{v} a {_n3(cls)} ."

    def path(self, node: Node) -> str:
        if isinstance(node, URIRef):
            return f"<{node}>"
        for pred, op in (
            (SH.zeroOrMorePath, "*"),
            (SH.oneOrMorePath, "+"),
            (SH.zeroOrOnePath, "?"),
        ):
            inner = self.one(node, pred)
            if inner is not None:
                return f"({self.path(inner)}){op}"
        if self.one(node, RDF.first) is not None:  # a list first (SHACL 2.3.1)
            return "(" + "/".join(self.path(x) for x in self.items(node)) + ")"
        inv = self.one(node, SH.inversePath)
        if inv is not None:
            return f"^({self.path(inv)})"
        alt = self.one(node, SH.alternativePath)
        if alt is not None:
            return "(" + "|".join(self.path(x) for x in self.items(alt)) + ")"
        raise ShapesError(f"not a SHACL property path: {node!r}")

    def severity(self, shape: Node) -> str:
        sev = self.one(shape, SH.severity)
        if sev is None:
            return "Violation"
        name = str(sev).removeprefix(_COMPONENT)
        return name if name in ("Violation", "Warning", "Info") else str(sev)

    def source_path(self, shape: Node, path: Node | None) -> str | None:
        sp = self.one(shape, RK.sourcePath)
        if sp is not None:
            return str(sp)
        if isinstance(path, URIRef):
            return str(path).rsplit("#", 1)[-1].rsplit("/", 1)[-1]
        return None

    def declare(self, prefixes_node: Node, seen: frozenset = frozenset()) -> None:
        if prefixes_node in seen:
            return
        for imported in self.all(prefixes_node, OWL.imports):
            self.declare(imported, seen | {prefixes_node})
        for decl in self.all(prefixes_node, SH.declare):
            name, ns = str(self.one(decl, SH.prefix)), str(self.one(decl, SH.namespace))
            if self.prefixes.setdefault(name, ns) != ns:
                raise Unsupported(f"prefix {name}: declared as two namespaces")

    def sparql_text(self, node: Node) -> str:
        for pn in self.all(node, SH.prefixes):
            self.declare(pn)
        text = self.one(node, SH.select)
        if text is None:
            raise Unsupported("a SPARQL constraint without sh:select")
        check_sparql(str(text), f"{self.owner()}SPARQL of {node}", self.prefixes)
        return str(text)

    def owner(self) -> str:
        """``shape S: `` of the shape being compiled, for an error's first words."""
        return f"shape {self._expanding[-1]}: " if self._expanding else ""

    def sparql_body(self, node: Node, var: str = "?this") -> str:
        """The WHERE body of a ``sh:select`` (a SPARQL target), ``$this`` as ``var``,
        other variables renamed apart.

        Inlined rather than a sub-SELECT: pyoxigraph 0.5 does not evaluate a sub-SELECT
        inside ``GRAPH ?g`` against that graph (measured: it lost every solution).
        """
        text = self.sparql_text(node).replace("$this", "?this")
        start, end = text.index("{"), text.rindex("}")
        upper = text.upper()
        if any(w in upper for w in ("GROUP BY", "LIMIT", "OFFSET", "ORDER BY", "FROM")):
            raise Unsupported("sh:select form")
        if "$" in text or "SELECT" in upper[start:]:
            raise Unsupported("sh:select form")
        n = len(self.bodies) + 1

        def rename(m: re.Match[str]) -> str:
            name = m.group(1)
            if name == "this":
                return var
            return m.group(0) if name == "value" else f"?{name}_{n}"

        body = re.sub(r"\?(\w+)", rename, text[start + 1 : end])
        self.bodies.append(body)
        return body

    # ----------------------------------------------------------------- targets
    def targets(self, shape: Node) -> Callable[[str], str] | None:
        """A function of a variable to the pattern binding it to the shape's focus nodes."""
        alts: list[Callable[[str], str]] = []
        classes = self.all(shape, SH.targetClass)
        if isinstance(shape, URIRef) and (
            (shape, RDF.type, RDFS.Class) in self.g or (shape, RDF.type, OWL.Class) in self.g
        ):
            classes.append(shape)  # implicit class target (SHACL 2.1.3.3)
        for c in classes:
            alts.append(partial(self.is_a, cls=c))
        nodes = self.all(shape, SH.targetNode)
        if nodes:
            values = " ".join(_n3(n) for n in nodes)
            alts.append(
                lambda v: f"{GRAPH_MARK} {GRAPH_MARK} {GRAPH_MARK} . VALUES {v} {{ {values} }}"
            )
        for p in self.all(shape, SH.targetSubjectsOf):
            alts.append(partial(_subjects_of, p))
        for p in self.all(shape, SH.targetObjectsOf):
            alts.append(partial(_objects_of, p))
        for t in self.all(shape, SH.target):
            if (t, RDF.type, SH.SPARQLTarget) not in self.g:
                raise Unsupported("a custom target (SHACL-AF)")
            alts.append(partial(self._sparql_target, t))
        if not alts:
            return None
        if len(alts) == 1:
            return alts[0]
        return lambda v: "{ " + " UNION ".join("{ " + a(v) + " }" for a in alts) + " }"

    def _sparql_target(self, target: Node, v: str) -> str:
        """The pattern of a ``sh:SPARQLTarget`` binding ``v`` (a group of its own)."""
        return "{ " + self.sparql_body(target, v) + " }"

    # ----------------------------------------------------------------- value expressions
    def value_exprs(self, shape: Node, v: str) -> list[tuple[str, str]]:
        """(component, expression true when value ``v`` conforms) for per-value constraints."""
        out: list[tuple[str, str]] = []
        for dt in self.all(shape, SH.datatype):
            if str(dt) == str(RDF.langString):
                e = f"(isLiteral({v}) && lang({v}) != '')"
            elif str(dt) == XSD_STRING:
                e = f"(isLiteral({v}) && datatype({v}) = <{XSD_STRING}>)"
            else:
                e = (
                    f"(isLiteral({v}) && (datatype({v}) = <{dt}> "
                    f"|| datatype({v}) = <{LOSSLESS}{dt}>))"
                )
            out.append(("DatatypeConstraintComponent", e))
        for nk in self.all(shape, SH.nodeKind):
            name = str(nk).removeprefix(_COMPONENT)
            kinds = {
                "IRI": f"isIRI({v})",
                "Literal": f"isLiteral({v})",
                "BlankNode": f"isBlank({v})",
                "BlankNodeOrIRI": f"(isBlank({v}) || isIRI({v}))",
                "BlankNodeOrLiteral": f"(isBlank({v}) || isLiteral({v}))",
                "IRIOrLiteral": f"(isIRI({v}) || isLiteral({v}))",
            }
            if name not in kinds:
                raise ShapesError(f"sh:nodeKind {nk} is not a SHACL node kind")
            out.append(("NodeKindConstraintComponent", kinds[name]))
        for c in self.all(shape, SH["class"]):
            out.append(("ClassConstraintComponent", f"EXISTS {{ {self.is_a(v, c)} }}"))
        flags = self.one(shape, SH.flags)
        for pat in self.all(shape, SH.pattern):
            fl = f', "{_escape(str(flags))}"' if flags is not None else ""
            e = f'(!isBlank({v}) && REGEX(STR({v}), "{_escape(str(pat))}"{fl}))'
            out.append(("PatternConstraintComponent", e))
        for lst in self.all(shape, SH["in"]):
            members = " || ".join(f"sameTerm({v}, {_n3(x)})" for x in self.items(lst))
            out.append(("InConstraintComponent", f"({members or 'false'})"))
        for lst in self.all(shape, SH.languageIn):
            tags = [str(x) for x in self.items(lst)]
            matches = " || ".join(f'langMatches(lang({v}), "{_escape(t)}")' for t in tags)
            out.append(
                ("LanguageInConstraintComponent", f"(isLiteral({v}) && ({matches or 'false'}))")
            )
        for pred, op, comp in (
            (SH.minInclusive, ">=", "MinInclusive"),
            (SH.maxInclusive, "<=", "MaxInclusive"),
            (SH.minExclusive, ">", "MinExclusive"),
            (SH.maxExclusive, "<", "MaxExclusive"),
        ):
            for lim in self.all(shape, pred):
                e = f"(isLiteral({v}) && {_decoded(v)} {op} {_value_n3(lim)})"
                out.append((f"{comp}ConstraintComponent", e))
        for pred, op, comp in (
            (SH.minLength, ">=", "MinLength"),
            (SH.maxLength, "<=", "MaxLength"),
        ):
            for lim in self.all(shape, pred):
                e = f"(!isBlank({v}) && STRLEN(STR({v})) {op} {int(lim)})"
                out.append((f"{comp}ConstraintComponent", e))
        for lst in self.all(shape, SH["or"]):
            alts = [self.conforms(x, v) for x in self.items(lst)]
            out.append(("OrConstraintComponent", "(" + (" || ".join(alts) or "false") + ")"))
        for lst in self.all(shape, SH["and"]):
            alts = [self.conforms(x, v) for x in self.items(lst)]
            out.append(("AndConstraintComponent", "(" + (" && ".join(alts) or "true") + ")"))
        for lst in self.all(shape, SH.xone):
            alts = [f"IF({self.conforms(x, v)}, 1, 0)" for x in self.items(lst)]
            out.append(("XoneConstraintComponent", "((" + (" + ".join(alts) or "0") + ") = 1)"))
        for x in self.all(shape, SH["not"]):
            out.append(("NotConstraintComponent", f"(!{self.conforms(x, v)})"))
        for x in self.all(shape, SH.node):
            out.append(("NodeConstraintComponent", self.conforms(x, v)))
        return out

    def at_least(self, v: str, p: str, n: int, cond: Callable[[str], str] | None = None) -> str:
        """True when ``v`` has at least ``n`` distinct values over path ``p`` (meeting ``cond``)."""
        if n <= 0:
            return "true"
        if n > _MAX_COUNT:
            raise Unsupported(f"a count of {n} in a nested shape")
        xs = [self.fresh() for _ in range(n)]
        pats = " ".join(f"{v} {p} {x} ." for x in xs)
        tests = [f"!sameTerm({a}, {b})" for i, a in enumerate(xs) for b in xs[i + 1 :]]
        if cond is not None:
            tests += [cond(x) for x in xs]
        where = f" FILTER({' && '.join(tests)})" if tests else ""
        return f"EXISTS {{ {pats}{where} }}"

    def at_most_one(self, v: str, p: str, x: str, vals: list[str], one: bool) -> str:
        """True when ``v`` has at most one value ``x`` over ``p`` (exactly one if ``one``)
        and every value meets ``vals``.

        The same as "no value fails ``vals``", "some value" and "no two distinct values"
        (:meth:`at_least`) together, in one or two ``EXISTS`` per value instead of four
        (a two-pattern ``EXISTS`` costs pyoxigraph several one-pattern ones,
        benchmarks/README.md#figures-once-quoted-in-code: nested shapes with ``sh:maxCount 1`` were
        most of validating a QRA record).
        """
        y = self.fresh()
        other = f"EXISTS {{ {v} {p} {y} . FILTER(!sameTerm({x}, {y})) }}"
        # an error in vals counts as met, as the FILTER(!(vals)) of the four-part form has it
        ok = f"COALESCE({' && '.join(vals) or 'true'}, true)"
        if one:  # a value that meets vals, and no other value
            return f"EXISTS {{ {v} {p} {x} . FILTER({ok} && !{other}) }}"
        return f"NOT EXISTS {{ {v} {p} {x} . FILTER(!{ok} || {other}) }}"

    def qualified_cond(self, shape: Node, q: Node) -> Callable[[str], str]:
        """Values that count for ``sh:qualifiedValueShape`` ``q`` (disjoint siblings excluded)."""
        siblings: list[Node] = []
        if _true(self.one(shape, SH.qualifiedValueShapesDisjoint)):
            for parent in self.g.subjects(SH.property, shape):
                for ps in self.all(parent, SH.property):
                    for sib in self.all(ps, SH.qualifiedValueShape):
                        if sib != q and sib not in siblings:
                            siblings.append(sib)

        def cond(x: str) -> str:
            parts = [self.conforms(q, x)] + [f"!{self.conforms(s, x)}" for s in siblings]
            return "(" + " && ".join(parts) + ")"

        return cond

    def conforms(self, shape: Node, v: str) -> str:
        """An expression true when ``v`` conforms to ``shape`` (every constraint, its
        property shapes included; targets ignored, as for any shape reached by value)."""
        if _true(self.one(shape, SH.deactivated)):
            return "true"
        if shape in self._expanding:
            raise Unsupported(f"recursive shape {shape} (SHACL leaves recursion undefined)")
        if self.all(shape, SH.sparql):
            raise Unsupported("a SHACL-SPARQL constraint in a shape reached by value")
        self._expanding.append(shape)
        try:
            path_node = self.one(shape, SH.path)
            parts: list[str] = []
            if path_node is None:
                parts += [f"COALESCE({e}, false)" for _c, e in self.value_exprs(shape, v)]
                parts += [f"sameTerm({v}, {_n3(hv)})" for hv in self.all(shape, SH.hasValue)]
                if _true(self.one(shape, SH.closed)):
                    p, o = self.fresh(), self.fresh()
                    allowed = ", ".join(self.closed_allowed(shape))
                    parts.append(f"NOT EXISTS {{ {v} {p} {o} . FILTER({p} NOT IN ({allowed})) }}")
                for other in self.all(shape, SH.equals):
                    o = self.fresh()
                    parts.append(
                        f"(EXISTS {{ {v} {_n3(other)} {v} }} && "
                        f"NOT EXISTS {{ {v} {_n3(other)} {o} FILTER(!sameTerm({o}, {v})) }})"
                    )
                for other in self.all(shape, SH.disjoint):
                    parts.append(f"NOT EXISTS {{ {v} {_n3(other)} {v} }}")
                for ps in self.all(shape, SH.property):
                    parts.append(self.conforms(ps, v))
            else:
                p = self.path(path_node)
                x = self.fresh()
                vals = [f"COALESCE({e}, false)" for _c, e in self.value_exprs(shape, x)]
                vals += [self.conforms(ps, x) for ps in self.all(shape, SH.property)]
                mins = [int(lim) for lim in self.all(shape, SH.minCount)]
                maxs = [int(lim) for lim in self.all(shape, SH.maxCount)]
                if 1 in maxs and all(n <= 1 for n in mins):
                    parts.append(self.at_most_one(v, p, x, vals, 1 in mins))
                else:
                    if vals:
                        ok = " && ".join(vals)
                        parts.append(f"NOT EXISTS {{ {v} {p} {x} . FILTER(!({ok})) }}")
                    parts += [self.at_least(v, p, n) for n in mins]
                    parts += [f"!{self.at_least(v, p, n + 1)}" for n in maxs]
                for hv in self.all(shape, SH.hasValue):
                    parts.append(f"EXISTS {{ {v} {p} {_n3(hv)} }}")
                for other in self.all(shape, SH.equals):
                    a = self.fresh()
                    o = _n3(other)
                    parts.append(
                        f"NOT EXISTS {{ {{ {v} {p} {a} FILTER NOT EXISTS {{ {v} {o} {a} }} }} "
                        f"UNION {{ {v} {o} {a} FILTER NOT EXISTS {{ {v} {p} {a} }} }} }}"
                    )
                for other in self.all(shape, SH.disjoint):
                    a = self.fresh()
                    parts.append(f"NOT EXISTS {{ {v} {p} {a} . {v} {_n3(other)} {a} }}")
                for pred, op in ((SH.lessThan, "<"), (SH.lessThanOrEquals, "<=")):
                    for other in self.all(shape, pred):
                        a, b = self.fresh(), self.fresh()
                        parts.append(
                            f"NOT EXISTS {{ {v} {p} {a} . {v} {_n3(other)} {b} . "
                            f"FILTER(!COALESCE({_decoded(a)} {op} {_decoded(b)}, false)) }}"
                        )
                if _true(self.one(shape, SH.uniqueLang)):
                    a, b = self.fresh(), self.fresh()
                    parts.append(
                        f"NOT EXISTS {{ {v} {p} {a} . {v} {p} {b} . FILTER(!sameTerm({a}, {b}) "
                        f"&& lang({a}) != '' && LCASE(lang({a})) = LCASE(lang({b}))) }}"
                    )
                for q in self.all(shape, SH.qualifiedValueShape):
                    cond = self.qualified_cond(shape, q)
                    for lim in self.all(shape, SH.qualifiedMinCount):
                        parts.append(self.at_least(v, p, int(lim), cond))
                    for lim in self.all(shape, SH.qualifiedMaxCount):
                        parts.append(f"!{self.at_least(v, p, int(lim) + 1, cond)}")
            return "(" + (" && ".join(parts) or "true") + ")"
        finally:
            self._expanding.pop()

    def closed_allowed(self, shape: Node) -> list[str]:
        allowed = {
            _n3(self.one(ps, SH.path))
            for ps in self.all(shape, SH.property)
            if isinstance(self.one(ps, SH.path), URIRef)
        }
        for lst in self.all(shape, SH.ignoredProperties):
            allowed |= {_n3(x) for x in self.items(lst)}
        return sorted(allowed)

    # ----------------------------------------------------------------- shapes
    def add(self, info: Branch, pattern: str, wrapped: bool = True) -> int:
        self.branches.append(info)
        self.patterns.append((pattern, wrapped))
        return len(self.branches) - 1

    def add_merged(
        self,
        what: str,
        t: str,
        path: str,
        info: Branch,
        pattern: str,
        arg: object,
        wrapped: bool = True,
    ) -> None:
        """A constraint of a property shape on an IRI path, answered by its target's
        merged query (:class:`Merged`); ``pattern`` is its query alone (kept for
        reading, and run instead when the target is nested)."""
        i = self.add(info, pattern, wrapped)
        if "?_pf" in t or not path.startswith("<"):  # nested, or a path that is no IRI
            return
        self.merged.setdefault((what, t), Merged(what, t)).add(i, path, arg)
        self.in_merged.add(i)

    def shape(self, shape: Node, tgt: Callable[[str], str]) -> None:
        """Compile ``shape``'s constraints on the focus nodes ``tgt`` binds."""
        if _true(self.one(shape, SH.deactivated)):
            return
        if shape in self._expanding:
            raise Unsupported(f"recursive shape {shape} (SHACL leaves recursion undefined)")
        self._expanding.append(shape)
        try:
            self._shape(shape, tgt)
        finally:
            self._expanding.pop()

    def _shape(self, shape: Node, tgt: Callable[[str], str]) -> None:
        """One shape's constraints, by family, in a fixed order (the branch order)."""
        path_node = self.one(shape, SH.path)
        info, p = self._info(shape, path_node)
        t = tgt("?this")
        if path_node is None:  # node shape: the focus node is the value node
            self._node_shape(shape, tgt, t, info)
            return
        assert p is not None
        self._value_and_count(shape, t, p, info)
        self._pair(shape, t, p, info)
        self._qualified(shape, t, p, info)
        for sc in self.all(shape, SH.sparql):
            self.sparql_constraint(shape, sc, tgt, p, info)
        self.custom(shape, tgt, p, info)
        self._nested(shape, tgt, p)

    def _info(
        self, shape: Node, path_node: Node | None
    ) -> tuple[Callable[..., Branch], str | None]:
        """The :class:`Branch` maker of ``shape``'s constraints (its name, path, severity,
        message), given a component and whether a result has a value; the path as SPARQL."""
        sev = self.severity(shape)
        msg = self.one(shape, SH.message)
        sp = self.source_path(shape, path_node)
        name = str(shape) if isinstance(shape, URIRef) else None
        path_text = self.path(path_node) if path_node is not None else None

        def info(component: str, has_value: bool, **extra: object) -> Branch:
            text = str(msg) if msg is not None else f"{component} not met"
            extra.setdefault("message_given", msg is not None)
            return Branch(
                name,
                sp,
                sev,
                text,
                _COMPONENT + component,
                has_value,
                shape_node=shape,
                path_node=path_node,
                path_text=path_text,
                **extra,  # type: ignore[arg-type]  # the Branch fields info's callers name
            )

        return info, path_text

    def _node_shape(
        self, shape: Node, tgt: Callable[[str], str], t: str, info: Callable[..., Branch]
    ) -> None:
        """A node shape's constraints: the focus node is the value node."""
        for comp, e in self.value_exprs(shape, "?this"):
            self.add(info(comp, True), f"{t} BIND(?this AS ?value) FILTER(!COALESCE({e}, false))")
        for hv in self.all(shape, SH.hasValue):
            self.add(
                info("HasValueConstraintComponent", False),
                f"{t} FILTER(!sameTerm(?this, {_n3(hv)}))",
            )
        if _true(self.one(shape, SH.closed)):
            allowed = ", ".join(self.closed_allowed(shape))
            self.add(
                info("ClosedConstraintComponent", True, dynamic_path=True),
                f"{t} ?this ?path ?value . FILTER(?path NOT IN ({allowed}))",
            )
        for other in self.all(shape, SH.equals):
            o = _n3(other)
            self.add(
                info("EqualsConstraintComponent", True),
                f"{{ {t} ?this {o} ?value . FILTER(!sameTerm(?value, ?this)) }} UNION "
                f"{{ {t} FILTER NOT EXISTS {{ ?this {o} ?this }} BIND(?this AS ?value) }}",
            )
        for other in self.all(shape, SH.disjoint):
            self.add(
                info("DisjointConstraintComponent", True),
                f"{t} ?this {_n3(other)} ?this . BIND(?this AS ?value)",
            )
        for ps in self.all(shape, SH.property):
            self.shape(ps, tgt)
        for sc in self.all(shape, SH.sparql):
            self.sparql_constraint(shape, sc, tgt, None, info)
        self.custom(shape, tgt, None, info)

    def _value_and_count(self, shape: Node, t: str, p: str, info: Callable[..., Branch]) -> None:
        """A property shape's per-value constraints and ``sh:minCount``/``sh:maxCount``:
        the families its target's merged queries answer."""
        for comp, e in self.value_exprs(shape, "?value"):
            self.add_merged(
                "values",
                t,
                p,
                info(comp, True),
                f"{t} ?this {p} ?value . FILTER(!COALESCE({e}, false))",
                e,
            )
        # minCount 1 / maxCount 1 (most of them) without aggregation: "no value" and
        # "two distinct values" say the same as COUNT(DISTINCT ?v) < 1 / > 1, and took
        # half the time of the GROUP BY form on pyoxigraph (measured on 256 run headers)
        for lim in self.all(shape, SH.minCount):
            if int(lim) == 1:
                self.add_merged(
                    "min",
                    t,
                    p,
                    info("MinCountConstraintComponent", False),
                    f"{t} FILTER NOT EXISTS {{ ?this {p} ?v }}",
                    1,
                )
            elif int(lim) > 1:
                self.add(
                    info("MinCountConstraintComponent", False),
                    self.count(t, p, "<", int(lim)),
                    False,
                )
        for lim in self.all(shape, SH.maxCount):
            wrapped = int(lim) < 2
            if int(lim) == 0:
                alone = f"{t} FILTER EXISTS {{ ?this {p} ?v }}"
            elif int(lim) == 1:
                alone = f"{t} ?this {p} ?mc_a . ?this {p} ?mc_b . FILTER(!sameTerm(?mc_a, ?mc_b))"
            else:
                alone = self.count(t, p, ">", int(lim))
            self.add_merged(
                "max", t, p, info("MaxCountConstraintComponent", False), alone, int(lim), wrapped
            )

    def _pair(self, shape: Node, t: str, p: str, info: Callable[..., Branch]) -> None:
        """A property shape's constraints between its values and others: ``sh:hasValue``,
        ``sh:equals``, ``sh:disjoint``, ``sh:lessThan(OrEquals)``, ``sh:uniqueLang``."""
        for hv in self.all(shape, SH.hasValue):
            self.add(
                info("HasValueConstraintComponent", False),
                f"{t} FILTER NOT EXISTS {{ ?this {p} {_n3(hv)} }}",
            )
        for other in self.all(shape, SH.equals):
            o = _n3(other)
            self.add(
                info("EqualsConstraintComponent", True),
                f"{t} {{ ?this {p} ?value FILTER NOT EXISTS {{ ?this {o} ?value }} }} UNION "
                f"{{ ?this {o} ?value FILTER NOT EXISTS {{ ?this {p} ?value }} }}",
            )
        for other in self.all(shape, SH.disjoint):
            self.add(
                info("DisjointConstraintComponent", True),
                f"{t} ?this {p} ?value . ?this {_n3(other)} ?value .",
            )
        for pred, op, comp in (
            (SH.lessThan, "<", "LessThan"),
            (SH.lessThanOrEquals, "<=", "LessThanOrEquals"),
        ):
            for other in self.all(shape, pred):
                self.add(
                    info(f"{comp}ConstraintComponent", True),
                    f"{t} ?this {p} ?value . ?this {_n3(other)} ?k . "
                    f"FILTER(!COALESCE({_decoded('?value')} {op} {_decoded('?k')}, false))",
                )
        if _true(self.one(shape, SH.uniqueLang)):
            # one result per language used twice (``?k``: the language)
            self.add(
                info("UniqueLangConstraintComponent", False),
                f"{t} ?this {p} ?_a . ?this {p} ?_b . FILTER(!sameTerm(?_a, ?_b) && "
                "lang(?_a) != '' && LCASE(lang(?_a)) = LCASE(lang(?_b))) "
                "BIND(LCASE(lang(?_a)) AS ?k)",
            )

    def _qualified(self, shape: Node, t: str, p: str, info: Callable[..., Branch]) -> None:
        """``sh:qualifiedValueShape`` with its ``sh:qualifiedMin/MaxCount``."""
        for q in self.all(shape, SH.qualifiedValueShape):
            cond = self.qualified_cond(shape, q)
            for lim in self.all(shape, SH.qualifiedMinCount):
                self.add(
                    info("QualifiedMinCountConstraintComponent", False),
                    self.count(t, p, "<", int(lim), cond),
                    False,
                )
            for lim in self.all(shape, SH.qualifiedMaxCount):
                self.add(
                    info("QualifiedMaxCountConstraintComponent", False),
                    self.count(t, p, ">", int(lim), cond),
                    False,
                )

    def _nested(self, shape: Node, tgt: Callable[[str], str], p: str) -> None:
        """A nested property shape applies to each value node, once per parent focus node
        (``?_pf<depth>`` keeps those validations apart: W3C property-001)."""
        depth = len(self._expanding)
        if depth > _MAX_DEPTH:
            raise Unsupported(f"property shapes nested deeper than {_MAX_DEPTH}")
        for ps in self.all(shape, SH.property):

            def child(w: str, p: str = p, f: str = f"?_pf{depth}") -> str:
                return f"{tgt(f)} {f} {p} {w} ."

            self.shape(ps, child)

    def count(
        self, t: str, p: str, op: str, n: int, cond: Callable[[str], str] | None = None
    ) -> str:
        """Focus nodes whose number of distinct values (meeting ``cond``) is ``op n``."""
        where = f" FILTER({cond('?v')})" if cond is not None else ""
        values = f"?this {p} ?v .{where}"
        if op == "<":
            inner = f"GRAPH ?g {{ {t} }} OPTIONAL {{ GRAPH ?g {{ {values} }} }}"
        else:
            inner = f"GRAPH ?g {{ {t} {values} }}"
        return (
            f"{{ SELECT ?g ?this {_PARENTS} (COUNT(DISTINCT ?v) AS ?n) WHERE {{ {inner} }} "
            f"GROUP BY ?g ?this {_PARENTS} }} FILTER(?n {op} {n})"
        )

    def custom(
        self,
        shape: Node,
        tgt: Callable[[str], str],
        path: str | None,
        info: Callable[..., Branch],
    ) -> None:
        """The SPARQL-based constraint components (SHACL 6) ``shape`` uses: it has a value
        for each of a component's mandatory parameters. The parameters are pre-bound by
        name (``$name`` and ``?name``); a SELECT validator runs like a ``sh:sparql``
        constraint, an ASK validator once per value node (false: a result)."""
        for component, params, validators in self.components:
            values: dict[str, Node] = {}
            for param, optional in params:
                value = self.one(shape, param)
                if value is None and not optional:
                    break
                if value is not None:
                    values[str(param).rsplit("#", 1)[-1].rsplit("/", 1)[-1]] = value
            else:
                kind = "property" if path is not None else "node"
                validator = validators.get(kind) or validators.get("ask")
                if validator is None:
                    raise Unsupported(f"{component} has no validator for a {kind} shape")
                vtype, node = validator
                for pn in self.all(node, SH.prefixes) + self.all(component, SH.prefixes):
                    self.declare(pn)
                text = str(self.one(node, SH.select if vtype == "select" else SH.ask))
                check_sparql(text, f"{self.owner()}validator of {component}", self.prefixes)
                for name, value in values.items():
                    text = re.sub(r"[?$]" + re.escape(name) + r"\b", _n3(value), text)
                base = info("", True)
                base = Branch(**{**base.__dict__, "component": str(component)})
                if vtype == "select":
                    base = Branch(**{**base.__dict__, "dynamic_path": True})
                    self.select_branch(shape, text, tgt, path, base)
                    continue
                text = self.prebound(shape, text, path)
                t = tgt("?this")
                pattern = (
                    f"{t} BIND(?this AS ?value)" if path is None else f"{t} ?this {path} ?value ."
                )
                i = self.add(base, pattern)
                self.per_value.append((i, text))
                where = text[text.index("{") + 1 : text.rindex("}")]
                self.bodies.append(where.replace("$", "?"))

    def sparql_constraint(
        self,
        shape: Node,
        sc: Node,
        tgt: Callable[[str], str],
        path: str | None,
        info: Callable[..., Branch],
    ) -> None:
        """A ``sh:sparql`` constraint: its query joined with the focus nodes on ``?this``
        (each document's own graph), or run per focus node when its text needs ``$this``
        bound before evaluation (SHACL 5.2.1 pre-binding)."""
        if _true(self.one(sc, SH.deactivated)):
            return
        msg = self.one(sc, SH.message)
        base = info("SPARQLConstraintComponent", True, constraint_node=sc, dynamic_path=True)
        if msg is not None:
            base = Branch(**{**base.__dict__, "message": str(msg), "message_given": True})
        self.select_branch(shape, self.sparql_text(sc), tgt, path, base)

    def prebound(self, shape: Node, text: str, path: str | None) -> str:
        """``text`` with ``$PATH``, ``$currentShape``, ``$shapesGraph`` replaced and
        ``bound()`` of a pre-bound variable true; ``$value`` as ``?value``."""
        text = BOUND_CALL.sub("(true)", text)
        if path is not None:
            text = text.replace("$PATH", path)
        if "$currentShape" in text:
            if not isinstance(shape, URIRef):
                raise Unsupported("$currentShape of a blank-node shape")
            text = text.replace("$currentShape", f"<{shape}>")
        if "$shapesGraph" in text:
            self.uses_shapes_graph = True
            text = text.replace("$shapesGraph", f"<{SHAPES_GRAPH}>")
        if "$" in STRINGS.sub('""', text).replace("$this", "").replace("$value", ""):
            raise Unsupported("a pre-bound variable other than $this, $value, $PATH")
        return text.replace("$value", "?value")

    def select_branch(
        self, shape: Node, text: str, tgt: Callable[[str], str], path: str | None, base: Branch
    ) -> None:
        """A SELECT (a ``sh:sparql`` constraint or a component's SELECT validator)."""
        text = self.prebound(shape, text, path)
        m = re.match(
            r"\s*SELECT\s+(DISTINCT\s+|REDUCED\s+)?([^{]*?)\s*WHERE\s*\{",
            body_start(text),
            re.IGNORECASE | re.DOTALL,
        )
        if m is None:
            raise Unsupported("a sh:select that is not SELECT ... WHERE { ... }")
        projection = m.group(2)
        star = projection.strip() == "*"
        default_value = "" if path is not None else " BIND(?this AS ?value)"
        projected = "?value" in text if star else "?value" in projection
        value_bind = "" if projected else default_value
        t = tgt("?this")
        # the predicates the query reads must be loaded (relevant_predicates)
        where = body_start(text)
        self.bodies.append(where[where.index("{") + 1 : where.rindex("}")].replace("$", "?"))
        if join_safe(text):
            query = with_graph(text.replace("$this", "?this"))
            pattern = f"{{ GRAPH ?g {{ {t} }} }} {{ {query} }}{value_bind}"
            self.add(base, pattern, False)
            return
        filters = exists_filters(text)
        if filters is not None and not star and "?value" not in projection:
            # the focus nodes' group filtered: EXISTS sees ?this bound, as pre-binding does
            body = filters.replace("$this", "?this")
            self.add(base, f"GRAPH ?g {{ {{ {t} }} {body} }}{value_bind}", False)
            return
        i = self.add(base, "", False)
        self.patterns[i] = (f"GRAPH ?g {{ {t} }}", True)
        self.per_focus.append((i, value_bind, text))


@dataclass
class Compiled:
    """A shapes graph's constraints: one query per branch (and the UNION of them, for
    reading). Separate queries beat one UNION query on run headers
    (benchmarks/README.md#figures-once-quoted-in-code); the separate queries are what ``evaluate``
    runs."""

    query: str
    branches: list[Branch]
    queries: list[str]
    #: the PREFIX lines and the ``sh:select`` bodies the queries inline
    head: str = ""
    bodies: list[str] = field(default_factory=list)
    #: load the shapes graph as ``SHAPES_GRAPH`` (a query names ``$shapesGraph``)
    shapes: Graph | None = None
    #: (branch index, BIND text, SPARQL text) of constraints run per focus node
    per_focus: list[tuple[int, str, str]] = field(default_factory=list)
    #: (branch index, ASK query) of component validators run per value node
    per_value: list[tuple[int, str]] = field(default_factory=list)
    #: what ``evaluate_compiled`` runs: a branch's query alone, or a merged query
    plan: list[tuple[int | Merged | Screen, str]] = field(default_factory=list)


def compile_shapes(shapes: Graph, closure: bool = True) -> Compiled:
    """Compile every shape with targets (and the shapes they reach) in ``shapes``.

    ``closure``: class membership through ``rdfs:subClassOf*`` in the data (SHACL's
    definition); without it, plain ``rdf:type`` (the project's documents carry their
    entailed types, materialised at load, and no subclass triples). Raises
    :class:`ShapesError` for a shapes graph that cannot be used.
    """
    c = _Compiler(shapes, closure)
    roots: set[Node] = set()
    for p in (SH.targetClass, SH.target, SH.targetSubjectsOf, SH.targetObjectsOf, SH.targetNode):
        roots |= set(shapes.subjects(p))
    for kind in (SH.NodeShape, SH.PropertyShape):
        for s in shapes.subjects(RDF.type, kind):
            if isinstance(s, URIRef) and (
                (s, RDF.type, RDFS.Class) in shapes or (s, RDF.type, OWL.Class) in shapes
            ):
                roots.add(s)
    try:
        for shape in sorted(roots, key=lambda s: (isinstance(s, BNode), str(s))):
            tgt = c.targets(shape)
            if tgt is not None:
                c.shape(shape, tgt)
    except (KeyError, ValueError, TypeError) as exc:
        raise ShapesError(f"shapes graph not understood: {exc}") from exc
    head = "".join(f"PREFIX {p}: <{ns}>\n" for p, ns in sorted(c.prefixes.items()))
    parts = [
        f"{{ GRAPH ?g {{ {pat} }} }}" if wrapped else f"{{ {pat} }}" for pat, wrapped in c.patterns
    ]
    # ?k tells results apart that share focus node and value (sh:lessThan: one result per
    # pair of values; sh:uniqueLang: one per language)
    select = f"SELECT DISTINCT ?g ?this ?value ?path ?k {_PARENTS} WHERE "
    query = (
        head
        + "SELECT ?g ?this ?value ?path ?cid WHERE {\n"
        + "\nUNION\n".join(f"{{ {p} BIND({i} AS ?cid) }}" for i, p in enumerate(parts))
        + "\n}"
    )
    queries = [head + select + p for p in parts]
    plan: list[tuple[int | Merged | Screen, str]] = [
        (i, q) for i, q in enumerate(queries) if i not in c.in_merged
    ]
    by_target: dict[str, list[Merged]] = {}
    for m in c.merged.values():
        by_target.setdefault(m.target, []).append(m)
    for members in by_target.values():
        if Screen.applies(members):
            screen = Screen([(m, head + m.query()) for m in members])
            plan.append((screen, head + screen.query()))
        else:
            plan += [(m, head + m.query()) for m in members]
    return Compiled(
        query,
        c.branches,
        queries,
        head,
        c.bodies,
        shapes if c.uses_shapes_graph else None,
        c.per_focus,
        c.per_value,
        plan,
    )


def _components(
    shapes: Graph,
) -> list[tuple[Node, list[tuple[Node, bool]], dict[str, tuple[str, Node]]]]:
    """The SPARQL-based constraint components declared in ``shapes``: (component, its
    parameters as (path, optional), its validators by kind: ``node``, ``property`` (SELECT)
    and ``ask`` (``sh:validator``))."""
    kinds = {SH.ConstraintComponent} | set(
        shapes.transitive_subjects(RDFS.subClassOf, SH.ConstraintComponent)
    )
    out = []
    for kind in kinds:
        for component in sorted(shapes.subjects(RDF.type, kind), key=str):
            params = [
                (shapes.value(p, SH.path), _true(shapes.value(p, SH.optional)))
                for p in shapes.objects(component, SH.parameter)
            ]
            validators: dict[str, tuple[str, Node]] = {}
            for pred, name in (
                (SH.nodeValidator, "node"),
                (SH.propertyValidator, "property"),
                (SH.validator, "ask"),
            ):
                v = shapes.value(component, pred)
                if v is not None:
                    is_ask = shapes.value(v, SH.ask) is not None
                    if name != "ask" and is_ask:
                        validators[name] = ("ask", v)
                    elif name == "ask" and not is_ask:
                        continue  # sh:validator must be an ASK validator
                    else:
                        validators[name] = ("ask" if is_ask else "select", v)
            if params and all(p is not None for p, _o in params) and validators:
                out.append((component, [(p, o) for p, o in params if p is not None], validators))
    return out


@cache
def _compiled_kind(kind: str, closure: bool) -> Compiled:
    from reprokg.validation.shapes import shapes_graph

    return compile_shapes(shapes_graph(kind), closure)


def compile_kind(kind: str) -> Compiled:
    """The kind's shapes compiled (plain ``rdf:type``: its documents carry their types)."""
    return _compiled_kind(kind, False)


# --------------------------------------------------------------------------- evaluation
