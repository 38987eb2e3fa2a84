"""ZIP archives an importer reads (an MLflow store, an RO-Crate), within the input limits.

Nothing is extracted: members are read into memory, at most ``max_archive_members`` of
them and ``max_source_bytes`` uncompressed bytes together (counted as they are
decompressed, so a member that lies about its size is stopped too). Names are the
archive's own, with ``/`` separators; absolute names and ``..`` are refused, as are
encrypted members and symbolic links (a link's bytes are its target's name, never the file
it names; ZIP has no hard links).
"""

from __future__ import annotations

import io
import stat
import zipfile
from collections.abc import Callable

from reprokg.core.errors import InputTooLarge, LoadError
from reprokg.core.settings import settings

MAGIC = b"PK\x03\x04"
_CHUNK = 1 << 16


def is_zip(data: bytes) -> bool:
    return data[:4] == MAGIC


def read_zip(data: bytes, name: str, want: Callable[[str], bool]) -> dict[str, bytes]:
    """The members ``want`` accepts, name -> bytes (directories skipped)."""
    s = settings()
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError) as exc:
        raise LoadError(f"not a readable ZIP archive: {exc}", source=name) from None
    with archive:
        infos = archive.infolist()
        if len(infos) > s.max_archive_members:
            raise InputTooLarge(
                f"the archive has {len(infos)} members; the limit is {s.max_archive_members}",
                limit="max_archive_members",
                value=s.max_archive_members,
                source=name,
            )
        out: dict[str, bytes] = {}
        total = 0
        for info in infos:
            member = info.filename
            if info.is_dir() or not want(member):
                continue
            parts = member.split("/")
            if member.startswith("/") or ".." in parts or "\\" in member:
                raise LoadError(f"unsafe member name {member!r} in the archive", source=name)
            if info.flag_bits & 0x1:
                raise LoadError(f"member {member!r} is encrypted", source=name)
            if stat.S_ISLNK(info.external_attr >> 16):
                raise LoadError(
                    f"member {member!r} is a symbolic link; links in an archive are not "
                    "followed (nothing outside the archive is read)",
                    source=name,
                )
            buf = bytearray()
            try:
                with archive.open(info) as fh:
                    while chunk := fh.read(_CHUNK):
                        total += len(chunk)
                        if total > s.max_source_bytes:
                            raise InputTooLarge(
                                "the archive's members add up to more than "
                                f"{s.max_source_bytes} bytes uncompressed",
                                limit="max_source_bytes",
                                value=s.max_source_bytes,
                                source=name,
                            )
                        buf += chunk
            except (zipfile.BadZipFile, OSError, EOFError) as exc:
                raise LoadError(f"cannot read member {member!r}: {exc}", source=name) from None
            out[member] = bytes(buf)
        return out
