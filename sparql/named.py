"""Named SPARQL queries: ``queries/*.rq`` with a comment header, parameters bound as RDF terms.

Header lines (comments before the query)::

    # title: Baselines on a test collection
    # description: Runs on the same test collection reporting the same measure, by score.
    # param: collection iri — the test collection
    # param: toolkit string optional — only runs using this retrieval toolkit
    # param: s iri many — the subjects (a list of values: ``VALUES ?s { t1 t2 … }``)
    # example: collection=https://w3id.org/reprokg/id/collection/robust04

Parameter values never enter the query text as text: each is parsed into an rdflib term
of its declared type (DOIs and ORCIDs normalised by :mod:`reprokg.core.identifiers`, an
ir_datasets id of type ``collection`` becomes the shared collection IRI minted from it), then
written with ``Term.n3()`` into a ``VALUES ?name { term }`` block placed at the start of
the query's outermost ``WHERE`` group, so the engine joins on it like a constant (or where
the template has lines ``#@values``, each replaced: e.g. inside a sub-select that must
rank the bound rows before the outer query fetches more about them, or at the start of
each branch of a ``UNION``, which pyoxigraph otherwise evaluates unbound before joining).
Lines of the template that end with ``#? name`` belong to optional parameter ``name``
and are dropped when it is not given (the template, not the value, is edited).
An integer parameter named ``limit`` replaces the template's last ``LIMIT n`` (1 to
:data:`MAX_LIMIT`); the ``n`` written in the template is the default. One named ``offset``
adds ``OFFSET m`` to it (paging). A LIMIT never cuts silently: :func:`run_paged`
answers the rows with a :class:`Page` saying which of how many they are (the units the
LIMIT counts, counted by :meth:`NamedQuery.count_sparql` when the page is full), and
``bind(values, whole=True)`` gives every row (``cap``: at most that many, the service's
row cap, which the page then reports as the cut).

A header line ``# bind: name function(param, param…)`` binds ``?name`` to a term computed
from the bound parameters by one of :data:`DERIVED` (e.g. the leaderboard node minted
from a collection and a measure), so the engine starts from a constant it could not
compute itself at the same cost (``BIND(IRI(…))`` is not pushed into the join by
pyoxigraph: benchmarks/README.md#figures-once-quoted-in-code). It is left out when a parameter it
needs is not given.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import NotRequired

from rdflib import BNode, Literal, URIRef
from rdflib.namespace import XSD
from rdflib.term import Identifier
from typing_extensions import TypedDict

from reprokg.core.errors import IdentifierError, NotFound, ReprokgError
from reprokg.core.identifiers import doi_iri, leaderboard_iri, mint, orcid_iri
from reprokg.core.resources import data_dir, iter_files
from reprokg.store.base import AskResult, GraphResult, QueryResult, SelectResult, Store

PARAM_TYPES = ("iri", "doi", "orcid", "collection", "string", "integer", "decimal")
#: a parameter named ``limit`` (type integer) replaces the query's last ``LIMIT n`` (the
#: default written in the template) instead of being bound with VALUES; at most this many
MAX_LIMIT = 1000
#: the largest ``offset`` (a page past the end is empty, not an error)
MAX_OFFSET = 10**9
_LIMIT_RE = re.compile(r"\bLIMIT\s+\d+", re.IGNORECASE)
_ORDER_RE = re.compile(r"\bORDER\s+BY\b", re.IGNORECASE)
_PREFIX_RE = re.compile(r"^\s*(PREFIX|BASE)\b", re.IGNORECASE)
_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_IRI_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|\\^`]*$")
_HEADER_RE = re.compile(r"^#\s*([A-Za-z_-]+)\s*:\s*(.*)$")
_OPTIONAL_LINE_RE = re.compile(r"#\?\s*([A-Za-z_][A-Za-z0-9_]*)\s*$")
_WHERE_RE = re.compile(r"\bWHERE\s*\{", re.IGNORECASE)
_VALUES_MARK_RE = re.compile(r"^[ \t]*#@values[ \t]*$", re.MULTILINE)


#: a bound parameter: one term, or the terms of a ``many`` parameter
Bound = Identifier | tuple[Identifier, ...]


class NamedQueryError(ReprokgError):
    """An unknown or missing parameter, a value not of the declared type, a bad header."""


class UnknownNamedQuery(NamedQueryError, NotFound):
    """No named query of that name."""


# The JSON shapes, written once: ``to_dict()`` returns these and the service declares them
# (``GET /queries``). ``typing_extensions``' TypedDict: pydantic reads no other on 3.11.


class ParamJSON(TypedDict):
    name: str
    type: str
    "iri, doi, orcid, collection, string, integer or decimal"
    optional: bool
    doc: str
    many: NotRequired[bool]
    "takes a list of values (the parameter repeated)"


class DerivedJSON(TypedDict):
    """``?name`` bound to ``function(*args)`` of the bound parameters (``# bind:``)."""

    name: str
    function: str
    args: list[str]


class NamedQueryJSON(TypedDict):
    """A named query: its parameters, examples and SPARQL template."""

    name: str
    title: str
    description: str
    params: list[ParamJSON]
    examples: list[dict[str, str]]
    "query strings that run it, as parameter -> value"
    derived: list[DerivedJSON]
    sparql: str


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    optional: bool = False
    doc: str = ""
    #: takes a list of values (one ``VALUES`` block of them)
    many: bool = False

    def to_dict(self) -> ParamJSON:
        out: ParamJSON = {
            "name": self.name,
            "type": self.type,
            "optional": self.optional,
            "doc": self.doc,
        }
        if self.many:
            out["many"] = True
        return out


def _leaderboard(collection: Identifier, measure: Identifier) -> Identifier:
    return leaderboard_iri(collection, str(measure))


#: functions a ``# bind:`` header may name: bound parameter terms -> one RDF term
DERIVED: dict[str, Callable[..., Identifier]] = {"leaderboard": _leaderboard}
_BIND_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s+([A-Za-z_]+)\(\s*([^)]*)\)\s*$")


@dataclass(frozen=True)
class Derived:
    """``?name`` bound to ``DERIVED[function](*args)`` (``# bind:`` header)."""

    name: str
    function: str
    args: tuple[str, ...]

    def to_dict(self) -> DerivedJSON:
        return {"name": self.name, "function": self.function, "args": list(self.args)}


@dataclass
class NamedQuery:
    name: str
    title: str
    description: str
    sparql: str
    params: list[Param] = field(default_factory=list)
    examples: list[dict[str, str]] = field(default_factory=list)
    derived: list[Derived] = field(default_factory=list)
    #: what a sub-select's LIMIT counts (header ``# unit: runs``), for the page's sentence
    unit: str = "rows"

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def example_query_string(self) -> str:
        from urllib.parse import urlencode

        return urlencode(self.examples[0]) if self.examples else ""

    def to_dict(self) -> NamedQueryJSON:
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "params": [p.to_dict() for p in self.params],
            "examples": self.examples,
            "derived": [d.to_dict() for d in self.derived],
            "sparql": self.sparql,
        }

    @functools.cached_property
    def _lines(self) -> list[tuple[str, str | None]]:
        """The template's lines with the optional parameter each belongs to (parsed once)."""
        out: list[tuple[str, str | None]] = []
        for line in self.sparql.splitlines():
            m = _OPTIONAL_LINE_RE.search(line)
            out.append((line, m.group(1) if m else None))
        return out

    def bind(
        self,
        values: Mapping[str, str | Sequence[str]],
        *,
        whole: bool = False,
        cap: int | None = None,
    ) -> str:
        """The query text with ``values`` bound as ``VALUES`` blocks of RDF terms.

        ``whole``: every row, the template's last ``LIMIT`` dropped (``limit`` and
        ``offset`` ignored), or set to ``cap`` when given (a service's row cap)."""
        text = self._bound(values)
        if whole:
            return _replace_limit(self.name, text, f"LIMIT {cap}" if cap else "")
        limit, offset = self.paging(values)
        if limit is not None or offset:
            n = limit if limit is not None else self.default_limit()
            if n is None:
                raise NamedQueryError(f"query {self.name!r} has a limit parameter but no LIMIT")
            text = _set_limit(self.name, text, n, offset)
        return text

    def _bound(self, values: Mapping[str, str | Sequence[str]]) -> str:
        """The text with ``values`` bound and the template's LIMIT as written."""
        terms, _limit = self.terms(values)
        text = "\n".join(
            line for line, optional in self._lines if optional is None or optional in terms
        ) + ("\n" if self.sparql.endswith("\n") else "")
        if not terms:
            return text
        block = values_block(terms)
        if _VALUES_MARK_RE.search(text):  # every marker: e.g. each branch of a UNION
            return _VALUES_MARK_RE.sub(lambda _m: block.lstrip("\n"), text)
        m = _WHERE_RE.search(_blank_comments(text))
        if not m:
            raise NamedQueryError(f"query {self.name!r} has no WHERE group to bind values in")
        return text[: m.end()] + block + text[m.end() :]

    def default_limit(self) -> int | None:
        """The ``n`` of the template's last ``LIMIT n`` (``None``: it has none)."""
        found = list(_LIMIT_RE.finditer(_blank_comments(self.sparql)))
        return int(found[-1].group(0).split()[-1]) if found else None

    def paging(self, values: Mapping[str, str | Sequence[str]]) -> tuple[int | None, int]:
        """The ``limit`` (``None``: not given) and ``offset`` (0: not given) asked for."""
        out: list[int | None] = []
        for name, low, high in (("limit", 1, MAX_LIMIT), ("offset", 0, MAX_OFFSET)):
            p, raw = self.param(name), values.get(name)
            if p is None or raw is None or raw == "":
                out.append(None)
                continue
            if not isinstance(raw, str):
                raise NamedQueryError(f"parameter {name!r} takes one value, not a list")
            n = int(to_term(p, raw))
            if not low <= n <= high:
                raise NamedQueryError(f"parameter {name!r}: {n} is not between {low} and {high}")
            out.append(n)
        return out[0], out[1] or 0

    def limit_is_nested(self) -> bool:
        """Whether the last LIMIT belongs to a sub-select (it then counts that sub-select's
        rows, e.g. find-baselines' runs, not the answer's rows)."""
        blanked = _blank_comments(self.sparql)
        found = list(_LIMIT_RE.finditer(blanked))
        return bool(found) and _enclosing_open(blanked, found[-1].start()) is not None

    def count_sparql(self, values: Mapping[str, str | Sequence[str]]) -> str:
        """``SELECT (COUNT(*) AS ?total)`` of the units the last LIMIT counts, without it:
        the answer's rows, or a sub-select's rows when the LIMIT is in one. Written from
        the bound text, so the count sees the same parameters as the page."""
        text = self._bound(values)
        blanked = _blank_comments(text)
        found = list(_LIMIT_RE.finditer(blanked))
        if not found:
            raise NamedQueryError(f"query {self.name!r} has no LIMIT to count past")
        m = found[-1]
        opening = _enclosing_open(blanked, m.start())
        start = 0 if opening is None else opening + 1
        # the ORDER BY just before the LIMIT orders nothing a count needs (the engine
        # sorts every row for it otherwise); it has no braces after it
        order = list(_ORDER_RE.finditer(blanked, start, m.start()))
        cut = m.start()
        if order and not set(blanked[order[-1].end() : m.start()]) & set("{}"):
            cut = order[-1].start()
        if opening is None:
            prologue = [ln for ln in text.splitlines() if _PREFIX_RE.match(ln)]
            unit = "\n".join(
                ln for ln in (text[:cut] + text[m.end() :]).splitlines() if not _PREFIX_RE.match(ln)
            )
        else:
            closing = _matching_close(blanked, opening)
            prologue = [ln for ln in text[:opening].splitlines() if _PREFIX_RE.match(ln)]
            unit = text[start:cut] + text[m.end() : closing]
        return (
            "\n".join(prologue)
            + "\nSELECT (COUNT(*) AS ?total) WHERE {\n  {\n"
            + unit
            + "\n  }\n}\n"
        )

    def optional_lines(self, name: str) -> list[str]:
        """The template's lines that belong to optional parameter ``name``."""
        return [line for line, optional in self._lines if optional == name]

    def terms(
        self, values: Mapping[str, str | Sequence[str]]
    ) -> tuple[dict[str, Bound], Identifier | None]:
        """The parameters (and the ``# bind:`` terms) as RDF terms, and ``limit`` apart."""
        unknown = sorted(set(values) - {p.name for p in self.params})
        if unknown:
            raise NamedQueryError(
                f"query {self.name!r} has no parameter(s) {', '.join(unknown)}; "
                f"expected: {', '.join(p.name for p in self.params) or 'none'}"
            )
        terms: dict[str, Bound] = {}
        for p in self.params:
            raw = values.get(p.name)
            if raw is None or raw == "" or (p.many and not isinstance(raw, str) and not raw):
                if not p.optional:
                    raise NamedQueryError(
                        f"query {self.name!r} needs parameter {p.name!r} ({p.type})"
                    )
                continue
            if p.many:
                raws = [raw] if isinstance(raw, str) else list(raw)
                terms[p.name] = tuple(to_term(p, r) for r in raws)
            elif not isinstance(raw, str):
                raise NamedQueryError(f"parameter {p.name!r} takes one value, not a list")
            else:
                terms[p.name] = to_term(p, raw)
        limit = terms.pop("limit", None) if self.param("limit") else None
        assert not isinstance(limit, tuple)
        if self.param("offset"):
            terms.pop("offset", None)
        for d in self.derived:
            if all(a in terms for a in d.args):
                terms[d.name] = DERIVED[d.function](*(terms[a] for a in d.args))
        self.paging(values)  # checked: limit 1..MAX_LIMIT, offset 0..MAX_OFFSET
        return terms, limit


def values_block(terms: Mapping[str, Bound]) -> str:
    """``VALUES ?name { term … }`` lines (terms written by rdflib, never raw text)."""
    return "".join(
        f"\n  VALUES ?{n} {{ {' '.join(x.n3() for x in (t if isinstance(t, tuple) else (t,)))} }}"
        for n, t in terms.items()
    )


def _set_limit(query: str, text: str, limit: int, offset: int = 0) -> str:
    """``text`` with its last ``LIMIT n`` replaced by ``limit`` (checked: 1..MAX_LIMIT)
    and ``OFFSET offset`` when it is not 0."""
    if not 1 <= limit <= MAX_LIMIT:
        raise NamedQueryError(f"parameter 'limit': {limit} is not between 1 and {MAX_LIMIT}")
    return _replace_limit(query, text, f"LIMIT {limit}" + (f" OFFSET {offset}" if offset else ""))


def _replace_limit(query: str, text: str, new: str) -> str:
    """``text`` with its last ``LIMIT n`` (outside comments) replaced by ``new``."""
    found = list(_LIMIT_RE.finditer(_blank_comments(text)))
    if not found:
        raise NamedQueryError(f"query {query!r} has a limit parameter but no LIMIT")
    m = found[-1]
    return text[: m.start()] + new + text[m.end() :]


def _enclosing_open(blanked: str, pos: int) -> int | None:
    """The offset of the ``{`` of the group that holds ``pos`` (``None``: top level).
    Our templates' braces are SPARQL's (no ``{`` in their strings or IRIs)."""
    depth = 0
    for i in range(pos - 1, -1, -1):
        c = blanked[i]
        if c == "}":
            depth += 1
        elif c == "{":
            if depth == 0:
                return i
            depth -= 1
    return None


def _matching_close(blanked: str, opening: int) -> int:
    depth = 0
    for i in range(opening, len(blanked)):
        if blanked[i] == "{":
            depth += 1
        elif blanked[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    raise NamedQueryError("unbalanced braces in a named query")


def _blank_comments(text: str) -> str:
    """``text`` with full-line comments blanked (same offsets), so a header cannot match."""
    return "".join(
        (" " * (len(line) - 1) + line[-1:]) if line.lstrip().startswith("#") else line
        for line in text.splitlines(keepends=True)
    )


def to_term(param: Param, raw: str) -> Identifier:
    """Parse one parameter value into an RDF term of the declared type (or refuse it)."""
    value = str(raw).strip()
    try:
        if param.type == "iri":
            if not _IRI_RE.match(value):
                raise NamedQueryError(f"parameter {param.name!r}: {value!r} is not an absolute IRI")
            from reprokg.validation.checks import iri_refusal

            # the store's own parser (a control character, a bad %-escape or host passed
            # the pattern, and the engine refused the query: a 500)
            if why := iri_refusal(value):
                raise NamedQueryError(
                    f"parameter {param.name!r}: {value!r} is not an IRI the store takes: {why}"
                )
            return URIRef(value)
        if param.type == "doi":
            return doi_iri(value)
        if param.type == "orcid":
            return orcid_iri(value)
        if param.type == "collection":
            from reprokg.loaders.qrels import collection_iri

            if not value:
                raise NamedQueryError(f"parameter {param.name!r} is empty")
            node = mint("collection", "")
            if value.startswith(str(node)) and _IRI_RE.match(value):
                return URIRef(value)  # the shared node itself (find-baselines answers it)
            return collection_iri(value)
        if param.type == "string":
            return Literal(str(raw))
        if param.type == "integer":
            if not re.fullmatch(r"[+-]?\d{1,18}", value):
                raise NamedQueryError(f"parameter {param.name!r}: {value!r} is not an integer")
            return Literal(int(value), datatype=XSD.integer)
        if param.type == "decimal":
            return Literal(Decimal(value), datatype=XSD.decimal)
    except IdentifierError as exc:
        raise NamedQueryError(f"parameter {param.name!r}: {exc}") from exc
    except InvalidOperation as exc:
        raise NamedQueryError(f"parameter {param.name!r}: {value!r} is not a decimal") from exc
    raise NamedQueryError(f"parameter {param.name!r} has unknown type {param.type!r}")


def parse_query(name: str, text: str) -> NamedQuery:
    """A named query from ``.rq`` text: header comment lines, then the SPARQL."""
    meta: dict[str, list[str]] = {}
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        if not s.startswith("#"):
            break
        m = _HEADER_RE.match(s)
        if m:
            meta.setdefault(m.group(1).lower(), []).append(m.group(2).strip())
    params = [_parse_param(name, p) for p in meta.get("param", [])]
    derived = [_parse_bind(name, b, params) for b in meta.get("bind", [])]
    examples = []
    for ex in meta.get("example", []):
        pairs = {}
        for part in ex.split("&") if "&" in ex else ex.split():
            k, sep, v = part.partition("=")
            if sep:
                pairs[k.strip()] = v.strip()
        examples.append(pairs)
    return NamedQuery(
        name=name,
        title=(meta.get("title") or [name])[0],
        description=" ".join(meta.get("description", [])),
        sparql=text,
        params=params,
        examples=examples,
        derived=derived,
        unit=(meta.get("unit") or ["rows"])[0],
    )


def _parse_bind(query: str, spec: str, params: list[Param]) -> Derived:
    m = _BIND_RE.match(spec.strip())
    args = tuple(a.strip() for a in m.group(3).split(",") if a.strip()) if m else ()
    known = {p.name for p in params}
    if not m or m.group(2) not in DERIVED or not set(args) <= known or m.group(1) in known:
        raise NamedQueryError(
            f"query {query!r}: bad header '# bind: {spec}'; expected "
            f"'# bind: name function(param, …)' with a new name, function one of "
            f"{', '.join(DERIVED)} and declared parameters"
        )
    return Derived(m.group(1), m.group(2), args)


def _parse_param(query: str, spec: str) -> Param:
    parts = re.split(r"\s+[—–]\s+|\s+--\s+|\s+-\s+", spec, maxsplit=1)
    head = parts[0]
    doc = parts[1].strip() if len(parts) > 1 else ""
    words = head.split()
    if len(words) < 2 or not _NAME_RE.match(words[0]) or words[1] not in PARAM_TYPES:
        raise NamedQueryError(
            f"query {query!r}: bad header '# param: {spec}'; expected "
            f"'# param: name type [optional] — doc' with type one of {', '.join(PARAM_TYPES)}"
        )
    unknown = sorted(set(words[2:]) - {"optional", "many"})
    if unknown:
        raise NamedQueryError(
            f"query {query!r}: bad header '# param: {spec}'; {', '.join(unknown)} is not "
            "'optional' or 'many'"
        )
    return Param(
        words[0], words[1], optional="optional" in words[2:], doc=doc, many="many" in words[2:]
    )


@functools.cache
def package_query(path: str) -> NamedQuery:
    """The query shipped as package file ``path`` (``stability/sparql/observations.rq``,
    ``queries/find-baselines.rq``, ``service/web/queries/runs.rq``): read through
    :mod:`reprokg.core.resources` (an installed wheel has no checkout) and its header
    parsed. Every ``.rq`` of the package is read here, once per process, and bound only
    by :meth:`NamedQuery.bind`.
    """
    folder, _, file = path.rpartition("/")
    node = data_dir(folder).joinpath(file) if folder and file.endswith(".rq") else None
    if node is None or not node.is_file():
        raise UnknownNamedQuery(f"no query {path!r} in the package")
    return parse_query(file[:-3], node.read_text(encoding="utf-8"))


def query_paths(folder: str) -> list[str]:
    """The package paths of the ``.rq`` files in ``folder``, in name order."""
    return [f"{folder}/{f.name}" for f in iter_files(folder, ".rq")]


@functools.cache
def load_queries() -> dict[str, NamedQuery]:
    """All ``queries/*.rq`` shipped with the package, by name (file name without ``.rq``).

    Read once per process: they are package data (a request should not re-read them).
    """
    return {q.name: q for q in map(package_query, query_paths("queries"))}


def get_query(name: str) -> NamedQuery:
    queries = load_queries()
    if name not in queries:
        raise UnknownNamedQuery(
            f"no named query {name!r}; available: {', '.join(sorted(queries)) or 'none'}"
        )
    return queries[name]


def parse_param_args(pairs: list[str]) -> dict[str, str]:
    """``["k=v", ...]`` from the command line into a dict."""
    out = {}
    for pair in pairs:
        k, sep, v = pair.partition("=")
        if not sep or not k:
            raise NamedQueryError(f"--param {pair!r}: expected NAME=VALUE")
        out[k.strip()] = v
    return out


def run(
    store: Store, name: str, params: dict[str, str] | None = None, *, timeout: float | None = None
) -> SelectResult | AskResult | GraphResult:
    """Run named query ``name`` with ``params`` bound (CLI and service share this)."""
    query = get_query(name)
    return store.query(query.bind(params or {}), timeout=timeout)


@dataclass(frozen=True)
class Page:
    """Which part of a named query's whole answer a result is (a LIMIT never
    cuts silently). ``total`` counts what the LIMIT counts (``unit``): the answer's rows,
    or a sub-select's (find-baselines: its runs on the board)."""

    offset: int
    #: the page size (``None``: no LIMIT, every row)
    limit: int | None
    #: rows in this answer
    rows: int
    #: units of the whole answer (the query without its LIMIT)
    total: int
    unit: str = "rows"
    #: the row cap that cut a whole answer (the service's ``row_cap``), when it did
    cap: int | None = None

    @property
    def shown(self) -> int:
        """Units in this page."""
        left = max(0, self.total - self.offset)
        return left if self.limit is None else min(self.limit, left)

    @property
    def truncated(self) -> bool:
        """More units exist past this page."""
        return self.offset + self.shown < self.total

    @property
    def next_offset(self) -> int | None:
        return self.offset + self.shown if self.truncated and self.cap is None else None

    def to_json(self) -> dict[str, object]:
        return {
            "offset": self.offset,
            "limit": self.limit,
            "rows": self.rows,
            "total": self.total,
            "unit": self.unit,
            "truncated": self.truncated,
            "next_offset": self.next_offset,
            "cap": self.cap,
        }

    def headers(self) -> dict[str, str]:
        """The HTTP headers that say it (``X-Reprokg-Total``, ``X-Reprokg-Truncated``)."""
        out = {"X-Reprokg-Total": str(self.total), "X-Reprokg-Offset": str(self.offset)}
        if self.truncated:
            out["X-Reprokg-Truncated"] = (
                f"rows capped at {self.cap}" if self.cap is not None else "true"
            )
        return out

    def sentence(self) -> str:
        """``1,000 of 7,720 rows (1-1,000)``; ``120 rows: runs 1-100 of 340``."""
        span = f"{self.offset + 1:,}-{self.offset + self.shown:,}" if self.shown else "none"
        if self.unit == "rows":
            text = f"{self.shown:,} of {self.total:,} rows ({span})"
        else:
            text = f"{self.rows:,} rows: {self.unit} {span} of {self.total:,}"
        if self.cap is not None and self.truncated:
            text += f"; cut at the row cap of {self.cap:,}"
        return text


def page_of(
    store: Store,
    query: NamedQuery,
    values: Mapping[str, str | Sequence[str]],
    rows: int,
    *,
    whole: bool = False,
    cap: int | None = None,
    timeout: float | None = None,
    total: int | None = None,
) -> Page:
    """The :class:`Page` of an answer of ``rows`` rows to ``query`` bound with ``values``
    (``whole``/``cap`` as given to :meth:`NamedQuery.bind`). The whole answer is counted
    only when the page may be cut: it is full, or past the end, or a sub-select's LIMIT,
    and ``total`` (what the store knows without a count: sparql/ranked.py) is not given."""
    if whole:
        limit, offset = cap, 0
    else:
        asked, offset = query.paging(values)
        limit = asked if asked is not None else query.default_limit()
    nested = query.limit_is_nested()
    unit = query.unit if nested else "rows"
    if limit is None or (not nested and rows < limit and (rows or not offset)):
        return Page(offset, limit, rows, offset + rows if limit is not None else rows, unit)
    if total is not None:
        return Page(offset, limit, rows, total, unit, cap if whole else None)
    res = store.query(query.count_sparql(values), timeout=timeout)
    assert isinstance(res, SelectResult)
    total = int(res.rows[0][0]) if res.rows and res.rows[0][0] is not None else 0
    return Page(offset, limit, rows, total, unit, cap if whole else None)


def run_paged(
    store: Store,
    name: str | NamedQuery,
    params: Mapping[str, str | Sequence[str]] | None = None,
    *,
    whole: bool = False,
    cap: int | None = None,
    timeout: float | None = None,
    sparql: str | None = None,
    total: int | None = None,
) -> tuple[QueryResult, Page | None]:
    """Run named query ``name`` (or a package query, e.g. a web view's) and say which rows
    of how many it answered (``None`` for a query without a LIMIT or not a SELECT).
    ``sparql``: the text to run when planned otherwise (sparql/ranked.py), the same rows
    as the bound template."""
    query = get_query(name) if isinstance(name, str) else name
    values = params or {}
    text = sparql if sparql is not None else query.bind(values, whole=whole, cap=cap)
    res = store.query(text, timeout=timeout)
    if not isinstance(res, SelectResult) or query.default_limit() is None:
        return res, None
    return res, page_of(
        store, query, values, len(res.rows), whole=whole, cap=cap, timeout=timeout, total=total
    )


# --------------------------------------------------------------------------- result formats


def _term_json(t: Identifier) -> dict[str, str]:
    if isinstance(t, URIRef):
        return {"type": "uri", "value": str(t)}
    if isinstance(t, BNode):
        return {"type": "bnode", "value": str(t)}
    assert isinstance(t, Literal)
    d = {"type": "literal", "value": str(t)}
    if t.language:
        d["xml:lang"] = t.language
    elif t.datatype is not None and t.datatype != XSD.string:
        d["datatype"] = str(t.datatype)
    return d


def results_json(result: SelectResult | AskResult) -> str:
    """SPARQL 1.1 Query Results JSON."""
    if isinstance(result, AskResult):
        return json.dumps({"head": {}, "boolean": result.value})
    bindings = [{k: _term_json(v) for k, v in row.items()} for row in result.dicts()]
    return json.dumps(
        {"head": {"vars": result.variables}, "results": {"bindings": bindings}},
        ensure_ascii=False,
    )


def results_csv(result: SelectResult) -> str:
    """SPARQL 1.1 Query Results CSV (lexical values, CRLF line ends)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(result.variables)
    for row in result.rows:
        w.writerow(["" if t is None else str(t) for t in row])
    return buf.getvalue()
