"""The demo store shipped ready-made: the first ``serve --demo`` restores it, not rebuilds it.

Building the demo store (every example loaded and validated, the runs evaluated and
compared, the stability studies analysed) costs tens of seconds on a 2-core machine, and
the very first start of a newcomer is the one that pays it. The build's result is
therefore shipped with the package as a dump (``service/demo_bundle/``): the documents'
quads (``dump.nq.gz``, N-Quads, lines sorted), the originals ingest kept
(``blobs.tar.gz``), and the counts and example requests the banner prints (``demo.json``).
Restoring it is one bulk load.

The bundle is a build product, so it can go stale: ``tests/service/test_demo_bundle.py``
builds the demo store from the examples and fails unless the bundle holds the same
quads (timestamps aside, blank nodes canonicalised) and the same originals; rebuild it
with ``python -m reprokg.service.demo``. A bundle written by another reprokg
version is not used (the demo is then built from the examples, as before).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
import tempfile
import threading
from collections.abc import Callable
from importlib.resources.abc import Traversable
from pathlib import Path

from reprokg import __version__
from reprokg.core.hashing import stable_key
from reprokg.core.resources import data_dir
from reprokg.store.base import Store

#: the bundle's folder in the package
BUNDLE = "service/demo_bundle"
DUMP, BLOBS, INFO = "dump.nq.gz", "blobs.tar.gz", "demo.json"
#: literals that say *when* a document was stored: they differ between two builds
TIME_PREDICATES = (
    "<http://www.w3.org/ns/prov#generatedAtTime>",
    "<http://www.w3.org/ns/prov#endedAtTime>",
)


def bundle_info() -> dict | None:
    """The bundle's ``demo.json`` when a bundle of this version ships, else None."""
    folder = data_dir(BUNDLE)
    if not all(folder.joinpath(n).is_file() for n in (DUMP, BLOBS, INFO)):
        return None
    info = json.loads(folder.joinpath(INFO).read_text(encoding="utf-8"))
    return info if info.get("version") == __version__ else None


def bundle_key() -> str | None:
    """What names the shipped bundle's content: its version and its files' hashes (a
    couple of megabytes, hashed in milliseconds; the test that checks the bundle against a
    fresh build keeps it in step with the code), or None."""
    info = bundle_info()
    if info is None:
        return None
    folder = data_dir(BUNDLE)
    hashes = [hashlib.sha256(folder.joinpath(n).read_bytes()).hexdigest() for n in (DUMP, BLOBS)]
    return "bundle-" + stable_key(info["version"], *hashes)


def restore_bundle(store: Store) -> tuple[dict[str, int], list[str]] | None:
    """Restore the shipped demo store into the empty ``store``; the banner's counts and
    requests (None: no usable bundle, the caller builds the demo)."""
    info = bundle_info()
    if info is None:
        return None
    folder = data_dir(BUNDLE)
    blobs = None
    if store.blob_dir is not None:  # written meanwhile: files on one core, quads on the other
        blobs = threading.Thread(target=_extract_blobs, args=(folder, store.blob_dir))
        blobs.start()
    try:
        with folder.joinpath(DUMP).open("rb") as raw, gzip.GzipFile(fileobj=raw) as quads:
            store.restore(quads)  # type: ignore[arg-type]  # GzipFile is a binary stream
    finally:
        if blobs is not None:
            blobs.join()
    return dict(info["counts"]), list(info["requests"])


def _extract_blobs(folder: Traversable, blob_dir: Path) -> None:
    blob_dir.mkdir(parents=True, exist_ok=True)
    with folder.joinpath(BLOBS).open("rb") as raw, tarfile.open(fileobj=raw, mode="r:gz") as tar:
        # package data of our own making; the "data" filter refuses links and escapes
        tar.extractall(blob_dir, filter="data")


def dump_lines(store: Store) -> list[bytes]:
    """The store's document quads as sorted N-Quads lines (a build's comparable form)."""
    out = io.BytesIO()
    store.dump(out, "nquads")
    return sorted(line for line in out.getvalue().splitlines() if line)


def write_bundle(folder: Path, build: Callable[[Store], tuple[dict[str, int], list[str]]]) -> dict:
    """Build the demo store with ``build`` (the examples loaded and analysed, the banner's
    counts and requests returned) and write its bundle into ``folder``."""
    from reprokg.store import open_store

    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="reprokg-demo-bundle-") as tmp:
        with open_store(str(Path(tmp) / "store")) as store:
            counts, requests = build(store)
            lines = dump_lines(store)
            blob_dir = store.blob_dir
        with gzip.GzipFile(folder / DUMP, "wb", compresslevel=9, mtime=0) as fh:
            fh.write(b"\n".join(lines) + b"\n")
        with tarfile.open(folder / BLOBS, "w:gz", compresslevel=9) as tar:
            root = blob_dir or Path(tmp) / "no-blobs"
            for path in sorted(p for p in root.rglob("*") if p.is_file()):
                member = tar.gettarinfo(str(path), arcname=str(path.relative_to(root)))
                member.mtime, member.uid, member.gid = 0, 0, 0
                member.uname = member.gname = ""
                with path.open("rb") as fh:
                    tar.addfile(member, fh)
    info = {"version": __version__, "counts": counts, "requests": requests}
    (folder / INFO).write_text(json.dumps(info, indent=1, sort_keys=True) + "\n", "utf-8")
    return info
