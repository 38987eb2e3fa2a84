"""A quantified reproducibility assessment as an RDF document (kind ``qra``), and back.

:func:`qra_document` writes :class:`~reprokg.measures.qra.QRAResult` through the one
result builder (:func:`reprokg.core.computed.result_document`): an
``rk:QuantifiedReproducibilityAssessment`` with one ``rk:MeasuredQuantity`` per quantity
(its metric, origin, data set and system when known, scale minimum, n, mean, unbiased
sd, CV* with its interval) and one ``rk:Measurement`` per value (value, role, the node it
was read from), QRA++'s ``rk:SetAgreement`` nodes, the JSON answer as an ``rdf:JSON``
literal, and the computation (the documents read, the SPARQL, software, parameters).
Nodes are minted from the assessment's key, so two assessments (of a paper, of a measure)
never write numbers on one node. :func:`reprokg.ingest.write_result` stores it;
:func:`stored_qra` reads the stored answers about a paper back. Apart from the computation
so that it loads rdflib only when a result is stored.
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
from reprokg.core.literals import decimal_literal, double_literal
from reprokg.core.namespaces import RK, new_graph

if TYPE_CHECKING:
    from reprokg.store.base import Store

#: what the document is written from: a :class:`reprokg.measures.qra.QRAResult` (named
#: structurally: that module asks this one for its document)
QRAResult = Any

SOFTWARE = ("numpy",)


def _iri(text: str | None) -> URIRef | None:
    return URIRef(text) if text and "://" in text else None


def computation(result: QRAResult, software: Mapping[str, str] | None = None) -> Computation:
    return Computation(
        label="quantified reproducibility assessment (reprokg qra)",
        key=result.key,
        used=tuple(URIRef(d) for d in result.documents),
        software=software if software is not None else software_versions(*SOFTWARE),
        parameters={
            "paper": result.paper,
            "measures": ",".join(result.measures) or None,
            "origins": ",".join(result.origins),
            "level": repr(float(result.level)),
            "scale_min": ",".join(f"{k or '*'}={v!r}" for k, v in sorted(result.scale_min.items()))
            or None,
        },
        queries=result.queries,
    )


def qra_document(result: QRAResult, software: Mapping[str, str] | None = None) -> Document:
    """The assessment as a ``qra`` document (``shapes/qra.ttl``)."""
    comp = computation(result, software)
    key = result.key
    KIND = result.KIND

    def node(*parts: object) -> URIRef:
        return mint(KIND, stable_key(key, *parts))

    g = new_graph()
    a = mint(KIND, key)
    g.add((a, RDF.type, RK.QuantifiedReproducibilityAssessment))
    g.add((a, RDF.type, PROV.Entity))
    what = f"<{result.paper}>" if result.paper else ", ".join(result.measures) or "the graph"
    g.add((a, RDFS.label, Literal(f"quantified reproducibility assessment of {what}")))
    if _iri(result.paper) is not None:
        g.add((a, RK.aboutPublication, URIRef(str(result.paper))))
    g.add((a, RK.confidenceLevel, double_literal(result.level)))
    for d in result.documents:
        g.add((a, PROV.wasDerivedFrom, URIRef(d)))
    for w in result.warnings:
        g.add((a, RDFS.comment, Literal(w)))
    payload = json.dumps(result.to_json(), sort_keys=True, allow_nan=False)
    g.add((a, RDF.value, Literal(payload, datatype=RDF.JSON)))
    nodes: dict[str, URIRef] = {}
    for q in result.quantities:
        qn = nodes[q.key] = node("quantity", q.key)
        g.add((a, RK.hasMeasuredQuantity, qn))
        g.add((qn, RDF.type, RK.MeasuredQuantity))
        g.add((qn, RDFS.label, Literal(q.label)))
        g.add((qn, RK.metricName, Literal(q.measure)))
        g.add((qn, RK.measurementOrigin, Literal(q.origin)))
        if _iri(q.paper) is not None:
            g.add((qn, RK.aboutPublication, URIRef(str(q.paper))))
        if q.parts.get("dataset"):
            g.add((qn, RK.dataSetName, Literal(q.parts["dataset"])))
        if q.parts.get("system"):
            g.add((qn, RK.systemName, Literal(q.parts["system"])))
        g.add((qn, RK.scaleMinimum, double_literal(q.scale_min)))
        g.add((qn, RK.measurementCount, Literal(len(q.measurements), datatype=XSD.integer)))
        if q.qra is not None:
            g.add((qn, RK.meanValue, double_literal(q.qra.mean)))
            g.add((qn, RK.standardDeviation, double_literal(q.qra.sd)))
            g.add((qn, RK.cvStar, double_literal(q.qra.cv_star)))
            g.add((qn, RK.confidenceLower, double_literal(q.qra.cv_star_low)))
            g.add((qn, RK.confidenceUpper, double_literal(q.qra.cv_star_high)))
            g.add((qn, RK.confidenceLevel, double_literal(q.qra.level)))
        for w in q.warnings:
            g.add((qn, RDFS.comment, Literal(w)))
        for i, m in enumerate(q.measurements):
            mn = node("measurement", q.key, i)
            g.add((qn, RK.hasMeasurement, mn))
            g.add((mn, RDF.type, RK.Measurement))
            g.add((mn, RDFS.label, Literal(m.label)))
            g.add((mn, RK.metricValue, decimal_literal(m.value)))
            g.add((mn, RK.measurementRole, Literal(m.role)))
            origin = _iri(m.run or m.source)
            if origin is not None:
                g.add((mn, PROV.wasDerivedFrom, origin))
    for i, ag in enumerate(result.agreements):
        n = node("agreement", i, ag.reproduction, ag.measure)
        g.add((a, RK.hasSetAgreement, n))
        g.add((n, RDF.type, RK.SetAgreement))
        g.add((n, RDFS.label, Literal(f"{ag.measure}: {ag.label} against the original")))
        g.add((n, RK.metricName, Literal(ag.measure)))
        if _iri(ag.reproduction) is not None:
            g.add((n, RK.reproductionSource, URIRef(ag.reproduction)))
        for k in ag.quantities:
            g.add((n, RK.agreementOver, nodes[k]))
        g.add((n, RK.measurementCount, Literal(ag.result.n, datatype=XSD.integer)))
        for prop, v in (
            (RK.pearsonR, ag.result.pearson_r),
            (RK.spearmanRho, ag.result.spearman_rho),
            (RK.kendallTau, ag.result.kendall_tau),
        ):
            if v is not None:
                g.add((n, prop, double_literal(v)))
    for i, c in enumerate(result.concordances):
        n = node("concordance", i, c.measure)
        g.add((a, RK.hasSetAgreement, n))
        g.add((n, RDF.type, RK.SetAgreement))
        g.add((n, RDFS.label, Literal(f"{c.measure}: the original and every reproduction")))
        g.add((n, RK.metricName, Literal(c.measure)))
        for k in c.quantities:
            g.add((n, RK.agreementOver, nodes[k]))
        g.add((n, RK.measurementCount, Literal(len(c.sources), datatype=XSD.integer)))
        if c.w is not None:
            g.add((n, RK.kendallW, double_literal(c.w)))
    source = canonical_json(
        {"basis": result._basis(), "software": dict(comp.software), "result": result.to_json()}
    )
    return result_document(
        kind=KIND,
        subject=a,
        graph=g,
        computation=comp,
        source=source,
        source_key=f"{KIND}:{result.key}",
        source_name=f"qra-{result.key}.json",
        producer=result.PRODUCER,
    )


STORED_QUERY = "measures/sparql/stored-qra.rq"


def stored_quantities(store: Store, paper: str) -> list[dict[str, Any]]:
    """The measured quantities about ``paper`` that stored assessments hold, each with its
    CV* and its measurements (what the paper page draws)."""
    from reprokg.sparql.named import package_query
    from reprokg.sparql.rows import select_rows

    return group_stored(select_rows(store, package_query(STORED_QUERY).bind({"paper": paper})))


def group_stored(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of :data:`STORED_QUERY` (one per measurement) as one dict per quantity."""
    keep: tuple[str, ...] = ("qra", "document", "quantity", "label", "measure", "origin", "n")
    keep += ("mean", "cvStar", "low", "high", "level")
    out: dict[str, dict[str, Any]] = {}
    for r in rows:
        q = out.setdefault(r["quantity"], {k: r.get(k) for k in keep} | {"measurements": []})
        q["measurements"].append(
            {
                "value": r["value"],
                "role": r["role"],
                "label": r.get("who"),
                "source": r.get("source"),
            }
        )
    return list(out.values())
