"""The worker pool (core/pool.py): crashes, runaways, memory blow-ups and errors stay in their
worker, which is replaced while the others go on serving."""

from __future__ import annotations

import threading
import time

import pytest

from reprokg.core.errors import LoadError
from reprokg.core.pool import (
    JobCrashed,
    JobFailed,
    JobOutOfMemory,
    JobTimeout,
    PoolBusy,
    WorkerPool,
)

JOB = "tests.core.pool_jobs:misbehave"


@pytest.fixture(scope="module")
def pool():
    with WorkerPool(JOB, size=2, timeout=5.0, wait=10.0, memory_limit=1 << 30) as p:
        yield p


def _full(pool: WorkerPool, deadline: float = 60.0) -> None:
    end = time.monotonic() + deadline
    while len(pool.workers()) < pool.size and time.monotonic() < end:
        time.sleep(0.05)
    assert len(pool.workers()) == pool.size


def test_a_crash_is_reported_and_the_worker_replaced(pool: WorkerPool) -> None:
    before = {w.pid for w in pool.workers()}
    with pytest.raises(JobCrashed) as err:
        pool.run(("crash",))
    assert err.value.exitcode == -11 and "signal 11" in str(err.value)
    _full(pool)
    assert {w.pid for w in pool.workers()} != before
    assert pool.run(("sleep", 0)) == "slept"


def test_deep_yaml_is_refused_by_libyaml_and_its_worker_lives(pool: WorkerPool) -> None:
    """'[' x 100,000 overflowed the stack of PyYAML's C composer before 6.0.4 (SIGSEGV: the
    whole server, before parse workers). PyYAML 6.0.4, the floor in pyproject.toml, bundles
    a libyaml that refuses more than 1,000 nesting levels: the job's own error comes back
    and the worker that ran it lives. (A worker killed by a signal, what the overflow did:
    test_a_crash_is_reported_and_the_worker_replaced.)"""
    import yaml

    before = {w.pid for w in pool.workers()}
    with pytest.raises(yaml.YAMLError, match="exceeded maximum nesting depth"):
        pool.run(("deep_yaml", 100_000), timeout=60.0)
    assert pool.run(("deep_yaml", 100)) == "composed"
    assert {w.pid for w in pool.workers()} == before


def test_a_runaway_is_killed_at_the_time_limit(pool: WorkerPool) -> None:
    t0 = time.monotonic()
    with pytest.raises(JobTimeout):
        pool.run(("sleep", 60), timeout=1.0)
    assert time.monotonic() - t0 < 5
    _full(pool)
    assert pool.stats.timeouts >= 1


def test_memory_over_the_limit_is_reported(pool: WorkerPool) -> None:
    with pytest.raises(JobOutOfMemory):
        pool.run(("allocate", 3 << 30))
    assert pool.run(("allocate", 10 << 20)) == 10 << 20


def test_the_jobs_own_error_comes_back_with_its_location(pool: WorkerPool) -> None:
    with pytest.raises(LoadError) as err:
        pool.run(("raise", "bad value"))
    exc = err.value
    assert (exc.source, exc.line, exc.column, exc.field) == ("x.yaml", 3, 7, "a.b")
    with pytest.raises(JobFailed):
        pool.run(("unpicklable",))
    assert pool.run(("sleep", 0)) == "slept"  # the worker survived both


def test_a_busy_pool_says_so() -> None:
    with WorkerPool(JOB, size=1, timeout=5.0, wait=0.2) as small:
        t = threading.Thread(target=small.run, args=(("sleep", 1.5),))
        t.start()
        time.sleep(0.4)
        with pytest.raises(PoolBusy):
            small.run(("sleep", 0))
        t.join()
        assert small.run(("sleep", 0)) == "slept"


def test_worn_out_workers_are_replaced() -> None:
    with WorkerPool(JOB, size=1, timeout=5.0, max_jobs=2) as p:
        first = p.run(("pid",))
        assert p.run(("pid",)) == first
        _full(p)
        assert p.run(("pid",)) != first and p.stats.recycled == 1
