"""Identifiers that join sources: ORCIDs, DOIs and the IRIs we mint.

ORCIDs are checked with ISO 7064 MOD 11-2; DOIs become lower-cased
``https://doi.org/`` IRIs (the string as written is kept by callers as a literal).
Minted keys are stable for the same content: hashes or natural keys, never counters.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import quote

from rdflib import URIRef

from reprokg.core.errors import IdentifierError
from reprokg.core.hashing import stable_key
from reprokg.core.settings import settings

_ORCID_RE = re.compile(r"^(\d{4})-?(\d{4})-?(\d{4})-?(\d{3}[\dX])$")
_ORCID_PREFIX_RE = re.compile(r"^(?:https?://)?(?:www\.)?orcid\.org/", re.IGNORECASE)
_DOI_PREFIX_RE = re.compile(r"^(?:doi:\s*|(?:https?://)?(?:dx\.)?doi\.org/)", re.IGNORECASE)
_DOI_RE = re.compile(r"^10\.\d{4,9}/\S+$")


def orcid_check_digit(base_digits: str) -> str:
    """ISO 7064 MOD 11-2 check character for the first 15 digits of an ORCID iD."""
    total = 0
    for ch in base_digits:
        total = (total + int(ch)) * 2
    result = (12 - total % 11) % 11
    return "X" if result == 10 else str(result)


def orcid_iri(value: str) -> URIRef:
    """``https://orcid.org/XXXX-XXXX-XXXX-XXXX`` for an ORCID iD in any common spelling.

    Raises :class:`IdentifierError` for a malformed iD or a failing check digit.
    """
    raw = str(value).strip()
    bare = _ORCID_PREFIX_RE.sub("", raw).strip("/").upper()
    m = _ORCID_RE.match(bare)
    if not m:
        raise IdentifierError(
            f"{raw!r} is not an ORCID iD: expected 16 digits (last may be X) as "
            "XXXX-XXXX-XXXX-XXXX, optionally as https://orcid.org/XXXX-XXXX-XXXX-XXXX"
        )
    digits = "".join(m.groups())
    expected = orcid_check_digit(digits[:15])
    if digits[15] != expected:
        raise IdentifierError(
            f"{raw!r} fails the ORCID ISO 7064 MOD 11-2 check: last character should be "
            f"{expected!r}, not {digits[15]!r}"
        )
    return URIRef("https://orcid.org/" + "-".join(m.groups()))


def doi_iri(value: str) -> URIRef:
    """Lower-cased ``https://doi.org/`` IRI for a DOI given bare, as ``doi:`` or as a URL."""
    raw = str(value).strip()
    bare = _DOI_PREFIX_RE.sub("", raw).strip()
    if not _DOI_RE.match(bare):
        raise IdentifierError(
            f"{raw!r} is not a DOI: expected 10.<registrant>/<suffix>, optionally prefixed "
            "by doi: or https://doi.org/"
        )
    # ``<`` and ``>`` (old SICI DOIs have them) are not IRI characters: percent-encoded,
    # as doi.org resolves them, or the store refuses the IRI (``[`` ``]`` likewise)
    return URIRef("https://doi.org/" + quote(bare.lower(), safe="/:;()._-~!$&'*+,=@"))


#: what sources write for "no DOI yet" (case-folded): reported, never read as a DOI
DOI_PLACEHOLDERS = frozenset(
    {"tbd", "tba", "todo", "n/a", "na", "none", "null", "nil", "-", "--", "?", "unknown",
     "pending", "doi", "xxx", "not_assigned_yet", "not assigned yet", "not assigned"}
)  # fmt: skip
_DOI_UNDERSCORE_RE = re.compile(r"^(10\.\d{4,9})_([^/\s]+)$")


@dataclass(frozen=True)
class DoiRepair:
    """A source's DOI field read: ``doi`` (bare, ``10.…/…``) or ``None``, and what was done
    (``repair``: how it was mended, or ``problem``: why it is not a DOI)."""

    written: str
    doi: str | None
    repair: str | None = None
    problem: str | None = None


def repair_doi(value: str) -> DoiRepair:
    """A DOI field as a bare DOI, repaired where the intent is unambiguous, else reported.

    Repaired (``repair`` says how): a ``doi:`` prefix, a ``https://doi.org/`` or
    ``http://dx.doi.org/`` URL, trailing punctuation, and an underscore written for the
    only slash (``10.5281_zenodo.11077385``, a file-name-safe spelling). Not repaired
    (``problem`` says why, ``doi`` is ``None``): placeholders (``TBD``, ``n/a``, …) and
    anything else that is not ``10.<registrant>/<suffix>``. An empty field is no DOI.
    """
    raw = str(value)
    text = raw.strip()
    if not text:
        return DoiRepair(raw, None)
    if text.casefold() in DOI_PLACEHOLDERS:
        return DoiRepair(raw, None, problem=f"{text!r} is a placeholder, not a DOI")
    repairs: list[str] = []
    bare = _DOI_PREFIX_RE.sub("", text).strip()
    if bare != text:
        repairs.append("prefix or URL form removed")
    if bare.casefold() in DOI_PLACEHOLDERS:
        return DoiRepair(raw, None, problem=f"{text!r} is a placeholder, not a DOI")
    trimmed = bare.rstrip(".,;")
    if trimmed != bare:
        repairs.append("trailing punctuation removed")
        bare = trimmed
    m = _DOI_UNDERSCORE_RE.match(bare)
    if m:
        bare = f"{m[1]}/{m[2]}"
        repairs.append("an underscore written for the slash")
    if not _DOI_RE.match(bare):
        return DoiRepair(
            raw,
            None,
            problem=f"{text!r} is not a DOI: expected 10.<registrant>/<suffix>, optionally "
            "prefixed by doi: or https://doi.org/",
        )
    return DoiRepair(raw, bare, repair="; ".join(repairs) or None)


def is_doi(value: str) -> bool:
    try:
        doi_iri(value)
    except IdentifierError:
        return False
    return True


def base_iri() -> str:
    """The instance-data base (``REPROKG_BASE``), always ending in ``/``."""
    return settings().base


@lru_cache(maxsize=16384)
def _quote_key(key: str) -> str:
    """Minted keys repeat (a loader's node suffixes are the same in every document)."""
    return quote(key, safe="-._~")


def mint(kind: str, key: str, base: str | None = None) -> URIRef:
    """``{base}{kind}/{key}`` with the key percent-encoded where needed."""
    return URIRef(f"{base or base_iri()}{kind}/{_quote_key(str(key))}")


def minter(kind: str, base: str | None = None) -> Callable[[str], URIRef]:
    """``mint(kind, ·)`` with the base read once: for a loader minting many nodes."""
    prefix = f"{base or base_iri()}{kind}/"
    return lambda key: URIRef(prefix + _quote_key(str(key)))


def document_iri(sha256: str, base: str | None = None) -> URIRef:
    return mint("doc", sha256, base)


def leaderboard_iri(collection: URIRef | str, measure: str) -> URIRef:
    """The leaderboard of ``measure`` (as reported) on the shared ``collection`` node: every
    writer of the same pair meets on one node, and the *find baselines* named query binds
    it as a constant (:mod:`reprokg.measures.leaderboard` explains why)."""
    return mint("leaderboard", stable_key("leaderboard", str(collection), str(measure)))
