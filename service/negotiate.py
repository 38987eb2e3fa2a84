"""Content negotiation: pick a media type from ``Accept`` (q-values, wildcards)."""

from __future__ import annotations

import json

from rdflib import Graph

from reprokg.core.namespaces import new_graph

#: media type -> rdflib serializer; the first is the default
RDF_MEDIA_TYPES: dict[str, str] = {
    "text/turtle": "turtle",
    "application/ld+json": "json-ld",
    "application/n-triples": "nt",
    "application/rdf+xml": "xml",
}


def parse_accept(accept: str) -> list[tuple[str, float, int]]:
    """(media range, q, position) for each entry of an Accept header."""
    out = []
    for pos, part in enumerate(accept.split(",")):
        fields = [f.strip() for f in part.split(";")]
        media = fields[0].lower()
        if not media:
            continue
        q = 1.0
        for f in fields[1:]:
            k, _, v = f.partition("=")
            if k.strip().lower() == "q":
                try:
                    q = float(v)
                except ValueError:
                    q = 0.0
        out.append((media, q, pos))
    return out


def negotiate(accept: str | None, offers: list[str] | dict[str, str]) -> str | None:
    """The offer the client prefers; the first offer when there is no Accept header.

    Ties on q go to the more specific range, then to the earlier offer (our default).
    """
    offers = list(offers)
    if not accept or not accept.strip():
        return offers[0]
    ranges = parse_accept(accept)
    best: tuple[float, int, int] | None = None
    choice = None
    for i, offer in enumerate(offers):
        otype, osub = offer.split("/", 1)
        score: tuple[float, int] | None = None
        for media, q, _pos in ranges:
            mtype, _, msub = media.partition("/")
            if media == offer:
                spec = 3
            elif mtype == otype and msub == "*":
                spec = 2
            elif media in ("*/*", "*"):
                spec = 1
            else:
                continue
            if score is None or spec > score[1]:
                score = (q, spec)
        if score is None or score[0] <= 0:
            continue
        key = (score[0], score[1], -i)
        if best is None or key > best:
            best, choice = key, offer
    return choice


def serialise_graph(graph: Graph, media_type: str) -> bytes:
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
