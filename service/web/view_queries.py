"""The SPARQL behind each web view: ``service/web/queries/*.rq`` in the named-query format.

Each file has the header of :mod:`reprokg.sparql.named` (title, description, typed
params, examples), is read and bound by the same code as every query of the package
(:func:`reprokg.sparql.named.package_query`: parameters as RDF terms in a ``VALUES``
block, optional lines dropped). A view may also
read an analysis family's own query by its package path (the stability chart reads the
observations the analysis reads: ``stability/sparql/observations.rq``). The web layer may
also set the page: :func:`with_page` rewrites the last ``ORDER BY``/``LIMIT`` from
whitelisted sort keys and integers, never from user text.
"""

from __future__ import annotations

import re

from reprokg.sparql.named import NamedQuery, package_query, query_paths

FOLDER = "service/web/queries"
_ORDER_RE = re.compile(r"^ORDER BY .*$", re.MULTILINE)
_LIMIT_RE = re.compile(r"^LIMIT \d+\s*$", re.MULTILINE)


def view_query(name: str) -> NamedQuery:
    """The view query ``NAME`` (``service/web/queries/NAME.rq``), or the package query a
    path names (``stability/sparql/observations.rq``)."""
    return package_query(name if name.endswith(".rq") else f"{FOLDER}/{name}.rq")


def view_names() -> list[str]:
    """Every view query."""
    return sorted(p.rpartition("/")[2][:-3] for p in query_paths(FOLDER))


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
