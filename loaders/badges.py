"""Artifact badge spellings -> the ACM and NISO badge terms of ``ontology/badges.ttl``.

Artifact-evaluation results spell their badges in some twenty ways: lower and upper case
(``reproduced``, ``Reproduced``), the prefix of USENIX's results pages (``Badges:
Available, Functional, Reproduced``, which ReproDB split at its commas so that only the
first badge keeps the prefix), combined labels (``Artifacts Available + Functional +
Reusable``), IEEE's NISO abbreviations (``ORO``, ``ROR``, ``ROR-R``) and venue words
(ACSAC's ``reviewed`` and ``reproducible``). :data:`SPELLINGS` is the one table that maps
each spelling (case-folded, spaces collapsed) to a badge concept, with the reason;
``docs/badge-normalisation.md`` is written from it (:func:`table_markdown`, kept current
by a test). A spelling not in the table is never guessed: the loaders keep it as written
and report it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rdflib import URIRef

from reprokg.core.namespaces import RK

ACM_AVAILABLE = RK.ACMArtifactsAvailable
ACM_EVALUATED = RK.ACMArtifactsEvaluated
ACM_FUNCTIONAL = RK.ACMArtifactsFunctional
ACM_REUSABLE = RK.ACMArtifactsReusable
ACM_REPRODUCED = RK.ACMResultsReproduced
ACM_REPLICATED = RK.ACMResultsReplicated
NISO_ORO = RK.NISOOpenResearchObjects
NISO_ROR = RK.NISOResearchObjectsReviewed
NISO_ROR_R = RK.NISOResultsReproduced

#: badges that say the paper's results were obtained again (the rest say nothing of results)
RESULTS_BADGES = frozenset({ACM_REPRODUCED, ACM_REPLICATED, NISO_ROR_R})
#: badges obtained with the authors' artifacts (ACM 2020 / NISO: reproduction)
REPRODUCTION_BADGES = frozenset({ACM_REPRODUCED, NISO_ROR_R})


@dataclass(frozen=True)
class Spelling:
    """One way a source writes a badge: the concept it means and why we read it so."""

    spelling: str
    term: URIRef
    why: str
    seen_in: str


_USENIX = (
    "USENIX results pages write the list as 'Badges: Available, Functional, Reproduced' "
    "(the badges are ACM v1.1's, 'Results Reproduced (v1.1)' in the page's own names); "
    "ReproDB split the list at its commas, so the first badge keeps the prefix"
)
SPELLINGS: tuple[Spelling, ...] = (
    Spelling(
        "available",
        ACM_AVAILABLE,
        "the ACM v1.1 badge 'Artifacts Available', which the sysartifacts and secartifacts "
        "pages name in their front matter (available_name)",
        "ReproDB: ATC, EUROSYS, FAST, NDSS, OSDI, PETS, SC, SOSP, ACSAC, SYSTEX; results pages",
    ),
    Spelling("badges: available", ACM_AVAILABLE, _USENIX, "ReproDB: USENIXSEC, WOOT"),
    Spelling(
        "artifacts available",
        ACM_AVAILABLE,
        "the ACM badge's own name; SysTEX writes the full name, also inside combined labels",
        "ReproDB: SYSTEX",
    ),
    Spelling(
        "artifact available",
        ACM_AVAILABLE,
        "the singular of the ACM name, as the sysartifacts tables' summary lists write it",
        "results pages (OSDI, EuroSys)",
    ),
    Spelling(
        "functional",
        ACM_FUNCTIONAL,
        "the ACM v1.1 badge 'Artifacts Evaluated - Functional' (functional_name of the pages)",
        "ReproDB: all venues with badges; results pages",
    ),
    Spelling("badges: functional", ACM_FUNCTIONAL, _USENIX, "ReproDB: USENIXSEC, WOOT"),
    Spelling(
        "artifacts functional",
        ACM_FUNCTIONAL,
        "the ACM badge as ACSAC's results page names it (functional_name)",
        "results pages (ACSAC)",
    ),
    Spelling(
        "artifact functional",
        ACM_FUNCTIONAL,
        "the singular of the ACM name, as the sysartifacts tables' summary lists write it",
        "results pages (OSDI, EuroSys)",
    ),
    Spelling(
        "reusable",
        ACM_REUSABLE,
        "the ACM v1.1 badge 'Artifacts Evaluated - Reusable' (reusable_name of ACSAC's page: "
        "'Artifacts Reusable')",
        "ReproDB: ACSAC, SYSTEX; results pages (ACSAC)",
    ),
    Spelling(
        "artifacts reusable",
        ACM_REUSABLE,
        "the ACM badge as ACSAC's results page names it",
        "results pages (ACSAC)",
    ),
    Spelling(
        "reproduced",
        ACM_REPRODUCED,
        "the ACM v1.1 badge 'Results Reproduced': the main results obtained by others with the "
        "authors' artifacts (reproduced_name of the pages: 'Results Reproduced (v1.1)', NDSS "
        "'Artifacts Reproduced')",
        "ReproDB: all venues with results badges; results pages",
    ),
    Spelling(
        "results reproduced",
        ACM_REPRODUCED,
        "the ACM badge's own name, as the sysartifacts tables' summary lists write it",
        "results pages (OSDI, EuroSys)",
    ),
    Spelling(
        "artifacts reproduced",
        ACM_REPRODUCED,
        "NDSS's results page names the ACM 'Results Reproduced' badge so (reproduced_name)",
        "results pages (NDSS)",
    ),
    Spelling(
        "reproducible",
        ACM_REPRODUCED,
        "ACSAC's 2024-2025 results badge; it replaces ACSAC's 'reproduced' of 2023 in the same "
        "position and requires the committee to obtain the main results with the artifact, "
        "which is ACM's 'Results Reproduced' (NISO ROR-R)",
        "ReproDB: ACSAC 2024-2025",
    ),
    Spelling(
        "reviewed",
        NISO_ROR,
        "ACSAC's 2024-2025 badge for an artifact the committee reviewed and exercised: NISO's "
        "'Research Objects Reviewed' (ROR), close to ACM's Functional; read as the NISO term "
        "because ACSAC uses NISO's word",
        "ReproDB: ACSAC 2024-2025",
    ),
    Spelling(
        "replicated",
        ACM_REPLICATED,
        "the ACM v1.1 badge 'Results Replicated': the main results obtained by others without "
        "the authors' artifacts",
        "results pages of older rounds",
    ),
    Spelling(
        "results replicated",
        ACM_REPLICATED,
        "the ACM v1.1 badge's own name",
        "results pages of older rounds",
    ),
    Spelling(
        "artifact evaluated",
        ACM_EVALUATED,
        "USENIX Security 2020-2021 and WOOT 2019 awarded one badge, 'Artifact Evaluated', to "
        "artifacts that passed evaluation, before they adopted ACM's three badges; it is "
        "ACM's grouping 'Artifacts Evaluated' (functional or reusable: the source does not say "
        "which), and says nothing of results",
        "ReproDB: USENIXSEC 2020-2021, WOOT 2019",
    ),
    Spelling(
        "oro",
        NISO_ORO,
        "IEEE's badges are NISO RP-31-2021's: ORO = Open Research Objects (close to ACM Available)",
        "ReproDB: WOOT 2021, 2023",
    ),
    Spelling(
        "ror",
        NISO_ROR,
        "NISO ROR = Research Objects Reviewed (close to ACM Functional)",
        "ReproDB: WOOT 2023",
    ),
    Spelling(
        "ror-r",
        NISO_ROR_R,
        "NISO ROR-R = Results Reproduced with the authors' research objects (close to ACM "
        "Results Reproduced)",
        "ReproDB: WOOT 2021",
    ),
)
_BY_KEY = {s.spelling: s for s in SPELLINGS}
#: combined labels are split at these (``Artifacts Available + Functional + Reusable``)
_SPLIT_RE = re.compile(r"\s*[+,;]\s*")
_PREFIX_RE = re.compile(r"^badges\s*:\s*", re.IGNORECASE)


def key(label: str) -> str:
    """A spelling's table key: case-folded, spaces collapsed, trimmed."""
    return re.sub(r"\s+", " ", label.strip()).casefold()


@dataclass(frozen=True)
class Normalised:
    """What one badge label of a source says: the terms read, and the parts not read."""

    as_written: str
    terms: tuple[tuple[str, URIRef], ...]  # (the part read, its concept)
    unknown: tuple[str, ...]
    empty: bool = False


def normalise(label: str) -> Normalised:
    """The badge terms of one label as written.

    A label in the table is read whole (``Badges: Available``); otherwise the ``Badges:``
    prefix is dropped, a combined label split at ``+``, commas and semicolons, and each part
    read whole or without a leading ``Artifact(s)``; an empty list (``Badges:``) says no
    badge; parts not in the table are returned as ``unknown``, never guessed.
    """
    whole = key(label)
    if whole in _BY_KEY:
        return Normalised(label, ((label.strip(), _BY_KEY[whole].term),), ())
    body = _PREFIX_RE.sub("", label.strip())
    parts = [p for p in _SPLIT_RE.split(body) if p.strip()]
    if not parts:
        return Normalised(label, (), (), empty=True)
    terms: list[tuple[str, URIRef]] = []
    unknown: list[str] = []
    for part in parts:
        k = key(part)
        s = _BY_KEY.get(k) or _BY_KEY.get(k.removeprefix("artifacts ").removeprefix("artifact "))
        if s is None:
            unknown.append(part.strip())
        elif (part.strip(), s.term) not in terms:
            terms.append((part.strip(), s.term))
    return Normalised(label, tuple(terms), tuple(unknown))


def table_markdown() -> str:
    """``docs/badge-normalisation.md``: the table, with how a label is read."""
    from reprokg.core.namespaces import RK as _RK

    lines = [
        "# Badge normalisation (`reprokg.loaders.badges`)",
        "",
        "The `artifact-evaluation` loader reads every badge label through this table (written",
        "from `reprokg.loaders.badges.SPELLINGS` by `python -m reprokg.loaders.badges`; a",
        "test fails when it is stale). A label is case-folded and its spaces collapsed; a",
        "label in the table is read whole; otherwise a combined label (`Artifacts Available +",
        "Functional + Reusable`, `Badges: Available, Functional`) is split at `+` and commas",
        "(after the `Badges:` prefix) and each part read, a part also tried without a leading",
        "`Artifact(s)`; `Badges:` with nothing after it is an empty list (no badge, reported).",
        "A spelling that is not here is never guessed: it is kept as written",
        "(`rk:badgeAsWritten`) and reported as a Warning. The terms are the ACM Artifact Review",
        "and Badging v1.1 and NISO RP-31-2021 concepts of `ontology/badges.ttl`. Only the",
        "results badges (ACM Results Reproduced / Replicated, NISO ROR-R) make an assessment's",
        "outcome *reproduced*; the others make it *not attempted* (the committee exercised the",
        "artifact; the source states no judgement of the results).",
        "",
        "| spelling (case-folded) | badge term | why | seen in |",
        "|---|---|---|---|",
    ]
    for s in SPELLINGS:
        term = "rk:" + str(s.term).removeprefix(str(_RK))
        lines.append(f"| `{s.spelling}` | {term} | {s.why} | {s.seen_in} |")
    lines += [
        "",
        "Combined labels seen, read by splitting: `Artifacts Available + Functional` and",
        "`Artifacts Available + Functional + Reusable` (ReproDB: SysTEX), `Badges: Available,",
        "Functional, Reproduced` (USENIX results pages), `available,functional,reproduced`",
        "(NDSS and EuroSys results pages), `reusable,reproduced` (ACSAC's page). The",
        'sysartifacts tables write each badge as a span (`<span id="af">FUNCTIONAL</span>`):',
        "its text is read through the same table.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(table_markdown(), end="")
