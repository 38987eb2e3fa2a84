"""The scale table of issue 43: field-shaped documents at growing sizes on the embedded
store, Oxigraph server and Virtuoso 7 — load time, store size, the passport and
find-baselines under 16 loopback clients of a real ``reprokg serve``, the largest request
body a passport sends to the engine, and the scaling exponent of each column.

    cd reprokg && python -m benchmarks.scale.table --sizes 10000 100000 1000000 \\
        --backends embedded,oxigraph,virtuoso --out benchmarks/scale/results-table.json

Data (:func:`generate`, seeded): real documents as reprokg's loaders write them — the
first of each kind that ``reprokg serve --demo`` validates — templated by renaming their
IRIs with the document's index. Every block of 10 documents holds: 1 artifact-evaluation
record (ReproDB badges) of its own paper (a DOI ``10.5555/scale.P``: the paper's facts and
badges), 1 ReScience C replication whose original is a paper drawn Zipf-like (weight
1/(rank+1)), 6 run headers (ir_metadata: the run, its tag, its research goal naming a
paper drawn the same way, its venue, its evaluation; the platform, method and data parts
left out), 1 ``reprokg evaluate`` evaluation scoring 3 of those runs on the map and P_10
leaderboards of one collection (seeded scores), and 1 ``reprokg compare`` comparison of
two of them (its values of AP only: 19 of the demo's 1,104). So papers are named by many
documents, paper 0 by the most. Before loading, the first 30 documents are validated as
ingest validates them (:func:`conform`): each conforms to its kind's shapes.

Loading goes through each engine's bulk path with what reprokg writes (the documents,
their merge, its state, the counters: ``benchmarks/scale/common.py``, as
``remote_requests.py``): ``OxigraphStore.restore`` on the embedded store (it builds merge
and counters itself); one ``POST /store`` on Oxigraph server; ``ld_dir`` +
``rdf_loader_run`` + ``checkpoint`` on Virtuoso. Store size: ``du`` of the data folder.
Then ``reprokg serve`` over the store (``tests/service/conftest.py::reprokg_serve``, the
named-query result cache off so each request runs its query) answers, from 16 client
threads on loopback, ``--requests`` passports (``GET /paper?iri=``, each a different
paper, so none is served from the per-generation cache) and as many find-baselines
(``GET /queries/find-baselines?collection=…&measure=map``), after ``--warmup`` of each:
p50, p99 and requests per second. The largest request body is what
:class:`~reprokg.store.remote.RemoteStore`'s HTTP client sends for the passport of the
most-named paper (``remote_requests.spy_sizes``). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import bisect
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlencode

import httpx

from benchmarks.scale.common import (
    VIRTUOSO_MERGED,
    counters_of,
    engine,
    merge_line,
    oxigraph_post,
    virtuoso_load,
)
from benchmarks.scale.remote_requests import spy_sizes

SEED = 43
ID = "https://w3id.org/reprokg/id/"
DOC = ID + "doc/scale-{i:07d}"
PAPER = "https://doi.org/10.5555/scale.{p}"
COLLECTION = "https://ir-datasets.com/nyt"
#: the kinds of a block of 10 documents, in order
BLOCK = (
    "badge",
    "replication",
    "run",
    "run",
    "run",
    "run",
    "run",
    "run",
    "evaluation",
    "comparison",
)
RUNS_PER_BLOCK = BLOCK.count("run")
#: node kinds shared between documents, as reprokg mints them (not renamed per document)
SHARED = {"leaderboard", "software", "qrels", "agent", "measure", "run"}
_RUN = re.compile(r"https://w3id\.org/reprokg/id/run/([0-9a-f]{20})")
_NODE = re.compile(r"<https://w3id\.org/reprokg/id/([a-z-]+)/([^>]*)>")
_BNODE = re.compile(r"(^|\s)_:(\w+)")
_VALUE = re.compile(r'(<http://www\.w3\.org/ns/mls#hasValue> )"[^"]*"')
_DOI = re.compile(r"https://doi\.org/(10\.[^>\s\"]+)")
#: the measures a generated comparison keeps values of
KEPT_MEASURES = r'#irMeasuresName> "AP"'
#: requests of each kind timed alone (one client), after the 16 clients
ALONE = 7
COLUMNS = (
    "load_s",
    "store_mb",
    "passport_p50_ms",
    "passport_p99_ms",
    "passport_rps",
    "baselines_p50_ms",
    "baselines_p99_ms",
    "baselines_rps",
    "passport_alone_ms",
    "baselines_alone_ms",
    "passport_request_bytes",
)


def _template(nt: str, roles: dict[str, str]) -> str:
    """A document's N-Triples as a format string: ``roles`` (exact strings: a DOI, a run's
    token, a tag) become placeholders, every other node reprokg minted is renamed per
    document (``{doc}``), blank nodes too, and each ``mls:hasValue`` becomes ``{vK}``."""
    text = nt.replace("{", "{{").replace("}", "}}")
    for old, new in roles.items():
        text = text.replace(old, new)
    text = _NODE.sub(
        lambda m: (
            m.group(0) if m.group(1) in SHARED else f"<{ID}{m.group(1)}/{m.group(2)}-{{doc}}>"
        ),
        text,
    )
    text = _BNODE.sub(lambda m: f"{m.group(1)}_:{m.group(2)}x{{doc}}", text)
    k = iter(range(10_000))
    return _VALUE.sub(lambda m: f'{m.group(1)}"{{v{next(k)}}}"', text)


def _runs(nt: str) -> dict[str, str]:
    """The runs a document names, in a fixed order, as the block's run placeholders."""
    return {f"run/{t}": f"run/scale{{run{k}}}" for k, t in enumerate(sorted(set(_RUN.findall(nt))))}


def templates() -> dict[str, str]:
    """One real document of each kind (the first the demo validates), as templates."""
    import logging

    from benchmarks.validation.corpus import _captured
    from reprokg.service.demo import load_demo
    from reprokg.store import open_store

    logging.disable(logging.CRITICAL)
    seen: list[Any] = []
    with tempfile.TemporaryDirectory() as d, open_store(d) as store, _captured(seen):
        load_demo(store)
    logging.disable(logging.NOTSET)
    first: dict[str, str] = {}
    for doc in seen:
        nt = doc.graph.serialize(format="nt")
        if doc.kind == "rescience" and "#reproduces>" not in nt:
            continue  # a replication naming its original
        first.setdefault(doc.kind, nt)
    out: dict[str, str] = {}
    nt = first["artifact-evaluation"]
    (doi,) = {m for m in _DOI.findall(nt) if not m.startswith("10.5281/")}
    out["badge"] = _template(nt, {doi: "10.5555/scale.{paper}"})
    nt = first["rescience"]
    report = _DOI.findall(nt)[0]
    (original,) = re.findall(r"#reproduces> <([^>]+)>", nt)
    roles = {f"<{original}>": f"<{PAPER.replace('{p}', '{paper}')}>"}
    out["replication"] = _template(nt, {**roles, report: "10.5555/scale-report.{doc}"})
    nt = first["run"]
    (token,) = set(_RUN.findall(nt))
    run = f"<{ID}run/{token}"
    keep = (f"{run}>", f"{run}/goal>", f"{run}/goal-venue>", f"{run}/goal-evaluation")
    lines = [
        line
        for line in nt.splitlines()
        if line.startswith(keep)
        and (not line.startswith(f"{run}> ") or re.search(r"#(type|runTag|researchGoal)>", line))
    ]
    nt = "\n".join(lines) + "\n"
    (tag,) = re.findall(r'#runTag> ("[^"]*")', nt)
    (doi,) = set(_DOI.findall(nt))
    roles = {**_runs(nt), tag: '"run-{run0}"', doi: "10.5555/scale.{paper}"}
    # the paper's facts are its badge record's; a header names it only
    nt = "\n".join(ln for ln in nt.splitlines() if not ln.startswith("<https://doi.org/"))
    out["run"] = _template(nt + "\n", roles)
    nt = first["evaluation"]
    out["evaluation"] = _template(nt, _runs(nt))
    nt = first["comparison"]
    # its values of AP (the map leaderboard's measure: what a comparison of that measure
    # writes), not of all 58 measures the demo's holds
    values = {ln.split()[0] for ln in nt.splitlines() if "#runSide>" in ln}
    kept = {ln.split()[0] for ln in nt.splitlines() if re.search(KEPT_MEASURES, ln)}
    drop = values - kept
    nt = "\n".join(
        ln for ln in nt.splitlines() if ln.split()[0] not in drop and ln.split()[2] not in drop
    )
    out["comparison"] = _template(nt + "\n", _runs(nt))
    return out


class _Scores(dict[str, Any]):
    """The placeholders of one document; a score (``vK``) drawn when first asked for."""

    def __init__(self, vals: dict[str, Any], rng: random.Random) -> None:
        super().__init__(vals)
        self.rng = rng

    def __missing__(self, key: str) -> str:
        self[key] = f"{self.rng.random():.4f}"
        return self[key]


#: the shape kind of each generated kind
SHAPE_KIND = {
    "badge": "artifact-evaluation",
    "replication": "rescience",
    "run": "run",
    "evaluation": "evaluation",
    "comparison": "comparison",
}


def conform(tmpl: dict[str, str]) -> None:
    """The first blocks' documents validated as ingest validates them: each conforms to
    its kind's shapes, or the run stops."""
    from rdflib import Graph

    from reprokg.core.document import Document
    from reprokg.validation.batching import validate_documents

    docs = []
    for i, (_g, lines) in enumerate(generate(3 * len(BLOCK), tmpl)):
        graph = Graph().parse(data="".join(f"{t} .\n" for t in lines), format="nt")
        kind = SHAPE_KIND[BLOCK[i % len(BLOCK)]]
        docs.append(Document(kind, graph, "generated", b"", "scale", "0", f"scale-{i}"))
    bad = [r.to_text() for r in validate_documents(docs) if not r.conforms]
    if bad:
        raise SystemExit("generated documents do not conform:\n" + "\n".join(bad[:3]))


def _zipf(papers: int) -> list[float]:
    """Cumulative weights 1/(rank+1) over the papers."""
    acc, out = 0.0, []
    for k in range(papers):
        acc += 1.0 / (k + 1)
        out.append(acc)
    return out


def generate(n: int, tmpl: dict[str, str]) -> Iterator[tuple[str, list[str]]]:
    """``n`` documents (graph IRI, its ``s p o`` triples), seeded, in blocks of 10."""
    rng = random.Random(SEED)
    papers = math.ceil(n / len(BLOCK))
    cum = _zipf(papers)
    for i in range(n):
        block, pos = divmod(i, len(BLOCK))
        kind = BLOCK[pos]
        first_run = block * RUNS_PER_BLOCK
        vals: dict[str, Any] = {"doc": f"{i:07d}", "paper": block}
        if kind in ("replication", "run"):
            vals["paper"] = min(bisect.bisect(cum, rng.random() * cum[-1]), papers - 1)
        if kind == "run":
            vals["run0"] = first_run + pos - BLOCK.index("run")
        else:
            vals.update({f"run{k}": first_run + k for k in range(3)})
        text = tmpl[kind].format_map(_Scores(vals, rng))
        yield DOC.format(i=i), [ln[: ln.rstrip().rfind(" ")] for ln in text.splitlines() if ln]


def write_files(n: int, tmpl: dict[str, str], work: Path, backends: list[str]) -> dict[str, Any]:
    """The N-Quads each backend's bulk path takes: the documents (embedded: ``restore``
    builds the rest), plus their merge and counters (Oxigraph server, Virtuoso)."""
    paths = {b: work / f"{b}-{n}.nq" for b in backends}
    handles: dict[str, TextIO] = {b: p.open("w") for b, p in paths.items()}
    graphs: list[str] = []
    triples = 0
    kinds: dict[str, int] = {}
    for i, (g, lines) in enumerate(generate(n, tmpl)):
        graphs.append(g)
        triples += len(lines)
        kinds[BLOCK[i % len(BLOCK)]] = kinds.get(BLOCK[i % len(BLOCK)], 0) + 1
        for b, fh in handles.items():
            fh.writelines(f"{t} <{g}> .\n" for t in lines)
            if b != "embedded":
                fh.writelines(merge_line(t, b) for t in lines)
    for b, fh in handles.items():
        if b != "embedded":
            fh.writelines(counters_of(graphs))
        if b == "virtuoso":
            fh.write(VIRTUOSO_MERGED)
        fh.close()
    return {"paths": paths, "triples": triples, "kinds": kinds, "papers": math.ceil(n / 10)}


def du_mb(path: Path) -> float:
    out = subprocess.run(["du", "-sb", str(path)], capture_output=True, text=True, check=True)
    return round(int(out.stdout.split()[0]) / 1e6, 1)


def hammer(port: int, paths: list[str], clients: int, budget: float) -> dict[str, Any]:
    """``paths`` requested from ``clients`` threads (a client each, kept alive): p50 and
    p99 latency (ms) of the answered ones and requests per second. No request starts after
    ``budget`` seconds (a slow backend answers fewer: ``requests`` says how many). A request
    the service refuses (a 503 past its query time limit) is not timed: ``refused`` counts
    them by status and ``refused_detail`` keeps the first one's message, so a backend past
    the limit gives a row that says so instead of ending the run."""
    local = threading.local()
    deadline = time.perf_counter() + budget

    def one(path: str) -> tuple[int, float] | None:
        if time.perf_counter() > deadline:
            return None
        client = getattr(local, "client", None)
        if client is None:
            client = local.client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=600)
        t0 = time.perf_counter()
        r = client.get(path)
        dt = time.perf_counter() - t0
        if r.status_code != 200:
            refused_text.setdefault(r.status_code, f"{path}: {r.status_code} {r.text[:300]}")
        return r.status_code, dt

    refused_text: dict[int, str] = {}
    t0 = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        done = [x for x in pool.map(one, paths) if x is not None]
    wall = time.perf_counter() - t0
    lat = sorted(dt for status, dt in done if status == 200)
    out: dict[str, Any] = {"p50_ms": None, "p99_ms": None}
    if len(lat) >= 2:
        q = statistics.quantiles(lat, n=100, method="inclusive")
        out.update(p50_ms=round(q[49] * 1000, 1), p99_ms=round(q[98] * 1000, 1))
    out.update(rps=round(len(lat) / wall, 1), requests=len(done))
    refused = {str(k): sum(1 for st, _ in done if st == k) for k in sorted(refused_text)}
    if refused:
        out.update(refused=refused, refused_detail=next(iter(refused_text.values())))
    return out


def alone(port: int, paths: list[str]) -> float | None:
    """Median ms of ``paths`` requested one after the other by one client (``None``: the
    service refused them all, as :func:`hammer` counts)."""
    times = []
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=600) as client:
        for path in paths:
            t0 = time.perf_counter()
            ok = client.get(path).status_code == 200
            if ok:
                times.append(time.perf_counter() - t0)
    return round(statistics.median(times) * 1000, 1) if times else None


def serve_and_measure(store: str, papers: int, args: argparse.Namespace) -> dict[str, Any]:
    """A real ``reprokg serve`` over ``store`` under 16 loopback clients."""
    from tests.service.conftest import reprokg_serve

    rng = random.Random(SEED)
    wanted = args.warmup + args.requests + ALONE
    chosen = rng.sample(range(1, papers), min(papers - 1, wanted - 1))
    chosen.insert(args.warmup, 0)  # the most-named paper among the measured ones
    chosen = [chosen[k % len(chosen)] for k in range(wanted)]
    passports = [
        "/paper?" + urlencode({"iri": PAPER.format(p=p)}) for p in chosen
    ]  # each a different paper while there are enough
    baselines = "/queries/find-baselines?" + urlencode({"collection": COLLECTION, "measure": "map"})
    env = {
        "REPROKG_PARSE_WORKERS": "1",
        "REPROKG_ACCESS_LOG": "0",
        "REPROKG_NAMED_QUERY_CACHE_MB": "0",
    }
    out: dict[str, Any] = {}
    with reprokg_serve(store, env) as (port, _proc):
        budget = args.budget
        hammer(port, passports[: args.warmup], args.clients, budget)
        p = hammer(port, passports[args.warmup : -ALONE], args.clients, budget)
        hammer(port, [baselines] * args.warmup, args.clients, budget)
        b = hammer(port, [baselines] * args.requests, args.clients, budget)
        answer = httpx.get(f"http://127.0.0.1:{port}{baselines}", timeout=600)
        r = answer.json() if answer.status_code == 200 else {}
        # one client alone: the cost of a request without the queue of 16
        out["passport_alone_ms"] = alone(port, passports[-ALONE:])
        out["baselines_alone_ms"] = alone(port, [baselines] * ALONE)
    out.update({f"passport_{k}": v for k, v in p.items()})
    out.update({f"baselines_{k}": v for k, v in b.items()})
    out["baselines_rows"] = len(r.get("results", {}).get("bindings", r.get("rows", [])))
    out["distinct_papers_requested"] = len(set(chosen[args.warmup : -ALONE]))
    return out


def passport_request(url: str, n: int) -> dict[str, Any]:
    """The largest request body ``RemoteStore`` sends for the passport of paper 0, and the
    document count the engine reports (checks the load)."""
    from reprokg.evidence.passport import passport
    from reprokg.store import open_store
    from reprokg.store.remote import RemoteStore

    store = open_store(url, read_only=True)
    assert isinstance(store, RemoteStore) and store.merged
    count = store.document_count()
    assert count == n, (count, n)
    sizes = spy_sizes(store)
    t0 = time.perf_counter()
    found = passport(store, PAPER.format(p=0))
    alone = time.perf_counter() - t0
    store.close()
    runs = found.runs_page.total if found.runs_page is not None else 0
    return {
        "passport_request_bytes": max(sizes),
        "passport_engine_requests": len(sizes),
        "paper0_runs": runs,
        "paper0_passport_alone_ms": round(alone * 1000, 1),
    }


def embedded(n: int, files: dict[str, Any], work: Path, args: argparse.Namespace) -> dict[str, Any]:
    from reprokg.store import open_store
    from reprokg.store.base import Counters

    path = work / f"embedded-{n}"
    t0 = time.perf_counter()
    with open_store(path) as store, files["paths"]["embedded"].open("rb") as f:
        store.restore(f)
        load_s = time.perf_counter() - t0
        assert isinstance(store, Counters)
        count = store.document_count()
    assert count == n, (count, n)
    out: dict[str, Any] = {"load_s": round(load_s, 1), "store_mb": du_mb(path)}
    out.update(serve_and_measure(str(path), files["papers"], args))
    out["passport_request_bytes"] = None  # in process
    shutil.rmtree(path)
    return out


def oxigraph(n: int, files: dict[str, Any], work: Path, args: argparse.Namespace) -> dict[str, Any]:
    with engine("oxigraph", work / f"oxs-{n}") as url:
        out: dict[str, Any] = {"load_s": round(oxigraph_post(url, files["paths"]["oxigraph"]), 1)}
        out["store_mb"] = du_mb(work / f"oxs-{n}" / "db")
        out.update(passport_request("oxigraph+" + url, n))
        out.update(serve_and_measure("oxigraph+" + url, files["papers"], args))
    return out


def virtuoso(n: int, files: dict[str, Any], work: Path, args: argparse.Namespace) -> dict[str, Any]:
    d = work / f"virtuoso-{n}"
    with engine("virtuoso", d) as url:
        src = d / "bench.nq"
        files["paths"]["virtuoso"].rename(src)
        out: dict[str, Any] = {"load_s": round(virtuoso_load(d, src.name), 1)}
        src.unlink()
        out["store_mb"] = du_mb(d)
        out.update(passport_request("virtuoso+" + url, n))
        out.update(serve_and_measure("virtuoso+" + url, files["papers"], args))
    return out


def exponents(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per backend and column: the least-squares slope of log(value) on log(n)."""
    out: dict[str, dict[str, float]] = {}
    for backend in dict.fromkeys(r["backend"] for r in rows):
        mine = [r for r in rows if r["backend"] == backend]
        for col in COLUMNS:
            pts = [(math.log(r["n"]), math.log(r[col])) for r in mine if r.get(col)]
            if len({x for x, _ in pts}) < 2:
                continue
            mx = statistics.fmean(x for x, _ in pts)
            my = statistics.fmean(y for _, y in pts)
            num = sum((x - mx) * (y - my) for x, y in pts)
            den = sum((x - mx) ** 2 for x, _ in pts)
            out.setdefault(backend, {})[col] = round(num / den, 2)
    return out


def show(rows: list[dict[str, Any]], slopes: dict[str, dict[str, float]]) -> None:
    head = ("backend", "n", *COLUMNS)
    print(" ".join(f"{h:>14}" for h in head))
    for r in rows:
        print(" ".join(f"{r.get(h) if r.get(h) is not None else '-':>14}" for h in head))
    for backend, cols in slopes.items():
        print(
            " ".join(
                f"{x:>14}" for x in (backend, "exponent", *(cols.get(c, "-") for c in COLUMNS))
            )
        )


NAMES = {"embedded": "embedded", "oxigraph": "Oxigraph server", "virtuoso": "Virtuoso 7.2"}


def markdown(results: dict[str, Any]) -> str:
    """The README's table of a results file: a row per backend and size, then each
    backend's exponents."""

    def fmt(v: Any, digits: int = 0) -> str:
        return "—" if v is None else f"{v:,.{digits}f}"

    def ms(v: Any) -> str:
        return "—" if v is None else f"{v:,.0f} ms"

    def latency(r: dict[str, Any], view: str) -> str:
        """p50 / p99 of the answered requests, and how many the service refused."""
        p50, p99 = r[f"{view}_p50_ms"], r[f"{view}_p99_ms"]
        cell = "—" if p50 is None else f"{fmt(p50)} / {fmt(p99)} ms"
        refused = r.get(f"{view}_refused") or {}
        if refused:
            why = ", ".join(f"{v} × {k}" for k, v in refused.items())
            cell += f" ({sum(refused.values())} of {r[f'{view}_requests']} refused: {why})"
        return cell

    out = [
        "| documents | backend | triples | load | store | passport p50 / p99 (16 clients) | "
        "passports/s | alone | find-baselines p50 / p99 | queries/s | alone | "
        "largest passport request |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results["rows"]:
        req = r.get("passport_request_bytes")
        out.append(
            f"| {r['n']:,} | {NAMES[r['backend']]} | {r['triples']:,} | {fmt(r['load_s'], 1)} s "
            f"| {fmt(r['store_mb'])} MB | {latency(r, 'passport')} | {fmt(r['passport_rps'], 1)} "
            f"| {ms(r.get('passport_alone_ms'))} | {latency(r, 'baselines')} "
            f"| {fmt(r['baselines_rps'], 1)} "
            f"| {ms(r.get('baselines_alone_ms'))} | "
            + ("in process" if req is None else f"{req:,} B")
            + " |"
        )
    cols = ("load_s", "store_mb", "passport_p50_ms", "passport_rps", "passport_alone_ms")
    cols += ("baselines_p50_ms", "baselines_rps", "baselines_alone_ms", "passport_request_bytes")
    out += ["", "| exponent of n | " + " | ".join(cols) + " |", "|---|" + "---:|" * len(cols)]
    for backend, slopes in results["exponents"].items():
        out.append(
            f"| {NAMES[backend]} | " + " | ".join(fmt(slopes.get(c), 2) for c in cols) + " |"
        )
    return "\n".join(out)


def row_order(row: dict[str, Any]) -> tuple[int, int]:
    """Rows by backend (embedded, Oxigraph server, Virtuoso), then size."""
    return list(NAMES).index(row["backend"]), row["n"]


def save(out: Path, rows: list[dict[str, Any]]) -> None:
    """``rows`` in :func:`row_order`, with their exponents, as the results file ``out``."""
    rows.sort(key=row_order)
    out.write_text(json.dumps({"rows": rows, "exponents": exponents(rows)}, indent=1) + "\n")


def measure_existing(args: argparse.Namespace) -> None:
    """The row of a store loaded before (``--existing``): what :func:`main` measures after
    its own load, with the data's triples and kinds counted from one block of
    :func:`generate` (every block of 10 documents has the same shape)."""
    (n,) = args.sizes
    assert n % len(BLOCK) == 0, n
    backend = args.existing.split("+", 1)[0] if "+" in args.existing else "embedded"
    block = list(generate(len(BLOCK), templates()))
    row: dict[str, Any] = {"backend": backend, "n": n, "load_s": args.load_s}
    row["store_mb"] = args.store_mb
    load = os.getloadavg()[0]
    if backend != "embedded":
        row.update(passport_request(args.existing, n))
    row.update(serve_and_measure(args.existing, math.ceil(n / 10), args))
    row["triples"] = sum(len(lines) for _, lines in block) * (n // len(BLOCK))
    row["kinds"] = {k: BLOCK.count(k) * (n // len(BLOCK)) for k in dict.fromkeys(BLOCK)}
    row.update(papers=math.ceil(n / 10), loadavg_1m=round(load, 1))
    row["loadavg_1m_after"] = round(os.getloadavg()[0], 1)
    print(json.dumps(row), flush=True)
    if args.out:
        kept = json.loads(args.out.read_text())["rows"] if args.out.exists() else []
        save(args.out, [r for r in kept if (r["backend"], r["n"]) != (backend, n)] + [row])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000])
    ap.add_argument("--backends", default="embedded,oxigraph,virtuoso")
    ap.add_argument("--requests", type=int, default=400)
    ap.add_argument("--warmup", type=int, default=32)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument(
        "--budget", type=float, default=600, help="seconds a measurement may start requests"
    )
    ap.add_argument("--out", type=Path)
    ap.add_argument(
        "--fresh", action="store_true", help="drop the rows --out holds (default: keep other sizes)"
    )
    ap.add_argument("--work", type=Path, help="folder for the stores (default: a temporary one)")
    ap.add_argument("--markdown", type=Path, help="print this results file as the README's table")
    ap.add_argument(
        "--existing",
        metavar="STORE",
        help="measure a store already loaded with --sizes' one size (e.g. virtuoso+URL): "
        "the engine a long load left running, its load time given by --load-s",
    )
    ap.add_argument("--load-s", type=float, help="with --existing: how long its load took")
    ap.add_argument("--store-mb", type=float, help="with --existing: its data folder's size")
    args = ap.parse_args()
    if args.markdown:
        print(markdown(json.loads(args.markdown.read_text())))
        return
    if args.existing:
        measure_existing(args)
        return
    backends = args.backends.split(",")
    fns = {"embedded": embedded, "oxigraph": oxigraph, "virtuoso": virtuoso}
    rows: list[dict[str, Any]] = []
    if args.out and args.out.exists() and not args.fresh:  # the sizes run before stay
        kept = json.loads(args.out.read_text())["rows"]
        rows = [r for r in kept if r["n"] not in args.sizes or r["backend"] not in backends]
    tmpl = templates()
    conform(tmpl)
    with tempfile.TemporaryDirectory(prefix="reprokg-table-", dir=args.work) as tmp:
        for n in args.sizes:
            for backend in backends:  # one backend's file at a time: 1M is ~25 GB of each
                t0 = time.perf_counter()
                files = write_files(n, tmpl, Path(tmp), [backend])
                gen_s = time.perf_counter() - t0
                load = os.getloadavg()[0]
                row = {"backend": backend, "n": n, **fns[backend](n, files, Path(tmp), args)}
                row.update(triples=files["triples"], kinds=files["kinds"], papers=files["papers"])
                row.update(generate_s=round(gen_s, 1), loadavg_1m=round(load, 1))
                row["loadavg_1m_after"] = round(os.getloadavg()[0], 1)
                print(json.dumps(row), flush=True)
                rows.append(row)
                rows.sort(key=row_order)
                if args.out:  # after each row: a long run's partial results survive
                    save(args.out, rows)
                for p in files["paths"].values():
                    p.unlink(missing_ok=True)
    show(rows, exponents(rows))


if __name__ == "__main__":
    main()
