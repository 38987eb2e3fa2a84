"""The loader registry: which module reads a file, and walking folders of sources.

A loader module exposes ``KIND``, ``LOADER_NAME``, ``LOADER_VERSION``,
``sniff(name, head) -> bool`` and ``load(data, name) -> list[Document]``, and is listed in
:data:`LOADER_MODULES` (tests/loaders/test_registry.py fails on a module with a ``KIND``
that is not). Modules are imported on first use, and an import error is an error: a broken
loader must fail loudly, not vanish. ``--kind`` picks a loader explicitly, otherwise the
first loader whose ``sniff`` accepts the file wins.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from reprokg.core.errors import InputTooLarge, LimitExceeded, LoadError
from reprokg.loaders.limits import current_limits
from reprokg.loaders.source import decode_text, read_bytes

if TYPE_CHECKING:
    from reprokg.core.document import Document

log = logging.getLogger(__name__)

#: loader modules in sniffing order (most specific formats first)
LOADER_MODULES: tuple[str, ...] = (
    "reprokg.loaders.ir_metadata",
    "reprokg.loaders.mlrc",
    "reprokg.loaders.audit",
    "reprokg.loaders.stability",
    "reprokg.loaders.feature_discard",
    "reprokg.loaders.replicability_graphics",
    "reprokg.loaders.gundersen_kjensmo",
    "reprokg.loaders.pwc_checklist",
    "reprokg.loaders.grsi",
    "reprokg.loaders.artifact_evaluation",
    "reprokg.loaders.rescience",
    "reprokg.loaders.re_execution",
    "reprokg.loaders.qrels",
)
#: bytes of a file given to ``sniff``
HEAD_BYTES = 4096
#: files never considered when walking a folder
SKIP_NAMES = {"LICENSE", "LICENSE.md", "LICENSE.txt", "README.md", "README", "NOTICE"}
#: documentation, images and archives found in data folders are not sources
SKIP_SUFFIXES = {".md", ".rst", ".html", ".pdf", ".png", ".jpg", ".svg", ".xlsx", ".zip", ".gz"}


#: what every loader module exposes
LOADER_API = ("KIND", "LOADER_NAME", "LOADER_VERSION", "sniff", "load")


@cache
def loaders() -> dict[str, ModuleType]:
    """The loaders by document kind, in sniffing order."""
    out: dict[str, ModuleType] = {}
    for name in LOADER_MODULES:
        mod = importlib.import_module(name)
        missing = [a for a in LOADER_API if not hasattr(mod, a)]
        if missing:
            raise TypeError(f"loader {name} lacks {', '.join(missing)}")
        if mod.KIND in out:
            raise TypeError(f"loaders {out[mod.KIND].__name__} and {name} share kind {mod.KIND!r}")
        out[mod.KIND] = mod
    return out


def loader_for(kind: str) -> ModuleType:
    found = loaders()
    if kind not in found:
        known = ", ".join(sorted(found)) or "none installed"
        raise LoadError(f"no loader for kind {kind!r}; known kinds: {known}")
    return found[kind]


def _head_text(data: bytes) -> str:
    return data[:HEAD_BYTES].decode("utf-8", errors="replace").replace("\r\n", "\n")


def detect_kind(name: str, head: str) -> str | None:
    """The kind of the first loader whose ``sniff`` accepts the file, or ``None``."""
    for kind, mod in loaders().items():
        try:
            if mod.sniff(name, head):
                return kind
        except Exception as exc:  # noqa: BLE001 - a faulty sniff must not hide the others
            log.warning("sniff of %s failed on %s: %s", kind, name, exc)
    return None


def load_bytes(data: bytes, name: str, kind: str | None = None) -> list[Document]:
    """Documents from one source's bytes; the kind is detected unless given."""
    if kind is None:
        decode_text(data[: HEAD_BYTES * 4], name)  # refuse binary / non-UTF-8 with a clear message
        kind = detect_kind(Path(name).name, _head_text(data))
        if kind is None:
            known = ", ".join(sorted(loaders())) or "none installed"
            raise LoadError(
                f"cannot tell which kind of source this is; give --kind (known: {known})",
                source=name,
            )
    try:
        return list(loader_for(kind).load(data, name))
    except RecursionError:
        # a backstop: the limits checked before parsing should make this unreachable
        log.warning("RecursionError loading %s as %s (input limits missed it)", name, kind)
        raise LimitExceeded(
            f"the input nests too deeply for the {kind} loader",
            limit="depth",
            value=current_limits().max_depth,
            source=name,
        ) from None
    except MemoryError:
        log.warning("MemoryError loading %s as %s", name, kind)
        raise InputTooLarge(
            f"not enough memory to load this input as {kind}", limit="memory", source=name
        ) from None


def iter_source_files(paths: list[str | Path]) -> Iterator[Path]:
    """Files named, and files under folders (sorted, hidden files and licences skipped)."""
    for p in map(Path, paths):
        if p.is_dir():
            for f in sorted(p.rglob("*")):
                rel = f.relative_to(p).parts
                hidden = any(x.startswith(".") for x in rel)
                skip = f.name in SKIP_NAMES or f.suffix.lower() in SKIP_SUFFIXES
                if f.is_file() and not hidden and not skip:
                    yield f
        elif p.exists():
            yield p
        else:
            raise LoadError("no such file or directory", source=str(p))


def load_path(path: str | Path, kind: str | None = None) -> list[Document]:
    """All documents in a file or folder. In a folder, files no loader claims are skipped
    (unless ``kind`` is given); a file named explicitly must be recognised."""
    path = Path(path)
    docs: list[Document] = []
    if path.is_dir():
        for f in iter_source_files([path]):
            data, display = read_bytes(f)
            if kind is None and detect_kind(f.name, _head_text(data)) is None:
                continue
            docs.extend(load_bytes(data, display, kind))
        return docs
    data, display = read_bytes(path)
    return load_bytes(data, display, kind)
