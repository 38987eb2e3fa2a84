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
first ``limit`` that do. One probe decides (:func:`_last_rank`): it stops at the
``limit``-th passing entry it finds and gives the largest rank among those, and the answer
then reads the window only up to that rank. Measured at 10M triples (boards of ~3,500
entries, the benchmark's 51 toolkit requests of its first 200, in process, on disk): p50
177-178 ms against 286-406 ms for a COUNT over the whole filtered window followed by the
query over it again (the form before), and 307 ms for the template; the filter's four hops
per entry cost most of it.
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
    lines = "".join(f"{line}\n" for f in filters for line in query.optional_lines(f))
    prefixes = "\n".join(
        line for line in query.sparql.splitlines() if line.upper().startswith("PREFIX")
    )

    def window(last_rank: int, order: str) -> str:
        return (
            "  { SELECT ?run ?score ?rank ?measure ?collection WHERE {"
            f"{values_block(terms)}\n"
            f"    {store.ranks_pattern(str(board), last_rank)}\n"
            + lines
            + f"  }} {order}LIMIT {n} }}\n"
        )

    last = n if not filters else store.ranks_window
    if filters and ranked >= store.ranks_window:
        last = _last_rank(store, prefixes, window(last, ""), n)
        if last is None:
            return None  # entries beyond the window may pass: the template ranks them all
    return (
        f"{prefixes}\n"
        "SELECT ?run ?tag ?score ?measure ?collection WHERE {\n"
        + window(last, "ORDER BY ?rank ")
        + "  OPTIONAL { ?run rk:runTag ?tag }\n"
        "} ORDER BY ?rank"
    )


def _last_rank(store: object, prefixes: str, unordered: str, n: int) -> int | None:
    """The largest rank among any ``n`` window entries that pass the filters (the engine
    stops at the ``n``-th it finds); None when fewer than ``n`` pass.

    The board's first ``n`` passing entries rank at most that, so the answer reads the
    window only up to it: one pass over the entries up to the ``n``-th found, instead of a
    COUNT over the whole filtered window and then the query over it again.
    """
    if not isinstance(store, Store):
        return None
    result = store.query(
        f"{prefixes}\nSELECT (COUNT(*) AS ?n) (MAX(?rank) AS ?last) WHERE {{\n{unordered}}}"
    )
    rows = getattr(result, "rows", None) or []
    if not rows or rows[0][0] is None or rows[0][1] is None or int(str(rows[0][0])) < n:
        return None
    return int(str(rows[0][1]))


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
