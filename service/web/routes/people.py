"""``/person?orcid=…``: a person — name, identifiers, and what they wrote, reviewed,
audited or ran."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from reprokg.core.errors import NotFound, UsageError
from reprokg.core.identifiers import orcid_iri
from reprokg.service.deps import ReadStoreDep
from reprokg.service.web.render import (
    SCHEMA,
    alternates,
    page,
    paged_rows,
    rows_of,
    sparql_of,
    tabular,
    wants,
)
from reprokg.sparql.named import NamedQueryError, Param, to_term

router = APIRouter(include_in_schema=False)


@router.get("/person")
def person(
    request: Request, store: ReadStoreDep, orcid: str | None = None, iri: str | None = None
) -> Response:
    if orcid:
        target = str(orcid_iri(orcid))
    elif iri:
        try:
            target = str(to_term(Param("iri", "iri"), iri))
        except NamedQueryError as exc:
            raise UsageError(str(exc)) from exc
    else:
        raise UsageError("give orcid= (an ORCID iD) or iri= (the person's IRI)")
    p = {"person": target}
    facts, works = rows_of(store, "person", p), paged_rows(request, store, "person-works", p)
    if not facts and not works.rows:
        raise NotFound(f"nothing is known about <{target}>")
    if fmt := wants(request):
        response = tabular(fmt, works.rows, ["role", "thing", "label"], "person")
        response.headers.update(works.headers())
        return response
    name = next((f["value"] for f in facts if f["property"] == SCHEMA + "name"), target)
    return page(
        request,
        "person.html",
        title=name,
        iri=target,
        facts=facts,
        works=works.rows,
        paged=works,
        alternates=alternates(request),
        sparql_behind=[sparql_of("person", p), works.behind],
    )
