"""MLflow import, checked against MLflow itself: a file store written by ``mlflow``
(mlflow-skinny, a test-only dependency, run in its own process) with 3 experiments x 5
seeds is imported; every run's parameters, tags and metrics (latest and history) equal what
MLflow's own client reads; and ``reprokg stability`` on the imported store gives the numbers
it gives on the same observations written as CSV from MLflow's client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from rdflib.namespace import RDF

from reprokg.cli import main
from reprokg.core.errors import LoadError
from reprokg.core.namespaces import MLS
from reprokg.loaders import load_source
from reprokg.loaders.importers import import_path
from reprokg.loaders.ir_metadata.export import graph_to_dict
from tests.conftest import need
from tests.exchange.conftest import runs_by_id, scores_of_run_as_mlflow_reads

EXPERIMENTS = ("matching-nets", "proto-nets", "tadam")
SEEDS = (7654, 42, 1234, 2019, 31337)

#: writes the store with MLflow, then reads it back with MLflow's client (the oracle)
WRITER = r"""
import json, sys
import numpy as np
import mlflow
from mlflow.tracking import MlflowClient

root, out = sys.argv[1], sys.argv[2]
mlflow.set_tracking_uri("file://" + root)
rng = np.random.default_rng(3)
means = {"matching-nets": 0.57, "proto-nets": 0.66, "tadam": 0.71}
for exp in %(experiments)r:
    mlflow.set_experiment(exp)
    for seed in %(seeds)r:
        with mlflow.start_run(run_name=f"{exp}-{seed}"):
            mlflow.log_params({"seed": seed, "learning_rate": 0.001, "n_way": 5})
            mlflow.set_tags({"mlflow.source.git.commit": "3f1c2a9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
                             "mlflow.source.git.repoURL": "https://github.com/example/fewshot"})
            for step in range(3):
                acc = means[exp] + rng.normal(0, 0.02) + 0.01 * step
                mlflow.log_metric("accuracy", round(float(acc), 6), step=step)
            mlflow.log_metric("loss", round(float(rng.uniform(0.1, 0.9)), 6))
client = MlflowClient()
runs = {}
rows = ["# stability: 1", "# title: the same observations, written from MLflow's client",
        "experiment,algorithm,seed,metric,value,hp.learning_rate,hp.n_way"]
for e in client.search_experiments():
    for r in client.search_runs([e.experiment_id]):
        history = client.get_metric_history
        hist = {k: [[m.step, m.timestamp, m.value] for m in history(r.info.run_id, k)]
                for k in r.data.metrics}
        runs[r.info.run_id] = {"experiment": e.name, "params": r.data.params, "tags": r.data.tags,
                               "metrics": r.data.metrics, "history": hist}
        for k, v in sorted(r.data.metrics.items()):
            rows.append(f"{e.name},{e.name},{r.data.params['seed']},{k},{v!r},"
                        f"{r.data.params['learning_rate']},{r.data.params['n_way']}")
rest = {"runs": [r.to_dictionary() for e in client.search_experiments()
                 for r in client.search_runs([e.experiment_id])],
        "experiments": [{"experiment_id": e.experiment_id, "name": e.name}
                        for e in client.search_experiments()]}
json.dump({"runs": runs, "csv": "\n".join(rows) + "\n", "rest": rest}, open(out, "w"))
"""


@pytest.fixture(scope="module")
def mlflow_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    try:
        import mlflow  # noqa: F401
    except ImportError:
        need(False, "mlflow-skinny (test extra) is not installed")
    base = tmp_path_factory.mktemp("mlflow")
    root, oracle = base / "mlruns", base / "oracle.json"
    script = WRITER % {"experiments": EXPERIMENTS, "seeds": SEEDS}
    env = {**os.environ, "MLFLOW_ALLOW_FILE_STORE": "true", "GIT_PYTHON_REFRESH": "quiet"}
    subprocess.run(
        [sys.executable, "-c", script, str(root), str(oracle)],
        check=True,
        env=env,
        cwd=base,
        timeout=300,
        capture_output=True,
    )
    return root, json.loads(oracle.read_text())


@pytest.mark.slow
def test_import_equals_what_mlflow_reads(mlflow_store) -> None:
    root, oracle = mlflow_store
    docs = import_path(root, "mlflow")
    runs = runs_by_id(docs)
    assert set(runs) == set(oracle["runs"]) and len(runs) == len(EXPERIMENTS) * len(SEEDS)
    for run_id, want in oracle["runs"].items():
        doc = runs[run_id]
        for name, v in scores_of_run_as_mlflow_reads(doc, want).items():
            assert float(doc.graph.value(v, MLS.hasValue)) == want["metrics"][name]
            hist = json.loads(str(doc.graph.value(v, RDF.value)))
            assert [[h["step"], h["timestamp"], h["value"]] for h in hist] == want["history"][name]


def _stability(store: Path) -> dict:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        args = ["stability", "--store", str(store), "--format", "json", "--metric", "accuracy"]
        assert main(args) == 0
    return json.loads(out.getvalue())


def _numbers(result: dict) -> dict:
    """What the analysis found, without what names the study (its id and title)."""
    keep = (
        "n",
        "model",
        "method",
        "singular",
        "loglik",
        "fixed_effects",
        "variance_components",
        "random_effects_tests",
        "anova",
        "contrasts",
        "hypotheses",
    )
    return {k: result[k] for k in keep}


@pytest.mark.slow
def test_stability_of_imported_runs_equals_the_csv(mlflow_store, tmp_path: Path) -> None:
    root, oracle = mlflow_store
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["import", "mlflow", str(root), "--store", str(a)]) == 0
    csv_file = tmp_path / "observations.csv"
    csv_file.write_text(oracle["csv"])
    assert main(["load", "--store", str(b), str(csv_file)]) == 0
    from_mlflow, from_csv = _stability(a), _stability(b)
    assert from_mlflow["n"] == len(EXPERIMENTS) * len(SEEDS)
    assert _numbers(from_mlflow) == _numbers(from_csv)
    assert _numbers(from_mlflow)["fixed_effects"]


@pytest.mark.slow
def test_folder_zip_and_idempotence(mlflow_store, tmp_path: Path) -> None:
    root, _oracle = mlflow_store
    z = tmp_path / "mlruns.zip"
    with zipfile.ZipFile(z, "w") as zf:
        for f in sorted(root.rglob("*")):
            if f.is_file():
                zf.write(f, "mlruns/" + f.relative_to(root).as_posix())
    folder = import_path(root, "mlflow")
    zipped = import_path(z, "mlflow")
    assert [d.iri for d in folder] == [d.iri for d in zipped]
    store = tmp_path / "kg"
    assert main(["import", "mlflow", str(root), "--store", str(store)]) == 0
    from reprokg.ingest import ingest
    from reprokg.store import open_store

    with open_store(store) as s:
        again = ingest(s, zipped)
    assert {d.status for d in again.documents} == {"unchanged"}


@pytest.mark.slow
def test_rest_export_reads_the_same_parameters(mlflow_store) -> None:
    _root, oracle = mlflow_store
    data = json.dumps(oracle["rest"]).encode()
    docs = load_source("runs.json", data)  # sniffed
    runs = runs_by_id(docs)
    assert set(runs) == set(oracle["runs"])
    for run_id, doc in runs.items():
        params = graph_to_dict(doc.graph, doc.subject)["method"]["parameters"]
        assert params == oracle["runs"][run_id]["params"]


@pytest.mark.slow
def test_a_broken_metric_line_is_located(mlflow_store, tmp_path: Path) -> None:
    root, _ = mlflow_store
    metric = next(root.glob("*/*/metrics/accuracy"))
    z = tmp_path / "bad.zip"
    with zipfile.ZipFile(z, "w") as zf:
        for f in sorted(root.rglob("*")):
            if f.is_file():
                data = f.read_bytes()
                if f == metric:
                    data += b"17 not-a-number 3\n"
                zf.writestr(f.relative_to(root).as_posix(), data)
    with pytest.raises(LoadError) as err:
        import_path(z, "mlflow")
    rel = metric.relative_to(root).as_posix()
    assert err.value.source.endswith(f"!{rel}") and err.value.line == 4
