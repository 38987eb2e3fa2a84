"""Named queries over HTTP: ``GET /queries`` lists them, ``GET /queries/{name}`` runs one.

Query-string parameters are bound as RDF terms by :mod:`reprokg.sparql.named` (never
spliced into the SPARQL text); results are SPARQL Results JSON or CSV by Accept/``format``.

A LIMIT never cuts silently: an answer to a query with a LIMIT says which rows
of how many it holds (:class:`~reprokg.sparql.named.Page`): the JSON's top-level
``"page"`` (``offset``, ``limit``, ``rows``, ``total``, ``truncated``, ``next_offset``),
the headers ``X-Reprokg-Total``, ``X-Reprokg-Offset``, ``X-Reprokg-Truncated`` and a
``Link: <…offset=N>; rel="next"``; ``all=true`` answers every row up to ``row_cap`` (and
says when the cap cut).
"""

from __future__ import annotations

import json
import os

import anyio
import anyio.to_thread
from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from typing_extensions import TypedDict

from reprokg.core.errors import StoreError, UsageError
from reprokg.core.settings import Settings
from reprokg.service.deps import ReadStoreDep, SettingsDep, error_responses
from reprokg.service.shapes import describe
from reprokg.sparql import ranked
from reprokg.sparql.cache import ResultCache
from reprokg.sparql.named import (
    NamedQuery,
    NamedQueryJSON,
    Page,
    get_query,
    load_queries,
    page_of,
    results_csv,
    results_json,
)
from reprokg.sparql.result_formats import AnswerTooLarge, CappedBuffer, negotiate
from reprokg.sparql.runner import cut_answer
from reprokg.store.base import AskResult, NativeQueries, SelectResult

router = APIRouter(tags=["named queries"])

RESULT_TYPES = ["application/sparql-results+json", "application/json", "text/csv"]
_FORMATS = {"json": "application/sparql-results+json", "csv": "text/csv"}
_RESERVED = {"format", "all"}


def _native(store: object) -> NativeQueries | None:
    """The store, when it runs and serialises queries natively (``None`` otherwise)."""
    return store if isinstance(store, NativeQueries) else None


def engine_limiter(request: Request) -> anyio.CapacityLimiter:
    """Named-query evaluations at once in this process: one per core.

    The evaluation is CPU-bound and releases the GIL. With a pool thread per request in
    flight they time-slice the cores and finish together, then queue for the GIL. Sized
    to the cores, it serves more requests with a shorter tail than the shared pool
    (benchmarks/README.md#figures-once-quoted-in-code). A
    limiter of its own, so a slow ``/sparql`` query or an upload never holds it.
    """
    state = request.app.state
    limiter = getattr(state, "engine_limiter", None)
    if limiter is None:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
        limiter = state.engine_limiter = anyio.CapacityLimiter(cores or os.cpu_count() or 1)
    return limiter


def result_cache(request: Request, settings: Settings) -> ResultCache:
    """This process's named-query result cache (sparql/cache.py), made at first use."""
    state = request.app.state
    cache = getattr(state, "result_cache", None)
    if cache is None:
        cache = state.result_cache = ResultCache(settings.named_query_cache_mb << 20)
    return cache


def _plan_and_run(
    store, query, params: dict[str, str], media: str, limit: int, whole: int | None
) -> tuple[Response, Page | None]:
    """Plan on the store's ranks (which reads the store: in the pool thread, not on the
    event loop) and run natively; the page of the whole answer it is. ``whole``: every
    row, at most this many (the row cap)."""
    if whole is not None:
        resp = _run_native(store, query.bind(params, whole=True, cap=whole), media, limit)
    else:
        plan = ranked.planned(query, params, store)
        resp = _run_native(store, plan.sparql, media, limit, reads_store=plan.reads_store)
    if "X-Reprokg-Truncated" in resp.headers or query.default_limit() is None:
        return resp, None  # cut by bytes (said so), or nothing to page
    rows = _rows_in(bytes(resp.body), media)
    if rows is None:
        return resp, None
    total = ranked.known_total(query, params, store) if whole is None else None
    return resp, page_of(
        store, query, params, rows, whole=whole is not None, cap=whole, total=total
    )


def _rows_in(body: bytes, media: str) -> int | None:
    """Rows of a serialised SELECT answer (``None``: an ASK)."""
    if media == "text/csv":
        import csv
        import io

        return max(0, sum(1 for _ in csv.reader(io.StringIO(body.decode("utf-8")))) - 1)
    doc = json.loads(body)
    return len(doc["results"]["bindings"]) if "results" in doc else None


def _paged(resp: Response, page: Page, media: str, url: str) -> Response:
    """``resp`` saying which rows of how many it holds: the headers, a next link, and
    the JSON's top-level ``"page"`` (clients of the SPARQL JSON format ignore it)."""
    from starlette.datastructures import URL

    info = page.to_json()
    headers = page.headers()
    if page.next_offset is not None:
        info["next"] = str(URL(url).include_query_params(offset=page.next_offset))
        headers["Link"] = f'<{info["next"]}>; rel="next"'
    body = bytes(resp.body)
    if media != "text/csv" and body.startswith(b"{"):
        body = b'{"page":' + json.dumps(info).encode() + b"," + body[1:]
    kept = {k: v for k, v in resp.headers.items() if k not in ("content-length", "content-type")}
    return Response(body, media_type=resp.media_type, headers={**kept, **headers})


def _run_native(
    store, sparql: str, media: str, limit: int, *, reads_store: bool = True
) -> Response:
    """Run on pyoxigraph and let it write the results (half the time of rdflib terms).

    Named queries are ours and bounded (LIMIT, aggregates), so neither the row cap nor
    the kill-able workers of ``/sparql`` are needed here; but the values they return are
    the data's, so the answer is written into a buffer of ``answer_bytes`` (``limit``)
    and, when it does not fit, answered again with the rows that fit, marked as
    ``/sparql`` marks a cut (:func:`_cut_native`).
    """
    import pyoxigraph as ox

    res = _native_result(store, sparql, reads_store)
    if not isinstance(res, ox.QuerySolutions | ox.QueryBoolean):
        raise StoreError("named query is not SELECT/ASK")
    csv_rows = media == "text/csv" and isinstance(res, ox.QuerySolutions)
    out = CappedBuffer(limit)
    try:
        fmt = ox.QueryResultsFormat.CSV if csv_rows else ox.QueryResultsFormat.JSON
        # pyoxigraph's stub says IO[bytes]; it only calls write(), which a RawIOBase has
        res.serialize(out, format=fmt)  # type: ignore[arg-type]  # see above
    except AnswerTooLarge:
        del res
        return _cut_native(store, sparql, media, limit, reads_store)
    if csv_rows:
        return Response(bytes(out.data), media_type="text/csv; charset=utf-8")
    return Response(bytes(out.data), media_type="application/sparql-results+json")


def _native_result(store, sparql: str, reads_store: bool) -> object:
    try:
        return store.native_query(sparql, reads_store=reads_store)
    except (SyntaxError, OSError) as exc:  # our own query text: a defect, not the client's
        raise StoreError(f"named query failed: {exc}") from exc


def _cut_native(store, sparql: str, media: str, limit: int, reads_store: bool) -> Response:
    """The rows of a named query's answer that fit in ``limit`` bytes of values, read
    one at a time (never the whole answer in memory)."""
    from reprokg.store.terms import to_rdflib

    res = _native_result(store, sparql, reads_store)
    # native_query answers a SELECT's solutions
    names = [v.value for v in res.variables]  # type: ignore[attr-defined]
    rows: list[tuple] = []
    used = 0
    for solution in res:  # type: ignore[attr-defined]  # native_query answers a SELECT's solutions
        row = tuple(to_rdflib(solution[i]) for i in range(len(names)))
        used += sum(len(t) + 4 if t is not None else 1 for t in row)
        if used > limit:
            break
        rows.append(row)
    return _answer(SelectResult(names, rows), media, _cut_headers(limit))


def _cut_headers(limit: int) -> dict[str, str]:
    return {"X-Reprokg-Truncated": "true", "X-Reprokg-Byte-Cap": str(limit)}


def _answer(result: SelectResult | AskResult, media: str, headers: dict[str, str]) -> Response:
    if media == "text/csv" and isinstance(result, SelectResult):
        return Response(results_csv(result), media_type="text/csv; charset=utf-8", headers=headers)
    return Response(
        results_json(result), media_type="application/sparql-results+json", headers=headers
    )


class ListedQuery(NamedQueryJSON):
    url: str
    "where it runs (GET, parameters in the query string)"


class QueryList(TypedDict):
    queries: list[ListedQuery]


describe(QueryList)


@router.get(
    "/queries",
    response_model=QueryList,
    summary="The named queries with their parameters and examples",
    responses={
        200: {
            "description": "the named queries",
            "links": {
                "RunNamedQuery": {  # schemathesis' stateful phase follows it
                    "operationId": "run_named_query",
                    "parameters": {"name": "$response.body#/queries/0/name"},
                }
            },
        }
    },
)
def list_queries(request: Request) -> QueryList:
    out: list[ListedQuery] = []
    for q in load_queries().values():
        url = str(request.url_for("run_query", name=q.name))
        out.append({**q.to_dict(), "url": url})
    return {"queries": out}


@router.get(
    "/queries/{name}",
    name="run_query",
    operation_id="run_named_query",
    summary="Run a named query; parameters in the query string",
    response_class=Response,
    responses={
        200: {"description": "the query's results", "content": {t: {} for t in RESULT_TYPES}},
        **error_responses(400, 404, 406, 503),
    },
)
async def run_query(
    name: str,
    request: Request,
    store: ReadStoreDep,
    settings: SettingsDep,
    format: str | None = Query(None, description="json or csv (overrides Accept)"),
    every: bool = Query(
        False,
        alias="all",
        description="every row (up to the service's row cap, and said when it cuts) instead "
        "of a page (the query's limit and offset parameters)",
    ),
) -> Response:
    query = get_query(name)  # UnknownNamedQuery: 404
    if format is not None:
        media = _FORMATS.get(format.lower())
        if media is None:
            raise UsageError(f"format must be one of {list(_FORMATS)}")
    else:
        media = negotiate(request.headers.get("accept"), RESULT_TYPES, aliases={})
    params = {k: v for k, v in request.query_params.multi_items() if k not in _RESERVED}
    whole = settings.row_cap if every else None
    url = str(request.url)
    native = _native(store) if settings.named_queries_inline else None
    if native is not None:
        # a hit: the same request was answered (and its parameters checked) since the
        # last write; a miss is planned on the store's ranks (sparql/ranked.py)
        cache = result_cache(request, settings)
        key = cache.key(native, name, tuple(sorted(params.items())), media, whole, url)
        hit = cache.get(key)
        if hit is not None:
            return Response(
                hit[0], media_type=hit[1], headers={**dict(hit[2]), "X-Reprokg-Cache": "hit"}
            )
        query.terms(params)  # NamedQueryError: 400, before a thread is taken
        resp, page = await anyio.to_thread.run_sync(
            _plan_and_run,
            native,
            query,
            params,
            media,
            settings.answer_bytes,
            whole,
            limiter=engine_limiter(request),
        )
        if page is not None:
            resp = _paged(resp, page, media, url)
        if "X-Reprokg-Byte-Cap" not in resp.headers:  # a cut answer is not kept
            kept = tuple((k, v) for k, v in resp.headers.items() if k.startswith(("x-", "link")))
            cache.put(key, bytes(resp.body), resp.media_type or media, kept)
        resp.headers["X-Reprokg-Cache"] = "miss" if key is not None else "off"
        return resp
    sparql = query.bind(params, whole=whole is not None, cap=whole)  # NamedQueryError: 400
    return await anyio.to_thread.run_sync(
        _run_other, request, store, settings, query, params, sparql, media, whole, url
    )


def _run_other(
    request: Request,
    store,
    settings,
    query: NamedQuery,
    params: dict[str, str],
    sparql: str,
    media: str,
    whole: int | None,
    url: str,
) -> Response:
    """Through the query runner or a remote store (blocking: called in a pool thread)."""
    truncated = bytes_cut = False
    holder = request.app.state.query_runner
    mirrored = request.app.state.read_store is not None
    # QueryTimeout answers 503, other StoreErrors 500 (the app's one error handler)
    if holder is not None and not settings.named_queries_inline and not mirrored:
        from reprokg.sparql.runner import QueryJob

        outcome = holder.get().run(QueryJob(sparql))
        result, truncated, bytes_cut = outcome.result, outcome.truncated, outcome.bytes_cut
    else:
        result = store.query(sparql, timeout=settings.query_timeout)
    result, rows_cut, cut = cut_answer(result, settings.row_cap, settings.answer_bytes)
    headers = {}
    if bytes_cut or cut:
        headers = _cut_headers(settings.answer_bytes)
    elif truncated or rows_cut:
        headers = {"X-Reprokg-Truncated": f"rows capped at {settings.row_cap}"}
    if not isinstance(result, SelectResult | AskResult):
        raise StoreError("named query is not SELECT/ASK")
    resp = _answer(result, media, headers)
    if headers or not isinstance(result, SelectResult) or query.default_limit() is None:
        return resp
    page = page_of(
        store,
        query,
        params,
        len(result.rows),
        whole=whole is not None,
        cap=whole,
        timeout=settings.query_timeout,
    )
    return _paged(resp, page, media, url)
