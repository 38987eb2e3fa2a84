"""Package data (ontology, shapes, queries, examples) via importlib.resources.

Never by paths relative to the checkout: the installed wheel has no checkout.
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from importlib.resources.abc import Traversable


def root() -> Traversable:
    return resources.files("reprokg")


def data_dir(name: str) -> Traversable:
    """``ontology``, ``shapes``, ``queries``, ``examples`` …"""
    return root().joinpath(name)


def iter_files(name: str, suffix: str) -> Iterator[Traversable]:
    """Files in a data folder with the given suffix, in name order (deterministic)."""
    folder = data_dir(name)
    if not folder.is_dir():
        return iter(())
    return iter(
        sorted((f for f in folder.iterdir() if f.name.endswith(suffix)), key=lambda f: f.name)
    )
