"""User SHACL is a workload of its own (issue 38): ``POST /shacl`` validates in its own
worker processes (``shacl_workers``, ``shacl_timeout``, ``shacl_memory_mb``, ``shacl_wait``)
at a lower CPU priority, so anonymous validation never delays a token holder's upload.

The probe: two anonymous ``/shacl`` requests whose shapes ran until the worker was killed
held both shared parse workers, and a 1 KB ``POST /documents`` waited 18 s (up to the
300 s parse timeout with the defaults). Here the cost checks that now refuse the probe's
shapes are turned off, so the two requests really burn a SHACL worker (and wait for it)
for their whole time limit: the worst case an estimate does not see.
"""

from __future__ import annotations

import statistics
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import REPO
from tests.service.conftest import reprokg_serve
from tests.validation.test_shacl_costs import PREFIXES, cycle

TOKEN = "workload-token"
AUDIT = REPO / "examples/audits/diffpool.yaml"  # 1,167 bytes: the probe's 1 KB upload
#: ``(ex:p)*`` with sh:maxCount over a 1,000-node cycle: minutes of CPU, no answer
HOSTILE = (
    PREFIXES + "ex:S a sh:NodeShape ; sh:targetSubjectsOf ex:p ;\n"
    "  sh:property [ sh:path [ sh:zeroOrMorePath ex:p ] ; sh:maxCount 1 ] .\n"
).encode()


def _upload(url: str) -> float:
    """Seconds one 1 KB upload with the token takes (stored, or unchanged)."""
    start = time.monotonic()
    r = httpx.post(
        url + "/documents",
        params={"kind": "audit", "name": AUDIT.name},
        content=AUDIT.read_bytes(),
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/yaml"},
        timeout=120,
    )
    assert r.status_code in (200, 201), r.text
    return time.monotonic() - start


@pytest.mark.slow
def test_two_hostile_shacl_requests_do_not_delay_an_upload(tmp_path: Path) -> None:
    env = {
        "REPROKG_WRITE_TOKEN": TOKEN,
        "REPROKG_ACCESS_LOG": "0",
        "REPROKG_SHACL_TIMEOUT": "20",
        "REPROKG_SHACL_MAX_PATH_COST": str(10**15),  # the estimate off: the worker burns
    }
    with reprokg_serve(tmp_path / "kg", env) as (port, proc):
        url = f"http://127.0.0.1:{port}"
        for _ in range(2):  # both parse workers warm (the kind's shapes compiled), stored
            _upload(url)
        quiet = [_upload(url) for _ in range(3)]

        answers: list[int] = []

        def hostile() -> None:
            files = [("shapes", ("s.ttl", HOSTILE)), ("data", ("d.ttl", cycle(1_000)))]
            answers.append(httpx.post(url + "/shacl", files=files, timeout=120).status_code)

        threads = [threading.Thread(target=hostile) for _ in range(2)]
        for t in threads:
            t.start()
        time.sleep(3)  # the SHACL worker started and busy, the second request waiting
        loaded = [_upload(url) for _ in range(3)]
        for t in threads:
            t.join()
        assert proc.poll() is None
    # one ran into shacl_timeout (413), the other waited shacl_wait for the worker (503)
    assert sorted(answers) == [413, 503], answers
    baseline = statistics.median(quiet)
    assert max(loaded) <= baseline + 1.0, f"quiet {quiet}, under the hostile load {loaded}"
