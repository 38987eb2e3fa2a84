"""Verdicts from declared acceptance rules: a comparison's measures -> an outcome, with evidence.

A rule (:class:`Rule`) is a list of conditions on the measures of one comparison, declared
in a YAML file of named rules: the presets ship as ``evidence/rules/presets.yaml``; a
user's file has the same form (``--rules FILE``). :func:`apply` reads each condition's
value from the comparison (compare's JSON, and the runs' mean effectiveness as ``arp``)
and decides it; the outcome is *reproduced* when every condition holds, *not reproduced*
when none does, *partially reproduced* when some do, and *inconclusive* when a value a
condition needs is not there; and *insufficient evidence* (whatever the conditions say)
when the comparison has fewer topics, runs or seeds than the rule declares it needs
(``min_topics``, default 25; ``min_runs``; ``min_seeds``). A rule declares what it judges
(``judges``: baseline, improvement or both), checked against its conditions. Nothing here
computes a statistic: a rule reads what the
comparison reports (intervals included, when it reports them). Without a rule there is no
verdict: nothing calls :func:`apply` without one, and the shapes reject a computed
assessment that names no rule.

:class:`Verdict` is a typed result (``core/computed.py``): one rule's, its JSON an item of
``verdicts`` in what ``reprokg compare --rule`` prints and ``POST /comparisons`` answers,
its document a ``rk:ReproductionAssessment`` (kind ``assessment``) of the comparison
(evidence and assessed work), whose ``rk:acceptanceRule`` is the rule, with each
condition's value and result, the evidence counts and compare's warnings. The source key
holds the rule's content: a changed rule gives a new assessment that names the earlier one
with ``prov:wasRevisionOf`` (both stay); the same rule again is unchanged.
:class:`ComparisonVerdict` is the comparison's one verdict over the rules applied
(:func:`combine`: reproduced only if every rule says so), JSON ``verdict``; it alone may
judge a paper, when :func:`attachment` finds the original run to be the paper's own.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from reprokg.core.errors import LoadError, NotFound, UsageError
from reprokg.core.hashing import content_hash, stable_key

PRESETS = "evidence/rules/presets.yaml"
TESTS = ("within", "at_least", "at_most", "relative_tolerance", "interval_contains")
SIDES = ("baseline", "advanced")
OUTCOMES = (
    "reproduced",
    "partially-reproduced",
    "not-reproduced",
    "inconclusive",
    "insufficient-evidence",
)
#: what a rule judges: the baseline's reproduction, the improvement's (the advanced run and
#: the effect across sides), or both
JUDGES = ("baseline", "improvement", "both")
#: the measures that read both sides (the improvement of the advanced over the baseline run)
ACROSS_SIDES = ("er", "dri", "dri_low", "dri_high")
#: a rule's minimum of topics when it declares none: 25 (Voorhees & Buckley, SIGIR 2002,
#: "The effect of topic set size on retrieval experiment error": with fewer than 25 topics
#: the error rate of deciding which of two systems is better grows steeply; TREC's 50 is the
#: customary size, and 25 the smallest the IR literature treats as a test collection)
DEFAULT_MIN_TOPICS = 25
#: the runs a comparison needs: original and reproduced baseline; + both advanced runs
RUNS_NEEDED = {"baseline": 2, "improvement": 4, "both": 4}
#: the outcome of a rule applied below its declared minimum of evidence
INSUFFICIENT = "insufficient-evidence"


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

    @property
    def judges(self) -> str:
        """``baseline`` when the condition reads the baseline side only (a per-side measure
        without a side reads the baseline), else ``improvement``."""
        if self.measure in ACROSS_SIDES or self.side == "advanced":
            return "improvement"
        return "baseline"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"measure": self.measure, self.test: self.bound}
        if self.at:
            out["at"] = self.at
        if self.side:
            out["side"] = self.side
        return out


@dataclass(frozen=True)
class Rule:
    """A named rule: its conditions, what it judges and the least evidence it decides on
    (below it the outcome is *insufficient evidence*, never *reproduced*)."""

    name: str
    conditions: tuple[Condition, ...]
    description: str = ""
    citation: str = ""
    judges: str = "baseline"
    min_topics: int = DEFAULT_MIN_TOPICS
    min_runs: int = 2
    #: the least number of random seeds per run; None: the rule asks for none (TREC runs
    #: are deterministic rankings and carry no seed)
    min_seeds: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "citation": self.citation,
            "judges": self.judges,
            "min_topics": self.min_topics,
            "min_runs": self.min_runs,
            "conditions": [c.to_json() for c in self.conditions],
        }
        if self.min_seeds is not None:
            out["min_seeds"] = self.min_seeds
        return out

    def minimum_text(self) -> str:
        """The rule's minimum of evidence in words (``at least 25 topics, 2 runs``)."""
        parts = [f"{self.min_topics} topics", f"{self.min_runs} runs"]
        if self.min_seeds is not None:
            parts.append(f"{self.min_seeds} seeds")
        return "at least " + ", ".join(parts)

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
        out[str(name)] = _rule(str(name), body, tuple(conds), source, where)
    return out


def _rule(
    name: str, body: Mapping[str, Any], conds: tuple[Condition, ...], source: str, where: str
) -> Rule:
    """The rule with what it judges and its minimum of evidence: as declared (checked
    against its conditions), else inferred (judges) or the defaults (25 topics; 2 runs for
    the baseline, 4 with the advanced runs)."""
    scopes = {c.judges for c in conds}
    inferred = scopes.pop() if len(scopes) == 1 else "both"
    judges = body.get("judges", inferred)
    if judges not in JUDGES:
        raise LoadError(f"{where}.judges: one of {', '.join(JUDGES)}", source=source,
                        field=f"{where}.judges")  # fmt: skip
    if judges != inferred:
        reads = "; ".join(f"[{i}] {c.text()} ({c.judges})" for i, c in enumerate(conds))
        raise LoadError(
            f"{where}.judges: declared {judges}, but its conditions judge {inferred}: {reads}",
            source=source,
            field=f"{where}.judges",
        )
    least = RUNS_NEEDED[judges]
    minima: dict[str, int | None] = {
        "min_topics": DEFAULT_MIN_TOPICS,
        "min_runs": least,
        "min_seeds": None,
    }
    for key in minima:
        if key not in body:
            continue
        v = body[key]
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise LoadError(f"{where}.{key}: a whole number, at least 1, got {v!r}",
                            source=source, field=f"{where}.{key}")  # fmt: skip
        minima[key] = v
    if (minima["min_runs"] or 0) < least:
        raise LoadError(
            f"{where}.min_runs: a rule judging {judges} compares at least {least} runs",
            source=source,
            field=f"{where}.min_runs",
        )
    return Rule(
        name,
        conds,
        str(body.get("description") or ""),
        str(body.get("citation") or ""),
        judges,
        int(minima["min_topics"] or DEFAULT_MIN_TOPICS),
        int(minima["min_runs"] or least),
        minima["min_seeds"],
    )


def presets() -> dict[str, Rule]:
    import yaml

    from reprokg.core.resources import data_dir

    text = data_dir("evidence").joinpath("rules", "presets.yaml").read_text(encoding="utf-8")
    return parse_rules(yaml.safe_load(text), PRESETS)


def rules_from_file(path: str) -> dict[str, Rule]:
    """The rules of a user's YAML or JSON file (read with the input limits)."""
    from reprokg.loaders.reading.source import decode_text, read_bytes
    from reprokg.loaders.reading.yaml_scalars import parse_yaml

    data, name = read_bytes(path)
    parsed = parse_yaml(decode_text(data, name), name)
    return parse_rules(_plain(parsed), name)


def _plain(v: Any) -> Any:
    """YAML scalars kept as written -> the values YAML means (numbers for bounds)."""
    from reprokg.loaders.reading.yaml_scalars import Scalar

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


def combine(outcomes: list[str]) -> str:
    """One comparison's outcome from its rules' outcomes, conservatively: *reproduced* only
    when every rule says reproduced; a rule that says not (or partially) reproduced makes it
    *not reproduced* (every decided rule says not) or *partially reproduced*; otherwise a
    rule that could not decide makes it *insufficient evidence* or *inconclusive*."""
    if outcomes and all(o == "reproduced" for o in outcomes):
        return "reproduced"
    decided = [o for o in outcomes if o in ("reproduced", "partially-reproduced", "not-reproduced")]
    if any(o != "reproduced" for o in decided):
        negative = all(o == "not-reproduced" for o in decided)
        return "not-reproduced" if negative else "partially-reproduced"
    return INSUFFICIENT if INSUFFICIENT in outcomes or not outcomes else "inconclusive"


@dataclass(frozen=True)
class Evidence:
    """What a comparison rests on: per run role, the judged topics its run ranks (the
    topics the comparison scores, for a run read without its rankings), and the seeds."""

    topics: Mapping[str, int]
    seeds: int | None = None

    @property
    def runs(self) -> int:
        return len(self.topics)

    def topics_for(self, judges: str) -> int | None:
        """The fewest topics of the runs a rule judging ``judges`` reads."""
        roles = ("orig_base", "rep_base") if judges == "baseline" else tuple(self.topics)
        counts = [self.topics[r] for r in roles if r in self.topics]
        return min(counts) if counts else None

    def shortfall(self, rule: Rule) -> list[str]:
        """Why the comparison is below the rule's minimum of evidence (empty: it is not)."""
        out = []
        topics = self.topics_for(rule.judges)
        if topics is None or topics < rule.min_topics:
            out.append(
                f"{topics or 0} topic(s) judged and ranked by the runs the rule reads; rule "
                f"{rule.name} needs at least {rule.min_topics}"
            )
        if self.runs < rule.min_runs:
            out.append(
                f"{self.runs} run(s) compared; rule {rule.name} (judges {rule.judges}) needs "
                f"at least {rule.min_runs}"
            )
        if rule.min_seeds is not None and (self.seeds or 0) < rule.min_seeds:
            out.append(
                f"{self.seeds or 0} seed(s) per run; rule {rule.name} needs at least "
                f"{rule.min_seeds}"
            )
        return out

    def to_json(self) -> dict[str, Any]:
        return {"topics": dict(self.topics), "runs": self.runs, "seeds": self.seeds}


def evidence_of(study: Any) -> Evidence:
    """The evidence of a comparison (``measures.run_comparison.RunComparison``): per run
    role, the topics judged by the qrels that judge it and ranked by the run. A judged topic
    the run does not rank scores 0 on both sides alike and is no evidence of reproduction."""
    from reprokg.measures.inputs import judging_qrels

    c = study.comparison
    counts = {}
    for role, inp in study.inputs.items():
        judged = judging_qrels(role, c.kind, study.qrels, study.qrels_rpl).qrels
        if inp.run.topics:
            counts[role] = len(set(inp.run.topics) & set(judged))
        else:  # read without its rankings (a forked child's run): what the comparison scored
            scored = c.scores.get(role)
            counts[role] = len(scored.topics) if scored is not None else 0
    return Evidence(counts)


def _rule_node(g: Any, rule: Rule) -> Any:
    """The rule as a ``rk:AcceptanceRule`` (a ``prov:Plan``) with its declarations."""
    from rdflib import RDF, Literal
    from rdflib.namespace import PROV

    from reprokg.core.identifiers import mint
    from reprokg.core.namespaces import RK

    node = mint("acceptance-rule", stable_key(rule.name, rule.sha256))
    g.add((node, RDF.type, RK.AcceptanceRule))
    g.add((node, RDF.type, PROV.Plan))
    g.add((node, RK.ruleName, Literal(rule.name)))
    for c in rule.conditions:
        g.add((node, RK.ruleCondition, Literal(c.text())))
    if rule.description:
        g.add((node, RK.evidenceNote, Literal(rule.description)))
    g.add((node, RK.ruleJudges, Literal(rule.judges)))
    g.add((node, RK.minTopics, Literal(rule.min_topics)))
    g.add((node, RK.minRuns, Literal(rule.min_runs)))
    if rule.min_seeds is not None:
        g.add((node, RK.minSeeds, Literal(rule.min_seeds)))
    return node


def _agent(g: Any) -> Any:
    from rdflib import RDF
    from rdflib.namespace import PROV

    from reprokg import __version__
    from reprokg.core.identifiers import mint

    agent = mint("agent", f"reprokg-{__version__}")
    g.add((agent, RDF.type, PROV.SoftwareAgent))
    g.add((agent, RDF.type, PROV.Agent))
    return agent


def _outcome_concept(outcome: str) -> Any:
    """The outcome's concept: *insufficient evidence* is an inconclusive outcome (its
    ``rk:outcomeAsWritten`` says which, ``rk:evidenceShortfall`` why)."""
    from reprokg.core.namespaces import RK
    from reprokg.loaders.evidence import OUTCOMES as CONCEPTS

    return RK.OutcomeInconclusive if outcome == INSUFFICIENT else CONCEPTS[outcome]


@dataclass
class Verdict:
    """The outcome of one rule on one comparison, with the values it rests on. Its
    assessment judges the comparison (``work``), never a paper: the paper gets the one
    :class:`ComparisonVerdict` of the comparison, which names this one."""

    KIND: ClassVar[str] = "assessment"

    rule: Rule
    comparison: str  # the comparison node's IRI
    results: list[ConditionResult]
    #: the assessed work: the comparison
    work: str
    claim: str = "the original runs' effectiveness, as the rule reads it"
    supersedes: list[str] = field(default_factory=list)
    #: the comparison's topics and runs (None: not known, which is insufficient evidence)
    evidence: Evidence | None = None
    #: the comparison's own warnings (compare's)
    warnings: list[str] = field(default_factory=list)

    @property
    def shortfall(self) -> list[str]:
        if self.evidence is None:
            return [f"the comparison's topics and runs are not known; rule {self.rule.name} "
                    f"needs {self.rule.minimum_text()}"]  # fmt: skip
        return self.evidence.shortfall(self.rule)

    @property
    def outcome(self) -> str:
        return INSUFFICIENT if self.shortfall else decide(self.results)

    @property
    def key(self) -> str:
        return stable_key("verdict", self.comparison, self.rule.name, self.rule.sha256)

    @property
    def iri(self) -> str:
        from reprokg.core.identifiers import mint

        return str(mint("assessment", self.key))

    def to_json(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "rule": self.rule.to_json(),
            "conditions": [r.to_json() for r in self.results],
            "comparison": self.comparison,
            "work": self.work,
            "assessment": self.iri,
            "supersedes": list(self.supersedes),
            "judges": self.rule.judges,
            "evidence": self.evidence.to_json() if self.evidence is not None else None,
            "insufficient_evidence": self.shortfall,
            "warnings": list(self.warnings),
        }

    def note(self) -> str:
        text = f"rule {self.rule.name}: " + "; ".join(r.text() for r in self.results)
        if self.shortfall:
            text += "; insufficient evidence: " + "; ".join(self.shortfall)
        return text

    def to_graph(self):
        from rdflib import Literal, URIRef
        from rdflib.namespace import PROV, RDF

        from reprokg.core.namespaces import RK, new_graph
        from reprokg.loaders.evidence import Assessment

        g = new_graph()
        node = URIRef(self.iri)
        agent = _agent(g)
        rule = _rule_node(g, self.rule)
        comparison = URIRef(self.comparison)
        g.add((comparison, RDF.type, RK.ReproductionComparison))
        Assessment(
            node=node,
            outcome=_outcome_concept(self.outcome),
            method=RK.ComputedAcceptanceRule,
            assessor=agent,
            source=RK.ComputedVerdicts,
            work=URIRef(self.work),
            claim=self.claim,
            as_written=self.outcome,
            note=self.note(),
            evidence=[comparison],
        ).add_to(g)
        g.add((node, RK.acceptanceRule, rule))
        for r in self.results:
            g.add((node, RK.conditionResult, Literal(r.text())))
        for reason in self.shortfall:
            g.add((node, RK.evidenceShortfall, Literal(reason)))
        for w in self.warnings:
            g.add((node, RK.comparisonWarning, Literal(w)))
        for old in self.supersedes:
            g.add((node, PROV.wasRevisionOf, URIRef(old)))
        return g

    def document(self):
        from rdflib import URIRef

        from reprokg.core.computed import (
            Computation,
            canonical_json,
            result_document,
            software_versions,
        )

        payload = canonical_json(self.to_json())
        return result_document(
            kind=self.KIND,
            subject=URIRef(self.iri),
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
            producer="reprokg.evidence.verdicts",
        )


@dataclass(frozen=True)
class Attachment:
    """Whose reproduction a comparison's verdict judges: the paper the original run's
    header names when the run is that paper's own, else the original run; and why."""

    work: str
    paper: str | None  # the paper the header names, attached or not
    attached: bool
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "work": self.work,
            "paper": self.paper,
            "attached_to_paper": self.attached,
            "reason": self.reason,
        }


def _collection_id(text: str) -> str:
    """An ir_datasets id as written (``nyt``, ``https://ir-datasets.com/nyt``) compared."""
    from reprokg.loaders.ir_datasets import dataset_id

    return dataset_id(text).lower()


def attachment(study: Any, rules: list[Rule], store: Any = None) -> Attachment:
    """The work a comparison's verdict judges. The paper the original baseline run's header
    names (``research goal.publication``) only when the header also ties the run to that
    paper's results: the measures it reports (``research goal.evaluation.reported
    measures``) include every effectiveness measure the rules read, or its test collection
    (``data.test collection.ir_datasets``) is the comparison's (``--collection``); and a
    test collection it states is not another one. Otherwise the original run, and why."""
    from rdflib import URIRef

    from reprokg.core.identifiers import mint
    from reprokg.core.namespaces import RK
    from reprokg.measures.reported import ir_measures_name, reported_measures

    base = study.inputs["orig_base"]
    run = str(base.subject or mint("run", stable_key("run-lines", base.sha256)))
    with_header = (base.has_header or base.document is not None) and base.graph is not None
    papers: list[str] = []
    collections: list[str] = []
    if with_header:
        g, subject = base.graph, URIRef(run)
        papers = sorted(
            {str(p) for goal in g.objects(subject, RK.researchGoal)
             for p in g.objects(goal, RK.publication)}
        )  # fmt: skip
        collections = sorted(
            {_collection_id(str(i)) for d in g.objects(subject, RK.data)
             for tc in g.objects(d, RK.testCollection) for i in g.objects(tc, RK.irDatasetsId)}
        )  # fmt: skip
    elif store is not None:
        from reprokg.sparql.named import package_query
        from reprokg.sparql.rows import select_rows

        found = select_rows(store, package_query(WORK_QUERY).bind({"run": run}))
        papers = [found[0]["publication"]] if found else []
    if not papers:
        return Attachment(run, None, False, "the original run's header names no publication")
    paper = papers[0]
    if len(papers) > 1:
        why = f"the original run's header names {len(papers)} publications ({', '.join(papers)})"
        return Attachment(run, paper, False, why + "; whose run it is is unclear")
    wanted = sorted({c.at for r in rules for c in r.conditions if c.at})
    reported = {ir_measures_name(m) or m for m in reported_measures(base)}
    ours = _collection_id(study.qrels.collection) if study.qrels.collection else None
    if collections and ours and ours not in collections:
        return Attachment(run, paper, False,
                          f"the original run's header names the test collection "
                          f"{', '.join(collections)}, the comparison's qrels are of {ours}: "
                          f"not the run of {paper}")  # fmt: skip
    ties = []
    if wanted and set(wanted) <= reported:
        ties.append(f"its header reports {', '.join(wanted)}, the measure(s) the rules read")
    if collections and ours in collections:
        ties.append(f"its header's test collection {ours} is the comparison's")
    if not ties:
        said = ", ".join(sorted(reported)) or "none"
        return Attachment(
            run,
            paper,
            False,
            f"the original run's header names {paper} but reports neither the measure(s) the "
            f"rules read ({', '.join(wanted) or 'none'}; it reports {said}) nor the "
            f"comparison's test collection ({ours or 'not given: --collection'}): the "
            "verdict is kept on the run, not attached to the paper",
        )
    return Attachment(paper, paper, True, f"the original run is {paper}'s own: " + "; ".join(ties))


@dataclass
class ComparisonVerdict:
    """The one computed assessment of a comparison: every rule's result, one outcome
    (:func:`combine`), the work (:func:`attachment`) and the comparison's warnings. A
    different set of rules on the same comparison supersedes it, so a paper counts at most
    one computed assessment per comparison."""

    KIND: ClassVar[str] = "assessment"

    comparison: str
    verdicts: list[Verdict]
    attached: Attachment
    warnings: list[str] = field(default_factory=list)
    supersedes: list[str] = field(default_factory=list)

    @property
    def outcome(self) -> str:
        return combine([v.outcome for v in self.verdicts])

    @property
    def key(self) -> str:
        rules = sorted(f"{v.rule.name}:{v.rule.sha256}" for v in self.verdicts)
        return stable_key("comparison-verdict", self.comparison, *rules)

    @property
    def iri(self) -> str:
        from reprokg.core.identifiers import mint

        return str(mint("assessment", self.key))

    def to_json(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "combined_by": "reproduced only if every rule says reproduced",
            "rules": [
                {
                    "name": v.rule.name,
                    "judges": v.rule.judges,
                    "outcome": v.outcome,
                    "assessment": v.iri,
                    "insufficient_evidence": v.shortfall,
                }
                for v in self.verdicts
            ],  # fmt: skip
            "comparison": self.comparison,
            **self.attached.to_json(),
            "warnings": list(self.warnings),
            "assessment": self.iri,
            "supersedes": list(self.supersedes),
        }

    def to_graph(self):
        from rdflib import RDF, Literal, URIRef
        from rdflib.namespace import PROV

        from reprokg.core.namespaces import RK, new_graph
        from reprokg.loaders.evidence import Assessment

        g = new_graph()
        node = URIRef(self.iri)
        comparison = URIRef(self.comparison)
        g.add((comparison, RDF.type, RK.ReproductionComparison))
        names = ", ".join(v.rule.name for v in self.verdicts)
        Assessment(
            node=node,
            outcome=_outcome_concept(self.outcome),
            method=RK.ComputedAcceptanceRule,
            assessor=_agent(g),
            source=RK.ComputedVerdicts,
            work=URIRef(self.attached.work),
            claim="the original runs' effectiveness, as the rules read it (reproduced only "
            "if every rule says reproduced)",
            as_written=self.outcome,
            note="; ".join(f"{v.rule.name}: {v.outcome}" for v in self.verdicts)
            + f" (rules {names}; {self.attached.reason})",
            evidence=[comparison],
        ).add_to(g)
        g.add((node, RDF.type, RK.ComparisonVerdict))
        g.add((node, RK.assessedWorkReason, Literal(self.attached.reason)))
        for v in self.verdicts:
            g.add((node, RK.acceptanceRule, _rule_node(g, v.rule)))
            g.add((node, RK.ruleVerdict, URIRef(v.iri)))
            for r in v.results:
                g.add((node, RK.conditionResult, Literal(f"{v.rule.name}: {r.text()}")))
            for reason in v.shortfall:
                g.add((node, RK.evidenceShortfall, Literal(reason)))
        for w in self.warnings:
            g.add((node, RK.comparisonWarning, Literal(w)))
        for old in self.supersedes:
            g.add((node, PROV.wasRevisionOf, URIRef(old)))
        return g

    def rule_documents(self) -> list[Any]:
        """Each rule's assessment as its document: stored with this one
        (``ingest.write_result(..., inputs=...)``)."""
        return [v.document() for v in self.verdicts]

    def document(self):
        from rdflib import URIRef

        from reprokg.core.computed import (
            Computation,
            canonical_json,
            result_document,
            software_versions,
        )

        names = ", ".join(v.rule.name for v in self.verdicts)
        return result_document(
            kind=self.KIND,
            subject=URIRef(self.iri),
            graph=self.to_graph(),
            computation=Computation(
                label=f"verdict of a comparison by acceptance rule(s) {names} "
                "(reprokg compare --rule)",
                key=stable_key("comparison-verdict-activity", self.key),
                used=[URIRef(self.comparison)],
                software=software_versions(),
                parameters={"rules": ",".join(sorted(v.rule.name for v in self.verdicts))},
            ),
            source=canonical_json(self.to_json()),
            source_key=f"assessment:comparison-verdict:{self.key}",
            source_name="comparison-verdict.json",
            producer="reprokg.evidence.verdicts",
        )


def apply(
    rule: Rule,
    measures: Mapping[str, Any],
    means: Mapping[str, Mapping[str, float]],
    *,
    comparison: str,
    work: str,
    evidence: Evidence | None = None,
    warnings: list[str] | None = None,
) -> Verdict:
    """The verdict of ``rule`` on a comparison's measures (compare's JSON ``measures``), its
    runs' mean effectiveness (``arp``) and its evidence (below the rule's minimum, or not
    given: *insufficient evidence*, whatever the conditions say)."""
    if not rule.conditions:
        raise UsageError(f"rule {rule.name} states no condition: no verdict")
    results = []
    for c in rule.conditions:
        v = _value(measures, means, c)
        results.append(ConditionResult(c, v, _held(c, v)))
    return Verdict(rule, comparison, results, work, evidence=evidence,
                   warnings=list(warnings or []))  # fmt: skip


WORK_QUERY = "evidence/sparql/verdict-work.rq"
VERDICTS_QUERY = "evidence/sparql/verdicts-of-comparison.rq"
COMPARISON_VERDICTS_QUERY = "evidence/sparql/comparison-verdicts.rq"


def stored_verdicts(store: Any, comparison: str) -> list[dict[str, Any]]:
    """The rules' verdicts stored for a comparison: assessment, rule name, outcome slug
    (``insufficient-evidence`` as written), note and the comparison's warnings."""
    from reprokg.loaders.evidence import SLUGS
    from reprokg.sparql.named import package_query
    from reprokg.sparql.rows import select_rows

    rows = select_rows(store, package_query(VERDICTS_QUERY).bind({"comparison": comparison}))
    out: dict[str, dict[str, Any]] = {}
    for r in rows:
        slug = SLUGS.get(r["outcome"], r["outcome"])
        if r.get("asWritten") == INSUFFICIENT:
            slug = INSUFFICIENT
        v = out.setdefault(r["assessment"], {
            "assessment": r["assessment"], "rule": r["rule"], "outcome": slug,
            "note": r.get("note", ""), "warnings": [],
        })  # fmt: skip
        if r.get("warning") and r["warning"] not in v["warnings"]:
            v["warnings"].append(r["warning"])
    for v in out.values():
        v["warnings"].sort()
    return list(out.values())


def stored_comparison_verdicts(store: Any, comparison: str) -> list[dict[str, Any]]:
    """The comparison's verdicts (one per set of rules applied; the latest supersedes the
    earlier): assessment, outcome, work, why that work, and whether superseded."""
    from reprokg.loaders.evidence import SLUGS
    from reprokg.sparql.named import package_query
    from reprokg.sparql.rows import select_rows

    query = package_query(COMPARISON_VERDICTS_QUERY).bind({"comparison": comparison})
    return [
        {
            "assessment": r["assessment"],
            "outcome": INSUFFICIENT if r.get("asWritten") == INSUFFICIENT
            else SLUGS.get(r["outcome"], r["outcome"]),
            "work": r["work"],
            "reason": r.get("reason", ""),
            "superseded": bool(r.get("supersededBy")),
        }
        for r in select_rows(store, query)
    ]  # fmt: skip


def verdicts_on_saved(
    store: Any, study: Any, comparison: str, rules: list[Rule]
) -> tuple[list[Verdict], ComparisonVerdict]:
    """Apply ``rules`` to a saved comparison (``study``: a RunComparison): each rule's
    assessment (of the comparison) and the comparison's one verdict (of the paper when
    :func:`attachment` ties the run to it), each naming with ``prov:wasRevisionOf`` (and
    keeping) the stored verdict it differs from — of the same rule name, or of the
    comparison by other rules. Stored by ``ingest.write_result(store, whole,
    inputs=whole.rule_documents())``."""
    rule_verdicts = _verdicts(study, comparison, rules)
    stored = stored_verdicts(store, comparison)
    for v in rule_verdicts:
        v.supersedes = sorted(
            s["assessment"] for s in stored if s["rule"] == v.rule.name and s["assessment"] != v.iri
        )
    whole = ComparisonVerdict(
        comparison, rule_verdicts, attachment(study, rules, store),
        list(study.comparison.warnings),
    )  # fmt: skip
    whole.supersedes = sorted(
        s["assessment"]
        for s in stored_comparison_verdicts(store, comparison)
        if s["assessment"] != whole.iri
    )
    return rule_verdicts, whole


def _verdicts(study: Any, comparison: str, rules: list[Rule]) -> list[Verdict]:
    c = study.comparison
    evidence = evidence_of(study)
    return [
        apply(r, c.measures, c.means, comparison=comparison, work=comparison,
              evidence=evidence, warnings=list(c.warnings))
        for r in rules
    ]  # fmt: skip


def verdicts_of(study: Any, rules: list[Rule]) -> tuple[list[Verdict], ComparisonVerdict]:
    """The rules' verdicts and the comparison's without a store (``reprokg compare --rule``
    without ``--save``)."""
    from reprokg.measures.comparison_document import comparison_document

    comparison = str(comparison_document(study).subject)
    rule_verdicts = _verdicts(study, comparison, rules)
    whole = ComparisonVerdict(
        comparison, rule_verdicts, attachment(study, rules), list(study.comparison.warnings)
    )
    return rule_verdicts, whole


EXISTS_QUERY = "evidence/sparql/assessment-exists.rq"


def dispute(store: Any, assessment: str, reason: str, by: str) -> Dispute:
    """A dispute of a stored assessment (``reprokg evidence dispute``, ``POST
    /disputes``): the input checked first (located errors), then the assessment looked up
    (:class:`NotFound` when the store holds none by that IRI). Stored, as a document of its
    own, by ``ingest.write_result``."""
    from reprokg.sparql.named import package_query
    from reprokg.sparql.rows import select_rows

    found = Dispute.of(assessment, reason, by)
    if not select_rows(store, package_query(EXISTS_QUERY).bind({"assessment": found.assessment})):
        raise NotFound(
            f"no reproduction assessment <{found.assessment}> in the store",
            details={"field": "assessment"},
        )
    return found


@dataclass(frozen=True)
class Dispute:
    """A dispute of ``assessment`` by ``by`` (an ORCID iD, or a name): a result of its own
    of kind ``assessment``; the disputed assessment is left as it is. The same person's new
    reason for the same assessment revises their dispute."""

    KIND: ClassVar[str] = "assessment"

    #: the disputed assessment's IRI
    assessment: str
    reason: str
    by: str

    @classmethod
    def of(cls, assessment: str, reason: str, by: str) -> Dispute:
        """The dispute, its input checked: bad input is a :class:`LoadError` naming its
        field (``assessment``, ``reason``, ``by``)."""
        from reprokg.sparql.named import NamedQueryError, Param, to_term

        if not reason.strip():
            raise LoadError("reason: a dispute says why the assessment is wrong", field="reason")
        if not by.strip():
            raise LoadError("by: who disputes (an ORCID iD, or a name)", field="by")
        try:
            iri = str(to_term(Param("assessment", "iri"), assessment.strip()))
        except NamedQueryError:
            raise LoadError(
                f"assessment: {assessment.strip()!r} is not an absolute IRI; expected the "
                "assessment's IRI (https://…/assessment/…)",
                field="assessment",
            ) from None
        return cls(iri, reason.strip(), by.strip())

    def _person(self) -> tuple[Any, Any]:
        from reprokg.ingest import user_agent

        agent = user_agent(self.by, role="disputer")
        assert agent is not None  # ``by`` is not empty (checked in :meth:`of`)
        return agent

    @property
    def key(self) -> str:
        return stable_key("dispute", self.assessment, str(self._person()[0]))

    @property
    def iri(self) -> str:
        from reprokg.core.identifiers import mint

        return str(mint("dispute", self.key))

    def to_json(self) -> dict[str, Any]:
        return {
            "dispute": self.iri,
            "assessment": self.assessment,
            "reason": self.reason,
            "by": self.by,
        }

    def to_graph(self):
        from rdflib import RDF, Literal, URIRef
        from rdflib.namespace import PROV

        from reprokg.core.namespaces import RK, new_graph

        g = new_graph()
        person, who = self._person()
        g += who
        node = URIRef(self.iri)
        g.add((node, RDF.type, RK.AssessmentDispute))
        g.add((node, RDF.type, PROV.Entity))
        g.add((node, RK.disputedAssessment, URIRef(self.assessment)))
        g.add((node, RK.disputeReason, Literal(self.reason)))
        g.add((node, PROV.wasAttributedTo, person))
        return g

    def document(self):
        from rdflib import URIRef

        from reprokg.core.computed import Computation, result_document, software_versions

        # the source names the document: the same dispute again is unchanged
        payload = json.dumps({"disputes": self.assessment, "by": self.by, "reason": self.reason})
        return result_document(
            kind=self.KIND,
            subject=URIRef(self.iri),
            graph=self.to_graph(),
            computation=Computation(
                label="a dispute of a reproduction assessment (reprokg evidence dispute)",
                key=stable_key("dispute-activity", self.key),
                used=[URIRef(self.assessment)],
                software=software_versions(),
            ),
            source=payload.encode("utf-8"),
            source_key=f"assessment:dispute:{self.key}",
            source_name="dispute.json",
            producer="reprokg.evidence.verdicts",
        )
