"""reprokg: a reproducibility knowledge graph for computational research.

The repository root is the package (``package-dir = {"reprokg" = "."}``), so
``loaders/`` is ``reprokg.loaders`` and ``ontology/``, ``shapes/`` and
``queries/`` ship as package data found through :mod:`reprokg.core.resources`.

``import reprokg`` gives the Python API (:mod:`reprokg.api`, docs/python.md): open a
store, load, validate, query, compare, evaluate, analyse stability, passport, export,
save. Each name is imported on first use, so ``import reprokg`` loads no rdflib, pandas or
pyoxigraph (the command line's ``--help`` stays instant).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reprokg.api import (
        analyse_stability,
        compare,
        evaluate,
        export,
        load,
        open_store,
        passport,
        query,
        save,
        validate,
    )

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "analyse_stability",
    "compare",
    "evaluate",
    "export",
    "load",
    "open_store",
    "passport",
    "query",
    "save",
    "validate",
]

#: the names of the Python API, each read from :mod:`reprokg.api` when first asked for
API = frozenset(__all__) - {"__version__"}


def __getattr__(name: str) -> object:
    """An API function imported when first used (PEP 562), then kept as a module attribute."""
    if name in API:
        from reprokg import api

        value = getattr(api, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'reprokg' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *API})
