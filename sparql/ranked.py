"""The plan chooser for named queries that rank a leaderboard: read the ranks the store
keeps (:class:`~reprokg.store.base.LeaderboardRanks`) instead of ranking every score.

*find baselines* ranks every score of a board before ``LIMIT``, so its time grew with
the data (issue 17: p50 236 ms at 10M triples on disk); reading the first ``limit``
ranked entries by index took 18 ms. The ranked form is used when the store keeps ranks,
the board's are current, and they suffice: without filters always; with filters (toolkit,
method, platform) only when every entry of the board is ranked (a filter may skip
entries, and those beyond the window are not there). Otherwise the template's own query
runs (correct, slower). Both give the same rows in the same order: the ranks are ordered
``DESC(?score) ?run ?value``, the template ``DESC(?score) ?run``, and ``?value`` is not
projected.

A filter on a board larger than the window: the window is the board's first entries, so
when at least ``limit`` of its entries pass the filters, those are exactly the board's
first ``limit`` that do. One ``COUNT`` over the filtered window decides. Measured at 10M
triples (boards of ~3,500 entries): COUNT 152 ms + query 119 ms against 307 ms for the
template, p50 of the benchmark's toolkit requests; the filter's four hops per entry cost
most of either.
"""

from __future__ import annotations

from collections.abc import Callable

from reprokg.sparql.named import NamedQuery, get_query, values_block
from reprokg.store.base import LeaderboardRanks, QueryResult, Store

_FILTERS = ("toolkit", "method", "platform")


def _find_baselines(
    query: NamedQuery, values: dict[str, str], store: LeaderboardRanks
) -> str | None:
    terms, limit = query.terms(values)
    board = terms.get("board")
    if board is None:
        return None
    n = int(limit) if limit is not None else 100
    ranked = store.ranked_entries(str(board))
    if ranked is None or n > store.ranks_window:
        return None
    filters = [f for f in _FILTERS if f in terms]
    lines = [line for f in filters for line in query.optional_lines(f)]
    prefixes = "\n".join(
        line for line in query.sparql.splitlines() if line.upper().startswith("PREFIX")
    )
    window = (
        "  { SELECT ?run ?score ?rank ?measure ?collection WHERE {"
        f"{values_block(terms)}\n"
        f"    {store.ranks_pattern(str(board), n if not filters else store.ranks_window)}\n"
        + "".join(f"{line}\n" for line in lines)
        + f"  }} ORDER BY ?rank LIMIT {n} }}\n"
    )
    if filters and ranked >= store.ranks_window and not _enough(store, prefixes, window, n):
        return None  # entries beyond the window may pass: the template ranks them all
    return (
        f"{prefixes}\n"
        "SELECT ?run ?tag ?score ?measure ?collection WHERE {\n"
        + window
        + "  OPTIONAL { ?run rk:runTag ?tag }\n"
        "} ORDER BY ?rank"
    )


def _enough(store: object, prefixes: str, window: str, n: int) -> bool:
    """Whether ``n`` entries of the window pass the filters (one COUNT over it)."""
    if not isinstance(store, Store):
        return False
    result = store.query(f"{prefixes}\nSELECT (COUNT(*) AS ?n) WHERE {{\n{window}}}")
    rows = getattr(result, "rows", None) or []
    return bool(rows) and int(str(rows[0][0])) >= n


#: named queries with a ranked form: (query, parameters, store) -> SPARQL or None
RANKED: dict[str, Callable[[NamedQuery, dict[str, str], LeaderboardRanks], str | None]] = {
    "find-baselines": _find_baselines,
}


def plan(query: NamedQuery, values: dict[str, str], store: object) -> str:
    """The SPARQL to run for ``query`` with ``values`` on ``store``: the ranked form when
    the store's ranks can answer, else the template bound as usual."""
    ranked = RANKED.get(query.name)
    if ranked is not None and isinstance(store, LeaderboardRanks):
        text = ranked(query, values, store)
        if text is not None:
            return text
    return query.bind(values)


def run(
    store: Store, name: str, params: dict[str, str] | None = None, *, timeout: float | None = None
) -> QueryResult:
    """Run named query ``name`` with ``params`` (the CLI; the service plans the same way)."""
    return store.query(plan(get_query(name), params or {}, store), timeout=timeout)
