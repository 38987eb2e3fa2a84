"""The command line as users run it: whole processes, timed side by side in one run.

Commands, each a fresh process (median of ``--reps`` rounds; within a round the commands
alternate, so a change in the machine's load hits every command alike):

* ``python -c pass`` (the interpreter's own start, for reference)
* ``reprokg --version`` and ``reprokg --help``
* ``reprokg query`` (a SELECT) on a small embedded store of the bundled example runs
* ``reprokg compare`` of the 4-run same-collection study: 50 topics x 1000 documents over
  the real TREC Common Core 2017 qrels (benchmarks/measures generates the runs)
* ``python -m repro_eval -t rpd`` on the same files: repro_eval 0.5.0's own command

Before timing, ``reprokg compare --format json`` is checked against repro_eval's evaluator on
the same files (every number, absolute difference <= 1e-9).

    python -m benchmarks.cli.run [--reps 7] [--qrels PATH] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.machine import cpu_shares, cpu_times
from benchmarks.measures.run import DEFAULT_QRELS, generate, max_difference, with_repro_eval

REPO = Path(__file__).resolve().parents[2]


def _reprokg() -> list[str]:
    """The console script pip installed next to this interpreter (a shim in front of it,
    pyenv's for one, costs more than the command's own start)."""
    exe = Path(sys.executable).with_name("reprokg")
    if exe.is_file():
        return [str(exe)]
    found = shutil.which("reprokg")
    return [found] if found else [sys.executable, "-m", "reprokg"]


def commands(tmp: Path, qrels: Path, runs: list[Path]) -> dict[str, list[str]]:
    rk = _reprokg()
    ob, rb, oa, ra = (str(r) for r in runs)
    store = str(tmp / "store")
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "reprokg --version": [*rk, "--version"],
        "reprokg --help": [*rk, "--help"],
        "reprokg query (small store)": [
            *rk,
            "query",
            "--store",
            store,
            "--read-only",
            "SELECT ?type (COUNT(*) AS ?n) WHERE { ?s a ?type } GROUP BY ?type",
        ],
        "reprokg compare (4 runs)": [
            *rk,
            "compare",
            "--qrels",
            str(qrels),
            "--orig-base",
            ob,
            "--rep-base",
            rb,
            "--orig-adv",
            oa,
            "--rep-adv",
            ra,
        ],
        "python -m repro_eval -t rpd (4 runs)": [
            sys.executable,
            "-m",
            "repro_eval",
            "-t",
            "rpd",
            "-q",
            str(qrels),
            "-r",
            ob,
            oa,
            rb,
            ra,
        ],
    }


def _time(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - t0


def check_numbers(qrels: Path, runs: list[Path], env: dict[str, str]) -> tuple[float, int]:
    """reprokg compare's JSON against repro_eval's evaluator on the same files."""
    ob, rb, oa, ra = runs
    out = subprocess.run(
        [
            *_reprokg(),
            "compare",
            "--format",
            "json",
            "--qrels",
            str(qrels),
            "--orig-base",
            str(ob),
            "--rep-base",
            str(rb),
            "--orig-adv",
            str(oa),
            "--rep-adv",
            str(ra),
        ],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    mine = json.loads(out.stdout)["measures"]
    ref = with_repro_eval(qrels, ob, oa, rb, ra)
    return max_difference(ref, mine)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--qrels", type=Path, default=DEFAULT_QRELS)
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args(argv)
    # as installed packages run: bytecode written and reused (a development shell may set
    # PYTHONDONTWRITEBYTECODE, which recompiles every module of ours in every process)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("REPROKG_") and k != "PYTHONDONTWRITEBYTECODE"
    }
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO)], env=env, check=False)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        runs = [generate(args.qrels, tmp / f"run{i}", seed) for i, seed in enumerate((1, 2, 3, 4))]
        subprocess.run(
            [*_reprokg(), "load", "-q", "--store", str(tmp / "store"), str(REPO / "examples")],
            check=True,
            stdout=subprocess.DEVNULL,
            env=env,
        )
        worst, n = check_numbers(args.qrels, runs, env)
        print(f"reprokg compare vs repro_eval: {n} numbers, largest difference {worst:.2e}")
        if worst > 1e-9:
            print("numbers differ", file=sys.stderr)
            return 1
        cmds = commands(tmp, args.qrels, runs)
        times: dict[str, list[float]] = {name: [] for name in cmds}
        load = [os.getloadavg()[0]]
        before = cpu_times()
        for _ in range(args.reps):
            for name, cmd in cmds.items():
                times[name].append(_time(cmd, env))
        load.append(os.getloadavg()[0])
        shares = cpu_shares(before, cpu_times())
    med = {name: statistics.median(ts) for name, ts in times.items()}
    width = max(len(n) for n in med)
    print(
        f"\nmedian of {args.reps} alternating rounds (load average {load[0]:.1f} -> {load[1]:.1f}"
        + "".join(f", {k} {v:.0%}" for k, v in shares.items())
        + ")"
    )
    print(f"{'command'.ljust(width)}  median s    min s    max s")
    for name, ts in times.items():
        print(f"{name.ljust(width)}  {med[name]:8.3f} {min(ts):8.3f} {max(ts):8.3f}")
    ratio = med["python -m repro_eval -t rpd (4 runs)"] / med["reprokg compare (4 runs)"]
    print(f"\nreprokg compare is {ratio:.1f}x faster than repro_eval's command (target >= 10x)")
    print(f"reprokg --version takes {med['reprokg --version']:.3f} s (target < 0.15 s)")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "reps": args.reps,
                    "load_average": load,
                    "cpu_shares": shares,
                    "median_s": med,
                    "all_s": times,
                    "compare_speedup": ratio,
                    "max_abs_difference": worst,
                    "numbers_compared": n,
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
