"""Term conversion between rdflib (the library's currency) and pyoxigraph / N-Triples text.

rdflib keeps a plain literal (no datatype) distinct from an ``xsd:string`` one, while
RDF 1.1 and every engine treat them as one term; we map ``xsd:string`` back to a plain
rdflib literal so results compare equal to what loaders built.
"""

from __future__ import annotations

import re
from typing import Any

import pyoxigraph as ox
from rdflib import BNode, Literal, URIRef
from rdflib.namespace import RDF, XSD
from rdflib.term import Identifier, Node

from reprokg.core.errors import StoreError

_XSD_STRING = str(XSD.string)
_LANG_STRING = str(RDF.langString)
_BNODE_OK = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


def solutions(store: ox.Store, sparql: str, **kwargs: Any) -> ox.QuerySolutions:
    """The rows of a SELECT on a pyoxigraph store (whose ``query`` is typed as returning
    any of the three result forms)."""
    result = store.query(sparql, **kwargs)
    if not isinstance(result, ox.QuerySolutions):
        raise StoreError(f"expected a SELECT: {sparql[:60]}")
    return result


def value(term: object) -> str:
    """The lexical value of a pyoxigraph IRI, blank node or literal (a quad's object is
    typed as possibly a quoted triple, which has none)."""
    if not isinstance(term, ox.NamedNode | ox.BlankNode | ox.Literal):
        raise StoreError(f"expected an IRI, blank node or literal, got {term!r}")
    return term.value


def to_rdflib(term: object) -> Identifier | None:
    """A pyoxigraph term (or ``None`` for an unbound variable) as an rdflib term."""
    if term is None:
        return None
    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    if isinstance(term, ox.Literal):
        if term.language:
            return Literal(term.value, lang=term.language)
        dt = term.datatype.value
        if dt == _XSD_STRING:
            return Literal(term.value)
        return Literal(term.value, datatype=URIRef(dt))
    if isinstance(term, ox.DefaultGraph):
        return None
    raise TypeError(f"unsupported term {term!r} (RDF-star triples are not used by reprokg)")


def rdflib_triple(t: ox.Quad | ox.Triple) -> tuple[Identifier, Identifier, Identifier]:
    """The subject, predicate and object of a stored quad (or a CONSTRUCT triple) as
    rdflib terms."""
    s, p, o = to_rdflib(t.subject), to_rdflib(t.predicate), to_rdflib(t.object)
    if s is None or p is None or o is None:
        raise StoreError(f"a triple with an unbound term: {t}")
    return s, p, o


def bnode_label(node: BNode) -> str:
    """A blank node label valid in N-Triples/SPARQL (rdflib allows labels engines refuse)."""
    label = str(node)
    if _BNODE_OK.match(label):
        return label
    return "x" + label.encode("utf-8").hex()


def to_oxigraph(term: Node) -> ox.NamedNode | ox.BlankNode | ox.Literal:
    if isinstance(term, URIRef):
        return ox.NamedNode(str(term))
    if isinstance(term, BNode):
        return ox.BlankNode(bnode_label(term))
    if isinstance(term, Literal):
        if term.language:
            return ox.Literal(str(term), language=term.language)
        if term.datatype is not None and str(term.datatype) != _LANG_STRING:
            return ox.Literal(str(term), datatype=ox.NamedNode(str(term.datatype)))
        return ox.Literal(str(term))
    raise TypeError(f"cannot store {term!r} (not an IRI, blank node or literal)")


def to_quad(s: Node, p: Node, o: Node, graph: ox.NamedNode | None = None) -> ox.Quad:
    """A pyoxigraph quad of rdflib terms (in ``graph``, else the default graph)."""
    # pyoxigraph refuses a literal subject or a non-IRI predicate itself (TypeError)
    return ox.Quad(to_oxigraph(s), to_oxigraph(p), to_oxigraph(o), graph)  # type: ignore[arg-type]


def _escape_non_ascii(text: str) -> str:
    out = []
    for ch in text:
        cp = ord(ch)
        if cp < 0x80:
            out.append(ch)
        elif cp <= 0xFFFF:
            out.append(f"\\u{cp:04X}")
        else:
            out.append(f"\\U{cp:08X}")
    return "".join(out)


def to_ntriples(term: Node, *, ascii_only: bool = False) -> str:
    """N-Triples (= SPARQL ``INSERT DATA``) syntax of a term, checked by pyoxigraph."""
    text = str(to_oxigraph(term))
    return _escape_non_ascii(text) if ascii_only else text


_FORMATS = {
    "nquads": ox.RdfFormat.N_QUADS,
    "nq": ox.RdfFormat.N_QUADS,
    "trig": ox.RdfFormat.TRIG,
}


def rdf_format(fmt: str) -> ox.RdfFormat:
    try:
        return _FORMATS[fmt.lower()]
    except KeyError:
        raise StoreError(f"unsupported dump format {fmt!r}; expected nquads or trig") from None
