"""How the engine stores RDF terms in pyoxigraph, losslessly, and reads them back.

Typed literals are loaded losslessly: pyoxigraph normalises what it stores
(``"01"^^xsd:integer`` becomes ``"1"``, ``xsd:byte`` becomes ``xsd:integer``), which would
change ``sh:datatype``, ``sh:in`` and reported values, so a literal it would change is
stored under a marker datatype that keeps its datatype IRI (:func:`encode_literal`), and an
ill-typed literal under another marker no ``sh:datatype`` accepts. Comparisons decode the
marker (``STRDT``), so ``sh:minInclusive`` still compares values.
"""

from __future__ import annotations

import re

import pyoxigraph as ox
from rdflib import BNode, Literal, URIRef
from rdflib.namespace import RDF, XSD

#: a typed literal pyoxigraph would normalise: datatype ``LOSSLESS + <datatype IRI>``
LOSSLESS = "urn:reprokg:shacl:dt:"
#: an ill-typed literal: datatype ``ILL_TYPED + <datatype IRI>`` (no sh:datatype matches)
ILL_TYPED = "urn:reprokg:shacl:ill:"
#: one triple in every named graph, so ``sh:targetNode`` (VALUES) binds ``?g``
GRAPH_MARK = "<urn:reprokg:shacl:graph>"
#: the named graph ``$shapesGraph`` names (loaded only when a query uses it)
SHAPES_GRAPH = "urn:reprokg:shacl:shapes"
RDF_TYPE = str(RDF.type)
#: a term of a query answer (a solution binds no triple term: the engine writes none)
OxTerm = ox.NamedNode | ox.BlankNode | ox.Literal


def is_canonical(lexical: str, datatype: str) -> bool:
    """True when pyoxigraph stores ``lexical^^datatype`` unchanged (checked for the
    datatypes it normalises; others, ours and user-defined, it keeps as written)."""
    form = CANONICAL_FORMS.get(datatype)
    if form is not None:
        return form.fullmatch(lexical) is not None
    return not datatype.startswith(XSD_PREFIX)


XSD_PREFIX = str(XSD)
_XSD_INTEGER, _XSD_DECIMAL, _XSD_BOOLEAN = str(XSD.integer), str(XSD.decimal), str(XSD.boolean)
_XSD_DATE, _XSD_GYEAR, XSD_STRING = str(XSD.date), str(XSD.gYear), str(XSD.string)
_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")
_DECIMAL = re.compile(r"(0|-?[1-9][0-9]*)(\.[0-9]*[1-9])?|-0\.[0-9]*[1-9]")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_GYEAR = re.compile(r"[0-9]{4}")
#: the datatypes pyoxigraph normalises: the lexical forms it stores unchanged
CANONICAL_FORMS = {
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
    if dt is None or str(dt) == XSD_STRING:
        return ox.Literal(str(term))
    d = str(dt)
    if term.ill_typed:
        return ox.Literal(str(term), datatype=ox.NamedNode(ILL_TYPED + d))
    if is_canonical(str(term), d):
        return ox.Literal(str(term), datatype=ox.NamedNode(d))
    return ox.Literal(str(term), datatype=ox.NamedNode(LOSSLESS + d))


def decode_term(term: OxTerm) -> URIRef | BNode | Literal:
    """An rdflib term of a pyoxigraph term from a result (marker datatypes undone)."""
    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    assert isinstance(term, ox.Literal)
    if term.language:
        return Literal(term.value, lang=term.language)
    d = term.datatype.value
    for marker in (LOSSLESS, ILL_TYPED):
        if d.startswith(marker):
            d = d[len(marker) :]
    if d == XSD_STRING:
        return Literal(term.value)
    return Literal(term.value, datatype=URIRef(d), normalize=False)  # as written
