"""The JSON shapes of stability results written once, apart from the modules that compute
them (numpy, pandas, the loaders) so that the service declares them at start: the studies
(:class:`reprokg.stability.observations.StudyInfo`) and the seed-variance results
(:mod:`reprokg.stability.seed_comparison`). Their ``to_json()`` returns these, and the
service declares them as the response models of ``/measures/stability/studies``,
``/compare`` and ``/cd``. ``typing_extensions.TypedDict``: pydantic reads no other on
Python 3.11.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict

Block = Literal["seed", "configuration", "repeat"]


class StudyJSON(TypedDict):
    """A stability study in the store."""

    study: str
    id: str
    title: str | None
    illustrative: bool
    documents: list[str]


class IntervalJSON(TypedDict):
    value: float | None
    low: float | None
    high: float | None


class ProbabilityJSON(IntervalJSON):
    level: float


class AsoJSON(TypedDict):
    epsilon_min_a_over_b: float
    "below 0.5: A almost stochastically better"
    epsilon_min_b_over_a: float
    violation_ratio_a_over_b: float
    reading: str


class SeedComparisonJSON(TypedDict):
    """Experiment A against B over their runs (``reprokg stability --compare A B``)."""

    study: str | None
    metric: str | None
    a: str
    b: str
    runs: dict[str, int]
    "{'a': runs of A, 'b': runs of B}"
    aso: AsoJSON
    p_a_beats_b: ProbabilityJSON
    "P(A > B) with its bootstrap interval"
    iqm: dict[str, IntervalJSON]
    "each experiment's interquartile mean"
    level: float
    seed: int | None
    resamples: dict[str, int]


class CriticalDifferenceJSON(TypedDict):
    """Every experiment ranked over blocks of runs (``reprokg stability --cd``)."""

    study: str | None
    metric: str | None
    block: Block
    blocks: int
    average_ranks: dict[str, float]
    "1 = best"
    friedman_statistic: float | None
    friedman_pvalue: float | None
    critical_difference: float | None
    alpha: float
    groups: list[list[str]]
    "experiments whose ranks do not differ"
