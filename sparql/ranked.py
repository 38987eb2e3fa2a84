"""The plan chooser for named queries that rank a leaderboard: read the ranks the store
keeps (:class:`~reprokg.store.base.LeaderboardRanks`) instead of ranking every score.

*find baselines* ranks every score of a board before ``LIMIT``, so its time grew with
the data (benchmarks/README.md#figures-once-quoted-in-code). The store reads the board's
first rows from its packed window, with the filters (toolkit, method, platform) compared
on names kept there and the runs' tags, and the plan gives them to the engine as a
``VALUES`` table that it orders as the template does and writes out. The rows are the
template's: the first ``limit`` entries in the ranks' order, ``DESC(?score) ?run ?value``,
are the template's sub-select's rows (``?value`` is not projected), an entry whose run
reaches a filter's name by two paths is two rows in both, and a row per tag follows.

A filter on a board larger than the window: the window is the board's first entries, so
when at least ``limit`` rows pass, they are exactly the board's first ``limit`` that do;
when fewer do, entries beyond the window may pass and the template's own query runs
(correct, slower), as it does when the board's ranks are not current.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from rdflib.term import Identifier

from reprokg.sparql.named import NamedQuery, Page, get_query, run_paged, values_block
from reprokg.sparql.rows import plain
from reprokg.store.base import LeaderboardRanks, QueryResult, SelectResult, Store

_FILTERS = ("toolkit", "method", "platform")
#: parameters only the template answers (the windows keep no score to compare)
_TEMPLATE_ONLY = ("above",)
#: a comment the ranked form starts with (what it was planned on)
RANKED_MARK = (
    "# find-baselines read from the store's leaderboard ranks (store/leaderboard_ranks.py)"
)


def _find_baselines(
    query: NamedQuery, values: dict[str, str], store: LeaderboardRanks
) -> str | None:
    terms, limit = query.terms(values)
    board = terms.get("board")
    if board is None or query.paging(values)[1] or any(p in terms for p in _TEMPLATE_ONLY):
        return None  # no board, a later page (the template's OFFSET), a score to beat
    n = int(limit) if limit is not None else 100
    filters: dict[str, Identifier] = {}
    for f in _FILTERS:
        term = terms.get(f)
        if isinstance(term, tuple):
            return None  # several values: the template compares them
        if term is not None:
            filters[f] = term
    if n > store.ranks_window or not store.ranks_filters.issuperset(filters):
        return None
    rows = store.ranked_top(str(board), n, filters)
    if rows is None:
        return None  # entries beyond the window may pass: the template ranks them all
    prefixes = "\n".join(
        line for line in query.sparql.splitlines() if line.upper().startswith("PREFIX")
    )
    table = "\n    ".join(
        f"({run} {score} {tag})" for run, score, tags in rows for tag in tags or ("UNDEF",)
    )
    return (
        f"{RANKED_MARK}\n{prefixes}\n"
        "SELECT ?run ?tag ?score ?measure ?collection WHERE {"
        f"{values_block(terms)}\n"
        f"  VALUES (?run ?score ?tag) {{\n    {table}\n  }}\n"
        "} ORDER BY DESC(?score) ?run ?tag"
    )


#: named queries with a ranked form: (query, parameters, store) -> SPARQL or None
RANKED: dict[str, Callable[[NamedQuery, dict[str, str], LeaderboardRanks], str | None]] = {
    "find-baselines": _find_baselines,
}


class Planned(NamedTuple):
    """A named query's SPARQL as planned, and whether it reads the store (the ranked
    form does not: the rows are in its ``VALUES`` table)."""

    sparql: str
    reads_store: bool


def planned(query: NamedQuery, values: dict[str, str], store: object) -> Planned:
    """What to run for ``query`` with ``values`` on ``store``: the ranked form when the
    store's ranks can answer, else the template bound as usual."""
    ranked = RANKED.get(query.name)
    if ranked is not None and isinstance(store, LeaderboardRanks):
        text = ranked(query, values, store)
        if text is not None:
            return Planned(text, False)
    return Planned(query.bind(values), True)


def plan(query: NamedQuery, values: dict[str, str], store: object) -> str:
    """The SPARQL of :func:`planned` (it gives the same rows on ``store`` itself)."""
    return planned(query, values, store).sparql


def run(
    store: Store, name: str, params: dict[str, str] | None = None, *, timeout: float | None = None
) -> QueryResult:
    """Run named query ``name`` with ``params`` (the CLI; the service plans the same way)."""
    return store.query(plan(get_query(name), params or {}, store), timeout=timeout)


def known_total(query: NamedQuery, values: dict[str, str], store: object) -> int | None:
    """The runs a find-baselines page is one of, read from the store's ranks instead of
    counted (a count ranks nothing but still reads every score on the board): without a
    filter, the board's entries when its ranks are current; ``None`` otherwise (then
    :func:`~reprokg.sparql.named.page_of` counts)."""
    if query.name not in RANKED or not isinstance(store, LeaderboardRanks):
        return None
    terms, _limit = query.terms(values)
    board = terms.get("board")
    if board is None or isinstance(board, tuple):
        return None
    if any(f in terms for f in (*_FILTERS, *_TEMPLATE_ONLY)):
        return None
    return store.board_entries(str(board))


def carried_ids(store: Store, query: NamedQuery, params: dict[str, str]) -> dict[str, str]:
    """An IRI parameter given as an id a command printed (``comparison=3f9a0c1d``) bound
    to what its document is about (the comparison's IRI): any value without a scheme goes
    through the one resolver (:func:`reprokg.store.catalog.resolve`); an IRI is bound as
    written."""
    from reprokg.store.catalog import resolve

    out = dict(params)
    for name, value in params.items():
        param = query.param(name)
        if param is not None and param.type == "iri" and value and ":" not in value:
            out[name] = str(resolve(store, value).target)
    return out


class Answer(NamedTuple):
    """A named query's answer, which rows of how many it is, and the parameters as bound."""

    result: QueryResult
    #: ``None`` for a query without a LIMIT or not a SELECT
    page: Page | None
    #: the parameters given, printed ids resolved to IRIs (:func:`carried_ids`)
    params: dict[str, str]


def answer(
    store: Store,
    name: str,
    params: dict[str, str] | None = None,
    *,
    whole: bool = False,
    timeout: float | None = None,
) -> Answer:
    """Named query ``name`` as ``reprokg query --name`` and the Python API run it: printed
    ids resolved, a page planned on the store's ranks where they answer (``whole``: every
    row, the template's LIMIT dropped), and the page counted."""
    query = get_query(name)
    values = carried_ids(store, query, params or {})
    sparql = query.bind(values, whole=True) if whole else plan(query, values, store)
    res, page = run_paged(
        store,
        query,
        values,
        whole=whole,
        timeout=timeout,
        sparql=sparql,
        total=None if whole else known_total(query, values, store),
    )
    return Answer(res, page, values)


@dataclass(frozen=True)
class Leaderboard:
    """A page of a leaderboard as a person reads it: find-baselines' rows (plain values)
    each with its ``rank``, which rows of how many runs, and the SPARQL run."""

    rows: list[dict[str, Any]]
    page: Page | None
    sparql: str


def leaderboard(
    store: Store,
    params: Mapping[str, str],
    *,
    whole: bool = False,
    cap: int | None = None,
    timeout: float | None = None,
) -> Leaderboard:
    """The read model of a leaderboard page (``/leaderboard`` and its CSV and JSON):
    find-baselines planned on the store's ranks, paged with its total, each row ranked
    as the run page ranks a score: 1 + the runs scoring better on the board (with the
    page's filters), ties sharing the best rank ("1, 1, 3"). A run listed once per tag
    is one run. On a page past the first, the runs before it all score at least its
    first score; those scoring more are counted (the template with ``above``)."""
    query = get_query("find-baselines")
    values = dict(params)
    sparql = query.bind(values, whole=True, cap=cap) if whole else plan(query, values, store)
    res, page = run_paged(
        store,
        query,
        values,
        whole=whole,
        cap=cap,
        timeout=timeout,
        sparql=sparql,
        total=None if whole else known_total(query, values, store),
    )
    assert isinstance(res, SelectResult)
    offset = page.offset if page is not None else 0
    first = res.rows[0][res.variables.index("score")] if res.rows else None

    def above_first() -> int:
        counted = store.query(query.count_sparql({**values, "above": str(first)}), timeout=timeout)
        assert isinstance(counted, SelectResult)
        n = counted.rows[0][0] if counted.rows else None
        return int(n) if n is not None else 0

    rows = [{k: plain(v) for k, v in r.items()} for r in res.dicts()]
    return Leaderboard(rows_ranked(rows, offset, above_first), page, sparql)


def rows_ranked(
    rows: list[dict[str, Any]], offset: int, above_first: Callable[[], int]
) -> list[dict[str, Any]]:
    """``rows`` (best score first, from ``offset`` runs into the board) with ``rank``:
    1 + the runs before them on the board (``offset``, or ``above_first()`` for those
    tied with the page's first score) + the runs on the page scoring better (a run and
    score seen once, whatever its tags)."""
    out: list[dict[str, Any]] = []
    runs: set[tuple[Any, Any]] = set()
    before = 0
    base = 0
    for i, row in enumerate(rows):
        score = row.get("score")
        if i == 0 or score != rows[i - 1].get("score"):
            better_here = len(runs)
            if not offset:
                before = 0
            elif better_here == 0:  # tied with the first: some runs before may be too
                before = above_first()
            else:
                before = offset
            base = 1 + before + better_here
        runs.add((row.get("run"), score))
        out.append({**row, "rank": base})
    return out
