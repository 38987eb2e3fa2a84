"""The embedded store counts its writes (``Generations``): caches key on the count."""

from __future__ import annotations

from rdflib import Graph, Literal, URIRef

from reprokg.store import open_store
from reprokg.store.base import Generations


def test_every_write_changes_the_generation(tmp_path) -> None:
    store = open_store(str(tmp_path / "kg"))
    assert isinstance(store, Generations)
    g = Graph()
    g.add((URIRef("urn:s"), URIRef("urn:p"), Literal(1)))
    seen = [store.generation]
    store.add_document("urn:g1", g)
    seen.append(store.generation)
    store.update("INSERT DATA { GRAPH <urn:g2> { <urn:a> <urn:b> <urn:c> } }")
    seen.append(store.generation)
    store.delete_document("urn:g1")
    seen.append(store.generation)
    store.query("SELECT * WHERE { ?s ?p ?o }")  # a read does not count
    seen.append(store.generation)
    assert seen[:4] == sorted(set(seen[:4])) and seen[3] == seen[4]
    store.close()
    ro = open_store(str(tmp_path / "kg"), read_only=True)
    before = ro.generation
    ro.query("SELECT * WHERE { ?s ?p ?o }")
    assert ro.generation == before
    ro.close()
