"""MLflow's SQLite tracking database (``mlflow.db``) -> the run records a file store gives.

MLflow 3 tracks to ``sqlite:///mlflow.db`` by default (its SQLAlchemy store). The tables
read are those MLflow's schema has had since 1.x: ``experiments``, ``runs``, ``params``,
``tags``, ``metrics`` (every logged value: the history) and ``latest_metrics`` (the value
MLflow shows). Each run becomes the record :func:`reprokg.loaders.mlflow.records_from_files`
builds from a folder (``{info, params, tags, metrics: {key: [[step, timestamp, value]]}}``,
the info as the database has it, which :func:`reprokg.loaders.mlflow.run_info` normalises
for every store), so one code path makes the documents, and a file store and the database
it was migrated to (``mlflow migrate-filestore``) give the same documents.

The database is read with the standard library's :mod:`sqlite3` and never written: bytes
(an upload, ``reprokg load``) are copied into an in-memory database; a file
(``reprokg import mlflow mlflow.db``) is opened read-only (``file:…?mode=ro``). Either is
at most ``max_source_bytes``; a write-ahead log, shared-memory or journal file beside it
that is a symbolic link out of its folder is refused. Only real tables are read (a crafted
file's views or triggers are refused, ``trusted_schema`` off), with plain scans, so the
work grows with the file's size; over HTTP the parse workers' time and memory limits bound
it as well.
"""

from __future__ import annotations

import math
import sqlite3
import stat
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any
from urllib.parse import quote

from reprokg.core.errors import LoadError
from reprokg.core.settings import settings
from reprokg.loaders.reading.source import leaves

#: the first bytes of every SQLite 3 database file
SQLITE_MAGIC = b"SQLite format 3\x00"
#: the tables of MLflow's tracking schema that hold runs (``latest_metrics`` is optional:
#: databases written before MLflow 1.9 lack it)
TABLES = ("experiments", "runs", "params", "tags", "metrics")
EXPECTED = (
    "expected an MLflow tracking database (mlflow.db, MLflow's sqlite:/// store) with the "
    f"tables {', '.join(TABLES)}"
)
#: database header bytes 18 and 19: 1 = rollback journal, 2 = write-ahead log
_WAL = b"\x02\x02"


def is_sqlite(data: bytes) -> bool:
    """An SQLite database file, by its header (what MLflow's ``sqlite:///`` store writes)."""
    return data[: len(SQLITE_MAGIC)] == SQLITE_MAGIC


def looks_like_mlflow(data: bytes) -> bool:
    """The schema text of an MLflow database names its run tables (``run_uuid`` columns,
    ``latest_metrics``), without opening it."""
    return b"run_uuid" in data and b"experiments" in data


def records_from_bytes(data: bytes, name: str) -> dict[str, Any]:
    """The run records of an SQLite database given as bytes (an upload), read from an
    in-memory copy."""
    limit = settings().max_source_bytes
    if len(data) > limit:
        raise LoadError(f"input is {len(data)} bytes; the limit is {limit} bytes", source=name)
    copy = bytearray(data)
    wal = copy[18:20] == _WAL
    if wal:  # a copy has no -wal file: read it as a rollback-journal database
        copy[18:20] = b"\x01\x01"
    conn = sqlite3.connect(":memory:")
    with closing(conn):
        try:
            conn.deserialize(copy)
        except sqlite3.Error as exc:
            raise LoadError(
                f"not a readable SQLite database ({exc}); {EXPECTED}", source=name
            ) from None
        conn.execute("PRAGMA query_only = ON")
        try:
            return read_database(conn, name)
        except LoadError as exc:
            if wal:
                exc.message += (
                    "; the database is in write-ahead-log mode, and what is still in its "
                    "-wal file is not in these bytes (reprokg import mlflow FILE reads the "
                    "file where it lies)"
                )
            raise


def records_from_file(path: str | Path) -> dict[str, Any]:
    """The run records of an SQLite database file, opened read-only (``mode=ro``: SQLite
    neither writes it nor creates a journal next to it)."""
    path = Path(path)
    name = str(path)
    limit = settings().max_source_bytes
    try:
        st = path.stat()
    except OSError as exc:
        raise LoadError(f"cannot read file: {exc.strerror}", source=name) from None
    if not stat.S_ISREG(st.st_mode):
        raise LoadError("not a regular file; expected an SQLite database file", source=name)
    if st.st_size > limit:
        raise LoadError(f"file is {st.st_size} bytes; the limit is {limit} bytes", source=name)
    real = path.resolve()
    for suffix in ("-wal", "-shm", "-journal"):  # what SQLite opens beside the database
        side = real.with_name(real.name + suffix)
        if side.is_symlink() and (out := leaves(real.parent, side)) is not None:
            raise out
    uri = f"file:{quote(str(real))}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise LoadError(f"cannot open the database read-only ({exc})", source=name) from None
    with closing(conn):
        return read_database(conn, name)


def _rows(conn: sqlite3.Connection, sql: str, name: str) -> Iterator[tuple[Any, ...]]:
    try:
        yield from conn.execute(sql)
    except (sqlite3.Error, UnicodeDecodeError) as exc:
        # MLflow writes UTF-8 text; other bytes are a damaged or crafted file
        raise LoadError(
            f"cannot read the database ({exc}); {EXPECTED}", source=name, field=_table(sql)
        ) from None


def _table(sql: str) -> str:
    words = sql.replace("(", " ").replace(")", " ").split()
    return words[words.index("FROM") + 1] if "FROM" in words else words[-1]


def _columns(conn: sqlite3.Connection, table: str, name: str) -> set[str]:
    return {str(r[1]) for r in _rows(conn, f"PRAGMA table_info({table})", name)}


def _select(
    conn: sqlite3.Connection,
    table: str,
    wanted: dict[str, str | None],
    name: str,
    order: str = "",
) -> Iterator[tuple[Any, ...]]:
    """``wanted`` columns of ``table`` (column -> its value where the schema lacks it, or
    ``None`` when it must be there)."""
    have = _columns(conn, table, name)
    cols = []
    for col, default in wanted.items():
        if col in have:
            cols.append(f'"{col}"')
        elif default is not None:
            cols.append(default)
        else:
            raise LoadError(f"table {table} has no column {col}; {EXPECTED}", source=name)
    yield from _rows(conn, f"SELECT {', '.join(cols)} FROM {table}{order}", name)


def _number(value: Any, is_nan: Any, name: str, where: str) -> float:
    """A stored metric value as MLflow reads it back (``is_nan``: a NaN, stored as 0)."""
    if is_nan:
        return math.nan
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise LoadError(f"{value!r} is not a number", source=name, field=where)


def _point(row: tuple[Any, ...], name: str, where: str) -> list[Any]:
    """``[step, timestamp, value]`` of a metric row (a crafted file may hold any type)."""
    _run, _key, step, ts, value, is_nan = row
    out: list[Any] = []
    for what, v in (("step", step), ("timestamp", ts)):
        if v is None:
            v = 0
        if not isinstance(v, int) or isinstance(v, bool):
            raise LoadError(f"{what} {v!r} is not an integer", source=name, field=where)
        out.append(v)
    return [*out, _number(value, is_nan, name, where)]


def read_database(conn: sqlite3.Connection, name: str) -> dict[str, Any]:
    """The experiments and runs of an open MLflow database: active experiments and their
    active runs, ordered as a file store's folders are."""
    try:
        conn.execute("PRAGMA trusted_schema = OFF")
        found = dict(
            conn.execute("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')")
        )
    except (sqlite3.Error, UnicodeDecodeError) as exc:
        raise LoadError(
            f"not a readable SQLite database ({exc}); {EXPECTED}", source=name
        ) from None
    missing = [t for t in TABLES if found.get(t) != "table"]
    if missing:
        seen = ", ".join(sorted(t for t, kind in found.items() if kind == "table")) or "none"
        raise LoadError(
            f"an SQLite database without MLflow's table(s) {', '.join(missing)} "
            f"(its tables: {seen[:300]}); {EXPECTED}",
            source=name,
        )
    experiments = {}
    for exp_id, exp_name, stage in _select(
        conn,
        "experiments",
        {"experiment_id": None, "name": None, "lifecycle_stage": "NULL"},
        name,
    ):
        if stage != "deleted":
            experiments[str(exp_id)] = {
                "experiment_id": str(exp_id),
                "name": str(exp_name),
                "lifecycle_stage": stage,
            }
    runs: dict[str, dict[str, Any]] = {}
    wanted_run = {
        "run_uuid": None,
        "experiment_id": None,
        "name": "NULL",
        "user_id": "NULL",
        "status": "NULL",
        "start_time": "NULL",
        "end_time": "NULL",
        "lifecycle_stage": "NULL",
    }
    for run_uuid, exp_id, run_name, user, status, start, end, stage in _select(
        conn, "runs", wanted_run, name
    ):
        if stage == "deleted" or str(exp_id) not in experiments:
            continue
        info = {
            "run_id": run_uuid,
            "experiment_id": exp_id,
            "run_name": run_name,
            "user_id": user,
            "status": status,
            "start_time": start,
            "end_time": end,
            "lifecycle_stage": stage,
        }
        runs[str(run_uuid)] = {
            "info": info,
            "params": {},
            "tags": {},
            "metrics": {},
        }
    for table in ("params", "tags"):
        for run_uuid, key, value in _select(
            conn, table, {"run_uuid": None, "key": None, "value": None}, name
        ):
            if str(run_uuid) in runs:
                runs[str(run_uuid)][table][str(key)] = "" if value is None else str(value)
    metric_cols: dict[str, str | None] = {
        "run_uuid": None,
        "key": None,
        "step": "0",
        "timestamp": "0",
        "value": None,
        "is_nan": "0",
    }
    # MLflow's client reads a history in this order (timestamp, step, value)
    order = ' ORDER BY run_uuid, "key", timestamp, step, value'
    for row in _select(conn, "metrics", metric_cols, name, order):
        run = runs.get(str(row[0]))
        if run is not None:
            point = _point(row, name, f"metrics.{row[1]}")
            run["metrics"].setdefault(str(row[1]), []).append(point)
    if found.get("latest_metrics") == "table":
        # a latest value without a history (not written by MLflow itself) is a history of one
        for row in _select(conn, "latest_metrics", metric_cols, name):
            run = runs.get(str(row[0]))
            if run is not None and str(row[1]) not in run["metrics"]:
                run["metrics"][str(row[1])] = [_point(row, name, f"latest_metrics.{row[1]}")]
    ordered = sorted(
        runs.values(), key=lambda r: (str(r["info"]["experiment_id"]), str(r["info"]["run_id"]))
    )
    if not experiments and not ordered:
        raise LoadError(f"the database holds no experiment; {EXPECTED}", source=name)
    return {
        "experiments": [e for _k, e in sorted(experiments.items())],
        "runs": ordered,
    }
