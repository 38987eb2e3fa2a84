"""YAML from untrusted sources: scalars kept as written, aliases and nodes bounded.

YAML scalars come back as :class:`Scalar` (a ``str`` keeping the text exactly as
written, plus its line) so loaders decide types from the schema, not from YAML 1.1
guessing: an unquoted commit ``1234567``, a version ``3.10`` or ``0123`` and the words
``yes``/``no`` keep their text. ``Scalar.implicit`` gives what ``yaml.safe_load`` would
have made, for fields whose schema type really is a number or boolean.
"""

from __future__ import annotations

from typing import Any

import yaml

from reprokg.core.errors import InputTooLarge, LoadError
from reprokg.loaders.reading.limits import current_limits
from reprokg.loaders.reading.yaml_scan import check_yaml


class Scalar(str):
    """A YAML scalar's text as written, with its position and implicit YAML type."""

    line: int
    column: int
    tag: str
    quoted: bool

    def __new__(cls, text: str, *, line: int, column: int, tag: str, quoted: bool) -> Scalar:
        obj = super().__new__(cls, text)
        obj.line = line
        obj.column = column
        obj.tag = tag
        obj.quoted = quoted
        return obj

    @property
    def implicit(self) -> Any:
        """The value ``yaml.safe_load`` would give this scalar."""
        if self.quoted:
            return str(self)
        node = yaml.ScalarNode(self.tag, str(self))
        return yaml.SafeLoader(" ").construct_object(node)

    @property
    def is_null(self) -> bool:
        return not self.quoted and self.tag == "tag:yaml.org,2002:null"


class _ScalarLoader(yaml.SafeLoader):
    """SafeLoader whose scalars keep their text; aliases are counted to stop alias bombs."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._aliases = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            limit = current_limits().max_aliases
            if self._aliases > limit:  # a backstop: check_yaml counted the ``*`` already
                event = self.peek_event()
                raise yaml.MarkedYAMLError(
                    problem=f"more than {limit} YAML aliases (alias bomb?)",
                    problem_mark=event.start_mark,
                )
        return super().compose_node(parent, index)

    def construct_scalar_keep(self, node: yaml.ScalarNode) -> Scalar:
        return Scalar(
            node.value,
            line=node.start_mark.line + 1,
            column=node.start_mark.column + 1,
            tag=node.tag,
            quoted=node.style in ("'", '"', "|", ">"),
        )


_FastScalarLoader: type[yaml.CSafeLoader] | None = None
if getattr(yaml, "__with_libyaml__", False):
    # the None above is the no-libyaml case
    class _FastScalarLoader(yaml.CSafeLoader):  # type: ignore[no-redef]
        """LibYAML (C) parser, same scalars; only for texts that cannot hold an alias.

        The C composer cannot count aliases, so :func:`parse_yaml` uses it only when
        the text has no ``*`` at all (an alias needs one; its speed:
        benchmarks/README.md#figures-once-quoted-in-code).
        """

        construct_scalar_keep = _ScalarLoader.construct_scalar_keep

        def resolve(self, kind, value, implicit):
            """PyYAML's implicit tag of a scalar (regular expressions tried in turn),
            remembered per text: keys and many values repeat in every header."""
            if kind is not yaml.ScalarNode or self.yaml_path_resolvers:
                return super().resolve(kind, value, implicit)
            key = (value, implicit)
            tag = _RESOLVED.get(key)
            if tag is None:
                if len(_RESOLVED) > 50_000:
                    _RESOLVED.clear()
                tag = _RESOLVED[key] = super().resolve(kind, value, implicit)
            return tag


_RESOLVED: dict[tuple, str] = {}


_SCALAR_TAGS = frozenset(
    {
        "tag:yaml.org,2002:str",
        "tag:yaml.org,2002:int",
        "tag:yaml.org,2002:float",
        "tag:yaml.org,2002:bool",
        "tag:yaml.org,2002:null",
        "tag:yaml.org,2002:timestamp",
    }
)
for _tag in sorted(_SCALAR_TAGS):
    _ScalarLoader.add_constructor(_tag, _ScalarLoader.construct_scalar_keep)
    if _FastScalarLoader is not None:
        _FastScalarLoader.add_constructor(_tag, _ScalarLoader.construct_scalar_keep)
_MAP_TAG, _SEQ_TAG = "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
_QUOTED_STYLES = frozenset({"'", '"', "|", ">"})


class _NotPlain(Exception):
    """A node :func:`_plain_tree` does not build (an explicit tag, a merge key, a
    non-scalar key): PyYAML's constructor builds the document instead."""


def _plain_tree(root: yaml.Node, line_offset: int, name: str) -> Any:
    """What ``construct_document`` makes of a composed document of plain mappings,
    sequences and scalars (every ir_metadata header), built in one pass: PyYAML's generic
    constructor (generators, recursion bookkeeping) was a third of loading a run header.
    Lines are shifted and nodes counted as :func:`parse_yaml` does afterwards for the
    general path (``_shift_lines``, ``_count_nodes``); only used for alias-free texts,
    where no node is shared. Iterative (an explicit stack): no input nests it into a
    ``RecursionError``, whatever got past the pre-scan.
    """
    budget = current_limits().max_nodes
    scalar_tags, quoted_styles = _SCALAR_TAGS, _QUOTED_STYLES
    scalar_node, mapping_node, sequence_node = yaml.ScalarNode, yaml.MappingNode, yaml.SequenceNode

    new_str = str.__new__

    def scalar(node: yaml.Node) -> Scalar:
        """``Scalar(…)`` without its keyword call: a header has a hundred scalars."""
        tag = node.tag
        if tag not in scalar_tags:
            raise _NotPlain
        mark = node.start_mark
        obj = new_str(Scalar, node.value)
        obj.line = mark.line + 1 + line_offset
        obj.column = mark.column + 1
        obj.tag = tag
        # a ScalarNode; the stub's Node has no style
        obj.quoted = node.style in quoted_styles  # type: ignore[attr-defined]
        return obj

    def shell(node: yaml.Node) -> Any:
        """A node's value: a scalar, or an empty container whose items are filled later."""
        nonlocal budget
        budget -= 1
        cls = type(node)
        if cls is scalar_node:
            return scalar(node)
        if cls is mapping_node and node.tag == _MAP_TAG:
            out: dict = {}
            stack.append((node, out))
            return out
        if cls is sequence_node and node.tag == _SEQ_TAG:
            items: list = []
            stack.append((node, items))
            return items
        raise _NotPlain

    stack: list[tuple[yaml.Node, Any]] = []
    value = shell(root)
    while stack:
        node, target = stack.pop()
        if type(target) is dict:
            for key_node, value_node in node.value:
                if type(key_node) is not scalar_node:
                    raise _NotPlain
                key = scalar(key_node)
                target[key] = shell(value_node)
        else:
            target.extend(shell(item) for item in node.value)
        if budget < 0:
            break
    if budget < 0:
        _too_many_nodes(name)
    return value


def _too_many_nodes(name: str) -> None:
    limit = current_limits().max_nodes
    raise InputTooLarge(
        f"YAML expands to more than {limit} nodes (alias bomb?)",
        limit="nodes",
        value=limit,
        source=name,
    )


def _count_nodes(value: Any, name: str) -> None:
    """Refuse a document of more than ``max_nodes`` values, aliases expanded (iterative:
    an alias-built document can be wide and deep)."""
    budget = current_limits().max_nodes
    stack = [value]
    while stack:
        v = stack.pop()
        budget -= 1
        if budget < 0:
            _too_many_nodes(name)
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)


def parse_yaml(text: str, name: str, *, line_offset: int = 0, check_lines: bool = True) -> Any:
    """One YAML document with :class:`Scalar` leaves; syntax errors carry line and column.

    ``line_offset`` shifts reported lines when the YAML was cut out of a larger file
    (a run file's header); ``check_lines=False`` when the caller checked the lines of the
    whole file already. The text is checked against the input limits first
    (:func:`~reprokg.loaders.reading.yaml_scan.check_yaml`: depth, nodes, aliases, line length), so
    neither the C composer nor anything recursive sees a deeper document.
    """
    check_yaml(text, name, line_offset=line_offset, check_lines=check_lines)
    use_c = _FastScalarLoader is not None and "*" not in text
    loader = None
    try:
        # the reader checks the characters when the loader is made: inside the try
        # use_c: it is not None
        loader = _FastScalarLoader(text) if use_c else _ScalarLoader(text)  # type: ignore[misc]
        if use_c:  # no alias: build plain documents directly (lines shifted, nodes counted)
            node = loader.get_single_node()
            if node is None:
                return None
            try:
                return _plain_tree(node, line_offset, name)
            except _NotPlain:
                value = loader.construct_document(node)
        else:
            value = loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise LoadError(
            f"YAML syntax error: {exc.problem or exc.context}",
            source=name,
            line=(mark.line + 1 + line_offset) if mark else None,
            column=(mark.column + 1) if mark else None,
        ) from exc
    except yaml.reader.ReaderError as exc:
        line, column = _line_column(text, exc.position)
        char = chr(exc.character) if isinstance(exc.character, int) else exc.character
        raise LoadError(
            f"YAML cannot hold the character {char!r} ({exc.reason})",
            source=name,
            line=line + line_offset,
            column=column,
        ) from exc
    except yaml.YAMLError as exc:
        raise LoadError(f"YAML error: {exc}", source=name) from exc
    finally:
        if loader is not None:
            loader.dispose()
    _shift_lines(value, line_offset)
    _count_nodes(value, name)
    return value


def _line_column(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    pos = max(0, min(pos, len(text)))
    return text.count("\n", 0, pos) + 1, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _shift_lines(value: Any, offset: int) -> None:
    """Add ``offset`` to every scalar's line, each shared (aliased) node once."""
    if not offset:
        return
    seen: set[int] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, Scalar):
            v.line += offset
        elif isinstance(v, dict):
            stack.extend(k for k in v if isinstance(k, Scalar))
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
