"""What reprokg computed or holds, as an RO-Crate: a Process Run Crate (Workflow Run Crate
profiles, RO-Crate 1.1 or 1.2) that a repository, a journal or another tool can read.

:class:`CrateContent` says what goes in (the views of :mod:`reprokg.exchange.views` make it
from a stored result, a run or a passport); :func:`crate_files` lays it out:

* ``ro-crate-metadata.json``: the root data entity (``conformsTo`` the Process Run Crate
  profile), one ``CreateAction`` for the computation (``instrument`` reprokg, with the
  engines it used as ``softwareRequirements``; ``object`` its inputs, queries and
  parameters; ``result`` its outputs), one ``CreateAction`` per run with that run's PRIMAD
  (:func:`reprokg.loaders.rocrate.run_entities`), and one for the export itself (the
  SPARQL that read the graph, with the sha256 of its result);
* the outputs (``result.json``, CSV tables, charts), the inputs the store keeps (run files,
  qrels, source files), each with ``sha256`` and ``contentSize``;
* ``graph.jsonld`` and ``graph.nt`` (canonical, sorted N-Triples: the result hash is its
  sha256), and ``runs/<key>.ir_metadata.yml`` (each run's PRIMAD as ir_metadata).
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from reprokg import __version__
from reprokg.core.errors import UsageError
from reprokg.loaders.rocrate import (
    CONTEXTS,
    PROCESS_RUN_CRATE,
    SPECS,
    WFRUN_TERMS,
    run_entities,
)
from reprokg.loaders.rocrate import (
    REPROKG_TOOL as REPROKG_URL,
)

#: the licence of what reprokg writes into a crate unless told otherwise
DEFAULT_LICENSE = "https://spdx.org/licenses/CC-BY-4.0"
#: fixed time of every ZIP member, so the same crate is the same bytes
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


@dataclass
class CrateFile:
    """A file in the crate's payload."""

    path: str
    data: bytes
    name: str
    description: str = ""
    media: str = "application/octet-stream"
    #: the IRI of what the file describes or holds (a document, a run, a data set)
    about: str | None = None
    conforms_to: str | None = None


@dataclass
class CrateInput:
    """An input the crate names but does not hold (the store keeps no copy of it)."""

    iri: str
    name: str
    sha256: str | None = None
    description: str = ""


@dataclass
class CrateRun:
    """A run whose PRIMAD the crate records (one ``CreateAction``)."""

    key: str
    iri: str
    tree: dict[str, Any]
    files: list[CrateFile] = field(default_factory=list)


@dataclass
class Person:
    iri: str
    name: str


@dataclass
class CrateContent:
    """Everything a crate says about one thing reprokg holds."""

    kind: str
    subject: str
    title: str
    description: str
    #: when the thing was computed or stored (ISO 8601 with a zone)
    created: str
    outputs: list[CrateFile] = field(default_factory=list)
    inputs: list[CrateFile | CrateInput] = field(default_factory=list)
    runs: list[CrateRun] = field(default_factory=list)
    #: name -> version of the software that computed it (reprokg included)
    software: dict[str, str] = field(default_factory=dict)
    parameters: dict[str, str] = field(default_factory=dict)
    #: the SPARQL the computation read: name -> text
    queries: dict[str, str] = field(default_factory=dict)
    #: what computed it, in words (the computation's ``prov:Activity`` label)
    activity: str = ""
    #: the SPARQL this export ran, and its result (the graph the crate holds)
    export_query: str = ""
    graph_ntriples: bytes = b""
    graph_jsonld: bytes = b""
    authors: list[Person] = field(default_factory=list)
    license: str = DEFAULT_LICENSE
    #: DOIs (as https://doi.org/ IRIs) the thing is about or reproduces
    cites: list[str] = field(default_factory=list)
    #: assessments of it (verdicts of acceptance rules, reviews): their IRIs
    related: list[str] = field(default_factory=list)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _file_id(path: str) -> str:
    return quote(path, safe="/")


def _file_entity(f: CrateFile) -> dict[str, Any]:
    e: dict[str, Any] = {
        "@id": _file_id(f.path),
        "@type": "File",
        "name": f.name,
        "encodingFormat": f.media,
        "contentSize": str(len(f.data)),
        "sha256": sha256(f.data),
    }
    if f.description:
        e["description"] = f.description
    if f.about:
        e["about"] = {"@id": f.about}
    if f.conforms_to:
        e["conformsTo"] = {"@id": f.conforms_to}
    return e


def _date(created: str) -> str:
    """ISO 8601 with ``+00:00`` (the form the Process Run Crate shapes check for)."""
    text = created.replace("Z", "+00:00")
    return text if "T" in text else f"{text}T00:00:00+00:00"


def crate_metadata(content: CrateContent, version: str = "1.1") -> dict[str, Any]:
    """The ``ro-crate-metadata.json`` of ``content`` (RO-Crate ``version`` 1.1 or 1.2)."""
    if version not in CONTEXTS:
        raise UsageError(f"RO-Crate version {version!r}: expected one of {', '.join(CONTEXTS)}")
    when = _date(content.created)
    graph: list[dict[str, Any]] = []
    files: list[CrateFile] = [*content.outputs]
    files += [i for i in content.inputs if isinstance(i, CrateFile)]
    for run in content.runs:
        files += run.files
    query_file = CrateFile(
        "export/query.sparql",
        content.export_query.encode("utf-8"),
        "the SPARQL this crate's graph was read with",
        media="application/sparql-query",
    )
    graph_nt = CrateFile(
        "graph.nt",
        content.graph_ntriples,
        "the graph (canonical N-Triples, sorted)",
        "the result of export/query.sparql; its sha256 is the result hash",
        media="application/n-triples",
        about=content.subject,
    )
    graph_ld = CrateFile(
        "graph.jsonld",
        content.graph_jsonld,
        "the graph as JSON-LD",
        "the same triples as graph.nt",
        media="application/ld+json",
        about=content.subject,
    )
    query_files = [
        CrateFile(
            f"queries/{i}-{_slug(name)}.sparql",
            text.encode("utf-8"),
            name,
            "SPARQL the computation read",
            media="application/sparql-query",
        )
        for i, (name, text) in enumerate(sorted(content.queries.items()))
    ]
    files += [query_file, graph_nt, graph_ld, *query_files]
    root: dict[str, Any] = {
        "@id": "./",
        "@type": "Dataset",
        "name": content.title,
        "description": content.description,
        "datePublished": when,
        "license": {"@id": content.license},
        "conformsTo": {"@id": PROCESS_RUN_CRATE},
        "about": {"@id": content.subject},
        "hasPart": [{"@id": _file_id(f.path)} for f in files],
        "mentions": [{"@id": "#computation"}, {"@id": "#export"}]
        + [{"@id": f"#run-{r.key}"} for r in content.runs],
    }
    if content.authors:
        root["author"] = [{"@id": p.iri} for p in content.authors]
    if content.cites:
        root["citation"] = [{"@id": c} for c in content.cites]
    if content.related:
        root["subjectOf"] = [{"@id": a} for a in content.related]
    graph.append(
        {
            "@id": "ro-crate-metadata.json",
            "@type": "CreativeWork",
            "conformsTo": {"@id": SPECS[version]},
            "about": {"@id": "./"},
        }
    )
    graph.append(root)
    graph.append(
        {
            "@id": PROCESS_RUN_CRATE,
            "@type": "CreativeWork",
            "name": "Process Run Crate",
            "version": PROCESS_RUN_CRATE.rsplit("/", 1)[-1],
        }
    )
    graph.append({"@id": content.license, "@type": "CreativeWork", "name": content.license})
    graph.append({"@id": content.subject, "@type": "Thing", "name": content.title})
    for p in content.authors:
        graph.append({"@id": p.iri, "@type": "Person", "name": p.name})
    for c in content.cites:
        graph.append({"@id": c, "@type": "ScholarlyArticle", "identifier": c})
    for a in content.related:
        graph.append({"@id": a, "@type": "Review", "name": f"assessment {a.rsplit('/', 1)[-1]}"})
    # the software: reprokg, with the engines it used as requirements
    engines = {k: v for k, v in sorted(content.software.items()) if k != "reprokg"}
    reprokg: dict[str, str | list[dict[str, str]]] = {
        "@id": REPROKG_URL,
        "@type": "SoftwareApplication",
        "name": "reprokg",
        "url": REPROKG_URL,
        "softwareVersion": content.software.get("reprokg", __version__),
    }
    if engines:
        reprokg["softwareRequirements"] = [{"@id": _pypi(n, v)} for n, v in engines.items()]
    graph.append(reprokg)
    for name, ver in engines.items():
        graph.append(
            {
                "@id": _pypi(name, ver),
                "@type": "SoftwareApplication",
                "name": name,
                "url": f"https://pypi.org/project/{quote(name)}/",
                "softwareVersion": ver,
            }
        )
    # the computation
    objects: list[dict[str, str]] = []
    for i in content.inputs:
        if isinstance(i, CrateFile):
            objects.append({"@id": _file_id(i.path)})
        else:
            objects.append({"@id": i.iri})
            e: dict[str, Any] = {"@id": i.iri, "@type": "CreativeWork", "name": i.name}
            if i.sha256:
                e["sha256"] = i.sha256
            if i.description:
                e["description"] = i.description
            graph.append(e)
    objects += [{"@id": _file_id(q.path)} for q in query_files]
    for k, (pname, pvalue) in enumerate(sorted(content.parameters.items())):
        pid = f"#parameter-{k}"
        graph.append({"@id": pid, "@type": "PropertyValue", "name": pname, "value": pvalue})
        objects.append({"@id": pid})
    computation: dict[str, Any] = {
        "@id": "#computation",
        "@type": "CreateAction",
        "name": content.activity or f"{content.kind} (reprokg)",
        "description": f"{content.activity or content.kind}: {content.description}",
        "instrument": {"@id": REPROKG_URL},
        "endTime": when,
        "result": [{"@id": _file_id(f.path)} for f in content.outputs],
        "actionStatus": "http://schema.org/CompletedActionStatus",
    }
    if objects:
        computation["object"] = objects
    if content.authors:
        computation["agent"] = {"@id": content.authors[0].iri}
    graph.append(computation)
    graph.append(
        {
            "@id": "#export",
            "@type": "CreateAction",
            "name": "export (reprokg export crate)",
            "description": "the graph read from the store with export/query.sparql; graph.nt is "
            f"its result, sha256 {sha256(content.graph_ntriples)}",
            "instrument": {"@id": REPROKG_URL},
            "object": {"@id": _file_id(query_file.path)},
            "result": [{"@id": _file_id(graph_nt.path)}, {"@id": _file_id(graph_ld.path)}],
            "endTime": when,
        }
    )
    # the runs, each with its PRIMAD
    for run in content.runs:
        ents = run_entities(
            run.tree,
            f"#run-{run.key}",
            results=[_file_id(f.path) for f in run.files if f.about == run.iri],
            end_time=when,
        )
        ents.action["about"] = {"@id": run.iri}
        graph.append(ents.action)
        graph.extend(ents.entities)
    graph.extend(_file_entity(f) for f in files)
    if version != "1.1":
        graph = [_as_12(e, content.subject) for e in graph]
    context: list[Any] = [CONTEXTS[version], {**WFRUN_TERMS}]
    if version == "1.1":  # schema:sha256 is not in the 1.1 context
        context[1]["sha256"] = "http://schema.org/sha256"
    return {"@context": context, "@graph": _dedupe(graph)}


def _as_12(e: dict[str, Any], subject: str) -> dict[str, Any]:
    """What RO-Crate 1.2 asks more than 1.1: software with ``version`` and ``url``, the
    profiles the root conforms to typed ``Profile``."""
    types = e.get("@type")
    types = types if isinstance(types, list) else [types]
    if "SoftwareApplication" in types:
        e = dict(e)
        e["version"] = str(e.pop("softwareVersion", None) or e.get("version") or "not given")
        if "url" not in e:
            e["url"] = e["@id"] if e["@id"].startswith(("http://", "https://")) else subject
    if e["@id"] == PROCESS_RUN_CRATE:
        e = {**e, "@type": ["CreativeWork", "Profile"]}
    return e


def _dedupe(graph: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entity per ``@id`` (a person or a licence named twice is one entity)."""
    seen: dict[str, dict[str, Any]] = {}
    for e in graph:
        if e["@id"] in seen:
            for k, v in e.items():
                seen[e["@id"]].setdefault(k, v)
        else:
            seen[e["@id"]] = dict(e)
    return list(seen.values())


def _pypi(name: str, version: str) -> str:
    """The engine's release on PyPI (where reprokg's dependencies come from)."""
    if version and version != "unknown":
        return f"https://pypi.org/project/{quote(name)}/{quote(version)}/"
    return f"https://pypi.org/project/{quote(name)}/"


def _slug(text: str) -> str:
    out = "".join(c if c.isalnum() or c in "-_." else "-" for c in text.strip())
    return out.strip("-")[:80] or "x"


def crate_files(content: CrateContent, version: str = "1.1") -> dict[str, bytes]:
    """Every file of the crate, path -> bytes (the metadata file first)."""
    meta = crate_metadata(content, version)
    out = {
        "ro-crate-metadata.json": json.dumps(meta, indent=2, ensure_ascii=False).encode("utf-8")
        + b"\n"
    }
    for f in content.outputs:
        out[f.path] = f.data
    for i in content.inputs:
        if isinstance(i, CrateFile):
            out[i.path] = i.data
    for run in content.runs:
        for f in run.files:
            out[f.path] = f.data
    out["export/query.sparql"] = content.export_query.encode("utf-8")
    out["graph.nt"] = content.graph_ntriples
    out["graph.jsonld"] = content.graph_jsonld
    for n, (name, text) in enumerate(sorted(content.queries.items())):
        out[f"queries/{n}-{_slug(name)}.sparql"] = text.encode("utf-8")
    return out


def zip_bytes(files: dict[str, bytes]) -> bytes:
    """The files as a ZIP (the same files give the same bytes: sorted, fixed times)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(files, key=lambda p: (p != "ro-crate-metadata.json", p)):
            info = zipfile.ZipInfo(path, date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, files[path])
    return buf.getvalue()


def write_files(files: dict[str, bytes], target: str | Path) -> Path:
    """Into a new or empty folder, or a ``.zip`` file (never over a non-empty folder)."""
    target = Path(target)
    if target.suffix.lower() == ".zip":
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(zip_bytes(files))
        return target
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise UsageError(f"{target} exists and is not an empty folder; give a new folder or .zip")
    for path, data in files.items():
        out = target / path
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
    return target


def write_crate(content: CrateContent, target: str | Path, version: str = "1.1") -> Path:
    return write_files(crate_files(content, version), target)
