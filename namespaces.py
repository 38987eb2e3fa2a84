"""The RDF namespaces every module shares, bound once so joins never break.

schema.org is bound as ``http://schema.org/`` on purpose: rdflib 7 defaults to
``https://`` and mixing the two silently splits nodes (DESIGN.md, Identifiers).
"""

from __future__ import annotations

from rdflib import Graph, Namespace
from rdflib.namespace import DCAT, DCTERMS, OWL, PROV, RDF, RDFS, SH, SKOS, XSD

ONTOLOGY_IRI = "https://w3id.org/reprokg/ontology"
RK = Namespace(ONTOLOGY_IRI + "#")
#: Unknown source keys are kept under this namespace (open world) and reported as Info.
RKX = Namespace("https://w3id.org/reprokg/ext#")
SCHEMA = Namespace("http://schema.org/")
MLS = Namespace("http://www.w3.org/ns/mls#")
DOAP = Namespace("http://usefulinc.com/ns/doap#")
VANN = Namespace("http://purl.org/vocab/vann/")
ORCID = Namespace("https://orcid.org/")
DOI = Namespace("https://doi.org/")

DEFAULT_BASE = "https://w3id.org/reprokg/id/"

PREFIXES: dict[str, Namespace] = {
    "rk": RK,
    "rkx": RKX,
    "schema": SCHEMA,
    "mls": MLS,
    "doap": DOAP,
    "vann": VANN,
    "prov": PROV,
    "dcat": DCAT,
    "dcterms": DCTERMS,
    "skos": SKOS,
    "owl": OWL,
    "rdf": RDF,
    "rdfs": RDFS,
    "xsd": XSD,
    "sh": SH,
}


def bind_prefixes(graph: Graph) -> Graph:
    """Bind our prefixes, replacing rdflib's defaults (notably ``schema:`` = https)."""
    for prefix, ns in PREFIXES.items():
        graph.bind(prefix, ns, override=True, replace=True)
    return graph


def new_graph() -> Graph:
    return bind_prefixes(Graph(bind_namespaces="core"))


SPARQL_PREFIXES = "".join(f"PREFIX {p}: <{ns}>\n" for p, ns in PREFIXES.items())
