"""Shared fixtures: paths to the real data in ../shared/data."""

from __future__ import annotations

import os
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


@pytest.fixture(scope="session")
def shared_data() -> Path:
    need(SHARED_DATA.is_dir(), f"real data folder {SHARED_DATA} is missing")
    return SHARED_DATA
