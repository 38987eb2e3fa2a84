"""Qrels (TREC relevance judgements) as a document of kind ``qrels``, linked to its collection.

The judgements are not turned into triples: the normalised qrels lines (LF ends, comment
lines dropped) are a content-addressed attachment, and the graph describes the qrels file
(sha256, topics, judgements) as a ``dcat:Distribution`` of its test collection. The test
collection is named by its ir_datasets id, which is how run headers name it
(``data.test collection.ir_datasets``) and what *find baselines* joins on; it is read from
a comment line at the top — ``# ir_datasets: https://ir-datasets.com/nyt`` (also
``# test collection: …``) — trec_eval 10 skips such lines — or passed as ``collection``.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from rdflib import Literal, URIRef
from rdflib.namespace import DCAT, DCTERMS, PROV, RDF, XSD

from reprokg import __version__
from reprokg.core.document import Document, Message
from reprokg.core.identifiers import mint
from reprokg.core.namespaces import RK, SCHEMA, new_graph
from reprokg.loaders.ir_datasets import collection_iri
from reprokg.loaders.reading.contract import LoaderInfo
from reprokg.loaders.reading.source import decode_text
from reprokg.loaders.trec_files import Qrels, parse_qrels_text

INFO = LoaderInfo(kind="qrels", name="reprokg.loaders.qrels", version=__version__)
QRELS_MEDIA_TYPE = "text/x-trec-qrels"

_QRELS_LINE = re.compile(r"^\s*\S+\s+\S+\s+\S+\s+-?\d+\s*$")


def sniff(name: str, head: str) -> bool:
    """A file whose non-comment lines all look like ``topic iteration docno relevance``."""
    lines = [ln for ln in head.split("\n")[:-1] or head.split("\n") if ln.strip()]
    data = [ln for ln in lines if not ln.lstrip().startswith("#")]
    if len(data) < 1:
        return False
    looks = all(_QRELS_LINE.match(ln) for ln in data[:50])
    return looks and ("qrel" in name.lower() or len(data) >= 3)


def qrels_iri(sha256: str) -> URIRef:
    """A qrels file is identified by the sha256 of its normalised lines."""
    return mint("qrels", sha256)


def load(data: bytes, name: str, *, collection: str | None = None) -> list[Document]:
    """One document for one qrels file."""
    return [load_qrels_file(data, name, collection=collection)[0]]


def load_qrels_file(
    data: bytes, name: str, *, collection: str | None = None
) -> tuple[Document, Qrels]:
    """The document of a qrels file and its judgements, the lines read once."""
    parsed = parse_qrels_text(decode_text(data, name), name)
    lines, n_topics, n_judgements = parsed.data, parsed.topics, parsed.judgements
    first = parsed.first_line
    sha = parsed.sha256
    collection = collection or parsed.collection
    q = qrels_iri(sha)
    g = new_graph()
    g.add((q, RDF.type, DCAT.Distribution))
    g.add((q, RDF.type, PROV.Entity))
    g.add((q, SCHEMA.name, Literal(PurePath(name).name)))
    g.add((q, RK.sha256, Literal(sha)))
    g.add((q, DCAT.mediaType, Literal(QRELS_MEDIA_TYPE)))
    g.add((q, DCAT.byteSize, Literal(len(lines), datatype=XSD.nonNegativeInteger)))
    g.add((q, DCTERMS.extent, Literal(f"{n_judgements} judgements on {n_topics} topics")))
    messages: list[Message] = []
    lines_map = {"qrels lines": first}
    if collection:
        tc = collection_iri(collection)
        g.add((tc, RDF.type, RK.TestCollection))
        g.add((tc, RK.irDatasetsId, Literal(collection)))
        g.add((tc, DCAT.distribution, q))
        g.add((q, DCTERMS.isPartOf, tc))
    else:
        messages.append(
            Message(
                "Warning",
                "ir_datasets",
                "the qrels name no test collection; add a first line "
                "'# ir_datasets: <id>' (trec_eval skips it) or pass the collection",
                focus_node=str(q),
                line=1,
            )
        )
    key = f"qrels:{collection or ''}:{PurePath(name).name}"
    return (
        INFO.document(
            g,
            source_name=name,
            source_bytes=data,
            source_key=key,
            messages=messages,
            lines=lines_map,
            attachments={sha: lines},
            subject=q,
        ),
        parsed.qrels,
    )
