"""Serialise query results in the W3C formats, and pick one from an ``Accept`` header.

SELECT/ASK: SPARQL 1.1 Query Results JSON, XML, CSV and TSV (CSV/TSV only for SELECT:
the W3C note defines no boolean form). CONSTRUCT/DESCRIBE: Turtle, N-Triples, RDF/XML,
JSON-LD via rdflib. Written by hand for the tabular formats because the per-row cost
matters on the service's hot path and the formats are small.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import XSD
from rdflib.term import Identifier

from reprokg.core.errors import NotAcceptable
from reprokg.core.namespaces import new_graph
from reprokg.store.base import AskResult, GraphResult, QueryResult, SelectResult

JSON = "application/sparql-results+json"
XML = "application/sparql-results+xml"
CSV = "text/csv"
TSV = "text/tab-separated-values"
TURTLE = "text/turtle"
NTRIPLES = "application/n-triples"
RDFXML = "application/rdf+xml"
JSONLD = "application/ld+json"

#: Server preference order (first = default when the client accepts anything).
SELECT_TYPES: tuple[str, ...] = (JSON, XML, CSV, TSV)
ASK_TYPES: tuple[str, ...] = (JSON, XML)
GRAPH_TYPES: tuple[str, ...] = (TURTLE, NTRIPLES, RDFXML, JSONLD)

#: Media types some clients send for the same formats.
ALIASES = {
    "application/json": JSON,
    "application/sparql-results+json": JSON,
    "application/xml": XML,
    "text/xml": XML,
    "application/x-turtle": TURTLE,
    "text/plain": NTRIPLES,
    "application/json+ld": JSONLD,
}

#: ``format=`` short names accepted as an alternative to Accept.
FORMAT_NAMES = {
    "json": JSON,
    "xml": XML,
    "csv": CSV,
    "tsv": TSV,
    "turtle": TURTLE,
    "ttl": TURTLE,
    "nt": NTRIPLES,
    "ntriples": NTRIPLES,
    "n-triples": NTRIPLES,
    "rdfxml": RDFXML,
    "rdf+xml": RDFXML,
    "jsonld": JSONLD,
    "json-ld": JSONLD,
}

_XSD_STRING = str(XSD.string)
_TSV_BARE = {str(XSD.integer), str(XSD.decimal), str(XSD.double), str(XSD.boolean)}


@dataclass(frozen=True)
class MediaRange:
    """One entry of an ``Accept`` header."""

    type: str
    subtype: str
    q: float
    order: int

    def matches(self, media: str) -> int:
        """Specificity of the match (3 exact, 2 type/*, 1 */*), 0 if none."""
        t, _, s = media.partition("/")
        if self.type == "*" and self.subtype == "*":
            return 1
        if self.type == t and self.subtype == "*":
            return 2
        if self.type == t and self.subtype == s:
            return 3
        return 0


def parse_accept(header: str, aliases: Mapping[str, str] = ALIASES) -> list[MediaRange]:
    """The media ranges of an ``Accept`` header, with ``aliases`` applied (the one parser:
    the SPARQL endpoint, named queries, documents and linked data all read Accept here)."""
    ranges = []
    for i, part in enumerate(header.split(",")):
        fields = [f.strip() for f in part.split(";")]
        media = fields[0].lower()
        if not media:
            continue
        media = aliases.get(media, media)
        q = 1.0
        for f in fields[1:]:
            k, _, v = f.partition("=")
            if k.strip().lower() == "q":
                try:
                    q = float(v)
                except ValueError:
                    q = 0.0
        t, _, s = media.partition("/")
        ranges.append(MediaRange(t, s or "*", q, i))
    return ranges


def negotiate(
    accept: str | None, offered: Sequence[str], aliases: Mapping[str, str] = ALIASES
) -> str:
    """The offered media type the client prefers (RFC 9110 q-values).

    Each offer takes the q of the most specific range that matches it; the highest q wins,
    then the more specific match (a type named outright beats ``*/*``), then the server's
    order. No or empty Accept gives the first offered type. ``aliases`` maps the names some
    clients send to ours (``application/json`` for SPARQL JSON results); pass ``{}`` where
    those names are offers of their own. Raises :class:`NotAcceptable` when every offered
    type has q=0 or matches nothing.
    """
    if not accept or not accept.strip():
        return offered[0]
    ranges = parse_accept(accept, aliases)
    best: tuple[float, int, int] | None = None
    choice = None
    for rank, media in enumerate(offered):
        spec, q = 0, 0.0
        for r in ranges:
            s = r.matches(media)
            if s > spec:
                spec, q = s, r.q
        if spec and q > 0:
            key = (q, spec, -rank)
            if best is None or key > best:
                best, choice = key, media
    if choice is None:
        raise NotAcceptable(
            f"none of {', '.join(offered)} is acceptable (Accept: {accept})",
            available=list(offered),
        )
    return choice


def offered_for(result: QueryResult) -> tuple[str, ...]:
    if isinstance(result, SelectResult):
        return SELECT_TYPES
    if isinstance(result, AskResult):
        return ASK_TYPES
    return GRAPH_TYPES


def serialize(result: QueryResult, media: str) -> bytes:
    """``result`` in ``media`` (one of the types :func:`offered_for` lists)."""
    if isinstance(result, SelectResult):
        fn = {JSON: select_json, XML: select_xml, CSV: select_csv, TSV: select_tsv}[media]
        return fn(result)
    if isinstance(result, AskResult):
        return {JSON: ask_json, XML: ask_xml}[media](result)
    fmt = {TURTLE: "turtle", NTRIPLES: "nt", RDFXML: "xml", JSONLD: "json-ld"}[media]
    return result.graph.serialize(format=fmt, encoding="utf-8")


def content_type(media: str) -> str:
    """The Content-Type header value (UTF-8 everywhere)."""
    return f"{media}; charset=utf-8"


# --- SELECT / ASK --------------------------------------------------------------------


def _json_term(t: Identifier) -> dict[str, str]:
    if isinstance(t, URIRef):
        return {"type": "uri", "value": str(t)}
    if isinstance(t, BNode):
        return {"type": "bnode", "value": str(t)}
    if isinstance(t, Literal):
        d = {"type": "literal", "value": str(t)}
        if t.language:
            d["xml:lang"] = t.language
        elif t.datatype is not None and str(t.datatype) != _XSD_STRING:
            d["datatype"] = str(t.datatype)
        return d
    raise TypeError(f"not an RDF term: {t!r}")


def select_json(res: SelectResult) -> bytes:
    bindings = []
    for row in res.rows:
        bindings.append(
            {v: _json_term(t) for v, t in zip(res.variables, row, strict=True) if t is not None}
        )
    doc = {"head": {"vars": list(res.variables)}, "results": {"bindings": bindings}}
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def ask_json(res: AskResult) -> bytes:
    return json.dumps({"head": {}, "boolean": bool(res.value)}).encode("utf-8")


_XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n'


def _xml_term(t: Identifier) -> str:
    if isinstance(t, URIRef):
        return f"<uri>{escape(str(t))}</uri>"
    if isinstance(t, BNode):
        return f"<bnode>{escape(str(t))}</bnode>"
    assert isinstance(t, Literal)
    attrs = ""
    if t.language:
        attrs = f" xml:lang={quoteattr(t.language)}"
    elif t.datatype is not None and str(t.datatype) != _XSD_STRING:
        attrs = f" datatype={quoteattr(str(t.datatype))}"
    return f"<literal{attrs}>{escape(str(t))}</literal>"


def select_xml(res: SelectResult) -> bytes:
    parts = [_XML_HEAD, "<head>"]
    parts += [f"<variable name={quoteattr(v)}/>" for v in res.variables]
    parts.append("</head>\n<results>\n")
    for row in res.rows:
        parts.append("<result>")
        for v, t in zip(res.variables, row, strict=True):
            if t is not None:
                parts.append(f"<binding name={quoteattr(v)}>{_xml_term(t)}</binding>")
        parts.append("</result>\n")
    parts.append("</results>\n</sparql>\n")
    return "".join(parts).encode("utf-8")


def ask_xml(res: AskResult) -> bytes:
    value = "true" if res.value else "false"
    return f"{_XML_HEAD}<head/>\n<boolean>{value}</boolean>\n</sparql>\n".encode()


def _csv_field(s: str) -> str:
    if any(c in s for c in ',"\r\n'):
        return '"' + s.replace('"', '""') + '"'
    return s


def select_csv(res: SelectResult) -> bytes:
    """CSV per the W3C note: lexical forms only (types and languages are lost), CRLF lines."""
    lines = [",".join(_csv_field(v) for v in res.variables)]
    for row in res.rows:
        cells = []
        for t in row:
            if t is None:
                cells.append("")
            elif isinstance(t, BNode):
                cells.append(f"_:{t}")
            else:
                cells.append(_csv_field(str(t)))
        lines.append(",".join(cells))
    return ("\r\n".join(lines) + "\r\n").encode("utf-8")


def _tsv_string(s: str) -> str:
    s = s.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + s.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t") + '"'


def _tsv_term(t: Identifier | None) -> str:
    if t is None:
        return ""
    if isinstance(t, URIRef):
        return f"<{t}>"
    if isinstance(t, BNode):
        return f"_:{t}"
    assert isinstance(t, Literal)
    lex = str(t)
    dt = str(t.datatype) if t.datatype is not None else None
    if dt in _TSV_BARE and _turtle_bare_ok(lex, dt):
        return lex
    s = _tsv_string(lex)
    if t.language:
        return f"{s}@{t.language}"
    if dt and dt != _XSD_STRING:
        return f"{s}^^<{dt}>"
    return s


def _turtle_bare_ok(lex: str, dt: str) -> bool:
    """Whether Turtle's short numeric/boolean form reads back as the same literal."""
    import re

    if dt == str(XSD.integer):
        return re.fullmatch(r"[+-]?[0-9]+", lex) is not None
    if dt == str(XSD.decimal):
        return re.fullmatch(r"[+-]?[0-9]*\.[0-9]+", lex) is not None
    if dt == str(XSD.double):
        return re.fullmatch(r"[+-]?([0-9]+\.[0-9]*|\.?[0-9]+)[eE][+-]?[0-9]+", lex) is not None
    return lex in ("true", "false")


def select_tsv(res: SelectResult) -> bytes:
    """TSV per the W3C note: ``?var`` header, terms in Turtle syntax, LF lines."""
    lines = ["\t".join(f"?{v}" for v in res.variables)]
    lines += ["\t".join(_tsv_term(t) for t in row) for row in res.rows]
    return ("\n".join(lines) + "\n").encode("utf-8")


__all__ = [
    "ASK_TYPES",
    "CSV",
    "GRAPH_TYPES",
    "JSON",
    "JSONLD",
    "NTRIPLES",
    "NotAcceptable",
    "RDFXML",
    "SELECT_TYPES",
    "TSV",
    "TURTLE",
    "XML",
    "GraphResult",
    "content_type",
    "negotiate",
    "offered_for",
    "serialize",
]


# --- graphs (documents, linked data) -------------------------------------------------

#: media type -> rdflib serializer of a document or description graph; the first is the
#: default
RDF_MEDIA_TYPES: dict[str, str] = {
    TURTLE: "turtle",
    JSONLD: "json-ld",
    NTRIPLES: "nt",
    RDFXML: "xml",
}


def serialise_graph(graph: Graph, media_type: str) -> bytes:
    """``graph`` with our prefixes bound; JSON-LD compacted with them as its context."""
    fmt = RDF_MEDIA_TYPES[media_type]
    g = new_graph()
    for t in graph:
        g.add(t)
    if fmt == "json-ld":
        context = {p: str(ns) for p, ns in g.namespaces() if p}
        return json.dumps(
            json.loads(g.serialize(format="json-ld", context=context)), ensure_ascii=False
        ).encode("utf-8")
    return g.serialize(format=fmt, encoding="utf-8")


# --- a byte cap on answers serialised by the engine ------------------------------------


class AnswerTooLarge(Exception):
    """The serialised answer passed its byte cap (control flow: the caller cuts it)."""


class CappedBuffer(io.RawIOBase):
    """Where pyoxigraph writes an answer: holds at most ``limit`` bytes, then raises
    :class:`AnswerTooLarge` (pyoxigraph stops and passes it on), so a huge answer never
    sits whole in memory."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
        self.data = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        if len(self.data) + len(b) > self.limit:
            raise AnswerTooLarge
        self.data += b
        return len(b)
