"""Cells of every CSV reprokg writes for people to open: text a spreadsheet would run as a
formula is neutralised, numbers are left as they are.

One rule for the web views' CSV downloads (``service/web/render.py``: ``tabular``), the
``table.csv`` of ``reprokg freeze`` and the ``result.csv`` of an exported crate
(``exchange/tables.py``: ``csv_bytes``). CSV that programs read as a format is written as
it is: SPARQL results (a W3C format: each value its lexical form), sources kept as they
were uploaded, and the source CSV a loader reads back (MLflow's stability observations,
simulated designs).
"""

from __future__ import annotations

import re

#: how a cell a spreadsheet evaluates begins (OWASP's CSV injection list)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
#: text that is a plain number (``-1.5``, ``+2e3``): a spreadsheet reads it as that number
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def spreadsheet_cell(value: object) -> object:
    """A CSV cell: text that a spreadsheet would run as a formula gets a leading ``'``
    (shown, not evaluated); numbers, numbers written as text, and other text stay as they
    are; ``None`` is empty."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value
