"""``/papers``: every publication any source describes, filtered, sorted, paged, charted.

The rows come from the in-memory index of :mod:`reprokg.service.web.papers` (one SPARQL
scan per store generation); the table, its CSV/JSON and both charts are computed from the
same filtered list, so ``/papers?year=2018&code=yes&format=csv`` is exactly those papers.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from reprokg.core.errors import UsageError
from reprokg.evidence.outcomes import work_outcomes
from reprokg.evidence.passport import ASSESSMENTS
from reprokg.evidence.scheme import KINDS, OUTCOME_WORDS
from reprokg.service.deps import ReadStoreDep
from reprokg.service.web import charts
from reprokg.service.web.papers import COLUMNS, PAGE_SIZES, Filters, PaperIndex, code_by, facets
from reprokg.service.web.render import alternates, cache, page, sparql_of, tabular, wants
from reprokg.service.web.view_queries import view_query
from reprokg.store.base import SelectResult, Store

router = APIRouter(include_in_schema=False)
KINDS_BY_SLUG = {k.slug: k for k in KINDS}

Sort = Literal["title", "year", "venue", "code", "sources"]


def paper_index(store: Store) -> PaperIndex:
    """The folded records of every paper, rebuilt when the store's generation changes."""

    def build() -> PaperIndex:
        res = store.query(view_query("papers-index").bind({}))
        assert isinstance(res, SelectResult)
        return PaperIndex(res.dicts(), work_outcomes(store))

    return cache.get(store, "papers-index", build)


@router.get("/papers")
def papers(
    request: Request,
    store: ReadStoreDep,
    q: Annotated[str, Query(max_length=200)] = "",
    # the filter form sends year= for "any": a blank is no filter, anything else a year
    year: Annotated[str, Query(max_length=4, pattern=r"^(\d{4})?$")] = "",
    venue: Annotated[str, Query(max_length=300)] = "",
    topic: Annotated[str, Query(max_length=100)] = "",
    code: Literal["", "yes", "no"] = "",
    source: Annotated[str, Query(max_length=100)] = "",
    # /sources/{name} links to the works two sources both hold: source= and also_source=
    also_source: Annotated[str, Query(max_length=100)] = "",
    outcome: Literal[
        "", "reproduced", "partially-reproduced", "not-reproduced", "inconclusive", "not-attempted"
    ] = "",
    # the filters /evidence links to: an assessment of a kind, stated in a kind of document
    kind: Literal[
        "", "committee", "replication", "re-execution", "stamp", "computed", "audit", "other"
    ] = "",
    assessed_in: Annotated[str, Query(max_length=100)] = "",
    assessed: Literal["", "yes", "no"] = "",
    conflict: Literal["", "yes", "no"] = "",
    insufficient: Literal["", "yes", "no"] = "",
    sort: Sort = "title",
    desc: bool = False,
    page_no: Annotated[int, Query(alias="page", ge=1, le=1_000_000)] = 1,
    size: int = 50,
) -> Response:
    if size not in PAGE_SIZES:
        raise UsageError(f"size must be one of {', '.join(map(str, PAGE_SIZES))}")
    filters = Filters(
        q=q.strip(),
        year=int(year) if year else None,
        venue=venue,
        topic=topic,
        code=code,
        source=source,
        also_source=also_source,
        outcome=outcome,
        kind=kind,
        assessed_in=assessed_in,
        assessed=assessed,
        conflict=conflict,
        insufficient=insufficient,
    )
    index = paper_index(store)
    selected = index.select(filters, sort, desc)
    if fmt := wants(request):
        return tabular(fmt, [r.row() for r in selected], [c for c, _ in COLUMNS], "papers")
    pages = max(1, math.ceil(len(selected) / size))
    page_no = min(page_no, pages)
    shown = selected[(page_no - 1) * size : page_no * size]
    state: dict[str, str] = {
        **filters.params(),
        **({"sort": sort} if sort != "title" else {}),
        **({"desc": "true"} if desc else {}),
        **({"size": str(size)} if size != 50 else {}),
    }

    def link(**change: Any) -> str:
        merged = {**state, **{k: str(v) for k, v in change.items() if v is not None}}
        merged = {
            k: v
            for k, v in merged.items()
            if v != "" and (k, v) not in (("page", "1"), ("sort", "title"))
        }
        return "/papers" + ("?" + urlencode(merged) if merged else "")

    if filters.empty():  # the unfiltered charts are the same for every page and sort
        by_year, by_topic = index.cached("charts", lambda: _charts(selected))
    else:
        by_year, by_topic = _charts(selected)
    return page(
        request,
        "papers.html",
        title="Papers",
        rows=[r.row() for r in shown],
        total=len(selected),
        all_total=len(index),
        page_no=page_no,
        pages=pages,
        filters=filters,
        facets=index.cached("facets", lambda: facets(index.records())),
        sort=sort,
        desc=desc,
        size=size,
        sizes=PAGE_SIZES,
        link=link,
        columns=COLUMNS,
        outcome_words=OUTCOME_WORDS,
        evidence_filters=_evidence_filters(filters, link),
        chart_year=charts.proportion_chart(by_year, "Share of papers with code, per year"),
        chart_topic=charts.proportion_chart(by_topic, "Share of papers with code, per topic"),
        by_year=by_year,
        by_topic=by_topic,
        alternates=alternates(request),
        sparql_behind=[sparql_of("papers-index"), sparql_of(ASSESSMENTS)],
    )


#: the filters /evidence links to that the form does not offer: (name, words)
EVIDENCE_FILTERS: tuple[tuple[str, str], ...] = (
    ("also_source", "also described by"),
    ("kind", "assessed by kind of evidence"),
    ("assessed_in", "assessed in a document of kind"),
    ("assessed", "assessed by some source"),
    ("conflict", "conflicting claims on its DOI"),
    ("insufficient", "a computed verdict lacking evidence"),
)


def _evidence_filters(filters: Filters, link: Any) -> list[tuple[str, str, str, str]]:
    """The /evidence filters in force: (words, value, the list without it), shown above the
    table (kept as hidden fields of the form)."""
    out = []
    for name, words in EVIDENCE_FILTERS:
        value = getattr(filters, name)
        if value:
            label = KINDS_BY_SLUG[value].label if name == "kind" else value
            out.append((name, words, label, link(**{name: "", "page": 1})))
    return out


def _charts(rows: list) -> tuple[list[charts.Proportion], list[charts.Proportion]]:
    return code_by(rows, "year"), code_by(rows, "topic")
