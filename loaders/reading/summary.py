"""What one source file's load read, normalised, skipped and why: a loader's own account.

A loader that keeps one (:class:`~reprokg.loaders.reading.contract.SummarisingLoader`: the three
evidence loaders) gives it from ``load_with_summary``; :func:`reprokg.loaders.load_source`
hands it to a caller's hook (``reprokg evidence load`` prints one per file). For any other
loader the summary is the count of its documents.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class LoadSummary:
    """What one source's load read, normalised, skipped and why (per file)."""

    source: str
    kind: str
    records: int = 0
    documents: int = 0
    #: (field, as written, read as) -> records
    normalised: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    #: (line or None, what, why) of every record or part not loaded
    skipped: list[tuple[int | None, str, str]] = field(default_factory=list)
    #: outcome slug -> assessments
    outcomes: Counter[str] = field(default_factory=Counter)
    #: further counts the loader reports (badge terms, re-execution statuses, …)
    counts: Counter[str] = field(default_factory=Counter)

    def normal(self, path: str, written: str, read_as: str) -> None:
        self.normalised[(path, written, read_as)] += 1

    def skip(self, line: int | None, what: str, why: str) -> None:
        self.skipped.append((line, what, why))

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "kind": self.kind,
            "records": self.records,
            "documents": self.documents,
            "outcomes": dict(sorted(self.outcomes.items())),
            "counts": dict(sorted(self.counts.items())),
            "normalised": [
                {"field": f, "as_written": w, "read_as": r, "records": n}
                for (f, w, r), n in sorted(self.normalised.items())
            ],
            "skipped": [{"line": ln, "what": w, "why": y} for ln, w, y in self.skipped],
        }

    def to_text(self) -> str:
        out = [
            f"{self.source} ({self.kind}): {self.records} record(s), {self.documents} "
            f"document(s); outcomes: "
            + (", ".join(f"{k} {v}" for k, v in sorted(self.outcomes.items())) or "none")
        ]
        if self.counts:
            out.append("  counts: " + ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items())))
        for (f, w, r), n in sorted(self.normalised.items()):
            if w != r:
                out.append(f"  normalised {f}: {w!r} -> {r} ({n})")
        for ln, what, why in self.skipped:
            where = f"line {ln}: " if ln is not None else ""
            out.append(f"  skipped {where}{what}: {why}")
        return "\n".join(out)
