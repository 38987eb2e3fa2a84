"""A computed result stored on request (``save``): one writer and one answer shape for the
analysis routes that store what they computed (QRA, seed comparisons, critical
differences)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from reprokg.store.base import Store


class StoredModel(BaseModel):
    iri: str = Field(description="the stored result's IRI")
    document: str = Field(description="the document (named graph) holding it")
    status: str = Field(description="added, revised or unchanged")


def store_result(store: Store, result: Any) -> dict[str, str]:
    """Write ``result.document()`` through ingest; the answer's ``stored`` object."""
    from reprokg.ingest import write_results

    doc = result.document()
    (outcome,) = write_results(store, [doc]).documents
    return {"iri": str(doc.subject), "document": str(outcome.iri), "status": outcome.status}
