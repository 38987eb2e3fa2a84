"""A store holding every source of ../shared/data, built once per session by the field
build (``reprokg field build``: its list of sources is evidence/field.py's, the one)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def field_build(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of one field build of ../shared/data: ``store/`` and ``out/`` (the dump and
    its manifest)."""
    from reprokg.cli import main

    d = tmp_path_factory.mktemp("field")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(
            [
                "field",
                "build",
                str(shared_data),
                "--store",
                str(d / "store"),
                "--out",
                str(d / "out"),
            ]
        )
    assert code == 0, out.getvalue()[-2000:]
    (d / "build.txt").write_text(out.getvalue(), encoding="utf-8")
    return d


@pytest.fixture(scope="session")
def field_store(field_build: Path) -> Path:
    """Every source of ../shared/data in one store."""
    return field_build / "store"
