"""Server time of every web view, at the demo data and at 100k generated papers.

Each URL is requested ``--reps`` times through the app in process (Starlette's test
client: routing, dependencies, the view, the template; no socket), after one warm-up
request (which fills the per-generation caches: its time is reported separately as
"first"). Next to each view: the same rows as ``?format=json``, and where the service has
a JSON API for the same data (a named query, the survey analysis, the linked-data
Turtle), that API.

Data sets:

* ``demo``: what ``reprokg serve --demo`` loads (every bundled example, the runs
  evaluated on the toy qrels, one comparison).
* ``100k``: the demo plus 100,000 generated papers, each in its own document like a
  survey review: title (four words from a vocabulary), year, venue, a topic, a DOI and a
  review answering whether code is shared. Written with the store's own batched writes
  (no SHACL: the benchmark measures reading, and validation would take ~15 min).

    python -m benchmarks.web.run [--reps 30] [--papers 100000] [--data DIR] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from rdflib import Literal, URIRef
from rdflib.namespace import RDF, XSD

RK = "https://w3id.org/reprokg/ontology#"
SCHEMA = "http://schema.org/"
WORDS = [
    "reproducible",
    "neural",
    "rendering",
    "mesh",
    "graph",
    "learning",
    "fast",
    "robust",
    "sparse",
    "dense",
    "adaptive",
    "implicit",
    "differentiable",
    "stable",
    "efficient",
    "scalable",
    "geometric",
    "spectral",
    "stochastic",
]
TOPICS = ("Rendering", "Geometry", "Images", "Fabrication", "AnimationSimulation")


def views(store) -> list[tuple[str, str, str | None]]:
    """(name, view URL, JSON API of the same data or None) for the store's data."""
    rk = "PREFIX rk: <https://w3id.org/reprokg/ontology#> "
    comparison = store.query(rk + "SELECT ?c WHERE { ?c a rk:ReproductionComparison }").rows
    audit = store.query(
        rk + "SELECT ?a WHERE { ?a rk:auditedPublication <https://arxiv.org/abs/1609.02907> }"
    ).rows
    nyt = "collection=https://ir-datasets.com/nyt&measure=map"
    out = [
        ("home", "/", None),
        ("papers", "/papers", None),
        ("papers, filtered", "/papers?year=2018&code=yes", None),
        ("papers, title words", "/papers?q=reproduc", None),
        ("papers, last page", "/papers?page=9999", None),
        ("paper (2 surveys + stamp)", "/paper?doi=10.1145/3197517.3201353", None),
        ("paper (runs)", "/paper?doi=10.1007/978-3-030-15712-8_26", None),
        (
            "person",
            "/person?orcid=0000-0002-0661-7189",
            "/queries/by-orcid?orcid=0000-0002-0661-7189",
        ),
        ("runs", "/runs", None),
        ("run", "/run?iri=https://w3id.org/reprokg/id/run/200ce88d2451641c3351", None),
        ("leaderboards", "/leaderboards", None),
        ("leaderboard", f"/leaderboard?{nyt}", f"/queries/find-baselines?{nyt}"),
        ("comparisons", "/comparisons", None),
        ("studies", "/studies", "/measures/survey"),
        ("stability", "/stability", None),
        ("intrinsic dimension", "/intrinsic-dimension", None),
        ("query", "/query", None),
        ("query form table", f"/queries/find-baselines/table?{nyt}", None),
        ("search", "/search?q=reproduc", None),
        ("validate (form)", "/validate", None),
    ]
    if comparison:
        c = str(comparison[0][0])
        out.append(("comparison", f"/comparison?iri={c}", "/comparisons/" + c.rsplit("/", 1)[1]))
    if audit:
        path = "/id/" + str(audit[0][0]).removeprefix("https://w3id.org/reprokg/id/")
        out.append(("id page (audit)", path, path + "?format=text/turtle"))
    return out


def generate_papers(store, n: int, seed: int = 16) -> float:
    """``n`` survey-like papers, one document each, in batches; seconds taken."""
    from rdflib import Graph

    from reprokg.store.base import DocumentWrite

    rnd = random.Random(seed)
    t0 = time.perf_counter()
    batch: list[DocumentWrite] = []
    survey = URIRef(RK + "ReplicabilityGraphics2020")
    for i in range(n):
        paper = URIRef(f"https://doi.org/10.5555/bench.{i}")
        review = URIRef(f"https://w3id.org/reprokg/id/review/bench-{i}")
        doc = URIRef(f"https://w3id.org/reprokg/id/doc/bench{i:059d}")
        year = rnd.choice((2014, 2016, 2018, 2020, 2022))
        g = Graph()
        g.add((doc, RDF.type, URIRef(RK + "Document")))
        g.add((doc, URIRef(RK + "documentKind"), Literal("survey")))
        g.add((paper, RDF.type, URIRef(SCHEMA + "ScholarlyArticle")))
        title = " ".join(rnd.sample(WORDS, 4)).capitalize() + f" {i}"
        g.add((paper, URIRef(SCHEMA + "name"), Literal(title)))
        g.add((paper, URIRef(RK + "publicationYear"), Literal(year, datatype=XSD.integer)))
        g.add((paper, URIRef(RK + "conferenceName"), Literal(f"BENCH {year}")))
        g.add((paper, URIRef(RK + "topic"), URIRef(RK + "Topic" + rnd.choice(TOPICS))))
        g.add((paper, URIRef(RK + "doiAsWritten"), Literal(f"10.5555/bench.{i}")))
        g.add((review, RDF.type, URIRef(RK + "CodeReplicabilityReview")))
        g.add((review, URIRef(RK + "reviewedPaper"), paper))
        g.add((review, URIRef(RK + "inSurvey"), survey))
        g.add((review, URIRef(RK + "codeShared"), Literal(rnd.random() < 0.4)))
        batch.append(DocumentWrite(doc, list(g)))
        if len(batch) == 5000:
            store.write_documents(batch)
            batch = []
    if batch:
        store.write_documents(batch)
    return time.perf_counter() - t0


def measure(client, url: str, reps: int, accept: str = "text/html") -> dict:
    headers = {"Accept": accept}
    t0 = time.perf_counter()
    r = client.get(url, headers=headers)
    first = (time.perf_counter() - t0) * 1000
    assert r.status_code == 200, (url, r.status_code, r.text[:300])
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        r = client.get(url, headers=headers)
        times.append((time.perf_counter() - t0) * 1000)
        assert r.status_code == 200, (url, r.status_code)
    times.sort()
    p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
    return {"first": first, "p50": statistics.median(times), "p99": p99, "bytes": len(r.content)}


def bench(label: str, store, reps: int) -> list[dict]:
    from fastapi.testclient import TestClient

    from reprokg.core.settings import Settings
    from reprokg.service.app import create_app

    settings = Settings(store=str(store.path), access_log=False, demo=True)
    rows = []
    with TestClient(create_app(settings, store=store)) as client:
        time.sleep(0.5)
        for name, url, api in views(store):
            sep = "&" if "?" in url else "?"
            row = {"data": label, "view": name, "url": url, "html": measure(client, url, reps)}
            as_json = "format=application/ld%2Bjson" if url.startswith("/id/") else "format=json"
            row["json"] = measure(client, url + sep + as_json, reps, "*/*")
            if api:
                row["api"] = {"url": api, **measure(client, api, reps, "*/*")}
            rows.append(row)
            print(_line(row), flush=True)
    return rows


def _line(r: dict) -> str:
    h, j = r["html"], r["json"]
    api = r.get("api")
    tail = f" | API {api['p50']:.1f} / {api['p99']:.1f}" if api else ""
    return (
        f"{r['data']:>5} {r['view']:<28} HTML {h['p50']:6.1f} / {h['p99']:6.1f} ms "
        f"(first {h['first']:7.1f}) | JSON {j['p50']:6.1f} / {j['p99']:6.1f}{tail}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--papers", type=int, default=100_000)
    ap.add_argument("--data", help="folder for the stores (default: a temporary folder)")
    ap.add_argument("--json", help="write the rows here")
    args = ap.parse_args(argv)

    from reprokg.service.demo import load_demo
    from reprokg.store import open_store

    root = Path(args.data or tempfile.mkdtemp(prefix="reprokg-bench-web-"))
    results: list[dict] = []
    meta: dict = {"reps": args.reps, "papers": args.papers}
    for label, extra in (("demo", 0), ("100k", args.papers)):
        path = root / label
        fresh = not (path / "oxigraph").is_dir()
        store = open_store(str(path))
        if fresh:
            t0 = time.perf_counter()
            load_demo(store)
            meta[f"{label} load s"] = time.perf_counter() - t0
            if extra:
                meta[f"{label} generate s"] = generate_papers(store, extra)
        meta[f"{label} triples"] = store.triple_count()
        results += bench(label, store, args.reps)
        store.close()
    print(json.dumps(meta))
    if args.json:
        Path(args.json).write_text(json.dumps({"meta": meta, "rows": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
