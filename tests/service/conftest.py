"""Service test fixtures: one demo store per session, copied for each test that writes."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def demo_store_copy(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], Path]:
    """``copy(dest)`` puts a store holding every bundled example at ``dest`` (the examples are
    loaded once per session: about a minute)."""
    from reprokg.service.demo import load_demo
    from reprokg.store import open_store

    master = tmp_path_factory.mktemp("demo") / "kg"
    with open_store(master) as store:
        load_demo(store)

    def copy(dest: Path) -> Path:
        shutil.copytree(master, dest)
        return dest

    return copy
