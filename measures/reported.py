"""A run's reported measures, evaluated, on the leaderboard of its test collection.

An ir_metadata header lists the measures its run reports (``research goal.evaluation.
reported measures``: ``map``, ``P_10`` …). Given the qrels that judge the run, each is
evaluated with ir-measures and stored as an ``rk:reportedScore`` of the run, on the
``rk:Leaderboard`` of that measure on the run's collection: what *find baselines* ranks.
``reprokg compare --save`` (:mod:`reprokg.measures.study`) and ``reprokg evaluate --save``
(:mod:`reprokg.measures.evaluation`) both go through these functions, and a score's IRI
is minted from the run, its lines, the qrels and the measure alone, so the same score written
by both is one node (the merged default graph holds it once) and a run is ranked once.
"""

from __future__ import annotations

import ir_measures
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import PROV, RDF, XSD

from reprokg.core.identifiers import mint, stable_key
from reprokg.core.namespaces import MLS, RK
from reprokg.loaders.qrels import collection_iri
from reprokg.loaders.trec import Qrels
from reprokg.measures.effectiveness import Evaluator
from reprokg.measures.inputs import QrelsInput, RunInput
from reprokg.measures.leaderboard import add_leaderboard, run_collections

#: reported measure name as written -> (ir-measures name, mean score over topics)
Scores = dict[str, tuple[str, float]]


def reported_measures(inp: RunInput) -> list[str]:
    """The measure names the run's header reports (none without a header)."""
    if inp.graph is None or inp.subject is None:
        return []
    g = inp.graph
    return sorted(
        {
            str(m)
            for goal in g.objects(inp.subject, RK.researchGoal)
            for ev in g.objects(goal, RK.evaluation)
            for m in g.objects(ev, RK.reportedMeasure)
        }
    )


def ir_measures_name(reported: str) -> str | None:
    """ir-measures name for a measure as a header reports it (``map`` -> ``AP``)."""
    for parse in (ir_measures.parse_trec_measure, ir_measures.parse_measure):
        try:
            parsed = parse(reported)
        except Exception:  # noqa: BLE001 - unknown names are reported, not fatal
            continue
        parsed = parsed if isinstance(parsed, list) else [parsed]
        if len(parsed) == 1:
            return str(parsed[0])
    return None


def evaluate_reported(inp: RunInput, qrels: Qrels, label: str) -> tuple[Scores, list[str]]:
    """The run's reported measures evaluated on ``qrels`` (mean over topics), and warnings
    (``label`` names the run in them) for names ir-measures does not know."""
    names = reported_measures(inp)
    if not names:
        return {}, []
    resolved = {n: ir_measures_name(n) for n in names}
    warnings = []
    unknown = [n for n, m in resolved.items() if m is None]
    if unknown:
        warnings.append(
            f"{label}: reported measure(s) {', '.join(unknown)} not known to ir-measures; "
            "not evaluated"
        )
    known = sorted({m for m in resolved.values() if m})
    if not known:
        return {}, warnings
    means = Evaluator(qrels, tuple(known)).evaluate(inp.run).means()
    return {n: (m, means[m]) for n, m in resolved.items() if m}, warnings


def score_collection(inp: RunInput, qrels: QrelsInput | None) -> URIRef | None:
    """The test collection a run's reported scores rank on (its leaderboard's).

    The run header's shared collection node when it names exactly one (what the run says
    it was evaluated on), else the collection of the qrels that judged it, when known;
    otherwise ``None`` and the scores are stored without a leaderboard (find-baselines
    cannot rank a score whose collection nobody named).
    """
    named = run_collections(inp.graph, inp.subject) if inp.graph is not None else []
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
