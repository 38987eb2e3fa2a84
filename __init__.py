"""reprokg: a reproducibility knowledge graph for computational research.

The repository root is the package (``package-dir = {"reprokg" = "."}``), so
``loaders/`` is ``reprokg.loaders`` and ``ontology/``, ``shapes/`` and
``queries/`` ship as package data found through :mod:`reprokg.core.resources`.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
