"""Fixtures of the stability tests: R (lme4 + lmerTest) as the reference, when installed."""

from __future__ import annotations

import pytest

from tests.conftest import need
from tests.stability.rref import have_r


@pytest.fixture(scope="session")
def rscript() -> None:
    """Rscript with lme4 and lmerTest; skipped locally when missing, a failure in CI."""
    need(have_r(), "Rscript with lme4 and lmerTest (apt: r-base-core r-cran-lme4 r-cran-lmertest)")
