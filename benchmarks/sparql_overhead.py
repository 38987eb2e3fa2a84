"""What the /sparql query path costs on top of the engine: in-process vs worker process vs HTTP.

Generates PRIMAD-like run data (runs on test collections, evaluations with a measure and
a score, toolkit/method), loads it into an on-disk pyoxigraph store, then times the same
find-baselines-shaped query (runs on one collection reporting one measure, ordered by
score) four ways, sequentially, and prints medians and p90:

1. ``in-process``: pyoxigraph ``Store.query`` + conversion to rdflib terms (what an
   inline runner does), the floor;
2. ``runner``: :class:`reprokg.sparql.runner.ProcessQueryRunner` (pipe to a worker
   process holding a read-only handle, pickled rows, rdflib terms);
3. ``guard``: :func:`reprokg.sparql.guard.inspect_query` on the text (fast path) and on a
   text that needs the rdflib parse (first call uncached, then cached);
4. ``http``: GET /sparql through the router served by uvicorn on loopback (httpx client,
   one connection), JSON results.

Run: ``python benchmarks/sparql_overhead.py [--triples 1000000] [--reps 200]``.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path

import httpx
import pyoxigraph as ox
import uvicorn
from fastapi import FastAPI

from reprokg.service.routes.sparql import SparqlLimits, sparql_router
from reprokg.sparql.guard import _parse_query, inspect_query
from reprokg.sparql.runner import ProcessQueryRunner, QueryJob, _encode, _to_result
from reprokg.store import open_store

RK = "https://w3id.org/reprokg/ontology#"
ID = "https://w3id.org/reprokg/id/"
MEASURES = ["ndcg_cut_10", "map", "P_10"]

QUERY = f"""PREFIX rk: <{RK}>
SELECT ?run ?toolkit ?score WHERE {{
  ?run rk:testCollection <{ID}collection/7> ;
       rk:toolkit ?toolkit ;
       rk:evaluation ?e .
  ?e rk:measure <{ID}measure/ndcg_cut_10> ;
     rk:score ?score .
}} ORDER BY DESC(?score) LIMIT 50"""

#: a point lookup: the engine's share is tiny, so this shows the fixed per-query overhead
LOOKUP = f"SELECT ?p ?o WHERE {{ <{ID}run/4242> ?p ?o }}"


def generate(store_dir: Path, triples: int) -> int:
    """Runs of ~12 triples each, 1 000 runs per document graph; returns triples written."""
    store_dir.mkdir(parents=True, exist_ok=True)
    store = ox.Store(str(store_dir))
    p = {
        k: ox.NamedNode(RK + k)
        for k in ("testCollection", "toolkit", "method", "evaluation", "measure", "score")
    }
    rdf_type = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
    run_cls = ox.NamedNode(RK + "Run")
    n_runs = max(1, triples // 12)
    quads = []
    written = 0
    for r in range(n_runs):
        g = ox.NamedNode(f"{ID}doc/{r // 1000}")
        run = ox.NamedNode(f"{ID}run/{r}")
        quads += [
            ox.Quad(run, rdf_type, run_cls, g),
            ox.Quad(run, p["testCollection"], ox.NamedNode(f"{ID}collection/{r % 40}"), g),
            ox.Quad(run, p["toolkit"], ox.NamedNode(f"{ID}toolkit/{r % 12}"), g),
            ox.Quad(run, p["method"], ox.NamedNode(f"{ID}method/{r % 300}"), g),
        ]
        for m in MEASURES:
            e = ox.NamedNode(f"{ID}eval/{r}/{m}")
            quads += [
                ox.Quad(run, p["evaluation"], e, g),
                ox.Quad(e, p["measure"], ox.NamedNode(f"{ID}measure/{m}"), g),
                ox.Quad(
                    e,
                    p["score"],
                    ox.Literal(
                        f"{(r * 7919 % 10007) / 10007:.4f}",
                        datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#decimal"),
                    ),
                    g,
                ),
            ]
        if len(quads) > 200_000:
            store.bulk_extend(quads)
            written += len(quads)
            quads = []
    store.bulk_extend(quads)
    written += len(quads)
    store.flush()
    store.optimize()
    del store
    return written


def stats(samples: list[float]) -> tuple[float, float]:
    s = sorted(samples)
    return statistics.median(s) * 1000, s[int(0.9 * (len(s) - 1))] * 1000


def bench(fn, reps: int) -> list[float]:
    for _ in range(5):
        fn()
    out = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--triples", type=int, default=200_000)
    ap.add_argument("--reps", type=int, default=200)
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="sparql-overhead-"))
    root = tmp / "store"
    t0 = time.perf_counter()
    n = generate(root / "oxigraph", args.triples)
    print(f"generated {n} triples in {time.perf_counter() - t0:.1f} s ({root})")
    queries = {"find-baselines": QUERY, "point lookup": LOOKUP}
    table: list[tuple[str, str, float, float, int]] = []

    # 1. in-process, the same read path as a worker (read-only handle, union default graph)
    ro = ox.Store.read_only(str(root / "oxigraph"))

    def direct(q: str) -> int:
        res = ro.query(q, use_default_graph_as_union=True)
        names = [v.value for v in res.variables]
        enc = [tuple(_encode(s[i]) for i in range(len(names))) for s in res]
        return len(_to_result("select", (names, enc)).rows)

    for name, q in queries.items():
        table.append(
            (
                name,
                "in-process (pyoxigraph + rdflib terms)",
                *stats(bench(lambda q=q: direct(q), args.reps)),
                direct(q),
            )
        )

    # 2. one worker process, the directory opened in place (nothing writes here)
    runner = ProcessQueryRunner(root / "oxigraph", workers=1, timeout=30)
    for name, q in queries.items():
        job = QueryJob(q)
        table.append(
            (
                name,
                "runner (worker process)",
                *stats(bench(lambda job=job: runner.run(job), args.reps)),
                len(runner.run(job).result.rows),
            )
        )
    runner.close()

    # 3. HTTP through the router on uvicorn (the store opened read-write: checkpoints)
    store = open_store(str(root))
    router = sparql_router(
        get_store=lambda: store, settings=SparqlLimits(query_timeout=30), workers=2, warm=False
    )
    router.sparql_runner.get()  # type: ignore[attr-defined]  # start workers before timing
    app = FastAPI()
    app.include_router(router)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    th = threading.Thread(target=srv.run, daemon=True)
    th.start()
    while not srv.started:
        time.sleep(0.05)
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
        for name, q in queries.items():

            def http(q: str = q) -> int:
                r = client.get("/sparql", params={"query": q})
                r.raise_for_status()
                return len(r.json()["results"]["bindings"])

            table.append(
                (name, "HTTP GET /sparql (uvicorn, JSON)", *stats(bench(http, args.reps)), http())
            )
    srv.should_exit = True
    th.join(10)
    router.sparql_runner.close()  # type: ignore[attr-defined]
    store.close()

    # 4. the guard
    guard = [
        (
            "fast path (no SERVICE/FROM in the text)",
            *stats(bench(lambda: inspect_query(QUERY), args.reps)),
        )
    ]
    q_from = QUERY.replace("WHERE", f"FROM <{ID}doc/1> WHERE")
    _parse_query.cache_clear()
    t = time.perf_counter()
    inspect_query(q_from)
    first = (time.perf_counter() - t) * 1000
    guard.append(("rdflib parse, first call", first, first))
    guard.append(("rdflib parse, cached", *stats(bench(lambda: inspect_query(q_from), args.reps))))

    print(f"\n{n} triples, {args.reps} sequential repetitions each (after 5 warm-ups)\n")
    print(f"| query          | {'path':<40} | p50 ms | p90 ms | rows |")
    print(f"|----------------|{'-' * 42}|-------:|-------:|-----:|")
    for qname, path, p50, p90, nr in table:
        print(f"| {qname:<14} | {path:<40} | {p50:6.2f} | {p90:6.2f} | {nr:4d} |")
    print(f"\n| guard (sparql_guard.inspect_query) {'':<12} | p50 ms | p90 ms |")
    print(f"|{'-' * 49}|-------:|-------:|")
    for gname, p50, p90 in guard:
        print(f"| {gname:<47} | {p50:6.2f} | {p90:6.2f} |")
    by = {(q, p.split(" ")[0]): p50 for q, p, p50, _, _ in table}
    for qname in queries:
        print(
            f"\n{qname}: worker hop {by[(qname, 'runner')] - by[(qname, 'in-process')]:+.2f} ms, "
            f"HTTP on top {by[(qname, 'HTTP')] - by[(qname, 'runner')]:+.2f} ms (p50)"
        )


if __name__ == "__main__":
    main()
