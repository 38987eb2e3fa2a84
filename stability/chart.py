"""A chart a person would rather look at than the tables: experiment means, reruns side by side.

Each experiment's model mean (intercept + its effect) with its 95% interval (Satterthwaite
t, as the contrasts), the rows behind it as faint dots, and the two (or more) reruns of
one algorithm/implementation/optimizer next to each other with the rerun contrast's p
above them. Built on matplotlib's object API (no pyplot state), so it is safe to call from
a web handler's thread.
"""

from __future__ import annotations

import io
from collections import defaultdict

import numpy as np
import pandas as pd

from reprokg.core.errors import UsageError
from reprokg.stability.analysis import DEFAULT_ALPHA, StudyFit, fit_study

RERUN_COLOURS = ("#1f77b4", "#d95f02", "#7570b3", "#1b9e77")


def means_chart(
    frame: pd.DataFrame,
    *,
    reml: bool = True,
    alpha: float = DEFAULT_ALPHA,
    fmt: str = "svg",
    title: str | None = None,
) -> bytes:
    """SVG or PNG bytes of the chart for the observations in ``frame``."""
    return chart_of_fit(fit_study(frame, reml=reml), alpha=alpha, fmt=fmt, title=title)


def _groups(fitted: StudyFit) -> list[tuple[str, list[str]]]:
    """(label, experiments) per algorithm/implementation/optimizer, in sorted order."""
    by_key: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for e in fitted.experiments:
        meta = fitted.rows.meta.get(e)
        by_key[meta if meta is not None else ("", e)].append(e)
    out = []
    for key in sorted(by_key):
        names = sorted(by_key[key])
        label = "\n".join(k for k in (key[0], key[2]) if k) if key[0] else names[0]
        out.append((label, names))
    return out


def chart_of_fit(
    fitted: StudyFit,
    *,
    alpha: float = DEFAULT_ALPHA,
    fmt: str = "svg",
    title: str | None = None,
    value_label: str | None = None,
) -> bytes:
    """The chart for an already fitted study (the API fits once for JSON and chart);
    ``value_label`` names the observed metric on the y axis."""
    from matplotlib.figure import Figure

    if fmt not in ("svg", "png"):
        raise UsageError(f"a chart is svg or png, not {fmt!r}")
    groups = _groups(fitted) if fitted.model is not None else []
    width = max(6.0, 1.5 * len(groups) + 2.0)
    fig = Figure(figsize=(width, 4.8), layout="constrained")
    ax = fig.subplots()
    if not groups:
        ax.text(
            0.5,
            0.5,
            "nothing to plot: " + "; ".join(fitted.warnings[:2]),
            ha="center",
            va="center",
            wrap=True,
            transform=ax.transAxes,
        )
        ax.set_axis_off()
        return _save(fig, fmt)
    rows = fitted.rows
    rng = np.random.default_rng(0)  # fixed jitter: the same data give the same picture
    ticks, labels = [], []
    top = -np.inf
    for gi, (label, names) in enumerate(groups):
        offsets = np.linspace(-0.18, 0.18, len(names)) if len(names) > 1 else np.zeros(1)
        means = {}
        for k, (e, off) in enumerate(zip(names, offsets, strict=True)):
            x = gi + off
            colour = RERUN_COLOURS[k % len(RERUN_COLOURS)]
            vals = rows.value[rows.exp_codes == fitted.experiments.index(e)]
            ax.scatter(
                x + rng.uniform(-0.05, 0.05, vals.size),
                vals,
                s=4,
                alpha=0.15,
                color=colour,
                linewidths=0,
            )
            m = fitted.mean(e)
            means[e] = (x, m)
            ax.errorbar(
                x,
                m["estimate"],
                yerr=[[m["estimate"] - m["lower"]], [m["upper"] - m["estimate"]]],
                fmt="o",
                color=colour,
                capsize=4,
                markersize=5,
                label=None,
            )
            top = max(top, m["upper"], float(vals.max()) if vals.size else -np.inf)
        for a, b in zip(names, names[1:], strict=False):
            c = fitted.contrast(a, b)
            xa, xb = means[a][0], means[b][0]
            y = max(means[a][1]["upper"], means[b][1]["upper"])
            star = " *" if c["p"] < alpha else ""
            ax.annotate(
                f"p={c['p']:.3g}{star}",
                xy=((xa + xb) / 2, y),
                xytext=(0, 6),
                textcoords="offset points",
                ha="center",
                fontsize=7,
            )
            ax.plot([xa, xa, xb, xb], [y, y, y, y], color="0.4", linewidth=0.8)
        ticks.append(gi)
        labels.append(
            label
            + "\n"
            + " | ".join(n.rsplit("-", 1)[-1] if len(names) > 1 else "" for n in names).strip(" |")
        )
    ax.set_xticks(ticks, labels, fontsize=8)
    ax.set_xlim(-0.6, len(groups) - 0.4)
    ax.set_ylabel(f"{value_label or 'value'} (model mean, 95% interval)")
    ax.grid(axis="y", alpha=0.3)
    heading = (
        f"Experiment means ({fitted.method} mixed model, Satterthwaite 95% intervals); reruns "
        f"side by side, * = rerun means differ at alpha = {alpha:g}"
    )
    ax.set_title(f"{title}\n{heading}" if title else heading, fontsize=9)
    return _save(fig, fmt)


def _save(fig, fmt: str) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, dpi=120)
    return buf.getvalue()
