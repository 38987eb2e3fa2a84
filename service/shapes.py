"""Response models derived from the results' own JSON shapes: one definition of each.

A result's ``to_json()`` returns a ``TypedDict`` declared beside its dataclass (for example
:class:`reprokg.stability.result.StabilityJSON`); a route declares that ``TypedDict`` as its
``response_model`` once :func:`describe` has marked it, so the OpenAPI schema and the
answer are read from the one definition instead of a pydantic model restating it. What a
route adds (``stored``, ``notes``) is a ``TypedDict`` extending the result's.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable
from typing import Any

from pydantic import ConfigDict, with_config
from typing_extensions import is_typeddict


def field_docs(shape: type) -> dict[str, str]:
    """The attribute docstrings of a ``TypedDict`` and of the ``TypedDict``s it extends
    (the string under a field: what pydantic reads, which stops at the class itself)."""
    docs: dict[str, str] = {}
    for base in getattr(shape, "__orig_bases__", ()):
        if is_typeddict(base):
            docs |= field_docs(base)
    (cls,) = ast.parse(textwrap.dedent(inspect.getsource(shape))).body
    assert isinstance(cls, ast.ClassDef)
    for field, doc in zip(cls.body, cls.body[1:], strict=False):
        if (
            isinstance(field, ast.AnnAssign)
            and isinstance(field.target, ast.Name)
            and isinstance(doc, ast.Expr)
            and isinstance(doc.value, ast.Constant)
            and isinstance(doc.value.value, str)
        ):
            docs[field.target.id] = inspect.cleandoc(doc.value.value)
    return docs


def _with_inherited_docs(shape: type) -> Callable[[dict[str, Any]], None]:
    """pydantic's ``json_schema_extra`` for ``shape``: its fields' docstrings (inherited
    ones too) as descriptions, on its own schema only (shapes nested in it inherit it)."""
    docs, name = field_docs(shape), shape.__name__

    def extra(schema: dict[str, Any]) -> None:
        if schema.get("title") != name:
            return
        for key, prop in schema.get("properties", {}).items():
            if key in docs:
                prop.setdefault("description", docs[key])

    return extra


def describe(*shapes: type) -> None:
    """Each ``TypedDict`` with its fields' docstrings (its own and inherited ones) as the
    schema's descriptions."""
    for shape in shapes:
        config = ConfigDict(
            use_attribute_docstrings=True, json_schema_extra=_with_inherited_docs(shape)
        )
        with_config(config)(shape)
