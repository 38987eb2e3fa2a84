"""Exchange at real sizes: the node limit holds per document (a run, a record), never per
store or file, so a 10,000-run MLflow store and a ReproDB export six times the real one
load with the default settings; ``--experiment-from`` splits an MLflow experiment by the
parameters that define its conditions.

The MLflow stores are written here as MLflow's file store lays them out (plain files:
``<exp>/meta.yaml``, ``<exp>/<run>/meta.yaml``, ``params/<key>``, ``metrics/<key>`` with
``timestamp value step`` lines), the layout tests/exchange/test_mlflow_import.py checks
against MLflow itself; the expected counts are the files written.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rdflib import RDFS
from rdflib.namespace import RDF

from reprokg.core.errors import InputTooLarge, UsageError
from reprokg.core.namespaces import RK
from reprokg.core.settings import Settings, configure
from reprokg.loaders import load_source
from reprokg.loaders.importers import import_path
from reprokg.loaders.reading.contract import LoadOptions

REPRODB = Path("artifact_evaluation/reprodb/artifacts.json")


def write_store(
    root: Path, runs: int, *, steps: int = 50, optimizers: tuple[str, ...] = ("sgd",)
) -> Path:
    """A file store of one experiment with ``runs`` runs (3 params, 3 metrics x ``steps``)
    in MLflow's layout; parameters ``seed``, ``lr``, ``optimizer`` (cycling)."""
    exp = root / "1"
    exp.mkdir(parents=True)
    (exp / "meta.yaml").write_text(
        "artifact_location: file:///x/1\nexperiment_id: '1'\nlifecycle_stage: active\nname: bench\n"
    )
    lines = "".join(f"{1700000000000 + s} 0.{s:04d} {s}\n" for s in range(steps))
    for i in range(runs):
        run_id = f"{i:032x}"
        run = exp / run_id
        (run / "params").mkdir(parents=True)
        (run / "metrics").mkdir()
        (run / "meta.yaml").write_text(
            f"artifact_uri: file:///x/1/{run_id}/artifacts\nend_time: 1700000001000\n"
            f"experiment_id: '1'\nlifecycle_stage: active\nrun_id: {run_id}\n"
            f"run_name: run-{i}\nrun_uuid: {run_id}\nstart_time: 1700000000000\nstatus: 3\n"
            "user_id: tester\n"
        )
        (run / "params" / "seed").write_text(str(i // len(optimizers)))
        (run / "params" / "lr").write_text("0.001")
        (run / "params" / "optimizer").write_text(optimizers[i % len(optimizers)])
        for metric in ("acc", "loss", "f1"):
            (run / "metrics" / metric).write_text(lines)
    return root


@pytest.mark.slow
def test_a_store_of_10000_runs_imports_with_the_default_limits(tmp_path: Path) -> None:
    """Refused before ("more than 200000 nodes": the whole store was one JSON text)."""
    root = write_store(tmp_path / "mlruns", 10_000)
    run_folders = [p for p in (root / "1").iterdir() if p.is_dir()]
    docs = import_path(root, "mlflow")
    runs = [d for d in docs if d.kind == "run"]
    assert len(runs) == len(run_folders) == 10_000
    assert [d.kind for d in docs if d.kind != "run"] == ["stability"]


def test_a_run_over_the_node_limit_is_refused_naming_the_run(tmp_path: Path) -> None:
    """The limit moved to the run, not away: a run of 3 metrics x 50 steps is about 600
    values, over a limit of 500."""
    root = write_store(tmp_path / "mlruns", 2)
    configure(Settings.from_env({}, max_nodes=500))
    with pytest.raises(InputTooLarge, match="limit of one document is 500") as exc:
        import_path(root, "mlflow")
    assert exc.value.source == f"{root}!1/{0:032x}"


def test_experiment_from_splits_an_experiment_by_its_conditions(tmp_path: Path) -> None:
    """optimizer x seed logged in one MLflow experiment: one stability experiment without
    the option, one per optimizer with it (the two optimizers written)."""
    root = write_store(tmp_path / "mlruns", 8, steps=2, optimizers=("adam", "sgd"))

    def experiments(options: LoadOptions | None) -> set[str]:
        [study] = [d for d in import_path(root, "mlflow", None, options) if d.kind != "run"]
        g = study.graph
        return {str(g.value(e, RDFS.label)) for e in g.subjects(RDF.type, RK.StabilityExperiment)}

    assert experiments(None) == {"bench"}
    split = experiments(LoadOptions(experiment_from=("optimizer",)))
    assert split == {"bench optimizer=adam", "bench optimizer=sgd"}


def test_experiment_from_is_refused_for_a_format_without_experiments(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="formats that read it: mlflow"):
        import_path(tmp_path, "openml", None, LoadOptions(experiment_from=("seed",)))


@pytest.mark.slow
def test_a_reprodb_export_six_times_the_real_one_loads(shared_data: Path, tmp_path: Path) -> None:
    """17,000 records, ~6.5 MB: refused before ("more than 200000 nodes"). The real export
    repeated six times, each copy's titles made distinct (an exact copy is skipped)."""
    real = json.loads((shared_data / REPRODB).read_text(encoding="utf-8"))
    distinct = len({json.dumps(r, sort_keys=True) for r in real})  # one record is listed twice
    grown = [{**r, "title": f"{r['title']} (copy {k})"} for k in range(6) for r in real]
    data = json.dumps(grown).encode("utf-8")
    assert len(grown) == 6 * len(real) > 16_900 and len(data) > 6_000_000
    docs = load_source("artifacts-6x.json", data)
    assert len(docs) == 6 * distinct
    assert {d.kind for d in docs} == {"artifact-evaluation"}
