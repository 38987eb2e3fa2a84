"""Charts of the studies (matplotlib, Agg backend): a few figure builders the studies share.

Rendering (SVG text kept as text, no dates, PNG at 130 dpi) is the survey charts'
:func:`reprokg.survey.charts.figure_bytes`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from reprokg.survey.charts import FORMATS, figure_bytes

__all__ = ["FORMATS", "bars", "grouped_bars", "hasse", "render"]

COLOR = "#1f77b4"
PALETTE = ["#08519c", "#3182bd", "#6baed6", "#9ecae1", "#c6dbef", "#fd8d3c"]


def render(make: Callable[[], Figure], fmt: str = "svg") -> bytes:
    return figure_bytes(make, fmt)


def _tidy(ax: Axes) -> None:
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def grouped_bars(
    groups: Sequence[str],
    series: Mapping[str, Sequence[float]],
    *,
    ylabel: str,
    title: str,
    ylim: tuple[float, float] | None = None,
) -> Figure:
    """One group of bars per label of ``groups``, one bar per series."""
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / max(1, len(series))
    pos = np.arange(len(groups))
    for i, (name, vals) in enumerate(series.items()):
        ax.bar(
            pos + (i - (len(series) - 1) / 2) * width,
            vals,
            width,
            label=name,
            color=PALETTE[i % len(PALETTE)],
        )
    ax.set_xticks(pos, list(groups))
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=11)
    if ylim:
        ax.set_ylim(*ylim)
    ax.legend(ncols=min(5, len(series)), fontsize=8, frameon=False, loc="upper left")
    ax.grid(axis="y", alpha=0.3)
    _tidy(ax)
    fig.tight_layout()
    return fig


def bars(
    labels: Sequence[str],
    values: Sequence[float],
    *,
    ylabel: str,
    title: str,
    notes: Sequence[str] | None = None,
) -> Figure:
    """One bar per label, with an optional note above each bar."""
    fig, ax = plt.subplots(figsize=(7, 3.8))
    pos = np.arange(len(labels))
    ax.bar(pos, values, color=COLOR, alpha=0.85)
    ax.set_xticks(pos, list(labels))
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=11)
    top = max([float(v) for v in values] or [1.0])
    for i, note in enumerate(notes or []):
        ax.text(i, float(values[i]) + top * 0.02, note, ha="center", va="bottom", fontsize=8)
    ax.set_ylim(0, top * 1.15 if top > 0 else 1)
    if all(float(v).is_integer() for v in values):
        from matplotlib.ticker import MaxNLocator

        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(axis="y", alpha=0.3)
    _tidy(ax)
    fig.tight_layout()
    return fig


def hasse(
    levels: dict[str, int],
    edges: Sequence[tuple[str, str]],
    labels: dict[str, str],
    *,
    title: str,
) -> Figure:
    """A Hasse diagram: nodes on rows by ``levels`` (0 at the top), an edge per cover."""
    rows: dict[int, list[str]] = {}
    for node, level in levels.items():
        rows.setdefault(level, []).append(node)
    xy: dict[str, tuple[float, float]] = {}
    width = max(len(v) for v in rows.values()) if rows else 1
    for level, nodes in rows.items():
        for i, node in enumerate(sorted(nodes)):
            xy[node] = ((i + 0.5) * width / len(nodes), -level)
    fig, ax = plt.subplots(figsize=(max(6, 3.0 * width), 1.2 + 1.3 * len(rows)))
    for a, b in edges:
        (x1, y1), (x2, y2) = xy[a], xy[b]
        ax.plot([x1, x2], [y1, y2], color="#888", lw=1, zorder=1)
    for node, (x, y) in xy.items():
        ax.text(
            x,
            y,
            labels.get(node, node),
            ha="center",
            va="center",
            fontsize=8,
            bbox={"boxstyle": "round", "fc": "#deebf7", "ec": COLOR},
            zorder=2,
        )
    ax.set_xlim(0, width)
    ax.set_ylim(-max(rows or [0]) - 0.5, 0.5)
    ax.axis("off")
    ax.set_title(title, fontsize=11)
    fig.tight_layout()
    return fig
