"""``reprokg compare`` against ``python -m repro_eval -t rpd``, whole processes, one run.

The study is benchmarks/measures' four runs (original/reproduced x baseline/advanced, 50
topics x 1,000 documents over the real TREC Common Core 2017 qrels). Each round runs every
command once as a fresh process, in an order that rotates from round to round, so a change
in the machine's load hits all alike; the figures are medians over the rounds of the wall
time and of the CPU time (user + system of the process and the children it waited for,
from ``wait4``). ``reprokg compare`` prints everything it computes by default: repro_eval's
measures and the statistics next to them.

Before timing, ``reprokg compare --format json`` is checked against repro_eval's evaluator
on the same files (every number of repro_eval's, absolute difference <= 1e-9).

``--also NAME=DIR`` times another tree's ``reprokg`` alongside: DIR is a folder holding a
``reprokg`` package (it goes on PYTHONPATH) or a repository root (a ``reprokg`` link to it is
made in a temporary folder). Each tree is checked to be the one imported: a folder without
the package would time the installed one instead. E.g. main before a change:

    git archive BEFORE | tar -x -C /tmp/before
    python -m benchmarks.measures.process [--reps 11] [--also before=/tmp/before] [--json OUT]
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

from benchmarks.cli.run import _reprokg, check_numbers
from benchmarks.machine import cpu_shares, cpu_times
from benchmarks.measures.run import DEFAULT_QRELS, generate

REPO = Path(__file__).resolve().parents[2]
REPRO_EVAL = "python -m repro_eval -t rpd"


def _compare_argv(qrels: Path, runs: list[Path]) -> list[str]:
    ob, rb, oa, ra = (str(r) for r in runs)
    return [
        *_reprokg(),
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
    ]


def _importable(tree: Path, links: Path) -> str:
    """A PYTHONPATH entry under which ``import reprokg`` is ``tree``: the folder itself when
    it holds the package, else a folder with a ``reprokg`` link to ``tree`` (a repository
    root: the package is the root, ``package-dir = {"reprokg" = "."}``)."""
    if (tree / "reprokg" / "__init__.py").is_file():
        return str(tree)
    if (tree / "__init__.py").is_file() and (tree / "cli").is_dir():
        links.mkdir(parents=True)
        (links / "reprokg").symlink_to(tree.resolve())
        return str(links)
    raise SystemExit(f"--also: {tree} holds no reprokg package and is no reprokg tree")


def _check_imported(name: str, path: Path, env: dict[str, str]) -> None:
    """Refuse to time a tree Python does not import (it would time the installed one)."""
    found = subprocess.run(
        [sys.executable, "-c", "import reprokg; print(reprokg.__file__ or '')"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    want = (path / "reprokg" / "__init__.py").resolve()
    if not found or Path(found).resolve() != want:
        what = found or "a namespace package (a folder without __init__.py)"
        raise SystemExit(f"{name}: PYTHONPATH={path} imports {what}, not {want}")


def _run(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall s, CPU s) of one process, its waited-for children included."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, cmd)
    return wall, usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=11)
    ap.add_argument("--qrels", type=Path, default=DEFAULT_QRELS)
    ap.add_argument("--also", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args(argv)
    # as installed packages run: bytecode written and reused
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("REPROKG_") and k != "PYTHONDONTWRITEBYTECODE"
    }
    links = tempfile.TemporaryDirectory()
    trees = {"reprokg compare": env.get("PYTHONPATH")}
    for spec in args.also:
        name, _, path = spec.partition("=")
        trees[f"reprokg compare ({name})"] = _importable(Path(path), Path(links.name) / name)
    for path in {p for p in trees.values() if p}:
        for entry in Path(path).iterdir():
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(entry.resolve())])
    envs = {
        name: {**env, "PYTHONPATH": path} if path else {k: v for k, v in env.items()}
        for name, path in trees.items()
    }
    if trees["reprokg compare"] is None:
        envs["reprokg compare"].pop("PYTHONPATH", None)
    for name, path in trees.items():
        if path and name != "reprokg compare":
            _check_imported(name, Path(path), envs[name])
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        runs = [generate(args.qrels, tmp / f"run{i}", seed) for i, seed in enumerate((1, 2, 3, 4))]
        worst, n = check_numbers(args.qrels, runs, envs["reprokg compare"])
        print(f"reprokg compare vs repro_eval: {n} numbers, largest difference {worst:.2e}")
        if worst > 1e-9:
            print("numbers differ", file=sys.stderr)
            return 1
        ob, rb, oa, ra = (str(r) for r in runs)
        cmds = {name: (_compare_argv(args.qrels, runs), envs[name]) for name in trees}
        cmds[REPRO_EVAL] = (
            [sys.executable, "-m", "repro_eval", "-t", "rpd", "-q", str(args.qrels)]
            + ["-r", ob, oa, rb, ra],
            env,
        )
        names = list(cmds)
        wall: dict[str, list[float]] = {k: [] for k in names}
        cpu: dict[str, list[float]] = {k: [] for k in names}
        load = [os.getloadavg()[0]]
        before = cpu_times()
        for rep in range(args.reps):
            for name in names[rep % len(names) :] + names[: rep % len(names)]:
                w, c = _run(*cmds[name])
                wall[name].append(w)
                cpu[name].append(c)
        load.append(os.getloadavg()[0])
        shares = cpu_shares(before, cpu_times())
    med = {k: statistics.median(v) for k, v in wall.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpu.items()}
    print(
        f"\nmedians of {args.reps} rounds (load average {load[0]:.1f} -> {load[1]:.1f}"
        + "".join(f", {k} {v:.0%}" for k, v in shares.items())
        + ")"
    )
    width = max(len(k) for k in names)
    print(f"{'command'.ljust(width)}  wall s   min s   max s   CPU s   wall ratio  CPU ratio")
    ratios = {}
    for k in names:
        ratios[k] = (med[REPRO_EVAL] / med[k], med_cpu[REPRO_EVAL] / med_cpu[k])
        print(
            f"{k.ljust(width)}  {med[k]:6.3f}  {min(wall[k]):6.3f}  {max(wall[k]):6.3f}  "
            f"{med_cpu[k]:6.3f}  {ratios[k][0]:9.1f}x  {ratios[k][1]:8.1f}x"
        )
    per_round = [r / c for r, c in zip(wall[REPRO_EVAL], wall["reprokg compare"], strict=True)]
    print(
        f"\nreprokg compare / repro_eval per round: {min(per_round):.1f}x to "
        f"{max(per_round):.1f}x (median {statistics.median(per_round):.1f}x); target >= 10x"
    )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "reps": args.reps,
                    "load_average": load,
                    "cpu_shares": shares,
                    "wall_s": wall,
                    "cpu_s": cpu,
                    "median_wall_s": med,
                    "median_cpu_s": med_cpu,
                    "ratios_wall_cpu": ratios,
                    "max_abs_difference": worst,
                    "numbers_compared": n,
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
