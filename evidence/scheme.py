"""The outcome scheme and the kinds of evidence, as every view names them.

``ontology/assessments.ttl`` has one outcome scheme for every source, which is right for
querying but wrong for reading: "reproduced" from a committee means the results were
obtained again, from a re-execution that every R file ran, from a stamp that the code was
checked to run as described. A person must never read them as one sum, so every view
names an assessment by its *kind* (what was assessed) and words its outcome in that kind's
terms; "not attempted" (a download that failed, a package the study excluded, availability
badges only) is *not assessed*, never a failure.
"""

from __future__ import annotations

from dataclasses import dataclass

from reprokg.loaders.evidence import SLUGS

RK = "https://w3id.org/reprokg/ontology#"

#: outcome concept -> slug (the URL and JSON value), in the order views list them: the
#: loaders' own table (``loaders/evidence.py``), so a slug is written and read one way
OUTCOME_SLUGS: dict[str, str] = SLUGS
OUTCOME_ORDER: tuple[str, ...] = tuple(OUTCOME_SLUGS.values())
#: slug -> words, for a kind that does not word it its own way
OUTCOME_WORDS: dict[str, str] = {
    "reproduced": "reproduced",
    "partially-reproduced": "partially reproduced",
    "not-reproduced": "not reproduced",
    "inconclusive": "inconclusive",
    "not-attempted": "not assessed",
}


@dataclass(frozen=True)
class EvidenceKind:
    """What an assessment assessed, and how its outcomes read for that kind."""

    slug: str
    label: str
    #: outcome slug -> words, where the kind's meaning differs from the general words
    words: tuple[tuple[str, str], ...] = ()

    def outcome_words(self, outcome: str) -> str:
        return dict(self.words).get(outcome) or OUTCOME_WORDS.get(outcome, outcome)


COMMITTEE = EvidenceKind(
    "committee",
    "committee",
    (("reproduced", "results reproduced"), ("not-attempted", "no results badge (not assessed)")),
)
REPLICATION = EvidenceKind("replication", "replication by others")
RE_EXECUTION = EvidenceKind(
    "re-execution",
    "re-execution",
    (
        ("reproduced", "every file ran"),
        ("partially-reproduced", "some files ran"),
        ("not-reproduced", "no file ran"),
        ("inconclusive", "stopped by the time limit"),
    ),
)
STAMP = EvidenceKind("stamp", "stamp", (("reproduced", "stamped: the code runs as described"),))
COMPUTED = EvidenceKind("computed", "computed verdict")
AUDIT = EvidenceKind("audit", "audit")
OTHER = EvidenceKind("other", "assessment")

#: the method (its concept, or the name the query binds for audits and stamps) -> kind
KIND_OF_METHOD: dict[str, EvidenceKind] = {
    RK + "ArtifactEvaluationCommittee": COMMITTEE,
    RK + "JournalReview": REPLICATION,
    RK + "AutomatedReExecution": RE_EXECUTION,
    RK + "ComputedAcceptanceRule": COMPUTED,
    "Graphics Replicability Stamp": STAMP,
    "audit": AUDIT,
}
#: the kinds in the order the passport's answer lists them
KINDS: tuple[EvidenceKind, ...] = (
    COMMITTEE,
    REPLICATION,
    RE_EXECUTION,
    STAMP,
    COMPUTED,
    AUDIT,
    OTHER,
)


def kind_of(method: object) -> EvidenceKind:
    return KIND_OF_METHOD.get(str(method or ""), OTHER)


def outcome_slug(concept: object) -> str:
    """The slug of an outcome concept (``""`` for a concept outside the scheme)."""
    return OUTCOME_SLUGS.get(str(concept or ""), "")
