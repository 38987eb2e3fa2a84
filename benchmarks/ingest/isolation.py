"""What isolating untrusted parsing costs: uploads parsed in the request thread vs in workers.

    python -m benchmarks.ingest.isolation                  # 300 uploads per setting, 3 rounds
    python -m benchmarks.ingest.isolation --n 100 --rounds 1 --json out.json

The ingest benchmark's headers (:mod:`benchmarks.ingest.generate`), one per request, through
the app in-process (Starlette's TestClient, no network), each to ``POST /validate`` and to
``POST /documents`` (a fresh store per setting and round), with ``parse_workers`` 0 (parse
and validate in the request's thread, as before issue 18) and 2 (the pre-forked parse
pool: the bytes go down a pipe, the reports and documents come back as plain tuples). The
settings alternate round by round (the machine is shared; the load average is printed).

Printed per setting and route: the median and 90th percentile of a request's wall time and
uploads per second (sequential: one client), and the isolation's cost relative to
``parse_workers=0``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from benchmarks.ingest.generate import header  # noqa: E402

TOKEN = "bench-token"


def one_round(workers: int, n: int, offset: int) -> dict[str, list[float]]:
    """Per route, the seconds of each of ``n`` uploads (after 5 to warm up)."""
    from fastapi.testclient import TestClient

    from reprokg.core.settings import Settings
    from reprokg.service.app import create_app
    from reprokg.store import open_store

    out: dict[str, list[float]] = {"/validate": [], "/documents": []}
    with tempfile.TemporaryDirectory(prefix="reprokg-iso-") as tmp:
        store = open_store(Path(tmp) / "kg")
        settings = Settings(write_token=TOKEN, access_log=False, parse_workers=workers)
        with TestClient(create_app(settings, store=store)) as c:
            headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/yaml"}
            for route in out:
                for i in range(n + 5):
                    body = header(offset + i + (0 if route == "/validate" else 10**6))
                    t = time.perf_counter()
                    r = c.post(
                        route,
                        params={"name": f"h{i}.yaml", "kind": "run"},
                        content=body,
                        headers=headers,
                    )
                    took = time.perf_counter() - t
                    assert r.status_code in (200, 201), r.text[:300]
                    if i >= 5:
                        out[route].append(took)
        store.close()
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=300, help="uploads per route, setting and round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", flush=True)
    times: dict[tuple[int, str], list[float]] = {}
    for r in range(args.rounds):
        for workers in (0, 2) if r % 2 == 0 else (2, 0):
            for route, ts in one_round(workers, args.n, r * 10_000).items():
                times.setdefault((workers, route), []).extend(ts)
    rows = []
    for (workers, route), ts in sorted(times.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        med = statistics.median(ts)
        base = statistics.median(times[(0, route)])
        rows.append(
            {
                "parse_workers": workers,
                "route": route,
                "uploads": len(ts),
                "median_ms": round(med * 1e3, 2),
                "p90_ms": round(statistics.quantiles(ts, n=10)[-1] * 1e3, 2),
                "per_second": round(len(ts) / sum(ts), 1),
                "cost_vs_in_thread": f"{(med / base - 1) * 100:+.0f}%",
            }
        )
        row = rows[-1]
        print(
            f"{route:11} parse_workers={workers}: median {row['median_ms']:7.2f} ms, "
            f"p90 {row['p90_ms']:7.2f} ms, {row['per_second']:6.1f}/s, "
            f"{row['cost_vs_in_thread']} vs in-thread",
            flush=True,
        )
    print(f"load average {os.getloadavg()[0]:.1f}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
