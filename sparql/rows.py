"""SELECT results as rows of plain Python values, for analyses that read the graph into pandas.

Shared by the survey analysis, the published studies and the stability analysis (``survey/``,
``studies/``, ``stability/``): each reads its data with one SELECT and types the rows in
pandas; this is the one place those rows come from. :func:`select_rows` reads a store with the
:class:`~reprokg.store.base.NativeQueries` capability directly (no rdflib terms) and any
other store through :meth:`~reprokg.store.base.Store.query`.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from rdflib import Literal

from reprokg.store.base import NativeQueries, SelectResult


def select_rows(store: Any, sparql: str) -> list[dict[str, Any]]:
    """Rows of a SELECT as dicts of plain Python values (unbound variables left out).

    Any reprokg ``Store`` works through :meth:`Store.query`. A store with
    :class:`~reprokg.store.base.NativeQueries` (the embedded one) is read directly and its
    terms converted without rdflib: for the survey query that halves the time (building
    ~8,000 rdflib literals cost more than the query itself, measured in
    ``benchmarks/survey``). The default graph is the merge of the documents either way.
    Numbers and booleans come back typed (``int``, ``float``, ``bool``), the rest as text;
    the two paths give the same values.
    """
    if isinstance(store, NativeQueries):  # the embedded store: the merged default graph
        import pyoxigraph as ox

        solutions = store.native_query(sparql)
        if not isinstance(solutions, ox.QuerySolutions):
            raise TypeError("select_rows needs a SELECT query")
        names = [v.value for v in solutions.variables]
        return [
            {n: _py_ox(t) for n, t in zip(names, sol, strict=True) if t is not None}
            for sol in solutions
        ]
    res = store.query(sparql)
    if not isinstance(res, SelectResult):
        raise TypeError("select_rows needs a SELECT query")
    return [{k: plain(v) for k, v in row.items()} for row in res.dicts()]


def select_dicts(store: Any, sparql: str) -> list[dict[str, Any]]:
    """Rows of a SELECT with every variable, ``None`` where unbound (what views and JSON
    answers show: a column is there even when a row has no value for it)."""
    res = store.query(sparql)
    if not isinstance(res, SelectResult):
        raise TypeError("select_dicts needs a SELECT query")
    return [{k: plain(v) for k, v in row.items()} for row in res.dicts()]


def plain(term: Any) -> Any:
    """An rdflib term as a JSON-able value: numbers and booleans typed, the rest as text,
    ``None`` for an unbound variable."""
    if term is None:
        return None
    if isinstance(term, Literal):
        value = term.toPython()
        if isinstance(value, Decimal):
            return float(value)
        return value if isinstance(value, bool | int | float) else str(term)
    return str(term)


_XSD = "http://www.w3.org/2001/XMLSchema#"
_INTEGER_TYPES = {
    _XSD + t
    for t in [
        "integer",
        "int",
        "long",
        "short",
        "byte",
        "nonNegativeInteger",
        "positiveInteger",
        "nonPositiveInteger",
        "negativeInteger",
        "unsignedInt",
        "unsignedLong",
        "unsignedShort",
    ]
}
_FLOAT_TYPES = {_XSD + "decimal", _XSD + "double", _XSD + "float"}


def _py_ox(term: Any) -> Any:
    """A pyoxigraph term as a plain value: numbers and booleans typed, the rest as text."""
    import pyoxigraph as ox

    if not isinstance(term, ox.Literal):
        return term.value
    dt = term.datatype.value
    if dt in _INTEGER_TYPES:
        return int(term.value)
    if dt == _XSD + "boolean":
        return term.value in ("true", "1")
    if dt in _FLOAT_TYPES:
        return float(term.value)
    return term.value
