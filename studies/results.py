"""A study's result written back to the graph: one ``study-result`` document through ingest.

The document holds one ``rk:StudyResult`` node: the study's registered name, the method it
followed, the publication whose analysis it recomputes (``rk:recomputedStudy``), the data
sets it was derived from (``prov:wasDerivedFrom``), the full result as an ``rdf:JSON``
literal and one ``rk:StudyValue`` per number the study names (``values(result)`` of the
study module: statistic, raw and adjusted p, n), so the values can be queried without
parsing JSON. :func:`ingest.write_results` validates it against ``shapes/study-result.ttl``
and adds the document provenance (time, software agent, user). The source key is the
study, method and options: computing the same result again changes nothing, a different
result revises the previous one (``prov:wasRevisionOf``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from rdflib import Literal, URIRef
from rdflib.namespace import PROV, RDF, XSD

from reprokg import __version__
from reprokg.core.document import Document
from reprokg.core.hashing import content_hash, stable_key
from reprokg.core.identifiers import doi_iri, is_doi, mint
from reprokg.core.namespaces import RK, SCHEMA, new_graph
from reprokg.ingest import IngestResult, write_results
from reprokg.store.base import Store
from reprokg.studies.registry import Study

KIND = "study-result"
DOI_RESOLVER = "https://doi.org/"
LOADER = "reprokg.studies.results"

#: the review data sets each study (and option value) reads
_SURVEYS = {
    "consolidated": RK.ReplicabilityGraphics2020,
    "per-paper": RK.ReplicabilityGraphicsSite,
}


def derived_from(study: Study, options: Mapping[str, Any]) -> list[URIRef]:
    """The survey or list nodes the study's data belong to."""
    if study.name == "siggraph2020":
        d = options.get("dataset", "consolidated")
        return list(_SURVEYS.values()) if d == "both" else [_SURVEYS[d]]
    if study.name == "grsi-stamps":
        return [RK.GraphicsReplicabilityStampList, _SURVEYS[options.get("survey", "consolidated")]]
    return {
        "gk2018": [RK.GundersenKjensmo2018],
        "pwc-checklist-2019": [RK.PapersWithCodeChecklist2019],
    }.get(study.name, [])


def source_key(study: Study, method: str, options: Mapping[str, Any]) -> str:
    """``study-result:NAME:METHOD[:k=v,…]`` with the options not at their default."""
    options = study.explicit(options)
    opts = ",".join(f"{k}={options[k]}" for k in sorted(options))
    return f"{KIND}:{study.name}:{method}" + (f":{opts}" if opts else "")


def result_document(
    study: Study, result: dict[str, Any], method: str, options: Mapping[str, Any] | None = None
) -> Document:
    """The result as a :class:`~reprokg.core.document.Document` of kind ``study-result``."""
    options = dict(options or {})
    payload = json.dumps(result, sort_keys=True, default=str, allow_nan=False).encode("utf-8")
    sha = content_hash(payload)
    key = source_key(study, method, options)
    g = new_graph()
    node = mint("study-result", stable_key(key, sha))
    g.add((node, RDF.type, RK.StudyResult))
    g.add((node, RDF.type, PROV.Entity))
    g.add((node, RDF.type, SCHEMA.Dataset))
    title = f"{study.title}, recomputed from the graph ({method})"
    if study.explicit(options):
        shown = study.explicit(options)
        title += " [" + ", ".join(f"{k}={v}" for k, v in sorted(shown.items())) + "]"
    g.add((node, SCHEMA.name, Literal(title)))
    g.add((node, RK.studyName, Literal(study.name)))
    g.add((node, RK.analysisMethod, Literal(method)))
    g.add((node, SCHEMA.description, Literal("; ".join(study.method(method).rules))))
    if study.publication:
        if is_doi(study.publication):
            pub = doi_iri(study.publication)
            g.add((pub, RK.doiAsWritten, Literal(study.publication.removeprefix(DOI_RESOLVER))))
        else:
            pub = URIRef(study.publication)
        g.add((node, RK.recomputedStudy, pub))
        g.add((pub, RDF.type, SCHEMA.ScholarlyArticle))
    for source in derived_from(study, options):
        g.add((node, PROV.wasDerivedFrom, source))
    g.add((node, RDF.value, Literal(payload.decode("utf-8"), datatype=RDF.JSON)))
    for v in study.impl().values(result):
        vnode = mint("study-result", stable_key(key, sha, v["name"]))
        g.add((node, RK.hasStudyValue, vnode))
        g.add((vnode, RDF.type, RK.StudyValue))
        g.add((vnode, RK.valueName, Literal(v["name"])))
        if v.get("description"):
            g.add((vnode, SCHEMA.description, Literal(v["description"])))
        for field, prop in (
            ("statistic", RK.statisticValue),
            ("p", RK.studyPValue),
            ("p_adjusted", RK.adjustedPValue),
        ):
            x = v.get(field)
            if x is not None and not math.isnan(float(x)):
                g.add((vnode, prop, Literal(float(x), datatype=XSD.double)))
        if v.get("n") is not None:
            g.add((vnode, RK.sampleSize, Literal(int(v["n"]))))
    return Document(
        kind=KIND,
        graph=g,
        source_name=f"{study.name}-{method}.json",
        source_bytes=payload,
        loader=LOADER,
        loader_version=__version__,
        source_key=key,
        subject=node,
    )


def save(
    store: Store,
    study: Study,
    result: dict[str, Any],
    method: str,
    options: Mapping[str, Any] | None = None,
) -> tuple[URIRef, IngestResult]:
    """Write the result back through ingest (validated, with provenance): its document IRI
    and what ingest did (``added``, ``unchanged`` or ``revised``)."""
    doc = result_document(study, result, method, options)
    outcome = write_results(store, [doc])
    return doc.iri, outcome
