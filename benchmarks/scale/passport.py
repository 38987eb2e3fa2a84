"""A passport at scale: a paper named by N run headers (1 in 100 of them also naming the
previous run as baseline), on the embedded store, the first page of its runs against the
whole list.

    python -m benchmarks.scale.passport [--runs 50000] [--repeats 5] [--json out.json]

The store is the generated N-Quads restored with ``reprokg restore`` (one document per
run: the run, its research goal naming the paper and a venue, its tag). Timed, median of
``--repeats`` after one warm-up, in this process against the store on disk:

* ``passport, first page``  ``evidence.passport.passport(store, paper)``: every part, the
                             first 100 runs and their count (what ``/paper`` reads);
* ``passport, last page``    the same at the last page's offset;
* ``GET /paper`` first page  the web page through the ASGI app (render included), cold
                             (the service's per-generation cache emptied before each
                             request: the first view after a write) and warm (the
                             passport cached for the store's generation);
* ``passport, every run``    ``passport(..., runs_limit=None)``: what the crate reads, and
                             what the passport read on every request before paging.

Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

PAPER = "https://doi.org/10.1007/978-3-030-15712-8_26"
RK = "https://w3id.org/reprokg/ontology#"
SCHEMA = "http://schema.org/"
ID = "https://w3id.org/reprokg/id/"


def generate(n: int, out: Path) -> None:
    """N run documents naming :data:`PAPER` (their research goal's publication)."""
    with out.open("w") as fh:
        for i in range(n):
            g = f"<{ID}document/scale{i:07d}>"
            run = f"<{ID}run/scale{i:07d}>"
            goal = f"<{ID}run/scale{i:07d}/goal>"
            venue = f"<{ID}run/scale{i:07d}/venue>"
            fh.write(f"{run} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{RK}Run> {g} .\n")
            fh.write(f"{run} <{RK}researchGoal> {goal} {g} .\n")
            fh.write(f"{goal} <{RK}publication> <{PAPER}> {g} .\n")
            fh.write(f"{goal} <{RK}venue> {venue} {g} .\n")
            fh.write(f'{venue} <{SCHEMA}name> "ECIR" {g} .\n')
            fh.write(f'{run} <{RK}runTag> "run-{i:07d}" {g} .\n')
            if i % 100 == 1:
                ev = f"<{ID}run/scale{i:07d}/evaluation>"
                fh.write(f"{goal} <{RK}evaluation> {ev} {g} .\n")
                fh.write(f'{ev} <{RK}baselineRunTag> "run-{i - 1:07d}" {g} .\n')


def timed(fn: Callable[[], object], repeats: int) -> float:
    """Median seconds of ``repeats`` calls after one warm-up."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=50_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()

    from fastapi.testclient import TestClient

    from reprokg.core.settings import Settings
    from reprokg.evidence.passport import passport
    from reprokg.service.app import create_app
    from reprokg.service.web.render import small_cache
    from reprokg.store import open_store

    with tempfile.TemporaryDirectory() as tmp:
        nq, store_dir = Path(tmp) / "runs.nq", Path(tmp) / "store"
        generate(args.runs, nq)
        cmd = [sys.executable, "-m", "reprokg", "restore", str(nq), "--store", str(store_dir)]
        subprocess.run(cmd, check=True, capture_output=True)
        store = open_store(store_dir, read_only=True)
        first = passport(store, PAPER)
        assert first.runs_page is not None
        total = first.runs_page.total
        last = (total - 1) // 100 * 100
        app = create_app(Settings(store=str(store_dir), read_only=True))
        figures = {}
        with TestClient(app) as client:

            def page() -> None:
                r = client.get("/paper", params={"iri": PAPER})
                assert r.status_code == 200, r.text[:500]

            def cold_page() -> None:
                small_cache._values.clear()
                page()

            figures["passport, first page"] = timed(lambda: passport(store, PAPER), args.repeats)
            figures["passport, last page"] = timed(
                lambda: passport(store, PAPER, runs_offset=last), args.repeats
            )
            figures["GET /paper, first page, cold"] = timed(cold_page, args.repeats)
            figures["GET /paper, first page, warm"] = timed(page, args.repeats)
            figures["passport, every run"] = timed(
                lambda: passport(store, PAPER, runs_limit=None), 1
            )
    out = {"runs": args.runs, "pairs counted": total, "seconds (median)": figures}
    for k, v in figures.items():
        print(f"{k:<28} {v * 1000:10.1f} ms")
    print(f"(runs {args.runs:,}; run-relation pairs counted {total:,})")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
