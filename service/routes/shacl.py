"""``POST /shacl``: any data graphs against any SHACL shapes graph, with reprokg's engine.

A multipart body: one ``shapes`` file and one or more ``data`` files (Turtle, N-Triples,
JSON-LD, RDF/XML, by file suffix). No token: nothing is stored. The body is bounded by
the service's body limit and parsed and validated in the SHACL workers
(:mod:`reprokg.service.parsing`: ``shacl_*`` time, memory and wait limits, apart from the
upload parsers), never in the server; user shapes over a cost limit are a 422.
The answer is 200 with the reports as JSON, the ``sh:ValidationReport`` graph as Turtle
(``Accept: text/turtle``) or text (``Accept: text/plain``), like ``reprokg shacl``.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from reprokg.core.errors import LoadError, UnsupportedInput
from reprokg.service.deps import SettingsDep, error_responses
from reprokg.service.routes.documents import Validation

router = APIRouter(tags=["validation"])

_BODY = {
    "required": True,
    "content": {
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "required": ["shapes", "data"],
                "properties": {
                    "shapes": {"type": "string", "format": "binary"},
                    "data": {"type": "array", "items": {"type": "string", "format": "binary"}},
                },
            }
        }
    },
}


async def _read(request: Request, max_files: int) -> list[tuple[str, bytes]]:
    """(name, bytes) of the shapes file, then of each data file."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "multipart/form-data":
        raise UnsupportedInput(
            f"unsupported content type {ctype!r}: send multipart/form-data with a 'shapes' "
            "file and 'data' files",
            source="request body",
            details={"expected": ["multipart/form-data"]},
        )
    form = await request.form(max_files=max_files, max_fields=max_files)
    shapes: list[tuple[str, bytes]] = []
    data: list[tuple[str, bytes]] = []
    for i, (key, value) in enumerate(form.multi_items()):
        if isinstance(value, UploadFile):
            name = (value.filename or f"upload-{i + 1}.ttl").replace("\\", "/").rsplit("/", 1)[-1]
            (shapes if key == "shapes" else data if key == "data" else []).append(
                (name, await value.read())
            )
    await form.close()
    if len(shapes) != 1 or not data:
        raise LoadError(
            "expected one 'shapes' file and at least one 'data' file",
            source="request body",
            details={"shapes files": len(shapes), "data files": len(data)},
        )
    return shapes + data


@router.post(
    "/shacl",
    summary="Validate data graphs against a SHACL shapes graph; never stores",
    responses={
        200: {
            "description": "the reports (JSON), or the SHACL report graph (Turtle) or text",
            "content": {"application/json": {}, "text/turtle": {}, "text/plain": {}},
        },
        **error_responses(400, 413, 415, 422, 429, 503),
    },
    openapi_extra={"requestBody": _BODY},
    operation_id="shacl",
    response_model=Validation,
)
async def post_shacl(request: Request, settings: SettingsDep) -> Response:
    sources = await _read(request, settings.max_files)
    reports = await run_in_threadpool(request.app.state.parse_pool.shacl, sources)
    accept = request.headers.get("accept", "")
    if "text/turtle" in accept:
        from rdflib import Graph

        g = Graph()
        for r in reports:
            g += r.to_graph()
        g.bind("sh", "http://www.w3.org/ns/shacl#")
        return Response(g.serialize(format="turtle"), media_type="text/turtle")
    if "text/plain" in accept and "application/json" not in accept:
        return Response("\n".join(r.to_text() for r in reports) + "\n", media_type="text/plain")
    return JSONResponse(
        {"conforms": all(r.conforms for r in reports), "reports": [r.to_dict() for r in reports]}
    )
