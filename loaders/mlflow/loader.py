"""MLflow tracking data -> one ``run`` document per MLflow run, and stability observations.

Four inputs give the same documents:

* an MLflow file store (``mlruns/``, what ``mlflow`` writes with a ``file:`` tracking URI):
  a folder (``reprokg import mlflow mlruns/``, read by :func:`load_folder`) or a ZIP
  of it (an upload), read one run folder at a time;
* an MLflow SQLite database (``mlflow.db``, MLflow 3's default ``sqlite:///mlflow.db``),
  read with the standard library's :mod:`sqlite3` (:mod:`reprokg.loaders.mlflow.sqlite`)
  into the same run records as a file store, so a store and the database it was migrated
  to (``mlflow migrate-filestore``) give the same documents;
* the MLflow REST API's ``runs/search`` answer (``{"runs": [{"info", "data"}]}``), with
  ``experiments`` from ``experiments/search`` where known (latest metric values only);
* the normalised records earlier versions wrote of a folder (``{"format": "reprokg-mlflow",
  …}``).

Every input is limited per run (each run is one document: ``max_nodes`` values), never
per store, so a store of any number of runs is read; a folder or ZIP is read one run at
a time.

Each run becomes PRIMAD (docs/exchange.md): the Implementation from the tags MLflow sets
(``mlflow.source.git.commit``, ``mlflow.source.git.repoURL``, ``mlflow.source.name``,
``mlflow.project.entryPoint``), the Method from the parameters, the Actor from
``mlflow.user``; its metrics are the run's reported scores (the latest value, as MLflow
shows it: the highest step, then the latest timestamp), each with its whole history. Runs
of an experiment whose parameters include a seed (or a repeat index) are also the
observations of one stability study (``stability`` document, the CSV format of
``loaders/stability.py``): experiment = the MLflow experiment, configuration = the other
parameters, one observation per metric, ready for ``reprokg stability``. Conditions
logged as parameters of one MLflow experiment (optimizer × seed) are experiments of their
own when the load's options name them (``reprokg import mlflow --experiment-from
optimizer``; :class:`~reprokg.loaders.reading.contract.LoadOptions`).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from rdflib import Literal
from rdflib.namespace import PROV, RDF, RDFS, XSD

from reprokg.core.document import Document
from reprokg.core.errors import InputTooLarge, LoadError
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import mint
from reprokg.core.namespaces import MLS, RK, SCHEMA
from reprokg.loaders.ir_metadata.tree import run_document
from reprokg.loaders.mlflow.sqlite import (
    is_sqlite,
    looks_like_mlflow,
    records_from_bytes,
    records_from_file,
)
from reprokg.loaders.reading.archive import is_zip, read_zip
from reprokg.loaders.reading.contract import Claim, LoaderInfo, load_options
from reprokg.loaders.reading.limits import check_records, current_limits
from reprokg.loaders.reading.source import decode_text, leaves, parse_json, read_bytes
from reprokg.loaders.reading.yaml_scalars import Scalar, parse_yaml

INFO = LoaderInfo(
    kind="mlflow",
    name="reprokg.loaders.mlflow",
    version="1",
    formats=("mlflow",),
    reads="an MLflow file store (mlruns/ or its ZIP), its SQLite database (mlflow.db) or "
    "runs/search JSON",
    options=("experiment_from",),
)
RECORDS = "reprokg-mlflow"
#: parameter names that are a run's random seed, and its repeat index
SEED_KEYS = ("seed", "random_seed", "random_state", "rng_seed")
REPEAT_KEYS = ("repeat", "repetition", "rep", "trial")
_HTTP = re.compile(r"^https?://\S+$", re.IGNORECASE)
_INT = re.compile(r"^[+-]?\d+$")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
#: MLflow's run states by the numbers a file store's meta.yaml writes (RunStatus)
_STATUS = {"1": "RUNNING", "2": "SCHEDULED", "3": "FINISHED", "4": "FAILED", "5": "KILLED"}


# --------------------------------------------------------------------------- reading stores


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, Scalar):
        return None if value.is_null else str(value)
    return value


def _meta(data: bytes, name: str) -> dict[str, Any]:
    tree = parse_yaml(decode_text(data, name), name)
    if not isinstance(tree, dict):
        raise LoadError("expected a YAML mapping (MLflow meta.yaml)", source=name, line=1)
    return _plain(tree)


def _metric_history(data: bytes, name: str) -> list[list[Any]]:
    """``timestamp value step`` lines -> [[step, timestamp, value], …] in file order."""
    out = []
    for i, line in enumerate(decode_text(data, name).splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) not in (2, 3) or not _INT.match(parts[0]):
            raise LoadError(
                f"expected 'timestamp value [step]' (MLflow metric line), got {line[:80]!r}",
                source=name,
                line=i,
            )
        try:
            value = float(parts[1])
        except ValueError:
            raise LoadError(f"{parts[1]!r} is not a number", source=name, line=i) from None
        step = int(parts[2]) if len(parts) == 3 and _INT.match(parts[2]) else 0
        out.append([step, int(parts[0]), value])
    return out


def _millis(value: Any) -> int | None:
    return int(value) if value is not None and _INT.match(str(value)) else None


def run_info(raw: dict[str, Any]) -> dict[str, Any]:
    """The fields of a run's info that every MLflow store records alike (a file store's
    meta.yaml, a database row, the REST API): the run's record, and so its document, is
    made of these. Where a store keeps its artifacts is left out, and the status is its
    name, so one run read from a folder, its ZIP or the database it was migrated to is one
    document."""

    def text(key: str) -> str | None:
        value = raw.get(key)
        return None if value is None else str(value)

    status = text("status")
    return {
        "run_id": text("run_id") or text("run_uuid"),
        "experiment_id": text("experiment_id"),
        "run_name": text("run_name"),
        "user_id": text("user_id"),
        "status": _STATUS.get(status, status) if status is not None else None,
        "start_time": _millis(raw.get("start_time")),
        "end_time": _millis(raw.get("end_time")),
        "lifecycle_stage": text("lifecycle_stage"),
    }


class _FolderFiles(Mapping[str, bytes]):
    """A store folder's files by their ``/``-separated path, each read (under the source
    size limit) only when asked for: a store is read one run at a time."""

    def __init__(self, root: Path, paths: dict[str, Path]) -> None:
        self.root, self.paths = root, paths

    def __getitem__(self, rel: str) -> bytes:
        return read_bytes(self.paths[rel])[0]

    def __iter__(self) -> Iterator[str]:
        return iter(self.paths)

    def __len__(self) -> int:
        return len(self.paths)


def records_from_files(files: Mapping[str, bytes], name: str) -> dict[str, Any]:
    """The normalised records of a file store given as path -> bytes (paths relative to the
    store's root, ``/``-separated; a single top folder, as in a ZIP of ``mlruns/``, is
    stripped). The experiments are read at once; the runs (``"runs"``) are a generator
    reading one run folder's files at a time, so a store of any number of runs is read
    in the memory of one run, each run under the node limit of one document."""
    paths = sorted(files)
    tops = {p.split("/", 1)[0] for p in paths}
    prefix = ""
    if len(tops) == 1 and not any(p.count("/") == 1 and p.endswith("/meta.yaml") for p in paths):
        prefix = f"{next(iter(tops))}/"
        paths = [p for p in paths if "/" in p]
    experiments: dict[str, dict[str, Any]] = {}
    has_runs = False
    for path in paths:
        parts = path[len(prefix) :].split("/")
        if parts[0] in (".trash", "models") or len(parts) < 2:
            continue
        if len(parts) == 2 and parts[1] == "meta.yaml":
            meta = _meta(files[path], f"{name}!{path}")
            experiments[parts[0]] = {
                "experiment_id": str(meta.get("experiment_id", parts[0])),
                "name": str(meta.get("name", parts[0])),
                "lifecycle_stage": meta.get("lifecycle_stage"),
            }
        elif len(parts) >= 3:
            has_runs = True
    if not experiments and not has_runs:
        raise LoadError(
            "no MLflow experiment (<id>/meta.yaml) or run (<id>/<run>/meta.yaml) found; "
            "expected an MLflow file store (mlruns/)",
            source=name,
        )
    return {
        "format": RECORDS,
        "experiments": [e for _k, e in sorted(experiments.items())],
        "runs": _store_runs(files, paths, prefix, name),
    }


def _store_runs(
    files: Mapping[str, bytes], paths: list[str], prefix: str, name: str
) -> Iterator[dict[str, Any]]:
    """The runs of a file store, one run folder at a time (sorted paths keep each run's
    files together), deleted runs left out."""
    current: tuple[str, str] | None = None
    run: dict[str, Any] = {}
    for path in [*paths, None]:
        parts = path[len(prefix) :].split("/") if path is not None else []
        if path is not None and (parts[0] in (".trash", "models") or len(parts) < 3):
            continue
        key = (parts[0], parts[1]) if path is not None else None
        if key != current:
            if current is not None and (done := _finish_run(run, current, prefix, name)):
                yield done
            current, run = key, {"info": {}, "params": {}, "tags": {}, "metrics": {}}
        if path is None:
            break
        where = f"{name}!{path}"
        section, rest = parts[2], "/".join(parts[3:])
        if section == "meta.yaml" and not rest:
            run["info"] = _meta(files[path], where)
        elif section == "params" and rest:
            run["params"][rest] = decode_text(files[path], where)
        elif section == "tags" and rest:
            run["tags"][rest] = decode_text(files[path], where)
        elif section == "metrics" and rest:
            run["metrics"][rest] = _metric_history(files[path], where)


def _finish_run(
    run: dict[str, Any], at: tuple[str, str], prefix: str, name: str
) -> dict[str, Any] | None:
    """A run folder's record once all its files are read; ``None`` for a deleted run."""
    exp, run_dir = at
    info = run["info"]
    if not info:
        raise LoadError(
            "run folder without meta.yaml; expected an MLflow file store",
            source=f"{name}!{prefix}{exp}/{run_dir}",
        )
    if info.get("lifecycle_stage") == "deleted":
        return None
    info.setdefault("experiment_id", exp)
    run["info"] = run_info(info)
    check_run_size(run, f"{name}!{prefix}{exp}/{run_dir}")
    return run


def check_run_size(run: dict[str, Any], name: str) -> None:
    """Refuse a run of more than ``max_nodes`` values (its parameters, tags and every
    logged metric value): the node limit of one document, which a run is."""
    limit = current_limits().max_nodes
    size = 2 * (len(run["info"]) + len(run["params"]) + len(run["tags"])) + sum(
        2 + 4 * len(h) for h in run["metrics"].values()
    )
    if size > limit:
        raise InputTooLarge(
            f"the run holds about {size} values (parameters, tags, logged metric values); "
            f"the limit of one document is {limit} (max_nodes)",
            limit="nodes",
            value=limit,
            source=name,
        )


def store_folder_files(path: str | Path, skipped: list[LoadError] | None = None) -> _FolderFiles:
    """An MLflow file store folder's files (artifacts, trash and models left out), read
    when asked for, each under the source size limit.

    A symbolic link that leads outside the folder (``params/x -> /etc/passwd``) is never
    followed: it is added to ``skipped`` (named), and nothing outside the store is read."""
    root = Path(path)
    found: dict[str, Path] = {}
    for f in sorted(root.rglob("*")):
        rel = f.relative_to(root).as_posix()
        if rel.split("/", 1)[0] in (".trash", "models"):
            continue
        parts = rel.split("/")
        if len(parts) >= 3 and parts[2] == "artifacts":
            continue
        if f.is_symlink() and (out := leaves(root, f)) is not None:
            if skipped is not None:
                skipped.append(out)
            continue
        if not f.is_file():
            continue
        found[rel] = f
    return _FolderFiles(root, found)


def load_folder(path: Path, skipped: list[LoadError] | None = None) -> list[Document]:
    """The documents of an MLflow file store folder (``mlruns/``), read run by run."""
    return documents(records_from_files(store_folder_files(path, skipped), str(path)), f"{path}/")


def _pairs(value: Any, name: str, where: str) -> dict[str, str]:
    """``[{key, value}]`` (the REST API) or ``{key: value}`` (``Run.to_dictionary()``)."""
    if value is None:
        return {}
    if isinstance(value, dict):
        return {str(k): str(v) for k, v in value.items()}
    if isinstance(value, list) and all(isinstance(p, dict) and "key" in p for p in value):
        return {str(p["key"]): str(p.get("value", "")) for p in value}
    raise LoadError("expected a list of {key, value}", source=name, field=where)


def _metrics(value: Any, name: str, i: int) -> dict[str, dict[str, Any]]:
    if value is None:
        return {}
    if isinstance(value, dict):
        return {str(k): {"value": v} for k, v in value.items()}
    if isinstance(value, list) and all(isinstance(m, dict) and "key" in m for m in value):
        return {str(m["key"]): m for m in value}
    raise LoadError(
        "expected a list of {key, value, timestamp, step}",
        source=name,
        field=f"runs[{i}].data.metrics",
    )


def _from_rest(doc: dict[str, Any], name: str) -> dict[str, Any]:
    """The REST API's ``runs/search`` answer as records (latest metric values only)."""
    runs = []
    for i, r in enumerate(doc.get("runs") or []):
        if not isinstance(r, dict) or not isinstance(r.get("info"), dict):
            raise LoadError("expected {info, data} per run", source=name, field=f"runs[{i}]")
        data = r.get("data") or {}
        runs.append(
            {
                "info": run_info(r["info"]),
                "params": _pairs(data.get("params"), name, f"runs[{i}].data.params"),
                "tags": _pairs(data.get("tags"), name, f"runs[{i}].data.tags"),
                "metrics": {
                    k: [[int(m.get("step", 0)), int(m.get("timestamp", 0)), float(m["value"])]]
                    for k, m in _metrics(data.get("metrics"), name, i).items()
                },
            }
        )
    exps = [
        {"experiment_id": str(e.get("experiment_id")), "name": str(e.get("name"))}
        for e in doc.get("experiments") or []
        if isinstance(e, dict)
    ]
    return {"format": RECORDS, "experiments": exps, "runs": runs}


def read_records(data: bytes, name: str) -> dict[str, Any]:
    """The run records of an upload's or a file's bytes: a ZIP of a file store, an SQLite
    database, the REST API's JSON or the records themselves (the node limit per run)."""
    if is_sqlite(data):
        return _database_records(records_from_bytes(data, name))
    if is_zip(data):
        members = read_zip(
            data,
            name,
            lambda m: "/artifacts/" not in f"/{m}" and not m.startswith((".trash/", "models/")),
        )
        return records_from_files(members, name)
    doc = parse_json(decode_text(data, name), name, per_record=True)
    if isinstance(doc, dict) and isinstance(doc.get("runs"), list):
        check_records(doc["runs"], name, "runs")
        if isinstance(doc.get("experiments"), list):
            check_records(doc["experiments"], name, "experiments")
        if doc.get("format") == RECORDS:
            return doc
        return _from_rest(doc, name)
    raise LoadError(
        "expected an MLflow file store (a ZIP of mlruns/), an MLflow SQLite database "
        "(mlflow.db) or the REST API's runs/search JSON "
        '({"runs": [{"info": …, "data": …}]})',
        source=name,
    )


def sniff(name: str, head: str) -> bool:
    """MLflow REST JSON (runs with ``run_id``/``run_uuid`` infos) or reprokg's records."""
    if f'"format": "{RECORDS}"' in head:
        return True
    return (
        name.endswith(".json")
        and '"runs"' in head
        and '"info"' in head
        and ('"run_id"' in head or '"run_uuid"' in head)
    )


def _database_records(found: dict[str, Any]) -> dict[str, Any]:
    """An MLflow database's experiments and runs as the records a file store gives."""
    runs = [{**run, "info": run_info(run["info"])} for run in found["runs"]]
    return {"format": RECORDS, "experiments": found["experiments"], "runs": runs}


def is_database(head: bytes) -> bool:
    """An SQLite database file, by its first bytes (``mlflow.db``)."""
    return is_sqlite(head)


def load_database(path: Path) -> list[Document]:
    """The documents of an MLflow SQLite database file, opened read-only where it lies
    (``reprokg import mlflow mlflow.db``; a ``-wal`` file beside it is read too)."""
    return documents(_database_records(records_from_file(path)), str(path))


def sniff_bytes(name: str, data: bytes) -> Claim:
    """A binary source: an SQLite database naming MLflow's run tables is an MLflow store;
    any other SQLite database nearly is (so the user reads which tables were expected)."""
    if not is_sqlite(data):
        return Claim.NO
    return Claim.YES if looks_like_mlflow(data) else Claim.NEAR


# --------------------------------------------------------------------------- runs -> PRIMAD


def latest(history: list[list[Any]]) -> float:
    """MLflow's latest value: the highest step, then the latest timestamp."""
    return max(history, key=lambda h: (h[0], h[1]))[2]


def _run_id(run: dict[str, Any]) -> str:
    info = run["info"]
    return str(info.get("run_id") or info.get("run_uuid") or "")


def run_tree(run: dict[str, Any]) -> dict[str, Any]:
    """A run's PRIMAD from what MLflow records."""
    info, tags, params = run["info"], run["tags"], run["params"]
    tree: dict[str, Any] = {
        "tag": tags.get("mlflow.runName") or info.get("run_name") or _run_id(run)
    }
    source: dict[str, Any] = {}
    if tags.get("mlflow.source.git.repoURL") and _HTTP.match(tags["mlflow.source.git.repoURL"]):
        source["repository"] = tags["mlflow.source.git.repoURL"]
    if tags.get("mlflow.source.git.commit"):
        source["commit"] = tags["mlflow.source.git.commit"]
    impl: dict[str, Any] = {}
    if source:
        impl["source"] = source
    entry = tags.get("mlflow.project.entryPoint")
    src_name = tags.get("mlflow.source.name")
    if src_name and src_name != "-":
        impl["executable"] = {"cmd": src_name + (f" {entry}" if entry else "")}
    if impl:
        tree["implementation"] = impl
    if params:
        tree["method"] = {"parameters": {k: params[k] for k in sorted(params)}}
    user = tags.get("mlflow.user") or info.get("user_id")
    if user:
        tree["actor"] = {"name": str(user)}
    return tree


def _add_mlflow_facts(doc: Document, run: dict[str, Any], experiment: str) -> None:
    g, node = doc.graph, doc.subject
    assert node is not None  # the run's document always names the run
    info = run["info"]
    run_id = _run_id(run)
    g.add((node, SCHEMA.identifier, Literal(run_id)))
    exp = mint("mlflow-experiment", stable_key(experiment, info.get("experiment_id")))
    g.add((node, SCHEMA.isPartOf, exp))
    g.add((exp, RDF.type, SCHEMA.Collection))
    g.add((exp, SCHEMA.name, Literal(experiment)))
    g.add((exp, SCHEMA.identifier, Literal(str(info.get("experiment_id")))))
    for key, pred in (("start_time", PROV.startedAtTime), ("end_time", PROV.endedAtTime)):
        ms = info.get(key)
        if ms is not None and _INT.match(str(ms)):
            from datetime import UTC, datetime

            try:
                when = datetime.fromtimestamp(int(ms) / 1000, UTC).isoformat()
            except (OverflowError, ValueError, OSError):
                raise LoadError(
                    f"{ms} is not a time MLflow records (milliseconds since 1970)",
                    source=doc.source_name,
                    field=key,
                ) from None
            when = when.replace("+00:00", "Z")
            g.add((node, pred, Literal(when, datatype=XSD.dateTime)))
    for name in sorted(run["metrics"]):
        history = run["metrics"][name]
        if not history:
            continue
        v = mint("run", f"{stable_key(run_id, experiment)}/metric/{stable_key(name)}")
        g.add((node, RK.reportedScore, v))
        g.add((v, RDF.type, RK.MeasureValue))
        g.add((v, RDF.type, MLS.ModelEvaluation))
        g.add((v, RK.measureName, Literal(name)))
        g.add((v, MLS.hasValue, Literal(repr(float(latest(history))), datatype=XSD.double)))
        g.add((v, RDFS.comment, Literal(f"MLflow metric {name}: the latest of {len(history)}")))
        hist = json.dumps([{"step": s, "timestamp": t, "value": x} for s, t, x in history])
        g.add((v, RDF.value, Literal(hist, datatype=RDF.JSON)))


# --------------------------------------------------------------------------- stability


def _param(params: dict[str, str], keys: tuple[str, ...]) -> tuple[str | None, str | None]:
    for k in keys:
        if k in params:
            return k, params[k]
    return None, None


#: one stability observation: experiment, seed, repeat, metric, value, hyper-parameters
Observation = tuple[str, str | None, str | None, str, str, dict[str, str]]


def observations(
    run: dict[str, Any], experiment: str, experiment_from: Sequence[str] = ()
) -> list[Observation]:
    """A run's stability observations when it names a seed (or a repeat index), else none:
    one per metric (the latest value). The experiment is the MLflow experiment, and with
    ``experiment_from`` the values of those parameters too (``exp-1 optimizer=adam``):
    conditions logged as parameters of one MLflow experiment become experiments of their
    own; the other parameters are the configuration."""
    params = run["params"]
    seed_key, seed = _param(params, SEED_KEYS)
    repeat_key, repeat = _param(params, REPEAT_KEYS)
    if seed is None and repeat is None:
        return []
    if (seed is not None and not _INT.match(seed)) or (
        repeat is not None and not _INT.match(repeat)
    ):
        return []
    if experiment_from:
        experiment = " ".join(
            [experiment] + [f"{p}={params.get(p, '(not logged)')}" for p in experiment_from]
        )
    hps = {
        k: v
        for k, v in params.items()
        if k not in (seed_key, repeat_key) and k not in experiment_from
    }
    out: list[Observation] = []
    for metric in sorted(run["metrics"]):
        history = run["metrics"][metric]
        if not history or not _NUMBER.match(repr(latest(history))):
            continue
        out.append((experiment, seed, repeat, metric, repr(float(latest(history))), hps))
    return out


def stability_csv(rows: list[Observation], title: str) -> bytes | None:
    """The stability observations as the CSV of loaders/stability.py, or ``None``."""
    if not rows:
        return None
    hp_cols = sorted({h for row in rows for h in row[5]})
    buf = io.StringIO()
    buf.write("# stability: 1\n")
    buf.write(f"# title: {title}\n")
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(
        ["experiment", "algorithm", "seed", "repeat", "metric", "value"]
        + [f"hp.{h}" for h in hp_cols]
    )
    for exp, seed, repeat, metric, value, hps in sorted(rows, key=lambda r: r[:4]):
        w.writerow(
            [exp, exp, seed or "", repeat or "", metric, value] + [hps.get(h, "") for h in hp_cols]
        )
    return buf.getvalue().encode("utf-8")


# --------------------------------------------------------------------------- the loader


def load(data: bytes, name: str) -> list[Document]:
    return documents(read_records(data, name), name)


def documents(records: dict[str, Any], name: str) -> list[Document]:
    """The documents of the run records of any input (one code path for every store), run
    by run: a run's record is dropped once its document is made. The parameters that
    define an experiment are the load's options (:func:`load_options`)."""
    experiment_from = load_options().experiment_from
    names = {str(e["experiment_id"]): str(e["name"]) for e in records.get("experiments", [])}
    docs = []
    rows: list[Observation] = []
    seen: set[str] = set()
    for run in records["runs"]:
        exp_id = str(run["info"].get("experiment_id"))
        experiment = names.get(exp_id, exp_id)
        seen.add(names.get(exp_id, ""))
        run_id = _run_id(run)
        record = json.dumps(
            {"format": "mlflow-run", "experiment": experiment, **run},
            sort_keys=True,
            ensure_ascii=False,
        ).encode("utf-8")
        doc = run_document(
            run_tree(run),
            name=f"{name}#{exp_id}/{run_id}",
            record=record,
            source_key=f"mlflow:{experiment}:{run_id}",
            producer=INFO,
        )
        _add_mlflow_facts(doc, run, experiment)
        docs.append(doc)
        rows += observations(run, experiment, experiment_from)
    title = f"MLflow runs by seed: {', '.join(e for e in sorted(seen) if e)}"
    csv_bytes = stability_csv(rows, title)
    if csv_bytes is not None:
        from reprokg.loaders.stability import load as load_stability

        for doc in load_stability(csv_bytes, f"{PurePosixPath(name).name}.stability.csv"):
            doc.loader, doc.loader_version = INFO.name, INFO.version
            docs.append(doc)
    return docs
