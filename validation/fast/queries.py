"""The SPARQL text the compiler writes and reads: SHACL-SPARQL checks, the
rewrites of a ``sh:select`` query, the merged queries and screens of a target, and the
tokenizer that finds the IRIs a query can match."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import pyoxigraph as ox

from reprokg.core.errors import ShapesError
from reprokg.validation.fast.terms import (
    RDF_TYPE,
    OxTerm,
)

#: SPARQL the SHACL-SPARQL rules forbid in a constraint's query (SHACL 5.2.1)
_FORBIDDEN = re.compile(r"\b(MINUS|SERVICE|VALUES)\b", re.IGNORECASE)
STRINGS = re.compile(
    r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\''
)
COMMENT = re.compile(r"#[^\n]*")
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


def check_sparql(text: str, where: str, prefixes: dict[str, str] | None = None) -> None:
    """Refuse what SHACL-SPARQL forbids with pre-bound variables (SHACL 5.2.1), a dataset
    of its own (``FROM``: a constraint reads its focus node's graph), and text the engine
    does not parse as one query (a syntax error, an update, ``; LOAD``) or that names a
    prefix no ``sh:prefixes`` declares: a 422 naming the shape, not a 500 at evaluation."""
    code = COMMENT.sub(" ", STRINGS.sub('""', text))
    m = _FORBIDDEN.search(code)
    if m:
        raise ShapesError(f"{where}: {m.group(1).upper()} is not allowed in a SHACL-SPARQL query")
    bare = COMMENT.sub(" ", _IRI.sub("<>", STRINGS.sub('""', _code_points(text))))
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


def body_start(text: str) -> str:
    """The query from ``SELECT`` on (PREFIX/BASE lines before it dropped)."""
    m = re.search(r"\bSELECT\b", text, re.IGNORECASE)
    return text[m.start() :] if m else text


def exists_filters(text: str) -> str | None:
    """The WHERE body when it is nothing but ``FILTER [NOT] EXISTS { ... }`` clauses that
    name ``$this`` (and no sub-SELECT, nothing after the body), else None.

    Such a query filters the focus node alone: in the group that binds ``?this`` the
    filters see it bound (SPARQL's EXISTS substitutes the solution's bindings), which is
    what pre-binding ``$this`` gives, so one query answers every focus node instead of
    one query each (re-execution records: five queries per document).
    """
    plain = COMMENT.sub(" ", STRINGS.sub('""', body_start(text)))
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
    code = body_start(text)  # as written: string literals kept
    return code[code.index("{") + 1 : code.rindex("}")] + "\n"


def join_safe(text: str) -> bool:
    """True when joining the query's solutions with the focus nodes equals pre-binding:
    ``$this`` is a subject or object of a triple pattern in the outermost group, never
    inside an expression (parentheses: FILTER, BIND), and there is no sub-SELECT, so it is
    bound wherever it appears."""
    code = COMMENT.sub(" ", STRINGS.sub('""', body_start(text)))
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


def with_graph(text: str) -> str:
    """``SELECT ... WHERE { B }`` as ``SELECT ?g ... WHERE { GRAPH ?g { B } }`` (a sub-query
    each document's graph answers on its own)."""
    text = body_start(text)
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
class Merged:
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
        # a maxCount's argument is an int
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

    def failed(self, solution: ox.QuerySolution) -> list[tuple[int, OxTerm | None]]:
        """(branch index, value node or None) of each constraint ``solution`` fails."""
        if self.what == "max":
            n = int(solution["_n"].value)
            path = f"<{solution['_p'].value}>"
            # a maxCount's argument is an int
            return [(i, None) for i, limit in self.entries[path] if n > int(limit)]  # type: ignore[call-overload]
        ids = solution["_b"].value.split()
        value = solution["value"] if self.what == "values" else None
        return [(int(i), value) for i in ids]


@dataclass
class Screen:
    """The merged queries of one target (values, min and max), run only when one pass
    over the focus nodes' values says some focus node may fail one of them.

    Valid documents are the usual case, and for them the three merged queries each
    scanned the focus nodes' values again to find nothing (the screen takes half that
    time: benchmarks/README.md#figures-once-quoted-in-code). The screen
    over-approximates, never misses: a focus node is flagged when some value fails a
    ``values`` constraint (the same expressions, as one boolean per value: cheaper than
    the merged query's string of failed branches), when fewer distinct paths of the
    ``sh:minCount 1`` ones have values than there are such paths, or when some
    ``sh:maxCount`` path has two values (every limit is at least 1, so a path over its
    limit has two). When flagged, the merged queries run as they are and alone decide
    the results: the same results with or without the screen.
    """

    members: list[tuple[Merged, str]]

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
                # a maxCount's argument is an int
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

    def flagged(self, solutions: object) -> list[tuple[Merged, str]]:
        """The members some solution of the screen flagged (all of them when unsure)."""
        hit: set[int] = set()
        names = [f"_f{k}" for k in range(len(self.members))]
        for sol in solutions:  # type: ignore[attr-defined]  # the screen's QuerySolutions
            for k, name in enumerate(names):
                if k in hit:
                    continue
                f = solution_get(sol, name)
                if f is None or getattr(f, "value", None) != "false":
                    hit.add(k)
            if len(hit) == len(names):  # every member runs: the other rows cannot add one
                break
        return [m for k, m in enumerate(self.members) if k in hit]

    @staticmethod
    def applies(members: list[Merged]) -> bool:
        """Two or more merged queries on the target, and no ``sh:maxCount 0``."""
        return len(members) > 1 and all(
            int(n) >= 1  # type: ignore[call-overload]  # a maxCount's argument is an int
            for m in members
            if m.what == "max"
            for e in m.entries.values()
            for _i, n in e
        )


#: in ``query_iris``' answer: some pattern reads rdf:type with a non-constant class
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
    query = STRINGS.sub('""', query)  # long strings included
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


def query_iris(query: str) -> set[str] | None:
    """Every IRI a query mentions, or None when a triple pattern's predicate is not a
    fixed IRI (a variable or a negated property set: any predicate may match). The set
    holds :data:`OPEN_TYPES` when an ``rdf:type`` pattern's class is not a fixed IRI
    (or rdf:type is part of a longer path): then any class may match.

    Read by a tokenizer that follows triple patterns (subject, predicate path, objects),
    not a SPARQL parser: rdflib's parse took seconds per kind at the first validation of
    every process (benchmarks/README.md#figures-once-quoted-in-code). Whatever it does not follow
    answers None (every triple is loaded).
    """
    tokens = _tokens(query)
    if tokens is None:
        return None
    prefixes: dict[str, str] = {}
    i = 0
    while i + 2 < len(tokens) and tokens[i][1].upper() == "PREFIX":
        name, (kind, declared) = tokens[i + 1][1], tokens[i + 2]
        if not name.endswith(":") or kind != "iri":
            return None
        prefixes[name[:-1]] = declared[1:-1]
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
            if element and (text == "a" or iri == RDF_TYPE):
                typed = True
                found.add(RDF_TYPE)
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


#: ``bound($this)`` and the like: true under pre-binding (and not SPARQL once substituted)
BOUND_CALL = re.compile(r"(?i:\bbound)\s*\(\s*\$(?:this|currentShape|shapesGraph)\s*\)")


def solution_get(solution: ox.QuerySolution, name: str) -> OxTerm | None:
    try:
        return solution[name]
    except (KeyError, IndexError):
        return None
