"""Limits checked on untrusted text before any parser sees it (depth, nodes, lines, fields).

Why a pre-scan: before PyYAML 6.0.4, its C composer (``yaml._yaml.CParser._compose_node``)
recursed in C once per nesting level with no depth check, so about 25,000 levels (``[`` *
100,000, or ``- `` * 100,000) overflowed the 8 MB thread stack and killed the whole server
with SIGSEGV; 6.0.4 (our floor) bundles a libyaml that refuses more than 1,000 levels.
The pure-Python parsers (PyYAML, ruamel, ``json``) and our own tree builders stop at
Python's recursion limit instead (``RecursionError``, a 500). So every YAML/JSON text is
scanned here first, in linear time and without recursion, and refused with a located
:class:`LimitExceeded` when it nests deeper than ``max_depth`` (default 64) or holds too
many nodes, aliases or anchors; line-based formats (CSV, TREC runs/qrels) get line-length
and field-count limits (``line.split()`` of one 8 MB line makes millions of strings).

The YAML scan (:mod:`reprokg.loaders.reading.yaml_scan`) follows libyaml's scanner; this module
holds the limits, what a scan reports, and the JSON and line checks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from itertools import accumulate

from reprokg.core.errors import InputTooLarge, LimitExceeded, LoadError
from reprokg.core.settings import Settings, settings, view

__all__ = [
    "DEFAULT_LIMITS",
    "InputTooLarge",
    "InputLimits",
    "LimitExceeded",
    "ScanStats",
    "check_json",
    "check_records",
    "count_nodes",
    "lone_surrogate",
    "check_line_length",
    "check_lines",
    "current_limits",
    "json_stats",
    "line_and_column",
    "normalise_breaks",
    "too_deep",
    "too_many",
]


@dataclass(frozen=True)
class InputLimits:
    """What one source text may hold: a view of :class:`Settings` (defaults and reasons
    there, declared once)."""

    #: nested collections (mappings/sequences, block or flow; JSON arrays/objects)
    max_depth: int = Settings.max_depth
    #: scalars + collections + aliases, counted without expanding aliases (an upper
    #: bound for YAML: an indicator such as ``-`` counts for the node it introduces)
    max_nodes: int = Settings.max_nodes
    #: YAML aliases (``*a``): the alias-bomb vector; our formats need none
    max_aliases: int = Settings.max_aliases
    #: YAML anchors (``&a``)
    max_anchors: int = Settings.max_anchors
    #: characters per line for YAML, CSV and TREC files (longest real line: 17,865, a CSV
    #: cell); JSON is exempt (minified JSON is one line)
    max_line_length: int = Settings.max_line_length
    #: fields per CSV row / whitespace-separated TREC line (real maximum: 28)
    max_fields: int = Settings.max_fields

    @classmethod
    def of(cls, s: Settings) -> InputLimits:
        """The limits the settings hold (each field is a setting of the same name)."""
        return view(cls, s)


DEFAULT_LIMITS = InputLimits()
_cached: tuple[Settings, InputLimits] | None = None


def current_limits() -> InputLimits:
    """The limits of the process's :func:`~reprokg.core.settings.settings`."""
    global _cached
    s = settings()
    if _cached is None or _cached[0] is not s:
        _cached = (s, InputLimits.of(s))
    return _cached[1]


@dataclass
class ScanStats:
    """What a scan found; ``depth`` and ``nodes`` are upper bounds of what a parser builds."""

    depth: int = 0
    nodes: int = 0
    aliases: int = 0
    anchors: int = 0
    longest_line: int = 0
    #: where the deepest level was opened (1-based line and column)
    deepest_at: tuple[int, int] = (0, 0)
    #: the scan stopped early where libyaml reports a syntax error (nothing after it is
    #: composed); ``None`` when it read the whole text
    stopped_at: tuple[int, int] | None = None
    extra: dict[str, int] = field(default_factory=dict)


# ----------------------------------------------------------------------------- shared


def line_and_column(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column of ``pos`` (only computed for error messages)."""
    line_start = text.rfind("\n", 0, pos) + 1
    return text.count("\n", 0, pos) + 1, pos - line_start + 1


def _longest_line(text: str) -> tuple[int, int]:
    """(length, 0-based index) of the longest ``\\n``-separated line, in C-speed steps."""
    lengths = list(map(len, text.split("\n")))
    longest = max(lengths)
    return longest, lengths.index(longest)


def check_line_length(
    text: str, name: str, limits: InputLimits, what: str, line_offset: int = 0
) -> int:
    """The longest line's length; :class:`InputTooLarge` naming it (``what``, ``"line"``
    or a capitalised ``"Run line"``) when it is over ``max_line_length``."""
    longest, index = _longest_line(text)
    if longest > limits.max_line_length:
        raise InputTooLarge(
            f"{what} {index + 1 + line_offset} is {longest} characters long; the limit is "
            f"{limits.max_line_length}",
            limit="line length",
            value=limits.max_line_length,
            source=name,
            line=index + 1 + line_offset,
            column=limits.max_line_length + 1,
        )
    return longest


def too_deep(limits: InputLimits, name: str, line: int, column: int) -> LimitExceeded:
    """The refusal of nesting deeper than ``max_depth`` (YAML and JSON word it alike)."""
    return LimitExceeded(
        f"nesting deeper than {limits.max_depth} at line {line}, column {column}",
        limit="depth",
        value=limits.max_depth,
        source=name,
        line=line,
        column=column,
    )


def too_many(what: str, limit: int, name: str, line: int, column: int) -> LimitExceeded:
    """The refusal of more than ``limit`` nodes (a size: 413), YAML aliases or anchors."""
    key = {"nodes": "nodes", "YAML aliases": "aliases", "YAML anchors": "anchors"}[what]
    cls = InputTooLarge if key == "nodes" else LimitExceeded
    return cls(
        f"more than {limit} {what} (first over the limit at line {line}, column {column})",
        limit=key,
        value=limit,
        source=name,
        line=line,
        column=column,
    )


# ------------------------------------------------------------------------ line breaks

#: line breaks libyaml knows besides ``\n`` (``\r\n`` counts once); mapped to ``\n``
_OTHER_BREAKS = re.compile("\r\n?|[\x85\u2028\u2029]")


def normalise_breaks(text: str) -> str:
    """``text`` with every line break libyaml knows as ``\n`` (``str`` membership tests
    first: faster than the regex on text that has none,
    benchmarks/README.md#figures-once-quoted-in-code)."""
    if "\r" in text or "\x85" in text or "\u2028" in text or "\u2029" in text:
        return _OTHER_BREAKS.sub("\n", text)
    return text


# ------------------------------------------------------------------------------- JSON

_JSON_STRING = re.compile(r'"[^"\\]*+(?:\\[\s\S][^"\\]*+)*+"')  # unrolled: no backtracking
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_JSON_TOKEN = re.compile(r'"[^"\\]*+(?:\\[\s\S][^"\\]*+)*+"|[\[\]{},:]')
_DELTA = {"[": 1, "{": 1, "]": -1, "}": -1}


def json_stats(text: str) -> ScanStats:
    """Depth and node bound of a JSON text (strings skipped exactly as ``json`` reads them).

    Everything runs in C (``re.sub``, ``str.count``, ``itertools.accumulate``); nodes are
    values + keys, bounded by 1 + commas + containers + colons outside strings.
    """
    outside = _JSON_STRING.sub('""', text)
    brackets = _NOT_BRACKET.sub("", outside)
    depth = max(accumulate(map(_DELTA.__getitem__, brackets)), default=0)
    containers = outside.count("[") + outside.count("{")
    nodes = 1 + outside.count(",") + containers + outside.count(":")
    return ScanStats(depth=max(depth, 0), nodes=nodes)


#: a ``\\uD800``-``\\uDFFF`` escape (half of a UTF-16 surrogate pair)
_SURROGATE_ESCAPE = re.compile(r"\\u([dD][89a-fA-F][0-9a-fA-F]{2})")


def lone_surrogate(text: str) -> int | None:
    """The offset of the first ``\\uDxxx`` escape in JSON text that is not half of a
    pair (a high surrogate followed by a low one), else ``None``. ``json`` decodes such an
    escape into a string no UTF-8 text can hold, which the store refuses (a 500, not a 422)."""
    pending: int | None = None  # offset of a high surrogate awaiting its low half
    end_of_high = -1
    for m in _SURROGATE_ESCAPE.finditer(text):
        i = m.start()
        while i > 0 and text[i - 1] == "\\":  # the backslashes before this one
            i -= 1
        if (m.start() - i) % 2:  # ``\\\\uD800``: an escaped backslash, then text
            continue
        code = int(m.group(1), 16)
        if code < 0xDC00:  # high
            if pending is not None:
                return pending
            pending, end_of_high = m.start(), m.end()
        else:  # low: must follow its high directly
            if pending is None or m.start() != end_of_high:
                return pending if pending is not None else m.start()
            pending = None
    return pending


def check_json(
    text: str,
    name: str = "<input>",
    limits: InputLimits | None = None,
    *,
    per_record: bool = False,
) -> None:
    """Refuse JSON nesting deeper than ``max_depth`` or with more than ``max_nodes`` values,
    and a lone surrogate escape (:func:`lone_surrogate`), located.

    The C decoder of :mod:`json` recurses per level (``RecursionError`` at ~1,000 in the
    main thread); the limit keeps every consumer of the result shallow as well. With
    ``per_record`` (a file of many records, each its own document) the nodes are not
    counted here but per record, once parsed (:func:`check_records`): a file is bounded
    by ``max_source_bytes``, a document by ``max_nodes``.
    """
    if "\\u" in text and (pos := lone_surrogate(text)) is not None:
        line, column = line_and_column(text, pos)
        raise LoadError(
            f"{text[pos : pos + 6]} is half of a UTF-16 surrogate pair, not a character; "
            "write the character itself (UTF-8) or both halves of its pair",
            source=name,
            line=line,
            column=column,
        )
    limits = limits or current_limits()
    if per_record:
        limits = replace(limits, max_nodes=len(text) + 1)
    if text.count("[") + text.count("{") <= limits.max_depth and len(text) < limits.max_nodes:
        return
    stats = json_stats(text)
    if stats.depth <= limits.max_depth and stats.nodes <= limits.max_nodes:
        return
    # over a limit: find the first token over it (slow path, only for refusals)
    depth, nodes = 0, 1
    for m in _JSON_TOKEN.finditer(text):
        t = m.group()
        if t[0] == '"':
            continue
        if t in "[{":
            depth += 1
            if depth > limits.max_depth:
                raise too_deep(limits, name, *line_and_column(text, m.start()))
        elif t in "]}":
            depth -= 1
            continue
        nodes += 1
        if nodes > limits.max_nodes:
            raise too_many("nodes", limits.max_nodes, name, *line_and_column(text, m.start()))
    raise AssertionError("json_stats and the token scan disagree")  # pragma: no cover


def count_nodes(value: object, limit: int) -> int:
    """The values and keys of a parsed JSON value, counted as :func:`json_stats` bounds
    them; stops once over ``limit`` (iterative: the value's depth is already checked)."""
    n, stack = 0, [value]
    while stack and n <= limit:
        v = stack.pop()
        n += 1
        if isinstance(v, dict):
            n += len(v)
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return n


def check_records(
    records: list[object], name: str, what: str, limits: InputLimits | None = None
) -> None:
    """Refuse a record (one document's source) of more than ``max_nodes`` values, naming
    it (``what[i]``): the node limit of a file of many records, applied per record."""
    limits = limits or current_limits()
    for i, rec in enumerate(records):
        if count_nodes(rec, limits.max_nodes) > limits.max_nodes:
            raise InputTooLarge(
                f"{what}[{i}] holds more than {limits.max_nodes} values (the limit of one "
                "record, each a document)",
                limit="nodes",
                value=limits.max_nodes,
                source=name,
                field=f"{what}[{i}]",
            )


# --------------------------------------------------------------------- CSV, TREC lines

_FIELD_WS = re.compile(r"\S+")


def check_lines(
    text: str,
    name: str = "<input>",
    limits: InputLimits | None = None,
    *,
    delimiter: str | None = None,
    what: str = "line",
    line_offset: int = 0,
) -> ScanStats:
    """Refuse lines longer than ``max_line_length`` or with more than ``max_fields`` fields.

    ``delimiter=None`` splits on whitespace (TREC runs and qrels); a character (``","``)
    counts delimiters, an upper bound of a CSV row's fields (a quoted cell may hold one).
    Only lines long enough to hold ``max_fields`` fields are counted. ``line_offset``
    shifts the reported line (text cut out of a larger file).
    """
    limits = limits or current_limits()
    text = normalise_breaks(text)
    longest = check_line_length(
        text, name, limits, what.capitalize() if what else "Line", line_offset
    )
    fields_possible = (longest + 2) // 2 if delimiter is None else longest + 1
    if fields_possible > limits.max_fields:
        threshold = 2 * limits.max_fields - 1 if delimiter is None else limits.max_fields
        for index, ln in enumerate(text.split("\n")):
            if len(ln) < threshold:
                continue
            if delimiter is None:
                count = sum(1 for _ in _FIELD_WS.finditer(ln))
            else:
                count = ln.count(delimiter) + 1
            if count > limits.max_fields:
                raise InputTooLarge(
                    f"{what} {index + 1 + line_offset} has {count} fields; the limit is "
                    f"{limits.max_fields}",
                    limit="fields",
                    value=limits.max_fields,
                    source=name,
                    line=index + 1 + line_offset,
                )
    return ScanStats(longest_line=longest)
