"""A result's table, for a paper or a spreadsheet: CSV and a LaTeX ``tabular``.

:func:`table_of` flattens a result's JSON into rows: a comparison's headline measures
sized for a paper (:func:`headline_table`, the default of ``reprokg freeze``) or every
measure as (measure, side, effect, value), with the statistics compare reports among
them; a passport's verdicts; any other result as (path, value) for every scalar it
holds. The CSV holds every value exactly as the JSON does (``repr`` of floats), so
reading it back gives the JSON's numbers; the LaTeX table rounds them for print (4
significant digits).
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from reprokg.core.tables import spreadsheet_cell

SIDES = ("baseline", "advanced")


@dataclass
class Table:
    header: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    caption: str = ""


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def comparison_rows(measures: dict[str, Any]) -> list[list[Any]]:
    """(measure, side, effect, value) for every value of a comparison's ``measures``."""
    rows: list[list[Any]] = []
    for name, value in measures.items():
        if not isinstance(value, dict):
            rows.append([name, "", "", value])
            continue
        for key, x in value.items():
            side, effect = (key, "") if key in SIDES else ("", key)
            if isinstance(x, dict):
                rows += [[name, side, e, v] for e, v in x.items()]
            else:
                rows.append([name, side, effect, x])
    return rows


def _scalars(value: Any, path: str = "") -> list[list[Any]]:
    if isinstance(value, dict):
        out = []
        for k, v in value.items():
            out += _scalars(v, f"{path}.{k}" if path else str(k))
        return out
    if isinstance(value, list):
        out = []
        for i, v in enumerate(value):
            out += _scalars(v, f"{path}[{i}]")
        return out
    return [[path, value]]


def table_of(
    kind: str, data: dict[str, Any] | None, full: bool = True, chosen: Sequence[str] = ()
) -> Table | None:
    """The table of a result's JSON (``None`` without JSON); a comparison's every value
    (``full``) or its headline measures (:func:`headline_table`)."""
    if data is None:
        return None
    if kind == "comparison" and isinstance(data.get("measures"), dict) and not full:
        return headline_table(data, chosen)
    if kind == "comparison" and isinstance(data.get("measures"), dict):
        return Table(
            ["measure", "side", "effect", "value"],
            comparison_rows(data["measures"]),
            f"reproducibility measures ({data.get('kind', '')}, PRIMAD "
            f"{data.get('primad') or 'not known'})",
        )
    if kind == "passport":
        rows = [
            [v.get("source"), v.get("outcome_label"), v.get("method"), v.get("date")]
            for v in data.get("verdicts", [])
        ]
        return Table(["source", "outcome", "method", "date"], rows, "was it reproduced?")
    return Table(["path", "value"], _scalars(data), f"every value of the {kind} result")


def headline_table(data: dict[str, Any], chosen: Sequence[str] = ()) -> Table:
    """A comparison's table sized for a paper: one row per headline measure and side
    (``measures/headline.py``: ``chosen``, else the measures its verdicts' rules judge,
    else the declared default), with each run's mean, the difference original − reproduced
    and its interval, RMSE and ER; the rankings' agreement and PRIMAD in the caption."""
    from reprokg.measures.headline import comparison_summary, flat_values

    opts = data.get("options") or {}
    judged: list[str] = []
    for v in data.get("verdicts", []):
        from reprokg.core.errors import NotFound
        from reprokg.evidence.verdicts import resolve

        try:  # a preset's measures; a rule of a user's own file is not known here
            judged += [c.at for c in resolve(str(v.get("rule"))).conditions if c.at]
        except NotFound:
            continue
    s = comparison_summary(
        runs={},
        collection=None,
        kind=str(data.get("kind") or ""),
        primad=data.get("primad"),
        values=flat_values(data.get("measures") or {}),
        available=list(opts.get("measures") or []),
        chosen=chosen,
        judged=judged,
        level=float(opts.get("level", 0.95)),
    )
    with_er = any(r.er is not None for r in s.rows)
    header = ["measure", "side", "original", "reproduced", "difference", "low", "high", "RMSE"]
    rows = [
        [r.measure, r.side, r.original, r.reproduced, r.mean_diff, r.low, r.high, r.rmse]
        + ([r.er] if with_er else [])
        for r in s.rows
    ]
    rankings = "; ".join(
        ", ".join(f"{k.upper()} {x:.3f}" for k, x in v.items() if x is not None) + f" ({side})"
        for side, v in s.rankings.items()
    )
    caption = (
        f"Reproduction of {', '.join(s.measures)} ({s.kind}; PRIMAD {s.primad or 'not known'}: "
        f"{s.primad_text}): each run's mean, the mean per-topic difference original minus "
        f"reproduced with its {100 * s.level:g}% BCa interval, RMSE"
        + (", effect ratio" if with_er else "")
        + (f"; rankings' agreement {rankings}" if rankings else "")
    )
    return Table(header + (["ER"] if with_er else []), rows, caption)


def csv_bytes(table: Table) -> bytes:
    """The table as CSV (``table.csv``, a crate's ``result.csv``): text a spreadsheet would
    run as a formula neutralised (:func:`~reprokg.core.tables.spreadsheet_cell`), numbers
    exactly as the JSON holds them."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([spreadsheet_cell(h) for h in table.header])
    for row in table.rows:
        w.writerow([_cell(spreadsheet_cell(c)) for c in row])
    return buf.getvalue().encode("utf-8")


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


#: line ends and tabs (a paragraph break is an error inside a tabular) and the other
#: control characters (which TeX refuses as invalid)
_LATEX_SPACE = re.compile(r"[\t\n\r\f\v]+")
_LATEX_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def latex_escape(text: str) -> str:
    """``text`` as LaTeX text: every special character as the command that prints it
    (``\\input{…}`` is printed, never run), line ends as a space, control characters
    dropped."""
    text = _LATEX_CONTROL.sub("", _LATEX_SPACE.sub(" ", text))
    return "".join(_LATEX_SPECIAL.get(c, c) for c in text)


def _latex_cell(value: Any) -> str:
    if value is None:
        return "--"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"${value}$"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        return f"${value:.4g}$".replace("e", r"\mathrm{e}")
    return latex_escape(str(value))


def latex_table(table: Table, label: str = "tab:reprokg") -> str:
    """A ``table`` environment with one ``tabular`` (booktabs rules), ready to ``\\input``."""
    cols = "".join("r" if _numeric(table, i) else "l" for i in range(len(table.header)))
    lines = [
        "% written by reprokg; needs \\usepackage{booktabs}",
        "\\begin{table}",
        "\\centering",
        f"\\caption{{{latex_escape(table.caption)}}}",
        f"\\label{{{label}}}",
        f"\\begin{{tabular}}{{{cols}}}",
        "\\toprule",
        " & ".join(latex_escape(h) for h in table.header) + r" \\",
        "\\midrule",
    ]
    lines += [" & ".join(_latex_cell(c) for c in row) + r" \\" for row in table.rows]
    lines += ["\\bottomrule", "\\end{tabular}", "\\end{table}", ""]
    return "\n".join(lines)


def _numeric(table: Table, i: int) -> bool:
    values = [r[i] for r in table.rows if r[i] is not None]
    return bool(values) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in values
    )
