"""Computed results: a typed object first, its JSON answer and its RDF document both derived.

Every analysis (a stability analysis, an intrinsic-dimension estimate, a study recomputed
from the graph, a comparison of runs, an evaluation) returns a dataclass that keeps the
:class:`ComputedResult` contract: ``to_json()`` is the answer of the CLI and the HTTP API,
``to_graph()`` the triples of its document, and ``document()`` that document, made by the
one builder here, :func:`result_document`, and stored through
:func:`reprokg.ingest.write_result` (validated against ``shapes/{kind}.ttl``).

The builder writes the provenance every result carries, as PROV-O in the result's own
graph: the result ``prov:wasGeneratedBy`` one activity (:class:`Computation`: what was
computed, in words), which ``prov:used`` the inputs (documents, files, nodes), the SPARQL
it read (``rk:SparqlQuery`` with its text), the software with versions
(``schema:SoftwareApplication``) and the parameters (``rk:ParameterSetting``). *When* is
the document's ``prov:generatedAtTime``, written by ingest in the same call: a computed
result's graph depends only on its inputs, so the same result computed again is the same
document (``unchanged``), and a new one of the same ``source_key`` revises it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import Any, ClassVar, Protocol, runtime_checkable

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import PROV, RDF, RDFS

from reprokg import __version__
from reprokg.core.document import Document
from reprokg.core.hashing import content_hash, stable_key
from reprokg.core.identifiers import mint
from reprokg.core.namespaces import RK, SCHEMA


@runtime_checkable
class ComputedResult(Protocol):
    """What every computed result is: one object, its JSON and its document derived."""

    #: the document kind (``shapes/{KIND}.ttl`` validates it)
    KIND: ClassVar[str]

    def to_json(self) -> Mapping[str, Any]:
        """The JSON answer (``--format json``, the HTTP API), JSON-ready values only."""
        ...

    def to_graph(self) -> Graph:
        """The result's triples (the computation's provenance included)."""
        ...

    def document(self) -> Document:
        """The result as a document (:func:`result_document`), ready for ingest."""
        ...


def software_versions(*names: str) -> dict[str, str]:
    """``reprokg`` and the distributions ``names`` with their installed versions."""
    out = {"reprokg": __version__}
    for name in names:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "unknown"
    return out


def canonical_json(value: Any) -> bytes:
    """``value`` as the bytes a result document is named by (keys sorted, no NaN)."""
    return json.dumps(value, sort_keys=True, allow_nan=False, default=str).encode("utf-8")


@dataclass(frozen=True)
class Computation:
    """How a result was computed: the ``prov:Activity`` its document records."""

    #: what was computed, in words (``stability analysis (reprokg stability)``)
    label: str
    #: names the activity (``{base}activity/{key}``): a stable key of the inputs and options
    key: str
    #: the inputs it read: documents, files, nodes (``prov:used``)
    used: Sequence[URIRef] = ()
    #: the software that computed it: name -> version (:func:`software_versions`)
    software: Mapping[str, str] = field(default_factory=dict)
    #: the parameters it was given: name -> value as text (``None``: not given)
    parameters: Mapping[str, str | None] = field(default_factory=dict)
    #: the SPARQL it read: a name (package path or named query) -> the text run
    queries: Mapping[str, str] = field(default_factory=dict)

    @property
    def activity(self) -> URIRef:
        return mint("activity", self.key)

    def add_to(self, g: Graph) -> URIRef:
        """Write the activity and everything it used into ``g``; return the activity."""
        a = self.activity
        g.add((a, RDF.type, PROV.Activity))
        g.add((a, RDFS.label, Literal(self.label)))
        for iri in self.used:
            g.add((a, PROV.used, iri))
        for name, ver in sorted(self.software.items()):
            sw = mint("software", f"{name}-{ver}")
            g.add((sw, RDF.type, SCHEMA.SoftwareApplication))
            g.add((sw, SCHEMA.name, Literal(name)))
            g.add((sw, SCHEMA.softwareVersion, Literal(ver)))
            g.add((a, PROV.used, sw))
        for pname, pvalue in self.parameters.items():
            if pvalue is None:
                continue
            p = mint("parameter", stable_key(self.key, pname))
            g.add((p, RDF.type, RK.ParameterSetting))
            g.add((p, RK.parameterName, Literal(pname)))
            g.add((p, RK.parameterValue, Literal(str(pvalue))))
            g.add((a, PROV.used, p))
        for qname, text in sorted(self.queries.items()):
            q = mint("query", content_hash(text.encode("utf-8")))
            g.add((q, RDF.type, RK.SparqlQuery))
            g.add((q, RDFS.label, Literal(qname)))
            g.add((q, RK.queryText, Literal(text)))
            g.add((a, PROV.used, q))
        return a


def result_document(
    *,
    kind: str,
    subject: URIRef,
    graph: Graph,
    computation: Computation,
    source: bytes,
    source_key: str,
    source_name: str,
    producer: str,
) -> Document:
    """The one builder of a computed result's :class:`Document`.

    ``graph`` holds the result's own triples; the computation is added to it and the
    result ``prov:wasGeneratedBy`` its activity. ``source`` (usually
    :func:`canonical_json` of what the result was computed from and what it says) names
    the document: the same bytes again are *unchanged*. ``source_key`` names what the
    result is about, so a new result of the same key revises the old; ``producer`` is the
    module that computed it (the document's ``rk:loaderName``).
    """
    activity = computation.add_to(graph)
    if subject != activity:  # an evaluation *is* its activity
        graph.add((subject, PROV.wasGeneratedBy, activity))
    return Document(
        kind=kind,
        graph=graph,
        source_name=source_name,
        source_bytes=source,
        loader=producer,
        loader_version=__version__,
        source_key=source_key,
        subject=subject,
    )
