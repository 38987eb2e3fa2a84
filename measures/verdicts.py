"""Verdicts from declared acceptance rules: a comparison's measures -> an outcome, with evidence.

A rule (:class:`Rule`) is a list of conditions on the measures of one comparison, declared
in a YAML file of named rules: the presets ship as ``measures/rules/presets.yaml``; a
user's file has the same form (``--rules FILE``). :func:`apply` reads each condition's
value from the comparison (compare's JSON, and the runs' mean effectiveness as ``arp``)
and decides it; the outcome is *reproduced* when every condition holds, *not reproduced*
when none does, *partially reproduced* when some do, and *inconclusive* when a value a
condition needs is not there. Nothing here computes a statistic: a rule reads what the
comparison reports (intervals included, when it reports them). Without a rule there is no
verdict: nothing calls :func:`apply` without one, and the shapes reject a computed
assessment that names no rule.

:class:`Verdict` is a typed result (``core/results.py``): its JSON is what ``reprokg
compare --rule`` prints and ``POST /comparisons`` answers, its document a
``rk:ReproductionAssessment`` (kind ``assessment``) whose evidence is the comparison and
whose ``rk:acceptanceRule`` is the rule, with each condition's value and result. The
source key holds the rule's content: a changed rule gives a new assessment that names
the earlier one with ``prov:wasRevisionOf`` (both stay); the same rule again is unchanged.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from reprokg.core.errors import LoadError, NotFound, UsageError
from reprokg.core.hashing import content_hash, stable_key

PRESETS = "measures/rules/presets.yaml"
TESTS = ("within", "at_least", "at_most", "relative_tolerance", "interval_contains")
SIDES = ("baseline", "advanced")
OUTCOMES = ("reproduced", "partially-reproduced", "not-reproduced", "inconclusive")


@dataclass(frozen=True)
class Condition:
    """One condition: a measure (at an effectiveness measure, on a side) and one test."""

    measure: str
    test: str
    bound: Any
    at: str | None = None
    side: str | None = None

    def text(self) -> str:
        where = ",".join(x for x in (self.side, self.at) if x)
        name = f"{self.measure}[{where}]" if where else self.measure
        b = self.bound
        if self.test == "within":
            words = f"within [{_num(b[0])}, {_num(b[1])}]"
        else:
            words = {
                "at_least": f">= {_num(b)}",
                "at_most": f"<= {_num(b)}",
                "relative_tolerance": f"within {_num(100 * b)}% of the original",
                "interval_contains": f"interval contains {_num(b)}",
            }[self.test]
        return f"{name} {words}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"measure": self.measure, self.test: self.bound}
        if self.at:
            out["at"] = self.at
        if self.side:
            out["side"] = self.side
        return out


@dataclass(frozen=True)
class Rule:
    name: str
    conditions: tuple[Condition, ...]
    description: str = ""
    citation: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "citation": self.citation,
            "conditions": [c.to_json() for c in self.conditions],
        }

    @property
    def sha256(self) -> str:
        return content_hash(json.dumps(self.to_json(), sort_keys=True).encode("utf-8"))


def _num(x: Any) -> str:
    return f"{x:g}" if isinstance(x, int | float) else str(x)


def _number(v: Any, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise LoadError(f"{where}: expected a number, got {v!r}", field=where)
    return float(v)


def parse_rules(data: Any, source: str) -> dict[str, Rule]:
    """Rules from a parsed YAML/JSON mapping ``{rules: {NAME: {conditions: […]}}}`` (a bare
    ``{NAME: …}`` or a single rule ``{name, conditions}`` is accepted too)."""
    if isinstance(data, Mapping) and "conditions" in data:
        data = {"rules": {str(data.get("name") or "rule"): data}}
    rules = data.get("rules", data) if isinstance(data, Mapping) else None
    if not isinstance(rules, Mapping) or not rules:
        raise LoadError("expected a mapping 'rules' of named rules", source=source, field="rules")
    out = {}
    for name, body in rules.items():
        where = f"rules.{name}"
        if not isinstance(body, Mapping) or not isinstance(body.get("conditions"), list):
            raise LoadError(f"{where}: a rule has a list 'conditions'", source=source, field=where)
        if not body["conditions"]:
            raise LoadError(f"{where}: a rule states at least one condition", source=source)
        conds = []
        for i, c in enumerate(body["conditions"]):
            cw = f"{where}.conditions[{i}]"
            if not isinstance(c, Mapping) or not isinstance(c.get("measure"), str):
                raise LoadError(f"{cw}: a condition names a 'measure'", source=source, field=cw)
            tests = [t for t in TESTS if t in c]
            if len(tests) != 1:
                raise LoadError(
                    f"{cw}: exactly one test of {', '.join(TESTS)}", source=source, field=cw
                )
            unknown = set(c) - {"measure", "at", "side", *TESTS}
            if unknown:
                raise LoadError(f"{cw}: unknown key(s) {', '.join(sorted(map(str, unknown)))}",
                                source=source, field=cw)  # fmt: skip
            test, bound = tests[0], c[tests[0]]
            if test == "within":
                if not isinstance(bound, list) or len(bound) != 2:
                    raise LoadError(f"{cw}.within: [low, high]", source=source, field=cw)
                bound = (_number(bound[0], cw), _number(bound[1], cw))
                if bound[0] > bound[1]:
                    raise LoadError(f"{cw}.within: low > high", source=source, field=cw)
            else:
                bound = _number(bound, f"{cw}.{test}")
            side = c.get("side")
            if side is not None and side not in SIDES:
                raise LoadError(f"{cw}.side: baseline or advanced", source=source, field=cw)
            if test == "relative_tolerance" and c["measure"] != "arp":
                raise LoadError(f"{cw}: relative_tolerance applies to arp", source=source)
            at = c.get("at")
            conds.append(Condition(c["measure"], test, bound, str(at) if at else None, side))
        out[str(name)] = Rule(
            str(name),
            tuple(conds),
            str(body.get("description") or ""),
            str(body.get("citation") or ""),
        )
    return out


def presets() -> dict[str, Rule]:
    import yaml

    from reprokg.core.resources import data_dir

    text = data_dir("measures").joinpath("rules", "presets.yaml").read_text(encoding="utf-8")
    return parse_rules(yaml.safe_load(text), PRESETS)


def rules_from_file(path: str) -> dict[str, Rule]:
    """The rules of a user's YAML or JSON file (read with the input limits)."""
    from reprokg.loaders.source import decode_text, read_bytes
    from reprokg.loaders.yaml_scalars import parse_yaml

    data, name = read_bytes(path)
    parsed = parse_yaml(decode_text(data, name), name)
    return parse_rules(_plain(parsed), name)


def _plain(v: Any) -> Any:
    """YAML scalars kept as written -> the values YAML means (numbers for bounds)."""
    from reprokg.loaders.yaml_scalars import Scalar

    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, Scalar):
        return v.implicit
    return v


def resolve(spec: str | Mapping[str, Any], rules_file: str | None = None) -> Rule:
    """A rule by preset name, by name in ``rules_file``, or given inline (a mapping)."""
    if isinstance(spec, Mapping):
        (rule,) = parse_rules(spec, "rule").values()
        return rule
    known = presets()
    if rules_file:
        known = {**known, **rules_from_file(rules_file)}
    if spec not in known:
        raise NotFound(f"no acceptance rule {spec!r}; known rules: {', '.join(sorted(known))}")
    return known[spec]


# --------------------------------------------------------------------------- applying


@dataclass(frozen=True)
class ConditionResult:
    condition: Condition
    value: Any  # a number, a [low, high] pair, (original, reproduced) for arp, or None
    held: bool | None  # None: the value is not in the comparison

    def text(self) -> str:
        if self.held is None:
            return f"{self.condition.text()}: not available in the comparison"
        v = self.value
        shown = (
            f"original {_num(v[0])}, reproduced {_num(v[1])}"
            if self.condition.measure == "arp"
            else f"[{_num(v[0])}, {_num(v[1])}]"
            if isinstance(v, list | tuple)
            else _num(v)
        )
        return f"{self.condition.text()}: {shown} -> {'holds' if self.held else 'fails'}"

    def to_json(self) -> dict[str, Any]:
        return {
            "condition": self.condition.text(),
            "value": list(self.value) if isinstance(self.value, tuple) else self.value,
            "held": self.held,
        }


def _value(measures: Mapping[str, Any], means: Mapping[str, Mapping[str, float]], c: Condition):
    if c.measure == "arp":
        side = c.side or "baseline"
        role = "base" if side == "baseline" else "adv"
        o, r = (
            means.get(f"orig_{role}", {}).get(c.at or ""),
            means.get(f"rep_{role}", {}).get(c.at or ""),
        )
        return None if o is None or r is None else (o, r)
    if c.test == "interval_contains" and f"{c.measure}_low" in measures:
        # an interval reported as two measures (mean_diff_low, mean_diff_high)
        ends = [_value(measures, means, Condition(f"{c.measure}_{e}", "at_least", 0, c.at, c.side))
                for e in ("low", "high")]  # fmt: skip
        return None if None in ends else ends
    v = measures.get(c.measure)
    if isinstance(v, Mapping) and c.side is not None:
        v = v.get(c.side)
    if isinstance(v, Mapping) and c.at is not None:
        v = v.get(c.at)
    if isinstance(v, Mapping) and c.side is None and "baseline" in v:
        v = v.get("baseline")
    return v


def _held(c: Condition, v: Any) -> bool | None:
    if v is None:
        return None
    if c.test == "interval_contains":
        if not isinstance(v, list | tuple) or len(v) != 2 or None in v:
            return None
        return float(v[0]) <= c.bound <= float(v[1])
    if c.test == "relative_tolerance":
        o, r = v
        return abs(r - o) <= c.bound * abs(o)
    if not isinstance(v, int | float) or isinstance(v, bool) or not math.isfinite(v):
        return None
    if c.test == "within":
        return c.bound[0] <= v <= c.bound[1]
    return v >= c.bound if c.test == "at_least" else v <= c.bound


def decide(results: list[ConditionResult]) -> str:
    """All hold: reproduced; none: not reproduced; some: partially; one unknown: inconclusive."""
    held = [r.held for r in results]
    if any(h is None for h in held):
        return "inconclusive"
    if all(held):
        return "reproduced"
    return "not-reproduced" if not any(held) else "partially-reproduced"


@dataclass
class Verdict:
    """The outcome of one rule on one comparison, with the values it rests on."""

    KIND: ClassVar[str] = "assessment"

    rule: Rule
    comparison: str  # the comparison node's IRI
    results: list[ConditionResult]
    #: the assessed work: the original run's publication, else the original run
    work: str
    claim: str = "the original runs' effectiveness, as the rule reads it"
    supersedes: list[str] = field(default_factory=list)

    @property
    def outcome(self) -> str:
        return decide(self.results)

    @property
    def key(self) -> str:
        return stable_key("verdict", self.comparison, self.rule.name, self.rule.sha256)

    def to_json(self) -> dict[str, Any]:
        from reprokg.core.identifiers import mint

        return {
            "outcome": self.outcome,
            "rule": self.rule.to_json(),
            "conditions": [r.to_json() for r in self.results],
            "comparison": self.comparison,
            "work": self.work,
            "assessment": str(mint("assessment", self.key)),
            "supersedes": list(self.supersedes),
        }

    def to_graph(self):
        from rdflib import RDF, Literal, URIRef
        from rdflib.namespace import PROV

        from reprokg import __version__
        from reprokg.core.identifiers import mint
        from reprokg.core.namespaces import RK, new_graph
        from reprokg.loaders.evidence import OUTCOMES, Assessment

        g = new_graph()
        node = mint("assessment", self.key)
        agent = mint("agent", f"reprokg-{__version__}")
        g.add((agent, RDF.type, PROV.SoftwareAgent))
        g.add((agent, RDF.type, PROV.Agent))
        rule = mint("acceptance-rule", stable_key(self.rule.name, self.rule.sha256))
        g.add((rule, RDF.type, RK.AcceptanceRule))
        g.add((rule, RDF.type, PROV.Plan))
        g.add((rule, RK.ruleName, Literal(self.rule.name)))
        for c in self.rule.conditions:
            g.add((rule, RK.ruleCondition, Literal(c.text())))
        if self.rule.description:
            g.add((rule, RK.evidenceNote, Literal(self.rule.description)))
        comparison = URIRef(self.comparison)
        g.add((comparison, RDF.type, RK.ReproductionComparison))
        Assessment(
            node=node,
            outcome=OUTCOMES[self.outcome],
            method=RK.ComputedAcceptanceRule,
            assessor=agent,
            source=RK.ComputedVerdicts,
            work=URIRef(self.work),
            claim=self.claim,
            as_written=self.outcome,
            note=f"rule {self.rule.name}: " + "; ".join(r.text() for r in self.results),
            evidence=[comparison],
        ).add_to(g)
        g.add((node, RK.acceptanceRule, rule))
        for r in self.results:
            g.add((node, RK.conditionResult, Literal(r.text())))
        for old in self.supersedes:
            g.add((node, PROV.wasRevisionOf, URIRef(old)))
        return g

    def document(self):
        from rdflib import URIRef

        from reprokg.core.identifiers import mint
        from reprokg.core.results import (
            Computation,
            canonical_json,
            result_document,
            software_versions,
        )

        payload = canonical_json(self.to_json())
        return result_document(
            kind=self.KIND,
            subject=mint("assessment", self.key),
            graph=self.to_graph(),
            computation=Computation(
                label=f"verdict by acceptance rule {self.rule.name} (reprokg compare --rule)",
                key=stable_key("verdict-activity", self.key),
                used=[URIRef(self.comparison)],
                software=software_versions(),
                parameters={"rule": self.rule.name, "rule_sha256": self.rule.sha256},
            ),
            source=payload,
            source_key=f"assessment:verdict:{self.key}",
            source_name=f"verdict-{self.rule.name}.json",
            producer="reprokg.measures.verdicts",
        )


def apply(
    rule: Rule,
    measures: Mapping[str, Any],
    means: Mapping[str, Mapping[str, float]],
    *,
    comparison: str,
    work: str,
) -> Verdict:
    """The verdict of ``rule`` on a comparison's measures (compare's JSON ``measures``) and
    its runs' mean effectiveness (``arp``)."""
    if not rule.conditions:
        raise UsageError(f"rule {rule.name} states no condition: no verdict")
    results = []
    for c in rule.conditions:
        v = _value(measures, means, c)
        results.append(ConditionResult(c, v, _held(c, v)))
    return Verdict(rule, comparison, results, work)


WORK_QUERY = "measures/sparql/verdict-work.rq"
VERDICTS_QUERY = "measures/sparql/verdicts-of-comparison.rq"


def stored_verdicts(store: Any, comparison: str) -> list[dict[str, str]]:
    """The verdicts stored for a comparison: assessment, rule name, outcome slug, note."""
    from reprokg.loaders.evidence import SLUGS
    from reprokg.sparql.named import package_query
    from reprokg.sparql.rows import select_rows

    rows = select_rows(store, package_query(VERDICTS_QUERY).bind({"comparison": comparison}))
    return [
        {
            "assessment": r["assessment"],
            "rule": r["rule"],
            "outcome": SLUGS.get(r["outcome"], r["outcome"]),
            "note": r.get("note", ""),
        }
        for r in rows
    ]


def save_verdict(store: Any, study: Any, comparison: str, rule: Rule) -> Verdict:
    """Apply ``rule`` to a saved comparison (``study``: measures.study.Study) and store the
    assessment through ingest; an earlier verdict of the same rule name that this one
    differs from is named with ``prov:wasRevisionOf`` (and kept)."""
    from reprokg.core.identifiers import mint
    from reprokg.ingest import write_results
    from reprokg.sparql.named import package_query
    from reprokg.sparql.rows import select_rows

    base = study.inputs["orig_base"]
    run = str(base.subject or mint("run", stable_key("run-lines", base.sha256)))
    found = select_rows(store, package_query(WORK_QUERY).bind({"run": run}))
    work = found[0]["publication"] if found else run
    c = study.comparison
    verdict = apply(rule, c.measures, c.means, comparison=comparison, work=work)
    this = verdict.to_json()["assessment"]
    verdict.supersedes = sorted(
        v["assessment"]
        for v in stored_verdicts(store, comparison)
        if v["rule"] == rule.name and v["assessment"] != this
    )
    write_results(store, [verdict.document()])
    return verdict


def verdict_of(study: Any, rule: Rule) -> Verdict:
    """The verdict without a store (``reprokg compare --rule`` without ``--save``): the work
    is the publication the original run's header names, else the original run."""
    from rdflib import URIRef

    from reprokg.core.identifiers import mint
    from reprokg.core.namespaces import RK
    from reprokg.measures.comparison_document import comparison_document

    base = study.inputs["orig_base"]
    run = base.subject or mint("run", stable_key("run-lines", base.sha256))
    work: Any = run
    if base.has_header and base.graph is not None:
        for goal in base.graph.objects(URIRef(str(run)), RK.researchGoal):
            work = next(iter(base.graph.objects(goal, RK.publication)), work)
    comparison = str(comparison_document(study).subject)
    c = study.comparison
    return apply(rule, c.measures, c.means, comparison=comparison, work=str(work))


EXISTS_QUERY = "measures/sparql/assessment-exists.rq"


def file_dispute(store: Any, assessment: str, reason: str, by: str) -> tuple[Any, Any]:
    """Store a dispute of a stored assessment (``reprokg evidence dispute``, ``POST
    /disputes``): the input checked first (located errors), then the assessment looked up
    (:class:`NotFound` when the store holds none by that IRI), then the dispute written as
    a document of its own. The (document, its ingest outcome)."""
    from reprokg.core.namespaces import RK
    from reprokg.ingest import write_results
    from reprokg.sparql.named import package_query
    from reprokg.sparql.rows import select_rows

    doc = dispute_document(assessment, reason, by)
    target = str(doc.graph.value(doc.subject, RK.disputedAssessment))
    if not select_rows(store, package_query(EXISTS_QUERY).bind({"assessment": target})):
        raise NotFound(
            f"no reproduction assessment <{target}> in the store",
            details={"field": "assessment"},
        )
    return doc, write_results(store, [doc]).documents[0]


def dispute_document(assessment: str, reason: str, by: str):
    """A dispute of ``assessment`` by ``by`` (an ORCID iD, or a name), its own document of
    kind ``assessment``: the disputed assessment is left as it is. The same person's new
    reason for the same assessment revises their dispute. Bad input is a :class:`LoadError`
    naming its field (``assessment``, ``reason``, ``by``)."""
    from rdflib import RDF, Literal, URIRef
    from rdflib.namespace import PROV

    from reprokg.core.document import Document
    from reprokg.core.identifiers import mint
    from reprokg.core.namespaces import RK, new_graph
    from reprokg.ingest import user_agent
    from reprokg.sparql.named import NamedQueryError, Param, to_term

    if not reason.strip():
        raise LoadError("reason: a dispute says why the assessment is wrong", field="reason")
    if not by.strip():
        raise LoadError("by: who disputes (an ORCID iD, or a name)", field="by")
    try:
        assessment = str(to_term(Param("assessment", "iri"), assessment.strip()))
    except NamedQueryError:
        raise LoadError(
            f"assessment: {assessment.strip()!r} is not an absolute IRI; expected the "
            "assessment's IRI (https://…/assessment/…)",
            field="assessment",
        ) from None
    by = by.strip()
    g = new_graph()
    agent = user_agent(by, role="disputer")
    assert agent is not None  # ``by`` is not empty (checked above)
    person, who = agent
    g += who
    key = stable_key("dispute", assessment, str(person))
    node = mint("dispute", key)
    g.add((node, RDF.type, RK.AssessmentDispute))
    g.add((node, RDF.type, PROV.Entity))
    g.add((node, RK.disputedAssessment, URIRef(assessment)))
    g.add((node, RK.disputeReason, Literal(reason.strip())))
    g.add((node, PROV.wasAttributedTo, person))
    payload = json.dumps({"disputes": assessment, "by": by, "reason": reason.strip()})
    return Document(
        kind="assessment",
        graph=g,
        source_name="dispute.json",
        source_bytes=payload.encode("utf-8"),
        loader="reprokg.measures.verdicts",
        loader_version="1",
        source_key=f"assessment:dispute:{key}",
        subject=node,
    )
