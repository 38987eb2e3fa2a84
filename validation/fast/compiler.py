"""SHACL shapes compiled to SPARQL, evaluated by pyoxigraph: the one SHACL engine.

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

Typed literals are loaded losslessly: pyoxigraph normalises what it stores
(``"01"^^xsd:integer`` becomes ``"1"``, ``xsd:byte`` becomes ``xsd:integer``), which would
change ``sh:datatype``, ``sh:in`` and reported values, so a literal it would change is
stored under a marker datatype that keeps its datatype IRI (:func:`encode_literal`), and an
ill-typed literal under another marker no ``sh:datatype`` accepts. Comparisons decode the
marker (``STRDT``), so ``sh:minInclusive`` still compares values.
"""

from __future__ import annotations

import itertools
import json.encoder
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

import pyoxigraph as ox
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDF, RDFS, SH, XSD

from reprokg.core.errors import ShapesError
from reprokg.core.lazy_graph import graph_triples
from reprokg.core.namespaces import RK

_COMPONENT = "http://www.w3.org/ns/shacl#"
#: a typed literal pyoxigraph would normalise: datatype ``_LOSSLESS + <datatype IRI>``
_LOSSLESS = "urn:reprokg:shacl:dt:"
#: an ill-typed literal: datatype ``_ILL_TYPED + <datatype IRI>`` (no sh:datatype matches)
_ILL_TYPED = "urn:reprokg:shacl:ill:"
#: one triple in every named graph, so ``sh:targetNode`` (VALUES) binds ``?g``
_GRAPH_MARK = "<urn:reprokg:shacl:graph>"
#: the named graph ``$shapesGraph`` names (loaded only when a query uses it)
SHAPES_GRAPH = "urn:reprokg:shacl:shapes"
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
    shape_node: object = None
    path_node: object = None
    constraint_node: object = None
    #: the result path comes from the query's ``?path`` (sh:closed, SPARQL constraints)
    dynamic_path: bool = False
    #: the SPARQL path text of ``path_node`` (for text and JSON reports)
    path_text: str | None = None
    #: ``message`` is the shape's ``sh:message`` (not a default)
    message_given: bool = False


def _canonical(lexical: str, datatype: str) -> bool:
    """True when pyoxigraph stores ``lexical^^datatype`` unchanged (checked for the
    datatypes it normalises; others, ours and user-defined, it keeps as written)."""
    form = _CANONICAL_FORMS.get(datatype)
    if form is not None:
        return form.fullmatch(lexical) is not None
    return not datatype.startswith(_XSD)


_XSD = str(XSD)
_XSD_INTEGER, _XSD_DECIMAL, _XSD_BOOLEAN = str(XSD.integer), str(XSD.decimal), str(XSD.boolean)
_XSD_DATE, _XSD_GYEAR, _XSD_STRING = str(XSD.date), str(XSD.gYear), str(XSD.string)
_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")
_DECIMAL = re.compile(r"(0|-?[1-9][0-9]*)(\.[0-9]*[1-9])?|-0\.[0-9]*[1-9]")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_GYEAR = re.compile(r"[0-9]{4}")
#: the datatypes pyoxigraph normalises: the lexical forms it stores unchanged
_CANONICAL_FORMS = {
    _XSD_INTEGER: _INTEGER,
    _XSD_DECIMAL: _DECIMAL,
    _XSD_BOOLEAN: re.compile("true|false"),
    _XSD_DATE: _DATE,
    _XSD_GYEAR: _GYEAR,
}


def encode_literal(term: Literal) -> ox.Literal:
    """A literal as stored for validation (see the module docstring)."""
    if term.language:
        return ox.Literal(str(term), language=term.language)
    dt = term.datatype
    if dt is None or str(dt) == _XSD_STRING:
        return ox.Literal(str(term))
    d = str(dt)
    if term.ill_typed:
        return ox.Literal(str(term), datatype=ox.NamedNode(_ILL_TYPED + d))
    if _canonical(str(term), d):
        return ox.Literal(str(term), datatype=ox.NamedNode(d))
    return ox.Literal(str(term), datatype=ox.NamedNode(_LOSSLESS + d))


def decode_term(term: object) -> object:
    """An rdflib term of a pyoxigraph term from a result (marker datatypes undone)."""
    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    assert isinstance(term, ox.Literal)
    if term.language:
        return Literal(term.value, lang=term.language)
    d = term.datatype.value
    for marker in (_LOSSLESS, _ILL_TYPED):
        if d.startswith(marker):
            d = d[len(marker) :]
    if d == _XSD_STRING:
        return Literal(term.value)
    return Literal(term.value, datatype=URIRef(d), normalize=False)  # as written


def _n3(term: object) -> str:
    """A constant as the stored data holds it (lossless literals encoded the same way)."""
    if isinstance(term, URIRef):
        return f"<{term}>"
    if isinstance(term, Literal):
        return str(encode_literal(term))
    raise ShapesError(f"a blank node or list where a constant is expected: {term!r}")


def _value_n3(term: object) -> str:
    """A constant compared by value (``sh:minInclusive``): its own datatype, not encoded."""
    if isinstance(term, Literal) and not term.language and term.datatype is not None:
        return f'"{_escape(str(term))}"^^<{term.datatype}>'
    return _n3(term)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")


def _decoded(v: str) -> str:
    """SPARQL for the value of ``v`` with a lossless marker datatype undone."""
    return (
        f'IF(isLiteral({v}) && STRSTARTS(STR(DATATYPE({v})), "{_LOSSLESS}"), '
        f'STRDT(STR({v}), IRI(STRAFTER(STR(DATATYPE({v})), "{_LOSSLESS}"))), {v})'
    )


def _true(node: object) -> bool:
    """A boolean parameter that is ``true`` (``"1"^^xsd:boolean`` is not: W3C uniqueLang-002)."""
    return node is not None and str(node).strip() == "true"


#: SPARQL the SHACL-SPARQL rules forbid in a constraint's query (SHACL 5.2.1)
_FORBIDDEN = re.compile(r"\b(MINUS|SERVICE|VALUES)\b", re.IGNORECASE)
_STRINGS = re.compile(
    r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\''
)
_COMMENT = re.compile(r"#[^\n]*")
_PRE_BOUND = ("this", "value", "currentShape", "shapesGraph", "PATH")


#: ``FROM``/``FROM NAMED`` as a keyword (not in a prefixed name, a variable or a local name)
_FROM = re.compile(r"(?<![\w:.\-?$])FROM(?![\w:\-])", re.IGNORECASE)
_IRI = re.compile(r"<[^<>\"{}|^`\\\s]*>")
_CODE_POINT = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")


def _code_points(text: str) -> str:
    """``\\u``/``\\U`` escapes expanded, as a SPARQL parser does before anything else."""

    def expand(m: re.Match[str]) -> str:
        point = int(m.group(1) or m.group(2), 16)
        return chr(point) if point <= 0x10FFFF else "\ufffd"

    return _CODE_POINT.sub(expand, text)


def _check_sparql(text: str, where: str, prefixes: dict[str, str] | None = None) -> None:
    """Refuse what SHACL-SPARQL forbids with pre-bound variables (SHACL 5.2.1), a dataset
    of its own (``FROM``: a constraint reads its focus node's graph), and text the engine
    does not parse as one query (a syntax error, an update, ``; LOAD``) or that names a
    prefix no ``sh:prefixes`` declares: a 422 naming the shape, not a 500 at evaluation."""
    code = _COMMENT.sub(" ", _STRINGS.sub('""', text))
    m = _FORBIDDEN.search(code)
    if m:
        raise ShapesError(f"{where}: {m.group(1).upper()} is not allowed in a SHACL-SPARQL query")
    bare = _COMMENT.sub(" ", _IRI.sub("<>", _STRINGS.sub('""', _code_points(text))))
    if _FROM.search(bare):
        raise ShapesError(
            f"{where}: FROM is not allowed in a SHACL-SPARQL query (it reads the data graph "
            "of its focus node, no dataset of its own)"
        )
    head = "".join(f"PREFIX {p}: <{ns}>\n" for p, ns in sorted((prefixes or {}).items()))
    try:  # parsed only: a SELECT is evaluated lazily, an ASK on an empty store
        ox.Store().query(head + text)
    except SyntaxError as exc:
        raise ShapesError(
            f"{where}: not one SPARQL SELECT or ASK query the engine can parse "
            f"({str(exc)[:200]}); "
            "updates and LOAD are not queries"
        ) from None
    for name in _PRE_BOUND:
        if re.search(r"(?i:\bAS)\s+[?$]" + name + r"\b", code):
            raise ShapesError(f"{where}: a pre-bound variable (${name}) is assigned with AS")
    # a sub-SELECT that does not project a pre-bound variable it uses hides it
    inner = code[code.index("{") + 1 :] if "{" in code else ""
    for sub in re.finditer(r"\bSELECT\b([^{]*)\{", inner, re.IGNORECASE):
        head = sub.group(1)
        if "*" in head:
            raise ShapesError(f"{where}: SELECT * in a sub-query hides the pre-bound variables")
        for name in _PRE_BOUND:
            if f"${name}" in inner and f"${name}" not in head and f"?{name}" not in head:
                raise ShapesError(f"{where}: a sub-query does not project ${name}")


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
        self._expanding: list[object] = []
        self.uses_shapes_graph = False
        #: per focus-node queries (SPARQL constraints that need real pre-binding)
        self.per_focus: list[tuple[int, str, str]] = []  # (branch index, target, query)
        #: per value-node ASK validators of SPARQL-based constraint components
        self.per_value: list[tuple[int, str]] = []  # (branch index, ASK query)
        self.components = _components(shapes)
        #: constraints evaluated together (:class:`_Merged`), by (what, target pattern)
        self.merged: dict[tuple[str, str], _Merged] = {}
        #: the branches a merged query answers (not run alone)
        self.in_merged: set[int] = set()

    # ----------------------------------------------------------------- helpers
    def one(self, node: object, pred: URIRef) -> object:
        return self.g.value(node, pred)  # type: ignore[arg-type]

    def all(self, node: object, pred: URIRef) -> list:
        return list(self.g.objects(node, pred))  # type: ignore[arg-type]

    def items(self, node: object) -> list:
        return list(Collection(self.g, node))  # type: ignore[arg-type]

    def fresh(self) -> str:
        return f"?_v{next(self._n)}"

    def is_a(self, v: str, cls: object) -> str:
        if self.closure:
            return f"{v} <{RDF.type}>/<{RDFS.subClassOf}>* {_n3(cls)} ."
        return f"{v} a {_n3(cls)} ."

    def path(self, node: object) -> str:
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

    def severity(self, shape: object) -> str:
        sev = self.one(shape, SH.severity)
        if sev is None:
            return "Violation"
        name = str(sev).removeprefix(_COMPONENT)
        return name if name in ("Violation", "Warning", "Info") else str(sev)

    def source_path(self, shape: object, path: object) -> str | None:
        sp = self.one(shape, RK.sourcePath)
        if sp is not None:
            return str(sp)
        if isinstance(path, URIRef):
            return str(path).rsplit("#", 1)[-1].rsplit("/", 1)[-1]
        return None

    def declare(self, prefixes_node: object, seen: frozenset = frozenset()) -> None:
        if prefixes_node in seen:
            return
        for imported in self.all(prefixes_node, OWL.imports):
            self.declare(imported, seen | {prefixes_node})
        for decl in self.all(prefixes_node, SH.declare):
            name, ns = str(self.one(decl, SH.prefix)), str(self.one(decl, SH.namespace))
            if self.prefixes.setdefault(name, ns) != ns:
                raise Unsupported(f"prefix {name}: declared as two namespaces")

    def sparql_text(self, node: object) -> str:
        for pn in self.all(node, SH.prefixes):
            self.declare(pn)
        text = self.one(node, SH.select)
        if text is None:
            raise Unsupported("a SPARQL constraint without sh:select")
        _check_sparql(str(text), f"{self.owner()}SPARQL of {node}", self.prefixes)
        return str(text)

    def owner(self) -> str:
        """``shape S: `` of the shape being compiled, for an error's first words."""
        return f"shape {self._expanding[-1]}: " if self._expanding else ""

    def sparql_body(self, node: object, var: str = "?this") -> str:
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
    def targets(self, shape: object) -> Callable[[str], str] | None:
        """A function of a variable to the pattern binding it to the shape's focus nodes."""
        alts: list[Callable[[str], str]] = []
        classes = self.all(shape, SH.targetClass)
        if isinstance(shape, URIRef) and (
            (shape, RDF.type, RDFS.Class) in self.g or (shape, RDF.type, OWL.Class) in self.g
        ):
            classes.append(shape)  # implicit class target (SHACL 2.1.3.3)
        for c in classes:
            alts.append(lambda v, c=c: self.is_a(v, c))
        nodes = self.all(shape, SH.targetNode)
        if nodes:
            values = " ".join(_n3(n) for n in nodes)
            alts.append(
                lambda v: f"{_GRAPH_MARK} {_GRAPH_MARK} {_GRAPH_MARK} . VALUES {v} {{ {values} }}"
            )
        for p in self.all(shape, SH.targetSubjectsOf):
            alts.append(lambda v, p=p: f"{v} {_n3(p)} [] .")
        for p in self.all(shape, SH.targetObjectsOf):
            alts.append(lambda v, p=p: f"[] {_n3(p)} {v} .")
        for t in self.all(shape, SH.target):
            if (t, RDF.type, SH.SPARQLTarget) not in self.g:
                raise Unsupported("a custom target (SHACL-AF)")
            alts.append(lambda v, t=t: "{ " + self.sparql_body(t, v) + " }")
        if not alts:
            return None
        if len(alts) == 1:
            return alts[0]
        return lambda v: "{ " + " UNION ".join("{ " + a(v) + " }" for a in alts) + " }"

    # ----------------------------------------------------------------- value expressions
    def value_exprs(self, shape: object, v: str) -> list[tuple[str, str]]:
        """(component, expression true when value ``v`` conforms) for per-value constraints."""
        out: list[tuple[str, str]] = []
        for dt in self.all(shape, SH.datatype):
            if str(dt) == str(RDF.langString):
                e = f"(isLiteral({v}) && lang({v}) != '')"
            elif str(dt) == _XSD_STRING:
                e = f"(isLiteral({v}) && datatype({v}) = <{_XSD_STRING}>)"
            else:
                e = (
                    f"(isLiteral({v}) && (datatype({v}) = <{dt}> "
                    f"|| datatype({v}) = <{_LOSSLESS}{dt}>))"
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
            alts = " || ".join(f"sameTerm({v}, {_n3(x)})" for x in self.items(lst)) or "false"
            out.append(("InConstraintComponent", f"({alts})"))
        for lst in self.all(shape, SH.languageIn):
            tags = [str(x) for x in self.items(lst)]
            alts = " || ".join(f'langMatches(lang({v}), "{_escape(t)}")' for t in tags)
            out.append(
                ("LanguageInConstraintComponent", f"(isLiteral({v}) && ({alts or 'false'}))")
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
        (a two-pattern ``EXISTS`` costs pyoxigraph ~5 µs, a one-pattern one ~1.3 µs:
        nested shapes with ``sh:maxCount 1`` were most of validating a QRA record).
        """
        y = self.fresh()
        other = f"EXISTS {{ {v} {p} {y} . FILTER(!sameTerm({x}, {y})) }}"
        # an error in vals counts as met, as the FILTER(!(vals)) of the four-part form has it
        ok = f"COALESCE({' && '.join(vals) or 'true'}, true)"
        if one:  # a value that meets vals, and no other value
            return f"EXISTS {{ {v} {p} {x} . FILTER({ok} && !{other}) }}"
        return f"NOT EXISTS {{ {v} {p} {x} . FILTER(!{ok} || {other}) }}"

    def qualified_cond(self, shape: object, q: object) -> Callable[[str], str]:
        """Values that count for ``sh:qualifiedValueShape`` ``q`` (disjoint siblings excluded)."""
        siblings: list[object] = []
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

    def conforms(self, shape: object, v: str) -> str:
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

    def closed_allowed(self, shape: object) -> list[str]:
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
        merged query (:class:`_Merged`); ``pattern`` is its query alone (kept for
        reading, and run instead when the target is nested)."""
        i = self.add(info, pattern, wrapped)
        if "?_pf" in t or not path.startswith("<"):  # nested, or a path that is no IRI
            return
        self.merged.setdefault((what, t), _Merged(what, t)).add(i, path, arg)
        self.in_merged.add(i)

    def shape(self, shape: object, tgt: Callable[[str], str]) -> None:
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

    def _shape(self, shape: object, tgt: Callable[[str], str]) -> None:
        path_node = self.one(shape, SH.path)
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
                **extra,  # type: ignore[arg-type]
            )

        t = tgt("?this")
        if path_node is None:  # node shape: the focus node is the value node
            for comp, e in self.value_exprs(shape, "?this"):
                self.add(
                    info(comp, True), f"{t} BIND(?this AS ?value) FILTER(!COALESCE({e}, false))"
                )
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
            return
        p = path_text
        assert p is not None
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
        for sc in self.all(shape, SH.sparql):
            self.sparql_constraint(shape, sc, tgt, p, info)
        self.custom(shape, tgt, p, info)
        # a nested property shape applies to each value node, once per parent focus node
        # (``?_pf<depth>`` keeps those validations apart: W3C property-001)
        depth = len(self._expanding)
        if depth > _MAX_DEPTH:
            raise Unsupported("property shapes nested deeper than {_MAX_DEPTH}")
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
        shape: object,
        tgt: Callable[[str], str],
        path: str | None,
        info: Callable[..., Branch],
    ) -> None:
        """The SPARQL-based constraint components (SHACL 6) ``shape`` uses: it has a value
        for each of a component's mandatory parameters. The parameters are pre-bound by
        name (``$name`` and ``?name``); a SELECT validator runs like a ``sh:sparql``
        constraint, an ASK validator once per value node (false: a result)."""
        for component, params, validators in self.components:
            values: dict[str, object] = {}
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
                _check_sparql(text, f"{self.owner()}validator of {component}", self.prefixes)
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
        shape: object,
        sc: object,
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

    def prebound(self, shape: object, text: str, path: str | None) -> str:
        """``text`` with ``$PATH``, ``$currentShape``, ``$shapesGraph`` replaced and
        ``bound()`` of a pre-bound variable true; ``$value`` as ``?value``."""
        text = _BOUND.sub("(true)", text)
        if path is not None:
            text = text.replace("$PATH", path)
        if "$currentShape" in text:
            if not isinstance(shape, URIRef):
                raise Unsupported("$currentShape of a blank-node shape")
            text = text.replace("$currentShape", f"<{shape}>")
        if "$shapesGraph" in text:
            self.uses_shapes_graph = True
            text = text.replace("$shapesGraph", f"<{SHAPES_GRAPH}>")
        if "$" in _STRINGS.sub('""', text).replace("$this", "").replace("$value", ""):
            raise Unsupported("a pre-bound variable other than $this, $value, $PATH")
        return text.replace("$value", "?value")

    def select_branch(
        self, shape: object, text: str, tgt: Callable[[str], str], path: str | None, base: Branch
    ) -> None:
        """A SELECT (a ``sh:sparql`` constraint or a component's SELECT validator)."""
        text = self.prebound(shape, text, path)
        m = re.match(
            r"\s*SELECT\s+(DISTINCT\s+|REDUCED\s+)?([^{]*?)\s*WHERE\s*\{",
            _body_start(text),
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
        where = _body_start(text)
        self.bodies.append(where[where.index("{") + 1 : where.rindex("}")].replace("$", "?"))
        if _join_safe(text):
            query = _with_graph(text.replace("$this", "?this"))
            pattern = f"{{ GRAPH ?g {{ {t} }} }} {{ {query} }}{value_bind}"
            self.add(base, pattern, False)
            return
        filters = _exists_filters(text)
        if filters is not None and not star and "?value" not in projection:
            # the focus nodes' group filtered: EXISTS sees ?this bound, as pre-binding does
            body = filters.replace("$this", "?this")
            self.add(base, f"GRAPH ?g {{ {{ {t} }} {body} }}{value_bind}", False)
            return
        i = self.add(base, "", False)
        self.patterns[i] = (f"GRAPH ?g {{ {t} }}", True)
        self.per_focus.append((i, value_bind, text))


def _body_start(text: str) -> str:
    """The query from ``SELECT`` on (PREFIX/BASE lines before it dropped)."""
    m = re.search(r"\bSELECT\b", text, re.IGNORECASE)
    return text[m.start() :] if m else text


def _exists_filters(text: str) -> str | None:
    """The WHERE body when it is nothing but ``FILTER [NOT] EXISTS { ... }`` clauses that
    name ``$this`` (and no sub-SELECT, nothing after the body), else None.

    Such a query filters the focus node alone: in the group that binds ``?this`` the
    filters see it bound (SPARQL's EXISTS substitutes the solution's bindings), which is
    what pre-binding ``$this`` gives, so one query answers every focus node instead of
    one query each (re-execution records: five queries per document).
    """
    plain = _COMMENT.sub(" ", _STRINGS.sub('""', _body_start(text)))
    start, end = plain.index("{"), plain.rindex("}")
    body = plain[start + 1 : end]
    if plain[end + 1 :].strip() or "$this" not in body:
        return None
    if re.search(r"\bSELECT\b", body, re.IGNORECASE):
        return None
    pos = 0
    clause = re.compile(r"\s*\.?\s*FILTER\s+(?:NOT\s+)?EXISTS\s*\{", re.IGNORECASE)
    while body[pos:].strip(" \t\r\n."):
        m = clause.match(body, pos)
        if m is None:
            return None
        depth, i = 1, m.end()
        while depth and i < len(body):
            depth += {"{": 1, "}": -1}.get(body[i], 0)
            i += 1
        if depth:
            return None
        pos = i
    code = _body_start(text)  # as written: string literals kept
    return code[code.index("{") + 1 : code.rindex("}")] + "\n"


def _join_safe(text: str) -> bool:
    """True when joining the query's solutions with the focus nodes equals pre-binding:
    ``$this`` is a subject or object of a triple pattern in the outermost group, never
    inside an expression (parentheses: FILTER, BIND), and there is no sub-SELECT, so it is
    bound wherever it appears."""
    code = _COMMENT.sub(" ", _STRINGS.sub('""', _body_start(text)))
    body = code[code.index("{") + 1 : code.rindex("}")]
    if re.search(r"\bSELECT\b", body, re.IGNORECASE) or "$this" not in body:
        return False
    outer = False
    for m in re.finditer(r"\$this\b", body):
        before = body[: m.start()]
        if before.count("(") != before.count(")"):
            return False  # in an expression
        if before.count("{") == before.count("}"):
            outer = True
    return outer


def _with_graph(text: str) -> str:
    """``SELECT ... WHERE { B }`` as ``SELECT ?g ... WHERE { GRAPH ?g { B } }`` (a sub-query
    each document's graph answers on its own)."""
    text = _body_start(text)
    m = re.match(r"\s*SELECT\s+(DISTINCT\s+|REDUCED\s+)?", text, re.IGNORECASE)
    assert m is not None
    head = text[: m.end()]
    rest = text[m.end() :]
    if not rest.lstrip().startswith("*"):
        rest = "?g " + rest
    where = re.search(r"\bWHERE\s*\{", rest, re.IGNORECASE)
    assert where is not None
    close = rest.rindex("}")
    body = rest[where.end() : close]
    tail = re.sub(r"\bGROUP\s+BY\b", "GROUP BY ?g", rest[close + 1 :], flags=re.IGNORECASE)
    return f"{head}{rest[: where.end()]} GRAPH ?g {{ {body} }} }}{tail}"


@dataclass
class _Merged:
    """The constraints of one component family on one target's focus nodes, over IRI
    paths, answered by one query instead of one query each.

    Each query alone scans the focus nodes again and looks their values up again: on
    the project's kinds (13 to 40 value, min- and max-count constraints per target)
    that repeated work was most of validating a batch. ``values``: every per-value
    constraint (datatype, class, in, pattern, ranges, nested shapes) of every path in
    one pass over the focus nodes' triples, the failed branches named in ``?_b``;
    ``min``: ``sh:minCount 1`` of every path, one ``EXISTS`` each; ``max``: every
    ``sh:maxCount``, the distinct values counted per path by one ``GROUP BY``.
    """

    what: str
    target: str
    #: path (N-Triples IRI) -> [(branch index, expression or limit)]
    entries: dict[str, list[tuple[int, object]]] = field(default_factory=dict)

    def add(self, branch: int, path: str, arg: object) -> None:
        self.entries.setdefault(path, []).append((branch, arg))

    def _values_of(self, var: str) -> str:
        """``?this``'s values on the paths as ``var``, the path as ``?_p``."""
        paths = list(self.entries)
        if len(paths) == 1:
            return f"?this {paths[0]} {var} . BIND({paths[0]} AS ?_p)"
        return f"?this ?_p {var} . FILTER(?_p IN ({', '.join(paths)}))"

    def _by_path(self, each: Callable[[list[tuple[int, object]]], str], otherwise: str) -> str:
        """``each(entries)`` of the path ``?_p`` is on, ``otherwise`` for a path not here."""
        chain = otherwise
        for path, entries in reversed(self.entries.items()):
            chain = f"IF(sameTerm(?_p, {path}), {each(entries)}, {chain})"
        return chain

    def failed_branches(self) -> str:
        """``values``: the failed branches of the value ``?value`` on the path ``?_p``, as
        ``"i j "`` ("" when it passes every one, and for a path not here)."""
        return self._by_path(
            lambda entries: (
                "CONCAT("
                + ", ".join(f'IF(COALESCE({e}, false), "", "{i} ")' for i, e in entries)
                + ")"
            ),
            '""',
        )

    def fails(self) -> str:
        """``values``: true when the value ``?value`` on the path ``?_p`` fails one of the
        path's constraints (:meth:`failed_branches` not empty), as a boolean."""
        return self._by_path(
            lambda entries: "!(" + " && ".join(f"COALESCE({e}, false)" for _i, e in entries) + ")",
            "false",
        )

    def query(self) -> str:
        t = self.target
        if self.what == "values":
            return (
                f"SELECT DISTINCT ?g ?this ?value ?_b WHERE {{ GRAPH ?g {{ {t} "
                f"{self._values_of('?value')} BIND({self.failed_branches()} AS ?_b) "
                f'FILTER(?_b != "") }} }}'
            )
        if self.what == "min":
            missing = ", ".join(
                f'IF(EXISTS {{ ?this {path} ?_m{k} }}, "", "{" ".join(str(i) for i, _ in e)} ")'
                for k, (path, e) in enumerate(self.entries.items())
            )
            return (
                f"SELECT DISTINCT ?g ?this ?_b WHERE {{ GRAPH ?g {{ {t} "
                f'BIND(CONCAT({missing}) AS ?_b) FILTER(?_b != "") }} }}'
            )
        limits = {path: min(int(n) for _i, n in e) for path, e in self.entries.items()}  # type: ignore[call-overload]
        if len(set(limits.values())) == 1:
            limit = str(next(iter(limits.values())))
        else:
            limit = "0"
            for path, n in reversed(limits.items()):
                limit = f"IF(sameTerm(?_p, {path}), {n}, {limit})"
        return (
            f"SELECT ?g ?this ?_p (COUNT(DISTINCT ?_o) AS ?_n) WHERE {{ GRAPH ?g {{ {t} "
            f"{self._values_of('?_o')} }} }} GROUP BY ?g ?this ?_p "
            f"HAVING (COUNT(DISTINCT ?_o) > {limit})"
        )

    def failed(self, solution: object) -> list[tuple[int, object | None]]:
        """(branch index, value node or None) of each constraint ``solution`` fails."""
        if self.what == "max":
            n = int(solution["_n"].value)  # type: ignore[index]
            path = f"<{solution['_p'].value}>"  # type: ignore[index]
            return [(i, None) for i, limit in self.entries[path] if n > int(limit)]  # type: ignore[call-overload]
        ids = solution["_b"].value.split()  # type: ignore[index]
        value = solution["value"] if self.what == "values" else None  # type: ignore[index]
        return [(int(i), value) for i in ids]


@dataclass
class _Screen:
    """The merged queries of one target (values, min and max), run only when one pass
    over the focus nodes' values says some focus node may fail one of them.

    Valid documents are the usual case, and for them the three merged queries each
    scanned the focus nodes' values again to find nothing (measured: 0.22 s of a batch
    of 256 re-execution records for one target; the screen takes ~0.1 s). The screen
    over-approximates, never misses: a focus node is flagged when some value fails a
    ``values`` constraint (the same expressions, as one boolean per value: cheaper than
    the merged query's string of failed branches), when fewer distinct paths of the
    ``sh:minCount 1`` ones have values than there are such paths, or when some
    ``sh:maxCount`` path has two values (every limit is at least 1, so a path over its
    limit has two). When flagged, the merged queries run as they are and alone decide
    the results: the same results with or without the screen.
    """

    members: list[tuple[_Merged, str]]

    def query(self) -> str:
        """One row per flagged focus node, ``?_f<i>`` true when member ``i`` may find
        something there (an error counts as true)."""
        t = self.members[0][0].target
        paths = list(dict.fromkeys(p for m, _q in self.members for p in m.entries))
        binds, flags = [], []

        def bound(k: str, these: list[str]) -> str:
            """``?_p`` for the rows on the paths ``these`` (``?_p`` itself for all)."""
            if set(these) == set(paths):
                return "?_p"
            binds.append(f"BIND(IF(?_p IN ({', '.join(these)}), ?_p, ?_su) AS ?_s{k})")
            return f"?_s{k}"

        for k, (m, _q) in enumerate(self.members):
            if m.what == "values":  # a row whose value fails one of its path's constraints
                binds.append(f"BIND(IF(COALESCE({m.fails()}, true), 1, ?_su) AS ?_s{k})")
                flags.append(f"COUNT(?_s{k}) > 0")
            elif m.what == "min":
                flags.append(f"COUNT(DISTINCT {bound(str(k), list(m.entries))}) < {len(m.entries)}")
            else:  # at most one value: two rows of one path; more: that path's rows
                limits = {p: min(int(n) for _i, n in e) for p, e in m.entries.items()}  # type: ignore[call-overload]
                ones = [p for p, n in limits.items() if n == 1]
                over = []
                if ones:
                    v = bound(str(k), ones)
                    over.append(f"COUNT({v}) > COUNT(DISTINCT {v})")
                for j, (p, n) in enumerate((p, n) for p, n in limits.items() if n != 1):
                    binds.append(f"BIND(IF(sameTerm(?_p, {p}), ?value, ?_su) AS ?_s{k}_{j})")
                    over.append(f"COUNT(?_s{k}_{j}) > {n}")
                flags.append(f"({' || '.join(over)})")
        flags = [f"COALESCE({f}, true)" for f in flags]
        return (
            f"SELECT ?g ?this {' '.join(f'({f} AS ?_f{k})' for k, f in enumerate(flags))} "
            f"WHERE {{ GRAPH ?g {{ {t} OPTIONAL {{ ?this ?_p ?value . "
            f"FILTER(?_p IN ({', '.join(paths)})) {' '.join(binds)} }} }} }} "
            f"GROUP BY ?g ?this HAVING({' || '.join(flags)})"
        )

    def flagged(self, solutions: object) -> list[tuple[_Merged, str]]:
        """The members some solution of the screen flagged (all of them when unsure)."""
        hit: set[int] = set()
        for sol in solutions:  # type: ignore[attr-defined]
            for k in range(len(self.members)):
                f = _get(sol, f"_f{k}")
                if f is None or getattr(f, "value", None) != "false":
                    hit.add(k)
        return [m for k, m in enumerate(self.members) if k in hit]

    @staticmethod
    def applies(members: list[_Merged]) -> bool:
        """Two or more merged queries on the target, and no ``sh:maxCount 0``."""
        return len(members) > 1 and all(
            int(n) >= 1  # type: ignore[call-overload]
            for m in members
            if m.what == "max"
            for e in m.entries.values()
            for _i, n in e
        )


@dataclass
class Compiled:
    """A shapes graph's constraints: one query per branch (and the UNION of them, for
    reading). Measured on 256 run headers: 120 branches as separate queries took 0.12 s,
    as one UNION query 0.5 s; the separate queries are what ``evaluate`` runs."""

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
    plan: list[tuple[int | _Merged | _Screen, str]] = field(default_factory=list)


def compile_shapes(shapes: Graph, closure: bool = True) -> Compiled:
    """Compile every shape with targets (and the shapes they reach) in ``shapes``.

    ``closure``: class membership through ``rdfs:subClassOf*`` in the data (SHACL's
    definition); without it, plain ``rdf:type`` (the project's documents carry their
    entailed types, materialised at load, and no subclass triples). Raises
    :class:`ShapesError` for a shapes graph that cannot be used.
    """
    c = _Compiler(shapes, closure)
    roots: set[object] = set()
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
    plan: list[tuple[int | _Merged | _Screen, str]] = [
        (i, q) for i, q in enumerate(queries) if i not in c.in_merged
    ]
    by_target: dict[str, list[_Merged]] = {}
    for m in c.merged.values():
        by_target.setdefault(m.target, []).append(m)
    for members in by_target.values():
        if _Screen.applies(members):
            screen = _Screen([(m, head + m.query()) for m in members])
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


def _components(shapes: Graph) -> list[tuple[object, list[tuple[object, bool]], dict]]:
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
            validators: dict[str, tuple[str, object]] = {}
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
                out.append((component, params, validators))
    return out


@cache
def _compiled_kind(kind: str, closure: bool) -> Compiled:
    from reprokg.validation.shapes import shapes_graph

    return compile_shapes(shapes_graph(kind), closure)


def compile_kind(kind: str) -> Compiled:
    """The kind's shapes compiled (plain ``rdf:type``: its documents carry their types)."""
    return _compiled_kind(kind, False)


# --------------------------------------------------------------------------- evaluation


def _ox(term: object) -> ox.NamedNode | ox.BlankNode | ox.Literal:
    if isinstance(term, URIRef):
        return ox.NamedNode(str(term))
    if isinstance(term, BNode):
        return ox.BlankNode(str(term))
    assert isinstance(term, Literal)
    return encode_literal(term)


_RDF_TYPE = str(RDF.type)
_RDF_LANG_STRING = str(RDF.langString)
#: a string as an N-Triples quoted literal (C; its escapes are N-Triples ones)
_quote = json.encoder.encode_basestring
#: in ``_query_iris``' answer: some pattern reads rdf:type with a non-constant class
OPEN_TYPES = "urn:reprokg:shacl-fast:any-class"


_TOKENS = re.compile(
    r"""(?P<iri><[^<>"{}|^`\\\s]*>)
    |(?P<str>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
    |(?P<var>[?$][A-Za-z0-9_]+)
    |(?P<pname>(?:[A-Za-z][\w.-]*)?:(?:[\w%-](?:[\w.%-]*[\w%-])?)?)
    |(?P<word>[A-Za-z_][\w-]*)
    |(?P<num>\d[\d.]*(?:[eE][+-]?\d+)?)
    |(?P<punct>\^\^|&&|\|\||!=|<=|>=|[{}()\[\].;,|/^*+?!=<>@-])
    |(?P<ws>\s+|\#[^\n]*)""",
    re.VERBOSE,
)
#: words after which a group's next term starts a new triple pattern
_GROUP_WORDS = {"OPTIONAL", "UNION", "MINUS", "GRAPH", "WHERE", "SERVICE", "SILENT"}
_PATH_PUNCT = {"^", "/", "|", "(", ")", "*", "+", "?"}


def _tokens(query: str) -> list[tuple[str, str]] | None:
    query = _STRINGS.sub('""', query)  # long strings included
    out = []
    pos = 0
    while pos < len(query):
        m = _TOKENS.match(query, pos)
        if m is None:
            return None
        pos = m.end()
        if m.lastgroup != "ws":
            out.append((str(m.lastgroup), m.group()))
    return out


def _query_iris(query: str) -> set[str] | None:
    """Every IRI a query mentions, or None when a triple pattern's predicate is not a
    fixed IRI (a variable or a negated property set: any predicate may match). The set
    holds :data:`OPEN_TYPES` when an ``rdf:type`` pattern's class is not a fixed IRI
    (or rdf:type is part of a longer path): then any class may match.

    Read by a tokenizer that follows triple patterns (subject, predicate path, objects),
    not a SPARQL parser: rdflib's parse took 2-9 s per kind at the first validation of
    every process. Whatever it does not follow answers None (every triple is loaded).
    """
    tokens = _tokens(query)
    if tokens is None:
        return None
    prefixes: dict[str, str] = {}
    i = 0
    while i + 2 < len(tokens) and tokens[i][1].upper() == "PREFIX":
        name, (kind, iri) = tokens[i + 1][1], tokens[i + 2]
        if not name.endswith(":") or kind != "iri":
            return None
        prefixes[name[:-1]] = iri[1:-1]
        i += 3
    found: set[str] = set()
    # contexts: "G" a group (triple patterns), "E" parentheses of an expression,
    # "B" a blank-node property list [ ... ]; the query starts in an expression context
    stack = ["E"]
    state = "S"  # in G or B: expecting S(ubject), P(redicate path), O(bject), F(ilter expr)
    typed = False  # the current predicate is rdf:type (its object must be a fixed class)
    path_start = -1  # the token where the current predicate path starts
    for n in range(i, len(tokens)):
        kind, text = tokens[n]
        iri: str | None = None
        if kind == "iri":
            iri = text[1:-1]
        elif kind == "pname":
            pfx, _, local = text.partition(":")
            if pfx not in prefixes:
                return None
            iri = prefixes[pfx] + local
        if iri is not None:
            found.add(iri)
        upper = text.upper() if kind == "word" else ""
        if text == "{":
            stack.append("G")
            state = "S"
            continue
        if text == "}":
            if stack.pop() != "G" or not stack:
                return None
            state = "S"
            continue
        if stack[-1] == "E":
            if text == "(":
                stack.append("E")
            elif text == ")":
                stack.pop()
                if not stack:
                    return None
                state = "S" if stack[-1] == "G" else state
            continue
        if state == "F":  # after FILTER / BIND: words (NOT EXISTS, a function), then ( or {
            if text == "(":
                stack.append("E")
            elif kind != "word":
                return None
            continue
        if state == "S":
            if upper in ("FILTER", "BIND"):
                state = "F"
            elif upper in ("VALUES", "SELECT") or text == "(":
                return None  # a data block, a sub-query, a collection: not followed
            elif text == "[":
                stack.append("B")
                state, path_start = "P", n + 1
            elif upper not in _GROUP_WORDS and text != ".":
                state, path_start = "P", n + 1
            continue
        if state == "P":
            element = n == 0 or tokens[n - 1][1] in ("/", "|", "^", "(", ";") or path_start == n
            if element and (kind == "var" or text == "!"):
                return None
            if element and (text == "a" or iri == _RDF_TYPE):
                typed = True
                found.add(_RDF_TYPE)
                before = tokens[n - 1][1]
                after = tokens[n + 1][1] if n + 1 < len(tokens) else ""
                if before in _PATH_PUNCT or after in _PATH_PUNCT:
                    found.add(OPEN_TYPES)  # rdf:type inside a longer path
                continue
            if element and iri is not None:
                typed = False
                continue
            if text in _PATH_PUNCT and (element or text not in ("^", "(")):
                continue
            state = "O"  # this token is the object
        if text == ",":
            continue
        if text == ";":
            state, typed, path_start = "P", False, n + 1
        elif text == ".":
            state, typed = "S", False
        elif text == "]":
            if stack.pop() != "B":
                return None
            state = "O"
        elif text == "[":
            if typed:
                found.add(OPEN_TYPES)
            stack.append("B")
            state, path_start = "P", n + 1
        elif text == "(":
            return None  # a collection as object
        elif typed and kind == "var":
            found.add(OPEN_TYPES)
    return found if stack == ["E"] else None


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

    def __init__(self, keep: frozenset[str] | None, strict: bool = False) -> None:
        self.keep = keep
        #: a refused predicate is an error (a user's data), not a triple left out
        self.strict = strict
        self.predicates: dict[object, str | None] = {}
        self.types: dict[object, list[str] | None] = {}
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
    :func:`_canonical` decides per literal)."""
    d = _nt(URIRef(str(dt))) or ""
    iri = d[1:-1]
    if not d or iri == _XSD_STRING:
        how: object = _AS_STRING
    elif iri == _RDF_LANG_STRING:
        how = _AS_ENCODED
    elif iri in _CANONICAL_FORMS:
        how = _CANONICAL_FORMS[iri]
    else:
        how = _AS_LOSSLESS if iri.startswith(_XSD) else _AS_KEPT
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
    dt = term.datatype
    if term.language:
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
            if term.ill_typed:
                return f"{_quote(term)}^^<{_ILL_TYPED}{d[1:]}"
            if how is _AS_KEPT or (how is not _AS_LOSSLESS and how.fullmatch(term)):  # type: ignore[attr-defined]
                return f"{_quote(term)}^^{d}"
            return f"{_quote(term)}^^<{_LOSSLESS}{d[1:]}"
    try:  # rare: pyoxigraph's own reading of the tag
        return str(encode_literal(term))
    except (ValueError, UnicodeEncodeError):
        return None


_MARK = ox.NamedNode(_GRAPH_MARK[1:-1])


def _quads(graphs: list[Graph], names: list[str], entail: bool = True) -> list[ox.Quad]:
    """Every triple as a ``pyoxigraph.Quad`` (blank node labels kept) with the entailed
    superclass types (``entail``): for graphs with blank nodes."""
    from reprokg.validation.shapes import superclasses

    sup = superclasses() if entail else {}
    type_term = URIRef(_RDF_TYPE)
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
            quads.append(ox.Quad(xs, xp, xo, gn))  # type: ignore[arg-type]
            if p == type_term:
                for c in sup.get(o, ()):  # type: ignore[call-overload]
                    quads.append(ox.Quad(xs, xp, _ox(c), gn))  # type: ignore[arg-type]
    return quads


@cache
def _converter(kind: str) -> _Converter:
    return _Converter(relevant_predicates(kind))


def _nquads(graphs: list[Graph], names: list[str], kind: str | None = None) -> str:
    """The graphs as N-Quads text (graph ``names[i]``, N-Triples IRIs) with the entailed
    superclass types (as ``materialise_types``) and the graph mark ``sh:targetNode`` needs.

    One pass, no rdflib copy: copying each graph to add the types took twice as long as
    evaluating every constraint. Text, not ``pyoxigraph.Quad`` objects: building a
    Quad (four terms copied into Rust) cost more than pyoxigraph parsing the same quad
    back (measured on 256 run headers: 92 ms for the Quads + 40 ms ``bulk_extend``
    against ~20 ms of text + 43 ms ``load``). With ``kind``, only the triples its
    queries can match are written (:func:`relevant_predicates`).
    """
    conv = _converter(kind) if kind is not None else _Converter(None, strict=True)
    refused = _refused_quietly if kind is not None else _refused_loudly
    preds, types = conv.predicates, conv.types
    memo: dict[object, str] = {}
    rdf_type = conv.rdf_type
    lines: list[str] = []
    append = lines.append
    for name, g in zip(names, graphs, strict=True):
        end = f" {name} .\n"
        append(f"{_GRAPH_MARK} {_GRAPH_MARK} {_GRAPH_MARK}{end}")
        for s, p, o in graph_triples(g):
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
                oc = types.get(o, False)
                if oc is False:
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
Found = tuple[Branch, object, object | None, object | None]


def _load(store: ox.Store, graphs: list[Graph], names: list[str], kind: str | None) -> None:
    try:
        text = _nquads(graphs, names, kind)
        # lenient: every term was written by pyoxigraph itself (checked when made)
        store.load(text, format=ox.RdfFormat.N_QUADS, lenient=True)
    except _BlankNodeFound:
        store.bulk_extend(_quads(graphs, names, entail=kind is not None))


def evaluate_compiled(
    compiled: Compiled, graphs: list[Graph], kind: str | None = None
) -> list[list[Found]]:
    """Per data graph, the failures of every compiled constraint.

    With ``kind`` the graphs are the project's documents: their entailed superclass
    types are added and only triples the kind's queries can match are loaded.
    """
    names = [f"<urn:reprokg:shacl-fast:{i}>" for i in range(len(graphs))]
    store = ox.Store()
    _load(store, graphs, names, kind)
    if compiled.shapes is not None:
        gn = ox.NamedNode(SHAPES_GRAPH)
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
    plan: list[tuple[int | _Merged, str]] = []
    for step, query in compiled.plan:
        if isinstance(step, _Screen):
            # a focus node may fail: the merged queries flagged decide, as without a screen
            plan += step.flagged(store.query(query))
            continue
        plan.append((step, query))
    for step, query in plan:
        solutions = store.query(query)  # type: ignore[union-attr]
        if isinstance(step, _Merged):
            for sol in solutions:  # type: ignore[union-attr]
                g, this = sol["g"], sol["this"]
                if g is None or this is None or g.value not in index:
                    continue
                doc = index[g.value]
                for i, value in step.failed(sol):
                    out[doc].append((i, (branches[i], this, value, None)))
            continue
        i = step
        branch = branches[i]
        for sol in solutions:  # type: ignore[union-attr]
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
    store: ox.Store, head: str, bind: str, text: str, graph: object, focus: object
) -> list[tuple[object | None, object | None]]:
    """A SPARQL constraint's query with ``$this`` replaced by the focus node (SHACL's
    pre-binding), in the focus node's graph: (value, path) of each solution."""
    if isinstance(focus, ox.BlankNode):
        raise Unsupported("pre-binding $this to a blank node in a nested SPARQL query")
    term = str(focus)
    code = _BOUND.sub("(true)", text)
    code = _body_start(code)
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
    for sol in store.query(query):  # type: ignore[union-attr]
        value = _get(sol, "value")
        found.append((value if value is not None else (focus if bind else None), _get(sol, "path")))
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


#: ``bound($this)`` and the like: true under pre-binding (and not SPARQL once substituted)
_BOUND = re.compile(r"(?i:\bbound)\s*\(\s*\$(?:this|currentShape|shapesGraph)\s*\)")


def _get(solution: object, name: str) -> object | None:
    try:
        return solution[name]  # type: ignore[index]
    except (KeyError, IndexError):
        return None


def evaluate(kind: str, graphs: list[Graph]) -> list[list[tuple[Branch, str, str | None]]]:
    """Per document graph of ``kind``: (branch, focus node, value) of each failure, as text."""
    found = evaluate_compiled(compile_kind(kind), graphs, kind)
    return [
        [
            (b, focus.value, value.value if value is not None else None)
            for b, focus, value, _p in doc
        ]  # type: ignore[attr-defined]
        for doc in found
    ]
