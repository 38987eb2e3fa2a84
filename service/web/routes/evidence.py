"""``/evidence``: what the graph knows about "was it reproduced?", counted in works.

The counts are :func:`reprokg.evidence.outcomes.evidence_overview` over the papers list's
own index (its records, venues and years, and the one read model of every work's answer it
merged), so each count links to ``/papers`` filtered to exactly its works; this route only
renders the overview (HTML, or its counts as CSV/JSON).
"""

from __future__ import annotations

from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import Response

from reprokg.evidence.outcomes import COLUMNS, Count, Overview, evidence_overview
from reprokg.evidence.passport import ASSESSMENTS
from reprokg.evidence.scheme import OUTCOME_ORDER, OUTCOME_WORDS
from reprokg.service.deps import ReadStoreDep
from reprokg.service.web.render import alternates, page, sparql_of, tabular, wants
from reprokg.service.web.routes.papers import paper_index
from reprokg.store.base import Store

router = APIRouter(include_in_schema=False)


def overview(store: Store) -> Overview:
    """The overview of the papers list's index (rebuilt with it, per store generation)."""
    index = paper_index(store)
    return index.cached("evidence", lambda: evidence_overview(index.outcomes, index.records()))


def papers_link(count: Count) -> str | None:
    """The papers list filtered to exactly the works of ``count`` (None: no filter can)."""
    if not count.linked:
        return None
    return "/papers" + ("?" + urlencode(count.filters) if count.filters else "")


@router.get("/evidence")
def evidence(request: Request, store: ReadStoreDep) -> Response:
    found = overview(store)
    if fmt := wants(request):
        return tabular(fmt, found.rows(), COLUMNS, "evidence")
    return page(
        request,
        "evidence.html",
        title="Evidence",
        overview=found,
        outcome_slugs=OUTCOME_ORDER,
        outcome_words=OUTCOME_WORDS,
        papers_link=papers_link,
        alternates=alternates(request),
        sparql_behind=[sparql_of("papers-index"), sparql_of(ASSESSMENTS)],
    )
