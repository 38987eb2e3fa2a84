"""The RDF namespaces every module shares, bound once so joins never break.

schema.org is bound as ``http://schema.org/`` on purpose: rdflib 7 defaults to
``https://`` and mixing the two silently splits nodes (docs/architecture.md, Design decisions,
Identifiers).
"""

from __future__ import annotations

import re

from rdflib import Graph, Namespace, URIRef
from rdflib.namespace import (
    DCAT,
    DCTERMS,
    OWL,
    PROV,
    RDF,
    RDFS,
    SH,
    SKOS,
    XSD,
    DefinedNamespace,
)


class TermNamespace(Namespace):
    """A ``Namespace`` whose attribute terms are made once and then read as attributes.

    rdflib builds a new ``URIRef`` on every ``RK.position`` (thousands per loaded document;
    benchmarks/README.md#figures-once-quoted-in-code); cached, the same object comes back, so
    dictionaries keyed by terms (graph indexes, the validator's term memo) match it by identity
    instead of calling rdflib's Python ``__eq__``. Only names ``Namespace.__getattr__`` would make
    are cached (anything ``str`` defines is found before it, as in rdflib).
    """

    def __getattr__(self, name: str) -> URIRef:
        if name.startswith("__"):  # as rdflib: no special Python names
            raise AttributeError(name)
        term = self.term(name)
        self.__dict__[name] = term
        return term


ONTOLOGY_IRI = "https://w3id.org/reprokg/ontology"
RK = TermNamespace(ONTOLOGY_IRI + "#")
#: Unknown source keys are kept under this namespace (open world) and reported as Info.
RKX = TermNamespace("https://w3id.org/reprokg/ext#")
SCHEMA = TermNamespace("http://schema.org/")
MLS = TermNamespace("http://www.w3.org/ns/mls#")
DOAP = TermNamespace("http://usefulinc.com/ns/doap#")
VANN = TermNamespace("http://purl.org/vocab/vann/")
ORCID = TermNamespace("https://orcid.org/")
DOI = TermNamespace("https://doi.org/")
#: CiTO: how a reproduction report relates to the original (confirms, disputes, qualifies)
CITO = TermNamespace("http://purl.org/spar/cito/")


PREFIXES: dict[str, Namespace | type[DefinedNamespace]] = {
    "rk": RK,
    "rkx": RKX,
    "schema": SCHEMA,
    "mls": MLS,
    "doap": DOAP,
    "vann": VANN,
    "cito": CITO,
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


def rkx_term(key: str) -> URIRef:
    """The ``rkx:`` property an unknown source key is kept under (open world): the key with
    every character outside ``A-Za-z0-9_-`` replaced by ``_``."""
    return RKX[re.sub(r"[^A-Za-z0-9_-]", "_", key)]


def bind_prefixes(graph: Graph) -> Graph:
    """Bind our prefixes, replacing rdflib's defaults (notably ``schema:`` = https)."""
    for prefix, ns in PREFIXES.items():
        graph.bind(prefix, ns, override=True, replace=True)
    return graph


def new_graph() -> Graph:
    return bind_prefixes(Graph(bind_namespaces="core"))


SPARQL_PREFIXES = "".join(f"PREFIX {p}: <{ns}>\n" for p, ns in PREFIXES.items())
