"""A full disk under the embedded store: refused writes (507), reads that go on, writes
that resume by themselves once space is back.

What RocksDB (under pyoxigraph 0.5) does, measured on a small tmpfs: a write that meets
``ENOSPC`` fails with ``OSError: IO error: No space left on device`` and nothing of it is
written; reads go on; every later write fails the same way *even after space is freed*
(RocksDB keeps its background error until the database is reopened; pyoxigraph exposes
no ``Resume``); and opening a store whose write-ahead log must be replayed needs room for
the files the replay writes (about half the log's size,
benchmarks/README.md#figures-once-quoted-in-code). Reopened with room, it holds exactly the writes
that were acknowledged.

So :class:`~reprokg.store.oxigraph.OxigraphStore` refuses a write up front while the
disk has less than ``store_min_free_mb`` free, turns ``ENOSPC`` into
:class:`~reprokg.core.errors.StorageFull` (HTTP 507, a sentence instead of a bare 500),
and before the next write, once there is room again, reopens its database in place
(:class:`Reopening` holds readers for the moment the handle is swapped).
"""

from __future__ import annotations

import errno
import shutil
import threading
from pathlib import Path
from typing import Any

from reprokg.core.errors import StorageFull

_NO_SPACE_TEXT = "No space left on device"


def no_space(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or an exception it was raised from) is a full disk."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if _NO_SPACE_TEXT in str(exc):  # RocksDB's IO error text, through pyoxigraph
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


def free_bytes(path: Path) -> int:
    """Free bytes on the file system holding ``path`` (its nearest existing parent)."""
    p = path
    while not p.exists() and p != p.parent:
        p = p.parent
    return shutil.disk_usage(p).free


def wal_bytes(path: Path) -> int:
    """Bytes of the store's write-ahead logs (``*.log``): what an open replays."""
    try:
        return sum(f.stat().st_size for f in path.iterdir() if f.suffix == ".log")
    except OSError:
        return 0


def mib(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB"


def cannot_open(path: Path, exc: BaseException) -> StorageFull:
    """The error of an open that met a full disk, saying how much room it needs."""
    wal = wal_bytes(path)
    need = wal + (16 << 20)
    return StorageFull(
        f"cannot open the store at {path}: the disk holding it is full "
        f"({mib(free_bytes(path))} free). Opening replays its write-ahead log "
        f"({mib(wal)}) into new files: free at least {mib(need)} on that disk and open "
        f"it again (nothing acknowledged is lost) [{exc}]",
        details={"free_bytes": free_bytes(path), "needed_bytes": need},
    )


def full(path: Path, free: int, min_free: int, *, refused_by_disk: bool) -> StorageFull:
    """The error of a refused write (HTTP 507)."""
    why = (
        "the disk holding the store is full"
        if refused_by_disk
        else f"the disk holding the store has {mib(free)} free, less than the "
        f"{mib(min_free)} writes keep in reserve (store_min_free_mb)"
    )
    return StorageFull(
        f"{why}; nothing was written. Reads go on, and writes resume by themselves once "
        f"more than {mib(min_free)} are free on that disk ({mib(free)} now)",
        headers={"Retry-After": "60"},
        details={"free_bytes": free, "min_free_bytes": min_free},
    )


class Reopening:
    """Stands in for the database handle while it is reopened: a reader waits (a few
    milliseconds) and is then served by the new handle."""

    def __init__(self) -> None:
        self._ready = threading.Event()
        self._target: Any = None

    def done(self, target: Any) -> None:
        self._target = target
        self._ready.set()

    def __getattr__(self, name: str) -> Any:
        if not self._ready.wait(30):
            raise StorageFull("the store is being reopened after its disk was full; try again")
        return getattr(self._target, name)


__all__ = ["Reopening", "cannot_open", "free_bytes", "full", "no_space", "wal_bytes"]
