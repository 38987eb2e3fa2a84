"""The authors' packages as test oracles: ``idim`` (T. Hille; no licence declared) and
``obsdim`` (T. Hanika; AGPL-3.0-or-later) are installed by the ``[test]`` extra only and never
imported by ``reprokg.intrinsic_dimension``. A missing oracle skips its tests locally and
fails them in CI (``CI=true``), like every other external requirement (tests/conftest.py)."""

from __future__ import annotations

import importlib
from types import ModuleType

import numpy as np
import pytest

from tests.conftest import IN_CI


def oracle(name: str) -> ModuleType:
    """Import a test-only oracle or bundled-data package: an error in CI, a skip elsewhere.

    Imported inside ``np.errstate()``: idim calls ``numpy.seterr(divide="raise")`` at import,
    which would otherwise make later tests' numpy (and repro_eval's) raise on 1/0."""
    with np.errstate():
        if IN_CI:
            return importlib.import_module(name)
        return pytest.importorskip(name, reason=f"test-only dependency {name} is not installed")
