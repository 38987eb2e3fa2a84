"""Charts of the code-replicability analysis (matplotlib, Agg backend), as SVG or PNG bytes.

Drawn from the analysis result (rates and exact intervals) and, for the citation
distributions, from the paper frame; nothing here queries the store itself.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

FORMATS = {"svg": "image/svg+xml", "png": "image/png"}
CODE_COLOR = "#1f77b4"
NO_CODE_COLOR = "#ff7f0e"
SMALL_COLOR = "#9ecae1"
#: groups smaller than this are drawn lighter: their intervals are wide
SMALL_N = 20


def _rate_bars(ax: Any, props: dict[str, dict[str, Any]], horizontal: bool = False) -> None:
    labels = [k for k, p in props.items() if p["rate"] is not None]
    rates = np.array([props[k]["rate"] for k in labels]) * 100
    lo = np.array([props[k]["ci95"][0] for k in labels]) * 100
    hi = np.array([props[k]["ci95"][1] for k in labels]) * 100
    err = np.vstack([rates - lo, hi - rates])
    pos = np.arange(len(labels))
    if horizontal:
        colors = [SMALL_COLOR if props[k]["n"] < SMALL_N else CODE_COLOR for k in labels]
        ax.barh(pos, rates, xerr=err, color=colors, alpha=0.85, capsize=4, ecolor="#333")
        ax.set_yticks(pos, labels)
        ax.invert_yaxis()
        ax.set_xlim(0, 100)
        ax.set_xlabel("papers sharing code or binary (%) with 95% Clopper–Pearson interval")
        for i, k in enumerate(labels):
            ax.text(
                hi[i] + 1.5,
                i,
                f"{rates[i]:.0f}%  ({props[k]['k']}/{props[k]['n']})",
                va="center",
                fontsize=9,
            )
        ax.grid(axis="x", alpha=0.3)
    else:
        small = np.array([props[k]["n"] < SMALL_N for k in labels])
        colors = [SMALL_COLOR if s else CODE_COLOR for s in small]
        ax.bar(pos, rates, yerr=err, color=colors, alpha=0.85, capsize=5, ecolor="#333")
        ax.set_xticks(pos, labels)
        ax.set_ylim(0, 118)
        ax.set_yticks(range(0, 101, 20))
        ax.set_ylabel("papers sharing code or binary (%)")
        for i, k in enumerate(labels):
            ax.text(
                i,
                hi[i] + 2,
                f"{rates[i]:.0f}%\n{props[k]['k']}/{props[k]['n']}",
                ha="center",
                fontsize=9,
            )
        ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def _small_note(props: dict[str, dict[str, Any]]) -> str:
    if any(p["n"] < SMALL_N for p in props.values()):
        return f"\nlighter bars: fewer than {SMALL_N} papers"
    return ""


def sharing_by_year(result: dict[str, Any], frame: pd.DataFrame | None = None) -> Figure:
    fig, ax = plt.subplots(figsize=(6.4, 4.2), layout="constrained")
    props = result["sharing"]["by_year"]
    _rate_bars(ax, props)
    note = _small_note(props)
    ax.set_xlabel(f"SIGGRAPH year (error bars: 95% Clopper–Pearson interval){note}")
    ax.set_title("Code or binary shared, per year")
    return fig


def sharing_by_topic(result: dict[str, Any], frame: pd.DataFrame | None = None) -> Figure:
    props = result["sharing"]["by_topic"]
    fig, ax = plt.subplots(figsize=(7.5, 0.55 * len(props) + 1.4), layout="constrained")
    ordered = dict(sorted(props.items(), key=lambda kv: -(kv[1]["rate"] or 0)))
    _rate_bars(ax, ordered, horizontal=True)
    if _small_note(props):
        ax.set_xlabel(ax.get_xlabel() + _small_note(props))
    ax.set_title("Code or binary shared, per topic")
    return fig


def citations(result: dict[str, Any], frame: pd.DataFrame | None = None) -> Figure:
    """Citation counts of papers with vs without code per year (log scale: heavy tail)."""
    fig, ax = plt.subplots(figsize=(7.2, 4.6), layout="constrained")
    if frame is None or frame["citations"].notna().sum() == 0:
        ax.text(0.5, 0.5, "no citation counts in this data set", ha="center", va="center")
        ax.set_axis_off()
        return fig
    cited = frame[frame["citations"].notna()]
    years = sorted(int(y) for y in cited["year"].unique())
    rng = np.random.default_rng(0)
    handles = []
    ticks: list[tuple[float, str]] = []
    for i, year in enumerate(years):
        rows = cited[cited["year"] == year]
        for j, (flag, color, label) in enumerate(
            ((True, CODE_COLOR, "with code"), (False, NO_CODE_COLOR, "without code"))
        ):
            vals = rows.loc[rows["code_shared"].fillna(False).astype(bool) == flag, "citations"]
            vals = vals.to_numpy(dtype=float) + 1  # log scale: show 0 citations at 1
            x = i * 3 + j
            ticks.append((x, f"{'code' if flag else 'no code'}\nn={len(vals)}"))
            if len(vals):
                bp = ax.boxplot(
                    vals,
                    positions=[x],
                    widths=0.6,
                    showfliers=False,
                    patch_artist=True,
                    medianprops={"color": "black"},
                    boxprops={"facecolor": color, "alpha": 0.35},
                )
                ax.scatter(
                    x + rng.uniform(-0.22, 0.22, len(vals)), vals, s=7, color=color, alpha=0.6
                )
                stats = result["citations"].get(str(year), {}).get("code" if flag else "no_code")
                if stats and stats.get("mean") is not None:
                    ax.plot(x, stats["mean"] + 1, marker="D", color="black", ms=5, zorder=5)
                if i == 0:
                    handles.append(bp["boxes"][0])
                    bp["boxes"][0].set_label(label)
    ax.set_yscale("log")
    ax.set_xticks([t[0] for t in ticks], [t[1] for t in ticks], fontsize=8)
    for i, year in enumerate(years):
        ax.annotate(
            str(year),
            (i * 3 + 0.5, 0),
            xycoords=("data", "axes fraction"),
            xytext=(0, -30),
            textcoords="offset points",
            ha="center",
            va="top",
            fontsize=11,
            fontweight="bold",
        )
    ax.set_ylabel("Google Scholar citations + 1 (log scale)")
    ax.set_xlabel("\nSIGGRAPH year (box: quartiles, line: median, ◆: mean)", labelpad=14)
    ax.set_title("Citations of papers with and without code")
    ax.legend(handles=handles, loc="upper right", frameon=False)
    ax.grid(axis="y", alpha=0.3, which="both")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig


CHARTS: dict[str, Callable[[dict[str, Any], pd.DataFrame | None], Figure]] = {
    "sharing_by_year": sharing_by_year,
    "sharing_by_topic": sharing_by_topic,
    "citations": citations,
}


def render(
    name: str, result: dict[str, Any], frame: pd.DataFrame | None, fmt: str = "svg"
) -> bytes:
    """The chart ``name`` as bytes in ``fmt`` (svg or png)."""
    if name not in CHARTS:
        raise KeyError(f"unknown chart {name!r}; one of {', '.join(CHARTS)}")
    return figure_bytes(lambda: CHARTS[name](result, frame), fmt)


def figure_bytes(make: Callable[[], Figure], fmt: str = "svg") -> bytes:
    """The figure ``make()`` draws as bytes in ``fmt`` (svg or png), then closed. SVG text
    stays text (searchable, selectable, smaller) and carries no date, so the same result
    gives byte-identical SVGs."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}")
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "reprokg"}):
        fig = make()
        buf = io.BytesIO()
        try:
            fig.savefig(buf, format=fmt, dpi=130, metadata=_metadata(fmt))
        finally:
            plt.close(fig)
    return buf.getvalue()


def _metadata(fmt: str) -> dict[str, Any]:
    # drop the creation date so the same analysis gives byte-identical SVGs
    return {"Date": None} if fmt == "svg" else {}
