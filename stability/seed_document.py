"""Seed-variance results as RDF documents: a comparison of two experiments (kind
``seed-comparison``) and a critical-difference analysis (kind ``critical-difference``).

Both are written through the one result builder
(:func:`reprokg.core.computed.result_document`) from the typed results of
:mod:`reprokg.stability.seed_comparison`: the study, the metric, each number as a node a
query can reach (``rk:StatisticValue``: ASO's ε_min both ways and the violation ratio,
P(A > B) and each IQM with their intervals; ``rk:ExperimentRank``: each experiment's
average rank; ``rk:RankGroup``: the experiments joined in the diagram), the JSON answer as an
``rdf:JSON`` literal, and the computation (the observations' documents, the SPARQL that
read them, the software, the parameters). Terms: ``ontology/statistics.ttl``. Apart from
the computation so that a comparison never loads rdflib unless it is stored.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rdflib import Literal, URIRef
from rdflib.namespace import PROV, RDF, RDFS, XSD

from reprokg.core.computed import Computation, canonical_json, result_document, software_versions
from reprokg.core.document import Document
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import mint
from reprokg.core.literals import double_literal
from reprokg.core.namespaces import RK, new_graph

if TYPE_CHECKING:
    from rdflib import Graph

    from reprokg.store.base import Store

#: what the documents are written from, :mod:`reprokg.stability.seed_comparison`'s results
#: (named structurally: that module asks this one for their documents)
ExperimentComparison = Any
CriticalDifference = Any

PRODUCER = "reprokg.stability.seed_comparison"
SOFTWARE = ("numpy", "scipy", "pandas")


def _common(
    g: Graph, node: URIRef, cls: URIRef, result: Any, label: str, payload: dict[str, Any]
) -> None:
    g.add((node, RDF.type, cls))
    g.add((node, RDF.type, PROV.Entity))
    g.add((node, RDFS.label, Literal(label)))
    if result.study:
        g.add((node, RK.comparedStudy, URIRef(result.study)))
    if result.metric:
        g.add((node, RK.metricName, Literal(result.metric)))
    for d in result.source.documents:
        g.add((node, PROV.wasDerivedFrom, URIRef(d)))
    if result.source.illustrative:
        g.add((node, RK.isIllustrative, Literal(True)))
    for note in result.source.notes:
        g.add((node, RDFS.comment, Literal(note)))
    text = json.dumps(payload, sort_keys=True, allow_nan=False)
    g.add((node, RDF.value, Literal(text, datatype=RDF.JSON)))


def _document(
    result: Any,
    kind: str,
    key: str,
    about: str,
    node: URIRef,
    g: Graph,
    label: str,
    parameters: dict[str, str | None],
    software: Mapping[str, str] | None,
) -> Document:
    computation = Computation(
        label=label,
        key=key,
        used=tuple(URIRef(d) for d in result.source.documents),
        software=software if software is not None else software_versions(*SOFTWARE),
        parameters=parameters,
        queries=result.source.queries,
    )
    source = canonical_json(
        {"kind": kind, "software": dict(computation.software), "result": result.to_json()}
    )
    return result_document(
        kind=kind,
        subject=node,
        graph=g,
        computation=computation,
        source=source,
        source_key=f"{kind}:{about}",
        source_name=f"{kind}-{key}.json",
        producer=PRODUCER,
    )


def seed_comparison_document(
    result: ExperimentComparison, software: Mapping[str, str] | None = None
) -> Document:
    """Experiment A against B as a ``seed-comparison`` document."""
    kind = result.KIND
    basis = [result.study, result.metric, result.a, result.b, result.seed, result.level]
    key = stable_key(kind, *map(str, basis), *result.source.documents)
    node = mint(kind, key)
    g = new_graph()
    payload = result.to_json()
    _common(
        g,
        node,
        RK.SeedVarianceComparison,
        result,
        f"{result.a} vs {result.b} over their runs",
        payload,
    )
    experiments = result.source.experiments

    def value(
        name: str,
        estimate: float,
        about: str | None = None,
        n: int | None = None,
        low: float | None = None,
        high: float | None = None,
    ) -> None:
        v = mint(kind, stable_key(key, name, about or ""))
        g.add((node, RK.hasStatisticValue, v))
        g.add((v, RDF.type, RK.StatisticValue))
        g.add((v, RK.statisticName, Literal(name)))
        g.add((v, RDFS.label, Literal(f"{name} ({about})" if about else name)))
        g.add((v, RK.estimate, double_literal(estimate)))
        if about is not None and about in experiments:
            g.add((v, RK.aboutExperiment, URIRef(experiments[about])))
        if n is not None:
            g.add((v, RK.measurementCount, Literal(n, datatype=XSD.integer)))
        if low is not None and high is not None:
            g.add((v, RK.confidenceLower, double_literal(low)))
            g.add((v, RK.confidenceUpper, double_literal(high)))
            g.add((v, RK.confidenceLevel, double_literal(result.level)))

    value("aso_epsilon_min_a_over_b", result.aso_a_over_b, result.a)
    value("aso_epsilon_min_b_over_a", result.aso_b_over_a, result.b)
    value("aso_violation_ratio_a_over_b", result.violation_ratio, result.a)
    p = result.prob_a_beats_b
    value("p_a_beats_b", p["value"], result.a, low=p["low"], high=p["high"])
    for name, n in zip((result.a, result.b), result.runs, strict=True):
        i = result.iqm[name]
        value("iqm", i["value"], name, n=n, low=i["low"], high=i["high"])
    return _document(
        result,
        kind,
        key,
        f"{result.study}:{result.metric}:{result.a}:{result.b}",
        node,
        g,
        "seed-variance comparison (reprokg stability --compare)",
        {
            "a": result.a,
            "b": result.b,
            "metric": result.metric,
            "seed": None if result.seed is None else str(result.seed),
            "level": repr(float(result.level)),
            "resamples": ",".join(f"{k}={v}" for k, v in sorted(result.resamples.items())),
        },
        software,
    )


def critical_difference_document(
    result: CriticalDifference, software: Mapping[str, str] | None = None
) -> Document:
    """The ranking of every experiment as a ``critical-difference`` document."""
    kind = result.KIND
    r = result.ranks
    key = stable_key(
        kind,
        str(result.study),
        str(result.metric),
        result.block,
        repr(r.alpha),
        *result.source.documents,
    )
    node = mint(kind, key)
    g = new_graph()
    _common(
        g,
        node,
        RK.CriticalDifferenceAnalysis,
        result,
        f"critical difference over {r.blocks} {result.block} blocks",
        result.to_json(),
    )
    g.add((node, RK.blockFactor, Literal(result.block)))
    g.add((node, RK.blockCount, Literal(r.blocks, datatype=XSD.integer)))
    g.add((node, RK.significanceLevel, double_literal(r.alpha)))
    if r.critical_difference is not None:
        g.add((node, RK.criticalDifference, double_literal(r.critical_difference)))
    if r.statistic is not None:
        g.add((node, RK.friedmanStatistic, double_literal(r.statistic)))
    if r.pvalue is not None:
        g.add((node, RK.pValue, double_literal(r.pvalue)))
    experiments = result.source.experiments
    for name, rank in zip(r.names, r.average_ranks, strict=True):
        e = mint(kind, stable_key(key, "rank", name))
        g.add((node, RK.hasExperimentRank, e))
        g.add((e, RDF.type, RK.ExperimentRank))
        g.add((e, RDFS.label, Literal(name)))
        g.add((e, RK.averageRank, double_literal(rank)))
        if name in experiments:
            g.add((e, RK.aboutExperiment, URIRef(experiments[name])))
    for i, group in enumerate(r.cliques):
        grp = mint(kind, stable_key(key, "group", i))
        g.add((node, RK.hasRankGroup, grp))
        g.add((grp, RDF.type, RK.RankGroup))
        g.add((grp, RDFS.label, Literal(", ".join(r.names[j] for j in group))))
        for j in group:
            if r.names[j] in experiments:
                g.add((grp, RK.groupMember, URIRef(experiments[r.names[j]])))
    return _document(
        result,
        kind,
        key,
        f"{result.study}:{result.metric}:{result.block}:{r.alpha!r}",
        node,
        g,
        "critical-difference analysis (reprokg stability --cd)",
        {"metric": result.metric, "block": result.block, "alpha": repr(float(r.alpha))},
        software,
    )


STORED_CD_QUERY = "stability/sparql/stored-critical-difference.rq"


def stored_critical_differences(store: Store, study: str) -> list[dict[str, Any]]:
    """The stored critical-difference analyses of ``study``: each one's JSON answer with
    its IRI (what the stability page draws)."""
    from reprokg.sparql.named import package_query
    from reprokg.sparql.rows import select_rows

    rows = select_rows(store, package_query(STORED_CD_QUERY).bind({"study": study}))
    return [{"iri": r["analysis"], **json.loads(r["json"])} for r in rows]
