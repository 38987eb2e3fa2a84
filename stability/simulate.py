"""Synthetic stability studies in the design of seed 003, for tests, benchmarks and demos.

The paper publishes no per-run values, so every data set here is made up (illustrative):
experiments = algorithm x optimizer x rerun, each run over sampled hyper-parameter
configurations x seeds x repeats, one accuracy per run. A fixed numpy seed makes each
data set reproducible, so R and Python can be handed the very same numbers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

ALGORITHMS: tuple[tuple[str, str, str, float], ...] = (
    # short name, algorithm, implementation, typical accuracy
    ("m-net", "Matching Networks", "community (torch7)", 0.56),
    ("protonet", "Prototypical Networks", "official (PyTorch)", 0.61),
    ("tadam", "TADAM", "official (TensorFlow)", 0.75),
)
OPTIMIZERS: tuple[str, ...] = ("adam", "sgd")
PAPER_SEEDS: tuple[int, ...] = (7654, 42, 1234, 2019, 31337)

COLUMNS = (
    "experiment",
    "algorithm",
    "implementation",
    "optimizer",
    "configuration",
    "seed",
    "repeat",
    "value",
)


def paper_design(
    rng_seed: int = 3,
    *,
    n_configurations: int = 5,
    seeds: tuple[int, ...] = PAPER_SEEDS,
    n_repeats: int = 5,
    reruns: int = 2,
    keep: float = 0.72,
    seed_sd: float = 0.0,
    repeat_sd: float = 0.0,
    configuration_sd: float = 0.02,
    residual_sd: float = 0.03,
    rerun_shift: float = 0.012,
) -> pd.DataFrame:
    """The paper's design: 6 algorithm/optimizer pairs x reruns, configurations x seeds x repeats.

    With ``seed_sd = repeat_sd = 0`` the seed and repeat variances are usually estimated
    on the boundary (a singular fit, as in the paper's Table 1). ``keep`` is the share of
    runs kept (the paper kept 1,074 of 1,500), so cells are missing at random.
    """
    rng = np.random.default_rng(rng_seed)
    seed_eff = dict(zip(seeds, rng.normal(0.0, seed_sd, len(seeds)), strict=True))
    rep_eff = rng.normal(0.0, repeat_sd, n_repeats)
    rows: list[tuple] = []
    for short, algorithm, implementation, base in ALGORITHMS:
        for optimizer in OPTIMIZERS:
            mean = base + rng.normal(0.0, 0.02)
            conf_eff = rng.normal(0.0, configuration_sd, n_configurations)
            for rerun in range(1, reruns + 1):
                shift = rng.normal(0.0, rerun_shift) if rerun > 1 else 0.0
                name = f"{short}-{optimizer}-{rerun}"
                for c in range(n_configurations):
                    for s in seeds:
                        for r in range(n_repeats):
                            value = (
                                mean
                                + shift
                                + conf_eff[c]
                                + seed_eff[s]
                                + rep_eff[r]
                                + rng.normal(0.0, residual_sd)
                            )
                            rows.append(
                                (
                                    name,
                                    algorithm,
                                    implementation,
                                    optimizer,
                                    f"c{c + 1}",
                                    s,
                                    r + 1,
                                    value,
                                )
                            )
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    mask = rng.random(len(frame)) < keep
    return frame.loc[mask].reset_index(drop=True)


def crossed_design(
    rng_seed: int,
    *,
    experiments: tuple[str, ...] = ("a", "b", "c"),
    n_seeds: int = 6,
    n_repeats: int = 4,
    per_cell: int = 1,
    keep: float = 1.0,
    effects: tuple[float, ...] | None = None,
    seed_sd: float = 1.0,
    repeat_sd: float = 0.7,
    residual_sd: float = 0.5,
) -> pd.DataFrame:
    """A generic experiments x seeds x repeats layout (optionally unbalanced by ``keep``).

    Used for the small unbalanced case (both variances positive) and the balanced
    hand-checkable case (``keep = 1``, ``per_cell = 1``).
    """
    rng = np.random.default_rng(rng_seed)
    if effects is None:
        effects = tuple(float(x) for x in rng.normal(0.0, 1.0, len(experiments)))
    seed_eff = rng.normal(0.0, seed_sd, n_seeds)
    rep_eff = rng.normal(0.0, repeat_sd, n_repeats)
    rows: list[tuple] = []
    for e, name in enumerate(experiments):
        for s in range(n_seeds):
            for r in range(n_repeats):
                for _ in range(per_cell):
                    value = 10.0 + effects[e] + seed_eff[s] + rep_eff[r]
                    value += rng.normal(0.0, residual_sd)
                    rows.append((name, name, "impl", "opt", "c1", s + 1, r + 1, value))
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    if keep < 1.0:
        frame = frame.loc[rng.random(len(frame)) < keep].reset_index(drop=True)
    return frame
