"""The reproduction-assessment shapes of shapes/common.ttl: every kind that holds an
assessment is checked the same way, by both engines (REPROKG_SHACL_ENGINE=compare)."""

from __future__ import annotations

import pytest
from rdflib import RDF, Literal, URIRef
from rdflib.namespace import XSD

from reprokg.core.document import Document
from reprokg.core.namespaces import RK, new_graph
from reprokg.core.settings import configure, settings
from reprokg.loaders.evidence import Assessment, agent
from reprokg.validation.batching import validate_documents

PAPER = URIRef("https://doi.org/10.1145/3600006.3613161")
NODE = URIRef("https://w3id.org/reprokg/id/assessment/t1")


def _doc(mutate=None, **kw) -> Document:
    g = new_graph()
    args = dict(
        node=NODE,
        outcome=RK.OutcomeReproduced,
        method=RK.ArtifactEvaluationCommittee,
        assessor=agent(g, "aec:t", "a committee"),
        source=RK.ReproDB,
        work=PAPER,
        date=Literal("2023", datatype=XSD.gYear),
    )
    args.update(kw)
    Assessment(**args).add_to(g)
    if mutate:
        mutate(g)
    return Document("assessment", g, "t.json", repr(sorted(g)).encode(), "t", "1", "t:1")


@pytest.fixture(params=["fast", "compare"])
def engine(request):
    configure(settings().with_(shacl_engine=request.param))
    yield request.param
    configure(None)


def _violations(doc: Document) -> list[str]:
    (report,) = validate_documents([doc])
    return [r.message for r in report.results if r.severity == "Violation"]


def test_a_complete_assessment_conforms(engine) -> None:
    assert _violations(_doc()) == []


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (dict(work=None), "work: an assessment names the work it judges"),
        (dict(outcome=RK.OutcomeGuessed), "outcome: exactly one outcome"),
        (dict(method=RK.Vibes), "method: exactly one assessment method"),
        (dict(date=Literal("last year")), "date: at most one date"),
        (dict(method=RK.ComputedAcceptanceRule), "no rule, no verdict"),
    ],
)
def test_a_broken_assessment_is_rejected(engine, change, expected) -> None:
    assert any(expected in m for m in _violations(_doc(**change)))


def test_a_computed_verdict_with_its_rule_conforms(engine) -> None:
    rule = URIRef("https://w3id.org/reprokg/id/acceptance-rule/r")

    comparison = URIRef("https://w3id.org/reprokg/id/comparison/c")

    def with_rule(g):
        g.add((NODE, RK.acceptanceRule, rule))
        g.add((NODE, RK.evidence, comparison))
        g.add((comparison, RDF.type, RK.ReproductionComparison))
        g.add((NODE, RK.conditionResult, Literal("er[AP] within [0.9, 1.1]: 1 -> holds")))
        g.add((rule, RDF.type, RK.AcceptanceRule))
        g.add((rule, RK.ruleName, Literal("er-within-10pct")))
        g.add((rule, RK.ruleCondition, Literal("er[AP] within [0.9, 1.1]")))

    assert _violations(_doc(with_rule, method=RK.ComputedAcceptanceRule)) == []
    # kind "assessment" (shapes/assessment.ttl): a verdict without its comparison is refused
    bare = _doc(lambda g: g.add((NODE, RK.acceptanceRule, rule)), method=RK.ComputedAcceptanceRule)
    assert any("names the comparison" in m for m in _violations(bare))


def test_the_report_alone_names_the_work(engine) -> None:
    report = URIRef("https://doi.org/10.5281/zenodo.6574625")

    def typed(g):
        g.add((report, RDF.type, RK.ReproductionReport))

    doc = _doc(typed, work=None, report=report, method=RK.JournalReview)
    assert _violations(doc) == []


def test_insufficient_evidence_is_never_reproduced_and_one_rule_per_rule_verdict(engine) -> None:
    """Issue 39: a verdict below its rule's minimum of evidence (rk:evidenceShortfall) whose
    outcome is reproduced is refused; only a comparison's verdict names several rules."""
    rules = [URIRef(f"https://w3id.org/reprokg/id/acceptance-rule/r{i}") for i in (1, 2)]
    comparison = URIRef("https://w3id.org/reprokg/id/comparison/c")

    def verdict(*extra):
        def mutate(g):
            g.add((NODE, RK.evidence, comparison))
            g.add((comparison, RDF.type, RK.ReproductionComparison))
            g.add((NODE, RK.conditionResult, Literal("er[AP] within [0.9, 1.1]: 1 -> holds")))
            for i, rule in enumerate(rules):
                g.add((NODE, RK.acceptanceRule, rule))
                g.add((rule, RDF.type, RK.AcceptanceRule))
                g.add((rule, RK.ruleName, Literal(f"r{i}")))
                g.add((rule, RK.ruleCondition, Literal("er[AP] within [0.9, 1.1]")))
            for triple in extra:
                g.add(triple)

        return mutate

    short = (NODE, RK.evidenceShortfall, Literal("1 topic(s); needs at least 25"))
    two = _violations(_doc(verdict(), method=RK.ComputedAcceptanceRule))
    assert any("at most one acceptance rule" in m for m in two)
    whole = (NODE, RDF.type, RK.ComparisonVerdict)
    parts = [(NODE, RK.ruleVerdict, URIRef(f"{NODE}-r{i}")) for i in (1, 2)]
    reason = (NODE, RK.assessedWorkReason, Literal("the original run is the paper's own"))
    ok = _doc(verdict(whole, reason, *parts), method=RK.ComputedAcceptanceRule,
              outcome=RK.OutcomeInconclusive)  # fmt: skip
    assert _violations(ok) == []
    gamed = _doc(verdict(whole, reason, short, *parts), method=RK.ComputedAcceptanceRule)
    assert any("insufficient evidence" in m for m in _violations(gamed))
