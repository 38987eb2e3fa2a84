"""OpenML run descriptions (the XML or JSON OpenML's API returns for a run) -> ``run`` documents.

A description names the flow (the implementation), the setup with its parameter settings,
the task and its data set, the uploader, and the run's evaluations (overall, per repeat and
fold). Each becomes PRIMAD (docs/exchange.md):

* **Platform**: what the runner reported of the machine (the ``os_information``
  evaluation: JVM vendor and version, architecture, OS and kernel, as written);
* **Implementation**: the flow (name, ``https://www.openml.org/f/<id>``) and the setup
  string that ran it (``implementation.executable.cmd``);
* **Method**: the parameter settings (``method.parameters``; a setting of a sub-flow is
  named ``<component>:<name>``), the setup id;
* **Actor**: the uploader (name, ``https://www.openml.org/u/<id>``);
* **Data**: the task as the test collection (``https://www.openml.org/t/<id>``, its type) and
  its data set as training data (name, download URL).

Every overall evaluation is a reported score (``rk:reportedScore``); its per-fold values and
its per-class ``array_data`` are kept with it as ``rdf:JSON``. XML with a DTD is refused
(OpenML's descriptions have none; a DTD is how entity bombs come in).
"""

from __future__ import annotations

import json
from typing import Any
from xml.etree import ElementTree as ET

from rdflib import Literal
from rdflib.namespace import RDF, RDFS, XSD

from reprokg.core.document import Document
from reprokg.core.errors import LoadError
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import mint
from reprokg.core.namespaces import MLS, RK, SCHEMA
from reprokg.core.rdf_parse import xml_declaration
from reprokg.loaders.ir_metadata.tree import run_document
from reprokg.loaders.reading.contract import LoaderInfo
from reprokg.loaders.reading.source import decode_text, not_a_scalar, parse_json, scalar_text

INFO = LoaderInfo(
    kind="openml",
    name="reprokg.loaders.openml",
    version="1",
    formats=("openml",),
    reads="OpenML run descriptions (XML or JSON, a file or a folder of them)",
)
OML = "http://openml.org/openml"
SITE = "https://www.openml.org"


def sniff(name: str, head: str) -> bool:
    """``<oml:run`` (XML) or a JSON object ``{"run": {"run_id": …, "flow_id": …}}``."""
    if "<oml:run" in head and OML in head:
        return True
    return name.endswith(".json") and '"run"' in head and '"flow_id"' in head


def _text(e: ET.Element | None) -> str | None:
    if e is None or e.text is None:
        return None
    return e.text.strip()


def _from_xml(text: str, name: str) -> dict[str, Any]:
    found = xml_declaration(text)
    if found is not None:
        raise LoadError(
            f"the XML declares a DTD or entities ({found[0]}); OpenML run descriptions have none",
            source=name,
            line=found[1],
        )
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        line, col = exc.position
        raise LoadError(f"XML syntax error: {exc}", source=name, line=line, column=col) from None
    if root.tag != f"{{{OML}}}run":
        raise LoadError(
            f"the root element is {root.tag!r}; expected oml:run (an OpenML run description)",
            source=name,
            line=1,
        )
    ns = {"oml": OML}

    def one(path: str) -> str | None:
        return _text(root.find(f"oml:{path}", ns))

    run: dict[str, Any] = {
        k: one(k)
        for k in (
            "run_id",
            "uploader",
            "uploader_name",
            "task_id",
            "task_type",
            "flow_id",
            "flow_name",
            "setup_id",
            "setup_string",
            "error",
        )
    }
    run["parameter_setting"] = [
        {
            "name": _text(p.find("oml:name", ns)),
            "value": _text(p.find("oml:value", ns)),
            "component": _text(p.find("oml:component", ns)),
        }
        for p in root.findall("oml:parameter_setting", ns)
    ]
    run["datasets"] = [
        {
            "did": _text(d.find("oml:did", ns)),
            "name": _text(d.find("oml:name", ns)),
            "url": _text(d.find("oml:url", ns)),
        }
        for d in root.findall("oml:input_data/oml:dataset", ns)
    ]
    evaluations = []
    for e in root.findall("oml:output_data/oml:evaluation", ns):
        evaluations.append(
            {
                "name": _text(e.find("oml:name", ns)),
                "value": _text(e.find("oml:value", ns)),
                "array_data": _text(e.find("oml:array_data", ns)),
                "repeat": e.get("repeat"),
                "fold": e.get("fold"),
                "sample": e.get("sample"),
            }
        )
    run["evaluations"] = evaluations
    return run


def _from_json(doc: Any, name: str) -> dict[str, Any]:
    run = doc.get("run") if isinstance(doc, dict) else None
    if not isinstance(run, dict):
        raise LoadError('expected {"run": {…}} (an OpenML run description)', source=name)

    def listed(value: Any) -> list[Any]:
        return value if isinstance(value, list) else [] if value is None else [value]

    def fields(item: dict[str, Any], keys: tuple[str, ...], at: str) -> dict[str, Any]:
        # each a string or a number (ids, names, values): an object or a list is a located
        # error, not its Python text in an IRI (``run_id: {"a": 1}`` was run ``{'a': 1}``)
        return {k: scalar_text(item.get(k), name, f"{at}{k}") for k in keys}

    out: dict[str, Any] = fields(run, (
        "run_id", "uploader", "uploader_name", "task_id", "task_type", "flow_id", "flow_name",
        "setup_id", "setup_string", "error",
    ), "run.")  # fmt: skip
    out["parameter_setting"] = [
        fields(p, ("name", "value", "component"), f"run.parameter_setting[{i}].")
        for i, p in enumerate(listed(run.get("parameter_setting")))
        if isinstance(p, dict)
    ]
    data = _object(run.get("input_data"), name, "run.input_data").get("dataset")
    out["datasets"] = [
        fields(d, ("did", "name", "url"), f"run.input_data.dataset[{i}].")
        for i, d in enumerate(listed(data))
        if isinstance(d, dict)
    ]
    evs = _object(run.get("output_data"), name, "run.output_data").get("evaluation")
    out["evaluations"] = [
        fields(
            e,
            ("name", "value", "array_data", "repeat", "fold", "sample"),
            f"run.output_data.evaluation[{i}].",
        )
        for i, e in enumerate(listed(evs))
        if isinstance(e, dict)
    ]
    return out


def _object(value: Any, name: str, field: str) -> dict[str, Any]:
    """A member that must be an object (``{}`` when absent)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise LoadError(
            f"{field}: expected an object, not {not_a_scalar(value) or type(value).__name__}",
            source=name,
            field=field,
        )
    return value


def read_run(data: bytes, name: str) -> dict[str, Any]:
    text = decode_text(data, name)
    if text.lstrip().startswith("<"):
        run = _from_xml(text, name)
    else:
        run = _from_json(parse_json(text, name), name)
    if not run.get("run_id"):
        raise LoadError("the run description has no run_id", source=name, field="run_id")
    return run


def _number(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def run_tree(run: dict[str, Any]) -> dict[str, Any]:
    tree: dict[str, Any] = {"tag": f"openml-run-{run['run_id']}"}
    impl: dict[str, Any] = {}
    if run.get("flow_name"):
        impl["name"] = run["flow_name"]
    if run.get("flow_id"):
        impl["flow"] = f"{SITE}/f/{run['flow_id']}"
    if run.get("setup_string"):
        impl["executable"] = {"cmd": run["setup_string"]}
    if impl:
        tree["implementation"] = impl
    params: dict[str, Any] = {}
    names = [p["name"] for p in run["parameter_setting"] if p.get("name")]
    for p in run["parameter_setting"]:
        if not p.get("name") or p.get("value") is None:
            continue
        key = p["name"]
        if p.get("component") and names.count(key) > 1:
            key = f"{p['component']}:{key}"
        params[key] = p["value"]
    method: dict[str, Any] = {}
    if params:
        method["parameters"] = params
    if run.get("setup_id"):
        method["setup"] = f"{SITE}/api/v1/setup/{run['setup_id']}"
    if method:
        tree["method"] = method
    if run.get("uploader_name") or run.get("uploader"):
        actor: dict[str, Any] = {}
        if run.get("uploader_name"):
            actor["name"] = run["uploader_name"]
        if run.get("uploader"):
            actor["openml user"] = f"{SITE}/u/{run['uploader']}"
        tree["actor"] = actor
    os_info = next(
        (e.get("array_data") for e in run["evaluations"] if e.get("name") == "os_information"),
        None,
    )
    if os_info:  # what the runner reports of the machine (Weka: JVM vendor, version, OS)
        tree["platform"] = {"os information": os_info}
    data: dict[str, Any] = {}
    if run.get("task_id"):
        task = f"OpenML task {run['task_id']}"
        if run.get("task_type"):
            task += f" ({run['task_type']})"
        data["test collection"] = {"name": task, "source": f"{SITE}/t/{run['task_id']}"}
    training = []
    for d in run["datasets"]:
        item = {"name": d.get("name") or f"OpenML data set {d.get('did')}"}
        if d.get("url") and d["url"].startswith(("http://", "https://")):
            item["source"] = d["url"]
        training.append(item)
    if training:
        data["training data"] = training
    if data:
        tree["data"] = data
    return tree


def _whole(text: str | None, name: str, field: str) -> int | None:
    """An evaluation's repeat, fold or sample number (``int("x")`` was a ValueError)."""
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise LoadError(
            f"evaluation {field}: expected a whole number, not {text!r}",
            source=name,
            field=f"evaluation.{field}",
        ) from None


def _add_evaluations(doc: Document, run: dict[str, Any], name: str) -> None:
    g, node = doc.graph, doc.subject
    assert node is not None  # the run's document always names the run
    g.add((node, SCHEMA.identifier, Literal(str(run["run_id"]))))
    g.add((node, SCHEMA.url, Literal(f"{SITE}/r/{run['run_id']}", datatype=XSD.anyURI)))
    if run.get("error"):
        g.add((node, RDFS.comment, Literal(f"OpenML error: {run['error']}")))
    overall = [e for e in run["evaluations"] if not e.get("fold") and not e.get("repeat")]
    named = {e.get("name") for e in overall}
    for e in run["evaluations"]:  # measures OpenML reports per fold only (build_cpu_time)
        if e.get("name") and e["name"] not in named:
            named.add(e["name"])
            overall.append({"name": e["name"], "value": None, "array_data": None})
    for e in overall:
        value = _number(e.get("value"))
        if not e.get("name"):
            continue
        v = mint("run", f"{stable_key('openml', run['run_id'])}/evaluation/{stable_key(e['name'])}")
        g.add((node, RK.reportedScore, v))
        g.add((v, RDF.type, RK.MeasureValue))
        g.add((v, RDF.type, MLS.ModelEvaluation))
        g.add((v, RK.measureName, Literal(e["name"])))
        if value is not None:
            g.add((v, MLS.hasValue, Literal(repr(value), datatype=XSD.double)))
        folds = [
            {
                "repeat": _whole(f.get("repeat"), name, "repeat"),
                "fold": _whole(f.get("fold"), name, "fold"),
                "sample": _whole(f.get("sample"), name, "sample"),
                "value": _number(f.get("value")),
            }
            for f in run["evaluations"]
            if f.get("name") == e["name"] and (f.get("fold") or f.get("repeat"))
        ]
        detail: dict[str, Any] = {}
        if folds:
            detail["folds"] = folds
        if e.get("array_data"):
            detail["array_data"] = e["array_data"]
        if detail:
            g.add((v, RDF.value, Literal(json.dumps(detail, sort_keys=True), datatype=RDF.JSON)))


def load(data: bytes, name: str) -> list[Document]:
    run = read_run(data, name)
    record = json.dumps({"format": "openml-run", **run}, sort_keys=True).encode("utf-8")
    doc = run_document(
        run_tree(run),
        name=name,
        record=record,
        source_key=f"openml:run:{run['run_id']}",
        producer=INFO,
    )
    _add_evaluations(doc, run, name)
    return [doc]
