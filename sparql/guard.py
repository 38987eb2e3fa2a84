"""Inspect SPARQL text before it reaches an engine: refuse SERVICE and LOAD of arbitrary URLs.

Two stages, because a parser is itself an attack surface:

* :func:`prescan`, in the server process: one linear pass that refuses what kills or
  stalls the parsers before any parser sees the text, with a located 400: groups nested
  deeper than ``max_depth`` (3,000 nested ``{`` killed a query worker) and flat chains
  longer than ``max_chain`` (10,000 ``+``, 20,000 path steps, 3,000 ``BIND`` or
  ``MINUS``: SIGSEGV in the engine, which recurses once per term).
* :func:`inspect_query` / :func:`inspect_update`, **inside a query worker** (its time
  and memory limits; :mod:`reprokg.sparql.runner`): the SERVICE/LOAD/FROM check walks
  the parse tree of rdflib's SPARQL 1.1 parser, so comments, strings, lower-case
  keywords, ``SERVICE SILENT``, variable service IRIs and ``\\u`` code-point escapes
  cannot hide a federated call. pyparsing is slow on long texts (minutes for a long query
  with a ``# from`` comment, benchmarks/README.md#figures-once-quoted-in-code), which is why it
  never runs in the server: there it held a thread and the GIL past the query timeout. The parse is
  skipped only when it provably cannot matter: when the text (after no escape could rewrite it) does
  not contain the letters ``service``/``load``/``from``/``using``/``with`` at all, a
  keyword of that name cannot be in it. Parse trees are cached by text.

The module also injects protocol-level ``using-graph-uri``/``using-named-graph-uri``
into an update (as ``USING`` clauses before each top-level ``WHERE``), because the
store interface and pyoxigraph take no per-request update dataset.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pyparsing import ParseException, ParseResults
from rdflib.plugins.sparql.parser import parseQuery, parseUpdate
from rdflib.plugins.sparql.parserutils import CompValue

from reprokg.core.errors import QuerySyntaxError, Refused


@dataclass(frozen=True)
class Inspection:
    """What the endpoint needs to know about a request's SPARQL text."""

    operation: str  # "query" or "update"
    form: str | None  # SELECT/ASK/CONSTRUCT/DESCRIBE for queries when parsed, else None
    has_dataset: bool  # FROM/FROM NAMED (query) or USING/WITH (update) present
    parsed: bool  # whether the rdflib parse tree was consulted


_QUERY_FORMS = {
    "SelectQuery": "SELECT",
    "AskQuery": "ASK",
    "ConstructQuery": "CONSTRUCT",
    "DescribeQuery": "DESCRIBE",
}


def _may_hide_keyword(text: str, words: Iterable[str]) -> bool:
    """True unless the text provably holds none of ``words`` as a keyword."""
    if "\\u" in text or "\\U" in text:  # code-point escapes are expanded before parsing
        return True
    low = text.lower()
    return any(w in low for w in words)


#: Longest text handed to rdflib's parser (pyparsing needs seconds for megabytes; a
#: longer text that needs the parse tree is refused instead of tying up a thread).
MAX_PARSE_CHARS = 200_000


def _check_length(text: str) -> None:
    if len(text) > MAX_PARSE_CHARS:
        raise Refused(
            f"the text is {len(text)} characters long; at most {MAX_PARSE_CHARS} can be checked "
            "for SERVICE/LOAD/FROM before running"
        )


@lru_cache(maxsize=512)
def _parse_query(text: str) -> Any:
    _check_length(text)
    try:
        return parseQuery(text)
    except ParseException as exc:
        raise QuerySyntaxError(
            f"query syntax error at line {exc.lineno}, column {exc.col}: {exc.msg}"
        ) from None
    except Exception as exc:  # noqa: BLE001 - rdflib raises assorted errors on odd input
        raise QuerySyntaxError(f"query could not be parsed: {exc}") from None


@lru_cache(maxsize=128)
def _parse_update(text: str) -> Any:
    _check_length(text)
    try:
        return parseUpdate(text)
    except ParseException as exc:
        raise QuerySyntaxError(
            f"update syntax error at line {exc.lineno}, column {exc.col}: {exc.msg}"
        ) from None
    except Exception as exc:  # noqa: BLE001 - likewise
        raise QuerySyntaxError(f"update could not be parsed: {exc}") from None


def _walk(node: Any) -> Iterable[CompValue]:
    """Every CompValue below ``node`` (depth first, iterative: trees can be deep)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, CompValue):
            yield n
            stack.extend(n.values())
        elif isinstance(n, ParseResults | list | tuple):
            stack.extend(n)
        elif isinstance(n, dict):
            stack.extend(n.values())


def _refuse_service(tree: Any) -> None:
    for node in _walk(tree):
        if node.name == "ServiceGraphPattern":
            raise Refused(
                "SERVICE (federated query) is not allowed on this endpoint: "
                f"found SERVICE {dict.get(node, 'term', '')}"
            )


def check_nesting(text: str, max_depth: int | None = None) -> None:
    """Refuse a text whose groups and brackets nest deeper than ``max_depth`` (default: the
    input limit ``max_depth``) before any parser sees it: the engines' parsers recurse per
    level (3,000 nested ``{`` killed a query worker, and pyparsing's stack is Python's)."""
    if max_depth is None:
        from reprokg.core.settings import settings

        max_depth = settings().max_depth
    if text.count("{") + text.count("(") + text.count("[") <= max_depth:
        return
    code = _code_only(text)
    depth = 0
    for m in _BRACKET.finditer(code):
        if m.group() in "{([":
            depth += 1
            if depth > max_depth:
                line, column = _located(code, m.start())
                raise Refused(
                    f"nesting deeper than {max_depth} at line {line}, column {column}",
                    details={
                        "limit": "depth",
                        "limit_value": max_depth,
                        "line": line,
                        "column": column,
                    },
                )
        else:
            depth = max(0, depth - 1)


_BRACKET = re.compile(r"[{}()\[\]]")

#: one chained term: an operator, a path step, a triple or group separator, or a keyword
#: that joins graph patterns (each one more level of recursion in the engine)
_CHAIN = re.compile(
    r"\|\||&&|!=|<=|>=|[=<>+\-*/|^!.;{]"
    r"|\b(?:MINUS|UNION|OPTIONAL|BIND|FILTER|GRAPH|SERVICE|VALUES|EXISTS)\b",
    re.IGNORECASE,
)


def _located(code: str, pos: int) -> tuple[int, int]:
    line = code.count("\n", 0, pos) + 1
    return line, pos - (code.rfind("\n", 0, pos) + 1) + 1


def check_chain(text: str, max_chain: int | None = None) -> None:
    """Refuse a text with more than ``max_chain`` chained terms (operators, path steps,
    triple and group separators, ``MINUS``/``UNION``/``OPTIONAL``/``BIND``/``FILTER``…),
    located at the first term past the limit. Flat chains do not nest, so
    :func:`check_nesting` lets them through, yet the engine recurses once per term."""
    if max_chain is None:
        from reprokg.core.settings import settings

        max_chain = settings().max_chain
    if len(text) <= max_chain:  # a term is at least one character
        return
    code = _code_only(text)
    for n, m in enumerate(_CHAIN.finditer(code), 1):
        if n > max_chain:
            line, column = _located(code, m.start())
            raise Refused(
                f"more than {max_chain} chained terms (operators, path steps, patterns) "
                f"at line {line}, column {column}",
                details={
                    "limit": "max_chain",
                    "limit_value": max_chain,
                    "line": line,
                    "column": column,
                },
            )


def prescan(text: str, max_depth: int | None = None, max_chain: int | None = None) -> None:
    """The checks that run in the server before any parser: nesting and flat chains
    (linear in the text; a located :class:`Refused`, 400). The limits default to the
    process's settings."""
    check_nesting(text, max_depth)
    check_chain(text, max_chain)


def inspect_query(text: str) -> Inspection:
    """Check a query: refuse SERVICE; report form and whether it names its own dataset.

    Parses with rdflib when the text may hold SERVICE or FROM: call it in a worker
    process (:mod:`reprokg.sparql.runner` does), never in the server."""
    prescan(text)
    if not _may_hide_keyword(text, ("service", "from")):
        return Inspection("query", None, False, parsed=False)
    tree = _parse_query(text)
    _refuse_service(tree)
    body = tree[1]
    form = _QUERY_FORMS.get(getattr(body, "name", ""))
    # CompValue.get(k) returns k itself when missing: use the plain dict lookup.
    has_dataset = isinstance(body, CompValue) and bool(dict.get(body, "datasetClause"))
    return Inspection("query", form, has_dataset, parsed=True)


def inspect_update(text: str, *, load_allow: Sequence[str] = ()) -> Inspection:
    """Check an update: refuse SERVICE and LOAD of any IRI not in ``load_allow``.

    Always parsed (updates are rare and a syntax error must be a 400 before the store):
    call it in a worker process (the runner's :meth:`inspect_update` does).
    """
    prescan(text)
    tree = _parse_update(text)
    _refuse_service(tree)
    allowed = set(load_allow)
    has_dataset = False
    for node in _walk(tree):
        if node.name == "Load":
            iri = str(node["iri"])
            if iri not in allowed:
                raise Refused(f"LOAD <{iri}> is not allowed on this endpoint")
        elif node.name == "Modify" and ("using" in node or "withClause" in node):
            has_dataset = True
    return Inspection("update", None, has_dataset, parsed=True)


# --- USING injection -------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<comment>\#[^\n]*)
  | (?P<string>'''(?:[^'\\]|\\.|'(?!''))*'''|\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"
              |'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")
  | (?P<iri><[^<>"{}|^`\\\x00-\x20]*>)
  | (?P<open>\{)
  | (?P<close>\})
  | (?P<word>[^\s{}<>"'\#;]+)
  | (?P<other>\S)
    """,
    re.VERBOSE | re.DOTALL,
)


def add_using(text: str, using: Sequence[str], using_named: Sequence[str]) -> str:
    """Insert ``USING <g>``/``USING NAMED <g>`` before every top-level ``WHERE`` of ``text``.

    A top-level ``WHERE`` (brace depth 0) belongs to a DELETE/INSERT … WHERE operation;
    ``DELETE WHERE`` takes no USING and is left alone. The caller has already refused
    updates that carry their own USING/WITH (the protocol forbids mixing the two).
    """
    if not using and not using_named:
        return text
    clause = "".join(f"USING <{g}> " for g in using) + "".join(
        f"USING NAMED <{g}> " for g in using_named
    )
    out: list[str] = []
    pos = 0
    depth = 0
    prev_word = ""
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "comment":
            continue
        if kind == "open":
            depth += 1
        elif kind == "close":
            depth = max(0, depth - 1)
        elif kind == "word" and depth == 0:
            word = m.group().upper()
            if word == "WHERE" and prev_word != "DELETE":
                out.append(text[pos : m.start()])
                out.append(clause)
                pos = m.start()
            prev_word = word
            continue
        prev_word = ""
    out.append(text[pos:])
    return "".join(out)


# --- SELECT * column order ------------------------------------------------------------

_SELECT_STAR = re.compile(r"\bSELECT\s*(?:(?:DISTINCT|REDUCED)\s*)?\*", re.IGNORECASE)
_SELECT = re.compile(r"\bSELECT\b", re.IGNORECASE)
_VAR = re.compile(r"[?$]([A-Za-z0-9_\u00B7\u00C0-\uFFFF]+)")


#: the tokens :func:`_code_only` blanks (as in :data:`_TOKEN`: words never hold their
#: first characters, so scanning for these alone finds the same tokens, and faster)
_LITERAL_TOKEN = re.compile(
    r"""
    \#[^\n]*
  | '''(?:[^'\\]|\\.|'(?!''))*'''|\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"
  | '(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"
  | <[^<>"{}|^`\\\x00-\x20]*>
    """,
    re.VERBOSE | re.DOTALL,
)


def _code_only(text: str) -> str:
    """``text`` with comments, strings and IRIs blanked out (positions kept)."""
    out = []
    pos = 0
    for m in _LITERAL_TOKEN.finditer(text):
        out.append(text[pos : m.start()])
        out.append(" " * (m.end() - m.start()))
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def select_star_order(text: str) -> list[str] | None:
    """Variable names of a ``SELECT *`` query in order of first appearance, else ``None``.

    SPARQL leaves the column order of ``SELECT *`` open; engines differ (Oxigraph sorts
    by name). The W3C result-format tests and most users expect the order in which the
    variables appear in the query, so the endpoint reorders columns with this.
    """
    if "*" not in text or "select" not in text.lower():
        return None
    code = _code_only(text)
    first = _SELECT.search(code)
    if first is None:
        return None
    star = _SELECT_STAR.match(code, first.start())
    if star is None:
        return None
    seen: dict[str, None] = {}
    for m in _VAR.finditer(code, star.end()):
        seen.setdefault(m.group(1), None)
    return list(seen)
