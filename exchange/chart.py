"""A result's chart for its crate: a horizontal bar chart of the table's first values, as a
self-contained SVG (no scripts, text escaped), so a crate shows its numbers without reprokg."""

from __future__ import annotations

from html import escape

from reprokg.exchange.tables import Table

#: most bars drawn (the CSV holds every value)
MAX_BARS = 40


def bar_chart(table: Table, *, width: int = 640) -> str | None:
    """Bars for the table's rows with a finite numeric last column (``None`` if none)."""
    points = []
    for row in table.rows:
        value = row[-1]
        if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
            continue
        if abs(value) == float("inf"):
            continue
        label = " · ".join(str(c) for c in row[:-1] if c not in (None, ""))
        points.append((label, float(value)))
        if len(points) == MAX_BARS:
            break
    if not points:
        return None
    bar, gap, left, top = 14, 4, 260, 30
    height = top + len(points) * (bar + gap) + 20
    lo = min(0.0, min(v for _, v in points))
    hi = max(0.0, max(v for _, v in points))
    span = (hi - lo) or 1.0
    plot = width - left - 70

    def x(v: float) -> float:
        return left + (v - lo) / span * plot

    body = [
        f'<text x="{left}" y="18" font-size="13">{escape(table.caption[:90])}</text>',
        f'<line x1="{x(0):.1f}" y1="{top - 4}" x2="{x(0):.1f}" y2="{height - 16}" stroke="#555"/>',
    ]
    for i, (label, v) in enumerate(points):
        y = top + i * (bar + gap)
        x0, x1 = sorted((x(0), x(v)))
        body.append(
            f'<text x="{left - 6}" y="{y + bar - 3}" font-size="11" text-anchor="end">'
            f"{escape(label[:40])}</text>"
        )
        body.append(
            f'<rect x="{x0:.1f}" y="{y}" width="{max(x1 - x0, 0.5):.1f}" height="{bar}" '
            'fill="#4a7ab5"/>'
        )
        body.append(f'<text x="{x1 + 4:.1f}" y="{y + bar - 3}" font-size="11">{v:.4g}</text>')
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img">'
        f"<title>{escape(table.caption)}</title>" + "".join(body) + "</svg>\n"
    )
