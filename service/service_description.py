"""The SPARQL 1.1 Service Description of the endpoint (``GET /sparql`` without a query).

It says what a client cannot guess: the default graph is the union of all documents
(``sd:UnionDefaultGraph``), every document is a named graph, updates exist but need a
bearer token, and federated query (``SERVICE``) and ``LOAD`` of arbitrary URLs are refused.
"""

from __future__ import annotations

from rdflib import BNode, Graph, Literal, Namespace, URIRef
from rdflib.namespace import RDF, RDFS

SD = Namespace("http://www.w3.org/ns/sparql-service-description#")
FORMATS = Namespace("http://www.w3.org/ns/formats/")

#: result/graph formats the endpoint serialises (W3C format IRIs)
RESULT_FORMATS = (
    "SPARQL_Results_JSON",
    "SPARQL_Results_XML",
    "SPARQL_Results_CSV",
    "SPARQL_Results_TSV",
    "Turtle",
    "N-Triples",
    "RDF_XML",
    "JSON-LD",
)


def service_description(
    endpoint: str,
    *,
    update_enabled: bool = True,
    timeout: float | None = None,
    row_cap: int | None = None,
) -> Graph:
    """The description as an rdflib graph; ``endpoint`` is the absolute URL of /sparql."""
    g = Graph()
    g.bind("sd", SD)
    g.bind("formats", FORMATS)
    svc = BNode("service")
    g.add((svc, RDF.type, SD.Service))
    g.add((svc, SD.endpoint, URIRef(endpoint)))
    g.add((svc, SD.supportedLanguage, SD.SPARQL11Query))
    if update_enabled:
        g.add((svc, SD.supportedLanguage, SD.SPARQL11Update))
    for f in RESULT_FORMATS:
        g.add((svc, SD.resultFormat, FORMATS[f]))
    g.add((svc, SD.feature, SD.UnionDefaultGraph))
    limits = ["SERVICE (federated query) is refused; LOAD only from a configured allow-list"]
    if timeout is not None:
        limits.append(f"queries are stopped after {timeout:g} s")
    if row_cap is not None:
        limits.append(f"results are truncated at {row_cap} rows (header Reprokg-Result-Truncated)")
    if update_enabled:
        limits.append("updates need Authorization: Bearer <token>")
    g.add((svc, RDFS.comment, Literal("; ".join(limits) + ".", lang="en")))
    ds = BNode("dataset")
    g.add((svc, SD.defaultDataset, ds))
    g.add((ds, RDF.type, SD.Dataset))
    dg = BNode("defaultGraph")
    g.add((ds, SD.defaultGraph, dg))
    g.add((dg, RDF.type, SD.Graph))
    g.add(
        (
            dg,
            RDFS.comment,
            Literal(
                "The default graph is the union of all documents; each document is also a "
                "named graph (use GRAPH, FROM NAMED or named-graph-uri).",
                lang="en",
            ),
        )
    )
    return g
