"""PRIMAD comparison of two runs: which components changed, the signature, the study kind.

Components are compared deeply on the run graphs the ir_metadata loader builds (the same
for a run file given by path and a run stored as a document): each component's subtree
becomes a canonical, order-aware value (list items carry ``rk:position``), nodes minted by
reprokg are compared by content and everything else (DOIs, ORCIDs, URLs, literals as
written) by identity. ``tag``, ``schema-version`` and ``run-version`` sit on the run node,
outside the six components, so they never count as a change.

The signature follows ir_metadata / repro_eval (seed 002, Section 5): the letters
``p r i m a d`` in PRIMAD order, upper case for a component that changed — ``priMad``
is a parameter sweep (only the Method changed), ``PRIMAd`` a reimplementation on the
original data, ``PRIMAD`` a generalisation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import cast

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import PROV, RDF, SKOS

from reprokg.core.identifiers import base_iri
from reprokg.core.namespaces import RK
from reprokg.core.rdf_parse import parse_package_file
from reprokg.core.resources import data_dir
from reprokg.measures.registry import CROSS, SAME

#: the six components in signature order: (letter, ir_metadata key, predicate on the run)
COMPONENTS: tuple[tuple[str, str, URIRef], ...] = (
    ("p", "platform", RK.platform),
    ("r", "research goal", RK.researchGoal),
    ("i", "implementation", RK.implementation),
    ("m", "method", RK.method),
    ("a", "actor", RK.actor),
    ("d", "data", RK.data),
)
CHANGED_PREDICATE = {
    "platform": RK.platformChanged,
    "research goal": RK.researchGoalChanged,
    "implementation": RK.implementationChanged,
    "method": RK.methodChanged,
    "actor": RK.actorChanged,
    "data": RK.dataChanged,
}
_SIGNATURE_RE = re.compile(r"^[pP][rR][iI][mM][aA][dD]$")


#: predicates that are not part of what a component says
_SKIP = {RK.reportedScore, RK.measureValue, RK.doiAsWritten, RK.orcidAsWritten, PROV.wasDerivedFrom}


def _canonical(g: Graph, node, seen: frozenset) -> object:
    """A hashable value standing for everything the graph says from ``node`` on.

    Every node with outgoing triples is compared by content (minted and blank nodes, but
    also an ORCID or DOI node whose name the header gives), so the comparison is deep;
    identifiers spelt differently (``doi:`` vs ``https://doi.org/``) are already one IRI,
    and their as-written literals are skipped.
    """
    if isinstance(node, Literal):
        return ("lit", str(node), str(node.datatype or ""), node.language or "")
    if node in seen:
        return ("ref", str(node) if isinstance(node, URIRef) else "_")
    items = [
        (str(p), _canonical(g, o, seen | {node}))
        for p, o in g.predicate_objects(node)
        if p not in _SKIP
    ]
    if not items:
        return ("iri", str(node))
    label = str(node) if isinstance(node, URIRef) and not str(node).startswith(base_iri()) else ""
    return ("node", label, tuple(sorted(items, key=repr)))


def component_values(g: Graph, run: URIRef) -> dict[str, object | None]:
    """Canonical value of each component of ``run`` (``None`` when the header lacks it)."""
    out: dict[str, object | None] = {}
    for _letter, key, pred in COMPONENTS:
        objs = sorted((_canonical(g, o, frozenset({run})) for o in g.objects(run, pred)), key=repr)
        out[key] = tuple(objs) if objs else None
    return out


def test_collection_value(g: Graph, run: URIRef) -> object | None:
    """Canonical value of the run's test collection (data.test collection), if stated."""
    objs = sorted(
        (
            _canonical(g, tc, frozenset({run}))
            for d in g.objects(run, RK.data)
            for tc in g.objects(d, RK.testCollection)
        ),
        key=repr,
    )
    return tuple(objs) if objs else None


@dataclass
class PrimadComparison:
    """Which components changed between an original and a reproducing run."""

    changed: dict[str, bool]
    same_test_collection: bool | None
    warnings: list[str] = field(default_factory=list)

    @property
    def signature(self) -> str:
        return "".join(
            letter.upper() if self.changed[key] else letter for letter, key, _ in COMPONENTS
        )

    @property
    def collection_kind(self) -> str | None:
        if self.same_test_collection is None:
            return None
        return SAME if self.same_test_collection else CROSS


def compare_runs(g1: Graph, run1: URIRef, g2: Graph, run2: URIRef) -> PrimadComparison:
    """Deep comparison of the six components of two runs (each in its own graph)."""
    a, b = component_values(g1, run1), component_values(g2, run2)
    changed = {key: a[key] != b[key] for _l, key, _p in COMPONENTS}
    warnings = []
    missing = [key for _l, key, _p in COMPONENTS if a[key] is None and b[key] is None]
    if missing:
        warnings.append(
            "PRIMAD: neither header describes " + ", ".join(missing) + "; counted as unchanged"
        )
    tc1, tc2 = test_collection_value(g1, run1), test_collection_value(g2, run2)
    same_tc = None if tc1 is None or tc2 is None else tc1 == tc2
    return PrimadComparison(changed, same_tc, warnings)


@cache
def _study_kinds() -> tuple[tuple[URIRef, re.Pattern[str]], ...]:
    """Study-kind concepts and their signature patterns, read from ontology/primad.ttl."""
    g = Graph()
    path = data_dir("ontology") / "primad.ttl"
    if path.is_file():
        parse_package_file(path, graph=g)
    kinds: list[tuple[URIRef, re.Pattern[str]]] = []
    for concept, pattern in g.subject_objects(RK.signaturePattern):
        if (concept, SKOS.inScheme, RK.StudyKindScheme) in g or (
            concept,
            RDF.type,
            SKOS.Concept,
        ) in g:
            kinds.append((cast(URIRef, concept), re.compile(str(pattern))))  # named concepts
    return tuple(sorted(kinds, key=lambda k: str(k[0])))


def study_kinds(signature: str) -> list[URIRef]:
    """Concepts of rk:StudyKindScheme whose rk:signaturePattern matches the signature."""
    return [c for c, pattern in _study_kinds() if pattern.search(signature)]


def study_kind_label(signature: str | None) -> str:
    """The study kinds of a PRIMAD signature in the ontology's words (``independent
    repeat``), as the comparison and passport pages label the stored ``rk:studyKind``
    (:func:`reprokg.ontology.labels.label`); "-" without a signature or kind."""
    from reprokg.ontology.labels import label

    kinds = study_kinds(signature) if signature else []
    return ", ".join(label(str(c)) or str(c) for c in kinds) or "-"


def baseline_tags(g: Graph, run: URIRef) -> list[str]:
    """Tags the run names as its baselines (research goal.evaluation.baseline)."""
    return sorted(
        str(t)
        for goal in g.objects(run, RK.researchGoal)
        for ev in g.objects(goal, RK.evaluation)
        for t in g.objects(ev, RK.baselineRunTag)
    )


def run_tag(g: Graph, run: URIRef) -> str | None:
    tag = g.value(run, RK.runTag)
    return None if tag is None else str(tag)


def pair_by_metadata(runs: list[tuple[Graph, URIRef]]) -> list[tuple[int, int]]:
    """(baseline index, advanced index) pairs: an advanced run names its baseline's tag."""
    tags = {run_tag(g, r): i for i, (g, r) in enumerate(runs) if run_tag(g, r)}
    pairs = []
    for j, (g, r) in enumerate(runs):
        for t in baseline_tags(g, r):
            i = tags.get(t)
            if i is not None and i != j:
                pairs.append((i, j))
    return pairs
