"""Disputes over HTTP: ``POST /disputes`` contests a stored reproduction assessment.

``reprokg evidence dispute`` over HTTP (both call :func:`reprokg.evidence.verdicts.dispute`):
the dispute is a document of its own (kind ``assessment``), the disputed assessment stays
as it is, and the passport lists the dispute with its reason and who made it. A write: the
bearer token is required, and the body is bounded like every request (``Settings``'s body
limit, enforced by the service's middleware).
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Response, status
from pydantic import BaseModel, ConfigDict, Field

from reprokg.service.deps import StoreDep, WriteAccess, error_responses

router = APIRouter(tags=["assessments"])


class DisputeRequest(BaseModel):
    """Who disputes which assessment, and why."""

    model_config = ConfigDict(extra="forbid")

    assessment: str = Field(
        description="the disputed assessment's IRI (a passport's 'assessment' link)",
        examples=["https://w3id.org/reprokg/id/assessment/0123abcd"],
    )
    reason: str = Field(description="why the assessment is wrong, in words")
    by: str = Field(description="who disputes: an ORCID iD (checked), or a name")


class DisputeModel(BaseModel):
    """The stored dispute: its IRI, its document and what ingest did with it."""

    dispute: str
    assessment: str
    reason: str
    by: str
    document: str = Field(description="the dispute's document (named graph)")
    status: Literal["added", "unchanged", "revised"] = Field(
        description="added; unchanged (the same dispute again); revised (the same person's "
        "new reason for the same assessment)"
    )


@router.post(
    "/disputes",
    status_code=status.HTTP_201_CREATED,
    response_model=DisputeModel,
    summary="Dispute a stored reproduction assessment (a document of its own)",
    responses={
        200: {"description": "the same dispute was stored already (unchanged)"},
        **error_responses(400, 401, 403, 404, 413, 422, 503),
    },
)
def post_dispute(
    body: DisputeRequest, response: Response, store: StoreDep, _auth: WriteAccess
) -> dict:
    """Store a dispute of the assessment (404 when the store holds none by that IRI); a
    field that cannot be read is a 400 naming it."""
    from reprokg.evidence.verdicts import dispute
    from reprokg.ingest import write_result

    outcome = write_result(store, dispute(store, body.assessment, body.reason, body.by))
    if outcome.status == "unchanged":
        response.status_code = status.HTTP_200_OK
    return {
        "dispute": str(outcome.subject),
        "assessment": body.assessment.strip(),
        "reason": body.reason.strip(),
        "by": body.by.strip(),
        "document": str(outcome.iri),
        "status": outcome.status,
    }
