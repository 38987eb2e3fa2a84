"""The errors users see, in one tree: each carries its CLI exit code and its HTTP status.

The CLI maps a :class:`ReprokgError` to its ``exit_code`` once (``reprokg.cli.main``) and
the service to its ``http_status`` once (one exception handler in ``reprokg.service.app``),
so no command or route translates errors itself. Every message names the file, the place in
it and what was expected; :meth:`ReprokgError.to_dict` is the JSON body of the HTTP answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class ReprokgError(Exception):
    """Base of our errors: CLI exit code 2 and HTTP 400 unless a subclass says otherwise."""

    exit_code = 2
    http_status = 400

    def __init__(
        self,
        message: str = "",
        *,
        headers: dict[str, str] | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        self.message = message
        #: extra HTTP response headers (``WWW-Authenticate`` of a 401, ``Retry-After``)
        self.headers = headers or {}
        #: machine-readable facts for the JSON body (the limit passed, the types expected)
        self.details = details or {}
        super().__init__(message)

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, Any]:
        return {"error": type(self).__name__, "message": str(self), **self.details}


class UsageError(ReprokgError):
    """Bad arguments, or a file or store the user named that cannot be used."""


class IdentifierError(ReprokgError, ValueError):
    """A value that should be an identifier is not one; the message says what was expected."""


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
        details: dict[str, Any] | None = None,
    ) -> None:
        self.source = source
        self.line = line
        self.column = column
        self.field = field
        super().__init__(message, details=details)

    def __str__(self) -> str:
        where = self.source or "<input>"
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        field = f" [{self.field}]" if self.field else ""
        return f"{where}{field}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "error": type(self).__name__,
            "source": self.source,
            "line": self.line,
            "column": self.column,
            "field": self.field,
            "message": self.message,
            **self.details,
        }


class UnsupportedInput(LoadError):
    """No loader reads this input (binary data, an unknown kind or media type)."""

    http_status = 415


class UnrecognisedSource(UnsupportedInput):
    """No loader claims this source: in a folder such a file is skipped and named, named
    alone it is an error. ``reason`` says why in a few words, ``tried`` (also
    ``details["tried"]``) the kinds whose loaders were asked."""

    def __init__(
        self,
        reason: str,
        *,
        tried: Sequence[str] = (),
        advice: str = "",
        source: str | None = None,
        line: int | None = None,
    ) -> None:
        self.reason = reason
        self.tried = list(tried)
        super().__init__(
            f"{reason} (tried {', '.join(tried)})" + (f"; {advice}" if advice else ""),
            source=source,
            line=line,
            details={"tried": self.tried},
        )


class TooLarge(LoadError):
    """An input over a size limit (body, file, number of files)."""

    http_status = 413


class LimitExceeded(LoadError):
    """A source over one of the input limits, refused before any parser saw it.

    ``limit`` names the limit (``depth``, ``aliases``, ``anchors``; the size limits are
    :class:`InputTooLarge`) and ``value`` its setting; the message says where ("nesting
    deeper than 64 at line 1, column 65"). Exit code 1: the file was read and refused,
    like a document with violations (2 stays for input that cannot be read at all).
    """

    exit_code = 1

    def __init__(
        self,
        message: str,
        *,
        limit: str = "",
        value: int | float = 0,
        source: str | None = None,
        line: int | None = None,
        column: int | None = None,
        field: str | None = None,
    ) -> None:
        self.limit = limit
        self.value = value
        super().__init__(
            message,
            source=source,
            line=line,
            column=column,
            field=field,
            details={"limit": limit, "limit_value": value},
        )


class InputTooLarge(LimitExceeded, TooLarge):
    """A source over a size limit (nodes, line length, fields per line): 413."""

    http_status = 413


class ParserCrashed(LoadError):
    """The isolated process parsing an upload died on it (a signal, e.g. a C parser's stack
    overflow); the service kept running and nothing was stored."""


class TooCostly(TooLarge):
    """Parsing and validating an upload ran past its time or memory limit (413)."""


class ValidationFailed(ReprokgError):
    """A document with SHACL violations; nothing was written."""

    exit_code = 1
    http_status = 422

    def __init__(self, reports: list[Any]) -> None:  # list[validation.report.Report]
        self.reports = reports
        super().__init__(
            "; ".join(r.summary() for r in reports if not r.conforms) or "validation failed"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "error": type(self).__name__,
            "message": str(self),
            "reports": [r.to_dict() for r in self.reports],
        }


class ShapesError(ReprokgError):
    """A shapes graph the SHACL engine cannot use: ill-formed, recursive, or SPARQL the
    SHACL-SPARQL rules forbid (``MINUS``, ``VALUES``, ``SERVICE``, pre-bound sub-SELECTs)."""

    exit_code = 2
    http_status = 422


class NotFound(ReprokgError):
    """What was asked for (a document, a query, a result) does not exist."""

    http_status = 404


class NotAcceptable(ReprokgError):
    """No offered media type is acceptable to the client."""

    http_status = 406

    def __init__(self, message: str, *, available: list[str] | None = None) -> None:
        super().__init__(message, details={"available": available or []})


class Unauthorized(ReprokgError):
    """A write without a bearer token."""

    http_status = 401


class Forbidden(ReprokgError):
    """A write with a wrong token, or on a service whose writes are off."""

    http_status = 403


class Refused(ReprokgError):
    """A request the service refuses before running it (SPARQL ``SERVICE``, ``LOAD`` of an
    IRI outside the allow-list)."""


class StoreError(ReprokgError):
    """The backend refused or failed an operation (bad query, engine down)."""

    http_status = 500


class StoreInUse(StoreError):
    """Another process holds the embedded store (RocksDB's lock), e.g. ``reprokg serve``:
    it cannot be opened for writing until that process stops."""

    http_status = 503


class QueryTimeout(StoreError):
    """A query ran past its time limit and was stopped."""

    http_status = 503


class QuerySyntaxError(StoreError):
    """The query or update text is not valid SPARQL 1.1 (a client error)."""

    http_status = 400


class UpdateRefused(QuerySyntaxError):
    """A valid update the store refuses: it writes the default graph, which is derived from
    the documents (a client error like a syntax error)."""


class QueryTooCostly(StoreError):
    """A query needed more memory or stack than a query worker has (its process died on
    it); the service goes on (413)."""

    http_status = 413


class Busy(StoreError):
    """Every worker stayed busy for the whole time limit; try again later."""

    http_status = 503


class TooManyRequests(ReprokgError):
    """One client holds as many connections or uploads as it may; try again later."""

    http_status = 429


class StorageFull(StoreError):
    """The store's disk is full: nothing was written; reads go on, and writes resume by
    themselves once space is freed."""

    http_status = 507
