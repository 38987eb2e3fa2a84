"""Documents API: upload (validated, then stored), validate only, list, fetch, delete.

Uploads go through the same loaders and ingest pipeline as ``reprokg load``. A batch
(several multipart files) is validated as a whole first: one violation anywhere and
nothing of the batch is stored (422 with the SHACL reports).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Literal, NotRequired, cast

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response
from rdflib import Graph, URIRef
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from typing_extensions import TypedDict

from reprokg.core.errors import LoadError, NotFound, UnsupportedInput
from reprokg.core.identifiers import document_iri
from reprokg.core.namespaces import RK
from reprokg.core.settings import Settings
from reprokg.service.deps import SettingsDep, StoreDep, WriteAccess, error_responses
from reprokg.service.shapes import describe
from reprokg.sparql.named import MAX_LIMIT, package_query
from reprokg.sparql.result_formats import RDF_MEDIA_TYPES, negotiate, serialise_graph
from reprokg.store.base import SelectResult, Store, count_documents
from reprokg.validation.report import Report, ReportJSON, ResultJSON

if TYPE_CHECKING:
    from collections.abc import Sequence

    from reprokg.validation.batching import Validated

router = APIRouter(tags=["documents"])

#: request media types we read as a single source file
TEXT_TYPES = {
    "application/yaml",
    "application/x-yaml",
    "text/yaml",
    "text/x-yaml",
    "application/json",
    "text/plain",
    "text/csv",
    "text/x-trec-run",
    # the importers' formats (docs/exchange.md): RO-Crate metadata, OpenML run descriptions,
    # ZIPs of an MLflow store or of a crate (binary: read only with ?kind=), an MLflow
    # SQLite database (binary, known by its header; parsed in the parse workers like any upload)
    "application/ld+json",
    "application/xml",
    "text/xml",
    "application/zip",
    "application/vnd.sqlite3",
    "application/x-sqlite3",
}
_EXT_FOR_TYPE = {
    "application/ld+json": ".json",
    "application/xml": ".xml",
    "text/xml": ".xml",
    "application/zip": ".zip",
    "application/vnd.sqlite3": ".db",
    "application/x-sqlite3": ".db",
    "application/yaml": ".yaml",
    "application/x-yaml": ".yaml",
    "text/yaml": ".yaml",
    "text/x-yaml": ".yaml",
    "application/json": ".json",
    "text/csv": ".csv",
}
_SHA_RE = re.compile(r"^[0-9a-f]{64}$")
_BINARY_TYPES = {"application/zip", "application/vnd.sqlite3", "application/x-sqlite3"}
#: the request body of an upload, as the OpenAPI schema declares it
UPLOAD_BODY = {
    "required": True,
    "content": {
        **{
            t: {"schema": {"type": "string"}}
            for t in sorted(TEXT_TYPES - {"application/json", *_BINARY_TYPES})
        },
        **{t: {"schema": {"type": "string", "format": "binary"}} for t in sorted(_BINARY_TYPES)},
        "application/json": {"schema": {}},
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "properties": {
                    "file": {"type": "array", "items": {"type": "string", "format": "binary"}}
                },
            }
        },
    },
}
#: media types an original upload is served with
_ORIGINAL_MEDIA = ("application/json", "application/yaml", "text/csv", "text/plain")
_SAFE_NAME_RE = re.compile(r"[^A-Za-z0-9._+-]+")


@dataclass
class Upload:
    name: str
    data: bytes


def _safe_name(name: str | None, fallback: str) -> str:
    base = (name or "").replace("\\", "/").rsplit("/", 1)[-1]
    base = _SAFE_NAME_RE.sub("_", base).strip("._")
    return base[:200] or fallback


async def _read_uploads(request: Request, settings: Settings, name: str | None) -> list[Upload]:
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype == "multipart/form-data":
        form = await request.form(max_files=settings.max_files, max_fields=settings.max_files)
        uploads = []
        for i, (_key, value) in enumerate(form.multi_items()):
            if isinstance(value, UploadFile):
                data = await value.read()
                uploads.append(Upload(_safe_name(value.filename, f"upload-{i + 1}"), data))
        await form.close()
        if not uploads:
            raise LoadError("multipart body has no file parts", source="request body")
        return uploads
    if ctype not in TEXT_TYPES and ctype != "":
        raise UnsupportedInput(
            f"unsupported content type {ctype!r}",
            source="request body",
            details={"expected": sorted(TEXT_TYPES | {"multipart/form-data"})},
        )
    data = await request.body()
    if not data:
        raise LoadError("empty request body", source="request body")
    return [Upload(_safe_name(name, "upload" + _EXT_FOR_TYPE.get(ctype, ".txt")), data)]


def _known_kinds(schema: dict) -> None:
    """The ``kind`` parameter's schema names the kinds there are (made when the schema is,
    not at import): an empty or unknown ``kind=`` is refused, and the schema says so."""
    from reprokg.loaders import loaders

    schema["enum"] = sorted(loaders())


def _parse(request: Request, uploads: list[Upload], kind: str | None) -> list[Validated]:
    """Each upload's documents with their reports, parsed and validated in the app's parse
    workers (:mod:`reprokg.service.parsing`)."""
    sources = [(up.name, up.data) for up in uploads]
    return request.app.state.parse_pool.parse(sources, kind)


StoredStatus = Literal["added", "unchanged", "revised", "rejected"]


class StoredDocument(TypedDict):
    """One uploaded document and what ingest did with it."""

    iri: str
    id: str
    "the sha256 GET /documents/{doc_id} takes"
    status: StoredStatus
    source: str
    "the file's name"
    kind: str
    revision_of: str | None
    "the document it revised"


class Stored(TypedDict):
    """``POST /documents``: every document stored, and the validation's warnings."""

    conforms: bool
    documents: list[StoredDocument]
    warnings: list[ResultJSON]


class Validation(TypedDict):
    """``POST /validate`` and ``POST /shacl``: one report per source."""

    conforms: bool
    reports: list[ReportJSON]


class DocumentRecord(TypedDict):
    """A stored document: its provenance where the graph has it."""

    iri: str
    id: str
    kind: NotRequired[str]
    source: NotRequired[str]
    sha256: NotRequired[str]
    source_key: NotRequired[str]
    generated: NotRequired[str]
    "when ingest wrote it (xsd:dateTime)"
    revisionOf: NotRequired[str]


class DocumentList(TypedDict):
    count: int
    "every stored document, not only this page's"
    offset: int
    limit: int
    next: str | None
    "the next page's URL; null on the last page"
    documents: list[DocumentRecord]


describe(Stored, Validation, DocumentList)


def _warnings(reports: list[Report]) -> list[ResultJSON]:
    return [
        r.to_dict() for rep in reports for r in rep.results if r.severity in ("Warning", "Info")
    ]


def _store_documents(store: Store, validated: list[Validated]) -> list[StoredDocument]:
    from reprokg.ingest import ingest

    # validated by the parse worker; the upload kept as its original, as `reprokg load` does
    result = ingest(store, validated)
    out: list[StoredDocument] = []
    for item in result.documents:
        out.append(
            {
                "iri": str(item.iri),
                "id": str(item.iri).rsplit("/", 1)[-1],
                "status": cast(StoredStatus, item.status),
                "source": item.source,
                "kind": item.kind,
                "revision_of": str(item.revision_of) if item.revision_of else None,
            }
        )
    return out


@router.post(
    "/documents",
    status_code=201,
    summary="Upload one source file (raw YAML/JSON/run file) or several (multipart)",
    responses={
        201: {
            "description": "stored; document IRIs and warnings",
            "links": {
                "GetDocument": {
                    "operationId": "get_document",
                    "parameters": {"doc_id": "$response.body#/documents/0/id"},
                },
                "DeleteDocument": {
                    "operationId": "delete_document",
                    "parameters": {"doc_id": "$response.body#/documents/0/id"},
                },
            },
        },
        **error_responses(400, 401, 403, 413, 415, 422, 429, 503, 507),
    },
    openapi_extra={"requestBody": UPLOAD_BODY},
    operation_id="post_documents",
    response_model=Stored,
)
async def post_documents(
    request: Request,
    store: StoreDep,
    settings: SettingsDep,
    _auth: WriteAccess,
    kind: str | None = Query(
        None, description="document kind; sniffed when omitted", json_schema_extra=_known_kinds
    ),
    name: str | None = Query(None, description="file name of a raw body (helps sniffing)"),
) -> JSONResponse:
    uploads = await _read_uploads(request, settings, name)
    validated = await run_in_threadpool(_parse, request, uploads, kind)
    reports = [v.report for v in validated]
    if not all(r.conforms for r in reports):
        return JSONResponse(
            {"conforms": False, "stored": [], "reports": [r.to_dict() for r in reports]},
            status_code=422,
        )
    stored = await run_in_threadpool(_store_documents, store, validated)
    return JSONResponse(
        {"conforms": True, "documents": stored, "warnings": _warnings(reports)},
        status_code=201,
    )


@router.post(
    "/validate",
    summary="Validate like POST /documents; never stores",
    responses=error_responses(400, 413, 415, 422, 429, 503),
    openapi_extra={"requestBody": UPLOAD_BODY},
    operation_id="validate",
    response_model=Validation,
)
async def post_validate(
    request: Request,
    settings: SettingsDep,
    kind: str | None = Query(
        None, description="document kind; sniffed when omitted", json_schema_extra=_known_kinds
    ),
    name: str | None = Query(None, description="file name of a raw body (helps sniffing)"),
) -> JSONResponse:
    uploads = await _read_uploads(request, settings, name)
    reports = [v.report for v in await run_in_threadpool(_parse, request, uploads, kind)]
    return JSONResponse(
        {"conforms": all(r.conforms for r in reports), "reports": [r.to_dict() for r in reports]}
    )


#: the provenance of a page of documents (``GET /documents``)
RECORDS_QUERY = "service/web/queries/document-records.rq"
#: its columns, by the record field each fills
RECORD_FIELDS = {
    "kind": "kind",
    "source": "source",
    "sha": "sha256",
    "key": "source_key",
    "time": "generated",
    "revisionOf": "revisionOf",
}


def document_records(store: Store, iris: Sequence[URIRef]) -> list[DocumentRecord]:
    """One record per document of ``iris``: the provenance its own graph states (read for
    these documents only: another document's triples about it are not its provenance),
    else just the IRI; by kind and source file."""
    records: dict[str, dict[str, str]] = {
        str(g): {"iri": str(g), "id": str(g).rsplit("/", 1)[-1]} for g in iris
    }
    if iris:
        res = store.query(package_query(RECORDS_QUERY).bind({"g": [str(g) for g in iris]}))
        assert isinstance(res, SelectResult)
        for row in res.dicts():
            rec = records[str(row["g"])]  # ?g is bound to the page's IRIs
            rec.update({f: str(row[k]) for k, f in RECORD_FIELDS.items() if k in row})
    listed = sorted(records.values(), key=lambda r: (r.get("kind") or "", r.get("source") or ""))
    return cast(list[DocumentRecord], listed)


@router.get(
    "/documents",
    summary="Stored documents with kind, source file and sha256",
    operation_id="list_documents",
    response_model=DocumentList,
)
def list_documents(
    request: Request,
    store: StoreDep,
    offset: Annotated[int, Query(ge=0, le=10**9)] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = MAX_LIMIT,
) -> DocumentList:
    """A page of the documents (``offset``, ``limit`` ≤ :data:`MAX_LIMIT`) in the store's
    own order (stable while it does not change; by kind and source within a page) with the
    count of all of them and the next page's URL: a store of a million documents answers
    in bounded bytes and time (one page read, the count kept as the store writes), and a
    short page says it is one."""
    count = count_documents(store)
    page = document_records(store, store.documents_page(offset, limit))
    nxt = None
    if offset + len(page) < count:
        nxt = str(request.url.include_query_params(offset=offset + limit))
    return {"count": count, "offset": offset, "limit": limit, "next": nxt, "documents": page}


def _doc_iri(doc_id: str, settings: Settings) -> URIRef:
    if not _SHA_RE.match(doc_id):
        raise NotFound(f"{doc_id!r} is not a document id (a sha256 hex digest)")
    return document_iri(doc_id, settings.base)


_ORIGINAL_TYPES = {
    ".json": "application/json",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
    ".csv": "text/csv",
}


def _original(store: Store, graph: Graph, iri: URIRef) -> tuple[bytes, str, str] | None:
    """The source kept by ingest (``keep_originals``): a blob named by the source's sha256,
    which is the document id."""
    sha = graph.value(iri, RK.sourceSha256) or str(iri).rsplit("/", 1)[-1]
    name = str(graph.value(iri, RK.sourceFileName) or "document")
    data = store.get_blob(str(sha))
    if data is None:
        return None
    ext = "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return data, _ORIGINAL_TYPES.get(ext, "text/plain"), name


@router.get(
    "/documents/{doc_id}",
    summary="A document as RDF (by Accept) or its original file (?original=true)",
    responses={
        200: {
            "description": "the document's graph, or the file as uploaded",
            "content": {t: {} for t in (*RDF_MEDIA_TYPES, *_ORIGINAL_MEDIA)},
        },
        **error_responses(404, 406),
    },
    operation_id="get_document",
    response_class=Response,
)
def get_document(
    doc_id: str,
    request: Request,
    store: StoreDep,
    settings: SettingsDep,
    original: bool = Query(False, description="the source file as uploaded"),
) -> Response:
    iri = _doc_iri(doc_id, settings)
    graph = store.get_document(iri)
    if len(graph) == 0:
        raise NotFound(f"no document {doc_id}")
    accept = request.headers.get("accept", "")
    orig = _original(store, graph, iri)
    wants_original = original or (
        orig is not None and accept.split(";")[0].strip() == orig[1] and orig[1] != "text/plain"
    )
    if wants_original:
        if orig is None:
            raise NotFound("the original file is not kept")
        data, media, name = orig
        return Response(
            data,
            media_type=media if media != "text/plain" else "text/plain; charset=utf-8",
            headers={"Content-Disposition": f'inline; filename="{_safe_name(name, "doc")}"'},
        )
    media = negotiate(accept, list(RDF_MEDIA_TYPES), aliases={})
    return Response(serialise_graph(graph, media), media_type=media)


@router.delete(
    "/documents/{doc_id}",
    status_code=204,
    summary="Delete a stored document",
    responses=error_responses(401, 403, 404, 507),
    operation_id="delete_document",
    response_class=Response,
)
def delete_document(
    doc_id: str, store: StoreDep, settings: SettingsDep, _auth: WriteAccess
) -> Response:
    iri = _doc_iri(doc_id, settings)
    if not store.delete_document(iri):
        raise NotFound(f"no document {doc_id}")
    return Response(status_code=204)
