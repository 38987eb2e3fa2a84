"""Generate PRIMAD-like run data (N-Quads, one named graph per run) with the run ontology terms.

The shape follows what ``loaders/ir_metadata.py`` writes for a run header (per-run component
nodes; test collections with their ir_datasets id as a literal and ``rk:collection`` to the
shared node minted from it; reported measure
names as literals on the evaluation), plus reported scores (``rk:reportedScore`` ->
``rk:measureName`` + ``mls:hasValue`` + ``rk:onLeaderboard``, as ``reprokg compare`` writes
them) so baselines can be ordered. Deterministic (seeded).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from reprokg.core.identifiers import leaderboard_iri
from reprokg.loaders.qrels import collection_iri

RK = "https://w3id.org/reprokg/ontology#"
MLS = "http://www.w3.org/ns/mls#"
SCHEMA = "http://schema.org/"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
XSD = "http://www.w3.org/2001/XMLSchema#"
BASE = "https://w3id.org/reprokg/id/"

COLLECTIONS = [f"https://ir-datasets.com/collection-{i:02d}" for i in range(20)]
MEASURES = ["map", "P_10", "ndcg", "ndcg_cut_10", "recall_1000", "bpref", "recip_rank", "P_20"]
TOOLKITS = ["anserini", "pyserini", "terrier", "pyterrier", "indri", "elasticsearch"]
METHODS = [f"org.example.retrieval.Method{i}" for i in range(12)]
DISTRIBUTIONS = ["Ubuntu 18.04.5 LTS", "Ubuntu 20.04 LTS", "Debian 11", "CentOS 7", "macOS 12"]


def _iri(s: str) -> str:
    return f"<{s}>"


def _lit(v: object) -> str:
    if isinstance(v, float):
        return f'"{v!r}"^^<{XSD}double>'
    if isinstance(v, int):
        return f'"{v}"^^<{XSD}integer>'
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def run_quads(i: int, rng: random.Random) -> list[str]:
    """The N-Quads lines of run ``i`` (about 40 triples), in its own named graph."""
    run = f"{BASE}run/bench-{i:07d}"
    g = _iri(f"{BASE}doc/bench-{i:07d}")
    out: list[str] = []

    def t(s: str, p: str, o: str) -> None:
        out.append(f"{_iri(s)} {_iri(p)} {o} {g} .")

    def node(suffix: str, cls: str) -> str:
        n = f"{run}/{suffix}"
        t(n, RDF_TYPE, _iri(RK + cls))
        return n

    t(run, RDF_TYPE, _iri(RK + "Run"))
    t(run, RK + "runTag", _lit(f"run-{i}"))
    t(run, RK + "schemaVersion", _lit("0.1"))
    # platform: OS + software stack with a retrieval toolkit
    platform = node("platform", "Platform")
    t(run, RK + "platform", _iri(platform))
    os_ = node("os", "OperatingSystem")
    t(platform, RK + "operatingSystem", _iri(os_))
    t(os_, RK + "distribution", _lit(rng.choice(DISTRIBUTIONS)))
    t(os_, RK + "kernel", _lit(f"GNU/Linux 5.{rng.randrange(20)}.0"))
    software = node("software", "SoftwareStack")
    t(platform, RK + "software", _iri(software))
    toolkit = node("toolkit-0", "RetrievalToolkit")
    t(software, RK + "retrievalToolkit", _iri(toolkit))
    t(toolkit, SCHEMA + "name", _lit(rng.choice(TOOLKITS)))
    t(toolkit, RK + "packageVersion", _lit(f"0.{rng.randrange(30)}"))
    # data: a per-run test collection node with its ir_datasets id, linked to the shared
    # collection node minted from that id (as loaders/ir_metadata.py writes it)
    data = node("data", "Data")
    t(run, RK + "data", _iri(data))
    tc = node("data-test-collection", "TestCollection")
    t(data, RK + "testCollection", _iri(tc))
    coll = rng.choice(COLLECTIONS)
    shared = collection_iri(coll)
    t(tc, RK + "irDatasetsId", _lit(coll))
    t(tc, RK + "collection", _iri(str(shared)))
    # method: one or two retrieval stages
    method = node("method", "Method")
    t(run, RK + "method", _iri(method))
    for s in range(rng.choice((1, 2))):
        stage = node(f"method-stage-{s}", "RetrievalStage")
        t(method, RK + "retrievalStage", _iri(stage))
        t(stage, RK + "stageMethod", _lit(rng.choice(METHODS)))
        t(stage, RK + "position", _lit(s))
    # research goal: evaluation with reported measures and their scores
    goal = node("goal", "ResearchGoal")
    t(run, RK + "researchGoal", _iri(goal))
    ev = node("goal-evaluation", "Evaluation")
    t(goal, RK + "evaluation", _iri(ev))
    for m in rng.sample(MEASURES, 3):
        t(ev, RK + "reportedMeasure", _lit(m))
        value = node(f"score-{m}", "MeasureValue")
        t(run, RK + "reportedScore", _iri(value))
        t(value, RK + "measureName", _lit(m))
        t(value, MLS + "hasValue", _lit(round(rng.random(), 4)))
        # as reprokg compare writes it: the score on its (collection, measure) leaderboard
        # (the boards themselves are described once, by :func:`leaderboard_quads`)
        t(value, RK + "onLeaderboard", _iri(str(leaderboard_iri(shared, m))))
    # actor
    actor = node("actor", "Actor")
    t(run, RK + "actor", _iri(actor))
    t(actor, RK + "team", _lit(f"team-{rng.randrange(200)}"))
    return out


def leaderboard_quads() -> list[str]:
    """Every (collection, measure) leaderboard described once, in a graph of its own."""
    g = _iri(f"{BASE}doc/bench-leaderboards")
    out = []
    for coll in COLLECTIONS:
        shared = collection_iri(coll)
        for m in MEASURES:
            board = _iri(str(leaderboard_iri(shared, m)))
            out.append(f"{board} {_iri(RDF_TYPE)} {_iri(RK + 'Leaderboard')} {g} .")
            out.append(f"{board} {_iri(RK + 'leaderboardCollection')} {_iri(str(shared))} {g} .")
            out.append(f"{board} {_iri(RK + 'leaderboardMeasure')} {_lit(m)} {g} .")
    return out


def generate(target_triples: int, seed: int = 42) -> Iterator[str]:
    """N-Quads lines until at least ``target_triples`` have been written."""
    rng = random.Random(seed)
    boards = leaderboard_quads()
    yield from boards
    n, i = len(boards), 0
    while n < target_triples:
        lines = run_quads(i, rng)
        n += len(lines)
        i += 1
        yield from lines


def write(path: str, target_triples: int, seed: int = 42) -> int:
    count = 0
    with open(path, "w", encoding="utf-8") as fh:
        for line in generate(target_triples, seed):
            fh.write(line + "\n")
            count += 1
    return count
