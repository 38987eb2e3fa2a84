"""Server-rendered SVG charts: no JavaScript, no charting dependency, readable without CSS.

Each chart is a ``<svg role="img">`` with a ``<title>`` and a ``<desc>`` stating the numbers,
drawn in the page's own colours; the page also offers the same numbers as a table. Sizes
are in viewBox units, so the chart scales to its column (CSS ``width: 100%``).

Proportions carry 95% Clopper–Pearson (exact binomial) intervals: the interval of the
binomial proportion k/n from the beta quantiles, [B(α/2; k, n−k+1), B(1−α/2; k+1, n−k)],
0 when k = 0 and 1 when k = n (Clopper & Pearson 1934).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

INK = "#1b1b1b"
MUTED = "#4a4a4a"
GRID = "#d0d0d0"
ACCENT = "#0a4f9e"
NEGATIVE = "#a31919"
FONT = 'font-family="system-ui, sans-serif"'


def clopper_pearson(k: int, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """The exact (1 − alpha) interval of the proportion k/n (the survey analysis's own
    function, so the charts and ``/measures/survey`` agree); (0, 1) when n == 0."""
    if n == 0:
        return 0.0, 1.0
    from reprokg.survey.stats import clopper_pearson as exact  # scipy: only when charting

    return exact(k, n, alpha)


@dataclass(frozen=True)
class Proportion:
    label: str
    k: int
    n: int

    @property
    def share(self) -> float | None:
        return self.k / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float]:
        return clopper_pearson(self.k, self.n)


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _svg(width: int, height: int, title: str, desc: str, body: list[str]) -> str:
    # ids unique per chart and stable for the same chart (several charts share a page)
    uid = "c" + hashlib.sha1(f"{title}\n{desc}".encode()).hexdigest()[:8]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
        f'aria-labelledby="{uid}t {uid}d" {FONT} font-size="12">'
        f'<title id="{uid}t">{escape(title)}</title><desc id="{uid}d">{escape(desc)}</desc>'
        + "".join(body)
        + "</svg>"
    )


def proportion_chart(points: Sequence[Proportion], title: str, *, width: int = 640) -> str:
    """Share k/n per category (columns) with its 95% Clopper–Pearson interval and n."""
    height, left, right, top, bottom = 260, 44, 12, 14, 46
    plot_w, plot_h = width - left - right, height - top - bottom
    body: list[str] = []
    for tick in (0, 0.25, 0.5, 0.75, 1):
        y = top + plot_h * (1 - tick)
        body.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" '
            f'stroke="{GRID}" stroke-width="1"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="{MUTED}">'
            f"{_pct(tick)}</text>"
        )
    step = plot_w / max(len(points), 1)
    parts = []
    fits = max(int(step / 7), 3)  # characters of a 12-unit font that fit a column
    for i, p in enumerate(points):
        x = left + step * (i + 0.5)
        text = p.label if len(p.label) <= fits else p.label[: fits - 1] + "…"
        body.append(
            f'<text x="{x:.1f}" y="{height - bottom + 16}" text-anchor="middle" fill="{INK}">'
            f"{escape(text)}<title>{escape(p.label)}</title></text>"
            f'<text x="{x:.1f}" y="{height - bottom + 31}" text-anchor="middle" '
            f'fill="{MUTED}" font-size="10">n={p.n}</text>'
        )
        if not p.n:
            parts.append(f"{p.label}: no papers with a known answer")
            continue
        lo, hi = p.interval
        share = p.k / p.n
        y_lo, y_hi, y = (top + plot_h * (1 - v) for v in (lo, hi, share))
        body.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{y_lo:.1f}" y2="{y_hi:.1f}" '
            f'stroke="{ACCENT}" stroke-width="2"/>'
            f'<line x1="{x - 5:.1f}" x2="{x + 5:.1f}" y1="{y_lo:.1f}" y2="{y_lo:.1f}" '
            f'stroke="{ACCENT}" stroke-width="2"/>'
            f'<line x1="{x - 5:.1f}" x2="{x + 5:.1f}" y1="{y_hi:.1f}" y2="{y_hi:.1f}" '
            f'stroke="{ACCENT}" stroke-width="2"/>'
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4.5" fill="{ACCENT}">'
            f"<title>{escape(p.label)}: {p.k} of {p.n} ({_pct(share)}; 95% CI "
            f"{_pct(lo)}–{_pct(hi)})</title></circle>"
        )
        parts.append(f"{p.label}: {p.k} of {p.n}, {_pct(share)} (95% CI {_pct(lo)}–{_pct(hi)})")
    desc = "; ".join(parts) or "no data"
    return _svg(width, height, title, desc, body)


def bar_chart(
    values: Sequence[tuple[str, float | None]],
    title: str,
    *,
    domain: tuple[float, float] | None = None,
    fmt: str = "{:.3g}",
    width: int = 640,
) -> str:
    """Horizontal bars from zero (negative values to the left, in red), one per label.

    For per-topic deltas of a comparison and for review scores (domain (0, 5)); a missing
    value is drawn as "n/a".
    """
    row_h, left, right, top = 22, 150, 56, 8
    height = top * 2 + row_h * max(len(values), 1)
    finite = [v for _, v in values if v is not None and math.isfinite(v)]
    lo, hi = domain or (min([0.0, *finite]), max([0.0, *finite]))
    if hi == lo:
        hi = lo + 1
    plot_w = width - left - right

    def sx(v: float) -> float:
        return left + plot_w * (v - lo) / (hi - lo)

    zero = sx(min(max(0.0, lo), hi))
    body = [
        f'<line x1="{zero:.1f}" x2="{zero:.1f}" y1="{top}" y2="{height - top}" '
        f'stroke="{MUTED}" stroke-width="1"/>'
    ]
    parts = []
    for i, (label, v) in enumerate(values):
        y = top + i * row_h
        short = label if len(label) <= 20 else label[:19] + "…"  # fits the 150 px margin
        body.append(
            f'<text x="{left - 6}" y="{y + 15}" text-anchor="end" fill="{INK}">'
            f"{escape(short)}<title>{escape(label)}</title></text>"
        )
        if v is None or not math.isfinite(v):
            body.append(f'<text x="{zero + 4:.1f}" y="{y + 15}" fill="{MUTED}">n/a</text>')
            parts.append(f"{label}: n/a")
            continue
        x0, x1 = sorted((zero, sx(v)))
        colour = NEGATIVE if v < 0 else ACCENT
        body.append(
            f'<rect x="{x0:.1f}" y="{y + 4}" width="{max(x1 - x0, 1):.1f}" height="{row_h - 8}" '
            f'fill="{colour}"/>'
            f'<text x="{x1 + 4:.1f}" y="{y + 15}" fill="{INK}">{escape(fmt.format(v))}</text>'
        )
        parts.append(f"{label}: {fmt.format(v)}")
    return _svg(width, height, title, "; ".join(parts) or "no data", body)


def mean_interval(values: Sequence[float]) -> tuple[float, float, float] | None:
    """Mean and 95% t interval of ``values`` (the interval collapses for one value)."""
    from scipy.stats import t

    n = len(values)
    if n == 0:
        return None
    mean = sum(values) / n
    if n == 1:
        return mean, mean, mean
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = float(t.ppf(0.975, n - 1)) * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def intervals_by_metric(
    observations: Sequence[Mapping[str, Any]],
) -> dict[str, list[tuple[str, float, float, float, int]]]:
    """Per metric (in name order), per experiment: the mean of its values with a 95% t
    interval and n, the rows :func:`interval_rows` draws. Metrics are never pooled: an
    accuracy and a loss averaged together mean nothing."""
    groups: dict[str, dict[str, list[float]]] = {}
    for o in observations:
        by_exp = groups.setdefault(str(o.get("metric") or "value"), {})
        by_exp.setdefault(str(o.get("experiment") or "?"), []).append(float(o["value"]))
    return {
        metric: [
            (e, *m, len(v))
            for e, v in sorted(by_exp.items())
            if (m := mean_interval(v)) is not None
        ]
        for metric, by_exp in sorted(groups.items())
    }


def interval_rows(
    rows: Sequence[tuple[str, float, float, float, int]], title: str, *, width: int = 640
) -> str:
    """One row per label: a dot at the estimate and a line over its interval (lo, hi), n."""
    row_h, left, right, top = 26, 170, 60, 20
    height = top + row_h * max(len(rows), 1) + 10
    lows = [r[2] for r in rows] or [0.0]
    highs = [r[3] for r in rows] or [1.0]
    lo, hi = min(lows), max(highs)
    pad = (hi - lo) * 0.1 or 0.01
    lo, hi = lo - pad, hi + pad
    plot_w = width - left - right

    def sx(v: float) -> float:
        return left + plot_w * (v - lo) / (hi - lo)

    body = [
        f'<text x="{left}" y="12" fill="{MUTED}" font-size="10">{lo:.4g}</text>'
        f'<text x="{width - right}" y="12" text-anchor="end" fill="{MUTED}" font-size="10">'
        f"{hi:.4g}</text>"
    ]
    parts = []
    for i, (label, est, a, b, n) in enumerate(rows):
        y = top + i * row_h + row_h / 2
        body.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="{INK}">'
            f"{escape(label)}</text>"
            f'<line x1="{sx(a):.1f}" x2="{sx(b):.1f}" y1="{y:.1f}" y2="{y:.1f}" '
            f'stroke="{ACCENT}" stroke-width="2"/>'
            f'<circle cx="{sx(est):.1f}" cy="{y:.1f}" r="4.5" fill="{ACCENT}"/>'
            f'<text x="{width - right + 6}" y="{y + 4:.1f}" fill="{MUTED}" font-size="10">'
            f"n={n}</text>"
        )
        parts.append(f"{label}: {est:.4g} (95% CI {a:.4g} to {b:.4g}, n={n})")
    return _svg(width, height, title, "; ".join(parts) or "no data", body)


@dataclass(frozen=True)
class Estimate:
    """One row of a forest plot: an estimate with its interval (either may be missing)."""

    label: str
    estimate: float | None
    low: float | None = None
    high: float | None = None


def _finite(*xs: float | None) -> list[float]:
    return [x for x in xs if x is not None and math.isfinite(x)]


def _fmt(x: float | None, fmt: str) -> str:
    return "n/a" if x is None or not math.isfinite(x) else fmt.format(x)


def forest_plot(
    rows: Sequence[Estimate],
    title: str,
    *,
    reference: float = 0.0,
    fmt: str = "{:.3g}",
    width: int = 640,
) -> str:
    """A forest plot: per row a square at the estimate and a line over its interval, a
    dashed line at ``reference`` (no effect), the numbers at the right."""
    row_h, left, right, top = 22, 170, 150, 22
    height = top + row_h * max(len(rows), 1) + 8
    values = [v for r in rows for v in _finite(r.estimate, r.low, r.high)] + [reference]
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.08 or 0.05
    lo, hi = lo - pad, hi + pad
    plot_w = width - left - right

    def sx(v: float) -> float:
        return left + plot_w * (v - lo) / (hi - lo)

    body = [
        f'<line x1="{sx(reference):.1f}" x2="{sx(reference):.1f}" y1="{top - 6}" '
        f'y2="{height - 6}" stroke="{MUTED}" stroke-width="1" stroke-dasharray="4 3"/>',
        f'<text x="{sx(reference):.1f}" y="12" text-anchor="middle" fill="{MUTED}" '
        f'font-size="10">{escape(fmt.format(reference))}</text>',
        f'<text x="{left}" y="12" fill="{MUTED}" font-size="10">{escape(fmt.format(lo))}</text>',
        f'<text x="{width - right}" y="12" text-anchor="end" fill="{MUTED}" font-size="10">'
        f"{escape(fmt.format(hi))}</text>",
    ]
    parts = []
    for i, r in enumerate(rows):
        y = top + i * row_h + row_h / 2
        short = r.label if len(r.label) <= 26 else r.label[:25] + "…"
        numbers = f"{_fmt(r.estimate, fmt)} [{_fmt(r.low, fmt)}, {_fmt(r.high, fmt)}]"
        body.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="{INK}">'
            f"{escape(short)}<title>{escape(r.label)}</title></text>"
            f'<text x="{width - right + 8}" y="{y + 4:.1f}" fill="{INK}" font-size="11">'
            f"{escape(numbers)}</text>"
        )
        parts.append(f"{r.label}: {numbers}")
        if r.low is not None and r.high is not None and _finite(r.low, r.high) == [r.low, r.high]:
            body.append(
                f'<line x1="{sx(r.low):.1f}" x2="{sx(r.high):.1f}" y1="{y:.1f}" y2="{y:.1f}" '
                f'stroke="{ACCENT}" stroke-width="2"/>'
            )
        if r.estimate is not None and math.isfinite(r.estimate):
            x = sx(r.estimate)
            body.append(
                f'<rect x="{x - 4.5:.1f}" y="{y - 4.5:.1f}" width="9" height="9" fill="{ACCENT}">'
                f"<title>{escape(r.label)}: {escape(numbers)}</title></rect>"
            )
    return _svg(width, height, title, "; ".join(parts) or "no data", body)


@dataclass(frozen=True)
class Measured:
    """One value of a measured quantity and whose it is (original, reproduction, run)."""

    value: float
    role: str
    label: str


@dataclass(frozen=True)
class QuantityRow:
    """A measured quantity as the QRA figure draws it: its values and CV* with interval."""

    label: str
    values: Sequence[Measured]
    cv_star: float | None
    low: float | None
    high: float | None


def qra_figure(rows: Sequence[QuantityRow], title: str, *, width: int = 640) -> str:
    """QRA of quantities of one measure: per quantity, every measurement on the measure's
    scale (the original filled, reproductions hollow, runs among equals small and grey),
    and its CV* with the interval at the right."""
    row_h, left, right, top = 30, 170, 170, 22
    height = top + row_h * max(len(rows), 1) + 8
    values = [m.value for r in rows for m in r.values if math.isfinite(m.value)] or [0.0, 1.0]
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.08 or abs(hi) * 0.05 or 0.05
    lo, hi = lo - pad, hi + pad
    plot_w = width - left - right

    def sx(v: float) -> float:
        return left + plot_w * (v - lo) / (hi - lo)

    body = [
        f'<text x="{left}" y="12" fill="{MUTED}" font-size="10">{lo:.4g}</text>'
        f'<text x="{width - right}" y="12" text-anchor="end" fill="{MUTED}" font-size="10">'
        f"{hi:.4g}</text>"
    ]
    parts = []
    for i, r in enumerate(rows):
        y = top + i * row_h + row_h / 2
        short = r.label if len(r.label) <= 26 else r.label[:25] + "…"
        cv = f"CV* {_fmt(r.cv_star, '{:.3f}')} [{_fmt(r.low, '{:.3f}')}, {_fmt(r.high, '{:.3f}')}]"
        body.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="{GRID}" '
            'stroke-width="1"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="{INK}">'
            f"{escape(short)}<title>{escape(r.label)}</title></text>"
            f'<text x="{width - right + 8}" y="{y + 4:.1f}" fill="{INK}" font-size="11">'
            f"{escape(cv)}</text>"
        )
        order = {"run": 0, "reproduction": 1, "original": 2}  # the original drawn on top
        for m in sorted(r.values, key=lambda m: order.get(m.role, 0)):
            tip = f"<title>{escape(m.label)}: {m.value:.6g} ({escape(m.role)})</title>"
            if m.role == "original":
                mark = f'fill="{ACCENT}" r="5.5"'
            elif m.role == "reproduction":
                mark = f'fill="white" stroke="{ACCENT}" stroke-width="2" r="4.5"'
            else:
                mark = f'fill="{MUTED}" fill-opacity="0.6" r="3"'
            body.append(f'<circle cx="{sx(m.value):.1f}" cy="{y:.1f}" {mark}>{tip}</circle>')
        originals = [f"{m.value:.6g}" for m in r.values if m.role == "original"]
        shown = f"original {', '.join(originals)}; " if originals else ""
        parts.append(f"{r.label}: {len(r.values)} values ({shown}{cv})")
    return _svg(width, height, title, "; ".join(parts) or "no data", body)
