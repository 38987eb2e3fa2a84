"""A published study's result as one typed object: its JSON answer and its document, derived.

:class:`StudyResult` is the base of each study module's result dataclass (what
:meth:`PublishedStudy.analyze` returns): the method, the options, the study's sections as
fields and its JSON answer (``to_json()``: ``reprokg study NAME --format json``, ``GET
/measures/studies/NAME``; each study's shape is documented with its module), and the
:class:`~reprokg.studies.plugin.StudyValue` s the study names. The
document (``to_graph()``, ``document()``) holds one ``rk:StudyResult`` node: the study's
registered name, the method it followed, the publication whose analysis it recomputes
(``rk:recomputedStudy``), the data sets it was derived from (``prov:wasDerivedFrom``), the
answer as an ``rdf:JSON`` literal and one ``rk:StudyValue`` per value (statistic, raw and
adjusted p, n), written from the typed values, so they can be queried without parsing
JSON; and the computation that made it (the SPARQL the study reads, the options, the
software). :func:`ingest.write_result` validates it against ``shapes/study-result.ttl``
and adds the document provenance (time, software agent, user). The source key is the
study, method and options: computing the same result again changes nothing, a different
result revises the previous one (``prov:wasRevisionOf``).
"""

from __future__ import annotations

import json
import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Self

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import PROV, RDF, XSD

from reprokg.core.computed import Computation, result_document, software_versions
from reprokg.core.document import Document
from reprokg.core.hashing import content_hash, stable_key
from reprokg.core.identifiers import doi_iri, is_doi, mint
from reprokg.core.namespaces import RK, SCHEMA, new_graph
from reprokg.sparql.named import package_query
from reprokg.studies.plugin import OptionValue, StudyValue
from reprokg.studies.registry import PublishedStudy, get

KIND = "study-result"
DOI_RESOLVER = "https://doi.org/"
PRODUCER = "reprokg.studies.study_result"
#: the distributions whose versions a study result records
SOFTWARE = ("numpy", "scipy", "pandas")

#: the review data sets each study (and option value) reads
_SURVEYS = {
    "consolidated": RK.ReplicabilityGraphics2020,
    "per-paper": RK.ReplicabilityGraphicsSite,
}


def derived_from(study: PublishedStudy, options: Mapping[str, OptionValue]) -> list[URIRef]:
    """The survey or list nodes the study's data belong to."""
    if study.name == "siggraph2020":
        d = str(options.get("dataset", "consolidated"))
        return list(_SURVEYS.values()) if d == "both" else [_SURVEYS[d]]
    if study.name == "grsi-stamps":
        return [
            RK.GraphicsReplicabilityStampList,
            _SURVEYS[str(options.get("survey", "consolidated"))],
        ]
    return {
        "gk2018": [RK.GundersenKjensmo2018],
        "pwc-checklist-2019": [RK.PapersWithCodeChecklist2019],
        "trisovic2022": [RK.DataverseReExecutionStudy],
        "artifact-evaluation": [RK.ReproDB],
    }.get(study.name, [])


def source_key(study: PublishedStudy, method: str, options: Mapping[str, OptionValue]) -> str:
    """``study-result:NAME:METHOD[:k=v,…]`` with the options not at their default."""
    options = study.explicit(options)
    opts = ",".join(f"{k}={options[k]}" for k in sorted(options))
    return f"{KIND}:{study.name}:{method}" + (f":{opts}" if opts else "")


@dataclass(frozen=True, kw_only=True)
class StudyResult(ABC):
    """One published study recomputed from the graph by one method: each study module's
    result is a subclass whose fields are its sections, and whose :meth:`to_json` is its
    JSON answer (its shape is documented with its module)."""

    KIND: ClassVar[str] = KIND
    #: the registered name of the study (:data:`reprokg.studies.registry.REGISTRY`)
    STUDY: ClassVar[str]

    method: str
    #: the options it was computed with, as given (read options too; set by
    #: :meth:`PublishedStudy.analyze`): they name the document
    options: Mapping[str, OptionValue] = field(default_factory=dict)

    @property
    def study(self) -> PublishedStudy:
        return get(self.STUDY)

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The study's JSON answer (``reprokg study NAME --format json``)."""

    def with_options(self, options: Mapping[str, OptionValue]) -> Self:
        return replace(self, options=dict(options))

    def parts(self) -> list[Self]:
        """One saved document per data set when a study computed several at once."""
        return [self]

    @property
    def values(self) -> list[StudyValue]:
        """The numbers the result names (the study module's ``values``)."""
        return self.study.impl().values(self)

    def _payload(self) -> bytes:
        return json.dumps(self.to_json(), sort_keys=True, default=str, allow_nan=False).encode()

    @property
    def key(self) -> str:
        return source_key(self.study, self.method, self.options)

    @property
    def iri(self) -> URIRef:
        return mint("study-result", stable_key(self.key, content_hash(self._payload())))

    def to_graph(self) -> Graph:
        return self.document().graph

    def document(self) -> Document:
        """The result as a :class:`~reprokg.core.document.Document` of kind ``study-result``."""
        study, options, key = self.study, self.options, self.key
        payload = self._payload()
        sha = content_hash(payload)
        g = new_graph()
        node = self.iri
        g.add((node, RDF.type, RK.StudyResult))
        g.add((node, RDF.type, PROV.Entity))
        g.add((node, RDF.type, SCHEMA.Dataset))
        title = f"{study.title}, recomputed from the graph ({self.method})"
        if shown := study.explicit(options):
            title += " [" + ", ".join(f"{k}={v}" for k, v in sorted(shown.items())) + "]"
        g.add((node, SCHEMA.name, Literal(title)))
        g.add((node, RK.studyName, Literal(study.name)))
        g.add((node, RK.analysisMethod, Literal(self.method)))
        g.add((node, SCHEMA.description, Literal("; ".join(study.method(self.method).rules))))
        if study.publication:
            if is_doi(study.publication):
                pub = doi_iri(study.publication)
                doi = study.publication.removeprefix(DOI_RESOLVER)
                g.add((pub, RK.doiAsWritten, Literal(doi)))
            else:
                pub = URIRef(study.publication)
            g.add((node, RK.recomputedStudy, pub))
            g.add((pub, RDF.type, SCHEMA.ScholarlyArticle))
        sources = derived_from(study, options)
        for source in sources:
            g.add((node, PROV.wasDerivedFrom, source))
        g.add((node, RDF.value, Literal(payload.decode("utf-8"), datatype=RDF.JSON)))
        for v in self.values:
            vnode = mint("study-result", stable_key(key, sha, v.name))
            g.add((node, RK.hasStudyValue, vnode))
            g.add((vnode, RDF.type, RK.StudyValue))
            g.add((vnode, RK.valueName, Literal(v.name)))
            if v.description:
                g.add((vnode, SCHEMA.description, Literal(v.description)))
            for x, prop in (
                (v.statistic, RK.statisticValue),
                (v.p, RK.studyPValue),
                (v.p_adjusted, RK.adjustedPValue),
            ):
                if x is not None and not math.isnan(float(x)):
                    g.add((vnode, prop, Literal(float(x), datatype=XSD.double)))
            if v.n is not None:
                g.add((vnode, RK.sampleSize, Literal(int(v.n))))
        computation = Computation(
            label=f"{study.name} recomputed from the graph (reprokg study)",
            key=stable_key(key, sha),
            used=sources,
            software=software_versions(*SOFTWARE),
            parameters={"method": self.method, **{k: str(v) for k, v in sorted(options.items())}},
            queries={q: package_query(q).sparql for q in study.queries},
        )
        return result_document(
            kind=KIND,
            subject=node,
            graph=g,
            computation=computation,
            source=payload,
            source_key=key,
            source_name=f"{study.name}-{self.method}.json",
            producer=PRODUCER,
        )
