"""``GET /alerts``: contradictions in the evidence, as JSON or an Atom feed.

The read model is :func:`reprokg.evidence.contradictions.contradictions` (the passport's
own fold); this route pages it (``offset``, ``limit`` at most
:data:`reprokg.sparql.named.MAX_LIMIT`, like every list of the service) and writes it as
JSON (default) or Atom 1.0 (``format=atom`` or ``Accept: application/atom+xml``), built
with an XML library so the feed is well-formed whatever a title or reason holds.
Filterable by work, venue, author ORCID and kind.
"""

from __future__ import annotations

import hashlib
import re
from typing import Annotated, Any
from urllib.parse import urlencode
from xml.etree import ElementTree as ET

from fastapi import APIRouter, Query, Request, Response

from reprokg.core.errors import UsageError
from reprokg.service.deps import ReadStoreDep, error_responses
from reprokg.sparql.named import MAX_LIMIT

router = APIRouter(tags=["assessments"])
ATOM = "application/atom+xml"
_NS = "http://www.w3.org/2005/Atom"
_EPOCH = "1970-01-01T00:00:00Z"


def atom_time(value: str | None) -> str:
    """An RFC 3339 date-time for Atom from a year, a date or a date-time (UTC when bare)."""
    v = (value or "").strip()
    if re.fullmatch(r"\d{4}", v):
        return f"{v}-01-01T00:00:00Z"
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", v):
        return f"{v}T00:00:00Z"
    m = re.fullmatch(r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?", v)
    if m:
        return m.group(1) + (m.group(2) or "") + (m.group(3) or "Z")
    return _EPOCH


def atom_feed(items: list[Any], *, self_url: str, next_url: str | None, total: int) -> bytes:
    """The contradictions as an Atom 1.0 feed (RFC 4287): one entry each, its JSON in the
    content, the work as its link."""
    ET.register_namespace("", _NS)
    feed = ET.Element(f"{{{_NS}}}feed")

    def sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
        e = ET.SubElement(parent, f"{{{_NS}}}{tag}", attrs)
        if text is not None:
            e.text = text
        return e

    sub(feed, "title", f"reprokg: contradictions in the evidence ({total})")
    sub(feed, "id", self_url)
    times = [atom_time(c.date) for c in items]
    sub(feed, "updated", max(times) if times else _EPOCH)
    sub(sub(feed, "author"), "name", "reprokg")
    sub(feed, "link", rel="self", href=self_url)
    if next_url:
        sub(feed, "link", rel="next", href=next_url)
    for c, when in zip(items, times, strict=True):
        e = sub(feed, "entry")
        sub(e, "id", "urn:sha256:" + hashlib.sha256(c.id.encode()).hexdigest())
        sub(e, "title", f"{c.kind}: {c.title or c.work}")
        sub(e, "updated", when)
        sub(e, "link", href=c.work)
        sub(e, "category", term=c.kind)
        sub(e, "summary", c.text)
    return ET.tostring(feed, encoding="utf-8", xml_declaration=True)


@router.get(
    "/alerts",
    response_class=Response,
    summary="Contradictions: works the evidence in force says were reproduced and were not",
    responses={
        **error_responses(400, 406, 503),
        200: {
            "description": "A page of contradictions (JSON: total, counts by kind, items; "
            "or an Atom feed)",
            "content": {"application/json": {}, ATOM: {}},
        },
    },
)
def get_alerts(
    request: Request,
    store: ReadStoreDep,
    work: Annotated[str, Query(description="a work's IRI (https://doi.org/… for a DOI)")] = "",
    venue: Annotated[str, Query(description="either side's venue, as written")] = "",
    orcid: Annotated[str, Query(description="an author's ORCID iD")] = "",
    kind: Annotated[str, Query(description="a contradiction kind (failed-replication, …)")] = "",
    offset: Annotated[int, Query(ge=0, le=10**9)] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 100,
    format: Annotated[str | None, Query(description="json or atom (overrides Accept)")] = None,
) -> Response:
    from reprokg.evidence.contradictions import KINDS, ContradictionFilters, contradictions, counts

    if kind and kind not in KINDS:
        raise UsageError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if format not in (None, "json", "atom"):
        raise UsageError(f"format must be json or atom, got {format!r}")
    atom = format == "atom" or (format is None and ATOM in request.headers.get("accept", ""))
    filters = ContradictionFilters(work=work.strip(), venue=venue.strip(), orcid=orcid.strip(),
                                   kind=kind)  # fmt: skip
    every = contradictions(store, filters)
    items = every[offset : offset + limit]
    given = {k: v for k, v in request.query_params.items() if k != "offset"}
    nxt = None
    if offset + len(items) < len(every):
        nxt = f"{request.url.path}?{urlencode({**given, 'offset': offset + limit})}"
    if atom:
        body = atom_feed(items, self_url=str(request.url), next_url=nxt, total=len(every))
        return Response(body, media_type=ATOM)
    import json

    doc = {
        "total": len(every),
        "offset": offset,
        "limit": limit,
        "next": nxt,
        "counts": counts(every),
        "contradictions": [c.to_json() for c in items],
    }
    return Response(json.dumps(doc), media_type="application/json")
