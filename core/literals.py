"""The typed number literals results and loaders write: one spelling each.

``xsd:double`` from Python's shortest round-trip ``repr`` (``0.1``, ``3.0``, ``inf``);
``xsd:decimal`` from the number's written text (no binary-float artefacts: ``0.1``, not
``0.1000000000000000055…``). The lexical forms are what the stored triples hold, so a
change here changes every document's hash: keep them.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from rdflib import XSD, Literal


def double_literal(x: float) -> Literal:
    """``x`` as ``xsd:double``, written as ``repr(float(x))``."""
    return Literal(repr(float(x)), datatype=XSD.double)


def decimal_literal(value: float | int) -> Literal:
    """``value`` as ``xsd:decimal`` from ``str(value)`` (an int stays ``3``, a float is its
    ``repr``); text that is no number is kept as a plain literal."""
    try:
        return Literal(Decimal(str(value)), datatype=XSD.decimal)
    except InvalidOperation:  # pragma: no cover - callers pass numbers
        return Literal(str(value))
