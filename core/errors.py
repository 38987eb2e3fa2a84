"""Errors users see: each names the file, the place in it and what was expected."""

from __future__ import annotations


class ReprokgError(Exception):
    """Base of our errors; CLI exit code 2 unless a subclass says otherwise."""

    exit_code = 2


class LoadError(ReprokgError):
    """A source that cannot be read or parsed (bad encoding, syntax, size, shape)."""

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        column: int | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.source = source
        self.line = line
        self.column = column
        self.field = field
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.source or "<input>"
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        field = f" [{self.field}]" if self.field else ""
        return f"{where}{field}: {self.message}"

    def to_dict(self) -> dict[str, object]:
        return {
            "source": self.source,
            "line": self.line,
            "column": self.column,
            "field": self.field,
            "message": self.message,
        }


class ValidationFailed(ReprokgError):
    """A document with SHACL violations; nothing was written."""

    exit_code = 1

    def __init__(self, reports: list) -> None:  # list[validation.Report]
        self.reports = reports
        super().__init__(
            "; ".join(r.summary() for r in reports if not r.conforms) or "validation failed"
        )
