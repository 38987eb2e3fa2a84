"""``/sources`` and ``/sources/{name}``: the evidence and survey sources the store holds, what
each contributes and how it joins the others.

The counts are :func:`reprokg.evidence.sources.source_overview` and
:func:`~reprokg.evidence.sources.source_detail` (outcomes from the papers list's one read
model of every work's answer); each count links to ``/papers`` filtered to exactly its
works where the list can show them (the list's own selection decides). This module only
renders (HTML, or the counts as CSV/JSON).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Path, Request
from fastapi.responses import Response

from reprokg.evidence.outcomes import Count
from reprokg.evidence.passport import ASSESSMENTS
from reprokg.evidence.sources import (
    DETAIL_COLUMNS,
    LINKS_QUERY,
    SUMMARY_COLUMNS,
    WORKS_QUERY,
    Lister,
    SourceDetail,
    SourceSummary,
    source_detail,
    source_overview,
)
from reprokg.service.deps import ReadStoreDep
from reprokg.service.web.papers import Filters, PaperIndex
from reprokg.service.web.render import alternates, page, sparql_of, tabular, wants
from reprokg.service.web.routes.papers import paper_index
from reprokg.store.base import Store

router = APIRouter(include_in_schema=False)


def _lister(store: Store) -> tuple[PaperIndex, Lister]:
    """The papers list's index, and its selection as :mod:`reprokg.evidence.sources` asks
    (filters -> the works the list shows: a count links only to exactly its works)."""
    index = paper_index(store)

    def lister(filters: Mapping[str, str]) -> set[str]:
        year = filters.get("year")
        rest = {k: v for k, v in filters.items() if k != "year"}
        return {r.iri for r in index.select(Filters(year=int(year) if year else None, **rest))}

    return index, lister


def overview(store: Store) -> list[SourceSummary]:
    """The sources of the store (rebuilt with the papers list's index, per store generation)."""
    index, lister = _lister(store)
    return index.cached("sources", lambda: source_overview(store, lister))


def detail(store: Store, name: str) -> SourceDetail:
    index, lister = _lister(store)
    return index.cached(
        f"source:{name}", lambda: source_detail(store, name, index.outcomes, lister)
    )


def papers_link(count: Count) -> str | None:
    """The papers list filtered to exactly the works of ``count`` (None: no filter can)."""
    if not count.linked or not count.n:
        return None
    return "/papers?" + urlencode(count.filters)


def _sparql() -> list[tuple[str, str]]:
    return [sparql_of(WORKS_QUERY), sparql_of(LINKS_QUERY), sparql_of(ASSESSMENTS)]


@router.get("/sources")
def sources(request: Request, store: ReadStoreDep) -> Response:
    found = overview(store)
    if fmt := wants(request):
        return tabular(fmt, [s.row() for s in found], SUMMARY_COLUMNS, "sources")
    return page(
        request,
        "sources.html",
        title="Sources",
        sources=found,
        papers_link=papers_link,
        alternates=alternates(request),
        sparql_behind=_sparql(),
    )


@router.get("/sources/{name}")
def source(
    request: Request,
    store: ReadStoreDep,
    name: Annotated[str, Path(max_length=100, pattern=r"^[a-z0-9-]+$")],
) -> Response:
    found = detail(store, name)
    if fmt := wants(request):
        return tabular(fmt, found.rows(), DETAIL_COLUMNS, f"source-{name}")
    return page(
        request,
        "source.html",
        title=found.summary.label,
        source=found,
        papers_link=papers_link,
        alternates=alternates(request),
        sparql_behind=_sparql(),
    )
