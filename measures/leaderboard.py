"""Leaderboards: the reported scores of one measure on one test collection.

*Find baselines* ranks scores of a measure on a collection. Reaching them through the
runs (collection → every run on it → each run's scores → the measure) visits every run of
the collection; a score that names its leaderboard (``rk:onLeaderboard``) lets the query
start from exactly the scores it ranks (benchmarks/sparql: about 4× less work at 1M
triples). The node is minted from the shared collection node and the measure name as the
runs report it, so every writer of the same pair meets on one node, and the named query
binds it as a constant (:mod:`reprokg.sparql.named`, ``# bind:`` header).
"""

from __future__ import annotations

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF

from reprokg.core.identifiers import leaderboard_iri
from reprokg.core.namespaces import RK


def add_leaderboard(g: Graph, score: URIRef, collection: URIRef, measure: str) -> URIRef:
    """Put ``score`` on its leaderboard in ``g`` (with the board's description)."""
    board = leaderboard_iri(collection, measure)
    g.add((score, RK.onLeaderboard, board))
    g.add((board, RDF.type, RK.Leaderboard))
    g.add((board, RK.leaderboardCollection, collection))
    g.add((board, RK.leaderboardMeasure, Literal(measure)))
    return board


def run_collections(g: Graph, run: URIRef) -> list[URIRef]:
    """The shared collection nodes a run header names (run → data → test collection)."""
    out = {
        c
        for data in g.objects(run, RK.data)
        for tc in g.objects(data, RK.testCollection)
        for c in g.objects(tc, RK.collection)
        if isinstance(c, URIRef)
    }
    return sorted(out)
