"""Intrinsic dimension: reprokg against the authors' packages, a certified estimate at 10^6
rows, the command as users run it, and the two named queries at 1M triples.

Parts (``--parts``, all by default):

* ``exact`` — in one process, the exact ID of scikit-learn's digits (1797 x 64) and of a
  seeded 5000 x 10 Gaussian with reprokg, idim (serial and with 2 worker processes) and
  obsdim, alternating the order every round; the ratio of medians against the fastest of
  the authors' codes; every value must agree with reprokg's to 1e-12 (relative).
* ``support`` — a fresh process bounds the ID of a seeded 1,000,000 x 20 Gaussian with the
  default support sequence (l = 10,000): certified relative error, time (sorting
  included), peak traced memory beyond the input and the process's peak RSS.
* ``cli`` — whole processes, alternating, median of ``--reps``: ``reprokg
  intrinsic-dimension X.npy --format json`` next to a ``python -c`` running idim, and one
  running obsdim, on the same file (import, read, compute, print), for digits and the
  5000 x 10 Gaussian, and ``reprokg intrinsic-dimension`` on the 10^6 x 20 ``.npy`` (the
  support sequence is its default from 10^5 points on) with its peak RSS.
* ``queries`` — an in-memory pyoxigraph store of ~1M triples written by the package's own
  document code (2,000 estimates of 64 features, 200 feature-discard studies of 9 steps,
  values seeded), the merged default graph as the service serves it; p50 of the named
  queries ``datasets-by-intrinsic-dimension`` and ``discarded-features`` as bound by
  ``sparql/named.py`` (constants in VALUES), next to the same queries with the
  parameter compared in a FILTER instead.

    nice python -m benchmarks.intrinsic_dimension.run [--parts exact,support,cli,queries]
        [--rounds 7] [--reps 5] [--json OUT]

idim and obsdim are test-only dependencies (``pip install -e '.[test]'``); scikit-learn
provides digits. The machine is shared: compare ratios rather than absolute times.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np

REL = 1e-12
ROWS, COLS = 1_000_000, 20


def _reprokg() -> list[str]:
    """The console script of this interpreter's environment (not a shim found on PATH)."""
    exe = Path(sys.executable).parent / "reprokg"
    return [str(exe)] if exe.is_file() else [sys.executable, "-m", "reprokg"]


# ------------------------------------------------------------------ exact, in process


def exact_contenders() -> dict[str, Callable[[np.ndarray], float]]:
    import idim
    import obsdim

    from reprokg.intrinsic_dimension import intrinsic_dimension

    return {
        "reprokg": lambda X: intrinsic_dimension(X),
        "idim": lambda X: float(idim.calculate_intrinsic_dimension(X, disable_tqdm=True)[0]),
        "idim-2proc": lambda X: float(
            idim.calculate_intrinsic_dimension(X, workers=2, disable_tqdm=True)[0]
        ),
        "obsdim": lambda X: float(obsdim.compute_dimension(X.T, normalize="diameter").dimension),
    }


def bench_exact(name: str, X: np.ndarray, rounds: int) -> dict:
    impls = exact_contenders()
    names = list(impls)
    times: dict[str, list[float]] = {k: [] for k in names}
    values: dict[str, float] = {}
    for r in range(rounds):
        for k in names[r % len(names) :] + names[: r % len(names)]:
            gc.collect()
            t0 = time.perf_counter()
            values[k] = impls[k](X)
            times[k].append(time.perf_counter() - t0)
    med = {k: statistics.median(v) for k, v in times.items()}
    ours = values["reprokg"]
    authors = [k for k in names if k != "reprokg"]
    fastest = min(authors, key=med.__getitem__)
    row = {
        "data": name,
        "shape": list(X.shape),
        "id": ours,
        "median_s": med,
        "fastest_author_code": fastest,
        "speedup_vs_fastest": med[fastest] / med["reprokg"],
        "max_rel_diff": max(abs(v - ours) / ours for v in values.values()),
        "agree_1e-12": all(math.isclose(v, ours, rel_tol=REL) for v in values.values()),
        "rounds": rounds,
    }
    print(f"\n{name} {X.shape[0]}x{X.shape[1]}: ID = {ours:.15g}")
    for k in names:
        print(
            f"  {k:11s} median {med[k] * 1e3:9.1f} ms   agrees to 1e-12: "
            f"{math.isclose(values[k], ours, rel_tol=REL)}"
        )
    print(
        f"  speed-up vs the fastest author code ({fastest}): "
        f"{row['speedup_vs_fastest']:.1f}x (target >= 5x), "
        f"max rel. diff {row['max_rel_diff']:.1e}"
    )
    return row


# ------------------------------------------------------------------ support, fresh process


def support_worker(rows: int, cols: int, length: int) -> dict:
    from reprokg.intrinsic_dimension import bounds, prepare

    X = np.random.default_rng(0).normal(size=(rows, cols))
    gc.collect()
    tracemalloc.start()
    t0 = time.perf_counter()
    sf = prepare(X)
    t_sort = time.perf_counter() - t0
    b = bounds(sf, length)
    elapsed = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "data": f"gaussian seed 0, {rows}x{cols}",
        "support_length": length,
        "support_points": int(b.support.size),
        "delta": [b.delta_lower, b.delta_upper],
        "id": [b.id_lower, b.id_upper],
        "relative_error": b.relative_error,
        "seconds_total": elapsed,
        "seconds_sort": t_sort,
        "peak_traced_mib_beyond_input": peak / 2**20,
        "input_mib": X.nbytes / 2**20,
        "max_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def bench_support(rows: int, cols: int, length: int) -> dict:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.intrinsic_dimension.run",
            "--worker-support",
            f"{rows},{cols},{length}",
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    row = json.loads(out.stdout)
    print(f"\nsupport estimate {rows}x{cols}, l = {length} ({row['support_points']} points):")
    print(
        f"  ID in [{row['id'][0]:.6f}, {row['id'][1]:.6f}], certified relative error "
        f"{row['relative_error']:.4%}"
    )
    print(
        f"  {row['seconds_total']:.1f} s (sorting {row['seconds_sort']:.1f} s); peak traced "
        f"memory beyond the {row['input_mib']:.0f} MiB input "
        f"{row['peak_traced_mib_beyond_input']:.0f} MiB; "
        f"process max RSS {row['max_rss_mib']:.0f} MiB"
    )
    ok = row["relative_error"] <= 0.01 and row["seconds_total"] < 60
    print(f"  target <= 1 % in < 60 s: {'met' if ok else 'MISSED'}")
    return row


# ------------------------------------------------------------------ whole processes


AUTHORS_SCRIPT = """
import sys, numpy as np, idim, obsdim
X = np.load(sys.argv[1])
a = float(idim.calculate_intrinsic_dimension(X, disable_tqdm=True)[0])
b = float(obsdim.compute_dimension(X.T, normalize="diameter").dimension)
print(repr(a), repr(b))
"""
IDIM_SCRIPT = """
import sys, numpy as np, idim
X = np.load(sys.argv[1])
print(repr(float(idim.calculate_intrinsic_dimension(X, disable_tqdm=True)[0])))
"""
OBSDIM_SCRIPT = """
import sys, numpy as np, obsdim
X = np.load(sys.argv[1])
print(repr(float(obsdim.compute_dimension(X.T, normalize="diameter").dimension)))
"""


#: runs argv[1:] and prints its wall time and peak RSS: a fresh, small process forks the
#: command, so the RSS is the command's own (a child forked by this benchmark would count
#: the benchmark's pages it held before exec)
LAUNCHER = """
import os, subprocess, sys, time
t0 = time.perf_counter()
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
out = proc.stdout.read()
_, status, usage = os.wait4(proc.pid, 0)
sys.stderr.write(f"{time.perf_counter() - t0} {usage.ru_maxrss} {status}\\n")
sys.stdout.buffer.write(out)
"""


def _run_rss(cmd: list[str]) -> tuple[float, float, str]:
    """Wall seconds and peak RSS (MiB) of one command, and its stdout."""
    proc = subprocess.run([sys.executable, "-c", LAUNCHER, *cmd], capture_output=True, check=True)
    elapsed, rss_kib, status = proc.stderr.decode().split()[-3:]
    if int(status):
        raise RuntimeError(f"{cmd} failed ({status})")
    return float(elapsed), int(rss_kib) / 1024, proc.stdout.decode()


def bench_cli(tmp: Path, reps: int, rows: int, cols: int) -> dict:
    from sklearn.datasets import load_digits

    files = {
        "digits": tmp / "digits.npy",
        "gauss5000x10": tmp / "gauss5000x10.npy",
    }
    np.save(files["digits"], load_digits().data.astype(np.float64))
    np.save(files["gauss5000x10"], np.random.default_rng(0).normal(size=(5000, 10)))
    big = tmp / "gauss.npy"
    np.save(big, np.random.default_rng(0).normal(size=(rows, cols)))
    rk = _reprokg()
    cmds: dict[str, list[str]] = {"python -c pass": [sys.executable, "-c", "pass"]}
    for key, path in files.items():
        cmds[f"reprokg intrinsic-dimension {key}.npy"] = [
            *rk,
            "intrinsic-dimension",
            str(path),
            "--format",
            "json",
        ]
        cmds[f"python -c idim ({key}.npy)"] = [sys.executable, "-c", IDIM_SCRIPT, str(path)]
        cmds[f"python -c obsdim ({key}.npy)"] = [sys.executable, "-c", OBSDIM_SCRIPT, str(path)]
    big_name = f"reprokg intrinsic-dimension {rows}x{cols}.npy (support l=10000)"
    cmds[big_name] = [*rk, "intrinsic-dimension", str(big), "--format", "json"]
    # the values first: reprokg's JSON against both authors' codes on the same files
    agree: dict[str, bool] = {}
    for key, path in files.items():
        _, _, mine = _run_rss(cmds[f"reprokg intrinsic-dimension {key}.npy"])
        _, _, theirs = _run_rss([sys.executable, "-c", AUTHORS_SCRIPT, str(path)])
        ours = json.loads(mine)["id"]
        a, b = (float(x) for x in theirs.split())
        agree[key] = math.isclose(ours, a, rel_tol=REL) and math.isclose(ours, b, rel_tol=REL)
    times: dict[str, list[float]] = {k: [] for k in cmds}
    rss: dict[str, float] = {}
    last: dict[str, str] = {}
    names = list(cmds)
    for r in range(reps):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            t, m, out = _run_rss(cmds[name])
            times[name].append(t)
            rss[name] = max(rss.get(name, 0.0), m)
            last[name] = out
    med = {k: statistics.median(v) for k, v in times.items()}
    big_result = json.loads(last[big_name])
    print(
        f"\nwhole processes (import, read, compute, print), median of {reps} alternating rounds; "
        f"reprokg = idim = obsdim to 1e-12: {agree}"
    )
    for name in cmds:
        print(f"  {name:58s} {med[name]:7.2f} s  max RSS {rss[name]:6.0f} MiB")
    ratios = {}
    for key in files:
        fastest = min(med[f"python -c idim ({key}.npy)"], med[f"python -c obsdim ({key}.npy)"])
        ratios[key] = fastest / med[f"reprokg intrinsic-dimension {key}.npy"]
        print(
            f"  {key}, whole process: reprokg {ratios[key]:.1f}x faster than the fastest "
            "author code"
        )
    print(f"  {rows}x{cols}: relative error {big_result['bounds']['relative_error']:.4%}")
    return {
        "reps": reps,
        "median_s": med,
        "max_rss_mib": rss,
        "agree_1e-12": agree,
        "speedup_vs_fastest": ratios,
        "big_relative_error": big_result["bounds"]["relative_error"],
        "big_id_bounds": big_result["bounds"]["id"],
    }


# ------------------------------------------------------------------ named queries at 1M triples


def build_store(estimates: int, features: int, studies: int, seed: int = 5):
    """An in-memory pyoxigraph store of documents written by the package's own code."""
    import pyoxigraph as ox
    from rdflib import Literal, URIRef

    from reprokg.intrinsic_dimension.document import dataset_ref
    from reprokg.intrinsic_dimension.result import IntrinsicDimensionResult
    from reprokg.loaders import feature_discard

    rng = np.random.default_rng(seed)

    def term(t):
        if isinstance(t, URIRef):
            return ox.NamedNode(str(t))
        assert isinstance(t, Literal)
        if t.datatype is not None:
            return ox.Literal(str(t), datatype=ox.NamedNode(str(t.datatype)))
        return ox.Literal(str(t))

    quads: list = []
    est_iris: list[str] = []
    for i in range(estimates):
        sha = f"{i:064x}"
        delta = rng.uniform(0.05, 0.6, size=features)
        nid = 1 / delta**2
        order = np.argsort(-nid, kind="stable")
        rank = np.empty(features, dtype=int)
        rank[order] = np.arange(1, features + 1)
        big = i % 10 == 0  # every tenth is a bounded estimate
        d_all = float(rng.uniform(0.1, 0.7))
        result = {
            "n": int(rng.integers(100, 10**6)),
            "d": features,
            "observable_diameter": float(rng.uniform(1, 100)),
            "discriminability": None if big else d_all,
            "id": None if big else 1 / d_all**2,
            "exact": not big,
            "bounds": {
                "discriminability": [d_all * 0.99, d_all * 1.01],
                "id": [1 / (d_all * 1.01) ** 2, 1 / (d_all * 0.99) ** 2],
                "relative_error": ((1.01 / 0.99) ** 2) - 1,
                "support": [2, 3, 4],
            }
            if big
            else None,
            "features": {
                f"f{j}": {"delta": float(delta[j]), "id": float(nid[j]), "rank": int(rank[j])}
                for j in range(features)
            },
            "hops": None,
            "warnings": [],
        }
        doc = (
            IntrinsicDimensionResult.from_json(result)
            .stored(
                file_name=f"data{i}.npy",
                sha256=sha,
                dataset=dataset_ref(f"https://example.org/dataset/{i}", sha),
            )
            .document()
        )
        g = ox.NamedNode(str(doc.iri))
        quads.extend(ox.Quad(term(s), term(p), term(o), g) for s, p, o in doc.graph)
        est_iris.append(str(doc.subject))
    study_iris: list[str] = []
    step_iris: list[str] = []
    for i in range(studies):
        steps = "\n".join(
            f"  - {{proportion: {p / 10}, score: {0.9 - p / 50:.3f}}}" for p in range(1, 10)
        )
        text = (
            f"feature-discard: 1\ntitle: study {i}\npublication: {{url: https://example.org/p{i}}}\n"
            f"dataset: {{iri: https://example.org/dataset/{i}}}\nmethod: GCN\nmetric: accuracy\n"
            f"strategy: id\nintrinsic_dimension: {est_iris[i]}\nscore_before: 0.91\n"
            f"steps:\n{steps}\n"
        )
        [doc] = feature_discard.load(text.encode(), f"study{i}.yaml")
        g = ox.NamedNode(str(doc.iri))
        quads.extend(ox.Quad(term(s), term(p), term(o), g) for s, p, o in doc.graph)
        study_iris.append(str(doc.subject))
        step_iris.append(
            str(
                next(
                    doc.graph.subjects(
                        URIRef("https://w3id.org/reprokg/ontology#inFeatureDiscardStudy"),
                        doc.subject,
                    )
                )
            )
        )
    store = ox.Store()
    store.bulk_extend(quads)
    # the merged default graph, as reprokg's stores and the in-memory mirror keep it
    store.bulk_extend([ox.Quad(q.subject, q.predicate, q.object) for q in quads])
    return store, len(quads), est_iris, study_iris, step_iris


def _p50(store, queries: list[str]) -> tuple[float, int]:
    times, rows = [], 0
    for q in queries:
        t0 = time.perf_counter()
        rows = len(list(store.query(q)))
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), rows


STEP_PATTERN = "?step rk:inFeatureDiscardStudy? ?experiment ."


def spliced(bound: str, name: str) -> str:
    """A bound named query with its VALUES constant written into the text instead."""
    import re

    m = re.search(r"VALUES \?" + name + r" \{ (.*?) \}\n", bound)
    assert m is not None
    return bound.replace(m.group(0), "").replace(f"?{name})", f"{m.group(1)})")


def bench_queries(estimates: int, features: int, studies: int, n_queries: int) -> dict:
    from reprokg.sparql.named import get_query

    t0 = time.perf_counter()
    store, n_quads, est, studies_, steps = build_store(estimates, features, studies)
    print(
        f"\nnamed queries: {n_quads:,} quads in named graphs + their merge "
        f"({time.perf_counter() - t0:.0f} s to build)"
    )
    by_id = get_query("datasets-by-intrinsic-dimension")
    discarded = get_query("discarded-features")
    rng = np.random.default_rng(1)
    mins = [f"{x:.3f}" for x in rng.uniform(2, 60, size=n_queries)]
    picks = rng.integers(0, len(studies_), size=n_queries)

    def unbound(q, **kv):
        text = q.sparql
        for k, v in kv.items():
            text = text.replace(k, v)
        return text

    rows = {}
    rows["datasets-by-intrinsic-dimension (VALUES)"] = _p50(
        store, [by_id.bind({"min": m}) for m in mins]
    )
    rows["  same, min spliced into the FILTER"] = _p50(
        store, [spliced(by_id.bind({"min": m}), "min") for m in mins]
    )
    rows["discarded-features, a study (VALUES)"] = _p50(
        store, [discarded.bind({"experiment": studies_[i]}) for i in picks]
    )
    rows["discarded-features, one step (VALUES)"] = _p50(
        store, [discarded.bind({"experiment": steps[i]}) for i in picks]
    )
    rows["  same study, IRI compared in a FILTER"] = _p50(
        store,
        [
            unbound(
                discarded,
                **{STEP_PATTERN: STEP_PATTERN + f" FILTER(?experiment = <{studies_[i]}>)"},
            )
            for i in picks[: max(3, n_queries // 10)]
        ],
    )
    for name, (ms, n) in rows.items():
        print(f"  {name:48s} p50 {ms:9.2f} ms  ({n} rows)")
    return {
        "quads": n_quads,
        "p50_ms": {k: v[0] for k, v in rows.items()},
        "rows": {k: v[1] for k, v in rows.items()},
    }


# ------------------------------------------------------------------ main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parts", default="exact,support,cli,queries")
    ap.add_argument("--rounds", type=int, default=7, help="rounds of the in-process timings")
    ap.add_argument("--reps", type=int, default=5, help="rounds of the whole-process timings")
    ap.add_argument("--rows", type=int, default=ROWS)
    ap.add_argument("--cols", type=int, default=COLS)
    ap.add_argument("--support", type=int, default=10_000)
    ap.add_argument("--estimates", type=int, default=2_000)
    ap.add_argument("--queries", type=int, default=30)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--worker-support", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker_support:
        rows, cols, length = (int(x) for x in args.worker_support.split(","))
        print(json.dumps(support_worker(rows, cols, length)))
        return 0
    parts = set(args.parts.split(","))
    report: dict = {
        "machine": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "cpus": len(os.sched_getaffinity(0)),
            "loadavg_start": os.getloadavg(),
        }
    }
    if "exact" in parts:
        from sklearn.datasets import load_digits

        report["exact"] = [
            bench_exact("digits", load_digits().data.astype(np.float64), args.rounds),
            bench_exact(
                "gaussian seed 0", np.random.default_rng(0).normal(size=(5000, 10)), args.rounds
            ),
        ]
    if "support" in parts:
        report["support"] = bench_support(args.rows, args.cols, args.support)
    if "cli" in parts:
        with tempfile.TemporaryDirectory() as d:
            report["cli"] = bench_cli(Path(d), args.reps, args.rows, args.cols)
    if "queries" in parts:
        report["queries"] = bench_queries(
            args.estimates, 64, min(200, args.estimates), args.queries
        )
    report["machine"]["loadavg_end"] = os.getloadavg()
    print(f"\nload average {report['machine']['loadavg_start']} -> {os.getloadavg()}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
