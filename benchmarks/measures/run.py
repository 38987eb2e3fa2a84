"""Full same-collection evaluation of 4 runs: reprokg vs repro_eval 0.5.0, same inputs.

Four runs (original/reproduced x baseline/advanced), 50 topics x 1000 documents each,
are generated with a seeded RNG over the real TREC Common Core 2017 qrels (judged and
unjudged documents, score ties, file order slightly off score order). Each repetition
times, from the files, everything repro_eval's README example does — load, trim,
evaluate, KTU, RBO, RMSE, nRMSE, paired t-test, ER, DRI — and the same with
``reprokg.measures.comparison.compare``; the two tools alternate, and the numbers
are checked to agree to 1e-9. Prints a table; medians over the repetitions.

    python -m benchmarks.measures.run [--reps 7] [--qrels PATH] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve()
DEFAULT_QRELS = HERE.parents[3] / "shared" / "data" / "trec" / "qrels" / "core17.txt"


def generate(qrels: Path, out: Path, seed: int, topics: int = 50, depth: int = 1000) -> Path:
    rng = np.random.default_rng(seed)
    judged: dict[str, list[str]] = defaultdict(list)
    for line in qrels.read_text().splitlines():
        if line.strip():
            t, _, d, _ = line.split()
            judged[t].append(d)
    lines = []
    for t in sorted(judged)[:topics]:
        docs = list(judged[t])
        rng.shuffle(docs)
        n = min(len(docs), depth // 2)
        pool = docs[:n] + [f"X{t}-{i}" for i in range(depth - n)]
        rng.shuffle(pool)
        scores = np.sort(rng.normal(size=depth).round(3))[::-1]
        order = np.arange(depth)
        for i in rng.integers(0, depth - 1, size=depth // 20):
            order[i], order[i + 1] = order[i + 1], order[i]
        for rank, i in enumerate(order, start=1):
            lines.append(f"{t} Q0 {pool[i]} {rank} {scores[i]} run{seed}")
    out.write_text("\n".join(lines) + "\n")
    return out


def with_repro_eval(q: Path, ob: Path, oa: Path, rb: Path, ra: Path) -> dict:
    from repro_eval.Evaluator import RpdEvaluator

    ev = RpdEvaluator(
        qrels_orig_path=str(q),
        run_b_orig_path=str(ob),
        run_a_orig_path=str(oa),
        run_b_rep_path=str(rb),
        run_a_rep_path=str(ra),
    )
    ev.trim()
    ev.evaluate()
    return {
        "ktu": ev.ktu(),
        "rbo": ev.rbo(),
        "rmse": ev.rmse(),
        "nrmse": ev.nrmse(),
        "pvalue": ev.ttest(),
        "er": ev.er(),
        "dri": ev.dri(),
    }


def with_reprokg(q: Path, ob: Path, oa: Path, rb: Path, ra: Path) -> dict:
    from reprokg.loaders.trec_files import read_qrels, read_run
    from reprokg.measures.comparison import compare

    c = compare(read_qrels(q), read_run(ob), read_run(rb), read_run(oa), read_run(ra))
    return c.measures


def max_difference(ref: dict, mine: dict) -> tuple[float, int]:
    """Largest absolute difference over every number, and how many were compared."""
    worst, n = 0.0, 0
    for k, v in ref.items():
        if isinstance(v, dict):
            w, m = max_difference(v, mine[k])
            worst, n = max(worst, w), n + m
        elif v is None or not math.isfinite(v):
            if mine[k] is not None:
                return math.inf, n
        else:
            worst, n = max(worst, abs(v - mine[k])), n + 1
    return worst, n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--qrels", type=Path, default=DEFAULT_QRELS)
    ap.add_argument("--json", type=Path, help="also write the results here")
    args = ap.parse_args(argv)
    import warnings

    warnings.filterwarnings("ignore")
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        runs = [generate(args.qrels, d / f"run{i}.txt", seed=i) for i in range(4)]
        ob, oa, rb, ra = runs
        inputs = (args.qrels, ob, oa, rb, ra)
        with_reprokg(*inputs)  # warm-up: imports, caches
        with_repro_eval(*inputs)
        times: dict[str, list[float]] = {"repro_eval 0.5.0": [], "reprokg": []}
        cpu: dict[str, list[float]] = {"repro_eval 0.5.0": [], "reprokg": []}
        for rep in range(args.reps):
            order = [("repro_eval 0.5.0", with_repro_eval), ("reprokg", with_reprokg)]
            for name, fn in order if rep % 2 == 0 else order[::-1]:
                t, c = time.perf_counter(), time.process_time()
                result = fn(*inputs)
                times[name].append(time.perf_counter() - t)
                cpu[name].append(time.process_time() - c)
                if name == "reprokg":
                    mine = result
                else:
                    ref = result
        diff, compared = max_difference(ref, mine)
    med = {k: statistics.median(v) for k, v in times.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpu.items()}
    ratio = med["repro_eval 0.5.0"] / med["reprokg"]
    ratio_cpu = med_cpu["repro_eval 0.5.0"] / med_cpu["reprokg"]
    print("Same-collection evaluation, 4 runs x 50 topics x 1000 docs (core17 qrels)")
    print(f"{'tool':<18}{'wall median s':>14}{'min s':>8}{'max s':>8}{'CPU median s':>14}")
    for k, v in times.items():
        print(f"{k:<18}{med[k]:>14.3f}{min(v):>8.3f}{max(v):>8.3f}{med_cpu[k]:>14.3f}")
    print(
        f"speed-up (ratio of medians): {ratio:.1f}x wall, {ratio_cpu:.1f}x CPU "
        f"over {args.reps} repetitions"
    )
    print(f"numbers compared: {compared}, largest absolute difference: {diff:.3g}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "times": times,
                    "medians": med,
                    "ratio": ratio,
                    "max_abs_diff": diff,
                    "compared": compared,
                },
                indent=2,
            )
        )
    return 0 if diff <= 1e-9 else 1


if __name__ == "__main__":
    sys.exit(main())
