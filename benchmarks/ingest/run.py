"""Ingest benchmark: validated ir_metadata headers per second, next to a raw pyoxigraph bulk load.

    python benchmarks/ingest/run.py                 # 10k headers, 3 repeats
    python benchmarks/ingest/run.py --n 2000 --single-n 500 --repeats 1

Every mode runs in its own fresh process (so its peak RSS is its own) on the same
deterministic headers (:mod:`benchmarks.ingest.generate`):

* ``load``             YAML → Documents with ``reprokg.loaders.ir_metadata`` (no validation)
* ``validate-single``  ``validate_documents([doc])`` one document at a time
* ``validate-batched`` ``validate_documents`` over batches (``--batch``)
* ``validate-parallel`` the same batches on every core (``validate_in_processes``: forked
                       workers; CPU time includes theirs)
* ``ingest-batched``   ``reprokg.ingest.ingest``: batched validation + one atomic named-graph
                       write per document with provenance, into a fresh on-disk store
                       (which also keeps every triple in its default-graph merge: twice
                       the quads ``raw-bulk`` writes)
* ``reprokg-load``     the whole command a user runs, ``reprokg load --store DIR FOLDER``, as
                       a process of its own on the headers written as files to FOLDER
                       (YAML parsing included; CPU time and peak RSS are that process's)
* ``raw-bulk``         pyoxigraph ``bulk_extend`` of the same documents' triples, as
                       pyoxigraph quads built beforehand (no rdflib, validation,
                       provenance or per-document atomicity): the floor
* ``raw-bulk-merged``  pyoxigraph ``bulk_load`` of what ingest writes (each document's
                       triples with their provenance, in its graph and in the default
                       graph), as N-Quads text built beforehand, one call per ``--batch``:
                       the floor of ingest's write

The validating modes run once per SHACL engine (``--engines``, default
``fast,pyshacl``: ``REPROKG_SHACL_ENGINE`` of the worker process), side by side.

Printed: medians over ``--repeats`` of wall time and of the process's CPU time (the
machine is shared: CPU time is the stabler figure), headers per second of each, CPU
time relative to ``raw-bulk``, and peak RSS (ru_maxrss of the mode's process, which
also holds the parsed documents).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent.parent) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(HERE.parent.parent))

MODES = (
    "load",
    "validate-single",
    "validate-batched",
    "validate-parallel",
    "ingest-batched",
    "reprokg-load",
    "raw-bulk",
    "raw-bulk-merged",
)


def _documents(n: int) -> list:
    from benchmarks.ingest.generate import header
    from reprokg.loaders import ir_metadata

    docs = []
    for i in range(n):
        docs.extend(ir_metadata.load(header(i), f"gen-{i:05d}.yaml"))
    return docs


def worker(mode: str, n: int, batch: int) -> dict:
    """Run one mode once; returns timings (only the measured part is timed)."""
    from benchmarks.ingest.generate import header

    if mode == "load":
        from reprokg.loaders import ir_metadata

        texts = [header(i) for i in range(n)]
        t, c = time.perf_counter(), time.process_time()
        docs = [d for i, x in enumerate(texts) for d in ir_metadata.load(x, f"gen-{i:05d}.yaml")]
        seconds, cpu = time.perf_counter() - t, time.process_time() - c
        triples = sum(len(d.graph) for d in docs)
    elif mode == "reprokg-load":
        return _reprokg_load(n, batch)
    else:
        docs = _documents(n)
        triples = sum(len(d.graph) for d in docs)
        from reprokg.validation.batching import validate_documents

        validate_documents(docs[:2])  # parse shapes, warm caches: not part of the rate
        quads = []
        if mode == "raw-bulk":  # pyoxigraph terms built before the clock starts
            from reprokg.store.oxigraph import graph_quads

            quads = [q for d in docs for q in graph_quads(d.iri, d.graph)]
        texts = []
        if mode == "raw-bulk-merged":  # ingest's N-Quads, built before the clock starts
            texts = _merged_nquads(docs, batch)
        with tempfile.TemporaryDirectory(prefix="reprokg-bench-") as tmp:
            kids = resource.getrusage(resource.RUSAGE_CHILDREN)
            children_cpu = kids.ru_utime + kids.ru_stime
            t, c = time.perf_counter(), time.process_time()
            if mode == "validate-single":
                reports = [validate_documents([d])[0] for d in docs]
            elif mode == "validate-batched":
                reports = []
                for i in range(0, len(docs), batch):
                    reports.extend(validate_documents(docs[i : i + batch]))
            elif mode == "validate-parallel":
                from reprokg.validation.batching import validate_in_processes

                reports = validate_in_processes(docs, batch)
            elif mode == "ingest-batched":
                from reprokg.ingest import ingest
                from reprokg.store import open_store

                store = open_store(Path(tmp) / "kg")
                result = ingest(store, docs, batch_size=batch)
                store.close()
                reports = result.reports
                assert result.count("added") == len(docs), result.summary()
            elif mode == "raw-bulk":
                import pyoxigraph as ox

                store = ox.Store(str(Path(tmp) / "raw"))
                store.bulk_extend(quads)
                store.flush()
                reports = []
            elif mode == "raw-bulk-merged":
                import pyoxigraph as ox

                store = ox.Store(str(Path(tmp) / "raw"))
                for text in texts:
                    store.bulk_load(text, format=ox.RdfFormat.N_QUADS, lenient=True)
                store.flush()
                del store
                reports = []
            else:
                raise SystemExit(f"unknown mode {mode}")
            seconds, cpu = time.perf_counter() - t, time.process_time() - c
            kids = resource.getrusage(resource.RUSAGE_CHILDREN)  # forked workers, joined
            cpu += kids.ru_utime + kids.ru_stime - children_cpu
        bad = [r for r in reports if not r.conforms]
        assert not bad, bad[0].to_text()
    return {
        "mode": mode,
        "n": n,
        "triples": triples,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _merged_nquads(docs: list, batch: int) -> list[bytes]:
    """What ``OxigraphStore.write_documents`` bulk-loads for each batch of new documents."""
    from datetime import UTC, datetime

    from reprokg.ingest import provenance_triples
    from reprokg.store.base import DocumentWrite
    from reprokg.store.oxigraph import _batch_nquads

    now = datetime.now(UTC).replace(microsecond=0)
    writes = [DocumentWrite(d.iri, [*d.graph, *provenance_triples(d, when=now)]) for d in docs]
    return [
        (_batch_nquads(writes[i : i + batch]) or "").encode() for i in range(0, len(writes), batch)
    ]


def _reprokg_load(n: int, batch: int) -> dict:
    """``reprokg load`` of ``n`` header files into a fresh store, timed as a whole process."""
    from benchmarks.ingest.generate import header

    with tempfile.TemporaryDirectory(prefix="reprokg-bench-") as tmp:
        folder = Path(tmp) / "headers"
        folder.mkdir()
        for i in range(n):
            (folder / f"gen-{i:06d}.yaml").write_bytes(header(i))
        cmd = [sys.executable, "-m", "reprokg", "load", "--quiet", "--batch-size", str(batch)]
        cmd += ["--store", str(Path(tmp) / "kg"), str(folder)]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if out.returncode != 0 or f"{n} added" not in out.stdout:
            raise SystemExit(f"reprokg load failed:\n{out.stdout[-2000:]}{out.stderr[-3000:]}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {
        "mode": "reprokg-load",
        "n": n,
        "triples": None,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "maxrss_mb": after.ru_maxrss / 1024,  # the one child: reprokg load
    }


def run_mode(mode: str, n: int, batch: int, engine: str | None = None) -> dict:
    env = dict(os.environ)
    if engine:
        env["REPROKG_SHACL_ENGINE"] = engine
    out = subprocess.run(
        [sys.executable, __file__, "--worker", mode, "--n", str(n), "--batch", str(batch)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    if out.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--n", type=int, default=10_000, help="headers per mode")
    ap.add_argument("--single-n", type=int, default=None, help="headers for validate-single")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--engines", default="fast,pyshacl", help="SHACL engines to compare")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--json", metavar="FILE", help="also write the raw results here")
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.n, args.batch)))
        return

    rows = []
    load_before = os.getloadavg()
    plan = [
        (mode, engine)
        for mode in args.modes.split(",")
        for engine in (
            args.engines.split(",") if mode.startswith(("validate", "ingest")) else [None]
        )
    ]
    for mode, engine in plan:
        n = args.single_n if (mode == "validate-single" and args.single_n) else args.n
        runs = [run_mode(mode, n, args.batch, engine) for _ in range(args.repeats)]
        sec = statistics.median(r["seconds"] for r in runs)
        cpu = statistics.median(r["cpu_seconds"] for r in runs)
        rows.append(
            {
                "mode": f"{mode}[{engine}]" if engine else mode,
                "n": n,
                "triples": runs[0]["triples"],
                "median_s": sec,
                "per_s": n / sec,
                "median_cpu_s": cpu,
                "per_cpu_s": n / cpu,
                "peak_rss_mb": max(r["maxrss_mb"] for r in runs),
                "runs": [r["seconds"] for r in runs],
            }
        )
        print(f"  {rows[-1]['mode']}: {n / sec:,.1f} headers/s", file=sys.stderr)
    raw = next((r for r in rows if r["mode"] == "raw-bulk"), None)
    print(f"\n{args.n} generated ir_metadata headers, batch {args.batch}, median of {args.repeats}")
    before = " ".join(f"{x:.2f}" for x in load_before)
    after = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average (1, 5, 15 min) before: {before}, after: {after}")
    print(
        f"{'mode':26} {'headers':>8} {'wall s':>8} {'headers/s':>10} {'CPU s':>8} "
        f"{'headers/CPU-s':>13} {'x raw-bulk CPU':>14} {'peak RSS MB':>11}"
    )
    for r in rows:
        ratio = (
            (r["median_cpu_s"] / r["n"]) / (raw["median_cpu_s"] / raw["n"]) if raw else float("nan")
        )
        print(
            f"{r['mode']:26} {r['n']:8d} {r['median_s']:8.2f} {r['per_s']:10.1f} "
            f"{r['median_cpu_s']:8.2f} {r['per_cpu_s']:13.1f} {ratio:14.1f} "
            f"{r['peak_rss_mb']:11.0f}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
