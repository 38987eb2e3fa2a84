"""Reading data sets and graphs for the intrinsic dimension: CSV, .npy, .npz, edge lists.

Errors are ``LoadError``s naming the file and, where it helps, the column or line, so the
user knows what to change (docs/architecture.md, Design decisions, Validation).
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from reprokg.core.errors import LoadError


@dataclass(frozen=True)
class Table:
    """A numeric data matrix with its feature names and provenance (name, sha256)."""

    values: np.ndarray
    names: list[str]
    source: str
    sha256: str

    @property
    def n(self) -> int:
        return int(self.values.shape[0])

    @property
    def d(self) -> int:
        return int(self.values.shape[1])


def _read_file(path: Path, source: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError as exc:
        raise LoadError("no such file", source=source) from exc
    except OSError as exc:
        raise LoadError(f"cannot read the file: {exc.strerror or exc}", source=source) from exc


def _digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def read_data(
    path: str | Path,
    *,
    columns: Sequence[str] | None = None,
    array: str | None = None,
    raw: bytes | None = None,
    name: str | None = None,
) -> Table:
    """Read a data matrix by file suffix: .csv (header row), .npy or .npz.

    ``columns`` chooses features (CSV header names; for arrays, column indices as
    strings); ``array`` names the member of an .npz holding several arrays. ``raw`` lets a
    caller (an upload) hand over the bytes instead of a file.
    """
    p = Path(path)
    source = name or str(path)
    data = _read_file(p, source) if raw is None else raw
    suffix = p.suffix.lower()
    if suffix == ".npy":
        table = _from_array(_load_npy(data, source), source, columns)
    elif suffix == ".npz":
        table = _from_array(_load_npz(data, source, array), source, columns)
    elif suffix in {".csv", ".txt", ".tsv"}:
        table = _read_csv(data, source, columns, sep="\t" if suffix == ".tsv" else ",")
    else:
        raise LoadError(
            f"unknown data format {suffix or '(no suffix)'!r}; expected .csv, .npy or .npz",
            source=source,
        )
    return Table(table.values, table.names, source, _digest(data))


def _read_csv(data: bytes, source: str, columns: Sequence[str] | None, sep: str) -> Table:
    import pandas as pd  # only for tables: .npy/.npz need numpy alone

    try:
        frame = pd.read_csv(io.BytesIO(data), sep=sep, skipinitialspace=True)
    except pd.errors.EmptyDataError as exc:
        raise LoadError(
            "the file is empty; expected a header row and data rows", source=source
        ) from exc
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise LoadError(f"not a readable CSV table: {exc}", source=source) from exc
    names = [str(c) for c in frame.columns]
    if columns:
        wanted = [str(c) for c in columns]
        missing = [c for c in wanted if c not in names]
        if missing:
            raise LoadError(
                f"no such column(s) {missing}; the header has {names}",
                source=source,
                field=", ".join(missing),
            )
        frame = frame[wanted]
        names = wanted
    if frame.shape[0] == 0:
        raise LoadError("the table has a header but no data rows", source=source, line=2)
    bad = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    if bad:
        hint = "" if columns else "; choose the numeric ones with --columns"
        raise LoadError(
            f"non-numeric column(s) {[str(c) for c in bad]}: every feature must be a number" + hint,
            source=source,
            field=", ".join(str(c) for c in bad),
        )
    values = frame.to_numpy(dtype=np.float64)
    missing_rows, missing_cols = np.nonzero(~np.isfinite(values))
    if missing_rows.size:
        cols = sorted({names[j] for j in missing_cols.tolist()})
        line = int(missing_rows[0]) + 2  # 1-based, after the header
        raise LoadError(
            f"missing or non-finite values in column(s) {cols} (first on line {line})",
            source=source,
            line=line,
            field=", ".join(cols),
        )
    return Table(values, names, source, "")


def _load_npy(data: bytes, source: str) -> np.ndarray:
    try:
        return np.load(io.BytesIO(data), allow_pickle=False)
    except ValueError as exc:
        raise LoadError(f"not a readable .npy array: {exc}", source=source) from exc


def _load_npz(data: bytes, source: str, array: str | None) -> np.ndarray:
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            keys = list(z.files)
            if array is None:
                if len(keys) != 1:
                    raise LoadError(
                        f"the archive holds {len(keys)} arrays {keys}; name one",
                        source=source,
                    )
                array = keys[0]
            if array not in keys:
                raise LoadError(
                    f"no array {array!r} in the archive; it holds {keys}",
                    source=source,
                    field=array,
                )
            return z[array]
    except (ValueError, OSError) as exc:
        raise LoadError(f"not a readable .npz archive: {exc}", source=source) from exc


def _from_array(a: np.ndarray, source: str, columns: Sequence[str] | None) -> Table:
    if a.dtype.kind not in "biuf":
        raise LoadError(f"the array must be numeric, got dtype {a.dtype}", source=source)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2:
        raise LoadError(
            f"the array must be 2-D (points × features), got shape {a.shape}", source=source
        )
    names = [str(i) for i in range(a.shape[1])]
    if columns:
        wanted = [str(c) for c in columns]
        missing = [c for c in wanted if c not in names]
        if missing:
            raise LoadError(
                f"no such column(s) {missing}; array columns are 0..{a.shape[1] - 1}",
                source=source,
                field=", ".join(missing),
            )
        a = a[:, [int(c) for c in wanted]]
        names = wanted
    if a.shape[0] == 0 or a.shape[1] == 0:
        raise LoadError(f"the array is empty (shape {a.shape})", source=source)
    values = np.asarray(a, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(values).all(axis=0))
    if bad.size:
        cols = [names[i] for i in bad.tolist()]
        raise LoadError(
            f"NaN or infinite values in column(s) {cols}", source=source, field=", ".join(cols)
        )
    return Table(values, names, source, "")


def read_edges(
    path: str | Path, n: int, *, raw: bytes | None = None, name: str | None = None
) -> np.ndarray:
    """An m × 2 array of node indices from a two-column CSV (a header row is optional).

    Indices are 0-based rows of the data matrix; every one must lie in [0, n).
    """
    import pandas as pd

    source = name or str(path)
    data = _read_file(Path(path), source) if raw is None else raw
    try:
        frame = pd.read_csv(io.BytesIO(data), header=None, dtype=str, skipinitialspace=True)
    except pd.errors.EmptyDataError:
        return np.zeros((0, 2), dtype=np.int64)
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise LoadError(f"not a readable CSV edge list: {exc}", source=source) from exc
    if frame.shape[1] != 2:
        raise LoadError(
            f"an edge list has two columns (source, target node index), got {frame.shape[1]}",
            source=source,
            line=1,
        )
    first = 0
    if frame.shape[0] and not all(str(v).strip().lstrip("-").isdigit() for v in frame.iloc[0]):
        first = 1  # a header row
    body = frame.iloc[first:]
    out = np.empty((body.shape[0], 2), dtype=np.int64)
    for j in range(2):
        col = body.iloc[:, j].astype(str).str.strip()
        ok = col.str.fullmatch(r"-?\d+").to_numpy()
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise LoadError(
                f"node index {col.iloc[i]!r} is not an integer",
                source=source,
                line=first + i + 1,
                column=j + 1,
            )
        out[:, j] = col.astype(np.int64).to_numpy()
    bad = np.flatnonzero((out < 0).any(axis=1) | (out >= n).any(axis=1))
    if bad.size:
        i = int(bad[0])
        raise LoadError(
            f"edge ({out[i, 0]}, {out[i, 1]}) names a node outside 0..{n - 1} "
            f"(the data has {n} rows)",
            source=source,
            line=first + i + 1,
        )
    return out
