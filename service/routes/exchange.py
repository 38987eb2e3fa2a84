"""RO-Crates over HTTP: ``GET /documents/{id}/crate`` (a computed result of any kind, or a
run) and ``GET /paper/crate?doi=`` (a paper's passport), as ZIP archives.

The crate is what ``reprokg export crate`` writes (:mod:`reprokg.exchange.crate`); it is
built from the store in the request's thread and answered only while it fits the answer
limit of the settings (``answer_bytes``), like every other answer.
"""

from __future__ import annotations

import re

from fastapi import APIRouter, Query
from fastapi.responses import Response

from reprokg.core.errors import NotFound, TooLarge
from reprokg.core.settings import Settings
from reprokg.exchange.crate import CrateContent, crate_files, zip_bytes
from reprokg.exchange.views import passport_content
from reprokg.service.deps import ReadStoreDep, SettingsDep, error_responses

router = APIRouter(tags=["exchange"])

_ZIP = {"content": {"application/zip": {}}, "description": "the RO-Crate as a ZIP archive"}


def _answer(content: CrateContent, settings: Settings, version: str, stem: str) -> Response:
    data = zip_bytes(crate_files(content, version))
    if len(data) > settings.answer_bytes:
        raise TooLarge(
            f"the crate is {len(data)} bytes; answers are limited to {settings.answer_bytes} "
            "bytes (answer_bytes): write it with reprokg export crate",
            details={"limit": "answer_bytes", "limit_value": settings.answer_bytes},
        )
    return Response(
        data,
        media_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="{stem}-crate.zip"'},
    )


@router.get(
    "/documents/{doc_id}/crate",
    summary="A stored result (any kind) or run as an RO-Crate (Process Run Crate, ZIP)",
    responses={200: _ZIP, **error_responses(404, 413)},
    response_class=Response,
    operation_id="get_document_crate",
)
def get_document_crate(
    doc_id: str,
    store: ReadStoreDep,
    settings: SettingsDep,
    ro_crate: str = Query("1.1", pattern="^1\\.[12]$", description="RO-Crate version"),
) -> Response:
    from reprokg.core.identifiers import document_iri
    from reprokg.exchange.views import document_content

    if not re.fullmatch(r"[0-9a-f]{64}", doc_id):
        raise NotFound(f"{doc_id!r} is not a document id (a sha256 hex digest)")
    content = document_content(store, document_iri(doc_id, settings.base))
    return _answer(content, settings, ro_crate, doc_id[:12])


@router.get(
    "/paper/crate",
    summary="A paper's reproducibility passport as an RO-Crate (ZIP)",
    responses={200: _ZIP, **error_responses(400, 404, 413)},
    response_class=Response,
    operation_id="get_passport_crate",
)
def get_passport_crate(
    store: ReadStoreDep,
    settings: SettingsDep,
    doi: str | None = None,
    iri: str | None = None,
    ro_crate: str = Query("1.1", pattern="^1\\.[12]$", description="RO-Crate version"),
) -> Response:
    from reprokg.evidence.passport import work_iri

    target = work_iri(doi, iri)
    return _answer(passport_content(store, target), settings, ro_crate, "passport")
