"""``/validate``: paste or upload an ir_metadata header, audit or survey file and read the
SHACL report next to the source lines it names. The same loaders and validation as
``POST /documents``; nothing is stored. (``POST /validate`` is the JSON API; the form
posts to ``/validate/report``.)

The form's upload takes the one upload path: parsed and validated in the app's parse
workers (:mod:`reprokg.service.parsing`) with their time and memory limits and their
concurrency bound, like ``POST /validate`` (a form parsed in the server process ran far
past the parse limit: benchmarks/README.md#figures-once-quoted-in-code).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, JSONResponse, Response

from reprokg.core.errors import LoadError
from reprokg.core.resources import data_dir
from reprokg.service.web.render import PAGE_RESPONSES, page, wants

router = APIRouter()

#: the example in the form: the bundled annotated run with a wrong ORCID check digit
EXAMPLE = "runs/annotated_run_example.txt"
GOOD_ORCID, BROKEN_ORCID = "0000-0002-0661-7189", "0000-0002-0661-7188"


def example_broken() -> str:
    text = data_dir("examples").joinpath(EXAMPLE).read_text(encoding="utf-8")
    return text.replace(GOOD_ORCID, BROKEN_ORCID)


@router.get(
    "/validate",
    tags=["web pages"],
    summary="The validation form (HTML; the API validates with POST)",
    response_class=HTMLResponse,
    responses=PAGE_RESPONSES,
)
def validate_form(request: Request) -> Response:
    return page(
        request, "validate.html", title="Validate", text=example_broken(), report=None, name=""
    )


def check(request: Request, data: bytes, name: str) -> tuple[str | None, list[dict]]:
    """(kind, results) of one file: the SHACL report, or the load error as one result
    (a parser that died or ran past its limits is such an error too). Through the one
    upload path: :meth:`~reprokg.service.parsing.ParsePool.parse` in a parse worker."""
    try:
        validated = request.app.state.parse_pool.parse([(name, data)], None)
    except LoadError as exc:
        return exc.details.get("kind"), [
            {
                "severity": "Violation",
                "message": exc.message,
                "line": exc.line,
                "path": exc.field,
            }
        ]
    kind = validated[0].document.kind if validated else None
    return kind, [asdict(r) for v in validated for r in v.report.results]


@router.post("/validate/report", include_in_schema=False)
async def validate_report(
    request: Request,
    text: Annotated[str, Form()] = "",
    name: Annotated[str, Form(max_length=200)] = "",
    upload: Annotated[UploadFile | None, File()] = None,
) -> Response:
    if upload is not None and upload.filename:
        data, name = await upload.read(), upload.filename
    else:
        data, name = text.encode("utf-8"), name or "pasted.txt"
    kind, results = await run_in_threadpool(check, request, data, name)
    if wants(request) == "json":
        return JSONResponse({"kind": kind, "results": results})
    source = data.decode("utf-8", errors="replace")
    order = {"Violation": 0, "Warning": 1, "Info": 2}
    results.sort(key=lambda r: (order.get(r["severity"], 3), r.get("line") or 0))
    return page(
        request,
        "validate.html",
        title="Validate",
        text=source,
        report=results,
        kind=kind,
        lines=source.splitlines(),
        flagged={r["line"]: r["severity"] for r in results if r.get("line")},
        name=name,
        active="/validate",
    )
