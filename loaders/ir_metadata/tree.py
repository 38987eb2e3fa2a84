"""PRIMAD trees from other formats: a run described as an ir_metadata mapping, and back.

Importers (RO-Crate, MLflow, OpenML) say what they know of a run as a plain ir_metadata
mapping (canonical keys, plain values) and :func:`run_document` turns it into a ``run``
document through the ir_metadata loader itself, so every format's runs are the same
triples, validated by the same shapes and compared by the same PRIMAD comparison.

:func:`flatten` and :func:`unflatten` write such a mapping as (JSON pointer, value) pairs
and read it back: how an RO-Crate carries every PRIMAD field of a run losslessly as
``PropertyValue`` entities (``docs/exchange.md``).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from reprokg.core.document import Document
from reprokg.core.errors import LoadError
from reprokg.loaders.reading.contract import LoaderInfo

#: top-level keys of a run that are not in one of the six components
RUN_KEYS = ("schema-version", "run-version", "tag")
#: the six PRIMAD components, in signature order
COMPONENTS = ("platform", "research goal", "implementation", "method", "actor", "data")
_INDEX_RE = re.compile(r"^(0|[1-9][0-9]*)$")

Scalar = str | int | float | bool


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def flatten(tree: Any, pointer: str = "") -> list[tuple[str, Scalar]]:
    """The leaves of ``tree`` as (RFC 6901 JSON pointer, value) pairs, in tree order.

    Sequences are indexed from 0; ``None`` and empty collections write nothing (the
    loader reads neither as a value).
    """
    if isinstance(tree, dict):
        out: list[tuple[str, Scalar]] = []
        for k, v in tree.items():
            out += flatten(v, f"{pointer}/{_escape(str(k))}")
        return out
    if isinstance(tree, list):
        out = []
        for i, v in enumerate(tree):
            out += flatten(v, f"{pointer}/{i}")
        return out
    if tree is None:
        return []
    if isinstance(tree, bool | int | float):
        return [(pointer, tree)]
    return [(pointer, str(tree))]


def unflatten(pairs: list[tuple[str, Scalar]], *, source: str = "<pairs>") -> dict[str, Any]:
    """The mapping :func:`flatten` wrote ``pairs`` from. A node whose keys are exactly
    0, 1, … is a sequence (ir_metadata has no mapping keyed by numbers)."""
    root: dict[str, Any] = {}
    for pointer, value in pairs:
        if not pointer.startswith("/"):
            raise LoadError(
                f"{pointer!r} is not a JSON pointer; expected /component/field/…",
                source=source,
                field=pointer,
            )
        tokens = [_unescape(t) for t in pointer[1:].split("/")]
        node = root
        for t in tokens[:-1]:
            child = node.setdefault(t, {})
            if not isinstance(child, dict):
                raise LoadError(
                    f"{pointer!r} goes below the value of {t!r}", source=source, field=pointer
                )
            node = child
        if tokens[-1] in node:
            raise LoadError(f"{pointer!r} is given twice", source=source, field=pointer)
        node[tokens[-1]] = value
    return _sequences(root)


def _sequences(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    items = {k: _sequences(v) for k, v in node.items()}
    keys = list(items)
    if keys and all(_INDEX_RE.match(k) for k in keys):
        indices = sorted(int(k) for k in keys)
        if indices == list(range(len(indices))):
            return [items[str(i)] for i in indices]
    return items


def tree_yaml(tree: dict[str, Any]) -> bytes:
    """The tree as ir_metadata YAML, for the run loader to read: libyaml's emitter where
    PyYAML has it (the pure-Python one was a third of an MLflow import's time; the text is
    read back at once, never shown, so its layout may differ from ``dump_yaml``'s)."""
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    text = yaml.dump(
        tree,
        Dumper=dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=4096,
    )
    return text.encode("utf-8")


def run_document(
    tree: dict[str, Any],
    *,
    name: str,
    record: bytes,
    source_key: str,
    producer: LoaderInfo,
) -> Document:
    """A ``run`` document of the PRIMAD ``tree`` (canonical ir_metadata keys).

    ``record`` is what the document is named by (the normalised source record the tree
    was read from, e.g. canonical JSON of one MLflow run): the same record is the same
    document, whichever container it came in. ``name`` names the record for messages
    (``mlruns.zip#experiment/run``); errors carry it and the tree's path (no line: the
    YAML is generated).
    """
    from reprokg.loaders.ir_metadata.loader import load_run_file

    data = tree_yaml(tree)
    try:  # the run loader reads the dump (a dump it cannot read is its LoadError)
        doc, _run = load_run_file(data, name, assume_yaml=True, source=record)
    except LoadError as exc:
        exc.line = exc.column = None
        exc.source = name
        exc.args = (str(exc),)
        raise
    doc.loader, doc.loader_version = producer.name, producer.version
    doc.source_key = source_key
    doc.lines = {}
    for m in doc.messages:
        m.line = None
    return doc
