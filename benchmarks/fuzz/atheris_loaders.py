"""Coverage-guided fuzzing of the loaders with atheris (libFuzzer), seeded from the real files.

    pip install -e '.[fuzz]'
    python benchmarks/fuzz/atheris_loaders.py --seconds 120            # every loader, 2 min each
    python benchmarks/fuzz/atheris_loaders.py --kinds audit,survey --seconds 600
    python benchmarks/fuzz/atheris_loaders.py --one audit CORPUS_DIR -max_total_time=60  # one run

Each loader kind runs in its own process under libFuzzer for a fixed time budget
(``-max_total_time``), with ``-rss_limit_mb`` and a per-input ``-timeout``: an input that
makes the loader raise anything but ``LoadError``, crash the process, overrun the time
limit or the memory limit is a finding. libFuzzer writes it to ``benchmarks/fuzz/findings/``
(``crash-*``, ``timeout-*``, ``oom-*``); every finding becomes a regression test (the one
found so far is ``tests/loaders/fuzz_regressions/``). The corpus starts from the bundled
examples and the files in ``../shared/data`` (the same seeds as
tests/loaders/test_loaders_fuzz.py) and grows in a temporary folder (``--corpus`` keeps it).

Printed, and written to ``--json``: per kind the runs executed, runs per second, the
coverage-increasing inputs found (libFuzzer's ``new_units_added``) and the findings.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SHARED = Path(os.environ.get("REPROKG_SHARED_DATA") or REPO.parent / "shared" / "data")
FINDINGS = HERE / "findings"
KINDS = ("run", "audit", "mlrc", "stability", "survey", "gk2018", "qrels")
#: a file name per kind (some loaders read the extension)
NAMES = {
    "run": "run.txt",
    "audit": "x.yaml",
    "mlrc": "metadata.yaml",
    "stability": "s.yaml",
    "survey": "x.json",
    "gk2018": "evaluations.csv",
    "qrels": "qrels.txt",
}


def seed_files(kind: str, shared: Path) -> list[Path]:
    """Real files of ``kind`` to start the corpus (small ones: libFuzzer mutates fast)."""
    ex = REPO / "examples"
    found = {
        "run": sorted((ex / "runs").glob("*.txt")) + [ex / "runs/metadata.yaml"],
        "audit": sorted((ex / "audits").glob("*.yaml")),
        "mlrc": sorted(
            (shared / "surveys/rescience/mlrc_metadata").glob("*/*/journal/metadata.yaml")
        )[:20],
        "stability": [
            p for p in sorted((ex / "stability").iterdir()) if p.suffix in (".csv", ".yaml")
        ],
        "survey": sorted((ex / "survey/per_paper").rglob("*.json"))
        + sorted((shared / "replicability_graphics/per_paper").rglob("*.json"))[:30],
        "gk2018": [ex / "survey/gk2018/evaluations.csv"],
        "qrels": sorted((shared / "trec/toy").rglob("*qrels*"))[:10],
    }[kind]
    return [p for p in found if p.is_file() and p.stat().st_size < 200_000]


def one(kind: str, argv: list[str]) -> None:
    """The fuzz target of one kind (runs in its own process under libFuzzer)."""
    import atheris

    with atheris.instrument_imports():
        import yaml  # noqa: F401 - instrumented too (PyYAML's pure-Python parts)

        from reprokg import loaders
        from reprokg.core.errors import LoadError

    name = NAMES[kind]

    def target(data: bytes) -> None:
        with contextlib.suppress(LoadError):  # a refusal; anything else is a finding
            loaders.load_source(name, data, kind=kind)

    atheris.Setup([sys.argv[0], *argv], target)
    atheris.Fuzz()


_STAT = re.compile(r"stat::(\w+):\s+(\d+)")
_DONE = re.compile(r"Done (\d+) runs in (\d+) second")


def run_kind(kind: str, seconds: int, corpus: Path, rss_mb: int, timeout: int) -> dict:
    corpus.mkdir(parents=True, exist_ok=True)
    for f in seed_files(kind, SHARED):
        data = f.read_bytes()
        if len(data) > 8_000:  # cut large seeds to whole lines: libFuzzer mutates small inputs
            data = b"".join(data.splitlines(keepends=True)[:20])[:8_000]
        (corpus / f"seed-{f.parent.name}-{f.name}").write_bytes(data)
    FINDINGS.mkdir(exist_ok=True)
    cmd = [
        sys.executable,
        __file__,
        "--one",
        kind,
        str(corpus),
        f"-max_total_time={seconds}",
        f"-rss_limit_mb={rss_mb}",
        f"-timeout={timeout}",
        f"-artifact_prefix={FINDINGS}/{kind}-",
        "-print_final_stats=1",
    ]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    elapsed = time.monotonic() - t0
    log = proc.stderr
    (FINDINGS / f"{kind}.log").write_text(log[-20_000:], encoding="utf-8")
    stats = {k: int(v) for k, v in _STAT.findall(log)}
    done = _DONE.search(log)
    runs = int(done.group(1)) if done else stats.get("number_of_executed_units", 0)
    found = sorted(p.name for p in FINDINGS.glob(f"{kind}-*") if not p.name.endswith(".log"))
    return {
        "kind": kind,
        "seconds": round(elapsed),
        "runs": runs,
        "runs_per_second": round(runs / max(elapsed, 1e-9)),
        "new_units": stats.get("new_units_added", 0),
        "peak_rss_mb": stats.get("peak_rss_mb", 0),
        "exit_code": proc.returncode,
        "findings": found,
    }


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--one":
        one(sys.argv[2], sys.argv[3:])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--seconds", type=int, default=120, help="budget per kind")
    ap.add_argument("--rss-mb", type=int, default=2048)
    ap.add_argument("--timeout", type=int, default=10, help="seconds one input may take")
    ap.add_argument("--corpus", type=Path, default=None, help="keep the corpus here")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    base = args.corpus or Path(tempfile.mkdtemp(prefix="reprokg-fuzz-"))
    rows = []
    for kind in args.kinds.split(","):
        row = run_kind(kind, args.seconds, base / kind, args.rss_mb, args.timeout)
        rows.append(row)
        print(
            f"{kind:10} {row['seconds']:5d} s {row['runs']:9d} runs ({row['runs_per_second']}/s) "
            f"{row['new_units']:5d} new units  findings: {', '.join(row['findings']) or 'none'}",
            flush=True,
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    if args.corpus is None:
        shutil.rmtree(base, ignore_errors=True)
    sys.exit(1 if any(r["findings"] for r in rows) else 0)


if __name__ == "__main__":
    main()
