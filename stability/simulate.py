"""Synthetic stability studies in the design of seed 003, for tests, benchmarks and demos.

The paper publishes no per-run values, so every data set here is made up (illustrative):
experiments = algorithm x optimizer x rerun, each run over sampled hyper-parameter
configurations x seeds x repeats, one accuracy per run. A fixed numpy seed makes each
data set reproducible, so R and Python can be handed the very same numbers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reprokg.loaders.stability import ROW_KEYS

ALGORITHMS: tuple[tuple[str, str, str, float], ...] = (
    # short name, algorithm, implementation, typical accuracy
    ("m-net", "Matching Networks", "community (torch7)", 0.56),
    ("protonet", "Prototypical Networks", "official (PyTorch)", 0.61),
    ("tadam", "TADAM", "official (TensorFlow)", 0.75),
)
OPTIMIZERS: tuple[str, ...] = ("adam", "sgd")
PAPER_SEEDS: tuple[int, ...] = (7654, 42, 1234, 2019, 31337)

#: a simulated run's columns: the loader's row keys but the metric (one accuracy per run)
COLUMNS = tuple(k for k in ROW_KEYS if k != "metric")


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


#: hyper-parameter columns of the example study (the names of seed 003's Table 3)
HP_NAMES = (
    "learning_rate",
    "lr_decay_rate",
    "lr_decay_period",
    "query_shots",
    "pretrain_batch_size",
    "n_way",
    "n_shot",
    "tasks_per_batch",
    "batch_size",
)
EXAMPLE_TITLE = (
    "Illustrative stability study in the design of seed 003 (metric-based few-shot learning)"
)


def _sample_hyper_parameters(rng: np.random.Generator, algorithm: str) -> dict[str, str]:
    """One configuration drawn from seed 003's Table 3 search space, values as text."""

    def sig(x: float) -> str:
        return f"{x:.4g}"

    if algorithm == "TADAM":
        return {
            "learning_rate": sig(rng.uniform(0.02, 0.1)),
            "lr_decay_rate": sig(rng.normal(10.0, 1.0)),
            "lr_decay_period": "2500",
            "query_shots": str(int(rng.integers(16, 65))),
            "pretrain_batch_size": str(int(rng.integers(32, 65))),
            "n_way": "5",
            "n_shot": "5",
            "tasks_per_batch": "2",
            "batch_size": "100",
        }
    if algorithm == "Prototypical Networks":
        return {
            "learning_rate": sig(abs(rng.normal(0.005, 0.0012))),
            "lr_decay_rate": "0.5",
            "lr_decay_period": str(int(rng.uniform(500, 2000))),
            "query_shots": "15",
            "n_way": "5",
            "n_shot": "5",
            "tasks_per_batch": "1",
            "batch_size": "100",
        }
    return {  # Matching Networks
        "learning_rate": sig(10 ** rng.uniform(-4, -1)),
        "lr_decay_rate": sig(10 ** rng.uniform(-5, -2)),
        "lr_decay_period": "1",
        "query_shots": str(int(rng.integers(5, 31))),
        "n_way": "5",
        "n_shot": "5",
        "tasks_per_batch": "1",
        "batch_size": "500",
    }


def example_study(rng_seed: int = 3) -> pd.DataFrame:
    """The bundled example (examples/stability/fewshot_seed003.csv) as a frame: the paper's
    design from :func:`paper_design` (accuracies rounded to 4 decimals) with hyper-parameter
    values sampled from Table 3, one set per algorithm x optimizer x configuration, shared
    by the two reruns (the paper seeded its random search to repeat it exactly)."""
    frame = paper_design(rng_seed)
    rng = np.random.default_rng([rng_seed, 1])  # apart from the values' generator
    keys = frame[["algorithm", "optimizer", "configuration"]].drop_duplicates()
    hps = {
        (a, o, c): _sample_hyper_parameters(rng, a)
        for a, o, c in keys.itertuples(index=False, name=None)
    }
    for name in HP_NAMES:
        frame[f"hp.{name}"] = [
            hps[a, o, c].get(name, "")
            for a, o, c in zip(
                frame["algorithm"], frame["optimizer"], frame["configuration"], strict=True
            )
        ]
    frame["metric"] = "test accuracy"
    frame["value"] = frame["value"].map(lambda v: f"{v:.4f}")
    return frame


def example_csv(rng_seed: int = 3) -> str:
    """The text of examples/stability/fewshot_seed003.csv (a test checks the two agree)."""
    frame = example_study(rng_seed)
    n_exp = frame["experiment"].nunique()
    header = [
        "# stability: 1",
        f"# title: {EXAMPLE_TITLE}",
        "# dataset: miniImagenet",
        "# illustrative: true",
        "# note: ILLUSTRATIVE values, not measured: generated by "
        f"reprokg.stability.simulate.example_study({rng_seed}) in the design of seed 003 "
        f"({n_exp} experiments = 3 algorithms x 2 optimizers x 2 reruns; 5 configurations x "
        f"5 seeds x 5 repeats each; {len(frame)} of 1500 runs kept); hyper-parameters sampled "
        "from its Table 3",
    ]
    columns = [*ROW_KEYS, *(f"hp.{n}" for n in HP_NAMES)]
    body = frame[columns].to_csv(index=False, lineterminator="\n")
    return "\n".join(header) + "\n" + body
