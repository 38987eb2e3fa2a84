"""RDF -> ir_metadata YAML: the inverse of :mod:`reprokg.loaders.ir_metadata`.

The walk follows the loader's :data:`~reprokg.loaders.ir_metadata.SCHEMA_SPEC`, so every
field the loader knows comes back under its canonical spelling (``reported measures``,
``test collection``, ``training data``, ``implementation.source.*``, retrieval
parameters inline in their stage), and unknown keys kept under ``rkx:`` come back
under their own names. Values keep their text; numbers and booleans come back as
YAML numbers and booleans, everything else as strings (quoted where YAML would
otherwise change their type, e.g. a commit ``1234567``).

Order: sequences of mappings (stages, significance tests, training data, libraries)
keep their order through ``rk:position``; sequences of plain values (``lang``,
``fields``, ``reported measures``, ``baseline``, ``interpolates``) are RDF
multi-valued properties (a set, for querying) plus one ``rk:sequenceOrder`` JSON
literal with the written order, used when it still matches the values (otherwise
they come back sorted). Order matters to repro_eval: it compares components as
Python dicts, so a reordered ``fields`` list would count as a changed Actor.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any
from urllib.parse import unquote

import yaml
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF, XSD
from rdflib.term import Node

from reprokg.core.namespaces import RK, RKX, SCHEMA
from reprokg.loaders.ir_metadata.spec import SCHEMA_SPEC, F


def _value(lit: Any) -> Any:
    """A literal as the YAML value it was read from."""
    if not isinstance(lit, Literal):
        return str(lit)
    dt = lit.datatype
    if dt == XSD.boolean:
        return bool(lit.toPython())
    if dt in (XSD.integer, XSD.int, XSD.long):
        try:
            return int(str(lit))
        except ValueError:
            return str(lit)
    if dt in (XSD.decimal, XSD.double, XSD.float):
        try:
            return float(Decimal(str(lit))) if dt == XSD.decimal else float(str(lit))
        except (ArithmeticError, ValueError):
            return str(lit)
    if dt == RDF.JSON:
        return json.loads(str(lit))
    return str(lit)


def _by_position(g: Graph, s: Node, p: URIRef | None) -> list[Node]:
    nodes = list(g.objects(s, p))

    def pos(n: Any) -> tuple[int, str]:
        v = g.value(n, RK.position)
        return (int(v) if v is not None else 1 << 30, str(n))

    return sorted(nodes, key=pos)


def _extensions(g: Graph, s: Node, out: dict[str, Any]) -> None:
    for p, o in sorted(g.predicate_objects(s), key=lambda po: (str(po[0]), str(po[1]))):
        if isinstance(p, URIRef) and str(p).startswith(str(RKX)):
            out[unquote(str(p)[len(str(RKX)) :])] = _value(o)


def _mapping(g: Graph, s: Node, spec: dict[str, F]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, f in spec.items():
        v = _field(g, s, f)
        if v is not None and v != [] and v != {}:
            out[key] = v
    _extensions(g, s, out)
    return out


def _field(g: Graph, s: Node, f: F) -> Any:
    k = f.kind
    if k in ("str", "int", "bool", "num", "uri", "repository", "doi"):
        o = g.value(s, f.pred)
        return None if o is None else _value(o)
    if k == "strlist":
        values = sorted(str(o) for o in g.objects(s, f.pred))
        for o in g.objects(s, RK.sequenceOrder):
            try:
                order = json.loads(str(o))
            except ValueError:
                continue
            if order.get("property") == str(f.pred) and sorted(set(order["items"])) == values:
                return list(order["items"])
        return values
    if k in ("map", "publication", "actor"):
        n = g.value(s, f.pred)
        if n is None:
            return None
        if k == "publication":
            spec = dict(f.spec or {})
            spec["doi"] = F("str", RK.doiAsWritten)
            return _mapping(g, n, spec)
        if k == "actor":
            return _actor(g, n, f)
        return _mapping(g, n, f.spec or {})
    if k == "maplist":
        return [_mapping(g, n, f.spec or {}) for n in _by_position(g, s, f.pred)]
    if k == "libraries":
        return _libraries(g, s, f)
    if k == "toolkits":
        return [_package(g, n) for n in _by_position(g, s, f.pred)]
    if k == "stages":
        return [_stage(g, n, f) for n in _by_position(g, s, f.pred)]
    if k == "params":
        params = [(str(g.value(n, RK.parameterName)), n) for n in g.objects(s, f.pred)]
        return {name: _value(g.value(n, RK.parameterValue)) for name, n in sorted(params)}
    raise AssertionError(k)  # pragma: no cover


def _package(g: Graph, n: Any) -> str:
    written = g.value(n, RK.packageAsWritten)
    if written is not None:
        return str(written)
    name, version = g.value(n, SCHEMA.name), g.value(n, RK.packageVersion)
    return f"{name}=={version}" if version is not None else str(name)


def _libraries(g: Graph, s: Node, f: F) -> Any:
    nodes = _by_position(g, s, f.pred)
    langs = [g.value(n, RK.packageLanguage) for n in nodes]
    if all(lang is None for lang in langs):
        return [_package(g, n) for n in nodes]
    out: dict[str, list[str]] = {}
    for n, lang in zip(nodes, langs, strict=True):
        out.setdefault(str(lang) if lang is not None else "other", []).append(_package(g, n))
    return out


def _stage(g: Graph, n: Any, f: F) -> dict[str, Any]:
    out = _mapping(g, n, {k: v for k, v in (f.spec or {}).items() if k in ("name", "method")})
    params = sorted(g.objects(n, RK.parameterSetting), key=str)
    for p in params:
        out[str(g.value(p, RK.parameterName))] = _value(g.value(p, RK.parameterValue))
    rest = _mapping(g, n, {k: v for k, v in (f.spec or {}).items() if k not in ("name", "method")})
    for k, v in rest.items():
        out.setdefault(k, v)
    return out


def _actor(g: Graph, n: Any, f: F) -> dict[str, Any]:
    out: dict[str, Any] = {}
    person = g.value(n, RK.person)
    if person is not None:
        name = g.value(person, SCHEMA.name)
        orcid = g.value(person, RK.orcidAsWritten)
        if name is not None:
            out["name"] = str(name)
        if orcid is not None:
            out["orcid"] = str(orcid)
    spec = {k: v for k, v in (f.spec or {}).items() if v.kind != "person"}
    out.update(_mapping(g, n, spec))
    return out


def graph_to_dict(graph: Graph, run_iri: URIRef | str) -> dict[str, Any]:
    """The run's metadata as a plain structure under canonical ir_metadata keys."""
    run = URIRef(str(run_iri))
    if (run, RDF.type, RK.Run) not in graph:
        raise KeyError(f"{run} is not an rk:Run in this graph")
    return _mapping(graph, run, SCHEMA_SPEC)


class _Dumper(yaml.SafeDumper):
    """Block style, long lines kept, sequences indented as repro_eval writes them."""


def dump_yaml(data: dict[str, Any]) -> str:
    return yaml.dump(
        data,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=4096,
    )


def graph_to_yaml(graph: Graph, run_iri: URIRef | str) -> str:
    """ir_metadata YAML for one run of ``graph`` (a document graph or the union graph)."""
    return dump_yaml(graph_to_dict(graph, run_iri))
