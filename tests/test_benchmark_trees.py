"""benchmarks/measures/process ``--also NAME=DIR``: the tree timed is the tree named.

A DIR without a ``reprokg`` package once fell back to the installed package, so "before"
timed the code after the change (benchmarks/README.md says which runs).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import reprokg
from benchmarks.measures.process import _check_imported, _importable

ROOT = Path(reprokg.__file__).resolve().parent


def _env(path: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": path}


def test_a_repository_root_is_timed_through_a_link_to_it(tmp_path: Path) -> None:
    path = _importable(ROOT, tmp_path / "before")
    assert (Path(path) / "reprokg").resolve() == ROOT
    _check_imported("before", Path(path), _env(path))  # imports the tree named


def test_a_folder_holding_the_package_is_used_as_it_is(tmp_path: Path) -> None:
    (tmp_path / "reprokg").symlink_to(ROOT)
    assert _importable(tmp_path, tmp_path / "links") == str(tmp_path)


def test_a_folder_with_no_package_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="holds no reprokg package"):
        _importable(tmp_path, tmp_path / "links")


def test_a_path_that_imports_another_tree_is_refused(tmp_path: Path) -> None:
    # nothing named reprokg there: Python imports the installed package
    with pytest.raises(SystemExit, match=r"imports /.*__init__\.py, not "):
        _check_imported("before", tmp_path, _env(str(tmp_path)))


def test_a_folder_without_init_is_refused(tmp_path: Path) -> None:
    (tmp_path / "reprokg").mkdir()  # a namespace package, not the tree
    with pytest.raises(SystemExit, match="namespace package"):
        _check_imported("before", tmp_path, _env(str(tmp_path)))
