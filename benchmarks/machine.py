"""The machine a benchmark ran on: CPU shares between two readings (busy, idle, stolen)."""

from __future__ import annotations


def cpu_times() -> list[int]:
    """The machine's CPU time counters (``/proc/stat``; empty where there is none)."""
    try:
        with open("/proc/stat") as fh:
            return [int(x) for x in fh.readline().split()[1:9]]
    except OSError:
        return []


def cpu_shares(before: list[int], after: list[int]) -> dict[str, float]:
    """Busy, idle and *stolen* shares between two readings: on a shared VM the host's
    other guests take cores away (``steal``), and latency under load moves with it."""
    if not before or not after:
        return {}
    d = [b - a for a, b in zip(before, after, strict=True)]
    total = sum(d) or 1
    user, nice, system, idle, iowait, irq, softirq, steal = d
    return {
        "busy": (user + nice + system + irq + softirq) / total,
        "idle": (idle + iowait) / total,
        "steal": steal / total,
    }
