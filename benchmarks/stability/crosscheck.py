"""How close reprokg's stability numbers are to R's: the largest deviation per kind of number.

The three data sets of tests/stability/test_r_crosscheck.py, REML and ML, against lme4 +
lmerTest run to convergence ("tight") and with lmer's defaults, all in one Rscript
process. Prints one Markdown table (relative deviations; fixed-effect estimates,
contrast estimates and interval bounds absolute), the README's.

    python -m benchmarks.stability.crosscheck
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from reprokg.stability.analysis import analyse  # noqa: E402
from tests.stability.rref import Job, compare, run_jobs, worst  # noqa: E402
from tests.stability.test_r_crosscheck import DATASETS, EXTRA_PAIRS  # noqa: E402

COLUMNS = (
    ("fixed_effects.estimate", "fixef est (abs)"),
    ("fixed_effects.se", "fixef se"),
    ("fixed_effects.df", "fixef df"),
    ("fixed_effects.p", "fixef p"),
    ("variance_components.variance", "variances"),
    ("loglik", "logLik"),
    ("random_effects_tests.loglik", "ranova logLik"),
    ("random_effects_tests.p", "ranova p"),
    ("anova.f", "F"),
    ("anova.den_df", "F den df"),
    ("anova.p", "F p"),
    ("contrasts.df", "contrast df"),
    ("contrasts.p", "contrast p"),
)


def main() -> None:
    frames = {name: make() for name, make in DATASETS.items()}
    ours, jobs = {}, []
    for name, frame in frames.items():
        for method, reml in (("REML", True), ("ML", False)):
            res = analyse(frame, reml=reml, pairs=EXTRA_PAIRS.get(name))
            ours[name, method] = res
            pairs = tuple(tuple(k.split(" - ")) for k in res["contrasts"])
            for mode in ("tight", "default"):
                jobs.append(Job(f"{name}/{method}/{mode}", frame, reml, pairs, 1, mode))
    r = run_jobs(jobs)
    head = "| data | method | R | " + " | ".join(c for _, c in COLUMNS) + " |"
    print(head)
    print("|" + "---|" * (3 + len(COLUMNS)))
    for (name, method), res in ours.items():
        for mode in ("tight", "default"):
            devs = compare(res, r[f"{name}/{method}/{mode}"])
            w = worst(devs)
            bad = [d.path for d in devs if not d.ok]
            cells = [f"{w[k]:.1e}" if k in w else "-" for k, _ in COLUMNS]
            label = "converged" if mode == "tight" else "defaults"
            mark = f" ({len(bad)} over)" if bad else ""
            print(f"| {name} | {method} | {label}{mark} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
