"""What a store holds, named the way a person carries it from one command to the next.

Every command that saves prints a *short id*: the shortest prefix (at least
:data:`SHORT_ID` characters) of the document id (the sha256 in ``{base}doc/{sha256}``) that
no other stored document shares. :func:`resolve` is the one way back from anything a
command printed — a short id or any unique prefix, the full id, ``doc/<id>``, the document
IRI, the IRI of what the document is about (a comparison, a run, an estimate) or its path
under the base (``comparison/<hash>``) — to the document; ``export``, ``export crate``,
``freeze``, ``passport``, ``query --param`` and ``/id/…`` all call it. :func:`catalog` is the
read model of ``reprokg list``: kind, id, title and date of every document, filtered and
paged, with the count of all that match (never a silent cut).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rdflib import URIRef

from reprokg.core.errors import NotFound, UsageError
from reprokg.core.identifiers import base_iri, document_iri
from reprokg.core.namespaces import SPARQL_PREFIXES
from reprokg.store.base import SelectResult

if TYPE_CHECKING:
    from collections.abc import Iterable

    from reprokg.store.base import Store

#: the fewest characters of a printed short id (32 bits: unique among thousands of documents)
SHORT_ID = 8
#: the fewest hex characters a typed prefix may have (shorter ones match too much to help)
MIN_PREFIX = 4
#: candidates an ambiguity error names
CANDIDATES_SHOWN = 10

_HEX = re.compile(r"^[0-9a-fA-F]+$")


@dataclass(frozen=True)
class Resolved:
    """A stored document and what it is about (None: a document that names no subject)."""

    document: URIRef
    subject: URIRef | None

    @property
    def target(self) -> URIRef:
        """The IRI a query parameter or a ``/id/`` page means: the subject, else the document."""
        return self.subject if self.subject is not None else self.document


def document_id(document: URIRef | str) -> str:
    """The id of a document IRI: its last path segment (the source's sha256)."""
    return str(document).rstrip("/").rsplit("/", 1)[-1]


def short_ids(ids: Iterable[str]) -> dict[str, str]:
    """Each id's shortest prefix of at least :data:`SHORT_ID` characters that no other id in
    ``ids`` starts with (neighbours in sorted order are the only ones to beat)."""
    ordered = sorted(set(ids))
    out = {}
    for i, ident in enumerate(ordered):
        need = SHORT_ID
        for other in (ordered[i - 1] if i else "", ordered[i + 1] if i + 1 < len(ordered) else ""):
            common = 0
            for a, b in zip(ident, other, strict=False):
                if a != b:
                    break
                common += 1
            need = max(need, common + 1)
        out[ident] = ident[:need]
    return out


def short_id(store: Store, document: URIRef | str) -> str:
    """The short id of one stored document (unique in ``store`` now)."""
    ident = document_id(document)
    others = [document_id(d) for d in store.documents()]
    return short_ids([*others, ident])[ident]


def _subject_of(store: Store, document: URIRef) -> URIRef | None:
    """What ``document`` is about: the one node ``prov:wasDerivedFrom`` it (ingest writes it)."""
    res = store.query(
        f"{SPARQL_PREFIXES}SELECT ?s WHERE {{ GRAPH {document.n3()} "
        f"{{ ?s prov:wasDerivedFrom {document.n3()} FILTER(isIRI(?s)) }} }} ORDER BY ?s LIMIT 2"
    )
    subjects = [r[0] for r in res.rows] if isinstance(res, SelectResult) else []
    return URIRef(str(subjects[0])) if len(subjects) == 1 else None


def _documents_about(store: Store, iri: URIRef) -> list[URIRef]:
    res = store.query(
        f"{SPARQL_PREFIXES}SELECT DISTINCT ?g WHERE {{ GRAPH ?g {{ {iri.n3()} "
        f"prov:wasDerivedFrom ?g }} }} ORDER BY ?g LIMIT {CANDIDATES_SHOWN + 1}"
    )
    return [URIRef(str(r[0])) for r in res.rows] if isinstance(res, SelectResult) else []


def _ambiguous(ident: str, found: list[URIRef], total: int) -> UsageError:
    shown = found[:CANDIDATES_SHOWN]
    more = f" and {total - len(shown)} more" if total > len(shown) else ""
    return UsageError(
        f"{ident!r} is ambiguous: it matches {total} documents ("
        + ", ".join(document_id(d) for d in shown)
        + f"{more}); give more characters of the id",
        details={"candidates": [str(d) for d in shown], "matches": total},
    )


def resolve(store: Store, ident: str, *, base: str | None = None) -> Resolved:
    """The stored document ``ident`` names (see the module docstring). A prefix two
    documents share is a :class:`UsageError` naming them; nothing stored, :class:`NotFound`."""
    text = ident.strip()
    base = base or base_iri()
    if not text:
        raise UsageError("an empty id names no document")
    if "://" not in text and "/" in text:  # a path under the base, as /id/… shows it
        text = base + text.lstrip("/")
    if "://" in text:
        iri = URIRef(text)
        if store.has_document(iri):
            return Resolved(iri, _subject_of(store, iri))
        docs = _documents_about(store, iri)
        if len(docs) == 1:
            return Resolved(docs[0], iri)
        if docs:
            raise _ambiguous(ident, docs, len(docs))
        raise NotFound(f"no document {ident} (no stored document is, or is about, that IRI)")
    if not _HEX.match(text) or len(text) < MIN_PREFIX:
        raise NotFound(
            f"no document {ident!r}: expected a document id (hex, at least {MIN_PREFIX} "
            "characters, as reprokg list and every --save print it), a document IRI or "
            "the IRI of a stored result"
        )
    text = text.lower()
    if len(text) == 64:
        iri = document_iri(text, base)
        if store.has_document(iri):
            return Resolved(iri, _subject_of(store, iri))
        raise NotFound(f"no document {ident!r}")
    hits = [d for d in store.documents() if document_id(d).startswith(text)]
    if len(hits) == 1:
        return Resolved(hits[0], _subject_of(store, hits[0]))
    if hits:
        raise _ambiguous(ident, hits, len(hits))
    raise NotFound(f"no document {ident!r} (no stored document id starts with it)")


# --------------------------------------------------------------------------- the listing

#: one row per document and its subject's title (any of the title properties stated)
_CATALOG = """SELECT ?g ?kind ?time ?source ?s ?title WHERE {
  GRAPH ?g {
    ?g a rk:Document ; rk:documentKind ?kind .
    OPTIONAL { ?g prov:generatedAtTime ?time }
    OPTIONAL { ?g rk:sourceFileName ?source }
    OPTIONAL { ?s prov:wasDerivedFrom ?g
      OPTIONAL { ?s rdfs:label|schema:name|dcterms:title|schema:headline ?title } }
  }
}"""


@dataclass(frozen=True)
class Entry:
    """One stored document as ``reprokg list`` shows it."""

    kind: str
    id: str
    title: str
    date: str
    iri: str
    subject: str | None
    source: str

    def to_json(self) -> dict[str, str | None]:
        return {
            "kind": self.kind,
            "id": self.id,
            "title": self.title,
            "date": self.date,
            "iri": self.iri,
            "subject": self.subject,
            "source": self.source,
        }


@dataclass(frozen=True)
class Catalog:
    """A page of the listing and how many documents match in all."""

    entries: list[Entry]
    total: int
    offset: int
    limit: int | None

    @property
    def truncated(self) -> bool:
        return self.offset + len(self.entries) < self.total

    def sentence(self) -> str:
        """``3 documents`` or ``50 of 1,234 documents (1-50)``."""
        if not self.truncated and self.offset == 0:
            return f"{self.total:,} document{'s' if self.total != 1 else ''}"
        first = self.offset + 1 if self.entries else self.offset
        return (
            f"{len(self.entries):,} of {self.total:,} documents "
            f"({first:,}-{self.offset + len(self.entries):,})"
        )

    def to_json(self) -> dict[str, object]:
        return {
            "count": self.total,
            "offset": self.offset,
            "limit": self.limit,
            "truncated": self.truncated,
            "documents": [e.to_json() for e in self.entries],
        }


def catalog(
    store: Store,
    *,
    kind: str | None = None,
    text: str | None = None,
    limit: int | None = 50,
    offset: int = 0,
) -> Catalog:
    """Every stored document (newest first), or those of ``kind`` whose id, title, source
    file or subject contains ``text`` (case-insensitive); a page of ``limit`` from
    ``offset`` (``limit=None``: all), with the count of all that match."""
    res = store.query(SPARQL_PREFIXES + _CATALOG)
    rows: dict[str, dict[str, str]] = {}
    titles: dict[str, list[str]] = {}
    if isinstance(res, SelectResult):
        for row in res.dicts():
            g = str(row["g"])
            rec = rows.setdefault(g, {"kind": str(row["kind"])})
            for key in ("time", "source", "s"):
                if key in row and key not in rec:
                    rec[key] = str(row[key])
            if "title" in row:
                titles.setdefault(g, []).append(str(row["title"]))
    shorts = short_ids(document_id(d) for d in store.documents())
    entries = []
    for g, rec in rows.items():
        ident = document_id(g)
        title = min(titles[g]) if g in titles else rec.get("source", "")
        entries.append(
            Entry(
                kind=rec["kind"],
                id=shorts.get(ident, ident[:SHORT_ID]),
                title=title,
                date=rec.get("time", ""),
                iri=g,
                subject=rec.get("s"),
                source=rec.get("source", ""),
            )
        )
    if kind:
        entries = [e for e in entries if e.kind == kind]
    if text:
        needle = text.lower()
        entries = [
            e
            for e in entries
            if any(needle in (v or "").lower() for v in (e.iri, e.title, e.source, e.subject))
        ]
    entries.sort(key=lambda e: (e.date, e.iri), reverse=True)
    page = entries[offset:] if limit is None else entries[offset : offset + limit]
    return Catalog(page, len(entries), offset, limit)
