"""The one resolver from what a command printed to a stored document, and the short ids
(``reprokg.store.catalog``). The ids here are written by hand so that prefixes collide."""

from __future__ import annotations

import pytest
from rdflib import Literal, URIRef
from rdflib.namespace import PROV, RDF, RDFS

from reprokg.core.errors import NotFound, UsageError
from reprokg.core.identifiers import document_iri, mint
from reprokg.core.namespaces import RK
from reprokg.store import open_store
from reprokg.store.base import DocumentWrite, Store
from reprokg.store.catalog import catalog, resolve, short_ids

A = "abcd1234" + "0" * 56
B = "abcd1299" + "1" * 56
C = "ef" + "2" * 62


def _doc(sha: str, kind: str, subject: URIRef | None, title: str, when: str) -> DocumentWrite:
    d = document_iri(sha)
    triples = [
        (d, RDF.type, RK.Document),
        (d, RK.documentKind, Literal(kind)),
        (d, PROV.generatedAtTime, Literal(when)),
        (d, RK.sourceFileName, Literal(f"{kind}.txt")),
    ]
    if subject is not None:
        triples += [(subject, PROV.wasDerivedFrom, d), (subject, RDFS.label, Literal(title))]
    return DocumentWrite(d, triples)


@pytest.fixture
def store() -> Store:
    s = open_store(":memory:")
    s.write_documents(
        [
            _doc(A, "comparison", mint("comparison", "x1"), "runs a and b", "2026-01-01T00:00:00Z"),
            _doc(B, "run", mint("run", "r1"), "a run", "2026-01-02T00:00:00Z"),
            _doc(C, "qrels", None, "", "2026-01-03T00:00:00Z"),
        ]
    )
    return s


def test_short_ids_are_the_shortest_unique_prefix_of_eight_or_more() -> None:
    # A and B share 6 characters (abcd12): 8 tell them apart; C shares none
    assert short_ids([A, B, C]) == {A: A[:8], B: B[:8], C: C[:8]}
    # 10 shared characters need 11
    d = A[:10] + "f" * 54
    assert short_ids([A, d])[A] == A[:11]


def test_every_form_of_id_resolves_to_the_document(store: Store) -> None:
    doc = document_iri(A)
    subject = mint("comparison", "x1")
    for ident in (A, A[:8], A[:7], str(doc), "doc/" + A, str(subject), "comparison/x1"):
        found = resolve(store, ident)
        assert (found.document, found.subject) == (doc, subject), ident
    assert resolve(store, C[:4]).target == document_iri(C)  # no subject: the document


def test_an_ambiguous_prefix_is_an_error_naming_the_candidates(store: Store) -> None:
    with pytest.raises(UsageError) as exc:
        resolve(store, "abcd12")
    assert "matches 2 documents" in str(exc.value)
    assert A in str(exc.value) and B in str(exc.value)
    assert exc.value.details["candidates"] == [str(document_iri(A)), str(document_iri(B))]


def test_nothing_stored_is_not_found(store: Store) -> None:
    for ident in ("ffffffff", "https://example.org/nothing", "zz", "abc"):
        with pytest.raises(NotFound):
            resolve(store, ident)


def test_the_catalog_filters_pages_and_counts(store: Store) -> None:
    whole = catalog(store)
    assert [e.kind for e in whole.entries] == ["qrels", "run", "comparison"]  # newest first
    assert whole.entries[2].title == "runs a and b"
    assert whole.entries[0].title == "qrels.txt"  # no subject: the source file
    assert [e.id for e in catalog(store, kind="run").entries] == [B[:8]]
    assert [e.kind for e in catalog(store, text="RUNS A").entries] == ["comparison"]
    page = catalog(store, limit=2)
    assert (len(page.entries), page.total, page.truncated) == (2, 3, True)
    assert page.sentence() == "2 of 3 documents (1-2)"
