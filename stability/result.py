"""A stability analysis as one typed object: its JSON answer and its document, both derived.

:class:`StabilityResult` is what :func:`reprokg.stability.analysis.report` computes;
``to_json()`` is the answer of ``reprokg stability --format json`` and
``GET /measures/stability`` (the keys are a public contract: clients read them), ``to_graph()`` the
document's triples (``shapes/stability-analysis.ttl``; terms in ``ontology/stability.ttl``), both
read from the same fields:

* ``rk:hasFixedEffect`` → ``rk:FixedEffectEstimate`` (term, estimate, se, df, t, p)
* ``rk:hasVarianceComponent`` → ``rk:VarianceComponent`` (seed, repeat, residual)
* ``rk:hasRandomEffectTest`` → ``rk:RandomEffectTest`` (ranova: npar, logLik, AIC, LRT, df, p)
* ``rk:hasFixedEffectTest`` → ``rk:FixedEffectFTest`` (the Type III F test of experiment)
* ``rk:hasContrast`` → ``rk:ContrastEstimate`` (a - b: minuend and subtrahend experiments,
  estimate, se, df, t, 95% interval, p)
* the study ``rk:hasHypothesisTest`` one computed ``rk:HypothesisTest`` per tested
  hypothesis (H1, H2, H3: method, statistic, p, decision, level), part of the analysis,

plus the full JSON as an ``rdf:JSON`` literal, the warnings as comments and the computation
(:class:`reprokg.core.computed.Computation`: the observations' documents, the SPARQL that
read them, the software with versions, the parameters). Node IRIs and the document's
content depend only on the observations' documents, the parameters and the software
versions, so analysing the same observations again writes nothing (*unchanged*); a new
analysis of the same study, method and metric revises the old one.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar, Generic, TypeVar, cast

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import PROV, RDF, RDFS, XSD
from typing_extensions import TypedDict

from reprokg.core.computed import Computation, canonical_json, result_document, software_versions
from reprokg.core.document import Document
from reprokg.core.errors import UsageError
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import mint
from reprokg.core.literals import decimal_literal, double_literal
from reprokg.core.namespaces import RK, new_graph

KIND = "stability-analysis"
PRODUCER = "reprokg.stability.document"  # as stored since the first analyses (provenance)
#: the distributions whose versions the analysis records (what computed the numbers)
SOFTWARE = ("numpy", "scipy", "pandas")
HYPOTHESES = {"H1": RK.H1, "H2": RK.H2, "H3": RK.H3}
DECISIONS = {"rejected": RK.HypothesisRejected, "not_rejected": RK.HypothesisNotRejected}
CONFIDENCE_LEVEL = 0.95
RANDOM_TERMS = ("seed", "repeat")  # the paper's random intercepts, in lme4 term order


# --------------------------------------------------------------------------- the JSON
# The answer's shape, written once: ``to_json()`` returns these and the service declares
# them as its response model (``GET /measures/stability``), their attribute docstrings the
# OpenAPI descriptions. ``typing_extensions.TypedDict``: pydantic reads no other on 3.11.

Method = typing.Literal["REML", "ML"]
Decision = typing.Literal["rejected", "not_rejected"]


class FixedEffectJSON(TypedDict):
    """One coefficient: lme4's ``summary(m)`` row with lmerTest's Satterthwaite df."""

    estimate: float | None
    se: float | None
    df: float | None
    "Satterthwaite degrees of freedom"
    t: float | None
    p: float | None


class VarianceComponentJSON(TypedDict):
    variance: float | None
    sd: float | None


class VarianceComponentsJSON(TypedDict):
    seed: VarianceComponentJSON
    repeat: VarianceComponentJSON
    residual: VarianceComponentJSON


class RandomEffectTestJSON(TypedDict):
    """``lmerTest::ranova``: the model without this random term (npar, logLik, AIC) and the
    likelihood-ratio test against the full model."""

    npar: int | None
    loglik: float | None
    aic: float | None
    lrt: float | None
    df: int | None
    p: float | None


class RandomEffectsTestsJSON(TypedDict):
    seed: RandomEffectTestJSON
    "H2"
    repeat: RandomEffectTestJSON
    "H1"


class FTestJSON(TypedDict):
    """``anova(m)``: Type III F test with Satterthwaite denominator df."""

    sum_sq: float | None
    mean_sq: float | None
    num_df: int | None
    den_df: float | None
    f: float | None
    p: float | None


class ContrastJSON(TypedDict):
    """``contest(m, L, joint = FALSE, confint = TRUE)`` of ``a - b`` (95% interval)."""

    estimate: float | None
    se: float | None
    df: float | None
    t: float | None
    lower: float | None
    upper: float | None
    p: float | None


class HypothesisJSON(TypedDict):
    test: str | None
    "the test and the level alpha, in words"
    p: float | None
    decision: Decision | None


class HypothesesJSON(TypedDict):
    H1: HypothesisJSON
    "stable across repeats: the repeat LRT"
    H2: HypothesisJSON
    "stable across seeds: the seed LRT"
    H3: HypothesisJSON
    "reruns give the same mean: the smallest rerun-pair p"


class StabilityJSON(TypedDict):
    """The analysis; undefined numbers are ``null`` with a sentence in ``warnings``."""

    study: str | None
    "the study's IRI"
    n: int
    "observations fitted (after dropping unusable rows)"
    model: str
    "the fitted model, lme4 syntax"
    method: Method
    singular: bool | None
    "lme4::isSingular (tol 1e-4)"
    loglik: float | None
    "logLik (REML criterion / -2 for REML)"
    fixed_effects: dict[str, FixedEffectJSON]
    (
        "by lme4 term name: (Intercept), experimentNAME (treatment contrasts, "
        "experiments in sorted order)"
    )
    variance_components: VarianceComponentsJSON
    random_effects_tests: RandomEffectsTestsJSON
    anova: dict[str, FTestJSON]
    "{'experiment': …}; empty for one experiment"
    contrasts: dict[str, ContrastJSON]
    (
        "'a - b' for every rerun pair (same algorithm, implementation, optimizer) and every "
        "pair asked for"
    )
    hypotheses: HypothesesJSON
    warnings: list[str]


J = TypeVar("J")


class _Numbers(Generic[J]):
    """A row of numbers: its JSON object (``J``) is its fields in order; nulls are ``None``."""

    #: field -> the property that holds it in the graph
    PROPERTIES: ClassVar[dict[str, URIRef]] = {}
    #: fields not in the JSON object
    NOT_IN_JSON: ClassVar[tuple[str, ...]] = ()

    def to_json(self) -> J:
        fs = fields(self)  # type: ignore[arg-type]  # every subclass is a dataclass
        return cast(
            J, {f.name: getattr(self, f.name) for f in fs if f.name not in self.NOT_IN_JSON}
        )

    def nulls(self) -> list[str]:
        return [k for k, v in cast(dict[str, Any], self.to_json()).items() if v is None]

    def computed(self) -> bool:
        """Whether the row was computed at all (a term left out of the model was not)."""
        return True

    def add_numbers(self, g: Graph, node: URIRef) -> None:
        for name, prop in self.PROPERTIES.items():
            v = getattr(self, name)
            if v is None:
                continue
            if prop == RK.parameterCount:
                g.add((node, prop, Literal(int(v), datatype=XSD.integer)))
            else:
                g.add((node, prop, double_literal(v)))


_T_PROPS = {
    "estimate": RK.estimate,
    "se": RK.standardError,
    "df": RK.degreesOfFreedom,
    "t": RK.tValue,
    "p": RK.pValue,
}


@dataclass(frozen=True)
class FixedEffect(_Numbers[FixedEffectJSON]):
    """One coefficient: lme4's ``summary(m)`` row with lmerTest's Satterthwaite df."""

    estimate: float | None
    se: float | None
    df: float | None
    t: float | None
    p: float | None

    PROPERTIES: ClassVar[dict[str, URIRef]] = _T_PROPS


@dataclass(frozen=True)
class VarianceComponent(_Numbers[VarianceComponentJSON]):
    variance: float | None = None
    sd: float | None = None

    PROPERTIES: ClassVar[dict[str, URIRef]] = {
        "variance": RK.variance,
        "sd": RK.standardDeviation,
    }

    def computed(self) -> bool:
        return self.variance is not None


@dataclass(frozen=True)
class RandomEffectTest(_Numbers[RandomEffectTestJSON]):
    """``lmerTest::ranova``: the model without the term, and the likelihood-ratio test."""

    npar: int | None = None
    loglik: float | None = None
    aic: float | None = None
    lrt: float | None = None
    df: int | None = None
    p: float | None = None

    PROPERTIES: ClassVar[dict[str, URIRef]] = {
        "npar": RK.parameterCount,
        "loglik": RK.logLikelihood,
        "aic": RK.akaikeInformationCriterion,
        "lrt": RK.likelihoodRatio,
        "df": RK.degreesOfFreedom,
        "p": RK.pValue,
    }

    def computed(self) -> bool:
        return self.npar is not None


@dataclass(frozen=True)
class FTest(_Numbers[FTestJSON]):
    """``anova(m)``: Type III F test with Satterthwaite denominator df."""

    sum_sq: float | None
    mean_sq: float | None
    num_df: int | None
    den_df: float | None
    f: float | None
    p: float | None

    PROPERTIES: ClassVar[dict[str, URIRef]] = {
        "sum_sq": RK.sumOfSquares,
        "mean_sq": RK.meanSquare,
        "num_df": RK.numeratorDegreesOfFreedom,
        "den_df": RK.denominatorDegreesOfFreedom,
        "f": RK.fValue,
        "p": RK.pValue,
    }


@dataclass(frozen=True)
class Contrast(_Numbers[ContrastJSON]):
    """``a - b`` (``contest(m, L, joint = FALSE, confint = TRUE)``, 95% interval)."""

    minuend: str
    subtrahend: str
    estimate: float | None
    se: float | None
    df: float | None
    t: float | None
    lower: float | None
    upper: float | None
    p: float | None

    NOT_IN_JSON: ClassVar[tuple[str, ...]] = ("minuend", "subtrahend")
    PROPERTIES: ClassVar[dict[str, URIRef]] = {
        **_T_PROPS,
        "lower": RK.confidenceLower,
        "upper": RK.confidenceUpper,
    }

    @property
    def name(self) -> str:
        return f"{self.minuend} - {self.subtrahend}"


@dataclass(frozen=True)
class HypothesisOutcome:
    """One of the paper's hypotheses: the test in words, its p and the decision."""

    test: str | None = None
    p: float | None = None
    decision: str | None = None  # "rejected" | "not_rejected" | None (not tested)

    def to_json(self) -> HypothesisJSON:
        return cast(HypothesisJSON, asdict(self))


def _untested() -> dict[str, HypothesisOutcome]:
    return {h: HypothesisOutcome() for h in HYPOTHESES}


def _no_variances() -> dict[str, VarianceComponent]:
    return {t: VarianceComponent() for t in (*RANDOM_TERMS, "residual")}


def _no_tests() -> dict[str, RandomEffectTest]:
    return {t: RandomEffectTest() for t in RANDOM_TERMS}


@dataclass
class StabilityResult:
    """The model of seed 003 fitted to one study's observations, and the paper's tests.

    The fields up to ``warnings`` are the JSON answer; the rest say what it was computed
    from (for the document): the level ``alpha`` of the decisions, the metric analysed,
    the observations' documents, the experiments' IRIs, the SPARQL that read them.
    """

    KIND: ClassVar[str] = KIND

    study: str | None
    n: int
    model: str
    method: str
    singular: bool | None = None
    loglik: float | None = None
    fixed_effects: dict[str, FixedEffect] = field(default_factory=dict)
    variance_components: dict[str, VarianceComponent] = field(default_factory=_no_variances)
    random_effects_tests: dict[str, RandomEffectTest] = field(default_factory=_no_tests)
    #: ``{"experiment": …}``; empty for one experiment
    anova: dict[str, FTest] = field(default_factory=dict)
    contrasts: list[Contrast] = field(default_factory=list)
    hypotheses: dict[str, HypothesisOutcome] = field(default_factory=_untested)
    warnings: list[str] = field(default_factory=list)
    # --- what it was computed from (not in the JSON answer)
    alpha: float = 0.05
    metric: str | None = None
    #: the documents the observations were read from
    observations: tuple[str, ...] = ()
    #: experiment name -> IRI (the contrasts' experiments in the graph)
    experiment_iris: Mapping[str, str] = field(default_factory=dict)
    illustrative: bool = False
    #: the SPARQL that read the observations: name -> text run
    queries: Mapping[str, str] = field(default_factory=dict)

    def contrast(self, name: str) -> Contrast:
        return next(c for c in self.contrasts if c.name == name)

    def to_json(self) -> StabilityJSON:
        return {
            "study": self.study,
            "n": self.n,
            "model": self.model,
            "method": cast(Method, self.method),
            "singular": self.singular,
            "loglik": self.loglik,
            "fixed_effects": {k: v.to_json() for k, v in self.fixed_effects.items()},
            "variance_components": cast(
                VarianceComponentsJSON,
                {k: v.to_json() for k, v in self.variance_components.items()},
            ),
            "random_effects_tests": cast(
                RandomEffectsTestsJSON,
                {k: v.to_json() for k, v in self.random_effects_tests.items()},
            ),
            "anova": {k: v.to_json() for k, v in self.anova.items()},
            "contrasts": {c.name: c.to_json() for c in self.contrasts},
            "hypotheses": cast(
                HypothesesJSON, {k: v.to_json() for k, v in self.hypotheses.items()}
            ),
            "warnings": list(self.warnings),
        }

    # --- the document

    def _basis(self) -> dict[str, Any]:
        return {
            "study": self.study,
            "observations": sorted(self.observations),
            "method": self.method,
            "metric": self.metric,
            "alpha": self.alpha,
            "contrasts": sorted(c.name for c in self.contrasts),
        }

    @property
    def key(self) -> str:
        """The stable key of what was analysed how (names the analysis and its nodes)."""
        return stable_key(KIND, json.dumps(self._basis(), sort_keys=True))

    @property
    def iri(self) -> URIRef:
        return mint(KIND, self.key)

    def computation(self, software: Mapping[str, str] | None = None) -> Computation:
        return Computation(
            label="stability analysis (reprokg stability)",
            key=self.key,
            used=tuple(URIRef(d) for d in sorted(self.observations)),
            software=software if software is not None else software_versions(*SOFTWARE),
            parameters={
                "method": self.method,
                "alpha": repr(float(self.alpha)),
                "metric": self.metric,
            },
            queries=self.queries,
        )

    def to_graph(self) -> Graph:
        return self.document().graph

    def document(self, software: Mapping[str, str] | None = None) -> Document:
        """The ``stability-analysis`` document (``software``: the versions to record,
        by default those installed)."""
        if self.study is None:
            raise UsageError("a stability analysis is stored with the study it analysed")
        computation = self.computation(software)
        g = self._graph(computation.activity)
        source = canonical_json(
            {
                "basis": self._basis(),
                "software": dict(computation.software),
                "result": self.to_json(),
            }
        )
        return result_document(
            kind=KIND,
            subject=self.iri,
            graph=g,
            computation=computation,
            source=source,
            source_key=f"{KIND}:{self.study}:{self.method}:{self.metric}",
            source_name=f"stability-analysis-{self.key}.json",
            producer=PRODUCER,
        )

    def _graph(self, activity: URIRef) -> Graph:
        key = self.key

        def node(*parts: object) -> URIRef:
            return mint(KIND, stable_key(key, *parts))

        g = new_graph()
        a = self.iri
        study = URIRef(str(self.study))
        g.add((a, RDF.type, RK.StabilityAnalysis))
        label = f"stability analysis ({self.method}, {self.metric or 'no metric'})"
        g.add((a, RDFS.label, Literal(label)))
        g.add((a, RK.analysedStudy, study))
        for d in sorted(self.observations):
            g.add((a, PROV.wasDerivedFrom, URIRef(d)))
        g.add((a, RK.modelFormula, Literal(self.model)))
        g.add((a, RK.estimationMethod, Literal(self.method)))
        g.add((a, RK.observationCount, Literal(int(self.n), datatype=XSD.integer)))
        if self.metric is not None:
            g.add((a, RK.metricName, Literal(self.metric)))
        if self.singular is not None:
            g.add((a, RK.singularFit, Literal(bool(self.singular))))
        if self.loglik is not None:
            g.add((a, RK.logLikelihood, double_literal(self.loglik)))
        g.add((a, RK.significanceLevel, double_literal(self.alpha)))
        if self.illustrative:
            g.add((a, RK.isIllustrative, Literal(True)))
        for w in self.warnings:
            g.add((a, RDFS.comment, Literal(w)))
        payload = json.dumps(self.to_json(), sort_keys=True, allow_nan=False)
        g.add((a, RDF.value, Literal(payload, datatype=RDF.JSON)))

        # (node kind, link from the analysis, class, the rows by term)
        sections: tuple[tuple[str, URIRef, URIRef, Mapping[str, _Numbers]], ...] = (
            ("fixed", RK.hasFixedEffect, RK.FixedEffectEstimate, self.fixed_effects),
            ("variance", RK.hasVarianceComponent, RK.VarianceComponent, self.variance_components),
            ("ranova", RK.hasRandomEffectTest, RK.RandomEffectTest, self.random_effects_tests),
            ("anova", RK.hasFixedEffectTest, RK.FixedEffectFTest, self.anova),
        )
        for kind, link, cls, rows in sections:
            for term, row in rows.items():
                if not row.computed():
                    continue
                n = node(kind, term)
                g.add((a, link, n))
                g.add((n, RDF.type, cls))
                g.add((n, RK.termName, Literal(term)))
                row.add_numbers(g, n)
        for c in self.contrasts:
            n = node("contrast", c.name)
            g.add((a, RK.hasContrast, n))
            g.add((n, RDF.type, RK.ContrastEstimate))
            g.add((n, RDFS.label, Literal(c.name)))
            for exp_name, prop in (
                (c.minuend, RK.contrastMinuend),
                (c.subtrahend, RK.contrastSubtrahend),
            ):
                if exp_name in self.experiment_iris:
                    g.add((n, prop, URIRef(self.experiment_iris[exp_name])))
            g.add((n, RK.confidenceLevel, double_literal(CONFIDENCE_LEVEL)))
            c.add_numbers(g, n)

        for h, outcome in self.hypotheses.items():
            if outcome.p is None or outcome.decision is None:
                continue  # not tested: the warnings say why
            t = node("hypothesis", h)
            g.add((study, RK.hasHypothesisTest, t))
            g.add((t, RK.isPartOf, a))
            g.add((t, RDF.type, RK.HypothesisTest))
            g.add((t, RK.testedHypothesis, HYPOTHESES[h]))
            g.add((t, RK.testMethod, Literal(outcome.test)))
            g.add((t, RK.pValue, double_literal(outcome.p)))
            g.add((t, RK.decision, DECISIONS[outcome.decision]))
            g.add((t, RK.significanceLevel, double_literal(self.alpha)))
            g.add((t, PROV.wasGeneratedBy, activity))
            random_term = {"H1": "repeat", "H2": "seed"}.get(h)
            test = self.random_effects_tests.get(random_term) if random_term else None
            if test is not None and test.lrt is not None and test.df is not None:
                g.add((t, RK.testStatistic, decimal_literal(float(test.lrt))))
                g.add((t, RK.degreesOfFreedom, double_literal(test.df)))
        return g
