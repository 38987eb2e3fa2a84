"""``reprokg serve --demo``: seconds from the command to ``/health`` answering 200, as a user
runs it (a new process each time, interpreter start and imports included, a fresh store).

    python -m benchmarks.cli.demo_start                       # 5 starts, warm demo cache
    python -m benchmarks.cli.demo_start --cold-cache          # every start builds the cache
    python -m benchmarks.cli.demo_start --pythonpath DIR      # another checkout (before)

Issue 29's target: ≤ 5 s on this 2-core machine. The demo store is built once per hash of
the package (service/demo.py, ``REPROKG_DEMO_CACHE``); ``--cold-cache`` gives each start an
empty cache folder, as the very first start after installing.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_once(env: dict[str, str], timeout: float = 600) -> float:
    port = _free_port()
    with tempfile.TemporaryDirectory() as cwd:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "reprokg", "serve", "--demo", "--port", str(port)],
            cwd=cwd,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            while time.perf_counter() - t0 < timeout:
                if proc.poll() is not None:
                    raise RuntimeError(f"serve exited with {proc.returncode}")
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                        if r.status == 200:
                            return time.perf_counter() - t0
                except OSError:
                    time.sleep(0.05)
            raise RuntimeError("no answer")
        finally:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--cold-cache", action="store_true", help="an empty demo cache each start")
    p.add_argument("--pythonpath", help="PYTHONPATH of the reprokg to start (default: this one)")
    p.add_argument("--label", default="")
    args = p.parse_args(argv)
    env = {k: v for k, v in os.environ.items() if not k.startswith("REPROKG_")}
    env["REPROKG_ACCESS_LOG"] = "0"
    if args.pythonpath:
        env["PYTHONPATH"] = args.pythonpath
    cache = tempfile.mkdtemp(prefix="demo-cache-")
    times = []
    for i in range(args.repeats):
        env["REPROKG_DEMO_CACHE"] = (
            tempfile.mkdtemp(prefix="demo-cache-") if args.cold_cache else cache
        )
        if i == 0 and not args.cold_cache:
            start_once(env)  # fills the shared cache (the first start after installing)
        times.append(start_once(env))
        print(f"start {i + 1}: {times[-1]:.2f} s", flush=True)
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    row = {
        "label": args.label,
        "median_s": statistics.median(times),
        "times_s": times,
        "cold_cache": args.cold_cache,
        "load_average": float(load),
    }
    print(json.dumps(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
