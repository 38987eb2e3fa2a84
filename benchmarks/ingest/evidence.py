"""Bulk load of the field's reproduction evidence, as a whole process (issue 30).

``reprokg evidence load --store DIR PATH…`` (the command a user runs: interpreter start,
reading, normalising, validating and storing) on each of the three sources of
../shared/data and on all three together, in a fresh store each time, one child process
per run: wall time, the child's CPU seconds and peak RSS, and records/s (records as the
loaders count them: artifacts, papers, BibTeX entries, log lines). Side by side, in the same
run: ``--dry-run`` (the same process without the store: read, normalise, build the
documents) and ``reprokg load --kind K`` of the same files (the generic command, one kind
per call), so the cost of validation and storage and the overhead of the summaries show.

    python -m benchmarks.ingest.evidence [--repeats 3] \
        [--json benchmarks/ingest/results-evidence.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.machine import cpu_shares, cpu_times

REPO = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("REPROKG_SHARED_DATA", REPO.parent / "shared" / "data"))
SOURCES = {
    "artifact-evaluation": [
        DATA / "artifact_evaluation/reprodb/artifacts.json",
        DATA / "artifact_evaluation/reprodb/papers.json",
    ],
    "rescience": [DATA / "surveys/rescience/journal_bib/_bibliography/published.bib"],
    "re-execution": sorted(
        (DATA / "surveys/trisovic_dataverse_r/analysis/data").glob("run_log_*.csv")
    ),
}


def _child(args: list[str]) -> dict:
    """One whole process: its wall time, its own CPU seconds and peak RSS (``wait4``), and
    its stdout (written to a file: a pipe read only after the wait could block a child)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "reprokg", *args], stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"reprokg {' '.join(args)} failed: {stderr[-2000:]}")
    return {
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_rss_mb": usage.ru_maxrss / 1024,
        "stdout": stdout,
    }


def _records(stdout: str) -> int:
    return sum(f["records"] for f in json.loads(stdout)["files"])


def run(repeats: int) -> dict:
    out: dict = {"repeats": repeats, "modes": []}
    shares_before = cpu_times()
    sets = {**SOURCES, "all three": [p for ps in SOURCES.values() for p in ps]}
    for name, paths in sets.items():
        files = [str(p) for p in paths]
        for mode in ("evidence load", "evidence load --dry-run", "load --kind"):
            if mode == "load --kind" and name == "all three":
                continue
            runs = []
            records = 0
            for _ in range(repeats):
                with tempfile.TemporaryDirectory(prefix="reprokg-bench-evidence-") as tmp:
                    store = str(Path(tmp) / "store")
                    if mode == "load --kind":
                        args = ["load", "--store", store, "--kind", name, *files]
                    else:
                        args = ["evidence", "load", "--format", "json", *files]
                        args += ["--dry-run"] if "dry" in mode else ["--store", store]
                    r = _child(args)
                    if mode != "load --kind":
                        records = _records(r["stdout"])
                    runs.append(r)
            row = {
                "source": name,
                "mode": mode,
                "records": records or None,
                "wall_s": statistics.median(r["wall_s"] for r in runs),
                "cpu_s": statistics.median(r["cpu_s"] for r in runs),
                "peak_rss_mb": max(r["peak_rss_mb"] for r in runs),
            }
            out["modes"].append(row)
            print(json.dumps(row), flush=True)
    # records/s of the generic command: the same files, so the same records
    counted = {(r["source"]): r["records"] for r in out["modes"] if r["mode"] == "evidence load"}
    for r in out["modes"]:
        r["records"] = r["records"] or counted.get(r["source"])
        if r["records"]:
            r["records_per_s_wall"] = r["records"] / r["wall_s"]
            r["records_per_cpu_s"] = r["records"] / r["cpu_s"] if r["cpu_s"] else None
    out["machine"] = cpu_shares(shares_before, cpu_times())
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--json", default=None, help="write the figures here")
    args = p.parse_args()
    result = run(args.repeats)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    print(
        f"\n{'source':<20}{'mode':<26}{'records':>9}{'wall s':>9}{'rec/s':>9}{'CPU s':>8}"
        f"{'rec/CPU-s':>11}{'RSS MB':>8}"
    )
    for r in result["modes"]:
        print(
            f"{r['source']:<20}{r['mode']:<26}{r['records'] or 0:>9}{r['wall_s']:>9.1f}"
            f"{r.get('records_per_s_wall', 0):>9.0f}{r['cpu_s']:>8.1f}"
            f"{r.get('records_per_cpu_s') or 0:>11.0f}{r['peak_rss_mb']:>8.0f}"
        )


if __name__ == "__main__":
    main()
