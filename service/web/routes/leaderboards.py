"""``/leaderboards`` (every test collection × measure with scores) and ``/leaderboard``
(find baselines as a page: the ranking, with the named query's filters)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from reprokg.core.errors import UsageError
from reprokg.service.deps import ReadStoreDep
from reprokg.service.web.render import (
    alternates,
    page,
    paged_view,
    rows_of,
    sparql_of,
    tabular,
    wants,
)
from reprokg.sparql import ranked
from reprokg.sparql.named import NamedQueryError, get_query

router = APIRouter(include_in_schema=False)

BOARD_COLUMNS = ["collectionId", "collectionName", "measure", "runs", "best", "board"]
RANK_COLUMNS = ["rank", "tag", "score", "run"]
TITLE = get_query("find-baselines").title


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
    """The named query *find baselines* with the page's filters, ranked and paged
    (:func:`reprokg.sparql.ranked.leaderboard`)."""
    given = {
        "collection": collection,
        "measure": measure,
        "toolkit": toolkit,
        "method": method,
        "platform": platform,
    }
    params = {k: v for k, v in given.items() if v}
    every = request.query_params.get("all", "").lower() in ("true", "1", "yes")
    if (offset := request.query_params.get("offset")) and not every:
        params["offset"] = offset
    cap = request.app.state.settings.row_cap if every else None
    try:
        board = ranked.leaderboard(store, params, whole=every, cap=cap)
    except NamedQueryError as exc:
        raise UsageError(str(exc)) from exc
    paged = paged_view(request, board.rows, board.page, every, (TITLE, board.sparql))
    if fmt := wants(request):
        response = tabular(fmt, board.rows, RANK_COLUMNS, "leaderboard")
        response.headers.update(paged.headers())
        return response
    return page(
        request,
        "leaderboard.html",
        title=f"{measure} on {collection}",
        rows=board.rows,
        params=given,
        paged=paged,
        active="/leaderboards",
        alternates=alternates(request),
        sparql_behind=[paged.behind],
    )
