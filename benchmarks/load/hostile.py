"""The second probe's query inputs against a real ``reprokg serve`` (issue 28): how long the
guard-heavy texts take, and the peak memory of the server's process tree on a query that
would answer 600 MB.

    python -m benchmarks.load.hostile [--timeout 3]

Run it with ``PYTHONPATH`` pointing at another checkout to measure that code the same
way (the server is started with this interpreter and environment). Prints one line per
query (status, seconds, the start of the answer) and each process's peak RSS.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

QUERIES = {
    "160 KB '# from' + 1 + 1 + … (40,000 terms)": "# from\nSELECT ("
    + " + ".join(["1"] * 40_000)
    + " AS ?x) WHERE {}",
    "160 KB '# from' + VALUES of 53,000": "# from\nSELECT * WHERE { VALUES ?x { "
    + " ".join(["11"] * 53_000)
    + " } }",
    "8 KB '# from' + 1 + 1 + … (2,000 terms)": "# from\nSELECT ("
    + " + ".join(["1"] * 2_000)
    + " AS ?x) WHERE {}",
    "2 KB '# from' + 1 + 1 + … (500 terms)": "# from\nSELECT ("
    + " + ".join(["1"] * 500)
    + " AS ?x) WHERE {}",
}
#: 10,000 rows of a 60 KB literal: 600 MB of values under the row cap
BIG = (
    "SELECT ?x WHERE { VALUES ?i { "
    + " ".join(str(i) for i in range(10_000))
    + ' } BIND("'
    + "x" * 60_000
    + '" AS ?x) } LIMIT 10000'
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants."""
    out = [pid]
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            children = Path(f"/proc/{pid}/task/{task}/children").read_text().split()
        except OSError:
            continue
        for c in map(int, children):
            out += _tree(c)
    return list(dict.fromkeys(out))


def _peak_mb(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return int(status.split("VmHWM:")[1].split()[0]) // 1024


def _post(port: int, query: str) -> tuple[int, float, bytes, dict[str, str], int]:
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}/sparql",
        data=query.encode(),
        headers={"Content-Type": "application/sparql-query"},
    )
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=900) as r:
            head, size = r.read(100), 100
            while chunk := r.read(1 << 20):
                size += len(chunk)
            headers = {k.lower(): v for k, v in r.headers.items()}
            return r.status, time.monotonic() - t0, head, headers, size
    except urllib.error.HTTPError as e:
        return e.code, time.monotonic() - t0, e.read()[:100], {}, 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--timeout", type=float, default=3.0, help="REPROKG_QUERY_TIMEOUT")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        port = _free_port()
        env = {
            **os.environ,
            "REPROKG_ACCESS_LOG": "0",
            "REPROKG_PARSE_WORKERS": "0",
            "REPROKG_QUERY_TIMEOUT": str(args.timeout),
        }
        cmd = [sys.executable, "-m", "reprokg", "serve", "--store", f"{tmp}/kg", "--port"]
        proc = subprocess.Popen(
            [*cmd, str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            for _ in range(400):
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2)
                    break
                except OSError:
                    time.sleep(0.5)
            print(f"query timeout {args.timeout:g} s")
            for name, q in QUERIES.items():
                status, secs, head, _, _ = _post(port, q)
                print(f"{name}: {status} in {secs:.2f} s  {head[:70]!r}")
            before = {pid: _peak_mb(pid) for pid in _tree(proc.pid)}
            status, secs, _, headers, size = _post(port, BIG)
            cut = headers.get("x-reprokg-byte-cap")
            mb = size / 1e6
            print(f"600 MB query: {status} in {secs:.1f} s, {mb:.1f} MB answered, cut at: {cut}")
            print(f"server peak RSS before the query: {before.get(proc.pid, 0)} MB")
            total = 0
            for pid in _tree(proc.pid):
                peak = _peak_mb(pid)
                total += peak
                print(f"  pid {pid}{' (server)' if pid == proc.pid else ''}: peak RSS {peak} MB")
            print(f"sum over the process tree: {total} MB")
        finally:
            proc.terminate()
            proc.wait(60)


if __name__ == "__main__":
    main()
