"""Jobs for tests/core/test_pool.py, importable by the pool's worker processes."""

from __future__ import annotations

import os
import signal
import time
from typing import Any


def misbehave(payload: tuple) -> Any:
    """``("crash",)``, ``("sleep", s)``, ``("allocate", n_bytes)``, ``("raise", message)``,
    ``("deep_yaml", n)`` (PyYAML's C composer on ``[`` * n, no limits), ``("pid",)``."""
    what = payload[0]
    if what == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    if what == "sleep":
        time.sleep(payload[1])
        return "slept"
    if what == "allocate":
        return len(bytearray(payload[1]))
    if what == "raise":
        from reprokg.core.errors import LoadError

        raise LoadError(payload[1], source="x.yaml", line=3, column=7, field="a.b")
    if what == "deep_yaml":
        import yaml

        n = payload[1]
        yaml.compose("[" * n + "]" * n, Loader=yaml.CSafeLoader)
        return "composed"
    if what == "pid":
        return os.getpid()
    if what == "unpicklable":
        return lambda: None
    return None
