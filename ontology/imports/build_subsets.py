"""Regenerate the pinned vocabulary subsets in this folder (run by hand, never at run time).

We cannot fetch the official vocabulary files, so each ``*.ttl`` here is a *subset* we
write ourselves: every foreign term that ``ontology/*.ttl`` or ``shapes/*.ttl`` uses,
declared with the OWL type the official vocabulary gives it (or, for the untyped
schema.org and Dublin Core properties, the type our use needs), its definition as
rdflib's bundled namespace modules carry it from the official file, and the axioms of
the official vocabulary that matter for reasoning over our terms (class hierarchy,
disjointness, domains and ranges) -- see README.md for sources and dates.

    python ontology/imports/build_subsets.py
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import TypeGuard

from rdflib import OWL, RDF, RDFS, XSD, Graph, Literal, Namespace, URIRef
from rdflib.namespace import SH
from rdflib.term import Node

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
BASE = "https://w3id.org/reprokg/ontology/imports/"
PROV = Namespace("http://www.w3.org/ns/prov#")
MLS = Namespace("http://www.w3.org/ns/mls#")
SKOS = Namespace("http://www.w3.org/2004/02/skos/core#")
DCAT = Namespace("http://www.w3.org/ns/dcat#")
DCT = Namespace("http://purl.org/dc/terms/")
DOAP = Namespace("http://usefulinc.com/ns/doap#")
VANN = Namespace("http://purl.org/vocab/vann/")
SDO = Namespace("http://schema.org/")
CITO = Namespace("http://purl.org/spar/cito/")

#: file stem -> (namespace, official ontology IRI, official version IRI or date, rdflib module)
VOCABS = {
    "prov-o": (
        PROV,
        "http://www.w3.org/ns/prov-o#",
        "http://www.w3.org/ns/prov-o-20130430",
        "_PROV",
    ),
    "mls": (MLS, "http://www.w3.org/ns/mls#", "http://www.w3.org/2016/03/mls#", None),
    "skos": (SKOS, "http://www.w3.org/2004/02/skos/core", "2009-08-18 (SKOS Reference)", "_SKOS"),
    "dcat": (DCAT, "http://www.w3.org/ns/dcat", "DCAT 3 (2024-08-22)", "_DCAT"),
    "dcterms": (DCT, "http://purl.org/dc/terms/", "2020-01-20 (DCMI Metadata Terms)", "_DCTERMS"),
    "doap": (DOAP, "http://usefulinc.com/ns/doap#", "doap.rdf of 2018 (ewilderj/doap)", "_DOAP"),
    "vann": (VANN, "http://purl.org/vocab/vann/", "2010-06-07 (VANN)", "_VANN"),
    "schemaorg": (SDO, "http://schema.org/", "schema.org release 29.x", "_SDO"),
    "cito": (CITO, "http://purl.org/spar/cito", "CiTO 2.8.1 (2018-02-16)", None),
}

# The official axioms we keep, written out (subject, predicate, object).
AXIOMS: list[tuple[URIRef, URIRef, URIRef]] = [
    # PROV-O (2013-04-30)
    (PROV.Activity, OWL.disjointWith, PROV.Entity),
    (PROV.Person, RDFS.subClassOf, PROV.Agent),
    (PROV.Organization, RDFS.subClassOf, PROV.Agent),
    (PROV.SoftwareAgent, RDFS.subClassOf, PROV.Agent),
    (PROV.Plan, RDFS.subClassOf, PROV.Entity),
    (PROV.Collection, RDFS.subClassOf, PROV.Entity),
    (PROV.used, RDFS.domain, PROV.Activity),
    (PROV.used, RDFS.range, PROV.Entity),
    (PROV.wasGeneratedBy, RDFS.domain, PROV.Entity),
    (PROV.wasGeneratedBy, RDFS.range, PROV.Activity),
    (PROV.wasAssociatedWith, RDFS.domain, PROV.Activity),
    (PROV.wasAssociatedWith, RDFS.range, PROV.Agent),
    (PROV.wasAttributedTo, RDFS.domain, PROV.Entity),
    (PROV.wasAttributedTo, RDFS.range, PROV.Agent),
    (PROV.wasDerivedFrom, RDFS.domain, PROV.Entity),
    (PROV.wasDerivedFrom, RDFS.range, PROV.Entity),
    (PROV.wasRevisionOf, RDFS.subPropertyOf, PROV.wasDerivedFrom),
    (PROV.hadPrimarySource, RDFS.subPropertyOf, PROV.wasDerivedFrom),
    (PROV.wasQuotedFrom, RDFS.subPropertyOf, PROV.wasDerivedFrom),
    (PROV.wasInformedBy, RDFS.domain, PROV.Activity),
    (PROV.wasInformedBy, RDFS.range, PROV.Activity),
    (PROV.generatedAtTime, RDFS.domain, PROV.Entity),
    (PROV.generatedAtTime, RDFS.range, XSD.dateTime),
    (PROV.startedAtTime, RDFS.domain, PROV.Activity),
    (PROV.startedAtTime, RDFS.range, XSD.dateTime),
    (PROV.endedAtTime, RDFS.domain, PROV.Activity),
    (PROV.endedAtTime, RDFS.range, XSD.dateTime),
    # ML-Schema (2016-03)
    (MLS.Algorithm, RDFS.subClassOf, MLS.InformationEntity),
    (MLS.Data, RDFS.subClassOf, MLS.InformationEntity),
    (MLS.Dataset, RDFS.subClassOf, MLS.Data),
    (MLS.Feature, RDFS.subClassOf, MLS.Data),
    (MLS.EvaluationMeasure, RDFS.subClassOf, MLS.InformationEntity),
    (MLS.EvaluationProcedure, RDFS.subClassOf, MLS.InformationEntity),
    (MLS.EvaluationSpecification, RDFS.subClassOf, MLS.InformationEntity),
    (MLS.HyperParameter, RDFS.subClassOf, MLS.InformationEntity),
    (MLS.HyperParameterSetting, RDFS.subClassOf, MLS.InformationEntity),
    (MLS.Implementation, RDFS.subClassOf, MLS.InformationEntity),
    (MLS.Model, RDFS.subClassOf, MLS.InformationEntity),
    (MLS.ModelEvaluation, RDFS.subClassOf, MLS.InformationEntity),
    (MLS.Task, RDFS.subClassOf, MLS.InformationEntity),
    (MLS.Software, RDFS.subClassOf, MLS.InformationEntity),
    (MLS.Experiment, RDFS.subClassOf, MLS.Process),
    (MLS.Run, RDFS.subClassOf, MLS.Process),
    (MLS.Study, RDFS.subClassOf, MLS.Process),
    (MLS.Investigation, RDFS.subClassOf, MLS.Process),
    # SKOS (integrity condition S9: concepts and schemes are disjoint)
    (SKOS.ConceptScheme, OWL.disjointWith, SKOS.Concept),
    (SKOS.broader, RDFS.subPropertyOf, SKOS.broaderTransitive),
    (SKOS.narrower, RDFS.subPropertyOf, SKOS.narrowerTransitive),
    (SKOS.broader, OWL.inverseOf, SKOS.narrower),
    (SKOS.closeMatch, RDFS.subPropertyOf, SKOS.mappingRelation),
    (SKOS.exactMatch, RDFS.subPropertyOf, SKOS.closeMatch),
    (SKOS.topConceptOf, RDFS.subPropertyOf, SKOS.inScheme),
    (SKOS.topConceptOf, OWL.inverseOf, SKOS.hasTopConcept),
    (SKOS.prefLabel, RDFS.subPropertyOf, RDFS.label),
    (SKOS.altLabel, RDFS.subPropertyOf, RDFS.label),
    (SKOS.definition, RDFS.subPropertyOf, SKOS.note),
    (SKOS.scopeNote, RDFS.subPropertyOf, SKOS.note),
    (SKOS.editorialNote, RDFS.subPropertyOf, SKOS.note),
    (SKOS.example, RDFS.subPropertyOf, SKOS.note),
    (SKOS.historyNote, RDFS.subPropertyOf, SKOS.note),
    (SKOS.changeNote, RDFS.subPropertyOf, SKOS.note),
    # DCAT 3
    (DCAT.Dataset, RDFS.subClassOf, DCAT.Resource),
    (DCAT.Catalog, RDFS.subClassOf, DCAT.Dataset),
    (DCAT.DataService, RDFS.subClassOf, DCAT.Resource),
    # Dublin Core
    (DCT.isPartOf, RDFS.subPropertyOf, DCT.relation),
    (DCT.hasPart, RDFS.subPropertyOf, DCT.relation),
    (DCT.references, RDFS.subPropertyOf, DCT.relation),
    (DCT.isVersionOf, RDFS.subPropertyOf, DCT.relation),
    # CiTO 2.8.1: the outcome relations of a reproduction to the original are citations
    (CITO.confirms, RDFS.subPropertyOf, CITO.cites),
    (CITO.disputes, RDFS.subPropertyOf, CITO.cites),
    (CITO.qualifies, RDFS.subPropertyOf, CITO.cites),
]

#: schema.org class parents (schema.org's own rdfs:subClassOf), for the classes we use.
SDO_PARENTS = {
    "CreativeWork": "Thing",
    "Article": "CreativeWork",
    "ScholarlyArticle": "Article",
    "Review": "CreativeWork",
    "Dataset": "CreativeWork",
    "SoftwareSourceCode": "CreativeWork",
    "SoftwareApplication": "CreativeWork",
    "Person": "Thing",
    "Organization": "Thing",
    "Event": "Thing",
    "DefinedTerm": "Intangible",
    "PropertyValue": "StructuredValue",
    "StructuredValue": "Intangible",
    "Intangible": "Thing",
    "Rating": "Intangible",
    "Claim": "CreativeWork",
    "Periodical": "CreativeWork",
    "PublicationIssue": "CreativeWork",
    "Book": "CreativeWork",
    "Chapter": "CreativeWork",
    "Thesis": "CreativeWork",
    "Report": "Article",
    "WebPage": "CreativeWork",
    "MediaObject": "CreativeWork",
    "DataDownload": "MediaObject",
    "ComputerLanguage": "Intangible",
    "Language": "Intangible",
}

_CLASS_POSITIONS = {
    RDFS.subClassOf,
    OWL.equivalentClass,
    OWL.someValuesFrom,
    OWL.allValuesFrom,
    OWL.disjointWith,
    SH.targetClass,
    SH["class"],
    RDFS.domain,
}
_PROPERTY_POSITIONS = {RDFS.subPropertyOf, OWL.onProperty, SH.path, OWL.equivalentProperty}


def _our_graphs() -> tuple[Graph, Graph]:
    onto, shapes = Graph(), Graph()
    for f in sorted((REPO / "ontology").glob("*.ttl")):
        onto.parse(f, format="turtle")
    for f in sorted((REPO / "shapes").glob("*.ttl")):
        shapes.parse(f, format="turtle")
    return onto, shapes


def _comment(module: str | None, local: str) -> str | None:
    if module is None:
        return None
    file = importlib.import_module(f"rdflib.namespace.{module}").__file__
    if file is None:  # a namespace package: no source to read comments from
        return None
    src = Path(file).read_text()
    m = re.search(rf"^\s+{re.escape(local)}: URIRef\s+#\s*(.+)$", src, re.MULTILINE)
    if not m or m.group(1).strip() == local:
        return None
    return m.group(1).strip()


def classify(onto: Graph, shapes: Graph, ns: Namespace) -> dict[URIRef, URIRef]:
    """Foreign term -> OWL type, from how our ontology and shapes use it."""
    kinds: dict[URIRef, URIRef] = {}

    def is_ns(t: object) -> TypeGuard[URIRef]:
        return isinstance(t, URIRef) and str(t).startswith(str(ns))

    def prop_kind(sub: Node) -> URIRef:
        if (sub, RDF.type, OWL.DatatypeProperty) in onto:
            return OWL.DatatypeProperty
        if (sub, RDF.type, OWL.AnnotationProperty) in onto:
            return OWL.AnnotationProperty
        return OWL.ObjectProperty

    literal_paths = set()
    for shape, path in shapes.subject_objects(SH.path):
        if (shape, SH.datatype, None) in shapes or (shape, SH.minLength, None) in shapes:
            literal_paths.add(path)
        for alt in shapes.objects(shape, SH["or"]):
            for member in shapes.items(alt):
                if (member, SH.datatype, None) in shapes:
                    literal_paths.add(path)
    for g in (onto, shapes):
        for s, p, o in g:
            if is_ns(o) and p in _CLASS_POSITIONS:
                kinds.setdefault(o, OWL.Class)
            if is_ns(o) and p == RDFS.range and (s, RDF.type, OWL.ObjectProperty) in g:
                kinds.setdefault(o, OWL.Class)
            if is_ns(o) and p in _PROPERTY_POSITIONS:
                if p == RDFS.subPropertyOf:
                    # on conflict (sub-properties of both kinds: an OWL DL error that
                    # qc/property_kind_conflict.rq reports) object property wins
                    if kinds.get(o) != OWL.ObjectProperty:
                        kinds[o] = prop_kind(s)
                elif o in literal_paths:
                    kinds.setdefault(o, OWL.DatatypeProperty)
                else:
                    kinds.setdefault(o, OWL.ObjectProperty)
            if is_ns(o) and p == RDF.type and g is onto:
                kinds.setdefault(o, OWL.Class)
            if is_ns(p) and g is onto and p not in kinds:
                kinds[p] = OWL.AnnotationProperty
    for t, k in list(kinds.items()):
        if k == OWL.ObjectProperty and t in onto.predicates():
            # used both as annotation and as super-property: an object property, and our
            # annotation-like uses of it are data (allowed: IRIs as values)
            kinds[t] = k
    return kinds


def _known_kind(term: URIRef) -> URIRef | None:
    """The type the official vocabulary itself gives a term, where it gives one."""
    s = str(term)
    if s.startswith(str(SKOS)):
        local = s[len(str(SKOS)) :]
        if local in ("Concept", "ConceptScheme", "Collection", "OrderedCollection"):
            return OWL.Class
        if local == "notation":
            return OWL.DatatypeProperty
        if local in (
            "prefLabel",
            "altLabel",
            "hiddenLabel",
            "note",
            "definition",
            "scopeNote",
            "editorialNote",
            "example",
            "historyNote",
            "changeNote",
        ):
            return OWL.AnnotationProperty
        return OWL.ObjectProperty
    if s.startswith(str(PROV)):
        local = s[len(str(PROV)) :]
        if local[:1].isupper():
            return OWL.Class
        if local.endswith("AtTime") or local in ("value", "atTime"):
            return OWL.DatatypeProperty
        return OWL.ObjectProperty
    if s.startswith(str(VANN)):
        return OWL.AnnotationProperty
    return None


def build() -> dict[str, Graph]:
    onto, shapes = _our_graphs()
    out: dict[str, Graph] = {}
    for stem, (ns, official, version, module) in VOCABS.items():
        kinds = classify(onto, shapes, ns)
        for s, _p, o in AXIOMS:
            for t in (s, o):
                if str(t).startswith(str(ns)) and t not in kinds:
                    kinds[t] = (
                        OWL.Class
                        if str(t).split("#")[-1].split("/")[-1][:1].isupper()
                        else OWL.ObjectProperty
                    )
        if ns == SDO:
            for cls in [k for k, v in kinds.items() if v == OWL.Class]:
                local = str(cls)[len(str(SDO)) :]
                while local in SDO_PARENTS:
                    parent = SDO_PARENTS[local]
                    kinds.setdefault(SDO[parent], OWL.Class)
                    local = parent
        g = Graph()
        for prefix, n in (
            ("owl", OWL),
            ("rdfs", RDFS),
            ("xsd", XSD),
            ("prov", PROV),
            ("mls", MLS),
            ("skos", SKOS),
            ("dcat", DCAT),
            ("dcterms", DCT),
            ("doap", DOAP),
            ("vann", VANN),
            ("schema", SDO),
            ("cito", CITO),
        ):
            g.bind(prefix, n, override=True, replace=True)
        onto_iri = URIRef(BASE + stem)
        g.add((onto_iri, RDF.type, OWL.Ontology))
        g.add((onto_iri, RDFS.label, Literal(f"reprokg pinned subset of {official}", lang="en")))
        g.add((onto_iri, RDFS.seeAlso, URIRef(official)))
        g.add((onto_iri, OWL.versionInfo, Literal(f"subset of {official} as of {version}")))
        for term, kind in sorted(kinds.items()):
            kind = _known_kind(term) or kind
            g.add((term, RDF.type, kind))
            local = re.split(r"[#/]", str(term))[-1]
            g.add((term, RDFS.label, Literal(local)))
            g.add((term, RDFS.isDefinedBy, URIRef(official)))
            comment = _comment(module, local)
            if comment:
                g.add((term, RDFS.comment, Literal(comment, lang="en")))
        for s, p, o in AXIOMS:
            if str(s).startswith(str(ns)):
                g.add((s, p, o))
        if ns == SDO:
            for cls in [k for k, v in kinds.items() if v == OWL.Class]:
                local = str(cls)[len(str(SDO)) :]
                if local in SDO_PARENTS:
                    g.add((cls, RDFS.subClassOf, SDO[SDO_PARENTS[local]]))
        out[stem] = g
    return out


def main() -> None:
    for stem, g in build().items():
        header = (
            f"# reprokg pinned subset of {VOCABS[stem][1]} ({VOCABS[stem][2]}).\n"
            "# Generated by ontology/imports/build_subsets.py from the terms reprokg uses;\n"
            "# see ontology/imports/README.md. Do not edit by hand.\n\n"
        )
        (HERE / f"{stem}.ttl").write_text(header + g.serialize(format="turtle"), encoding="utf-8")


if __name__ == "__main__":
    main()
