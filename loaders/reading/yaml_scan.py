"""The YAML pre-scan: how deep libyaml's composer would nest a text, before any parser runs.

Why: see :mod:`reprokg.loaders.reading.limits` (a C composer that recursed per level, Python
parsers that stop at the recursion limit). The scan follows libyaml 0.2.5's scanner (the
tokens the C composer nests on): flow levels, the block indentation stack
(``roll_indent``/``unroll_indent``), simple keys, indentless sequences,
quoted/plain/block scalars, comments and document markers. It is conservative: it never
reports less nesting than libyaml's events reach (tests compare it with the events on
generated and adversarial texts); where it stops early, libyaml has already failed with a
syntax error at that point. A cheap bound (indentation plus bracket count, C-speed
``str`` methods) accepts ordinary documents before the exact scan.
"""

from __future__ import annotations

import re

from reprokg.loaders.reading.limits import (
    InputLimits,
    ScanStats,
    check_line_length,
    current_limits,
    line_and_column,
    normalise_breaks,
    too_deep,
    too_many,
)

__all__ = ["check_yaml", "yaml_stats"]

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
    return _Scanner(normalise_breaks(text), name, limits, line_offset).scan()


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
    text = normalise_breaks(text)
    depth, nodes = _yaml_cheap_bound(text)
    if not (
        depth <= limits.max_depth
        and nodes <= limits.max_nodes
        and text.count("*") <= limits.max_aliases
        and text.count("&") <= limits.max_anchors
    ):
        yaml_stats(text, name, limits, line_offset=line_offset)
    if check_lines:  # after nesting: "[" * 100,000 is refused for its depth (400)
        check_line_length(text, name, limits, "line", line_offset)


_LEADING_RUN = re.compile(r"^[ \t\ufeff]*+(?:[-?:](?=[ \t]|$)[ \t\ufeff]*+)*+", re.MULTILINE)


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


class _Level:
    """A scanner flow level (the first one is the block context): the possible simple key
    saved there (libyaml's ``simple_keys``) and how deep it nested."""

    def __init__(self) -> None:
        self.key_ok = False
        self.key_line = self.key_col = self.key_pos = 0
        self.key_base = 0  # total depth when the key was saved
        self.key_max = 0  # deepest total depth reached inside the key
        self.key_pidx = -1  # the parser collection the key's entry belongs to
        self.deepest = 0  # deepest total depth reached inside this level


class _Scanner:
    """One scan of one text: the state libyaml's scanner and parser keep, and a method per
    token family. Each token method starts at ``self.pos`` (the token's first character,
    column ``col``) and moves ``pos`` past it; those that can meet a libyaml syntax error
    return ``False`` there, leaving ``pos`` where the error is."""

    def __init__(self, text: str, name: str, limits: InputLimits | None, line_offset: int) -> None:
        self.text, self.n, self.name, self.limits = text, len(text), name, limits
        self.line_offset = line_offset
        self.max_depth = limits.max_depth if limits else -1
        self.max_nodes = limits.max_nodes if limits else -1
        self.max_aliases = limits.max_aliases if limits else -1
        self.max_anchors = limits.max_anchors if limits else -1
        self.stats = ScanStats()
        # the indentation stack (columns, _SEQ / _MAP, an indentless sequence open at the
        # mapping's own column), like libyaml's ``indents``; bdepth = block collections open
        self.indents: list[int] = []
        self.indent_kinds: list[int] = []
        self.indentless: list[bool] = []
        self.bdepth = 0
        # the parser's flow collections (_SEQ / _MAP, a single-pair mapping open in the
        # current entry); usually one per scanner flow level, but libyaml 0.2.5's parser swallows a
        # ``]`` that follows an explicit ``?`` in a flow sequence (fixed upstream in 840b65c,
        # unreleased), keeping that sequence open while the scanner's flow level drops:
        # ``[[? ]: `` * n nests 2n deep with a flow level of 2. So depth counts these.
        self.flow_kinds: list[int] = []
        self.in_pair: list[bool] = []
        self.pairs = 0  # single-pair mappings open (all flow levels)
        self.after_key = False  # the last token was a ``?`` that opened a pair in [ ]
        self.levels = [_Level()]  # the scanner's flow levels; levels[flow] is the current
        self.flow = 0
        self.allowed = True  # libyaml's simple_key_allowed
        self.line = self.line_start = self.pos = 0
        if text and text[0] == "\ufeff":  # the reader drops a leading BOM (no column)
            self.pos = self.line_start = 1
        self.best = self.nodes = self.aliases = self.anchors = 0

    def scan(self) -> ScanStats:
        """Read tokens to the end, or to where libyaml would stop with a syntax error."""
        text, n = self.text, self.n
        stopped = False
        while True:
            self._skip_to_token()
            col = self.pos - self.line_start
            if not self.flow and self.indents and self.indents[-1] > col:
                self._unroll_indent(col)
            if self.pos >= n:
                break
            swallow = self.after_key  # 0.2.5: the token after ``[?`` if it is ``]``/``,``/``:``
            self.after_key = False
            if not self._token(text[self.pos], col, swallow):
                stopped = True
                break
        stats = self.stats
        stats.depth, stats.nodes = self.best, self.nodes
        stats.aliases, stats.anchors = self.aliases, self.anchors
        if stopped:
            stats.stopped_at = (self.line + 1 + self.line_offset, self.pos - self.line_start + 1)
        return stats

    def _token(self, c: str, col: int, swallow: bool) -> bool:
        """The token starting with ``c``, by libyaml's fetch_next_token order."""
        pos, flow = self.pos, self.flow
        if col == 0 and c == "%":
            self._directive()
        elif col == 0 and c in "-." and self.text.startswith(c * 3, pos) and self._blankz(pos + 3):
            self._document_marker()
        elif c == "[" or c == "{":
            self._flow_start(c, col)
        elif c == "]" or c == "}" or c == ",":
            self._flow_end_or_entry(c, swallow)
        elif c == "-" and self._blankz(pos + 1):
            self._block_entry(col)
        elif (c == "?" or c == ":") and (flow or self._blankz(pos + 1)):
            self._key_or_value(c, col, swallow)
        elif c == "*" or c == "&":
            return self._alias_or_anchor(c, col)
        elif c == "!":
            return self._tag(col)
        elif (c == "|" or c == ">") and not flow:
            return self._block_scalar()
        elif c == "'" or c == '"':
            return self._quoted(c, col)
        else:
            return self._plain(c, col)
        return True

    # ------------------------------------------------------------------- bookkeeping

    def _skip_to_token(self) -> None:
        """libyaml's scan_to_next_token: blanks, comments, line breaks; a BOM at column 0
        is skipped like a space (and counts a column)."""
        text, n, pos = self.text, self.n, self.pos
        while True:
            if pos == self.line_start and pos < n and text[pos] == "\ufeff":
                pos += 1
            # the pattern matches the empty string
            pos = _WS_COMMENT.match(text, pos).end()  # type: ignore[union-attr]
            if pos < n and text[pos] == "\n":
                pos += 1
                self.line += 1
                self.line_start = pos
                if not self.flow:
                    self.allowed = True
                continue
            break
        self.pos = pos

    def _unroll_indent(self, col: int) -> None:
        """Close the block collections indented deeper than ``col``."""
        indents = self.indents
        while indents and indents[-1] > col:
            indents.pop()
            self.indent_kinds.pop()
            self.bdepth -= 2 if self.indentless.pop() else 1

    def _roll_indent(self, col: int, kind: int) -> None:
        """Open a block collection at ``col`` (libyaml's roll_indent)."""
        self.indents.append(col)
        self.indent_kinds.append(kind)
        self.indentless.append(False)
        self.bdepth += 1

    def _lines_between(self, start: int, end: int) -> None:
        """Count the line breaks a token spanning ``text[start:end]`` crossed."""
        breaks = self.text.count("\n", start, end)
        if breaks:
            self.line += breaks
            self.line_start = self.text.rfind("\n", start, end) + 1

    def _blankz(self, i: int) -> bool:
        return i >= self.n or self.text[i] in " \t\n"

    def _deeper(self, d: int, at_line: int, at_col: int) -> None:
        """Total depth ``d`` reached by a collection opened at (0-based) ``at_line, at_col``."""
        level = self.levels[-1]
        if d > level.key_max:
            level.key_max = d
        if d > level.deepest:
            level.deepest = d
        if d > self.best:
            self.best = d
            line = at_line + 1 + self.line_offset
            self.stats.deepest_at = (line, at_col + 1)
            if 0 <= self.max_depth < d:
                # max_depth >= 0 only when limits are given
                raise too_deep(self.limits, self.name, line, at_col + 1)  # type: ignore[arg-type]

    def _count_node(self, at: int) -> None:
        self.nodes += 1
        if 0 <= self.max_nodes < self.nodes:
            ln, c = line_and_column(self.text, at)
            raise too_many("nodes", self.max_nodes, self.name, ln + self.line_offset, c)

    def _save_key(self, col: int) -> None:
        """libyaml's save_simple_key: the next token may be a key (if keys are allowed)."""
        if self.allowed:
            level = self.levels[-1]
            level.key_ok, level.key_line, level.key_col = True, self.line, col
            level.key_pos = self.pos
            level.key_base = level.key_max = self.bdepth + len(self.flow_kinds) + self.pairs
            level.key_pidx = len(self.flow_kinds) - 1

    # ---------------------------------------------------- directives, document markers

    def _directive(self) -> None:
        """``%`` at column 0: libyaml reads (or ignores) the line."""
        eol = self.text.find("\n", self.pos)
        self.pos = self.n if eol < 0 else eol
        self.levels[-1].key_ok = False
        self.allowed = False

    def _document_marker(self) -> None:
        """``---`` or ``...`` at column 0: a new document, possibly with an empty root."""
        self.levels[-1].key_ok = False
        self.allowed = False
        if self.flow or self.flow_kinds:
            # inside [ ] / { }: the parser fails here, but a pending key can still wrap
            # what came before
            self.pos += 3
            return
        self.indents.clear()
        self.indent_kinds.clear()
        self.indentless.clear()
        self.bdepth = 0
        self._count_node(self.pos)
        self.pos += 3

    # ------------------------------------------------------------- flow collections

    def _flow_start(self, c: str, col: int) -> None:
        """``[`` or ``{``: a flow level, and a collection for the parser."""
        self._save_key(col)
        self.flow += 1
        self.flow_kinds.append(_SEQ if c == "[" else _MAP)
        self.in_pair.append(False)
        self.levels.append(_Level())
        self.allowed = True
        self._count_node(self.pos)
        if c == "{":  # an entry ``{k}`` has an empty value node
            self._count_node(self.pos)
        self._deeper(self.bdepth + len(self.flow_kinds) + self.pairs, self.line, col)
        self.pos += 1

    def _flow_end_or_entry(self, c: str, swallow: bool) -> None:
        """``]``, ``}`` or ``,``. The parser closes the entry's pair and (for ]/}) the
        collection, unless the token is swallowed after ``[?``; in block context (no flow
        level) a stray one is a parser error, but a pending simple key may still wrap what
        came before."""
        flow_kinds, in_pair = self.flow_kinds, self.in_pair
        if not swallow and flow_kinds:
            if in_pair[-1]:
                in_pair[-1] = False
                self.pairs -= 1
            if c != ",":
                flow_kinds.pop()
                in_pair.pop()
        self.levels[-1].key_ok = False
        if c == ",":
            self.allowed = True
            if flow_kinds and flow_kinds[-1] == _MAP:
                self._count_node(self.pos)
        else:
            if self.flow:  # what nested inside this level counts for an enclosing key
                inner = self.levels.pop().deepest
                outer = self.levels[-1]
                if inner > outer.key_max:
                    outer.key_max = inner
                if inner > outer.deepest:
                    outer.deepest = inner
                self.flow -= 1
            self.allowed = False
        self.pos += 1

    # ------------------------------------------------------------ block collections

    def _block_entry(self, col: int) -> None:
        """``- ``: a sequence entry; a new sequence where the column is new, an indentless
        one at a mapping's own column."""
        if self.flow:  # a block entry inside [ ]: the parser fails here (no indentation)
            self.levels[-1].key_ok = False
            self.allowed = True
            self.pos += 1
            return
        indents = self.indents
        if not indents or indents[-1] < col:
            self._roll_indent(col, _SEQ)
            self._count_node(self.pos)
            self._deeper(self.bdepth, self.line, col)
        elif self.indent_kinds[-1] == _MAP and not self.indentless[-1]:
            self.indentless[-1] = True
            self.bdepth += 1
            self._count_node(self.pos)
            self._deeper(self.bdepth, self.line, col)
        self._count_node(self.pos)  # the entry's node (an empty entry is a null scalar)
        self.levels[-1].key_ok = False
        self.allowed = True
        self.pos += 1

    def _key_or_value(self, c: str, col: int, swallow: bool) -> None:
        """``?`` or ``:`` (a key indicator, or the value of a simple key if one resolves)."""
        self._count_node(self.pos)  # the value's (or key's) node, possibly empty
        level = self.levels[-1]
        resolved = (
            c == ":"
            and level.key_ok
            and level.key_line == self.line
            and self.pos <= level.key_pos + 1024  # libyaml: a simple key is one line, 1024 chars
        )
        level.key_ok = False
        if self.flow:
            self._flow_pair(c, col, level, resolved, swallow)
        else:
            self._block_key(col, level, resolved)
        self.pos += 1

    def _flow_pair(self, c: str, col: int, level: _Level, resolved: bool, swallow: bool) -> None:
        """``[k: v]`` / ``[? k]``: a single-pair mapping around the entry of a flow sequence.
        A simple key's KEY token goes where the key started, so the pair opens in the parser
        collection of that moment (usually the innermost) and everything inside the key is
        one level deeper."""
        self.allowed = False
        idx = level.key_pidx if resolved else len(self.flow_kinds) - 1
        if idx >= 0 and self.flow_kinds[idx] == _SEQ and not self.in_pair[idx] and not swallow:
            self.in_pair[idx] = True
            self.pairs += 1
            self.after_key = c == "?"
            self._count_node(self.pos)
            if resolved:
                self._deeper(level.key_max + 1, level.key_line, level.key_col)
            self._deeper(self.bdepth + len(self.flow_kinds) + self.pairs, self.line, col)

    def _block_key(self, col: int, level: _Level, resolved: bool) -> None:
        """A key in block context: a new mapping where its column is new; a key at the
        mapping's own column ends an indentless sequence there."""
        inner = level.key_max  # before the roll below raises it
        if resolved:
            at_col, at_line, base = level.key_col, level.key_line, level.key_base
            self.allowed = False
        else:  # '?' or a value without a simple key: an empty key and value possible
            self._count_node(self.pos)
            at_col, at_line, base = col, self.line, -1
            self.allowed = True
        indents = self.indents
        if not indents or indents[-1] < at_col:
            self._roll_indent(at_col, _MAP)
            self._count_node(self.pos)
            self._deeper(self.bdepth, at_line, at_col)
        elif indents[-1] == at_col and self.indent_kinds[-1] == _MAP and self.indentless[-1]:
            self.indentless[-1] = False
            self.bdepth -= 1
        if base >= 0 and self.bdepth > base:  # the key's nesting now sits inside the mapping
            self._deeper(inner + self.bdepth - base, at_line, at_col)

    # ------------------------------------------------------------ node properties

    def _alias_or_anchor(self, c: str, col: int) -> bool:
        """``*name`` (an alias node) or ``&name`` (names the node that follows)."""
        self._save_key(col)
        self.allowed = False
        text, pos = self.text, self.pos
        m = _ANCHOR_NAME.match(text, pos + 1)
        if m is None or (m.end() < self.n and text[m.end()] not in _AFTER_ANCHOR):
            return False  # libyaml: "did not find expected alphabetic or numeric character"
        self._count_node(pos)  # an alias, or the node an anchor names (maybe empty)
        where = self.line + 1 + self.line_offset, col + 1
        if c == "*":
            self.aliases += 1
            if 0 <= self.max_aliases < self.aliases:
                raise too_many("YAML aliases", self.max_aliases, self.name, *where)
        else:
            self.anchors += 1
            if 0 <= self.max_anchors < self.anchors:
                raise too_many("YAML anchors", self.max_anchors, self.name, *where)
        self.pos = m.end()
        return True

    def _tag(self, col: int) -> bool:
        self._save_key(col)
        self.allowed = False
        self._count_node(self.pos)
        # called at a '!': the pattern matches it
        end = _TAG.match(self.text, self.pos).end()  # type: ignore[union-attr]
        if not (self._blankz(end) or (self.flow and self.text[end] == ",")):
            return False  # libyaml: "did not find expected whitespace or line break"
        self.pos = end
        return True

    # ------------------------------------------------------------------- scalars

    def _block_scalar(self) -> bool:
        """``|`` or ``>`` in block context: the header, then every line indented enough."""
        self.levels[-1].key_ok = False
        self.allowed = True
        self._count_node(self.pos)
        m = _BLOCK_HEADER.match(self.text, self.pos)
        if m is None:
            return False  # libyaml: bad block scalar header
        digit = m.group(2) or m.group(3)
        parent = self.indents[-1] if self.indents else -1
        indent = None
        if digit:
            indent = parent + int(digit) if parent >= 0 else int(digit)
        end = _block_scalar_end(self.text, m.end(), indent, parent)
        if end > m.end():
            self._lines_between(self.pos, end)
        self.pos = max(end, m.end())
        return True

    def _quoted(self, c: str, col: int) -> bool:
        self._save_key(col)
        self.allowed = False
        self._count_node(self.pos)
        m = (_SINGLE if c == "'" else _DOUBLE).match(self.text, self.pos)
        if m is None or _DOC_MARKER_IN.search(self.text, self.pos, m.end()):
            return False  # unterminated, or a document marker inside: libyaml fails
        self._lines_between(self.pos, m.end())
        self.pos = m.end()
        return True

    def _plain(self, c: str, col: int) -> bool:
        """A plain scalar (possibly over several lines), or a character no token starts
        with (libyaml: "found character that cannot start any token")."""
        text, n, pos, flow = self.text, self.n, self.pos, self.flow
        nxt = text[pos + 1] if pos + 1 < n else "\n"
        if c in _PLAIN_EXCLUDED and not (
            (c == "-" and nxt not in " \t") or (not flow and c in "?:" and nxt not in " \t\n")
        ):
            return False
        self._save_key(col)
        self.allowed = False
        self._count_node(pos)
        indent = (self.indents[-1] if self.indents else -1) + 1
        run = _PLAIN_FLOW if flow else _PLAIN_BLOCK
        leading_blanks = False
        while True:
            if (
                pos == self.line_start
                and text.startswith(("---", "..."), pos)
                and self._blankz(pos + 3)
            ):
                break
            if pos < n and text[pos] == "#":
                break
            # the run may be empty: always matches
            end = run.match(text, pos).end()  # type: ignore[union-attr]
            if flow and end + 1 < n and text[end] == ":" and text[end + 1] in ",?[]{}":
                self.pos = pos
                return False  # libyaml 0.2.5: "found unexpected ':'"
            if end > pos:
                leading_blanks = False
                pos = end
            if pos >= n or text[pos] not in " \t\n":
                break
            # the pattern matches the empty string
            end = _BLANKS.match(text, pos).end()  # type: ignore[union-attr]
            breaks = text.count("\n", pos, end)
            if breaks:
                leading_blanks = True
                self.line += breaks
                self.line_start = text.rfind("\n", pos, end) + 1
            pos = end
            if not flow and pos - self.line_start < indent:
                break
        self.pos = pos
        if leading_blanks:
            self.allowed = True
        return True
