"""Reading untrusted source files: size and encoding checks, JSON syntax with positions.

YAML is :mod:`reprokg.loaders.reading.yaml_scalars` (apart, so that reading run files, which have
no YAML, does not import a YAML parser).
"""

from __future__ import annotations

import csv
import io
import json
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from reprokg.core.errors import LoadError
from reprokg.core.settings import settings
from reprokg.loaders.reading.limits import check_json, check_lines


def read_bytes(source: str | Path | bytes, name: str | None = None) -> tuple[bytes, str]:
    """(content, display name) from a path or raw bytes, enforcing the size limit
    (``max_source_bytes`` of the settings; the service's body limit is smaller).

    Only regular files are opened: a named pipe would block for ever, a device never end.
    """
    limit = settings().max_source_bytes
    if isinstance(source, bytes | bytearray):
        data, display = bytes(source), name or "<input>"
    else:
        path = Path(source)
        display = name or str(path)
        try:
            st = path.stat()
        except OSError as exc:
            raise LoadError(f"cannot read file: {exc.strerror}", source=display) from exc
        if not stat.S_ISREG(st.st_mode):
            raise LoadError(f"{not_a_file(st.st_mode)}; expected a file", source=display)
        if st.st_size > limit:
            raise LoadError(
                f"file is {st.st_size} bytes; the limit is {limit} bytes", source=display
            )
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise LoadError(f"cannot read file: {exc.strerror}", source=display) from exc
    if len(data) > limit:
        raise LoadError(f"input is {len(data)} bytes; the limit is {limit} bytes", source=display)
    return data, display


def leaves(root: str | Path, path: str | Path) -> LoadError | None:
    """The error naming ``path`` when it, its symbolic links resolved, lies outside the
    input ``root`` (a folder or file a user named); ``None`` when it stays inside.

    The one containment rule of every reader of folders (a folder walk, an MLflow store,
    a crate folder): a link that leads out of the input, such as ``params/x ->
    /etc/passwd``, is never followed, so nothing outside the input is read. ``root``
    itself may be a link; what it points to is the input. A link that cannot be
    resolved (a loop) counts as leaving.
    """
    try:
        base = Path(root).resolve()
        real = Path(path).resolve()
    except (OSError, RuntimeError):
        real = None
    if real is not None and (real == base or real.is_relative_to(base)):
        return None
    return LoadError(
        "a symbolic link that leads outside the input "
        + (f"(to {real})" if real is not None else "(cannot be resolved)")
        + "; not followed: nothing outside the input is read",
        source=str(path),
    )


def not_a_file(mode: int) -> str:
    """What a path that is not a regular file is, in words."""
    for test, what in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return f"not a regular file but {what}"
    return "not a regular file"


def csv_rows(
    data: bytes, name: str, *, required: Sequence[str], expected: str, strip: bool = False
) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """The header and the non-empty rows ``(line, column -> cell)`` of a CSV source.

    The input limits first (line length, fields), then a header holding every
    ``required`` column (``expected`` says what the header should be) and rows as wide as
    the header; ``strip`` trims the header and the cells. One CSV reader for the loaders
    that read a table as one document per row.
    """
    text = decode_text(data, name)
    check_lines(text, name, delimiter=",")  # line length and fields before the csv reader
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise LoadError("empty file; expected a CSV header", source=name, line=1) from None
    except csv.Error as exc:
        raise LoadError(f"CSV error: {exc}", source=name, line=1) from exc
    if strip:
        header = [c.strip() for c in header]
    missing = [c for c in required if c not in header]
    if missing:
        raise LoadError(
            f"missing CSV column(s) {', '.join(missing)}; expected {expected}",
            source=name,
            line=1,
            field=missing[0],
        )
    rows: list[tuple[int, dict[str, str]]] = []
    try:
        for row in reader:
            if not any(c.strip() for c in row):
                continue
            if len(row) != len(header):
                raise LoadError(
                    f"row has {len(row)} fields; expected {len(header)} like the header",
                    source=name,
                    line=reader.line_num,
                )
            cells = (c.strip() for c in row) if strip else row
            rows.append((reader.line_num, dict(zip(header, cells, strict=True))))
    except csv.Error as exc:
        raise LoadError(f"CSV error: {exc}", source=name, line=reader.line_num) from exc
    return header, rows


def csv_record(header: Sequence[str], row: Mapping[str, str]) -> bytes:
    """The header line and one row (quoted where needed): a row's bytes as its document's
    source when a CSV file is loaded as one document per row."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="").writerow(row[c] for c in header)
    return (",".join(header) + "\n" + buf.getvalue() + "\n").encode()


def decode_text(data: bytes, name: str) -> str:
    """UTF-8 text (BOM tolerated); binary or other encodings are refused with the offset."""
    if b"\x00" in data[:8192]:
        raise LoadError("looks like a binary file (NUL bytes); expected UTF-8 text", source=name)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise LoadError(
            f"not valid UTF-8 at byte {exc.start}; expected UTF-8 text", source=name, line=line
        ) from exc
    return text.replace("\r\n", "\n")


def parse_json(text: str, name: str, *, per_record: bool = False) -> Any:
    """A JSON value, its nesting, size and escapes checked first (:func:`check_json`).

    With ``per_record`` (a file of many records, each a document) the node limit is left to
    the caller, per record (:func:`reprokg.loaders.reading.limits.check_records`)."""
    check_json(text, name, per_record=per_record)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise LoadError(
            f"JSON syntax error: {exc.msg}", source=name, line=exc.lineno, column=exc.colno
        ) from exc


def not_a_scalar(value: Any) -> str | None:
    """What ``value`` is in words when it is not a scalar a text or number field takes (a
    JSON object, array or boolean), else ``None``: ``str()`` of an object made the text
    ``{'a': 1}`` an identifier."""
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if not isinstance(value, str | int | float):
        return f"a {type(value).__name__}"
    return None


def scalar_text(
    value: Any,
    name: str,
    field: str,
    *,
    expected: str = "a string or a number",
    line: int | None = None,
) -> str | None:
    """The text of a field that must be a string or a number (``None`` when absent or
    null); anything else is a :class:`LoadError` naming the file, the field and what was
    expected (the line: ``line``, else the value's own when a YAML scalar carries one).
    The one check of loaders reading fields of untyped JSON or YAML."""
    if value is None or getattr(value, "is_null", False):
        return None
    what = not_a_scalar(value)
    if what is not None:
        raise LoadError(
            f"{field}: expected {expected}, not {what}",
            source=name,
            line=line if line is not None else getattr(value, "line", None),
            field=field,
        )
    return str(value)
