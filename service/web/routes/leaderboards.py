"""``/leaderboards`` (every test collection × measure with scores) and ``/leaderboard``
(find baselines as a page: the ranking, with the named query's filters)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from reprokg.core.errors import UsageError
from reprokg.service.deps import ReadStoreDep
from reprokg.service.web.render import alternates, page, rows_of, sparql_of, tabular, wants
from reprokg.sparql import ranked
from reprokg.sparql.named import NamedQueryError, get_query
from reprokg.sparql.rows import plain
from reprokg.store.base import SelectResult

router = APIRouter(include_in_schema=False)

BOARD_COLUMNS = ["collectionId", "collectionName", "measure", "runs", "best", "board"]
RANK_COLUMNS = ["rank", "tag", "score", "run"]


@router.get("/leaderboards")
def leaderboards(request: Request, store: ReadStoreDep) -> Response:
    rows = rows_of(store, "leaderboards")
    if fmt := wants(request):
        return tabular(fmt, rows, BOARD_COLUMNS, "leaderboards")
    return page(
        request,
        "leaderboards.html",
        title="Leaderboards",
        rows=rows,
        alternates=alternates(request),
        sparql_behind=[sparql_of("leaderboards")],
    )


Text = Annotated[str, Query(max_length=200)]


def competition_ranks(scores: list) -> list[int]:
    """Ranks of ``scores`` ordered best first, ties sharing the best rank ("1, 1, 3"):
    1 + the number of better scores, as the run page counts them (run-scores.rq)."""
    ranks: list[int] = []
    for i, s in enumerate(scores):
        ranks.append(ranks[-1] if i and s == scores[i - 1] else i + 1)
    return ranks


@router.get("/leaderboard")
def leaderboard(
    request: Request,
    store: ReadStoreDep,
    collection: Text,
    measure: Text,
    toolkit: Text = "",
    method: Text = "",
    platform: Text = "",
) -> Response:
    """The named query *find baselines* with the page's filters, ranked."""
    given = {
        "collection": collection,
        "measure": measure,
        "toolkit": toolkit,
        "method": method,
        "platform": platform,
    }
    params = {k: v for k, v in given.items() if v}
    q = get_query("find-baselines")
    try:
        sparql = ranked.plan(q, params, store)  # the store's ranks when they answer
    except NamedQueryError as exc:
        raise UsageError(str(exc)) from exc
    res = store.query(sparql)
    assert isinstance(res, SelectResult)
    rows = [{k: plain(v) for k, v in r.items()} for r in res.dicts()]
    for r, rank in zip(rows, competition_ranks([r.get("score") for r in rows]), strict=True):
        r["rank"] = rank
    if fmt := wants(request):
        return tabular(fmt, rows, RANK_COLUMNS, "leaderboard")
    return page(
        request,
        "leaderboard.html",
        title=f"{measure} on {collection}",
        rows=rows,
        params=given,
        active="/leaderboards",
        alternates=alternates(request),
        sparql_behind=[(q.title, sparql)],
    )
