"""``reprokg compare`` keeps freed memory for the next allocation (cli/base.py): a freed
large numpy array's pages serve the next one instead of being unmapped and faulted in (and
zeroed) again. Checked by the process's page-fault count, in a child process so this test
process's malloc settings stay as they were."""

from __future__ import annotations

import subprocess
import sys

import pytest

CHILD = """
import resource, sys
import numpy as np
from reprokg.cli.base import keep_freed_memory

applied = keep_freed_memory() if sys.argv[1] == "keep" else None
sizes = (2**15, 2**16, 2**17, 2**18, 2**19)  # 256 KiB to 4 MiB of float64, as temporaries
arrays = [np.ones(n) for n in sizes]
del arrays
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    arrays = [np.ones(n) for n in sizes]
    del arrays
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before, applied)
"""


def _faults(mode: str) -> tuple[int, str]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, mode], capture_output=True, text=True, check=True
    ).stdout.split()
    return int(out[0]), out[1]


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_a_freed_array_is_reused_without_page_faults() -> None:
    default, _ = _faults("default")
    kept, applied = _faults("keep")
    if applied != "True":
        pytest.skip("no glibc mallopt here")
    assert default > 500  # glibc's default: given back on free, faulted in (zeroed) again
    assert kept < 50  # kept: the freed pages serve the next arrays
