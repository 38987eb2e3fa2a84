"""``/query``: YASGUI on this service's ``/sparql`` with the named queries as examples, and
each named query as a typed form whose result is a table (``/queries/{name}/table``)."""

from __future__ import annotations

from urllib.parse import quote, urlencode

from fastapi import APIRouter, Request
from fastapi.responses import Response

from reprokg.core.errors import UsageError
from reprokg.core.namespaces import PREFIXES
from reprokg.service.deps import ReadStoreDep, SettingsDep
from reprokg.service.web.render import page, tabular, wants
from reprokg.sparql.named import NamedQueryError, get_query, load_queries, run_paged
from reprokg.sparql.rows import plain
from reprokg.store.base import SelectResult

router = APIRouter(include_in_schema=False)

#: HTML input types of the named queries' parameter types
INPUT_TYPES = {"integer": "number", "decimal": "number", "iri": "url"}


def without_header(sparql: str) -> str:
    """The query without its leading comment lines (title, description, params, notes):
    the page shows those next to the editor; the editor gets the query."""
    lines = sparql.splitlines()
    while lines and (not lines[0].strip() or lines[0].lstrip().startswith("#")):
        lines.pop(0)
    return "\n".join(lines) + "\n"


@router.get("/query/prefixes.json")
def prefixes() -> dict[str, str]:
    """YASGUI's prefix completer list (``prefixCcApi``): the prefixes the package binds,
    instead of its default lookup on prefix.cc."""
    return {p: str(ns) for p, ns in PREFIXES.items()}


@router.get("/query")
def query(request: Request, settings: SettingsDep, form: str | None = None) -> Response:
    named = list(load_queries().values())
    examples = []
    for q in named:
        if q.examples:
            text = q.bind(q.examples[0])
        elif all(p.optional for p in q.params):
            text = q.bind({})
        else:
            continue
        examples.append(
            {
                "name": q.name,
                "title": q.title,
                "description": q.description,
                "sparql": without_header(text),
            }
        )
    forms = [
        {
            "name": q.name,
            "title": q.title,
            "description": q.description,
            "params": q.params,
            "example": q.examples[0] if q.examples else {},
        }
        for q in named
    ]
    start = request.query_params.get("query") or (
        examples[0]["sparql"] if examples else "SELECT * WHERE { ?s ?p ?o } LIMIT 10"
    )
    config = {
        "endpoint": "/sparql",
        "prefixesUrl": "/query/prefixes.json",
        "persistenceId": "reprokg-query",
        "query": start,
        "examples": examples,
        "runInitial": True,
        "forceQuery": "query" in request.query_params,
    }
    return page(
        request,
        "query.html",
        title="Query",
        endpoint="/sparql",
        timeout=settings.query_timeout,
        row_cap=settings.row_cap,
        examples=examples,
        forms=forms,
        input_types=INPUT_TYPES,
        open_form=form,
        config=config,
    )


@router.get("/queries/{name}/table")
def query_table(
    name: str, request: Request, store: ReadStoreDep, settings: SettingsDep
) -> Response:
    """A named query's form result as a table, with CSV/JSON of the same rows; a page of
    a longer answer says which rows of how many, links the next and previous
    pages, and offers every row (``all=true``, up to the row cap) as CSV and JSON."""
    q = get_query(name)
    reserved = {"format", "all"}
    params = {k: v for k, v in request.query_params.items() if v and k not in reserved}
    every = request.query_params.get("all", "").lower() in ("true", "1", "yes")
    cap = settings.row_cap if every else None
    try:
        sparql = q.bind(params, whole=every, cap=cap)
    except NamedQueryError as exc:
        raise UsageError(str(exc)) from exc
    res, pg = run_paged(store, name, params, whole=every, cap=cap, sparql=sparql)
    if not isinstance(res, SelectResult):
        raise UsageError(f"query {name!r} is not a SELECT query")
    rows = [{k: plain(v) for k, v in r.items()} for r in res.dicts()]
    cols = list(res.variables)
    if fmt := wants(request):
        response = tabular(fmt, rows, cols, name)
        if pg is not None:
            response.headers.update(pg.headers())
        return response
    here = f"/queries/{quote(name)}/table?"
    pages = []
    if pg is not None and not every:
        size = pg.limit or 1
        if pg.offset > 0:
            pages.append(
                ("previous", here + urlencode({**params, "offset": max(0, pg.offset - size)}))
            )
        if pg.next_offset is not None:
            pages.append(("next", here + urlencode({**params, "offset": pg.next_offset})))
    api = f"/queries/{quote(name)}?" + urlencode(params)
    paged = {k: v for k, v in params.items() if k not in ("limit", "offset")}
    downloads = [(f, here + urlencode({**params, "format": f})) for f in ("csv", "json")]
    everything = []
    if pg is not None and pg.truncated and not every:
        everything = [
            (f, here + urlencode({**paged, "all": "true", "format": f})) for f in ("csv", "json")
        ]
    return page(
        request,
        "query_table.html",
        title=q.title,
        q=q,
        params=params,
        rows=rows,
        cols=[(c, c) for c in cols],
        active="/query",
        api=api,
        page_info=pg,
        pages=pages,
        everything=everything,
        row_cap=settings.row_cap,
        alternates=downloads,
        sparql_behind=[(q.title, sparql)],
    )
