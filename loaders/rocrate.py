"""RO-Crates (Process and Workflow Run Crates) -> one ``run`` document per recorded execution.

A crate is read from its ``ro-crate-metadata.json`` (the file alone, a crate folder's, or
the one in a ZIP of the crate). Every ``CreateAction``/``ActivateAction``/``UpdateAction``
becomes a run with PRIMAD (docs/exchange.md):

* **Platform** from the action's ``environment`` (workflow-run terms) and ``containerImage``,
* **Implementation** from its ``instrument`` (``SoftwareApplication``, ``SoftwareSourceCode``,
  ``ComputationalWorkflow``): name, version, code repository, programming language,
* **Method** from the ``PropertyValue`` parameters it consumed (``object``),
* **Actor** from its ``agent`` (a ``Person`` with an ORCID is that ORCID),
* **Data** from the files, data sets and collections it consumed.

Crates written by reprokg (:mod:`reprokg.exchange.crate`) also carry every PRIMAD field as
a ``PropertyValue`` whose ``propertyID`` is :data:`PRIMAD_PROPERTY` plus the field's JSON
pointer (``…#/platform/hardware/cpu/model``); where those are present they are the
component, so a crate written from a run reads back as the same run (the round trip of
``tests/exchange``). This module holds both directions of that mapping.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote, unquote

from rdflib import Literal
from rdflib.namespace import PROV, RDF, RDFS, XSD

from reprokg.core.document import Document, Message
from reprokg.core.errors import LoadError
from reprokg.core.hashing import content_hash, stable_key
from reprokg.core.identifiers import mint
from reprokg.core.namespaces import SCHEMA
from reprokg.loaders.ir_metadata.tree import COMPONENTS, flatten, run_document, unflatten
from reprokg.loaders.reading.archive import is_zip, read_zip
from reprokg.loaders.reading.contract import LoaderInfo
from reprokg.loaders.reading.source import decode_text, leaves, parse_json, read_bytes

INFO = LoaderInfo(
    kind="rocrate",
    name="reprokg.loaders.rocrate",
    version="1",
    formats=("rocrate",),
    reads="an RO-Crate (folder, ZIP or metadata file)",
)

METADATA_NAMES = ("ro-crate-metadata.json", "ro-crate-metadata.jsonld")
CONTEXTS = {
    "1.1": "https://w3id.org/ro/crate/1.1/context",
    "1.2": "https://w3id.org/ro/crate/1.2/context",
}
SPECS = {"1.1": "https://w3id.org/ro/crate/1.1", "1.2": "https://w3id.org/ro/crate/1.2"}
PROCESS_RUN_CRATE = "https://w3id.org/ro/wfrun/process/0.5"
WFRUN = "https://w3id.org/ro/terms/workflow-run#"
#: the workflow-run terms reprokg writes, declared inline (no second remote context)
WFRUN_TERMS = {
    "environment": {"@id": f"{WFRUN}environment", "@type": "@id"},
    "containerImage": {"@id": f"{WFRUN}containerImage", "@type": "@id"},
}
#: the ``propertyID`` of a PRIMAD field: this prefix plus its JSON pointer (RFC 6901,
#: percent-encoded as a URI fragment)
PRIMAD_PROPERTY = "https://www.ir-metadata.org/#"
ACTION_TYPES = ("CreateAction", "ActivateAction", "UpdateAction")
#: the ``instrument`` of the actions reprokg records about itself (a computation, an
#: export): not experiment runs, so never imported as runs
REPROKG_TOOL = "https://w3id.org/reprokg"
#: the ``additionalType`` of a run action reprokg wrote: its PropertyValues are its PRIMAD,
#: all of it (none at all: a run whose metadata describes nothing)
RUN_TYPE = "https://w3id.org/reprokg/ontology#Run"
TOOL_TYPES = ("SoftwareApplication", "SoftwareSourceCode", "ComputationalWorkflow")
DATA_TYPES = ("File", "Dataset", "Collection", "CreativeWork", "MediaObject")
_HTTP = re.compile(r"^https?://\S+$", re.IGNORECASE)
_ORCID = re.compile(r"^https?://orcid\.org/(\d{4}-\d{4}-\d{4}-\d{3}[\dX])$")


# --------------------------------------------------------------------------- reading a crate


def _types(entity: dict[str, Any]) -> list[str]:
    t = entity.get("@type", [])
    return [str(x) for x in (t if isinstance(t, list) else [t])]


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _text(value: Any) -> str | None:
    """A property's text: a string, a number, or a ``{"@value": …}``; else ``None``."""
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):
        value = value.get("@value")
    if value is None or isinstance(value, dict | list):
        return None
    return str(value)


@dataclass
class Crate:
    """A crate's metadata: its entities by ``@id``, the root data entity, its checksum."""

    name: str
    entities: dict[str, dict[str, Any]]
    root: dict[str, Any]
    sha256: str
    version: str | None = None

    @classmethod
    def read(cls, data: bytes, name: str) -> Crate:
        """From ``ro-crate-metadata.json`` bytes or a ZIP of the crate."""
        if is_zip(data):
            members = read_zip(data, name, lambda m: PurePosixPath(m).name in METADATA_NAMES)
            top = sorted(members, key=lambda m: (m.count("/"), m))
            if not top or top[0].count("/") > 1:
                raise LoadError(
                    "no ro-crate-metadata.json at the top of the archive (or in one folder "
                    "there); expected an RO-Crate",
                    source=name,
                )
            return cls.parse(members[top[0]], f"{name}!{top[0]}")
        return cls.parse(data, name)

    @classmethod
    def parse(cls, data: bytes, name: str) -> Crate:
        doc = parse_json(decode_text(data, name), name)
        if not isinstance(doc, dict) or not isinstance(doc.get("@graph"), list):
            raise LoadError(
                "expected a JSON-LD object with an @graph list (RO-Crate metadata)",
                source=name,
                field="@graph",
            )
        entities: dict[str, dict[str, Any]] = {}
        for i, e in enumerate(doc["@graph"]):
            if not isinstance(e, dict) or not isinstance(e.get("@id"), str):
                raise LoadError(
                    f"entity {i} of @graph has no @id; every RO-Crate entity is an object "
                    "with an @id",
                    source=name,
                    field=f"@graph[{i}]",
                )
            entities.setdefault(e["@id"], {}).update(e)
        descriptor = next(
            (entities[m] for m in METADATA_NAMES if m in entities),
            None,
        )
        about = _ref_id((descriptor or {}).get("about"))
        if descriptor is None or about is None or about not in entities:
            raise LoadError(
                "no metadata descriptor (the ro-crate-metadata.json entity) whose 'about' "
                "names the root data entity",
                source=name,
                field="ro-crate-metadata.json",
            )
        version = None
        for ref in _as_list(descriptor.get("conformsTo")):
            rid = _ref_id(ref) or ""
            for v, spec in SPECS.items():
                if rid.startswith(spec):
                    version = v
        return cls(name, entities, entities[about], content_hash(data), version)

    def get(self, ref: Any) -> dict[str, Any] | None:
        rid = _ref_id(ref)
        return self.entities.get(rid) if rid is not None else None

    def refs(self, entity: dict[str, Any], prop: str) -> list[dict[str, Any]]:
        """The entities a property names (an ``@id`` no entity describes: ``{"@id": …}``)."""
        out = []
        for ref in _as_list(entity.get(prop)):
            rid = _ref_id(ref)
            if rid is not None:
                out.append(self.entities.get(rid, {"@id": rid}))
        return out

    def actions(self) -> list[dict[str, Any]]:
        """The recorded executions, those the root ``mentions`` first, then the rest
        (reprokg's own computations and exports are not runs: left out)."""
        mentioned = [_ref_id(r) for r in _as_list(self.root.get("mentions"))]
        ids = [m for m in mentioned if m in self.entities]
        ids += sorted(i for i in self.entities if i not in ids)
        return [
            self.entities[i]
            for i in ids
            if any(t in ACTION_TYPES for t in _types(self.entities[i]))
            and REPROKG_TOOL
            not in {_ref_id(r) for r in _as_list(self.entities[i].get("instrument"))}
        ]


def _ref_id(ref: Any) -> str | None:
    if isinstance(ref, dict):
        rid = ref.get("@id")
        return rid if isinstance(rid, str) else None
    return None


# --------------------------------------------------------------------------- crate -> PRIMAD


def _is_primad(entity: dict[str, Any]) -> bool:
    pid = _text(entity.get("propertyID"))
    return bool(pid and pid.startswith(PRIMAD_PROPERTY))


def primad_pairs(crate: Crate, action: dict[str, Any]) -> list[tuple[str, Any]]:
    """The PRIMAD fields the action carries as PropertyValues (reprokg's own crates)."""
    pairs = []
    for prop in ("environment", "object"):
        for pv in crate.refs(action, prop):
            pid = _text(pv.get("propertyID"))
            if pid and pid.startswith(PRIMAD_PROPERTY) and "PropertyValue" in _types(pv):
                value = pv.get("value")
                if isinstance(value, dict):
                    value = value.get("@value")
                if value is not None and not isinstance(value, list | dict):
                    pairs.append((unquote(pid[len(PRIMAD_PROPERTY) :]), value))
    return pairs


def _software(crate: Crate, tool: dict[str, Any]) -> dict[str, Any]:
    impl: dict[str, Any] = {}
    source: dict[str, Any] = {}
    repo = _text(tool.get("codeRepository")) or _text(tool.get("url"))
    if repo is None and _HTTP.match(tool["@id"]):
        repo = tool["@id"]
    if repo is not None and _HTTP.match(repo):
        source["repository"] = repo
    langs = []
    for lang in _as_list(tool.get("programmingLanguage")):
        ent = crate.get(lang) if isinstance(lang, dict) else None
        text = _text(ent.get("name")) if ent else _text(lang)
        if text:
            langs.append(text)
    if langs:
        source["lang"] = langs
    if source:
        impl["source"] = source
    for key, prop in (("name", "name"), ("version", "softwareVersion"), ("version", "version")):
        text = _text(tool.get(prop))
        if text is not None and key not in impl:
            impl[key] = text
    kinds = [t for t in _types(tool) if t in TOOL_TYPES or t == "File"]
    if kinds:
        impl["type"] = kinds
    return impl


def natural_tree(crate: Crate, action: dict[str, Any]) -> dict[str, Any]:
    """PRIMAD from the crate's own terms (any Process or Workflow Run Crate)."""
    tree: dict[str, Any] = {}
    env = {}
    for pv in crate.refs(action, "environment"):
        if _is_primad(pv):
            continue
        name, value = _text(pv.get("name")), _text(pv.get("value"))
        if name is not None and value is not None:
            env[name] = value
    platform: dict[str, Any] = {}
    if env:
        platform["environment"] = env
    images = []
    for img in _as_list(action.get("containerImage")):
        ent = crate.get(img) if isinstance(img, dict) else None
        if ent is None:
            text = _text(img) or _ref_id(img)
            if text:
                images.append(text)
            continue
        parts = [_text(ent.get(k)) for k in ("registry", "name", "tag")]
        label = "/".join(p for p in parts[:2] if p) + (f":{parts[2]}" if parts[2] else "")
        sha = _text(ent.get("sha256"))
        images.append(label + (f"@sha256:{sha}" if sha else "") or ent["@id"])
    if images:
        platform["container image"] = images
    if platform:
        tree["platform"] = platform
    tools = crate.refs(action, "instrument")
    if tools:
        tree["implementation"] = _software(crate, tools[0])
    params: dict[str, Any] = {}
    other: list[dict[str, Any]] = []
    for obj in crate.refs(action, "object"):
        types = _types(obj)
        if _is_primad(obj):
            continue
        if "PropertyValue" in types:
            name = _text(obj.get("name"))
            value = obj.get("value")
            if isinstance(value, dict):
                value = value.get("@value")
            if name is not None and value is not None and not isinstance(value, list | dict):
                params[name] = value
        elif any(t in DATA_TYPES for t in types) or not types:
            item: dict[str, Any] = {"name": _text(obj.get("name")) or obj["@id"]}
            url = _text(obj.get("url")) or obj["@id"]
            if _HTTP.match(url):
                item["source"] = url
            other.append(item)
    if params:
        tree["method"] = {"parameters": params}
    agents = crate.refs(action, "agent")
    if agents:
        agent = agents[0]
        actor: dict[str, Any] = {}
        if _text(agent.get("name")):
            actor["name"] = _text(agent.get("name"))
        m = _ORCID.match(agent["@id"])
        if m:
            actor["orcid"] = m.group(1)
        if "Organization" in _types(agent):
            actor["team"] = actor.pop("name", agent["@id"])
        if actor:
            tree["actor"] = actor
    if other:
        tree["data"] = {"other": other}
    dois = [
        _ref_id(c) or _text(c)
        for c in _as_list(action.get("citation")) + _as_list(crate.root.get("citation"))
    ]
    dois = [d for d in dois if d and "doi.org/10." in d]
    if dois:
        tree["research goal"] = {"publication": {"doi": dois[0]}}
    return tree


def action_tree(crate: Crate, action: dict[str, Any]) -> dict[str, Any]:
    """The run's PRIMAD: reprokg's PropertyValues per component where present, the crate's
    own terms for the rest; the action's name is the run's tag."""
    source = f"{crate.name}#{action['@id'].lstrip('#')}"
    pairs = primad_pairs(crate, action)
    given = unflatten(pairs, source=source)
    # a crate reprokg wrote says all there is in its PropertyValues: a component it leaves
    # out was not described, and the entities that repeat the others add nothing
    ours = RUN_TYPE in {_ref_id(t) or _text(t) for t in _as_list(action.get("additionalType"))}
    natural = natural_tree(crate, action) if not (pairs or ours) else {}
    tree: dict[str, Any] = {}
    for key in ("schema-version", "run-version", "tag"):
        if key in given:
            tree[key] = given[key]
    tree.setdefault("tag", _text(action.get("name")) or action["@id"])
    for comp in COMPONENTS:
        if comp in given:
            tree[comp] = given[comp]
        elif comp in natural:
            tree[comp] = natural[comp]
    return tree


# --------------------------------------------------------------------------- PRIMAD -> crate


def _pointer_name(pointer: str) -> str:
    """``/platform/hardware/cpu/model`` -> ``platform.hardware.cpu.model`` (for people)."""
    return ".".join(
        t.replace("~1", "/").replace("~0", "~") if not t.isdigit() else f"[{t}]"
        for t in pointer[1:].split("/")
    ).replace(".[", "[")


@dataclass
class RunEntities:
    """The entities one run adds to a crate: its action, and what the action names."""

    action: dict[str, Any]
    entities: list[dict[str, Any]] = field(default_factory=list)


def run_entities(
    tree: dict[str, Any],
    action_id: str,
    *,
    results: Sequence[str] = (),
    end_time: str | None = None,
    description: str | None = None,
) -> RunEntities:
    """A run's PRIMAD as a ``CreateAction``: every field a PropertyValue (platform in
    ``environment``, the rest in ``object``), and the crate's own terms for what they say
    (``instrument``, ``agent``, the data it consumed) for any other reader."""
    tag = str(tree.get("tag") or action_id.lstrip("#"))
    action: dict[str, Any] = {
        "@id": action_id,
        "@type": "CreateAction",
        "additionalType": {"@id": RUN_TYPE},
        "name": tag,
        "description": description or f"run {tag}, as its PRIMAD metadata describes it",
    }
    out = RunEntities(action)
    env: list[dict[str, Any]] = []
    obj: list[dict[str, Any]] = []
    for i, (pointer, value) in enumerate(flatten(tree)):
        pv = {
            "@id": f"{action_id}-pv-{i}",
            "@type": "PropertyValue",
            "name": _pointer_name(pointer),
            "propertyID": PRIMAD_PROPERTY + quote(pointer, safe="/~"),
            "value": value,
        }
        out.entities.append(pv)
        (env if pointer.startswith("/platform/") else obj).append({"@id": pv["@id"]})
    impl = tree.get("implementation") or {}
    source = impl.get("source") or {} if isinstance(impl, dict) else {}
    tool: dict[str, Any] = {
        "@id": f"{action_id}-implementation",
        "@type": "SoftwareApplication",
        "name": str(impl.get("name") or f"implementation of {tag}")
        if isinstance(impl, dict)
        else f"implementation of {tag}",
    }
    if isinstance(source, dict):
        if isinstance(source.get("repository"), str) and _HTTP.match(source["repository"]):
            tool["codeRepository"] = source["repository"]
            tool["url"] = source["repository"]
        if source.get("commit") is not None:
            tool["softwareVersion"] = str(source["commit"])
    out.entities.append(tool)
    action["instrument"] = {"@id": tool["@id"]}
    actor = tree.get("actor")
    if isinstance(actor, dict) and (actor.get("name") or actor.get("orcid")):
        orcid = str(actor.get("orcid") or "")
        m = re.search(r"(\d{4}-\d{4}-\d{4}-\d{3}[\dX])$", orcid)
        pid = f"https://orcid.org/{m.group(1)}" if m else f"{action_id}-actor"
        person = {"@id": pid, "@type": "Person", "name": str(actor.get("name") or pid)}
        out.entities.append(person)
        action["agent"] = {"@id": pid}
    data = tree.get("data")
    if isinstance(data, dict):
        items = []
        if isinstance(data.get("test collection"), dict):
            items.append(data["test collection"])
        for key in ("training data", "other"):
            items += [d for d in _as_list(data.get(key)) if isinstance(d, dict)]
        for j, item in enumerate(items):
            ent = {
                "@id": f"{action_id}-data-{j}",
                "@type": "CreativeWork",
                "name": str(item.get("name") or item.get("ir_datasets") or f"data {j}"),
            }
            if isinstance(item.get("source"), str) and _HTTP.match(item["source"]):
                ent["url"] = item["source"]
            out.entities.append(ent)
            obj.append({"@id": ent["@id"]})
    if env:
        action["environment"] = env
    if obj:
        action["object"] = obj
    if results:
        action["result"] = [{"@id": r} for r in results]
    if end_time:
        action["endTime"] = end_time
    return out


# --------------------------------------------------------------------------- the loader


def sniff(name: str, head: str) -> bool:
    """A crate's metadata file: by its name, or an RO-Crate context in a JSON-LD head."""
    if PurePosixPath(name).name in METADATA_NAMES:
        return True
    return name.endswith((".json", ".jsonld")) and "w3id.org/ro/crate/" in head and "@graph" in head


def _record(crate: Crate, action: dict[str, Any], tree: dict[str, Any]) -> bytes:
    return json.dumps(
        {"format": "ro-crate", "crate": crate.sha256, "action": action["@id"], "primad": tree},
        sort_keys=True,
        ensure_ascii=False,
    ).encode("utf-8")


def load(data: bytes, name: str) -> list[Document]:
    crate = Crate.read(data, name)
    actions = crate.actions()
    if not actions:
        raise LoadError(
            "the crate records no execution (no CreateAction, ActivateAction or "
            "UpdateAction); expected a Process or Workflow Run Crate",
            source=crate.name,
        )
    crate_key = _text(crate.root.get("identifier")) or _text(crate.root.get("name")) or name
    docs = []
    for action in actions:
        tree = action_tree(crate, action)
        aid = action["@id"]
        label = f"{crate.name}{'' if aid.startswith('#') else '#'}{aid}"
        doc = run_document(
            tree,
            name=label,
            record=_record(crate, action, tree),
            source_key=f"rocrate:{crate_key}:{action['@id']}",
            producer=INFO,
        )
        node = mint("crate-action", stable_key(crate.sha256, action["@id"]))
        g, root = doc.graph, doc.subject
        assert root is not None  # run_document always names the run
        g.add((root, PROV.hadPrimarySource, node))
        g.add((node, RDF.type, PROV.Entity))
        g.add((node, SCHEMA.identifier, Literal(action["@id"])))
        g.add((node, RDFS.label, Literal(f"{'/'.join(_types(action))} {action['@id']} in {name}")))
        for prop, pred in (("startTime", PROV.startedAtTime), ("endTime", PROV.endedAtTime)):
            when = _text(action.get(prop))
            if when and re.match(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}", when):
                g.add((root, pred, Literal(when, datatype=XSD.dateTime)))
        if not primad_pairs(crate, action):
            doc.messages.append(
                Message(
                    "Info",
                    "ro-crate",
                    f"{action['@id']}: PRIMAD read from the crate's own terms (environment, "
                    "instrument, object, agent)",
                    focus_node=str(doc.subject),
                )
            )
        docs.append(doc)
    return docs


def load_folder(path: Path, skipped: list[LoadError] | None = None) -> list[Document]:
    """A crate folder: its ``ro-crate-metadata.json`` (the data files are not read); a
    metadata file that is a symbolic link out of the folder is refused."""
    meta = next((path / n for n in METADATA_NAMES if (path / n).is_file()), None)
    if meta is None:
        raise LoadError(
            "the folder has no ro-crate-metadata.json; expected an RO-Crate folder",
            source=str(path),
        )
    if (out := leaves(path, meta)) is not None:
        raise out
    data, _ = read_bytes(meta)
    return load(data, str(meta))


__all__ = [
    "INFO",
    "PRIMAD_PROPERTY",
    "PROCESS_RUN_CRATE",
    "Crate",
    "action_tree",
    "load",
    "load_folder",
    "run_entities",
    "sniff",
]
