"""The SPARQL behind each web view: ``service/web/queries/*.rq`` in the named-query format.

Each file has the header of :mod:`reprokg.sparql.named` (title, description, typed
params, examples) and is bound by the same code (parameters as RDF terms in a ``VALUES``
block, optional lines dropped). One addition: a line ``#@include NAME.rq`` is replaced by
that file (the papers view's filters live once, in ``papers-core.rq``, and four queries
include them). The web layer may also set the page: :func:`with_page` rewrites the last
``ORDER BY``/``LIMIT`` from whitelisted sort keys and integers, never from user text.
"""

from __future__ import annotations

import functools
import re
from importlib.resources.abc import Traversable

from reprokg.core.resources import data_dir
from reprokg.sparql.named import NamedQuery, parse_query

#: package data (``importlib.resources``: the installed wheel has no checkout)
QUERY_DIR: Traversable = data_dir("service/web/queries")
_INCLUDE_RE = re.compile(r"^[ \t]*#@include[ \t]+([A-Za-z0-9_.-]+\.rq)[ \t]*$", re.MULTILINE)
_ORDER_RE = re.compile(r"^ORDER BY .*$", re.MULTILINE)
_LIMIT_RE = re.compile(r"^LIMIT \d+\s*$", re.MULTILINE)


def _expand(text: str, seen: tuple[str, ...] = ()) -> str:
    def sub(m: re.Match[str]) -> str:
        name = m.group(1)
        if name in seen:
            raise ValueError(f"#@include cycle: {' -> '.join((*seen, name))}")
        body = QUERY_DIR.joinpath(name).read_text(encoding="utf-8")
        body = "\n".join(line for line in body.splitlines() if not line.startswith("# "))
        return _expand(body, (*seen, name))

    return _INCLUDE_RE.sub(sub, text)


@functools.cache
def view_query(name: str) -> NamedQuery:
    """The named query ``queries/NAME.rq`` with its includes expanded."""
    text = QUERY_DIR.joinpath(f"{name}.rq").read_text(encoding="utf-8")
    return parse_query(name, _expand(text))


def view_names() -> list[str]:
    """Every view query (the ``-core`` files are only included by others)."""
    return sorted(
        f.name[:-3]
        for f in QUERY_DIR.iterdir()
        if f.name.endswith(".rq") and not f.name.endswith("-core.rq")
    )


def with_page(sparql: str, order_by: str | None, limit: int | None, offset: int = 0) -> str:
    """``sparql`` with its last top-level ``ORDER BY`` and ``LIMIT`` lines replaced.

    ``order_by`` must come from a view's whitelist of sort clauses (never request text);
    ``limit``/``offset`` are integers. ``limit=None`` drops the LIMIT (CSV of all rows).
    """
    if order_by is not None:
        matches = list(_ORDER_RE.finditer(sparql))
        if matches:
            m = matches[-1]
            sparql = sparql[: m.start()] + f"ORDER BY {order_by}" + sparql[m.end() :]
    matches = list(_LIMIT_RE.finditer(sparql))
    page = (
        ""
        if limit is None
        else f"LIMIT {int(limit)}" + (f" OFFSET {int(offset)}" if offset else "")
    )
    if matches:
        m = matches[-1]
        sparql = sparql[: m.start()] + page + "\n" + sparql[m.end() :]
    elif page:
        sparql = sparql.rstrip() + "\n" + page + "\n"
    return sparql
