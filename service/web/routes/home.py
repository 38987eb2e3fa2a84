"""Home (``/``: what the graph holds, every view, the named queries) and the search box."""

from __future__ import annotations

from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse, Response

from reprokg.core.errors import IdentifierError
from reprokg.core.identifiers import doi_iri, orcid_iri
from reprokg.service.deps import ReadStoreDep
from reprokg.service.web.render import (
    alternates,
    cache,
    page,
    paged_rows,
    rows_of,
    sparql_of,
    tabular,
    wants,
)
from reprokg.sparql.named import load_queries

router = APIRouter(include_in_schema=False)

#: the things the home page counts, in order (keys of home-counts.rq's ?what)
HOME_ORDER = [
    "papers",
    "people",
    "runs",
    "surveys",
    "audits",
    "comparisons",
    "leaderboards",
    "stability studies",
    "intrinsic-dimension results",
]


def summary(store) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(things by type, documents by kind), cached until the store changes."""

    def compute():
        counts = {r["what"]: int(r["n"]) for r in rows_of(store, "home-counts")}
        docs = sorted(
            (k.removeprefix("document:"), n) for k, n in counts.items() if k.startswith("document:")
        )
        return [(k, counts.get(k, 0)) for k in HOME_ORDER], docs

    return cache.get(store, "home-counts", compute)


@router.get("/")
def home(request: Request, store: ReadStoreDep) -> Response:
    things, docs = summary(store)
    if fmt := wants(request):
        rows = [{"what": k, "n": n} for k, n in things]
        rows += [{"what": f"documents of kind {k}", "n": n} for k, n in docs]
        return tabular(fmt, rows, ["what", "n"], "reprokg-summary")
    return page(
        request,
        "home.html",
        title="reprokg",
        things=things,
        docs=docs,
        named=list(load_queries().values()),
        alternates=alternates(request),
        sparql_behind=[sparql_of("home-counts")],
    )


@router.get("/search")
def search(request: Request, store: ReadStoreDep, q: str = Query("", max_length=500)) -> Response:
    """A DOI or ORCID goes to its page; other text finds papers, people and run tags."""
    text = q.strip()
    if not text:
        return RedirectResponse("/papers", status_code=303)
    if not wants(request):
        for fn, view, key, prefix in (
            (doi_iri, "/paper", "doi", "https://doi.org/"),
            (orcid_iri, "/person", "orcid", "https://orcid.org/"),
        ):
            try:
                value = str(fn(text)).removeprefix(prefix)
            except (IdentifierError, ValueError):
                continue
            return RedirectResponse(f"{view}?{urlencode({key: value})}", status_code=303)
    paged = paged_rows(request, store, "search", {"q": text})
    rows = paged.rows
    if fmt := wants(request):
        response = tabular(fmt, rows, ["kind", "thing", "label"], "search")
        response.headers.update(paged.headers())
        return response
    return page(
        request,
        "search.html",
        title=f"Search: {text}",
        rows=rows,
        paged=paged,
        search_q=text,
        alternates=alternates(request),
        sparql_behind=[paged.behind],
    )
