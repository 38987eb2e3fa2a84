"""The shapes of each document kind and the small closure of our ontology they need.

Superclass types are materialised per document (a copy with the entailed ``rdf:type``
triples) instead of running OWL-RL inference per document (docs/architecture.md, Design decisions,
Validation).
"""

from __future__ import annotations

from functools import cache, lru_cache

from rdflib import Graph, URIRef
from rdflib.namespace import RDF, RDFS

from reprokg.core.namespaces import new_graph
from reprokg.core.rdf_parse import parse_package_file
from reprokg.core.resources import data_dir, iter_files


@lru_cache(maxsize=1)
def ontology_graph() -> Graph:
    """Our ontology (all ``ontology/*.ttl`` modules) as one graph, imports excluded."""
    g = new_graph()
    for f in iter_files("ontology", ".ttl"):
        parse_package_file(f, graph=g, base=f.name)
    return g


@lru_cache(maxsize=1)
def superclasses() -> dict[URIRef, frozenset[URIRef]]:
    """Transitive ``rdfs:subClassOf`` closure over named classes of the ontology."""
    g = ontology_graph()
    direct: dict[URIRef, set[URIRef]] = {}
    for s, o in g.subject_objects(RDFS.subClassOf):
        if isinstance(s, URIRef) and isinstance(o, URIRef):
            direct.setdefault(s, set()).add(o)
    closure: dict[URIRef, frozenset[URIRef]] = {}
    for cls in direct:
        seen: set[URIRef] = set()
        stack = list(direct[cls])
        while stack:
            c = stack.pop()
            if c not in seen:
                seen.add(c)
                stack.extend(direct.get(c, ()))
        closure[cls] = frozenset(seen)
    return closure


def add_entailed_types(graph: Graph) -> Graph:
    """Add, in place, the superclass types our ontology entails; returns ``graph``."""
    sup = superclasses()
    extra = [
        (s, RDF.type, c)
        for s, cls in graph.subject_objects(RDF.type)
        if isinstance(cls, URIRef)  # the closure holds named classes only
        for c in sup.get(cls, ())
    ]
    for t in extra:
        graph.add(t)
    return graph


def materialise_types(graph: Graph) -> Graph:
    """A copy of ``graph`` with the superclass types our ontology entails added."""
    out = Graph()
    for t in graph:
        out.add(t)
    return add_entailed_types(out)


@cache
def shapes_graph(kind: str) -> Graph:
    """``shapes/common.ttl`` (if any) plus ``shapes/{kind}.ttl``."""
    g = new_graph()
    folder = data_dir("shapes")
    for name in ("common.ttl", f"{kind}.ttl"):
        f = folder.joinpath(name)
        if f.is_file():
            parse_package_file(f, graph=g, base=name)
    return g


def known_kinds() -> list[str]:
    return [f.name[:-4] for f in iter_files("shapes", ".ttl") if f.name != "common.ttl"]
