"""Exchange with other tools, side by side with those tools, as whole processes.

* **MLflow import**: a file store written by MLflow (``--experiments`` x ``--seeds`` runs,
  3 metrics with ``--steps`` logged values each) read by ``reprokg import mlflow --dry-run``
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
from pathlib import Path

from benchmarks.machine import cpu_shares, cpu_times

REPO = Path(__file__).resolve().parents[2]
WRITE = r"""
import sys, numpy as np, mlflow
root, n_exp, n_seed, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
mlflow.set_tracking_uri("file://" + root)
rng = np.random.default_rng(1)
for e in range(n_exp):
    mlflow.set_experiment(f"exp-{e}")
    for s in range(n_seed):
        with mlflow.start_run(run_name=f"exp-{e}-seed-{s}"):
            mlflow.log_params({"seed": s, "lr": 0.001 * (1 + e), "batch": 64})
            for step in range(steps):
                mlflow.log_metrics({"acc": float(rng.uniform()), "loss": float(rng.uniform()),
                                    "f1": float(rng.uniform())}, step=step)
"""
READ = r"""
import sys
from mlflow.tracking import MlflowClient
c = MlflowClient(tracking_uri=sys.argv[1])
n = 0
for e in c.search_experiments():
    for r in c.search_runs([e.experiment_id], max_results=50000):
        n += len(r.data.params) + len(r.data.tags)
        for k in r.data.metrics:
            n += len(c.get_metric_history(r.info.run_id, k))
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


def _reprokg() -> list[str]:
    exe = Path(sys.executable).with_name("reprokg")
    return [str(exe)] if exe.is_file() else [sys.executable, "-m", "reprokg"]


def _time(cmd: list[str], env: dict[str, str], before=None) -> float:
    if before is not None:
        before()
    t = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, capture_output=True, timeout=1800)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--experiments", type=int, default=10)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--json")
    args = ap.parse_args()
    env = {**os.environ, "MLFLOW_ALLOW_FILE_STORE": "true", "GIT_PYTHON_REFRESH": "quiet"}
    rk = _reprokg()
    tmp = Path(tempfile.mkdtemp(prefix="bench-exchange-"))
    try:
        store = tmp / "mlruns"
        subprocess.run(
            [sys.executable, "-c", WRITE, str(store), str(args.experiments), str(args.seeds),
             str(args.steps)],
            check=True, env=env, capture_output=True,
        )  # fmt: skip
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
        out = subprocess.run(
            [*rk, "compare", "--qrels", str(ex / "qrels.toy"), "--orig-base",
             str(ex / "annotated_run_example.txt"), "--rep-base", str(ex / "reproduced_run.txt"),
             "--save", "--store", str(kg), "--format", "json"],
            check=True, env=env, capture_output=True, text=True,
        )  # fmt: skip
        del out
        doc = subprocess.run(
            [*rk, "query", "--store", str(kg), "--format", "csv",
             "SELECT ?g WHERE { GRAPH ?g { ?g <https://w3id.org/reprokg/ontology#documentKind> "
             '"comparison" } }'],
            check=True, env=env, capture_output=True, text=True,
        ).stdout.splitlines()[1].strip()  # fmt: skip
        crate = tmp / "crate"
        ctx = REPO / "tests" / "exchange" / "data" / "ro-crate-context"
        commands = {
            "MLflow client: read every run and metric history": (
                [sys.executable, "-c", READ, f"file://{store}"],
                None,
            ),
            "MLflow client: the same, from the SQLite database": (
                [sys.executable, "-c", READ, f"sqlite:///{db}"],
                None,
            ),
            "reprokg import mlflow mlflow.db --dry-run (the same, SQLite)": (
                [*rk, "import", "mlflow", str(db), "--dry-run"],
                None,
            ),
            "reprokg import mlflow --dry-run (read, PRIMAD, validate)": (
                [*rk, "import", "mlflow", str(store), "--dry-run"],
                None,
            ),
            "reprokg import mlflow (into a new store)": (
                [*rk, "import", "mlflow", str(store), "--store", str(tmp / "kg-mlflow")],
                lambda: shutil.rmtree(tmp / "kg-mlflow", ignore_errors=True),
            ),
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
        times: dict[str, list[float]] = {k: [] for k in commands}
        before = cpu_times()
        for _ in range(args.reps):
            for name, (cmd, setup) in commands.items():
                times[name].append(_time(cmd, env, setup))
        shares = cpu_shares(before, cpu_times())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    medians = {k: statistics.median(v) for k, v in times.items()}
    runs = args.experiments * args.seeds
    print(f"MLflow store: {args.experiments} experiments x {args.seeds} seeds = {runs} runs, "
          f"3 metrics x {args.steps} steps; load average {os.getloadavg()[0]:.1f}; "
          f"machine {shares}")  # fmt: skip
    for k, v in medians.items():
        print(f"{v:8.2f} s  {k}")
    peer = medians["MLflow client: read every run and metric history"]
    ours = medians["reprokg import mlflow --dry-run (read, PRIMAD, validate)"]
    print(f"reprokg import --dry-run / MLflow client: {ours / peer:.2f}x")
    peer = medians["MLflow client: the same, from the SQLite database"]
    ours = medians["reprokg import mlflow mlflow.db --dry-run (the same, SQLite)"]
    print(f"SQLite: reprokg import --dry-run / MLflow client: {ours / peer:.2f}x")
    if args.json:
        Path(args.json).write_text(json.dumps({"runs": runs, "medians": medians, "times": times,
                                               "machine": shares}, indent=2))  # fmt: skip


if __name__ == "__main__":
    main()
