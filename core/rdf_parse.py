"""The one way RDF text becomes an rdflib graph: nothing outside the given bytes is resolved.

rdflib's parsers reach outside the text they are given: the JSON-LD parser fetches every
``@context`` (and ``@import``) IRI it meets, over HTTP or from ``file:`` paths, and expat
expands the entities of an RDF/XML DTD (a billion-laughs document is a few hundred bytes).
Every rdflib parse of the package goes through :func:`parse_rdf` (untrusted text: uploads,
the files of ``reprokg shacl``, a SPARQL endpoint's answers) or :func:`parse_package_file`
(the Turtle the package ships); tests/test_architecture.py fails on any other rdflib
``parse(`` call. Both run the same checks first:

* **JSON-LD**: every ``@context`` at any depth (the document's, a node's, a scoped context
  in a term definition) and every ``@import`` is resolved here, offline: the IRIs of
  :data:`BUNDLED_CONTEXTS` become the contexts shipped in ``core/contexts/``, any other
  IRI (remote, ``file:``, relative) is a :class:`LoadError` naming the file and the IRI,
  worded the same whatever the IRI points at (it is never opened). rdflib then sees a
  document with no reference left in it.
* **RDF/XML**: a ``<!DOCTYPE`` or ``<!ENTITY`` declaration is refused before any XML
  parser runs (:func:`xml_declaration`, the one definition the OpenML loader uses too).
* Turtle, TriG, N-Triples, N-Quads and N3 have nothing to fetch (no ``@include``;
  ``owl:imports`` is a triple like any other and is never followed anywhere).

pyoxigraph's parser (``ox.parse``, used for N-Quads/TriG dumps) fetches nothing: its
JSON-LD parser has no document loader unless one is given, which we never do.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib.resources.abc import Traversable
from typing import Any

from rdflib import Graph

from reprokg.core.errors import LoadError
from reprokg.core.lazy_graph import literals_as_written
from reprokg.core.resources import data_dir

#: the rdflib formats this module parses (TriX, HexT … are not offered)
FORMATS = frozenset({"turtle", "nt", "ntriples", "n3", "nquads", "trig", "json-ld", "xml"})

#: JSON-LD context IRIs resolved offline -> the file in ``core/contexts/`` (``None``: the
#: generated schema.org context below). RO-Crate's contexts are the ones the RO-Crate
#: specification publishes (Apache-2.0, core/contexts/LICENSE).
BUNDLED_CONTEXTS: dict[str, str | None] = {
    "https://w3id.org/ro/crate/1.1/context": "ro-crate-1.1.jsonld",
    "https://w3id.org/ro/crate/1.2/context": "ro-crate-1.2.jsonld",
    "https://schema.org/": None,
    "http://schema.org/": None,
    "https://schema.org": None,
    "http://schema.org": None,
}
#: schema.org's context reduced to what makes its terms IRIs: its ``@vocab`` and the
#: ``id``/``type`` aliases (the published one also types some terms as ``@id`` or dates;
#: it is not shipped: a term here becomes the same IRI, a value may stay a plain literal)
SCHEMA_ORG_CONTEXT: dict[str, str] = {
    "@vocab": "http://schema.org/",
    "schema": "http://schema.org/",
    "id": "@id",
    "type": "@type",
}

#: a DTD or entity declaration: how entity expansion bombs and external entities come in
DTD_DECLARATION = re.compile(r"<!(?:DOCTYPE|ENTITY)\b[^>\[]{0,60}", re.IGNORECASE)


def xml_declaration(text: str) -> tuple[str, int] | None:
    """The first DTD or entity declaration of an XML text (its start, its line), if any."""
    m = DTD_DECLARATION.search(text)
    if m is None:
        return None
    return " ".join(m.group(0).split()), text.count("\n", 0, m.start()) + 1


def parse_rdf(
    data: bytes | str,
    fmt: str,
    *,
    source: str,
    base: str | None = None,
    graph: Graph | None = None,
    as_written: bool = False,
) -> Graph:
    """``data`` (untrusted) parsed into ``graph`` (a new ``Graph`` if none) and returned.

    Anything the text refers to outside itself is refused, and any parser error, as a
    :class:`LoadError` naming ``source``. ``as_written`` keeps each literal's lexical form
    (:func:`parse_as_written`).
    """
    try:
        return _parse(data, fmt, source=source, base=base, graph=graph, as_written=as_written)
    except LoadError:
        raise
    except Exception as exc:  # noqa: BLE001 - every parser error, reported for the file
        raise LoadError(f"not readable as {fmt}: {exc}", source=source) from None


def parse_as_written(
    data: bytes | str, fmt: str, base: str | None = None, *, source: str = "<input>"
) -> Graph:
    """A graph parsed with every literal's lexical form kept as written.

    rdflib normalises literals when it parses (``"1"^^xsd:boolean`` becomes ``true``,
    ``"01"^^xsd:integer`` becomes ``1``), which changes what ``sh:in``, ``sh:hasValue``
    and the parameters of a SHACL shapes graph mean.
    """
    return parse_rdf(data, fmt, source=source, base=base, as_written=True)


def parse_package_file(
    f: Traversable, *, graph: Graph | None = None, fmt: str = "turtle", base: str | None = None
) -> Graph:
    """A file the package ships (ontology, shapes): trusted, so its errors are bugs and
    propagate as they are; it passes the same checks all the same."""
    return _parse(
        f.read_text(encoding="utf-8"), fmt, source=f.name, base=base, graph=graph, as_written=False
    )


def _parse(
    data: bytes | str,
    fmt: str,
    *,
    source: str,
    base: str | None,
    graph: Graph | None,
    as_written: bool,
) -> Graph:
    if fmt not in FORMATS:
        raise ValueError(f"unsupported RDF format {fmt!r}; expected one of {sorted(FORMATS)}")
    if fmt == "json-ld":
        data = _offline_jsonld(_text(data, source, "JSON-LD"), source)
    elif fmt == "xml":
        data = _text(data, source, "RDF/XML")
        found = xml_declaration(data)
        if found is not None:
            raise LoadError(
                f"the RDF/XML declares a DTD or entity ({found[0]}); DTDs and entities are "
                "refused (their expansion is unbounded and external entities are fetched)",
                source=source,
                line=found[1],
            )
    g = Graph() if graph is None else graph
    if as_written:
        with literals_as_written():
            g.parse(data=data, format=fmt, publicID=base)
    else:
        g.parse(data=data, format=fmt, publicID=base)
    return g


def _text(data: bytes | str, source: str, what: str) -> str:
    """The text of a JSON-LD or RDF/XML document: UTF-8 only, so that what is checked here
    is what the parser reads (no encoding declaration re-reads the bytes)."""
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise LoadError(
            f"{what} must be UTF-8: byte {exc.start} is not ({exc.reason})", source=source
        ) from None


@cache
def _bundled_text(iri: str) -> str:
    """The context object of a bundled IRI, as JSON text (parsed afresh for each use, so
    that no document shares, or changes, another's)."""
    name = BUNDLED_CONTEXTS[iri]
    if name is None:
        return json.dumps(SCHEMA_ORG_CONTEXT)
    doc = json.loads(data_dir("core").joinpath("contexts", name).read_text(encoding="utf-8"))
    return json.dumps(doc["@context"])


def _refused(iri: object, source: str, key: str) -> LoadError:
    """The same words whatever ``iri`` points at: it is never opened, and the message must
    not tell a file that exists from one that does not."""
    known = ", ".join(k for k in BUNDLED_CONTEXTS if not k.endswith("schema.org"))
    return LoadError(
        f"JSON-LD {key} {iri!r} is not resolved: reprokg fetches no context (remote or "
        f"file:); inline it, or use one of the contexts it ships: {known}",
        source=source,
        field=key,
    )


def _resolve(value: Any, source: str, key: str) -> tuple[Any, list[Any]]:
    """A ``@context`` value with every IRI replaced by its bundled context (or refused),
    and the inline context objects still to be walked (their scoped contexts)."""
    if value is None:
        return None, []
    if isinstance(value, str):
        if value not in BUNDLED_CONTEXTS:
            raise _refused(value, source, key)
        return json.loads(_bundled_text(value)), []
    if isinstance(value, list):
        out, todo = [], []
        for item in value:
            resolved, more = _resolve(item, source, key)
            out.append(resolved)
            todo.extend(more)
        return out, todo
    if isinstance(value, dict):
        if "@import" in value:
            imported = value["@import"]
            if not isinstance(imported, str) or imported not in BUNDLED_CONTEXTS:
                raise _refused(imported, source, "@import")
            rest = {k: v for k, v in value.items() if k != "@import"}
            merged = {**json.loads(_bundled_text(imported)), **rest}
            return merged, [merged]
        return value, [value]
    raise LoadError(
        f"a JSON-LD {key} is {type(value).__name__}; expected an object, IRI, array or null",
        source=source,
        field=key,
    )


def _offline_jsonld(text: str, source: str) -> str:
    """The document with every context resolved here (see the module's docstring)."""
    try:
        doc = json.loads(text)
    except RecursionError:
        raise LoadError("the JSON is nested too deeply", source=source) from None
    except json.JSONDecodeError as exc:
        raise LoadError(
            f"JSON syntax error: {exc.msg}", source=source, line=exc.lineno, column=exc.colno
        ) from None
    stack: list[Any] = [doc]
    while stack:  # iterative: a deep document is not a RecursionError here
        node = stack.pop()
        if isinstance(node, dict):
            children = [v for k, v in node.items() if k != "@context"]
            if "@context" in node:
                node["@context"], inline = _resolve(node["@context"], source, "@context")
                children.extend(inline)
            stack.extend(c for c in children if isinstance(c, dict | list))
        elif isinstance(node, list):
            stack.extend(c for c in node if isinstance(c, dict | list))
    return json.dumps(doc)
