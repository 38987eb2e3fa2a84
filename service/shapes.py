"""Response models derived from the results' own JSON shapes: one definition of each.

A result's ``to_json()`` returns a ``TypedDict`` declared beside its dataclass (for example
:class:`reprokg.stability.result.StabilityJSON`); a route declares that ``TypedDict`` as its
``response_model`` once :func:`describe` has marked it, so the OpenAPI schema and the
answer are read from the one definition instead of a pydantic model restating it. What a
route adds (``stored``, ``notes``) is a ``TypedDict`` extending the result's.
"""

from __future__ import annotations

import ast
import functools
import inspect
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, get_args

from pydantic import ConfigDict, with_config
from typing_extensions import get_type_hints, is_typeddict


@functools.cache
def _module_docs(module: str) -> dict[str, dict[str, str]]:
    """Class name -> field -> the string under the field, for every top-level class of a
    module (its source parsed once: pydantic's own reading parses it per class and per
    schema build, which doubled the service's start)."""
    path = getattr(sys.modules[module], "__file__", None)
    if path is None:
        return {}
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    out: dict[str, dict[str, str]] = {}
    for cls in tree.body:
        if not isinstance(cls, ast.ClassDef):
            continue
        docs = out.setdefault(cls.name, {})
        for field, doc in zip(cls.body, cls.body[1:], strict=False):
            if (
                isinstance(field, ast.AnnAssign)
                and isinstance(field.target, ast.Name)
                and isinstance(doc, ast.Expr)
                and isinstance(doc.value, ast.Constant)
                and isinstance(doc.value.value, str)
            ):
                docs[field.target.id] = inspect.cleandoc(doc.value.value)
    return out


def field_docs(shape: type) -> dict[str, str]:
    """The field docstrings of a ``TypedDict`` and of the ``TypedDict``s it extends."""
    docs: dict[str, str] = {}
    for base in getattr(shape, "__orig_bases__", ()):
        if is_typeddict(base):
            docs |= field_docs(base)
    return docs | _module_docs(shape.__module__).get(shape.__name__, {})


def _with_docs(shape: type) -> Callable[[dict[str, Any]], None]:
    """pydantic's ``json_schema_extra`` for ``shape``: its fields' docstrings (inherited
    ones too) as the properties' descriptions."""
    docs, name = field_docs(shape), shape.__name__

    def extra(schema: dict[str, Any]) -> None:
        if schema.get("title") != name:
            return  # not this shape's own schema
        for key, prop in schema.get("properties", {}).items():
            if key in docs:
                prop.setdefault("description", docs[key])

    return extra


def _nested(tp: Any) -> Iterator[type]:
    """The ``TypedDict``s in a type (``list[X]``, ``dict[str, X]``, ``X | None``, …)."""
    if is_typeddict(tp):
        yield tp
    for arg in get_args(tp):
        yield from _nested(arg)


def describe(*shapes: type) -> None:
    """Each ``TypedDict``, and every one nested in it, with its fields' docstrings (its own
    and inherited ones) as the schema's descriptions."""
    for shape in shapes:
        if "__pydantic_config__" in vars(shape):
            continue  # described already
        with_config(ConfigDict(json_schema_extra=_with_docs(shape)))(shape)
        for hint in get_type_hints(shape, include_extras=True).values():
            describe(*_nested(hint))
