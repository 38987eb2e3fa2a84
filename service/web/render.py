"""What every view shares: running its SPARQL, the ``?format=csv|json`` answer, links to
our own views instead of bare IRIs, the page template and the HTML error page.

A view's rows are plain dicts of JSON-able values (IRIs as strings); the table, the CSV
and the JSON of a view are made from the same list, so a download is what the page shows.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, TypeVar
from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from jinja2 import pass_context
from markupsafe import Markup, escape

from reprokg.core.errors import NotAcceptable, ReprokgError, UsageError
from reprokg.core.settings import DEFAULT_BASE
from reprokg.core.tables import spreadsheet_cell
from reprokg.ontology import labels as vocabulary
from reprokg.service.deps import how_to_write
from reprokg.service.web.assets import make_templates
from reprokg.service.web.labels import identifier_label, labels
from reprokg.service.web.view_queries import view_query
from reprokg.sparql.named import NamedQueryError, Page, run_paged
from reprokg.sparql.rows import plain, select_dicts
from reprokg.store.base import Counters, SelectResult, Store

T = TypeVar("T")
RK = "https://w3id.org/reprokg/ontology#"
SCHEMA = "http://schema.org/"
#: ``?format=`` values every view answers besides HTML
FORMATS = ("csv", "json")
#: how long a cache of a store that cannot count its writes is trusted (seconds)
UNCOUNTED_TTL = 60.0

templates = make_templates()


# --------------------------------------------------------------------------- values


def rows_of(store: Store, name: str, params: dict[str, str] | None = None) -> list[dict]:
    """The rows of view query ``name`` with ``params`` bound (named-query binding)."""
    return select_dicts(store, view_query(name).bind(params or {}))


@dataclass
class Paged:
    """A list view's rows: one page of its view query, or every row (``all=true``, up to
    the row cap) for a download; ``page`` says which of how many (a view's
    LIMIT never cuts silently)."""

    rows: list[dict]
    page: Page | None
    #: (label, URL) of the previous and next pages
    links: list[tuple[str, str]]
    #: (format, URL) of every row as CSV and JSON, when this page is not all of them
    everything: list[tuple[str, str]]
    #: the view query's title and the SPARQL run (the page's "SPARQL behind")
    behind: tuple[str, str]

    def headers(self) -> dict[str, str]:
        return self.page.headers() if self.page is not None else {}


def paged_rows(
    request: Request, store: Store, name: str, params: dict[str, str] | None = None
) -> Paged:
    """View query ``name``'s rows for ``request``: the page at its ``offset`` (the
    query's ``limit`` the page size), or with ``all=true`` every row up to the row cap."""
    q = view_query(name)
    values = dict(params or {})
    every = request.query_params.get("all", "").lower() in ("true", "1", "yes")
    cap = request.app.state.settings.row_cap if every else None
    offset = request.query_params.get("offset")
    if offset and not every:
        values["offset"] = offset
    try:
        sparql = q.bind(values, whole=every, cap=cap)
    except NamedQueryError as exc:
        raise UsageError(str(exc)) from exc
    res, pg = run_paged(store, q, values, whole=every, cap=cap, sparql=sparql)
    assert isinstance(res, SelectResult)
    rows = [{k: plain(v) for k, v in row.items()} for row in res.dicts()]
    return paged_view(request, rows, pg, every, (q.title, sparql))


def paged_view(
    request: Request, rows: list[dict], pg: Page | None, every: bool, behind: tuple[str, str]
) -> Paged:
    """``rows``, one page ``pg`` of an answer (or every row), with the links to its
    other pages and to every row as CSV and JSON."""
    keep = [(k, v) for k, v in request.query_params.multi_items() if k not in _PAGING]
    here = request.url.path + "?"
    links: list[tuple[str, str]] = []
    everything: list[tuple[str, str]] = []
    if pg is not None and not every:
        links = page_links(request, pg)
        if pg.truncated or pg.offset:
            everything = [
                (f, here + urlencode([*keep, ("all", "true"), ("format", f)])) for f in FORMATS
            ]
    return Paged(rows, pg, links, everything, behind)


def page_links(
    request: Request, pg: Page, param: str = "offset", anchor: str = ""
) -> list[tuple[str, str]]:
    """(label, URL) of the pages before and after ``pg``: this request with ``param`` moved
    (its other query parameters but ``all`` and ``format`` kept), ``anchor`` appended."""
    keep = [(k, v) for k, v in request.query_params.multi_items() if k not in (param, *_PAGING)]
    here = request.url.path + "?"
    out = []
    if pg.offset > 0:
        back = max(0, pg.offset - (pg.limit or 0))
        out.append(("previous", here + urlencode([*keep, (param, back)]) + anchor))
    if pg.next_offset is not None:
        out.append(("next", here + urlencode([*keep, (param, pg.next_offset)]) + anchor))
    return out


#: a list view's own query parameters (not the view's state that a page link keeps)
_PAGING = ("offset", "all", "format")


def sparql_of(name: str, params: dict[str, str] | None = None) -> tuple[str, str]:
    """(title, bound SPARQL) of a view query, for the page's "SPARQL behind" section."""
    q = view_query(name)
    return q.title, q.bind(params or {})


# --------------------------------------------------------------------------- caches


def generation(store: Store) -> tuple[int, float]:
    """A key that changes when the store's content may have: its version (``Counters``:
    every committed write moves it; a remote store reads the engine's, so replicas agree),
    or (for a store that cannot say) a one-minute time bucket."""
    if isinstance(store, Counters):
        return id(store), store.version()
    return id(store), time.monotonic() // UNCOUNTED_TTL


class GenerationCache:
    """Values computed from the store, kept until its generation changes (one per key;
    at most :attr:`size` keys, the oldest dropped first)."""

    size = 512

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: dict[str, tuple[object, Any]] = {}

    def get(self, store: Store, key: str, compute: Callable[[], T]) -> T:
        gen = generation(store)  # read before computing: a write meanwhile bumps it
        with self._lock:
            hit = self._values.get(key)
        if hit is not None and hit[0] == gen:
            return hit[1]
        value = compute()
        with self._lock:
            self._values.pop(key, None)
            self._values[key] = (gen, value)
            while len(self._values) > self.size:
                self._values.pop(next(iter(self._values)))
        return value


cache = GenerationCache()
#: many small per-page values (the labels of a page's IRIs, a run's header fields) apart
#: from the few costly ones above: they must not push the papers index out
small_cache = GenerationCache()


# --------------------------------------------------------------------------- links


def linkable(url: str | None) -> str | None:
    """``url`` when a page may link to it, else ``None`` (shown as text): an ``http(s)``
    IRI, or a path of this service. Stored IRIs come from uploads, and a
    ``javascript:alert(3)`` IRI linked as it is runs in the reader's browser on a click;
    ``data:``, ``file:``, ``vbscript:`` … are refused alike."""
    if not url:
        return None
    if url.startswith(("/", "?", "#")):
        return None if url.startswith("//") else url
    scheme, sep, rest = url.partition(":")
    if sep and scheme.lower() in ("http", "https") and rest.startswith("//"):
        return url
    return None


def anchor(url: str | None, text: object, title: str | None = None) -> Markup:
    """``<a href=url>text</a>``, or just the text when ``url`` may not be linked
    (:func:`linkable`); both escaped."""
    target = linkable(url)
    label = escape(text)
    if target is None:
        return label
    extra = Markup(' title="{}"').format(title) if title and title != str(text) else ""
    return Markup('<a href="{}"{}>{}</a>').format(target, extra, label)


def href(iri: str | None, b: str = DEFAULT_BASE) -> str | None:
    """Where a link to ``iri`` goes: our view of it when there is one, else the IRI when
    it may be linked (``b``: the instance base the service dereferences at ``/id/``)."""
    if not iri:
        return None
    if iri.startswith("https://doi.org/"):
        return "/paper?" + urlencode({"doi": iri.removeprefix("https://doi.org/")})
    if iri.startswith("https://orcid.org/"):
        return "/person?" + urlencode({"orcid": iri.removeprefix("https://orcid.org/")})
    if iri.startswith(b + "publication/"):
        return "/paper?" + urlencode({"iri": iri})
    if iri.startswith(b + "person/"):
        return "/person?" + urlencode({"iri": iri})
    if iri.startswith(b + "run/") and "/" not in iri.removeprefix(b + "run/"):
        return "/run?" + urlencode({"iri": iri})
    if iri.startswith(b + "comparison/") and "/" not in iri.removeprefix(b + "comparison/"):
        return "/comparison?" + urlencode({"iri": iri})
    if iri.startswith(b):
        return "/id/" + iri.removeprefix(b)
    return linkable(iri)


PREFIXES = (
    (RK, "rk:"),
    (SCHEMA, "schema:"),
    ("http://www.w3.org/ns/prov#", "prov:"),
    ("http://www.w3.org/2000/01/rdf-schema#", "rdfs:"),
    ("http://www.w3.org/2004/02/skos/core#", "skos:"),
    ("http://purl.org/dc/terms/", "dcterms:"),
    ("http://www.w3.org/ns/mls#", "mls:"),
)


#: the labels of the IRIs on the page being rendered (set by :func:`page`)
_page_labels: ContextVar[dict[str, str]] = ContextVar("page_labels", default={})  # noqa: B039


def short(iri: str | None) -> str:
    """A readable name for an IRI: its label on this page (the store's), the ontology's,
    a prefixed name, or the identifier a DOI/ORCID/ir_datasets IRI stands for."""
    if not iri:
        return ""
    known = _page_labels.get().get(iri) or vocabulary.label(iri)
    if known:
        return known
    for ns, p in PREFIXES:
        if iri.startswith(ns):
            return p + iri[len(ns) :]
    return identifier_label(iri) or iri


_IRI_IN_TEXT = re.compile(r"https?://[^\s,;()<>\"']+?(?='s\b|[.,;:)]?(?:\s|$))")


def labelled_text(text: str | None) -> str:
    """Free text (a verdict's caveat) with each IRI in it read as its label (``short``)."""
    return _IRI_IN_TEXT.sub(lambda m: short(m.group(0)), text or "")


#: context entries that hold no IRIs a person reads (SPARQL text, links to formats)
_NOT_SHOWN = frozenset({"sparql_behind", "alternates", "config", "request", "nav"})


def shown_iris(ctx: dict[str, Any], limit: int = 20_000) -> set[str]:
    """The http(s) strings in a page's context: what its template may show."""
    found: set[str] = set()
    todo: list[Any] = [v for k, v in ctx.items() if k not in _NOT_SHOWN]
    seen = 0
    while todo and seen < limit:
        v = todo.pop()
        seen += 1
        if isinstance(v, str):
            if v.startswith(("http://", "https://")) and len(v) < 2000:
                found.add(v)
        elif isinstance(v, dict):
            todo.extend(v.values())
        elif isinstance(v, list | tuple | set | frozenset):
            todo.extend(v)
        elif hasattr(v, "__dataclass_fields__"):
            todo.extend(getattr(v, f) for f in v.__dataclass_fields__)
    return found


def fmt_num(v: Any) -> Any:
    return f"{v:.4g}" if isinstance(v, float) else v


@pass_context
def _href_filter(context: Any, iri: str | None) -> str | None:
    request = context.get("request")
    b = request.app.state.settings.base if request is not None else DEFAULT_BASE
    return href(iri, b)


@pass_context
def _id_filter(context: Any, iri: str) -> str:
    """The service's linked-data page of an IRI under the base (else the IRI)."""
    request = context.get("request")
    b = request.app.state.settings.base if request is not None else DEFAULT_BASE
    return "/id/" + iri.removeprefix(b) if iri.startswith(b) else iri


def bare_doi(doi: str) -> str:
    """A DOI as written, without the resolver or ``doi:`` in front (``10.1145/…``)."""
    m = re.match(r"(?i)^(?:doi:\s*|https?://(?:dx\.)?doi\.org/)", doi.strip())
    return doi.strip()[m.end() :] if m else doi.strip()


templates.env.filters.update(
    href=_href_filter,
    short=short,
    idlink=_id_filter,
    bare_doi=bare_doi,
    link=linkable,
    labelled=labelled_text,
)
templates.env.globals.update(fmt_num=fmt_num, anchor=anchor)


# --------------------------------------------------------------------------- answers


#: the OpenAPI entry of a page served on a path the API also uses (schemathesis holds the
#: API to its schema: an undeclared GET that answers 200 is a mismatch)
PAGE_RESPONSES: dict[int | str, Any] = {
    200: {
        "description": "the page (HTML), or with ?format=csv|json the rows it shows",
        "content": {"text/html": {}, "text/csv": {}, "application/json": {}},
    },
    406: {"description": "format is not csv or json", "content": {"application/json": {}}},
}


def wants(request: Request) -> str | None:
    """``csv`` or ``json`` when the request asks for the rows (``?format=``), else None."""
    fmt = request.query_params.get("format")
    if fmt in (None, "", "html"):
        return None
    if fmt not in FORMATS:
        raise NotAcceptable(f"format must be csv or json, not {fmt!r}")
    return fmt


def tabular(fmt: str, rows: list[dict], columns: list[str], filename: str) -> Response:
    """The rows a view shows, as CSV (header = column keys; cells neutralised against
    spreadsheet formulas, :func:`reprokg.core.tables.spreadsheet_cell`: ``=HYPERLINK(…)``
    in an uploaded title ran in the reader's spreadsheet) or JSON ``{columns, rows}``."""
    if fmt == "json":
        return JSONResponse(
            {"columns": columns, "rows": [{c: r.get(c) for c in columns} for r in rows]}
        )
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow([spreadsheet_cell(r.get(c)) for c in columns])
    return Response(
        buf.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'inline; filename="{filename}.csv"'},
    )


def alternates(request: Request) -> list[tuple[str, str]]:
    """The same view's URL with ``format=csv`` and ``format=json`` (its state kept)."""
    params = [(k, v) for k, v in request.query_params.multi_items() if k != "format"]
    return [(f, request.url.path + "?" + urlencode([*params, ("format", f)])) for f in FORMATS]


def page(request: Request, template: str, status_code: int = 200, **ctx: Any) -> HTMLResponse:
    """The view's template, with the IRIs it shows labelled (the ``short`` filter)."""
    settings = request.app.state.settings
    store = getattr(request.app.state, "read_store", None) or request.app.state.store
    iris = shown_iris(ctx)
    key = "labels " + hashlib.sha256("\n".join(sorted(iris)).encode()).hexdigest()
    found = small_cache.get(store, key, lambda: labels(store, iris, settings.base)) if iris else {}
    token = _page_labels.set(found)
    try:
        return _render(request, template, status_code, settings, ctx)
    finally:
        _page_labels.reset(token)


def _render(
    request: Request, template: str, status_code: int, settings: Any, ctx: dict[str, Any]
) -> HTMLResponse:
    ctx.setdefault("active", request.url.path)
    ctx.setdefault("demo", settings.demo)
    if settings.demo:  # the demo says how to write (a newcomer met 403s and no Authorize)
        ctx.setdefault("how_to_write", how_to_write(settings))
    return templates.TemplateResponse(request, template, ctx, status_code=status_code)


def error_page(request: Request, exc: ReprokgError) -> HTMLResponse:
    """Our error as a page (for a browser asking for HTML); the API answers JSON."""
    try:
        phrase = HTTPStatus(exc.http_status).phrase
    except ValueError:
        phrase = type(exc).__name__
    response = page(
        request,
        "error.html",
        status_code=exc.http_status,
        title=f"{exc.http_status} {phrase}",
        message=str(exc),
        active="",
    )
    response.headers.update(exc.headers or {})
    return response
