"""The loader registry, and :func:`load_source`: the one way a source's bytes become documents.

A loader module satisfies :class:`~reprokg.loaders.reading.contract.Loader` (``INFO``, ``sniff``,
``load``; docs/architecture.md › Sources and loaders) and is listed in
:data:`LOADER_MODULES` (tests/loaders/test_registry.py fails on a module with an ``INFO``
that is not). Modules are imported on first use, and an import error is an error: a broken
loader must fail loudly, not vanish.

:func:`load_source` is the only place that decodes a source's head, sniffs it and says
"no loader claims this"; the command line (through :mod:`reprokg.loaders.files`), the
service's uploads, the web form and the demo all call it.
"""

from __future__ import annotations

import codecs
import importlib
import logging
from collections.abc import Callable, Collection
from functools import cache
from pathlib import PurePath
from typing import TYPE_CHECKING

from reprokg.core.errors import (
    InputTooLarge,
    LimitExceeded,
    LoadError,
    UnrecognisedSource,
    UnsupportedInput,
)
from reprokg.loaders.reading.contract import (
    BinaryLoader,
    Claim,
    DatabaseLoader,
    FolderLoader,
    Loader,
    LoaderInfo,
    SummarisingLoader,
)
from reprokg.loaders.reading.limits import current_limits

if TYPE_CHECKING:
    from reprokg.core.document import Document
    from reprokg.loaders import (
        artifact_availability,
        artifact_evaluation,
        audit,
        feature_discard,
        grsi,
        gundersen_kjensmo,
        ir_metadata,
        mlflow,
        mlrc,
        openml,
        pwc_checklist,
        qrels,
        re_execution,
        replicability_graphics,
        rescience,
        rocrate,
        stability,
    )
    from reprokg.loaders.reading.summary import LoadSummary

    #: the registered modules, checked against the contract by the type checker (the
    #: registry checks them again when it imports them; tests/loaders/test_registry.py
    #: keeps this list equal to LOADER_MODULES)
    TYPED_LOADERS: tuple[Loader, ...] = (
        ir_metadata,
        mlrc,
        audit,
        stability,
        feature_discard,
        replicability_graphics,
        gundersen_kjensmo,
        pwc_checklist,
        grsi,
        artifact_evaluation,
        artifact_availability,
        rescience,
        re_execution,
        rocrate,
        mlflow,
        openml,
        qrels,
    )
    #: the loaders with the capabilities ``reprokg import`` asks for, checked alike
    TYPED_FOLDER_LOADERS: tuple[FolderLoader, ...] = (rocrate, mlflow)
    TYPED_DATABASE_LOADERS: tuple[DatabaseLoader, ...] = (mlflow,)

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
    "reprokg.loaders.artifact_availability",
    "reprokg.loaders.rescience",
    "reprokg.loaders.re_execution",
    "reprokg.loaders.rocrate",
    "reprokg.loaders.mlflow",
    "reprokg.loaders.openml",
    "reprokg.loaders.qrels",
)
#: bytes of a file given to ``sniff``
HEAD_BYTES = 4096
#: bytes checked for NUL (binary input) and UTF-8 before any loader is asked
CHECK_BYTES = 16384
#: what a caller wanting each file's :class:`~reprokg.loaders.reading.summary.LoadSummary` passes
SummaryHook = Callable[["LoadSummary"], None]


@cache
def loaders() -> dict[str, Loader]:
    """The loaders by document kind, in sniffing order."""
    out: dict[str, Loader] = {}
    for name in LOADER_MODULES:
        mod = importlib.import_module(name)
        if not isinstance(mod, Loader) or not isinstance(mod.INFO, LoaderInfo):
            raise TypeError(
                f"loader {name} does not satisfy reprokg.loaders.reading.contract.Loader "
                "(INFO: LoaderInfo, sniff(name, head), load(data, name))"
            )
        kind = mod.INFO.kind
        if kind in out:
            raise TypeError(f"loaders {out[kind].INFO.name} and {name} share kind {kind!r}")
        out[kind] = mod
    return out


def loader_for(kind: str) -> Loader:
    """The loader of ``kind``; an unknown kind is refused with the known ones."""
    found = loaders()
    if kind not in found:
        known = ", ".join(found) or "none installed"
        raise UnsupportedInput(
            f"no loader for kind {kind!r}; known kinds: {known}",
            field="kind",
            details={"known": list(found)},
        )
    return found[kind]


@cache
def import_formats() -> dict[str, Loader]:
    """The loaders by the names of the other tools' formats they read (``INFO.formats``),
    sorted by name: the formats ``reprokg import FORMAT`` takes."""
    out: dict[str, Loader] = {}
    for mod in loaders().values():
        for fmt in mod.INFO.formats:
            if fmt in out:
                raise TypeError(
                    f"loaders {out[fmt].INFO.name} and {mod.INFO.name} share format {fmt!r}"
                )
            out[fmt] = mod
    return dict(sorted(out.items()))


def loader_for_format(fmt: str) -> Loader:
    """The loader reading another tool's format ``fmt``; an unknown one is refused with
    the known ones."""
    found = import_formats()
    if fmt not in found:
        raise UnsupportedInput(
            f"no loader reads the format {fmt!r}; known formats: {', '.join(found)}",
            field="format",
            details={"known": list(found)},
        )
    return found[fmt]


def claims(
    name: str, head: str, kinds: Collection[str] | None = None, *, until_yes: bool = False
) -> dict[str, Claim]:
    """What each loader's ``sniff`` says of a file (its base name and decoded head); with
    ``kinds``, only those loaders are asked. ``until_yes``: stop at the first loader that
    claims it (the one that reads it: the later sniffs were a tenth of loading a run
    header, benchmarks/README.md#bulk-ingest-reprokg-load-of-many-documents-issue-17)."""
    base = PurePath(name).name
    out: dict[str, Claim] = {}
    for kind, mod in loaders().items():
        if kinds is not None and kind not in kinds:
            continue
        try:
            out[kind] = Claim.of(mod.sniff(base, head))
        except Exception as exc:  # noqa: BLE001 - a faulty sniff must not hide the others
            log.warning("sniff of %s failed on %s: %s", kind, name, exc)
            out[kind] = Claim.NO
        if until_yes and out[kind] is Claim.YES:
            break
    return out


def detect_kind(name: str, head: str) -> str | None:
    """The kind of the first loader whose ``sniff`` says yes, or ``None``."""
    return next((k for k, c in claims(name, head, until_yes=True).items() if c is Claim.YES), None)


def load_source(
    name: str,
    data: bytes,
    kind: str | None = None,
    *,
    kinds: Collection[str] | None = None,
    summary: SummaryHook | None = None,
) -> list[Document]:
    """The documents of one source (``name`` as the user knows it, ``data`` its bytes).

    With ``kind`` the loader of that kind reads it. Otherwise the first loader whose
    ``sniff`` says yes (of ``kinds`` only, when given); when none does, the loaders that
    nearly claim it (:attr:`Claim.NEAR`) read it, and the first one's own error is raised
    when none can. When no loader claims it at all, :class:`UnrecognisedSource` names the
    loaders tried (and why, for binary or non-UTF-8 input). ``summary`` is handed the
    load's :class:`~reprokg.loaders.reading.summary.LoadSummary` when it succeeds.
    """
    if kind is not None:
        return _load(loader_for(kind), data, name, summary)
    if kinds is not None:
        for k in kinds:
            loader_for(k)  # an unknown kind is refused, not silently never tried
    tried = [k for k in loaders() if kinds is None or k in kinds]
    if b"\x00" in data[:CHECK_BYTES]:
        return _load_binary(name, data, tried, summary)
    head = data[:HEAD_BYTES].decode("utf-8", errors="replace").replace("\r\n", "\n")
    said = claims(name, head, kinds, until_yes=True)
    return _load_claimed(name, data, said, tried, summary)


def _load_binary(
    name: str, data: bytes, tried: list[str], summary: SummaryHook | None
) -> list[Document]:
    """A file with NUL bytes, read by a loader of binary formats that claims it (or
    nearly does), else refused as binary."""
    base = PurePath(name).name
    said: dict[str, Claim] = {}
    for kind in tried:
        mod = loaders()[kind]
        if isinstance(mod, BinaryLoader):
            try:
                said[kind] = Claim.of(mod.sniff_bytes(base, data))
            except Exception as exc:  # noqa: BLE001 - as in claims()
                log.warning("binary sniff of %s failed on %s: %s", kind, name, exc)
    if any(c is not Claim.NO for c in said.values()):
        return _load_claimed(name, data, said, tried, summary)
    raise UnrecognisedSource(
        "looks like a binary file (NUL bytes), and every loader reads UTF-8 text "
        "(or an MLflow SQLite database)",
        tried=tried,
        source=name,
    )


def _load_claimed(
    name: str,
    data: bytes,
    said: dict[str, Claim],
    tried: list[str],
    summary: SummaryHook | None,
) -> list[Document]:
    """The first loader that claims the file reads it; else the near claimers, whose first
    error is raised when none can; else "no loader claims this file"."""
    yes = next((k for k, c in said.items() if c is Claim.YES), None)
    if yes is not None:
        return _load(loaders()[yes], data, name, summary)
    first_error: LoadError | None = None
    for near in (k for k, c in said.items() if c is Claim.NEAR):
        try:
            return _load(loaders()[near], data, name, summary)
        except LoadError as exc:
            first_error = first_error or exc
    if first_error is not None:
        raise first_error
    _refuse_undecodable(data, name, tried)
    raise UnrecognisedSource(
        "no loader claims this file",
        tried=tried,
        advice="name its kind with --kind (?kind= over HTTP)",
        source=name,
    )


def _refuse_undecodable(data: bytes, name: str, tried: list[str]) -> None:
    """An unclaimed head that is not UTF-8 is refused with the byte and line it breaks at
    (a character cut at the end of the checked bytes is not an error)."""
    chunk = data[:CHECK_BYTES]
    try:
        codecs.getincrementaldecoder("utf-8")().decode(chunk, final=len(chunk) == len(data))
    except UnicodeDecodeError as exc:
        raise UnrecognisedSource(
            f"not valid UTF-8 at byte {exc.start}, and every loader reads UTF-8 text",
            tried=tried,
            source=name,
            line=chunk[: exc.start].count(b"\n") + 1,
        ) from None


def _load(loader: Loader, data: bytes, name: str, summary: SummaryHook | None) -> list[Document]:
    """``loader.load``, with the backstops for input the limits did not catch; its errors
    name the kind read (``details["kind"]``)."""
    kind = loader.INFO.kind
    try:
        if summary is None:
            return list(loader.load(data, name))
        if isinstance(loader, SummarisingLoader):
            docs, told = loader.load_with_summary(data, name)
        else:
            from reprokg.loaders.reading.summary import LoadSummary

            docs = list(loader.load(data, name))
            told = LoadSummary(name, kind, records=len(docs), documents=len(docs))
        summary(told)
        return list(docs)
    except LoadError as exc:
        exc.details.setdefault("kind", kind)
        raise
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


__all__ = [
    "HEAD_BYTES",
    "LOADER_MODULES",
    "Claim",
    "DatabaseLoader",
    "FolderLoader",
    "Loader",
    "LoaderInfo",
    "SummaryHook",
    "claims",
    "detect_kind",
    "import_formats",
    "load_source",
    "loader_for",
    "loader_for_format",
    "loaders",
]
