"""An rdflib ``Graph`` that stays a plain list of triples until something needs its store.

Loaders build many small graphs that are often only validated (by the compiled SPARQL
engine, which reads triples) and written to the store (which reads triples): rdflib's
``Graph.add`` into its in-memory store (three indexes, contexts, events) and binding
our 15 prefixes per graph were most of the YAML loader's time. A :class:`LazyGraph`
holds the loader's triples (deduplicated, in the order added) and fills a normal
in-memory store, with our prefixes bound, the first time any ``Graph`` method reaches
its store; iteration and ``len`` answer from the list. Once filled it *is* an ordinary
graph: later edits go to the store and :func:`pending_triples` returns ``None``.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from rdflib import Graph, Literal
from rdflib.store import Store


class LazyGraph(Graph):
    """A ``Graph`` built from ``triples`` (rdflib terms) on first use of its store."""

    def __init__(self, triples: Iterable[tuple[Any, Any, Any]]) -> None:
        self.__dict__["_pending"] = list(dict.fromkeys(triples))  # a Graph is a set
        # no store is touched here: the namespace manager is created on demand
        super().__init__(bind_namespaces="core")

    # Graph's methods reach their store through the name-mangled ``self.__store``
    # (``store`` is a read-only view of it); filling it on first access keeps every
    # method correct without overriding them one by one.
    @property
    def _Graph__store(self) -> Store:
        pending = self.__dict__["_pending"]
        if pending is not None:
            self.__dict__["_pending"] = None  # before filling: filling reads the store
            from reprokg.core.namespaces import bind_prefixes

            add = Graph.add
            for t in pending:
                add(self, t)
            bind_prefixes(self)
        return self.__dict__["_raw_store"]

    @_Graph__store.setter
    def _Graph__store(self, value: Store) -> None:
        self.__dict__["_raw_store"] = value

    def __len__(self) -> int:
        pending = self.__dict__["_pending"]
        return len(pending) if pending is not None else super().__len__()

    # rdflib's stub types Graph.__iter__ narrower
    def __iter__(self) -> Iterator[tuple[Any, Any, Any]]:  # type: ignore[override]
        pending = self.__dict__["_pending"]
        return iter(pending) if pending is not None else super().__iter__()


def pending_triples(graph: Graph) -> list[tuple[Any, Any, Any]] | None:
    """The unfilled triple list of a :class:`LazyGraph` (read only), else ``None``."""
    if isinstance(graph, LazyGraph):
        return graph.__dict__["_pending"]
    return None


def graph_triples(graph: Graph) -> list[tuple]:
    """The graph's triples (read only), from the cheapest place that has them.

    A :class:`~reprokg.core.lazy_graph.LazyGraph` not yet filled hands over its list. A
    plain graph owning its store is read from rdflib's in-memory index (a third of
    validating a batch went to rdflib's per-triple context checks), the count checked
    against ``len(graph)``; anything else through ``Graph.__iter__``. Inside
    :func:`triples_kept` a graph's list is made once.
    """
    pending = pending_triples(graph)
    if pending is not None:
        return pending
    kept = getattr(_KEPT, "lists", None)
    if kept is not None:
        hit = kept.get(id(graph))
        if hit is not None and hit[0] is graph and len(hit[1]) == len(graph):
            return hit[1]
    out = _read_triples(graph)
    if kept is not None:
        kept[id(graph)] = (graph, out)
    return out


def _read_triples(graph: Graph) -> list[tuple]:
    spo = getattr(graph.store, "_Memory__spo", None)
    if type(graph) is Graph and isinstance(spo, dict):
        out = [(s, p, o) for s, po in spo.items() for p, os in po.items() for o in os]
        if len(out) == len(graph):
            return out
    return list(graph)


_KEPT = threading.local()


@contextmanager
def triples_kept() -> Iterator[None]:
    """Within: :func:`graph_triples` reads each plain graph once (this thread).

    Validating a document reads its triples three times (the engine's load, the ORCID
    check, the store-terms check); for graphs that are not :class:`LazyGraph` each read
    rebuilt the list from rdflib's index. The graphs must not change inside.
    """
    outer = getattr(_KEPT, "lists", None)
    if outer is None:
        _KEPT.lists = {}
    try:
        yield
    finally:
        if outer is None:
            _KEPT.lists = None


_PARSING = threading.Lock()


@contextmanager
def literals_as_written() -> Iterator[None]:
    """Within: rdflib keeps every parsed literal's lexical form as written.

    rdflib normalises literals when it parses (``"1"^^xsd:boolean`` becomes ``true``,
    ``"01"^^xsd:integer`` becomes ``1``). Its switch is the module global
    ``rdflib.NORMALIZE_LITERALS``, so parses take a lock while it is off. Used by
    :func:`reprokg.core.rdf_parse.parse_as_written`, the one place RDF text is parsed.
    """
    import rdflib

    with _PARSING:
        before = rdflib.NORMALIZE_LITERALS
        rdflib.NORMALIZE_LITERALS = False
        try:
            yield
        finally:
            rdflib.NORMALIZE_LITERALS = before


#: the unquoted Turtle tokens of these datatypes that read back as written (Turtle's
#: productions; for integers and decimals only the forms rdflib's reader does not rewrite:
#: it reads ``+1``, ``01`` and ``-0`` as ``1``, ``1``, ``0``, and ``.5`` as ``0.5``)
_SHORT_FORMS = {
    "http://www.w3.org/2001/XMLSchema#integer": re.compile(r"0|-?[1-9][0-9]*"),
    "http://www.w3.org/2001/XMLSchema#decimal": re.compile(r"-?(0|[1-9][0-9]*)\.[0-9]+"),
    "http://www.w3.org/2001/XMLSchema#double": re.compile(
        r"[+-]?([0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)[eE][+-]?[0-9]+"
    ),
    "http://www.w3.org/2001/XMLSchema#boolean": re.compile(r"true|false"),
}


class _ExactLiteral(Literal):
    """A literal that Turtle and N3 write as it is: in the short form only when that form
    is its own lexical form and a token of its datatype's production.

    rdflib's serializer writes an ``xsd:boolean``/``integer``/``decimal``/``double``
    unquoted from its lexical form or its value: an ill-typed ``"none"^^xsd:boolean``
    came out as the bare token ``none`` (no Turtle parser reads it), ``"1"^^xsd:boolean``
    as ``true`` (another term). Any other literal is written as rdflib writes it.
    """

    __slots__ = ()

    def _literal_n3(self, use_plain: bool = False, qname_callback: Any = None) -> str:
        short = super()._literal_n3(use_plain, qname_callback)
        if not use_plain or short.startswith('"'):
            return short
        production = _SHORT_FORMS.get(str(self.datatype))
        if short == str(self) and production is not None and production.fullmatch(short):
            return short
        return super()._literal_n3(False, qname_callback)


def exact_literal(term: Any) -> Any:
    """``term``, or for a literal the same literal (lexical form, datatype, language,
    value kept as they are, nothing re-parsed) that serialises as it is written
    (:class:`_ExactLiteral`): what a report carries from a data graph, ill-typed or not."""
    if not isinstance(term, Literal) or isinstance(term, _ExactLiteral):
        return term
    out = str.__new__(_ExactLiteral, str(term))
    for slot in Literal.__slots__:
        setattr(out, slot, getattr(term, slot))
    return out
