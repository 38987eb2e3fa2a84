"""What an analysis route answers of a result it stored on request (``save``): one answer
shape for the routes that store what they computed (QRA, seed comparisons, critical
differences) through :func:`reprokg.ingest.write_result`."""

from __future__ import annotations

from pydantic import BaseModel, Field

from reprokg.ingest import DocumentOutcome


class StoredModel(BaseModel):
    iri: str = Field(description="the stored result's IRI")
    document: str = Field(description="the document (named graph) holding it")
    status: str = Field(description="added, revised or unchanged")


def stored_json(outcome: DocumentOutcome) -> dict[str, str]:
    """The answer's ``stored`` object: the result's IRI, its document, what ingest did."""
    return {"iri": str(outcome.subject), "document": str(outcome.iri), "status": outcome.status}
