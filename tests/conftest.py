"""Shared fixtures: paths to the real data in ../shared/data."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("REPROKG_SHARED_DATA", REPO.parent / "shared" / "data"))
#: In CI every test must run: a missing engine or data set fails instead of skipping.
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def need(condition: bool, reason: str) -> None:
    """Skip locally when something external is missing; fail in CI."""
    if not condition:
        if IN_CI:
            pytest.fail(f"required in CI: {reason}")
        pytest.skip(reason)


@pytest.fixture(autouse=True)
def _fresh_settings() -> Iterator[None]:
    """Settings are read from the environment once per process; a test that changes the
    environment (monkeypatch.setenv) gets them read again on its first use."""
    from reprokg.core.settings import configure

    configure(None)
    yield
    configure(None)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    need(SHARED_DATA.is_dir(), f"real data folder {SHARED_DATA} is missing")
    return SHARED_DATA


@pytest.fixture(scope="module")
def mlrc_files(shared_data: Path) -> list[Path]:
    """The real ML Reproducibility Challenge ``metadata.yaml`` headers (71 files)."""
    files = sorted(
        (shared_data / "surveys/rescience/mlrc_metadata").glob("*/*/journal/metadata.yaml")
    )
    need(bool(files), "MLRC metadata.yaml files are missing")
    return files


@pytest.fixture(scope="module")
def mlrc_docs(mlrc_files: list[Path], shared_data: Path) -> list:
    """Those headers loaded (one document each), named relative to the data folder."""
    from reprokg.loaders import mlrc

    out: list = []
    for f in mlrc_files:
        out += mlrc.load(f.read_bytes(), str(f.relative_to(shared_data)))
    return out
