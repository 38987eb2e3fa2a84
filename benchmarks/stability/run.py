"""The full stability analysis, reprokg vs lme4 + lmerTest in R, on the paper-sized design.

The same analysis on both sides, on the same CSV: the REML fit of
``value ~ experiment + (1 | seed) + (1 | repeat)``, both ranova refits, the Type III F test
of experiment, the six rerun contrasts (contest, 95% intervals) and the coefficient table
with Satterthwaite df. Every repetition runs fresh processes, alternating R and Python
under the same ``nice``:

* **R**: ``Rscript tests/stability/r/stability.R`` (reads the CSV, loads lme4 + lmerTest,
  runs the analysis ``--reps`` times and prints each in-R time);
* **Python**: a child process that reads the CSV with pandas and runs
  ``reprokg.stability.analysis.analyse`` ``--reps`` times (in-process times printed);
* **reprokg stability** (the command a user runs): the whole CLI process reading the
  observations from an embedded store with SPARQL, analysing, printing JSON; and the
  same read + analysis in this process (``analyse_study``), to show what SPARQL adds.

The first in-process call is reported apart from the warm ones (R's lazy loading,
Python's first calls). Prints medians and the ratios; ``--json`` keeps them.

    python -m benchmarks.stability.run [--runs 5] [--reps 5] [--design paper seed-variance]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from reprokg.stability.analysis import analyse  # noqa: E402
from reprokg.stability.simulate import paper_design  # noqa: E402
from tests.stability.rref import R_SCRIPT, parse  # noqa: E402

DESIGNS = {
    # 12 experiments, 5 configurations x 5 seeds x 5 repeats, 1,088 rows, singular fit
    "paper": lambda: paper_design(1),
    # the same design with a real seed variance (the optimiser works harder)
    "seed-variance": lambda: paper_design(11, seed_sd=0.02, repeat_sd=0.004),
}

PY_CHILD = """
import json, sys, time
import pandas as pd
from reprokg.stability.analysis import analyse
frame = pd.read_csv({csv!r})
pairs = {pairs!r}
times = []
for _ in range({reps}):
    t0 = time.perf_counter()
    res = analyse(frame)
    times.append(time.perf_counter() - t0)
assert sorted(res["contrasts"]) == sorted(f"{{a}} - {{b}}" for a, b in pairs)
print(json.dumps({{"times": times}}))
"""


def _nice(cmd: list[str]) -> list[str]:
    return ["nice", "-n", "10", *cmd]


def run_python(csv: Path, pairs: list[tuple[str, str]], reps: int) -> tuple[list[float], float]:
    code = PY_CHILD.format(csv=str(csv), reps=reps, pairs=pairs)
    t0 = time.perf_counter()
    proc = subprocess.run(
        _nice([sys.executable, "-c", code]), capture_output=True, text=True, check=True
    )
    wall = time.perf_counter() - t0
    return json.loads(proc.stdout.strip().splitlines()[-1])["times"], wall


def run_r(
    csv: Path, pairs: list[tuple[str, str]], reps: int, tmp: Path
) -> tuple[list[float], float]:
    spec = ";".join(f"{a}|{b}" for a, b in pairs)
    jobs = tmp / "jobs.tsv"
    jobs.write_text("\t".join(["bench", str(csv), "REML", spec, str(reps), "default"]) + "\n")
    t0 = time.perf_counter()
    proc = subprocess.run(
        _nice(["Rscript", str(R_SCRIPT), str(jobs)]), capture_output=True, text=True, check=True
    )
    wall = time.perf_counter() - t0
    res = parse(proc.stdout)
    assert not res.error and len(res.contrast) == len(pairs), proc.stdout[-500:]
    return res.times, wall


def run_cli(store: Path, study: str) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        _nice([sys.executable, "-m", "reprokg", "stability", "--store", str(store), "--study",
               study, "--format", "json"]),
        capture_output=True,
        check=True,
    )  # fmt: skip
    return time.perf_counter() - t0


def make_store(frame, tmp: Path, name: str) -> tuple[Path, str]:
    """The design as a stability CSV loaded into an embedded store (as ``reprokg load``)."""
    from reprokg.ingest import ingest
    from reprokg.loaders import stability
    from reprokg.store import open_store

    frame = frame.assign(metric="test accuracy")
    head = f"# stability: 1\n# title: benchmark {name}\n# illustrative: true\n"
    text = head + frame.to_csv(index=False, lineterminator="\n", float_format="%.17g")
    path = tmp / f"store-{name}"
    with open_store(str(path)) as store:
        docs = stability.load(text.encode(), f"{name}.csv")
        assert ingest(store, docs).count("added") == 1
        study = str(docs[0].subject)
    return path, study


def store_times(store: Path, study: str, n: int) -> list[float]:
    """``analyse_study`` in this process: the SPARQL read into pandas and the analysis."""
    from reprokg.stability.study import analyse_study
    from reprokg.store import open_store

    times = []
    with open_store(str(store), read_only=True) as st:
        for _ in range(n):
            t0 = time.perf_counter()
            analyse_study(st, study)
            times.append(time.perf_counter() - t0)
    return times


def bench(name: str, runs: int, reps: int) -> dict[str, float]:
    frame = DESIGNS[name]()
    pairs = [tuple(k.split(" - ")) for k in analyse(frame)["contrasts"]]
    assert len(pairs) == 6
    r_first, r_warm, r_wall, p_first, p_warm, p_wall, cli = [], [], [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        csv = tmp / f"{name}.csv"
        frame.to_csv(csv, index=False, float_format="%.17g")
        store, study = make_store(frame, tmp, name)
        from_store: list[float] = []
        for _ in range(runs):  # alternate, so that a noisy neighbour hits all alike
            times, wall = run_r(csv, pairs, reps, tmp)
            r_first.append(times[0])
            r_warm.append(statistics.median(times[1:] or times))
            r_wall.append(wall)
            times, wall = run_python(csv, pairs, reps)
            p_first.append(times[0])
            p_warm.append(statistics.median(times[1:] or times))
            p_wall.append(wall)
            cli.append(run_cli(store, study))
            times = store_times(store, study, reps)
            from_store.append(statistics.median(times[1:] or times))
    med = statistics.median
    return {
        "rows": len(frame),
        "R in-R warm": med(r_warm),
        "R in-R first call": med(r_first),
        f"R whole process ({reps} analyses)": med(r_wall),
        "reprokg in-process warm": med(p_warm),
        "reprokg in-process first call": med(p_first),
        f"Python whole process ({reps} analyses)": med(p_wall),
        "reprokg in-process from the store (SPARQL + analysis) warm": med(from_store),
        "reprokg stability CLI (store, 1 analysis)": med(cli),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="alternating process rounds")
    ap.add_argument("--reps", type=int, default=5, help="in-process repetitions per process")
    ap.add_argument(
        "--design", nargs="+", default=["paper", "seed-variance"], choices=sorted(DESIGNS)
    )
    ap.add_argument("--json", type=Path, help="write the medians here")
    args = ap.parse_args()
    out: dict[str, object] = {
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_before": os.getloadavg(),
        },
        "runs": args.runs,
        "reps": args.reps,
        "designs": {},
    }
    for name in args.design:
        res = bench(name, args.runs, args.reps)
        out["designs"][name] = res  # type: ignore[index]
        rows = res.pop("rows")
        print(
            f"\n== {name} design, {rows} rows; medians of {args.runs} rounds "
            f"(in-process: median of {args.reps - 1} warm calls per process)"
        )
        for k, v in res.items():
            print(f"  {k:58s} {v * 1000:9.1f} ms")
        warm = res["reprokg in-process warm"] / res["R in-R warm"]
        first = res["reprokg in-process first call"] / res["R in-R first call"]
        print(f"  ratio reprokg/R in-process, warm          {warm:6.3f}  (target <= 2)")
        print(f"  ratio reprokg/R in-process, first call    {first:6.3f}")
        ok = res["reprokg in-process warm"] < 1.0 and warm <= 2.0
        print(f"  target (< 1 s and <= 2x R's in-R time):   {'met' if ok else 'NOT met'}")
        res["rows"] = rows
    out["machine"]["load_after"] = os.getloadavg()  # type: ignore[index]
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
