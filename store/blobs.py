"""Content-addressed side files (e.g. run lines): ``{dir}/{sha[:2]}/{sha}``.

Written to a temp file in the same folder and renamed, so a crash never leaves a
half-written blob under a valid name; the same content is stored once.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from pathlib import Path

_SHA = re.compile(r"^[0-9a-f]{64}$")


def blob_path(blob_dir: Path, sha256: str) -> Path:
    if not _SHA.match(sha256):
        raise ValueError(f"{sha256!r} is not a sha256 hex digest")
    return Path(blob_dir) / sha256[:2] / sha256


def store_blob(blob_dir: Path, data: bytes) -> str:
    sha = hashlib.sha256(data).hexdigest()
    path = blob_path(blob_dir, sha)
    if path.exists():
        return sha
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return sha


def get_blob(blob_dir: Path, sha256: str) -> bytes | None:
    try:
        return blob_path(blob_dir, sha256).read_bytes()
    except (FileNotFoundError, ValueError):
        return None


def link_or_copy(src: str, dst: str) -> None:
    """A blob into another blob folder: a hard link (a blob is never changed in place:
    :func:`store_blob` writes a new file and renames it), a copy across file systems."""
    try:
        Path(dst).hardlink_to(src)
    except OSError:
        shutil.copy2(src, dst)
