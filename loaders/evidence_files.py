"""Finding and reading the evidence sources in files and folders, with a summary per file.

The three evidence loaders (:data:`EVIDENCE_LOADERS`) each expose
``load_with_summary(data, name)``; :func:`load_evidence` walks the paths given (folders
recursively: results pages are ``.md`` files, which the generic folder walk of ``reprokg
load`` skips as documentation), asks each loader's ``sniff`` which reads a file, and yields
the documents as it goes (a generator: ingest writes one batch while the next file is
read), keeping each file's :class:`~reprokg.loaders.evidence.LoadSummary`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reprokg.core.document import Document
from reprokg.core.errors import LoadError
from reprokg.loaders.evidence import LoadSummary
from reprokg.loaders.source import read_bytes

#: kind -> loader module, in sniffing order
EVIDENCE_LOADERS = {
    "artifact-evaluation": "reprokg.loaders.artifact_evaluation",
    "rescience": "reprokg.loaders.rescience",
    "re-execution": "reprokg.loaders.re_execution",
}
_SKIP = {"LICENSE", "LICENSE.txt", "LICENSE.md", "README.md", "README", "SOURCE", "CITATION.cff"}
_HEAD = 4096


@dataclass
class EvidenceLoad:
    """The documents of the evidence under some paths, read lazily, and what was read."""

    paths: Sequence[str | Path]
    summaries: list[LoadSummary] = field(default_factory=list)

    def per_file(self) -> Iterator[list[Document]]:
        """Each file's documents in turn (a re-execution log is one document of ~80,000
        triples: ingesting file by file keeps one log's graphs in memory, not twelve)."""
        for path, kind in files(self.paths):
            data, display = read_bytes(path)
            module = importlib.import_module(EVIDENCE_LOADERS[kind])
            try:
                docs, summary = module.load_with_summary(data, display)
            except LoadError as exc:
                summary = LoadSummary(display, kind)
                summary.skip(exc.line, "file", exc.message)
                docs = []
            self.summaries.append(summary)
            yield docs

    def documents(self) -> Iterator[Document]:
        for docs in self.per_file():
            yield from docs


def kind_of(path: Path) -> str | None:
    """The evidence kind whose loader claims the file, or ``None``."""
    with path.open("rb") as fh:
        head = fh.read(_HEAD).decode("utf-8", errors="replace").replace("\r\n", "\n")
    for kind, name in EVIDENCE_LOADERS.items():
        if importlib.import_module(name).sniff(path.name, head):
            return kind
    return None


def files(paths: Sequence[str | Path]) -> Iterator[tuple[Path, str]]:
    """(file, kind) of every evidence file named or under a folder named (sorted); a file
    named explicitly that no evidence loader claims is an error naming it."""
    for p in map(Path, paths):
        if p.is_dir():
            for f in sorted(p.rglob("*")):
                rel = f.relative_to(p).parts
                if not f.is_file() or f.name in _SKIP or any(x.startswith(".") for x in rel):
                    continue
                kind = kind_of(f)
                if kind is not None:
                    yield f, kind
        elif p.is_file():
            kind = kind_of(p)
            if kind is None:
                known = ", ".join(EVIDENCE_LOADERS)
                raise LoadError(
                    f"not an evidence source this command reads ({known})", source=str(p)
                )
            yield p, kind
        else:
            raise LoadError("no such file or directory", source=str(p))


def load_evidence(paths: Sequence[str | Path]) -> EvidenceLoad:
    return EvidenceLoad(paths)
