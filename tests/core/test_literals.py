"""The number literals' lexical forms: every stored document's hash depends on them."""

from rdflib import XSD

from reprokg.core.literals import decimal_literal, double_literal


def test_double_is_the_shortest_round_trip_text():
    assert [str(double_literal(x)) for x in (0.1, 3, 1e-300, float("inf"))] == [
        "0.1",
        "3.0",
        "1e-300",
        "inf",
    ]
    assert double_literal(0.1).datatype == XSD.double


def test_decimal_is_the_written_number_not_the_binary_float():
    assert [str(decimal_literal(x)) for x in (0.1, 3, 3.0, 2.5e-7)] == [
        "0.1",
        "3",
        "3.0",
        "0.00000025",
    ]
    assert decimal_literal(0.1).datatype == XSD.decimal
