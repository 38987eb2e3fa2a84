"""MLflow's SQLite store (``mlflow.db``, MLflow 3's default backend), checked against MLflow.

MLflow itself (mlflow-skinny with SQLAlchemy and alembic, test-only) writes a file store,
migrates it to a database with its own ``mlflow migrate-filestore`` (same run ids), and
writes a second database natively through ``sqlite:///``, which MLflow's client then reads
back (the oracle). The database and its file store must give the same documents; the
native database's values must equal what the client reads; the file is never written.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from rdflib.compare import isomorphic
from rdflib.namespace import RDF

from reprokg.cli import main
from reprokg.core.errors import LoadError
from reprokg.core.namespaces import MLS, RK
from reprokg.loaders import load_source
from reprokg.loaders.importers import import_path
from reprokg.loaders.ir_metadata.export import graph_to_dict
from tests.conftest import need
from tests.exchange.conftest import runs_by_id, scores_of_run_as_mlflow_reads

#: the runs MLflow writes, to a file store (argv[1] = file:// URI) or a database (sqlite:///):
#: 2 experiments x 3 seeds, a metric history with a NaN, one deleted run (left out)
WRITER = r"""
import json, sys
import mlflow
from mlflow.tracking import MlflowClient

uri, out = sys.argv[1], sys.argv[2]
mlflow.set_tracking_uri(uri)
for e, exp in enumerate(("proto-nets", "tadam")):
    mlflow.set_experiment(exp)
    for seed in (7, 42, 1234):
        with mlflow.start_run(run_name=f"{exp}-{seed}"):
            mlflow.log_params({"seed": seed, "learning_rate": 0.001 * (e + 1)})
            mlflow.set_tags({"mlflow.source.git.commit": "3f1c2a9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
                             "mlflow.source.git.repoURL": "https://github.com/example/fewshot"})
            for step in range(3):
                acc = 0.6 + 0.05 * e + 0.01 * step + seed % 7 / 1000
                mlflow.log_metric("accuracy", acc, step=step, timestamp=1700000000000 + step)
            mlflow.log_metric("loss", float("nan") if seed == 42 else 0.25, step=0)
    with mlflow.start_run(run_name="deleted") as run:
        mlflow.log_param("seed", 99)
    MlflowClient().delete_run(run.info.run_id)
client = MlflowClient()
runs = {}
for ex in client.search_experiments():
    for r in client.search_runs([ex.experiment_id]):
        history = client.get_metric_history
        hist = {k: [[m.step, m.timestamp, m.value] for m in history(r.info.run_id, k)]
                for k in r.data.metrics}
        runs[r.info.run_id] = {"experiment": ex.name, "params": r.data.params,
                               "tags": r.data.tags, "metrics": r.data.metrics, "history": hist,
                               "start_time": r.info.start_time}
json.dump(runs, open(out, "w"))
"""
ENV = {**os.environ, "MLFLOW_ALLOW_FILE_STORE": "true", "GIT_PYTHON_REFRESH": "quiet"}


def _mlflow(args: list[str], cwd: Path) -> None:
    subprocess.run(
        [sys.executable, *args], check=True, env=ENV, cwd=cwd, timeout=300, capture_output=True
    )


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict:
    try:
        import mlflow  # noqa: F401
        import sqlalchemy  # noqa: F401
    except ImportError:
        need(False, "mlflow-skinny and SQLAlchemy (test extra) are not installed")
    base = tmp_path_factory.mktemp("mlflow-sqlite")
    (base / "files").mkdir()
    _mlflow(["-c", WRITER, f"file://{base / 'files' / 'mlruns'}", str(base / "f.json")], base)
    migrate = ["-m", "mlflow", "migrate-filestore", "--source", str(base / "files")]
    _mlflow([*migrate, "--target", f"sqlite:///{base / 'migrated.db'}", "--no-progress"], base)
    _mlflow(["-c", WRITER, f"sqlite:///{base / 'native.db'}", str(base / "oracle.json")], base)
    return {
        "mlruns": base / "files" / "mlruns",
        "migrated": base / "migrated.db",
        "native": base / "native.db",
        "oracle": json.loads((base / "oracle.json").read_text()),
    }


@pytest.mark.slow
def test_database_gives_the_documents_of_its_file_store(stores) -> None:
    """``mlflow migrate-filestore`` keeps run and experiment ids: the database and the
    folder it came from are the same runs, so the same documents (IRI, source key,
    triples); the deleted run is in neither."""
    folder = import_path(stores["mlruns"], "mlflow")
    database = import_path(stores["migrated"], "mlflow")
    assert len(runs_by_id(folder)) == 6
    assert [(d.kind, d.source_key, d.iri) for d in database] == [
        (d.kind, d.source_key, d.iri) for d in folder
    ]
    for a, b in zip(database, folder, strict=True):
        assert a.source_bytes == b.source_bytes
        assert isomorphic(a.graph, b.graph)
    # the stability observations of the seeds come along, as from the folder
    assert [d.kind for d in database].count("stability") == 1
    # MLflow's migration leaves the database in write-ahead-log mode; its bytes (an upload)
    # are read from an in-memory copy all the same
    data = stores["migrated"].read_bytes()
    assert data[18:20] == b"\x02\x02"
    assert [d.iri for d in load_source("migrated.db", data)] == [d.iri for d in folder]


@pytest.mark.slow
def test_values_equal_what_mlflow_reads(stores) -> None:
    oracle = stores["oracle"]
    data = stores["native"].read_bytes()
    docs = load_source("mlflow.db", data)  # sniffed by its header, read from a copy
    runs = runs_by_id(docs)
    assert set(runs) == set(oracle) and len(runs) == 6
    for run_id, want in oracle.items():
        doc = runs[run_id]
        for name, v in scores_of_run_as_mlflow_reads(doc, want).items():
            got, expected = float(doc.graph.value(v, MLS.hasValue)), want["metrics"][name]
            assert got == expected or (math.isnan(got) and math.isnan(expected))
            hist = json.loads(str(doc.graph.value(v, RDF.value)))
            got_hist = [[h["step"], h["timestamp"], h["value"]] for h in hist]
            assert json.dumps(got_hist) == json.dumps(want["history"][name])  # NaN as NaN
    # the file opened read-only gives the same documents as its bytes
    assert [d.iri for d in import_path(stores["native"], "mlflow")] == [d.iri for d in docs]


@pytest.mark.slow
def test_the_database_file_is_never_written(stores, tmp_path: Path) -> None:
    db = stores["native"]
    before = (hashlib.sha256(db.read_bytes()).hexdigest(), db.stat().st_mtime_ns)
    siblings = set(db.parent.iterdir())
    assert main(["import", "mlflow", str(db), "--store", str(tmp_path / "a")]) == 0
    assert main(["load", "--store", str(tmp_path / "b"), str(db)]) == 0
    assert (hashlib.sha256(db.read_bytes()).hexdigest(), db.stat().st_mtime_ns) == before
    assert set(db.parent.iterdir()) == siblings  # no journal or -wal/-shm left behind


@pytest.mark.slow
def test_import_after_the_folder_is_unchanged(stores, tmp_path: Path) -> None:
    store = tmp_path / "kg"
    assert main(["import", "mlflow", str(stores["mlruns"]), "--store", str(store)]) == 0
    from reprokg.ingest import ingest
    from reprokg.store import open_store

    with open_store(store) as s:
        again = ingest(s, import_path(stores["migrated"], "mlflow"))
    assert {d.status for d in again.documents} == {"unchanged"}


@pytest.mark.slow
def test_a_corrupt_database_is_refused_naming_the_file(stores, tmp_path: Path) -> None:
    data = bytearray(stores["native"].read_bytes())
    page = int.from_bytes(data[16:18], "big") or 65536
    data[page : page * 6] = b"\xa5" * (page * 5)  # the b-tree pages after the schema's
    bad = tmp_path / "broken.db"
    bad.write_bytes(bytes(data))
    for read in (lambda: import_path(bad, "mlflow"), lambda: load_source(str(bad), bytes(data))):
        with pytest.raises(LoadError) as err:
            read()
        assert err.value.source == str(bad)
        assert "expected an MLflow tracking database" in str(err.value)


@pytest.mark.slow
def test_an_upload_is_parsed_in_the_workers(stores, tmp_path: Path) -> None:
    from reprokg.core.settings import Settings
    from reprokg.service.app import create_app
    from reprokg.store import open_store

    token = {"Authorization": "Bearer t"}
    store = open_store(tmp_path / "kg", blob_dir=tmp_path / "blobs")
    settings = Settings(write_token="t", access_log=False, parse_workers=1)
    data = stores["native"].read_bytes()
    with TestClient(create_app(settings, store=store)) as c:
        headers = {"Content-Type": "application/vnd.sqlite3", **token}
        r = c.post("/documents?name=mlflow.db", content=data, headers=headers)
        assert r.status_code == 201, r.text
        assert len(r.json()["documents"]) == 7  # 6 runs and their stability observations
        small = Settings(write_token="t", access_log=False, max_body_bytes=len(data) - 1)
    store.close()
    store = open_store(tmp_path / "kg2", blob_dir=tmp_path / "blobs2")
    with TestClient(create_app(small, store=store)) as c:
        r = c.post("/documents?name=mlflow.db", content=data, headers=headers)
        assert r.status_code == 413
    store.close()


def _database(path: Path, sql: str) -> bytes:
    with sqlite3.connect(path) as conn:
        conn.executescript(sql)
    conn.close()
    return path.read_bytes()


def test_another_sqlite_database_is_refused_with_what_was_expected(tmp_path: Path) -> None:
    db = tmp_path / "other.db"
    data = _database(
        db, "CREATE TABLE notes (id INTEGER, body TEXT); INSERT INTO notes VALUES (1, 'x');"
    )
    with pytest.raises(LoadError) as err:
        import_path(db, "mlflow")
    assert err.value.source == str(db)
    assert "experiments, runs, params, tags, metrics" in str(err.value)
    assert "its tables: notes" in str(err.value)
    with pytest.raises(LoadError) as sniffed:  # sniffed as nearly MLflow: its own error
        load_source(str(db), data)
    assert str(sniffed.value) == str(err.value)


def test_views_in_place_of_the_tables_are_refused(tmp_path: Path) -> None:
    """A crafted file cannot have a query run its own SQL: the tables must be tables."""
    names = ("experiments", "runs", "params", "tags", "metrics")
    views = "".join(
        f"CREATE VIEW {t} AS WITH RECURSIVE c(run_uuid) AS (SELECT 1 UNION ALL "
        f"SELECT run_uuid + 1 FROM c) SELECT run_uuid FROM c;"
        for t in names
    )
    db = tmp_path / "views.db"
    _database(db, views)
    with pytest.raises(LoadError) as err:
        import_path(db, "mlflow")
    assert "without MLflow's table(s) experiments, runs, params, tags, metrics" in str(err.value)


#: MLflow's run tables as its SQLAlchemy models declare them (the columns reprokg reads;
#: mlflow/store/tracking/dbmodels/models.py), for the checks that need no MLflow
MINIMAL = """
CREATE TABLE experiments (experiment_id INTEGER NOT NULL PRIMARY KEY,
    name VARCHAR(256) NOT NULL, artifact_location VARCHAR(256), lifecycle_stage VARCHAR(32));
CREATE TABLE runs (run_uuid VARCHAR(32) NOT NULL PRIMARY KEY, name VARCHAR(250),
    user_id VARCHAR(256), status VARCHAR(9), start_time BIGINT, end_time BIGINT,
    lifecycle_stage VARCHAR(20), artifact_uri VARCHAR(200), experiment_id INTEGER);
CREATE TABLE params ("key" VARCHAR(250) NOT NULL, value VARCHAR(8000) NOT NULL,
    run_uuid VARCHAR(32) NOT NULL);
CREATE TABLE tags ("key" VARCHAR(250) NOT NULL, value VARCHAR(8000),
    run_uuid VARCHAR(32) NOT NULL);
CREATE TABLE metrics ("key" VARCHAR(250) NOT NULL, value FLOAT NOT NULL,
    timestamp BIGINT NOT NULL, run_uuid VARCHAR(32) NOT NULL,
    step BIGINT DEFAULT '0' NOT NULL, is_nan BOOLEAN DEFAULT '0' NOT NULL);
INSERT INTO experiments VALUES (0, 'Default', '', 'active'), (1, 'fewshot', '', 'active');
INSERT INTO runs VALUES ('0123456789abcdef0123456789abcdef', 'proto-7', 'ann', 'FINISHED',
    1700000000000, 1700000001000, 'active', '', 1);
INSERT INTO params VALUES ('seed', '7', '0123456789abcdef0123456789abcdef'),
    ('learning_rate', '0.001', '0123456789abcdef0123456789abcdef');
INSERT INTO tags VALUES ('mlflow.user', 'ann', '0123456789abcdef0123456789abcdef');
INSERT INTO metrics VALUES
    ('accuracy', 0.61, 1700000000001, '0123456789abcdef0123456789abcdef', 0, 0),
    ('accuracy', 0.64, 1700000000002, '0123456789abcdef0123456789abcdef', 1, 0);
"""


def test_crafted_values_are_refused_naming_the_field(tmp_path: Path) -> None:
    db = tmp_path / "mlflow.db"
    data = _database(db, MINIMAL)
    (run,) = (d for d in load_source(str(db), data) if d.kind == "run")
    assert float(run.graph.value(next(run.graph.objects(run.subject, RK.reportedScore)),
                                 MLS.hasValue)) == 0.64  # fmt: skip
    for fix, field in (
        ("UPDATE metrics SET step = 'one' WHERE step = 1", "metrics.accuracy"),
        ("UPDATE metrics SET value = 'high' WHERE step = 1", "metrics.accuracy"),
        ("UPDATE runs SET start_time = 99999999999999999", "start_time"),
    ):
        bad = tmp_path / "bad.db"
        bad.unlink(missing_ok=True)
        with pytest.raises(LoadError) as err:
            load_source(str(bad), _database(bad, MINIMAL + fix + ";"))
        assert err.value.field == field and str(bad) in str(err.value.source)


def test_corrupt_bytes_only_ever_give_load_errors(tmp_path: Path) -> None:
    """Bytes flipped anywhere after the magic: documents or a LoadError, never a crash."""
    import random

    data = _database(tmp_path / "mlflow.db", MINIMAL)
    assert [d.kind for d in load_source("mlflow.db", data, "mlflow")] == ["run", "stability"]
    rng = random.Random(32)
    refused = 0
    for i in range(60):
        bad = bytearray(data)
        for _ in range(rng.choice((1, 8, 64))):
            bad[rng.randrange(16, len(bad))] = rng.randrange(256)
        if i % 10 == 0:
            bad = bad[: rng.randrange(16, len(bad))]
        try:
            load_source(f"corrupt-{i}.db", bytes(bad), "mlflow")
        except LoadError:
            refused += 1
    assert refused > 0  # the corruption was seen, and only ever as a LoadError


def test_a_database_being_written_is_read_with_its_write_ahead_log(tmp_path: Path) -> None:
    """A process still writing in WAL mode keeps its last transactions in ``-wal``: the
    file opened where it lies reads them; its bytes alone cannot, and say so."""
    db = tmp_path / "mlflow.db"
    writer = sqlite3.connect(db)
    try:
        writer.execute("PRAGMA journal_mode = WAL")
        writer.execute("PRAGMA wal_autocheckpoint = 0")
        writer.executescript(MINIMAL)
        writer.execute(
            "INSERT INTO params VALUES ('late', 'x', '0123456789abcdef0123456789abcdef')"
        )
        writer.commit()
        (run,) = (d for d in import_path(db, "mlflow") if d.kind == "run")
        params = graph_to_dict(run.graph, run.subject)["method"]["parameters"]
        assert params == {"late": "x", "learning_rate": "0.001", "seed": "7"}
        with pytest.raises(LoadError) as err:
            load_source(str(db), db.read_bytes())
        assert "write-ahead-log mode" in str(err.value) and err.value.source == str(db)
    finally:
        writer.close()
