"""Validating files and folders without a store (``reprokg validate``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from reprokg.core.errors import LimitExceeded, LoadError
from reprokg.loaders.files import SourceWalk
from reprokg.validation.batching import DEFAULT_BATCH_SIZE, validate_in_processes
from reprokg.validation.report import Report, Result

#: batches collected before they are validated in parallel
VALIDATE_CHUNK_BATCHES = 8


def load_error_report(exc: LoadError) -> Report:
    """A read/parse failure in report form (``constraint`` = ``LoadError``, or
    ``LimitExceeded`` for a source refused by an input limit before parsing)."""
    return Report(
        source=exc.source or "<input>",
        results=[
            Result(
                "Violation",
                exc.message,
                path=exc.field,
                line=exc.line,
                source=exc.source,
                constraint="LimitExceeded" if isinstance(exc, LimitExceeded) else "LoadError",
            )
        ],
    )


def validate_walk(walk: SourceWalk, *, batch_size: int = DEFAULT_BATCH_SIZE) -> list[Report]:
    """Reports for every document ``walk`` loads, then one per source it could not load
    (:func:`load_error_report`); the walk keeps what it skipped."""
    size = max(1, batch_size)
    reports: list[Report] = []
    chunk = []
    # a few batches at a time, validated on every core (validate_in_processes)
    for doc in walk.documents():
        chunk.append(doc)
        if len(chunk) >= size * VALIDATE_CHUNK_BATCHES:
            reports.extend(validate_in_processes(chunk, size))
            chunk = []
    if chunk:
        reports.extend(validate_in_processes(chunk, size))
    reports.extend(load_error_report(e) for e in walk.errors)
    return reports


def validate_paths(
    paths: Sequence[str | Path], kind: str | None = None, *, batch_size: int = DEFAULT_BATCH_SIZE
) -> list[Report]:
    """Reports for every document under ``paths``; never touches a store."""
    return validate_walk(SourceWalk(paths, kind), batch_size=batch_size)
