"""A stability analysis as linked data: one document of kind ``stability-analysis``.

The analysis node (``rk:StabilityAnalysis``) names the study it analysed and the
observations' document it was derived from, and holds every number of the JSON answer as
typed triples (``shapes/stability-analysis.ttl``; terms in ``ontology/stability.ttl``):

* ``rk:hasFixedEffect`` → ``rk:FixedEffectEstimate`` (term, estimate, se, df, t, p)
* ``rk:hasVarianceComponent`` → ``rk:VarianceComponent`` (seed, repeat, residual)
* ``rk:hasRandomEffectTest`` → ``rk:RandomEffectTest`` (ranova: npar, logLik, AIC, LRT, df, p)
* ``rk:hasFixedEffectTest`` → ``rk:FixedEffectFTest`` (the Type III F test of experiment)
* ``rk:hasContrast`` → ``rk:ContrastEstimate`` (a - b: minuend and subtrahend experiments,
  estimate, se, df, t, 95% interval, p)
* the study ``rk:hasHypothesisTest`` one computed ``rk:HypothesisTest`` per tested
  hypothesis (H1, H2, H3: method, statistic, p, decision, level), part of the analysis,

plus the full JSON as an ``rdf:JSON`` literal, the warnings as comments and the
activity that computed it (``prov:used``: the observations' document, the software with
versions, the parameters). Node IRIs and the document's content depend only on the
observations' document, the parameters and the software versions, so analysing the same
observations again writes nothing (*unchanged*); a new analysis of the same study, method
and metric revises the old one.
"""

from __future__ import annotations

import json
from decimal import Decimal
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from rdflib import Literal, URIRef
from rdflib.namespace import PROV, RDF, RDFS, XSD

from reprokg import __version__
from reprokg.core.document import Document
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import mint
from reprokg.core.namespaces import RK, SCHEMA, new_graph

KIND = "stability-analysis"
LOADER_NAME = "reprokg.stability.document"
#: the software whose versions the analysis records (what computed the numbers)
SOFTWARE = ("reprokg", "numpy", "scipy", "pandas")
HYPOTHESES = {"H1": RK.H1, "H2": RK.H2, "H3": RK.H3}
DECISIONS = {"rejected": RK.HypothesisRejected, "not_rejected": RK.HypothesisNotRejected}
CONFIDENCE_LEVEL = 0.95


def software_versions() -> dict[str, str]:
    out = {}
    for name in SOFTWARE:
        try:
            out[name] = __version__ if name == "reprokg" else version(name)
        except PackageNotFoundError:
            out[name] = "unknown"
    return out


def _split_contrast(name: str, experiments: dict[str, str]) -> tuple[str, str]:
    """``a - b`` back into its experiments (names may contain " - " themselves)."""
    start = 0
    while (i := name.find(" - ", start)) >= 0:
        a, b = name[:i], name[i + 3 :]
        if a in experiments and b in experiments:
            return a, b
        start = i + 1
    first, _, second = name.partition(" - ")
    return first, second


def _double(x: float) -> Literal:
    return Literal(repr(float(x)), datatype=XSD.double)


def _decimal(x: float) -> Literal:
    return Literal(Decimal(repr(float(x))), datatype=XSD.decimal)


def analysis_document(
    result: dict[str, Any],
    *,
    study: str,
    documents: list[str] | tuple[str, ...],
    experiments: dict[str, str],
    metric: str | None,
    alpha: float,
    illustrative: bool = False,
    software: dict[str, str] | None = None,
) -> Document:
    """The analysis ``result`` (the JSON dict of :func:`.analysis.report`) as a document.

    ``documents`` are the observations' documents, ``experiments`` maps experiment names
    to their IRIs (for the contrasts).
    """
    software = software or software_versions()
    basis = {
        "study": study,
        "observations": sorted(documents),
        "method": result["method"],
        "metric": metric,
        "alpha": alpha,
        "contrasts": sorted(result["contrasts"]),
    }
    key = stable_key(KIND, json.dumps(basis, sort_keys=True))

    def node(*parts: object) -> URIRef:
        return mint(KIND, stable_key(key, *parts))

    g = new_graph()
    a = mint(KIND, key)
    study_iri = URIRef(study)
    g.add((a, RDF.type, RK.StabilityAnalysis))
    label = f"stability analysis ({result['method']}, {metric or 'no metric'})"
    g.add((a, RDFS.label, Literal(label)))
    g.add((a, RK.analysedStudy, study_iri))
    for d in sorted(documents):
        g.add((a, PROV.wasDerivedFrom, URIRef(d)))
    g.add((a, RK.modelFormula, Literal(result["model"])))
    g.add((a, RK.estimationMethod, Literal(result["method"])))
    g.add((a, RK.observationCount, Literal(int(result["n"]), datatype=XSD.integer)))
    if metric is not None:
        g.add((a, RK.metricName, Literal(metric)))
    if result["singular"] is not None:
        g.add((a, RK.singularFit, Literal(bool(result["singular"]))))
    if result["loglik"] is not None:
        g.add((a, RK.logLikelihood, _double(result["loglik"])))
    g.add((a, RK.significanceLevel, _double(alpha)))
    if illustrative:
        g.add((a, RK.isIllustrative, Literal(True)))
    for w in result["warnings"]:
        g.add((a, RDFS.comment, Literal(w)))
    payload = json.dumps(result, sort_keys=True, allow_nan=False)
    g.add((a, RDF.value, Literal(payload, datatype=RDF.JSON)))

    def numbers(n: URIRef, row: dict[str, Any], props: dict[str, URIRef]) -> None:
        for k, prop in props.items():
            v = row.get(k)
            if v is None:
                continue
            if prop == RK.parameterCount:
                g.add((n, prop, Literal(int(v), datatype=XSD.integer)))
            else:
                g.add((n, prop, _double(v)))

    t_props = {
        "estimate": RK.estimate,
        "se": RK.standardError,
        "df": RK.degreesOfFreedom,
        "t": RK.tValue,
        "p": RK.pValue,
    }
    # (result section, node kind, link from the analysis, class, the key whose null means
    # "not computed", numbers): one node per term of each section
    term_sections = (
        ("fixed_effects", "fixed", RK.hasFixedEffect, RK.FixedEffectEstimate, None, t_props),
        (
            "variance_components",
            "variance",
            RK.hasVarianceComponent,
            RK.VarianceComponent,
            "variance",
            {"variance": RK.variance, "sd": RK.standardDeviation},
        ),
        (
            "random_effects_tests",
            "ranova",
            RK.hasRandomEffectTest,
            RK.RandomEffectTest,
            "npar",
            {
                "npar": RK.parameterCount,
                "loglik": RK.logLikelihood,
                "aic": RK.akaikeInformationCriterion,
                "lrt": RK.likelihoodRatio,
                "df": RK.degreesOfFreedom,
                "p": RK.pValue,
            },
        ),
        (
            "anova",
            "anova",
            RK.hasFixedEffectTest,
            RK.FixedEffectFTest,
            None,
            {
                "sum_sq": RK.sumOfSquares,
                "mean_sq": RK.meanSquare,
                "num_df": RK.numeratorDegreesOfFreedom,
                "den_df": RK.denominatorDegreesOfFreedom,
                "f": RK.fValue,
                "p": RK.pValue,
            },
        ),
    )
    for section, kind, link, cls, required, props in term_sections:
        for term, row in result[section].items():
            if required is not None and row[required] is None:
                continue
            n = node(kind, term)
            g.add((a, link, n))
            g.add((n, RDF.type, cls))
            g.add((n, RK.termName, Literal(term)))
            numbers(n, row, props)
    for name, row in result["contrasts"].items():
        first, second = _split_contrast(name, experiments)
        n = node("contrast", name)
        g.add((a, RK.hasContrast, n))
        g.add((n, RDF.type, RK.ContrastEstimate))
        g.add((n, RDFS.label, Literal(name)))
        for exp_name, prop in ((first, RK.contrastMinuend), (second, RK.contrastSubtrahend)):
            if exp_name in experiments:
                g.add((n, prop, URIRef(experiments[exp_name])))
        g.add((n, RK.confidenceLevel, _double(CONFIDENCE_LEVEL)))
        numbers(n, row, {**t_props, "lower": RK.confidenceLower, "upper": RK.confidenceUpper})

    activity = mint("activity", key)
    tests = result["random_effects_tests"]
    for h, row in result["hypotheses"].items():
        if row["p"] is None:
            continue  # not tested: the warnings say why
        t = node("hypothesis", h)
        g.add((study_iri, RK.hasHypothesisTest, t))
        g.add((t, RK.isPartOf, a))
        g.add((t, RDF.type, RK.HypothesisTest))
        g.add((t, RK.testedHypothesis, HYPOTHESES[h]))
        g.add((t, RK.testMethod, Literal(row["test"])))
        g.add((t, RK.pValue, _double(row["p"])))
        g.add((t, RK.decision, DECISIONS[row["decision"]]))
        g.add((t, RK.significanceLevel, _double(alpha)))
        g.add((t, PROV.wasGeneratedBy, activity))
        term = {"H1": "repeat", "H2": "seed"}.get(h)
        if term is not None and tests[term]["lrt"] is not None:
            g.add((t, RK.testStatistic, _decimal(tests[term]["lrt"])))
            g.add((t, RK.degreesOfFreedom, _double(tests[term]["df"])))

    g.add((a, PROV.wasGeneratedBy, activity))
    g.add((activity, RDF.type, PROV.Activity))
    g.add((activity, RDFS.label, Literal("stability analysis (reprokg stability)")))
    for d in sorted(documents):
        g.add((activity, PROV.used, URIRef(d)))
    for name, ver in sorted(software.items()):
        sw = mint("software", f"{name}-{ver}")
        g.add((sw, RDF.type, SCHEMA.SoftwareApplication))
        g.add((sw, SCHEMA.name, Literal(name)))
        g.add((sw, SCHEMA.softwareVersion, Literal(ver)))
        g.add((activity, PROV.used, sw))
    parameters = {"method": result["method"], "alpha": repr(float(alpha)), "metric": metric}
    for pname, pvalue in parameters.items():
        if pvalue is None:
            continue
        p = node("parameter", pname)
        g.add((p, RDF.type, RK.ParameterSetting))
        g.add((p, RK.parameterName, Literal(pname)))
        g.add((p, RK.parameterValue, Literal(str(pvalue))))
        g.add((activity, PROV.used, p))

    source = json.dumps(
        {"basis": basis, "software": software, "result": result}, sort_keys=True
    ).encode("utf-8")
    return Document(
        kind=KIND,
        graph=g,
        source_name=f"stability-analysis-{key}.json",
        source_bytes=source,
        loader=LOADER_NAME,
        loader_version=__version__,
        source_key=f"{KIND}:{study}:{result['method']}:{metric}",
        subject=a,
    )
