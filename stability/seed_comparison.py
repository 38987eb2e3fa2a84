"""Seed-variance comparisons of a stored stability study: two experiments over their runs
(ASO, P(A > B), IQM with intervals), and every experiment ranked over blocks of runs
(Friedman's test, the Nemenyi critical difference and its diagram).

The runs are the study's observations as the analysis reads them from the graph
(:func:`reprokg.stability.observations.observation_frame`, one metric). The numbers are
:mod:`reprokg.stats`' (each equal to its reference tool: deepsig, rliable, autorank). A
study observes one data set, so the critical difference ranks the experiments over blocks
of its runs: by default each seed (the mean of the seed's runs over configurations and
repeats: independent replications of every experiment), or each configuration.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

import numpy as np
import pandas as pd

from reprokg.core.errors import UsageError
from reprokg.stability.shapes import (
    Block,
    CriticalDifferenceJSON,
    IntervalJSON,
    ProbabilityJSON,
    SeedComparisonJSON,
)
from reprokg.stats.rank_tests import RankComparison, friedman_nemenyi
from reprokg.stats.seeds import aso, iqm, prob_improvement

BLOCKS = ("seed", "configuration", "repeat")


def _runs(frame: pd.DataFrame, experiment: str) -> np.ndarray:
    values = frame.loc[frame["experiment"] == experiment, "value"].to_numpy(dtype=float)
    values = values[np.isfinite(values)]
    if len(values) == 0:
        known = ", ".join(sorted(frame["experiment"].dropna().astype(str).unique()))
        raise UsageError(f"the study has no runs of experiment {experiment!r} (it has: {known})")
    return values


@dataclass
class ExperimentComparison:
    """Experiment A against B over their runs (higher is better): a computed result (kind
    ``seed-comparison``, ``shapes/seed-comparison.ttl``)."""

    KIND: ClassVar[str] = "seed-comparison"

    a: str
    b: str
    runs: tuple[int, int]
    aso_a_over_b: float
    aso_b_over_a: float
    violation_ratio: float
    prob_a_beats_b: ProbabilityJSON
    iqm: dict[str, IntervalJSON]
    seed: int | None
    resamples: dict[str, int]
    level: float = 0.95
    # --- what it was computed from (for the document; study and metric also in the JSON)
    study: str | None = None
    metric: str | None = None
    source: Source = field(default_factory=lambda: Source())

    def to_json(self) -> SeedComparisonJSON:
        return {
            "study": self.study,
            "metric": self.metric,
            "a": self.a,
            "b": self.b,
            "runs": {"a": self.runs[0], "b": self.runs[1]},
            "aso": {
                "epsilon_min_a_over_b": self.aso_a_over_b,
                "epsilon_min_b_over_a": self.aso_b_over_a,
                "violation_ratio_a_over_b": self.violation_ratio,
                "reading": "epsilon_min < 0.5: the first is almost stochastically better",
            },
            "p_a_beats_b": self.prob_a_beats_b,
            "iqm": self.iqm,
            "level": self.level,
            "seed": self.seed,
            "resamples": self.resamples,
        }

    def to_graph(self) -> Any:
        return self.document().graph

    def document(self, software: Mapping[str, str] | None = None) -> Any:
        from reprokg.stability.seed_document import seed_comparison_document  # rdflib

        return seed_comparison_document(self, software)


@dataclass(frozen=True)
class Source:
    """Where a seed-variance result's runs came from: the observations' documents, the
    experiments' IRIs by name, the SPARQL that read them, whether they are illustrative."""

    documents: tuple[str, ...] = ()
    experiments: Mapping[str, str] = field(default_factory=dict)
    queries: Mapping[str, str] = field(default_factory=dict)
    illustrative: bool = False
    notes: tuple[str, ...] = ()


def source_of(
    frame: pd.DataFrame,
    queries: Mapping[str, str] | None = None,
    *,
    illustrative: bool = False,
    notes: tuple[str, ...] = (),
) -> Source:
    """The :class:`Source` of the runs in ``frame`` (an observation frame)."""
    docs = tuple(sorted({str(d) for d in frame["document"].dropna()}))
    names = {
        str(e): str(i)
        for e, i in zip(frame["experiment"], frame["experiment_iri"], strict=True)
        if isinstance(e, str) and isinstance(i, str)
    }
    return Source(docs, names, dict(queries or {}), illustrative, notes)


def compare_experiments(
    frame: pd.DataFrame,
    a: str,
    b: str,
    *,
    seed: int = 0,
    level: float = 0.95,
    study: str | None = None,
    metric: str | None = None,
    source: Source | None = None,
) -> ExperimentComparison:
    """ASO both ways, P(A > B) and both IQMs, with intervals, of two experiments' runs."""
    xa, xb = _runs(frame, a), _runs(frame, b)
    ab = aso(xa, xb, seed=seed, level=level)
    ba = aso(xb, xa, seed=seed, level=level)
    pi = prob_improvement(xa, xb, seed=seed, level=level)
    ia, ib = iqm(xa, seed=seed, level=level), iqm(xb, seed=seed, level=level)
    return ExperimentComparison(
        a,
        b,
        (len(xa), len(xb)),
        ab.epsilon_min,
        ba.epsilon_min,
        ab.violation_ratio,
        {"value": pi.value, "low": pi.low, "high": pi.high, "level": level},
        {
            a: {"value": ia.value, "low": ia.low, "high": ia.high},
            b: {"value": ib.value, "low": ib.low, "high": ib.high},
        },
        seed,
        {"aso": ab.resamples, "bootstrap": pi.resamples},
        level,
        study,
        metric,
        source or Source(),
    )


@dataclass
class CriticalDifference:
    """Every experiment of a study ranked over blocks of its runs: Friedman + Nemenyi, a
    computed result (kind ``critical-difference``, ``shapes/critical-difference.ttl``)."""

    KIND: ClassVar[str] = "critical-difference"

    ranks: RankComparison
    block: str
    study: str | None = None
    metric: str | None = None
    source: Source = field(default_factory=lambda: Source())

    def to_json(self) -> CriticalDifferenceJSON:
        cd = self.ranks
        return {
            "study": self.study,
            "metric": self.metric,
            "block": cast(Block, self.block),
            "blocks": cd.blocks,
            "average_ranks": dict(zip(cd.names, cd.average_ranks, strict=True)),
            "friedman_statistic": cd.statistic,
            "friedman_pvalue": cd.pvalue,
            "critical_difference": cd.critical_difference,
            "alpha": cd.alpha,
            "groups": [[cd.names[j] for j in g] for g in cd.cliques],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CriticalDifference:
        """The result as stored (its JSON answer): what the web page draws again."""
        names = list(data["average_ranks"])
        index = {n: i for i, n in enumerate(names)}
        ranks = RankComparison(
            names,
            [float(data["average_ranks"][n]) for n in names],
            int(data["blocks"]),
            data.get("friedman_statistic"),
            data.get("friedman_pvalue"),
            data.get("critical_difference"),
            float(data["alpha"]),
            [[index[n] for n in g] for g in data.get("groups", [])],
        )
        return cls(ranks, str(data["block"]), data.get("study"), data.get("metric"))

    def to_graph(self) -> Any:
        return self.document().graph

    def document(self, software: Mapping[str, str] | None = None) -> Any:
        from reprokg.stability.seed_document import critical_difference_document  # rdflib

        return critical_difference_document(self, software)

    def diagram(self, title: str = "") -> bytes:
        return cd_diagram(self.ranks, title)


def critical_difference(
    frame: pd.DataFrame,
    *,
    block: str = "seed",
    alpha: float = 0.05,
    study: str | None = None,
    metric: str | None = None,
    source: Source | None = None,
) -> CriticalDifference:
    """Friedman + Nemenyi over the experiments, one block per ``block`` value (the mean of
    its runs); blocks missing an experiment are left out."""
    if block not in BLOCKS:
        raise UsageError(f"block must be one of {', '.join(BLOCKS)}, not {block!r}")
    table = frame.pivot_table(index=block, columns="experiment", values="value", aggfunc="mean")
    table = table.dropna(axis=0, how="any")
    if table.shape[1] < 2 or table.shape[0] < 1:
        raise UsageError("a critical difference needs two experiments observed in one block")
    ranks = friedman_nemenyi(
        table.to_numpy(dtype=float), [str(c) for c in table.columns], alpha=alpha
    )
    return CriticalDifference(ranks, block, study, metric, source or Source())


def _describe(result: RankComparison) -> str:
    """The diagram's numbers in words (its ``<desc>``: what a screen reader says)."""
    ranks = sorted(zip(result.average_ranks, result.names, strict=True))
    words = "; ".join(f"{name} {rank:.3f}" for rank, name in ranks)
    cd = result.critical_difference
    groups = " | ".join(", ".join(result.names[j] for j in g) for g in result.cliques)
    return (
        f"average ranks over {result.blocks} blocks (1 = best): {words}; critical difference "
        f"{'n/a' if cd is None else f'{cd:.3f}'} at alpha {result.alpha}"
        + (f"; not different: {groups}" if groups else "")
    )


def cd_diagram(result: RankComparison, title: str = "") -> bytes:
    """Demšar's critical-difference diagram as a self-contained SVG (no scripts, no external
    assets): the rank axis, each experiment at its average rank, the CD bar, and a thick
    line joining experiments whose ranks are within the critical difference."""
    from xml.sax.saxutils import escape

    k = len(result.names)
    width, left, right = 760, 40, 40
    axis_y = 70
    span = width - left - right

    def x(rank: float) -> float:
        return left + (rank - 1) / max(k - 1, 1) * span

    order = sorted(range(k), key=lambda j: result.average_ranks[j])
    half = (k + 1) // 2
    height = axis_y + 40 + 22 * half + 20 * len(result.cliques) + 30
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12" role="img">',
        f"<title>{escape(title or 'Critical difference diagram')}</title>",
        f"<desc>{escape(_describe(result))}</desc>",
        f'<line x1="{left}" y1="{axis_y}" x2="{width - right}" y2="{axis_y}" stroke="#000"/>',
    ]
    for r in range(1, k + 1):
        out.append(
            f'<line x1="{x(r):.1f}" y1="{axis_y - 5}" x2="{x(r):.1f}" y2="{axis_y}" '
            'stroke="#000"/>'
            f'<text x="{x(r):.1f}" y="{axis_y - 9}" text-anchor="middle">{r}</text>'
        )
    if result.critical_difference is not None:
        cd = result.critical_difference
        bar = f"CD = {cd:.3f} (α = {result.alpha})"
        out.append(
            f'<line x1="{x(1):.1f}" y1="20" x2="{x(1 + cd):.1f}" y2="20" stroke="#000" '
            f'stroke-width="2"/><text x="{x(1):.1f}" y="14">{escape(bar)}</text>'
        )
    cliques_y = axis_y + 14
    for i, group in enumerate(result.cliques):
        ranks = [result.average_ranks[j] for j in group]
        y = cliques_y + 8 * i
        out.append(
            f'<line x1="{x(min(ranks)) - 3:.1f}" y1="{y}" x2="{x(max(ranks)) + 3:.1f}" '
            f'y2="{y}" stroke="#444" stroke-width="4"/>'
        )
    label_top = cliques_y + 8 * len(result.cliques) + 16
    for pos, j in enumerate(order):
        rank = result.average_ranks[j]
        left_side = pos < half
        row = pos if left_side else k - 1 - pos
        y = label_top + 22 * row
        end = left if left_side else width - right
        anchor = "start" if left_side else "end"
        label = f"{result.names[j]} ({rank:.2f})"
        out.append(
            f'<polyline points="{x(rank):.1f},{axis_y} {x(rank):.1f},{y} {end:.1f},{y}" '
            'fill="none" stroke="#000"/>'
            f'<text x="{end + (4 if left_side else -4):.1f}" y="{y - 4}" '
            f'text-anchor="{anchor}">{escape(label)}</text>'
        )
    out.append("</svg>")
    return "\n".join(out).encode("utf-8")
