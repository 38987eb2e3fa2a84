"""find-baselines at 1M triples: over HTTP (uvicorn, 16 clients, 20 s) vs rdflib in memory.

    python -m benchmarks.sparql.run [--triples 1000000] [--clients 16] [--seconds 20]

1. generate PRIMAD-like run data (:mod:`benchmarks.sparql.generate`) as N-Quads;
2. bulk-load it into an embedded pyoxigraph store (one named graph per run);
3. in process, time formulations of find-baselines on pyoxigraph (the one shipped in
   ``queries/find-baselines.rq`` and alternatives), to keep the plan that scales;
4. start ``reprokg serve`` on loopback and hit ``GET /queries/find-baselines`` with N
   concurrent clients for S seconds: p50/p99 latency and requests/s;
5. run the same bound SPARQL on rdflib's in-memory ``Dataset`` (union default graph);
6. print a table. Loopback only; bounded in time. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pyoxigraph as ox

from benchmarks.machine import cpu_shares, cpu_times
from benchmarks.sparql.generate import COLLECTIONS, MEASURES, TOOLKITS, _lit, write
from reprokg.sparql import ranked
from reprokg.sparql.named import get_query
from reprokg.store.oxigraph import OxigraphStore


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def combos(n: int, seed: int = 7) -> list[dict[str, str]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        c = {"collection": rng.choice(COLLECTIONS), "measure": rng.choice(MEASURES)}
        if rng.random() < 0.25:
            c["toolkit"] = rng.choice(TOOLKITS)
        out.append(c)
    return out


# ------------------------------------------------------------------ formulations

PREFIXES = """PREFIX rk: <https://w3id.org/reprokg/ontology#>
PREFIX mls: <http://www.w3.org/ns/mls#>
PREFIX schema: <http://schema.org/>
"""

#: the first formulation written (kept to show why it was replaced): reported measure on the
#: evaluation, score in a multi-pattern OPTIONAL, toolkit through a property path
OPTIONAL_FORM = (
    PREFIXES
    + """SELECT ?run ?tag ?score ?measure ?collection WHERE {
  %VALUES%
  ?tc rk:irDatasetsId ?collection .
  ?data rk:testCollection ?tc .
  ?run rk:data ?data ;
       rk:researchGoal ?goal .
  ?goal rk:evaluation ?evaluation .
  ?evaluation rk:reportedMeasure ?measure .
  %TOOLKIT%
  OPTIONAL { ?run rk:runTag ?tag }
  OPTIONAL {
    ?run rk:reportedScore ?value .
    ?value rk:measureName ?measure ;
           mls:hasValue ?score .
  }
}
ORDER BY DESC(?score) ?run
LIMIT 100
"""
)

#: collection -> test collection -> data -> run -> scores -> measure name: every run of
#: the collection and each of its scores (the plans before leaderboards)
WALK = """  ?tc %COLLECTION_PREDICATE% ?collection .
  ?data rk:testCollection ?tc .
  ?run rk:data ?data .
  ?run rk:reportedScore ?value .
  ?value rk:measureName ?measure .
  ?value mls:hasValue ?score .
  ?run rk:runTag ?tag .
"""


def _select(body: str) -> str:
    """The find-baselines projection, order and default limit around ``body``."""
    return (
        PREFIXES
        + "SELECT ?run ?tag ?score ?measure ?collection WHERE {\n"
        + body
        + "}\nORDER BY DESC(?score) ?run\nLIMIT 100\n"
    )


#: the walk on the collection literal, each parameter compared in a FILTER instead of joined on
FILTER_FORM = _select(
    WALK.replace("%COLLECTION_PREDICATE%", "rk:irDatasetsId")
    + "  %TOOLKIT%\n  FILTER(?collection = %C% && ?measure = %M%)\n"
)


def optional_form(c: dict[str, str]) -> str:
    values = (
        f"VALUES ?collection {{ {_lit(c['collection'])} }} "
        f"VALUES ?measure {{ {_lit(c['measure'])} }}"
    )
    tk = ""
    if "toolkit" in c:
        tk = (
            f"VALUES ?toolkit {{ {_lit(c['toolkit'])} }} "
            "?run rk:platform/rk:software/rk:retrievalToolkit/schema:name ?toolkit ."
        )
    return OPTIONAL_FORM.replace("%VALUES%", values).replace("%TOOLKIT%", tk)


def filter_form(c: dict[str, str]) -> str:
    tk = ""
    if "toolkit" in c:
        tk = (
            "?run rk:platform ?p . ?p rk:software ?sw . ?sw rk:retrievalToolkit ?tk . "
            f"?tk schema:name ?toolkit . FILTER(?toolkit = {_lit(c['toolkit'])})"
        )
    return (
        FILTER_FORM.replace("%C%", _lit(c["collection"]))
        .replace("%M%", _lit(c["measure"]))
        .replace("%TOOLKIT%", tk)
    )


#: the plan shipped before leaderboards: the walk from the shared collection node
WALK_FORM = _select(
    "  %VALUES%\n" + WALK.replace("%COLLECTION_PREDICATE%", "rk:collection") + "  %TOOLKIT%\n"
)


def _toolkit_patterns(c: dict[str, str]) -> str:
    if "toolkit" not in c:
        return ""
    return (
        f"VALUES ?toolkit {{ {_lit(c['toolkit'])} }} ?run rk:platform ?p . "
        "?p rk:software ?sw . ?sw rk:retrievalToolkit ?tk . ?tk schema:name ?toolkit ."
    )


def walk_form(c: dict[str, str]) -> str:
    """The previous plan, from the shared collection node through its runs."""
    from reprokg.loaders.qrels import collection_iri

    values = (
        f"VALUES ?collection {{ <{collection_iri(c['collection'])}> }} "
        f"VALUES ?measure {{ {_lit(c['measure'])} }}"
    )
    return WALK_FORM.replace("%VALUES%", values).replace("%TOOLKIT%", _toolkit_patterns(c))


def literal_form(c: dict[str, str]) -> str:
    """The plan before that: the walk joined on the rk:irDatasetsId literal."""
    from reprokg.loaders.qrels import collection_iri

    return (
        walk_form(c)
        .replace(
            f"VALUES ?collection {{ <{collection_iri(c['collection'])}> }}",
            f"VALUES ?collection {{ {_lit(c['collection'])} }}",
        )
        .replace("?tc rk:collection ?collection", "?tc rk:irDatasetsId ?collection")
    )


def merged_store(path: Path) -> OxigraphStore:
    """Give a bulk-loaded store the merged default graph and the leaderboard ranks reprokg
    keeps (and serves from): opening it writable once builds both (``OxigraphStore``);
    the in-process timings then read the default graph, as the service does."""
    t0 = time.perf_counter()
    s = OxigraphStore(path)
    print(
        f"merged default graph and ranks ready ({time.perf_counter() - t0:.1f} s, peak RSS "
        f"so far {_peak_rss_mb():.0f} MB): {s.maintenance}",
        flush=True,
    )
    return s


def _peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def time_inprocess(store: OxigraphStore, make, cs: list[dict[str, str]]) -> tuple[float, int]:
    """Median ms and total rows of ``make(c)`` for each parameter set, rows iterated. A
    ``ranked.Planned`` runs as the service runs it (``native_query`` told whether it
    reads the store)."""
    times, rows = [], 0
    for c in cs:
        t0 = time.perf_counter()
        q = make(c)
        if isinstance(q, ranked.Planned):
            res = store.native_query(q.sparql, reads_store=q.reads_store)
        else:
            res = store.native_query(q)
        rows += sum(1 for _ in res)  # type: ignore[attr-defined]
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000, rows


# ------------------------------------------------------------------ HTTP load


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def load_test(url: str, cs: list[dict[str, str]], clients: int, seconds: float):
    latencies: list[float] = []
    errors = 0
    stop = time.monotonic() + seconds

    async def worker(k: int, client: httpx.AsyncClient) -> None:
        nonlocal errors
        i = k
        while time.monotonic() < stop:
            params = cs[i % len(cs)]
            i += clients
            t0 = time.perf_counter()
            r = await client.get(url, params=params)
            dt = time.perf_counter() - t0
            if r.status_code == 200:
                latencies.append(dt)
            else:
                errors += 1

    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        t0 = time.monotonic()
        await asyncio.gather(*(worker(k, client) for k in range(clients)))
        elapsed = time.monotonic() - t0
    return latencies, errors, elapsed


WRK_SCRIPT = """
paths = {%s}
math.randomseed(%d)
request = function()
  return wrk.format("GET", paths[math.random(#paths)])
end
"""


def wrk_test(url: str, cs: list[dict[str, str]], clients: int, seconds: float, seed: int = 1):
    """wrk (C, one thread per core at most): a random parameter set per request.

    Returns (p50 ms, p99 ms, requests/s, non-2xx+errors, wrk's own CPU seconds).
    """
    import re
    import resource
    from urllib.parse import urlencode, urlsplit

    base = urlsplit(url)
    paths = ", ".join(f'"{base.path}?{urlencode(c)}"' for c in cs)
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as fh:
        fh.write(WRK_SCRIPT % (paths, seed))
        script = fh.name
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(
        ["wrk", "-t1", f"-c{clients}", f"-d{int(seconds)}s", "--latency", "-s", script, url],
        capture_output=True,
        text=True,
        timeout=seconds + 60,
        check=True,
    ).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    os.unlink(script)

    def ms(label: str) -> float:
        m = re.search(rf"^\s*{label}%\s+([\d.]+)(us|ms|s)\s*$", out, re.MULTILINE)
        v, unit = float(m.group(1)), m.group(2)
        return v / 1000 if unit == "us" else v * 1000 if unit == "s" else v

    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    bad = sum(int(x) for x in re.findall(r"Non-2xx or 3xx responses: (\d+)", out))
    bad += sum(int(x) for x in re.findall(r"(?:connect|read|write|timeout) (\d+)", out))
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return ms("50"), ms("99"), rps, bad, cpu


def serve(
    store_dir: str, port: int, workers: int = 1, extra: tuple[str, ...] = (), cache_mb: int = 0
) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REPROKG_")}
    if "REPROKG_NAMED_QUERIES_INLINE" in os.environ:  # compare the worker-process path
        env["REPROKG_NAMED_QUERIES_INLINE"] = os.environ["REPROKG_NAMED_QUERIES_INLINE"]
    # uncached unless asked: the cached figures are reported apart (sparql/cache.py)
    env["REPROKG_NAMED_QUERY_CACHE_MB"] = str(cache_mb)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "reprokg",
            "serve",
            "--store",
            store_dir,
            "--port",
            str(port),
            "--no-access-log",
            "--workers",
            str(workers),
            *extra,
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 600  # --in-memory: each worker copies the store first
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(proc.stderr.read())
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.5)
    proc.kill()
    raise RuntimeError("server did not start")


def in_memory(disk: OxigraphStore, shipped, cs: list[dict[str, str]], inproc: dict) -> None:
    """The same queries on the in-memory copy the service's ``--in-memory`` mirror holds
    (documents, merge and ranks): what the on-disk lookups cost."""
    t0 = time.perf_counter()
    copy = disk.in_memory_copy()
    print(f"pyoxigraph in-memory copy: {time.perf_counter() - t0:.1f} s", flush=True)
    forms = {
        "template (ranks every score), in-memory store": shipped.bind,
        "ranked (store's leaderboard ranks), in-memory store": lambda c: ranked.planned(
            shipped, c, copy
        ),
    }
    for name, make in forms.items():
        time_inprocess(copy, make, cs[:1])
        inproc[name] = time_inprocess(copy, make, cs[:100])
        print(f"in-process pyoxigraph, {name}: p50 {inproc[name][0]:.2f} ms", flush=True)
    copy.close()


def http_runs(
    args: argparse.Namespace, store_dir: str, extra: tuple[str, ...], cs: list, cache_mb: int
) -> list[tuple[str, float, float, float]]:
    """One server, its HTTP runs: 1 client, then N clients (wrk and/or httpx)."""
    tag = ", cached" if cache_mb else ""
    port = free_port()
    proc = serve(store_dir, port, args.workers, extra, cache_mb)
    try:
        url = f"http://127.0.0.1:{port}/queries/find-baselines"
        asyncio.run(load_test(url, cs, args.clients, 2.0))  # warm-up
        lat1, _e1, el1 = asyncio.run(load_test(url, cs, 1, args.single_seconds))
        rows: list[tuple[str, float, float, float]] = [
            (f"1 client (httpx){tag}", pct(lat1, 50) * 1000, pct(lat1, 99) * 1000, len(lat1) / el1)
        ]
        if args.client in ("wrk", "both"):
            t0_cpu = cpu_times()
            p50, p99, rps, bad, cpu = wrk_test(url, cs, args.clients, args.seconds)
            shares = cpu_shares(t0_cpu, cpu_times())
            print(
                f"HTTP wrk: p50 {p50:.1f} ms, p99 {p99:.1f} ms, {rps:.1f} req/s, {bad} errors, "
                f"wrk CPU {cpu:.1f} s over {args.seconds:.0f} s; machine CPU "
                + ", ".join(f"{k} {v:.0%}" for k, v in shares.items()),
                flush=True,
            )
            rows.append((f"{args.clients} clients (wrk){tag}", p50, p99, rps))
        if args.client in ("httpx", "both"):
            c0 = time.process_time()
            lat, errors, elapsed = asyncio.run(load_test(url, cs, args.clients, args.seconds))
            cpu = time.process_time() - c0
            p50, p99, rps = pct(lat, 50) * 1000, pct(lat, 99) * 1000, len(lat) / elapsed
            print(
                f"HTTP httpx: {len(lat)} requests, {errors} errors, p50 {p50:.1f} ms, "
                f"p99 {p99:.1f} ms, {rps:.1f} req/s, client CPU {cpu:.1f} s over {elapsed:.0f} s",
                flush=True,
            )
            rows.append((f"{args.clients} clients (httpx){tag}", p50, p99, rps))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return rows


# ------------------------------------------------------------------ main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--triples", type=int, default=1_000_000)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--rdflib-queries", type=int, default=5, help="queries timed on rdflib")
    ap.add_argument("--skip-rdflib", action="store_true")
    ap.add_argument("--http-only", action="store_true", help="skip the in-process timings")
    ap.add_argument("--single-seconds", type=float, default=10.0, help="one-client run first")
    ap.add_argument("--workers", type=int, default=1, help="uvicorn workers for the HTTP run")
    ap.add_argument(
        "--in-memory",
        action="store_true",
        help="serve read-only with the store copied into memory (serve --read-only --in-memory)",
    )
    ap.add_argument("--data", help="reuse the folder of an earlier run (runs.nq + store/)")
    ap.add_argument(
        "--client",
        choices=("wrk", "httpx", "both"),
        default="both" if shutil.which("wrk") else "httpx",
        help="load generator: wrk (C, low overhead) and/or Python httpx asyncio clients",
    )
    ap.add_argument(
        "--optional-queries", type=int, default=3, help="queries timed on the first draft"
    )
    ap.add_argument(
        "--cache",
        action="store_true",
        help="also run the HTTP load with the named-query result cache on (reported apart)",
    )
    ap.add_argument(
        "--build-only",
        action="store_true",
        help="stop after the bulk load, the merge rebuild and the ranks (their timings)",
    )
    args = ap.parse_args(argv)

    work = Path(args.data or tempfile.mkdtemp(prefix="reprokg-bench-sparql-"))
    nq = work / "runs.nq"
    store_dir = work / "store"
    if args.data and nq.is_file():  # the quads of an earlier run (its store, if kept)
        with open(nq, encoding="utf-8") as fh:
            n = sum(1 for _ in fh)
        print(f"reusing {n} quads in {nq}", flush=True)
    else:
        t0 = time.perf_counter()
        n = write(str(nq), args.triples)
        print(f"generated {n} quads in {time.perf_counter() - t0:.1f} s ({work})", flush=True)
    if not (args.data and (store_dir / "oxigraph").is_dir()):
        store_dir.mkdir(exist_ok=True)
        t0 = time.perf_counter()
        store = ox.Store(str(store_dir / "oxigraph"))
        store.bulk_load(path=str(nq), format=ox.RdfFormat.N_QUADS)
        store.flush()
        del store
        print(
            f"pyoxigraph bulk load: {time.perf_counter() - t0:.1f} s (peak RSS so far "
            f"{_peak_rss_mb():.0f} MB)",
            flush=True,
        )
    disk = merged_store(store_dir / "oxigraph")
    if args.build_only:
        disk.close()
        return 0

    cs = combos(200)
    shipped = get_query("find-baselines")
    # (name, formulation, queries timed): the slow first draft is timed on few queries
    forms = [
        ("ranked: the store's leaderboard ranks", lambda c: ranked.planned(shipped, c, disk), 100),
        ("shipped: from the leaderboard node", shipped.bind, 100),
        ("previous: collection node -> runs -> scores", walk_form, 50),
        ("before: join on the collection literal", literal_form, 50),
        ("literal, FILTER on params", filter_form, 20),
        ("first draft: OPTIONAL score", optional_form, args.optional_queries),
    ]
    inproc: dict[str, tuple[float, int]] = {}
    if not args.http_only:
        # one request's store work split: evaluation (rows iterated) vs native JSON writing
        ev, ser = [], []
        for c in cs[:50]:
            t0 = time.perf_counter()
            sum(1 for _ in disk.native_query(shipped.bind(c)))
            t1 = time.perf_counter()
            res = disk.native_query(shipped.bind(c))
            res.serialize(format=ox.QueryResultsFormat.JSON)
            ev.append(t1 - t0)
            ser.append(time.perf_counter() - t1)
            del res  # results keep the store open
        print(
            f"in-process on-disk: evaluate p50 {statistics.median(ev) * 1000:.1f} ms, "
            f"evaluate + serialise JSON p50 {statistics.median(ser) * 1000:.1f} ms",
            flush=True,
        )
    for name, make, k in forms:
        if k <= 0 or args.http_only:
            continue
        time_inprocess(disk, make, cs[:1])  # warm
        inproc[name] = time_inprocess(disk, make, cs[:k])
        print(
            f"in-process pyoxigraph, {name}: p50 {inproc[name][0]:.2f} ms "
            f"({inproc[name][1]} rows over {k} queries)",
            flush=True,
        )
    if not args.http_only:  # the ranked plan answers what the template answers
        differ = sum(
            [tuple(r) for r in disk.native_query(ranked.plan(shipped, c, disk))]
            != [tuple(r) for r in disk.native_query(shipped.bind(c))]
            for c in cs[:100]
        )
        print(f"ranked vs template: {differ} of 100 parameter sets differ", flush=True)
    if not args.http_only:
        in_memory(disk, shipped, cs, inproc)
    disk.close()  # the server opens the store next
    t0 = time.perf_counter()
    sum(range(10**7))
    calib = time.perf_counter() - t0
    print(f"CPU calibration: sum(range(10**7)) took {calib:.2f} s", flush=True)

    extra = ("--read-only", "--in-memory") if args.in_memory else ()
    rows: list[tuple[str, float, float, float]] = []
    for cache_mb in (0, 64) if args.cache else (0,):
        rows += http_runs(args, str(store_dir), extra, cs, cache_mb)
    load = os.getloadavg()

    rd_p50 = float("nan")
    if not args.skip_rdflib:
        from rdflib import Dataset

        t0 = time.perf_counter()
        ds = Dataset(default_union=True)
        ds.parse(str(nq), format="nquads")
        print(f"rdflib parse: {time.perf_counter() - t0:.1f} s", flush=True)
        times = []
        for c in cs[: args.rdflib_queries]:
            t1 = time.perf_counter()
            nrows = len(list(ds.query(shipped.bind(c))))
            times.append(time.perf_counter() - t1)
            print(f"  rdflib query {len(times)}: {times[-1]:.2f} s, {nrows} rows", flush=True)
        rd_p50 = statistics.median(times) * 1000

    print()
    print(f"find-baselines at {n} triples ({args.seconds:.0f} s per HTTP run, default LIMIT)")
    print(f"(CPU calibration loop: {calib:.2f} s; about 0.2 s on an idle modern core)")
    print(f"(load average after the HTTP runs: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f})")
    print(f"{'engine':50} {'p50 ms':>10} {'p99 ms':>10} {'req/s':>8}")
    mode = ", in-memory mirror" if args.in_memory else ""
    for label, p50, p99, rps in rows:
        name = f"reprokg HTTP, {label}, {args.workers} worker(s){mode}"
        print(f"{name:50} {p50:10.1f} {p99:10.1f} {rps:8.1f}")
    for name, (p50, _rows) in inproc.items():
        print(f"{'pyoxigraph in-process, ' + name:50} {p50:10.2f} {'':>10} {'':>8}")
    print(
        f"{'rdflib Dataset in memory (same SPARQL)':50} {rd_p50:10.1f} {'':>10} "
        f"{1000 / rd_p50 if rd_p50 == rd_p50 else float('nan'):8.2f}"
    )
    if rd_p50 == rd_p50:
        for label, p50, _p99, rps in rows:
            print(
                f"rdflib / reprokg, {label}: {rd_p50 / p50:.0f}x (p50), "
                f"{rps / (1000 / rd_p50):.0f}x (throughput)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
