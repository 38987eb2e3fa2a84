"""Leaderboards: the reported scores of one measure on one test collection.

*Find baselines* ranks scores of a measure on a collection. Reaching them through the
runs (collection → every run on it → each run's scores → the measure) visits every run of
the collection; a score that names its leaderboard (``rk:onLeaderboard``) lets the query
start from exactly the scores it ranks (less work:
benchmarks/README.md#figures-once-quoted-in-code). The node is minted from the shared collection
node and the measure name as the runs report it, so every writer of the same pair meets on one node,
and the named query binds it as a constant (:mod:`reprokg.sparql.named`, ``# bind:`` header).

A run's reported scores (:mod:`reprokg.measures.reported`) are written here as its
``rk:reportedScore`` values on their leaderboards. ``reprokg compare --save``
(:mod:`reprokg.measures.comparison_document`) and ``reprokg evaluate --save``
(:mod:`reprokg.measures.evaluation`) both go through :func:`add_reported_scores`, and a
score's IRI is minted from the run, its lines, the qrels and the measure alone, so the same
score written by both is one node (the merged default graph holds it once) and a run is
ranked once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import PROV, RDF, XSD

from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import leaderboard_iri, mint
from reprokg.core.namespaces import MLS, RK
from reprokg.loaders.qrels import collection_iri

if TYPE_CHECKING:
    from reprokg.measures.inputs import QrelsInput, RunInput
    from reprokg.measures.reported import Scores


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


def score_collection(inp: RunInput, qrels: QrelsInput | None) -> URIRef | None:
    """The test collection a run's reported scores rank on (its leaderboard's).

    The run header's shared collection node when it names exactly one (what the run says
    it was evaluated on), else the collection of the qrels that judged it, when known;
    otherwise ``None`` and the scores are stored without a leaderboard (find-baselines
    cannot rank a score whose collection nobody named).
    """
    described = inp.described()
    named = run_collections(*described) if described is not None else []
    if len(named) == 1:
        return named[0]
    if qrels is not None and qrels.collection:
        judged = collection_iri(qrels.collection)
        if not named or judged in named:
            return judged
    return None


def score_iri(run: URIRef, inp: RunInput, qrels: QrelsInput, reported: str) -> URIRef:
    """One score per run × run lines × qrels × measure, whoever computes it."""
    return mint("score", stable_key(str(run), inp.sha256, qrels.sha256, reported))


def add_reported_scores(
    g: Graph,
    run: URIRef,
    inp: RunInput,
    qrels: QrelsInput,
    scores: Scores,
    activity: URIRef,
) -> URIRef | None:
    """Write ``scores`` as the run's ``rk:reportedScore`` values, each on its leaderboard
    when the collection is known; returns that collection (or ``None``)."""
    collection = score_collection(inp, qrels)
    for reported_name, (im_name, score) in sorted(scores.items()):
        v = score_iri(run, inp, qrels, reported_name)
        g.add((run, RK.reportedScore, v))
        g.add((v, RDF.type, MLS.ModelEvaluation))
        g.add((v, RDF.type, RK.MeasureValue))
        g.add((v, RK.measureName, Literal(reported_name)))
        g.add((v, RK.irMeasuresName, Literal(im_name)))
        g.add((v, MLS.hasValue, Literal(repr(float(score)), datatype=XSD.double)))
        g.add((v, PROV.wasGeneratedBy, activity))
        if collection is not None:
            add_leaderboard(g, v, collection, reported_name)
    return collection
