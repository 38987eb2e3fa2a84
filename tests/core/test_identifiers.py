"""ORCID and DOI normalisation (docs/architecture.md, Design decisions, Identifiers)."""

from __future__ import annotations

import pytest

from reprokg.core.errors import IdentifierError
from reprokg.core.identifiers import doi_iri, orcid_check_digit, orcid_iri


def test_orcid_check_digit_known_examples() -> None:
    # ORCID's own documentation examples: 0000-0002-1825-0097 and 0000-0002-1694-233X
    assert orcid_check_digit("000000021825009") == "7"
    assert orcid_check_digit("000000021694233") == "X"


@pytest.mark.parametrize(
    "value",
    ["0000-0002-1825-0097", "https://orcid.org/0000-0002-1825-0097", "orcid.org/0000000218250097"],
)
def test_orcid_spellings(value: str) -> None:
    assert str(orcid_iri(value)) == "https://orcid.org/0000-0002-1825-0097"


def test_orcid_bad_checksum_names_expected_digit() -> None:
    with pytest.raises(IdentifierError, match="should be '7'"):
        orcid_iri("0000-0002-1825-0098")


@pytest.mark.parametrize(
    "value",
    [
        "10.1007/978-3-030-15712-8_26",
        "doi:10.1007/978-3-030-15712-8_26",
        "https://doi.org/10.1007/978-3-030-15712-8_26",
        "http://dx.doi.org/10.1007/978-3-030-15712-8_26",
        "DOI: 10.1007/978-3-030-15712-8_26",
    ],
)
def test_doi_spellings(value: str) -> None:
    assert str(doi_iri(value)) == "https://doi.org/10.1007/978-3-030-15712-8_26"


def test_doi_lower_cased() -> None:
    assert str(doi_iri("10.1145/2601097.2601102X")) == "https://doi.org/10.1145/2601097.2601102x"


def test_not_a_doi() -> None:
    with pytest.raises(IdentifierError, match="expected 10"):
        doi_iri("https://example.org/paper")
