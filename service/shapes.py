"""Response models derived from the results' own JSON shapes: one definition of each.

A result's ``to_json()`` returns a ``TypedDict`` declared beside its dataclass (for example
:class:`reprokg.stability.result.StabilityJSON`); a route declares that ``TypedDict`` as its
``response_model`` once :func:`describe` has marked it, so the OpenAPI schema and the
answer are read from the one definition instead of a pydantic model restating it.
"""

from __future__ import annotations

from pydantic import ConfigDict, with_config

_DESCRIBED = ConfigDict(use_attribute_docstrings=True)


def describe(*shapes: type) -> None:
    """Each ``TypedDict`` with its attribute docstrings as the schema's field descriptions
    (pydantic reads them when asked; the shapes nested in one inherit the setting)."""
    for shape in shapes:
        with_config(_DESCRIBED)(shape)
