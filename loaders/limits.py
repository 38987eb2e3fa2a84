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

The YAML scan follows libyaml 0.2.5's scanner (the tokens the C composer nests on):
flow levels, the block indentation stack (``roll_indent``/``unroll_indent``), simple keys,
indentless sequences, quoted/plain/block scalars, comments and document markers. It is
conservative: it never reports less nesting than libyaml's events reach (tests compare
it with the events on generated and adversarial texts); where it stops early, libyaml
has already failed with a syntax error at that point. A cheap bound (indentation plus
bracket count, C-speed ``str`` methods) accepts ordinary documents before the exact scan.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
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
    "lone_surrogate",
    "check_lines",
    "check_yaml",
    "current_limits",
    "json_stats",
    "yaml_stats",
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


def _where(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column of ``pos`` (only computed for error messages)."""
    line_start = text.rfind("\n", 0, pos) + 1
    return text.count("\n", 0, pos) + 1, pos - line_start + 1


def _longest_line(text: str) -> tuple[int, int]:
    """(length, 0-based index) of the longest ``\\n``-separated line, in C-speed steps."""
    lengths = list(map(len, text.split("\n")))
    longest = max(lengths)
    return longest, lengths.index(longest)


def _check_line_length(
    text: str, name: str, limits: InputLimits, what: str, line_offset: int = 0
) -> int:
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


def _too_deep(limits: InputLimits, name: str, line: int, column: int) -> LimitExceeded:
    return LimitExceeded(
        f"nesting deeper than {limits.max_depth} at line {line}, column {column}",
        limit="depth",
        value=limits.max_depth,
        source=name,
        line=line,
        column=column,
    )


def _too_many(what: str, limit: int, name: str, line: int, column: int) -> LimitExceeded:
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


# ------------------------------------------------------------------------------- YAML

#: line breaks libyaml knows besides ``\n`` (``\r\n`` counts once); mapped to ``\n``
_OTHER_BREAKS = re.compile("\r\n?|[\x85\u2028\u2029]")


def _has_other_breaks(text: str) -> bool:
    """Any line break but ``\\n`` (``str`` membership tests: ~30x faster than a regex)."""
    return "\r" in text or "\x85" in text or "\u2028" in text or "\u2029" in text


_WS_COMMENT = re.compile(r"[ \t]*(?:#[^\n]*)?")
_BLANKS = re.compile(r"[ \t\n]*")
#: a plain scalar's run of non-blank characters (block / flow context, libyaml 0.2.5)
_PLAIN_BLOCK = re.compile(r"(?:[^ \t\n:]|:(?=[^ \t\n]))*")
_PLAIN_FLOW = re.compile(r"(?:[^ \t\n:,\[\]{}]|:(?=[^ \t\n,?\[\]{}]))*")
_ANCHOR_NAME = re.compile(r"[0-9A-Za-z_-]+")
_TAG = re.compile(r"!(?:<[0-9A-Za-z_\-;/?:@&=+$.%!~*'(),\[\]]*>|[0-9A-Za-z_\-;/?:@&=+$.%!~*'()]*)")
_SINGLE = re.compile(r"'[^']*+(?:''[^']*+)*+'")
_DOUBLE = re.compile(r'"[^"\\]*+(?:\\[\s\S][^"\\]*+)*+"')
_DOC_MARKER_IN = re.compile(r"\n(?:---|\.\.\.)(?:[ \t\n]|\Z)")
_BLOCK_HEADER = re.compile(r"[|>](?:([+-])([1-9])?|([1-9])[+-]?)?[ \t]*(?:#[^\n]*)?(?=\n|\Z)")
_PLAIN_EXCLUDED = frozenset("-?:,[]{}#&*!|>'\"%@`")
_AFTER_ANCHOR = frozenset(" \t\n?:,]}%@`")
_SEQ, _MAP = 0, 1


def _block_scalar_end(text: str, pos: int, indent: int | None, parent: int) -> int:
    """Where a block scalar whose header line ends at ``pos`` (on ``\\n``) stops.

    libyaml: with an indentation indicator the content indentation is ``parent + n``
    (``n`` at top level); otherwise the largest of the leading blank lines' and the first
    non-blank line's indentation, at least ``parent + 1`` and 1. Lines with that many
    leading spaces and blank lines belong to the scalar; it ends at the first line with
    less indentation and something else on it (returned: that line's start).
    """
    n = len(text)
    if pos >= n:
        return n
    start = pos + 1  # first line after the header
    if indent is None:
        widest = 0
        p = start
        while p < n:
            q = p
            while q < n and text[q] == " ":
                q += 1
            widest = max(widest, q - p)
            if q < n and text[q] == "\n":
                p = q + 1
                continue
            break
        indent = max(widest, parent + 1, 1)
    prefix = " " * indent
    p = start
    while p < n:
        eol = text.find("\n", p)
        if eol < 0:
            eol = n
        if not text.startswith(prefix, p) and text[p:eol].strip(" "):
            return p
        p = eol + 1
    return n


def yaml_stats(
    text: str,
    name: str = "<input>",
    limits: InputLimits | None = None,
    *,
    line_offset: int = 0,
) -> ScanStats:
    """Scan YAML like libyaml 0.2.5's scanner and return what its composer would nest.

    With ``limits``, raise :class:`LimitExceeded` at the first token over a limit
    (located: line and column of the token); without, scan everything and report.
    Linear in the text; never recursive.

    Depth = block collections open (the indentation stack, plus an indentless sequence
    per mapping that has one open) + flow collections open + the single-pair mappings
    that ``key: value`` entries make inside flow sequences (``[a: b]`` is ``[{a: b}]``).
    A simple key's mapping starts where the key starts, so when ``:`` resolves a key
    everything nested inside the key (``[[x]]: y``) is re-counted one level deeper.
    """
    if _has_other_breaks(text):
        text = _OTHER_BREAKS.sub("\n", text)
    n = len(text)
    max_depth = limits.max_depth if limits else -1
    max_nodes = limits.max_nodes if limits else -1
    max_aliases = limits.max_aliases if limits else -1
    max_anchors = limits.max_anchors if limits else -1
    stats = ScanStats()

    cols: list[int] = []  # the indentation stack (columns), like libyaml's ``indents``
    kinds: list[int] = []  # _SEQ / _MAP per entry
    indentless: list[bool] = []  # a sequence at the mapping's own column is open
    bdepth = 0  # block collections open (len(cols) + indentless ones)
    # the parser's flow collections (kind, single-pair mapping open in the current entry);
    # usually one per scanner flow level, but libyaml 0.2.5's parser swallows a ``]`` that
    # follows an explicit ``?`` in a flow sequence (fixed upstream in 840b65c, unreleased),
    # keeping that sequence open while the scanner's flow level drops: ``[[? ]: `` * n
    # nests 2n deep with a flow level of 2. So depth counts the parser's collections.
    pk: list[int] = []
    pp: list[bool] = []
    after_key = False  # the last token was a ``?`` that opened a pair in a flow sequence
    # per scanner flow level (index 0 = block context): the possible simple key there
    k_ok: list[bool] = [False]
    k_line: list[int] = [0]
    k_col: list[int] = [0]
    k_pos: list[int] = [0]
    k_base: list[int] = [0]  # total depth when the key was saved
    k_max: list[int] = [0]  # deepest total depth reached inside the key
    k_pidx: list[int] = [-1]  # the parser collection the key's entry belongs to
    lv_max: list[int] = [0]  # deepest total depth reached inside each open flow level
    flow = 0
    pairs = 0  # single-pair mappings open (all flow levels)
    allowed = True  # libyaml's simple_key_allowed
    pos = 0
    line = 0
    line_start = 0
    best = 0
    nodes = aliases = anchors = 0

    def deeper(d: int, at_line: int, at_col: int) -> None:
        nonlocal best
        if d > k_max[flow]:
            k_max[flow] = d
        if d > lv_max[flow]:
            lv_max[flow] = d
        if d > best:
            best = d
            stats.deepest_at = (at_line + 1 + line_offset, at_col + 1)
            if 0 <= max_depth < d:
                raise _too_deep(limits, name, at_line + 1 + line_offset, at_col + 1)  # type: ignore[arg-type]

    def count_node(at: int) -> None:
        nonlocal nodes
        nodes += 1
        if 0 <= max_nodes < nodes:
            ln, c = _where(text, at)
            raise _too_many("nodes", max_nodes, name, ln + line_offset, c)

    def save_key(col: int) -> None:
        """libyaml's save_simple_key: the next token may be a key (if keys are allowed)."""
        if allowed:
            d = bdepth + len(pk) + pairs
            k_ok[flow], k_line[flow], k_col[flow], k_pos[flow] = True, line, col, pos
            k_base[flow] = k_max[flow] = d
            k_pidx[flow] = len(pk) - 1

    def blankz(i: int) -> bool:
        return i >= n or text[i] in " \t\n"

    if n and text[0] == "\ufeff":  # the reader drops a leading BOM (no column)
        pos = line_start = 1
    stopped = False
    while True:
        # --- scan_to_next_token: blanks, comments, line breaks; a BOM at column 0 is
        # skipped like a space (and counts a column)
        while True:
            if pos == line_start and pos < n and text[pos] == "\ufeff":
                pos += 1
            pos = _WS_COMMENT.match(text, pos).end()  # type: ignore[union-attr]
            if pos < n and text[pos] == "\n":
                pos += 1
                line += 1
                line_start = pos
                if not flow:
                    allowed = True
                continue
            break
        col = pos - line_start
        # --- unroll_indent (block context only)
        if not flow:
            while cols and cols[-1] > col:
                cols.pop()
                kinds.pop()
                bdepth -= 2 if indentless.pop() else 1
        if pos >= n:
            break
        c = text[pos]
        swallow = after_key  # libyaml 0.2.5: the token after ``[?`` if it is ``]``/``,``/``:``
        after_key = False

        if col == 0 and c == "%":  # a directive: libyaml reads (or ignores) the line
            eol = text.find("\n", pos)
            pos = n if eol < 0 else eol
            k_ok[flow] = False
            allowed = False
            continue
        if col == 0 and c in "-." and text.startswith(c * 3, pos) and blankz(pos + 3):
            if flow or pk:  # a document marker inside [ ] / { }: the parser fails here, but
                k_ok[flow] = False  # a pending key can still wrap what came before
                allowed = False
                pos += 3
                continue
            cols.clear()
            kinds.clear()
            indentless.clear()
            bdepth = 0
            k_ok[0] = False
            allowed = False
            count_node(pos)  # a document, possibly with an empty root
            pos += 3
            continue
        if c == "[" or c == "{":
            save_key(col)
            flow += 1
            pk.append(_SEQ if c == "[" else _MAP)
            pp.append(False)
            k_ok.append(False)
            k_line.append(0)
            k_col.append(0)
            k_pos.append(0)
            k_base.append(0)
            k_max.append(0)
            k_pidx.append(-1)
            lv_max.append(0)
            allowed = True
            count_node(pos)
            if c == "{":  # an entry ``{k}`` has an empty value node
                count_node(pos)
            deeper(bdepth + len(pk) + pairs, line, col)
            pos += 1
            continue
        if c == "]" or c == "}" or c == ",":
            # the parser: close the entry's pair and (for ]/}) the collection, unless the
            # token is swallowed after ``[?``; in block context (no flow level) a stray one
            # is a parser error, but a pending simple key may still wrap what came before
            if not swallow and pk:
                if pp[-1]:
                    pp[-1] = False
                    pairs -= 1
                if c != ",":
                    pk.pop()
                    pp.pop()
            if c == ",":
                k_ok[flow] = False
                allowed = True
                if pk and pk[-1] == _MAP:
                    count_node(pos)
            else:
                k_ok[flow] = False
                if flow:  # what nested inside this level counts for an enclosing key
                    inner = lv_max.pop()
                    if inner > k_max[flow - 1]:
                        k_max[flow - 1] = inner
                    if inner > lv_max[flow - 1]:
                        lv_max[flow - 1] = inner
                    k_max.pop()
                    k_ok.pop()
                    k_line.pop()
                    k_col.pop()
                    k_pos.pop()
                    k_base.pop()
                    k_pidx.pop()
                    flow -= 1
                allowed = False
            pos += 1
            continue
        if c == "-" and blankz(pos + 1):
            if flow:  # a block entry inside [ ]: the parser fails here (no indentation)
                k_ok[flow] = False
                allowed = True
                pos += 1
                continue
            if not cols or cols[-1] < col:
                cols.append(col)
                kinds.append(_SEQ)
                indentless.append(False)
                bdepth += 1
                count_node(pos)
                deeper(bdepth, line, col)
            elif kinds[-1] == _MAP and not indentless[-1]:
                indentless[-1] = True
                bdepth += 1
                count_node(pos)
                deeper(bdepth, line, col)
            count_node(pos)  # the entry's node (an empty entry is a null scalar)
            k_ok[0] = False
            allowed = True
            pos += 1
            continue
        if (c == "?" or c == ":") and (flow or blankz(pos + 1)):
            count_node(pos)  # the value's (or key's) node, possibly empty
            resolved = (
                c == ":"
                and k_ok[flow]
                and k_line[flow] == line
                and pos <= k_pos[flow] + 1024  # libyaml: a simple key is one line, 1024 chars
            )
            k_ok[flow] = False
            if flow:
                # ``[k: v]`` / ``[? k]``: a single-pair mapping around the entry of a flow
                # sequence. A simple key's KEY token goes where the key started, so the
                # pair opens in the parser collection of that moment (usually the
                # innermost) and everything inside the key is one level deeper.
                allowed = False
                idx = k_pidx[flow] if resolved else len(pk) - 1
                if idx >= 0 and pk[idx] == _SEQ and not pp[idx] and not swallow:
                    pp[idx] = True
                    pairs += 1
                    after_key = c == "?"
                    count_node(pos)
                    if resolved:
                        deeper(k_max[flow] + 1, k_line[flow], k_col[flow])
                    deeper(bdepth + len(pk) + pairs, line, col)
                pos += 1
                continue
            inner = k_max[0]  # before the push below raises it
            if resolved:
                at_col, at_line, base = k_col[0], k_line[0], k_base[0]
                allowed = False
            else:  # '?' or a value without a simple key: an empty key and value possible
                count_node(pos)
                at_col, at_line, base = col, line, -1
                allowed = True
            if not cols or cols[-1] < at_col:
                cols.append(at_col)
                kinds.append(_MAP)
                indentless.append(False)
                bdepth += 1
                count_node(pos)
                deeper(bdepth, at_line, at_col)
            elif cols[-1] == at_col and kinds[-1] == _MAP and indentless[-1]:
                indentless[-1] = False  # a key at the mapping's column ends the sequence
                bdepth -= 1
            if base >= 0 and bdepth > base:  # the key's nesting now sits inside the mapping
                deeper(inner + bdepth - base, at_line, at_col)
            pos += 1
            continue
        if c == "*" or c == "&":
            save_key(col)
            allowed = False
            m = _ANCHOR_NAME.match(text, pos + 1)
            if m is None or (m.end() < n and text[m.end()] not in _AFTER_ANCHOR):
                stopped = True  # libyaml: "did not find expected alphabetic or numeric"
                break
            count_node(pos)  # an alias, or the node an anchor names (maybe empty)
            if c == "*":
                aliases += 1
                if 0 <= max_aliases < aliases:
                    raise _too_many(
                        "YAML aliases", max_aliases, name, line + 1 + line_offset, col + 1
                    )
            else:
                anchors += 1
                if 0 <= max_anchors < anchors:
                    raise _too_many(
                        "YAML anchors", max_anchors, name, line + 1 + line_offset, col + 1
                    )
            pos = m.end()
            continue
        if c == "!":
            save_key(col)
            allowed = False
            count_node(pos)
            end = _TAG.match(text, pos).end()  # type: ignore[union-attr]
            if not (blankz(end) or (flow and text[end] == ",")):
                stopped = True  # libyaml: "did not find expected whitespace or line break"
                break
            pos = end
            continue
        if (c == "|" or c == ">") and not flow:
            k_ok[0] = False
            allowed = True
            count_node(pos)
            m = _BLOCK_HEADER.match(text, pos)
            if m is None:
                stopped = True  # libyaml: bad block scalar header
                break
            digit = m.group(2) or m.group(3)
            parent = cols[-1] if cols else -1
            indent = None
            if digit:
                indent = parent + int(digit) if parent >= 0 else int(digit)
            end = _block_scalar_end(text, m.end(), indent, parent)
            if end > m.end():
                breaks = text.count("\n", pos, end)
                if breaks:
                    line += breaks
                    line_start = text.rfind("\n", pos, end) + 1
            pos = max(end, m.end())
            continue
        if c == "'" or c == '"':
            save_key(col)
            allowed = False
            count_node(pos)
            m = (_SINGLE if c == "'" else _DOUBLE).match(text, pos)
            if m is None or _DOC_MARKER_IN.search(text, pos, m.end()):
                stopped = True  # unterminated, or a document marker inside: libyaml fails
                break
            end = m.end()
            breaks = text.count("\n", pos, end)
            if breaks:
                line += breaks
                line_start = text.rfind("\n", pos, end) + 1
            pos = end
            continue
        # --- a plain scalar, or a character no token starts with
        nxt = text[pos + 1] if pos + 1 < n else "\n"
        if c in _PLAIN_EXCLUDED and not (
            (c == "-" and nxt not in " \t") or (not flow and c in "?:" and nxt not in " \t\n")
        ):
            stopped = True  # libyaml: "found character that cannot start any token"
            break
        save_key(col)
        allowed = False
        count_node(pos)
        indent = (cols[-1] if cols else -1) + 1
        run = _PLAIN_FLOW if flow else _PLAIN_BLOCK
        leading_blanks = False
        while True:
            if pos == line_start and text.startswith(("---", "..."), pos) and blankz(pos + 3):
                break
            if pos < n and text[pos] == "#":
                break
            end = run.match(text, pos).end()  # type: ignore[union-attr]
            if flow and end + 1 < n and text[end] == ":" and text[end + 1] in ",?[]{}":
                stopped = True  # libyaml 0.2.5: "found unexpected ':'"
                break
            if end > pos:
                leading_blanks = False
                pos = end
            if pos >= n or text[pos] not in " \t\n":
                break
            end = _BLANKS.match(text, pos).end()  # type: ignore[union-attr]
            breaks = text.count("\n", pos, end)
            if breaks:
                leading_blanks = True
                line += breaks
                line_start = text.rfind("\n", pos, end) + 1
            pos = end
            if not flow and pos - line_start < indent:
                break
        if stopped:
            break
        if leading_blanks:
            allowed = True

    stats.depth = best
    stats.nodes = nodes
    stats.aliases = aliases
    stats.anchors = anchors
    if stopped:
        stats.stopped_at = (line + 1 + line_offset, pos - line_start + 1)
    return stats


def _yaml_cheap_bound(text: str) -> tuple[int, int]:
    """(depth bound, node bound) from C-speed counts; sound for libyaml's scanner.

    Block collections start only where a line's leading run of blanks and ``-``/``?``/``:``
    indicators ends or inside it (simple keys, ``-``, ``?`` and complex ``:`` need
    ``simple_key_allowed``, which only a line start or those indicators give in block
    context), at strictly increasing columns, each possibly with an indentless sequence:
    at most 2 * (longest such run + 1). Flow levels need a ``[`` or ``{`` each. Every node
    is a scalar (at most one per run of non-space characters) or needs an indicator.
    """
    longest_run = max(map(len, _LEADING_RUN.findall(text)), default=0)
    brackets = text.count("[") + text.count("{")
    depth = 2 * (longest_run + 1) + brackets
    words = text.count(" ") + text.count("\t") + text.count("\n") + 1
    indicators = text.count(":") + text.count("-") + text.count("?")
    nodes = 1 + words + brackets + text.count(",") + 2 * indicators
    return depth, nodes


_LEADING_RUN = re.compile(r"^[ \t\ufeff]*+(?:[-?:](?=[ \t]|$)[ \t\ufeff]*+)*+", re.MULTILINE)


def check_yaml(
    text: str,
    name: str = "<input>",
    limits: InputLimits | None = None,
    *,
    line_offset: int = 0,
    check_lines: bool = True,
) -> None:
    """Refuse YAML over ``limits`` before parsing it (:class:`LimitExceeded`, located).

    ``line_offset`` shifts reported lines for YAML cut out of a larger file (a run
    file's ``# ``-prefixed header); ``check_lines=False`` when the caller already
    checked the lines of the whole file.
    """
    limits = limits or current_limits()
    if _has_other_breaks(text):
        text = _OTHER_BREAKS.sub("\n", text)
    depth, nodes = _yaml_cheap_bound(text)
    if not (
        depth <= limits.max_depth
        and nodes <= limits.max_nodes
        and text.count("*") <= limits.max_aliases
        and text.count("&") <= limits.max_anchors
    ):
        yaml_stats(text, name, limits, line_offset=line_offset)
    if check_lines:  # after nesting: "[" * 100,000 is refused for its depth (400)
        longest, index = _longest_line(text)
        if longest > limits.max_line_length:
            raise InputTooLarge(
                f"line {index + 1 + line_offset} is {longest} characters long; the limit "
                f"is {limits.max_line_length}",
                limit="line length",
                value=limits.max_line_length,
                source=name,
                line=index + 1 + line_offset,
                column=limits.max_line_length + 1,
            )


# ------------------------------------------------------------------------------- JSON

_JSON_STRING = re.compile(r'"[^"\\]*+(?:\\[\s\S][^"\\]*+)*+"')  # unrolled: 3x faster
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
    escape into a string no UTF-8 text can hold: the store refused it (a 500, issue 28)."""
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


def check_json(text: str, name: str = "<input>", limits: InputLimits | None = None) -> None:
    """Refuse JSON nesting deeper than ``max_depth`` or with more than ``max_nodes`` values,
    and a lone surrogate escape (:func:`lone_surrogate`), located.

    The C decoder of :mod:`json` recurses per level (``RecursionError`` at ~1,000 in the
    main thread); the limit keeps every consumer of the result shallow as well.
    """
    if "\\u" in text and (pos := lone_surrogate(text)) is not None:
        line, column = _where(text, pos)
        raise LoadError(
            f"{text[pos : pos + 6]} is half of a UTF-16 surrogate pair, not a character; "
            "write the character itself (UTF-8) or both halves of its pair",
            source=name,
            line=line,
            column=column,
        )
    limits = limits or current_limits()
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
                raise _too_deep(limits, name, *_where(text, m.start()))
        elif t in "]}":
            depth -= 1
            continue
        nodes += 1
        if nodes > limits.max_nodes:
            raise _too_many("nodes", limits.max_nodes, name, *_where(text, m.start()))
    raise AssertionError("json_stats and the token scan disagree")  # pragma: no cover


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
    if _has_other_breaks(text):
        text = _OTHER_BREAKS.sub("\n", text)
    longest = _check_line_length(
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
