"""Exchange with other tools, side by side with those tools, as whole processes.

* **MLflow import**: a file store written by MLflow's own client (``--experiments`` x
  ``--seeds`` runs, 3 metrics with ``--steps`` logged values each; ``--jobs`` processes
  write it, each its own experiments) read by ``reprokg import mlflow --dry-run``
  (read, PRIMAD and stability documents, SHACL validation; nothing written) and by
  ``reprokg import mlflow`` into a fresh store, next to MLflow's own client reading the same
  store completely (``search_runs`` of every experiment, ``get_metric_history`` of every
  metric), the peer issue 32 names. The same store migrated to MLflow 3's default SQLite
  backend by ``mlflow migrate-filestore`` (needs SQLAlchemy and alembic, the test extra):
  ``reprokg import mlflow mlflow.db --dry-run`` next to MLflow's client reading the database.
* **RO-Crate**: ``reprokg export crate`` of a comparison of the bundled examples, next to
  ro-crate-py (``rocrate``) reading that crate and writing it again, and roc-validator
  validating it (required level).

Within a round the commands alternate (a change in load hits each alike); medians of
``--reps`` rounds.

    python -m benchmarks.exchange.run [--reps 3] [--experiments 10] [--seeds 20] [--json OUT]
    python -m benchmarks.exchange.run --mlflow-only --experiments 10 --seeds 50    # 500 runs
    python -m benchmarks.exchange.run --mlflow-only --experiments 10 --seeds 1000 --reps 1
    python -m benchmarks.exchange.run --experiments 10 --seeds 20 --write-only DIR  # runs/s
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.machine import cpu_shares, cpu_times

REPO = Path(__file__).resolve().parents[2]
WRITE = r"""
import multiprocessing, sys, time, numpy as np, mlflow
from mlflow.entities import Metric, Param, RunTag
from mlflow.tracking.context.registry import resolve_tags
root, n_exp, n_seed, steps, jobs = sys.argv[1], *map(int, sys.argv[2:6])
client = mlflow.MlflowClient(tracking_uri="file://" + root)
client.search_experiments()  # the store and its default experiment, before any fork
# the tags mlflow.start_run would set (user, source); the run name comes with create_run
tags = [RunTag(k, v) for k, v in resolve_tags().items() if k != "mlflow.runName"]
def write(e):
    rng = np.random.default_rng([1, e])
    exp_id = client.create_experiment(f"exp-{e}")
    for s in range(n_seed):
        run_id = client.create_run(exp_id, run_name=f"exp-{e}-seed-{s}").info.run_id
        now = int(time.time() * 1000)
        client.log_batch(run_id, tags=tags,
            params=[Param("seed", str(s)), Param("lr", str(0.001 * (1 + e))), Param("batch", "64")],
            metrics=[Metric(k, float(rng.uniform()), now + step, step)
                     for step in range(steps) for k in ("acc", "loss", "f1")])
        client.set_terminated(run_id)
with multiprocessing.get_context("fork").Pool(jobs) as pool:
    pool.map(write, range(n_exp), chunksize=1)
"""
READ = r"""
import sys, mlflow
from mlflow.tracking import MlflowClient
mlflow.set_tracking_uri(sys.argv[1])
c = MlflowClient(tracking_uri=sys.argv[1])
ids = [e.experiment_id for e in c.search_experiments()]
runs = mlflow.search_runs(experiment_ids=ids, max_results=100000)
n = runs.size
for run_id in runs["run_id"]:
    for k in ("acc", "loss", "f1"):
        n += len(c.get_metric_history(run_id, k))
print(n)
"""
ROCRATE = r"""
import sys
from rocrate.rocrate import ROCrate
crate = ROCrate(sys.argv[1])
crate.write(sys.argv[2])
print(len(list(crate.get_entities())))
"""
VALIDATE = r"""
import json, sys, responses
from rocrate_validator import models, services
ctx = sys.argv[2]
with responses.RequestsMock(assert_all_requests_are_fired=False) as rs:
    for v in ("1.1", "1.2"):
        rs.get(f"https://w3id.org/ro/crate/{v}/context",
               body=open(f"{ctx}/{v}.jsonld", "rb").read(), content_type="application/ld+json")
    s = services.ValidationSettings(rocrate_uri=sys.argv[1], profile_identifier="process-run-crate",
                                    requirement_severity=models.Severity.REQUIRED)
    print(len(services.validate(s).get_issues()))
"""


#: a command and what to do before each timing of it
Command = tuple[list[str], Callable[[], None] | None]
PEER = "MLflow client: search_runs, then get_metric_history of every run and metric"
OURS = "reprokg import mlflow --dry-run (read, PRIMAD, validate)"
SQLITE_PEER = "MLflow client: the same, from the SQLite database"
SQLITE_OURS = "reprokg import mlflow mlflow.db --dry-run (the same, SQLite)"


def _reprokg() -> list[str]:
    exe = Path(sys.executable).with_name("reprokg")
    return [str(exe)] if exe.is_file() else [sys.executable, "-m", "reprokg"]


def _time(cmd: list[str], env: dict[str, str], before=None) -> float:
    if before is not None:
        before()
    t = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, capture_output=True, timeout=1800)
    return time.perf_counter() - t


def _store_commands(rk: list[str], store: Path, tmp: Path) -> dict[str, Command]:
    """The file store read by MLflow's client and by ``reprokg import``."""
    return {
        PEER: ([sys.executable, "-c", READ, f"file://{store}"], None),
        OURS: ([*rk, "import", "mlflow", str(store), "--dry-run"], None),
        "reprokg import mlflow (into a new store)": (
            [*rk, "import", "mlflow", str(store), "--store", str(tmp / "kg-mlflow")],
            lambda: shutil.rmtree(tmp / "kg-mlflow", ignore_errors=True),
        ),
    }


def _other_commands(rk: list[str], tmp: Path, env: dict[str, str]) -> dict[str, Command]:
    """MLflow's SQLite database (migrated from the store) and RO-Crate."""
    db = tmp / "mlflow.db"
    subprocess.run(
        [sys.executable, "-m", "mlflow", "migrate-filestore", "--source", str(tmp),
         "--target", f"sqlite:///{db}", "--no-progress"],
        check=True, env=env, capture_output=True,
    )  # fmt: skip
    kg = tmp / "kg"
    # a crate of the bundled examples' comparison
    ex = REPO / "examples" / "runs"
    subprocess.run(
        [*rk, "load", "--store", str(kg), str(ex / "annotated_run_example.txt"),
         str(ex / "reproduced_run.txt"), str(ex / "qrels.toy")],
        check=True, env=env, capture_output=True,
    )  # fmt: skip
    subprocess.run(
        [*rk, "compare", "--qrels", str(ex / "qrels.toy"), "--orig-base",
         str(ex / "annotated_run_example.txt"), "--rep-base", str(ex / "reproduced_run.txt"),
         "--save", "--store", str(kg), "--format", "json"],
        check=True, env=env, capture_output=True, text=True,
    )  # fmt: skip
    doc = subprocess.run(
        [*rk, "query", "--store", str(kg), "--format", "csv",
         "SELECT ?g WHERE { GRAPH ?g { ?g <https://w3id.org/reprokg/ontology#documentKind> "
         '"comparison" } }'],
        check=True, env=env, capture_output=True, text=True,
    ).stdout.splitlines()[1].strip()  # fmt: skip
    crate = tmp / "crate"
    ctx = REPO / "tests" / "exchange" / "data" / "ro-crate-context"
    return {
        SQLITE_PEER: ([sys.executable, "-c", READ, f"sqlite:///{db}"], None),
        SQLITE_OURS: ([*rk, "import", "mlflow", str(db), "--dry-run"], None),
        "reprokg export crate (comparison)": (
            [*rk, "export", "crate", doc, "-o", str(crate), "--store", str(kg)],
            lambda: shutil.rmtree(crate, ignore_errors=True),
        ),
        "ro-crate-py: read that crate and write it again": (
            [sys.executable, "-c", ROCRATE, str(crate), str(tmp / "crate-copy")],
            lambda: shutil.rmtree(tmp / "crate-copy", ignore_errors=True),
        ),
        "roc-validator: validate it (required level)": (
            [sys.executable, "-c", VALIDATE, str(crate), str(ctx)],
            None,
        ),
    }


def _write_store(store: Path, args: argparse.Namespace, env: dict[str, str]) -> float:
    """MLflow writes the store with its own client (``--jobs`` processes, each its own
    experiments); the seconds it took, printed with the runs a second."""
    t = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", WRITE, str(store), str(args.experiments), str(args.seeds),
         str(args.steps), str(args.jobs)],
        check=True, env=env, capture_output=True,
    )  # fmt: skip
    took = time.perf_counter() - t
    runs, load = args.experiments * args.seeds, os.getloadavg()[0]
    print(f"MLflow wrote {runs} runs in {took:.1f} s ({runs / took:.1f} runs/s, "
          f"{args.jobs} process(es), load average {load:.1f})", flush=True)  # fmt: skip
    return took


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--experiments", type=int, default=10)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument(
        "--jobs",
        type=int,
        default=2,
        help="processes writing the MLflow store (each its own experiments)",
    )
    ap.add_argument("--json")
    ap.add_argument(
        "--write-only",
        metavar="DIR",
        help="only write the MLflow store into DIR (a new folder) and say how fast",
    )
    ap.add_argument(
        "--mlflow-only",
        action="store_true",
        help="only the file store: MLflow's client and reprokg import (no SQLite, no crate)",
    )
    args = ap.parse_args()
    env = {**os.environ, "MLFLOW_ALLOW_FILE_STORE": "true", "GIT_PYTHON_REFRESH": "quiet"}
    if args.write_only:
        _write_store(Path(args.write_only).resolve(), args, env)
        return
    rk = _reprokg()
    tmp = Path(tempfile.mkdtemp(prefix="bench-exchange-"))
    try:
        store = tmp / "mlruns"
        write_s = _write_store(store, args, env)
        commands = _store_commands(rk, store, tmp)
        if not args.mlflow_only:
            commands |= _other_commands(rk, tmp, env)
        times: dict[str, list[float]] = {k: [] for k in commands}
        before = cpu_times()
        for _ in range(args.reps):
            for name, (cmd, setup) in commands.items():
                times[name].append(_time(cmd, env, setup))
                print(f"{times[name][-1]:8.2f} s  {name}", flush=True)
        shares = cpu_shares(before, cpu_times())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    medians = {k: statistics.median(v) for k, v in times.items()}
    runs = args.experiments * args.seeds
    load = os.getloadavg()[0]
    print(f"MLflow store: {args.experiments} experiments x {args.seeds} seeds = {runs} runs, "
          f"3 metrics x {args.steps} steps; load average {load:.1f}; "
          f"machine {shares}")  # fmt: skip
    for k, v in medians.items():
        print(f"{v:8.2f} s  {k}")
    print(f"reprokg import --dry-run / MLflow client: {medians[OURS] / medians[PEER]:.2f}x")
    if SQLITE_PEER in medians:
        ratio = medians[SQLITE_OURS] / medians[SQLITE_PEER]
        print(f"SQLite: reprokg import --dry-run / MLflow client: {ratio:.2f}x")
    if args.json:
        Path(args.json).write_text(json.dumps({"runs": runs, "medians": medians, "times": times,
                                               "machine": shares, "load_average": load,
                                               "write_s": write_s, "jobs": args.jobs},
                                              indent=2))  # fmt: skip


if __name__ == "__main__":
    main()
