"""Reproducibility audits (YAML or JSON, ``docs/audit-format.md``) -> one document per audit.

An audit says, for one publication, which attributes of the reproducibility ontology of
Hille et al. (TMLR 2024; D1-D9, S1-S19, R1-R6) the auditors found, with evidence, which
metric values were reported and reproduced, and the outcome. Open world: a finding is
evidence *against* reproducibility; an attribute not listed is unknown, not absent.

The structural rules are the JSON Schema in :data:`SCHEMA` (published as
``docs/audit.schema.json``); they are checked here by a small interpreter of the subset
of JSON Schema the format uses, so errors name the field and its line. Unknown keys are
not errors: they are kept under ``rkx:`` and reported as Info.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from rdflib import RDF, XSD, Literal, URIRef
from rdflib.namespace import PROV, RDFS

from reprokg.core.document import Document, Message
from reprokg.core.errors import IdentifierError, LoadError
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import doi_iri, mint, orcid_iri
from reprokg.core.literals import decimal_literal
from reprokg.core.namespaces import RK, new_graph, rkx_term
from reprokg.core.namespaces import SCHEMA as SDO
from reprokg.loaders.reading.contract import Claim, LoaderInfo
from reprokg.loaders.reading.source import decode_text, parse_json
from reprokg.loaders.reading.yaml_scalars import Scalar, parse_yaml

INFO = LoaderInfo(kind="audit", name="reprokg.loaders.audit", version="1")

ATTRIBUTE_IDS = (
    [f"D{i}" for i in range(1, 10)]
    + [f"S{i}" for i in range(1, 20)]
    + [f"R{i}" for i in range(1, 7)]
)
OUTCOMES = {
    "reproduced": RK.OutcomeReproduced,
    "partially": RK.OutcomePartiallyReproduced,
    "not_reproduced": RK.OutcomeNotReproduced,
    "not_attempted": RK.OutcomeNotAttempted,
}
_DATE_RE = r"^\d{4}(-\d{2}(-\d{2})?)?$"
_URL_RE = r"^https?://\S+$"

#: The audit format as JSON Schema (draft 2020-12); docs/audit.schema.json is this, verbatim.
SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://w3id.org/reprokg/audit.schema.json",
    "title": "reprokg reproducibility audit",
    "description": "One reproducibility audit of one publication, using the audit attributes "
    "D1-D9, S1-S19, R1-R6 of Hille, Stubbemann and Hanika (TMLR 2024). See docs/audit-format.md.",
    "type": "object",
    "required": ["audit", "publication", "findings"],
    "properties": {
        "audit": {"type": "integer", "enum": [1], "description": "Format version."},
        "publication": {
            "type": "object",
            "description": "The audited publication: a DOI, or a URL when it has none.",
            "anyOf": [{"required": ["doi"]}, {"required": ["url"]}],
            "properties": {
                "doi": {"type": "string", "description": "10.x/y, doi:10.x/y or a doi.org URL"},
                "url": {"type": "string", "pattern": _URL_RE},
                "title": {"type": "string"},
                "year": {"type": "integer", "minimum": 1900, "maximum": 2100},
                "code": {"type": "string", "pattern": _URL_RE},
            },
        },
        "auditors": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "orcid": {"type": "string"},
                },
            },
        },
        "date": {
            "type": "string",
            "pattern": _DATE_RE,
            "description": "YYYY, YYYY-MM or YYYY-MM-DD: no more precise than known.",
        },
        "report": {
            "type": "string",
            "pattern": _URL_RE,
            "description": "Where the audit is published.",
        },
        "report_citation": {"type": "string"},
        "outcome": {"type": "string", "enum": list(OUTCOMES)},
        "findings": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["attribute"],
                "properties": {
                    "attribute": {"type": "string", "enum": ATTRIBUTE_IDS},
                    "evidence": {"type": "string"},
                    "link": {"type": "string", "pattern": _URL_RE},
                    "scope": {"type": "string"},
                },
            },
        },
        "metrics": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["metric"],
                "properties": {
                    "metric": {"type": "string", "minLength": 1},
                    "dataset": {"type": "string"},
                    "system": {"type": "string"},
                    "reported": {"type": "number"},
                    "reproduced": {"type": "number"},
                    "relative_difference": {"type": "number", "minimum": 0},
                    "outcome": {"type": "string", "enum": list(OUTCOMES)},
                    "note": {"type": "string"},
                },
            },
        },
        "notes": {"type": "string"},
    },
}


def sniff(name: str, head: str) -> bool | Claim:
    """An audit file starts (after comments) with ``audit: 1`` or has ``"audit": 1``; one
    with another ``audit:`` value is nearly an audit (its load says what is wrong)."""
    if name.endswith(".json"):
        if '"findings"' not in head or re.search(r'"audit"\s*:', head) is None:
            return Claim.NO
        return Claim.YES if re.search(r'"audit"\s*:\s*1\b', head) else Claim.NEAR
    lines = [ln for ln in head.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines or not re.match(r"^audit\s*:", lines[0]):
        return Claim.NO
    return Claim.YES if re.match(r"^audit:\s*1\s*$", lines[0]) else Claim.NEAR


# --------------------------------------------------------------------------- structural check


class _Checker:
    """Checks parsed data against the JSON Schema subset of :data:`SCHEMA`."""

    def __init__(self, name: str, messages: list[Message], lines: dict[str, int]) -> None:
        self.name = name
        self.messages = messages
        self.lines = lines

    def fail(self, path: str, value: Any, expected: str) -> None:
        line = getattr(value, "line", None) or self.lines.get(path)
        col = getattr(value, "column", None)
        raise LoadError(expected, source=self.name, line=line, column=col, field=path or None)

    def check(self, value: Any, schema: dict[str, Any], path: str) -> Any:
        """The value converted to its schema type (Scalar text -> int/float/str)."""
        value = self._typed(value, schema, path)
        if "enum" in schema and value not in schema["enum"]:
            allowed = ", ".join(str(e) for e in schema["enum"])
            self.fail(path, value, f"{value!s} is not allowed here; expected one of: {allowed}")
        if isinstance(value, str):
            if len(value) < schema.get("minLength", 0):
                self.fail(path, value, "must not be empty")
            if "pattern" in schema and not re.search(schema["pattern"], value):
                self.fail(path, value, f"{value!r} does not match {schema['pattern']}")
        if isinstance(value, int | float) and not isinstance(value, bool):
            if "minimum" in schema and value < schema["minimum"]:
                self.fail(path, value, f"{value} is below the minimum {schema['minimum']}")
            if "maximum" in schema and value > schema["maximum"]:
                self.fail(path, value, f"{value} is above the maximum {schema['maximum']}")
        if isinstance(value, dict):
            return self._object(value, schema, path)
        if isinstance(value, list):
            return [self.check(v, schema["items"], f"{path}[{i}]") for i, v in enumerate(value)]
        return value

    def _object(self, value: dict, schema: dict[str, Any], path: str) -> dict:
        for req in schema.get("required", []):
            if req not in value:
                self.fail(path, value, f"missing required key {req!r}")
        if "anyOf" in schema and not any(
            all(r in value for r in alt.get("required", [])) for alt in schema["anyOf"]
        ):
            keys = " or ".join(repr(alt["required"][0]) for alt in schema["anyOf"])
            self.fail(path, value, f"needs {keys}")
        out = {}
        props = schema.get("properties", {})
        for key, v in value.items():
            sub = f"{path}.{key}" if path else str(key)
            line = getattr(key, "line", None)
            if line:
                self.lines.setdefault(sub, line)
            if key in props:
                out[str(key)] = self.check(v, props[key], sub)
            else:
                self.messages.append(
                    Message("Info", sub, f"unknown key {key!s} kept as rkx:{key!s}", line=line)
                )
                out[str(key)] = v
        return out

    def _typed(self, value: Any, schema: dict[str, Any], path: str) -> Any:
        want = schema.get("type")
        if isinstance(value, Scalar):
            if value.is_null:
                self.fail(path, value, f"empty value; expected {want or 'a value'}")
            if want == "string":
                return value
            implicit = value.implicit
            if want in ("integer", "number"):
                if isinstance(implicit, bool) or not isinstance(implicit, int | float):
                    self.fail(path, value, f"{value!s} is not a {want}")
                if want == "integer" and not isinstance(implicit, int):
                    self.fail(path, value, f"{value!s} is not an integer")
                return implicit
            self.fail(path, value, f"expected {want}, got the scalar {value!s}")
        json_types = {
            "string": str,
            "object": dict,
            "array": list,
            "integer": int,
            "number": int | float,
        }
        if value is None:
            self.fail(path, value, f"empty value; expected {want}")
        if want and not isinstance(value, json_types[want]) or isinstance(value, bool):
            self.fail(path, value, f"expected {want}, got {type(value).__name__}")
        return value


# --------------------------------------------------------------------------- RDF


def _date_literal(text: str) -> Literal:
    if len(text) == 4:
        return Literal(text, datatype=XSD.gYear)
    if len(text) == 7:
        return Literal(text, datatype=XSD.gYearMonth)
    try:
        date.fromisoformat(text)
    except ValueError:
        # kept as written (xsd:string) so the SHACL date check reports it with the path
        return Literal(text)
    return Literal(text, datatype=XSD.date)


def _rkx(g, node: URIRef, data: dict, known: set[str]) -> None:
    for key, v in data.items():
        if key not in known and not isinstance(v, dict | list):
            g.add((node, rkx_term(key), Literal(str(v))))


def load(data: bytes, name: str) -> list[Document]:
    """One document for the audit in ``data``; :class:`LoadError` names field and line."""
    text = decode_text(data, name)
    raw = parse_json(text, name) if name.endswith(".json") else parse_yaml(text, name)
    messages: list[Message] = []
    lines: dict[str, int] = {}
    if not isinstance(raw, dict):
        raise LoadError("expected a mapping with audit, publication and findings", source=name)
    audit = _Checker(name, messages, lines).check(raw, SCHEMA, "")

    pub = audit["publication"]
    g = new_graph()
    if "doi" in pub:
        try:
            pub_node = doi_iri(pub["doi"])
        except IdentifierError as exc:
            raise LoadError(
                str(exc), source=name, line=lines.get("publication.doi"), field="publication.doi"
            ) from exc
        g.add((pub_node, RK.doiAsWritten, Literal(str(pub["doi"]))))
        source_key = f"audit:{pub_node}"
    else:
        pub_node = URIRef(pub["url"])
        source_key = f"audit:{pub['url']}"
    g.add((pub_node, RDF.type, SDO.ScholarlyArticle))
    if "url" in pub and "doi" in pub:
        g.add((pub_node, RDFS.seeAlso, URIRef(pub["url"])))
    if "title" in pub:
        g.add((pub_node, SDO.name, Literal(pub["title"])))
    if "year" in pub:
        g.add((pub_node, SDO.datePublished, Literal(str(pub["year"]), datatype=XSD.gYear)))
    if "code" in pub:
        g.add((pub_node, SDO.codeRepository, URIRef(pub["code"])))

    auditor_names = sorted(str(a["name"]) for a in audit.get("auditors", []))
    identity = [audit.get("date"), audit.get("report"), *auditor_names]
    if "report_citation" in audit:  # two reproductions of one paper told apart by citation
        identity.append(str(audit["report_citation"]))
    key = stable_key(source_key, *identity)
    node = mint("audit", key)
    g.add((node, RDF.type, RK.Audit))
    g.add((node, RK.auditedPublication, pub_node))
    g.add((node, RDFS.label, Literal(f"audit of {pub.get('title') or pub_node}")))
    if "date" in audit:
        g.add((node, RK.auditDate, _date_literal(str(audit["date"]))))
    if "report" in audit:
        g.add((node, RK.auditReport, URIRef(audit["report"])))
    if "report_citation" in audit:
        g.add((node, SDO.citation, Literal(audit["report_citation"])))
    if "notes" in audit:
        g.add((node, RDFS.comment, Literal(audit["notes"])))
    if "outcome" in audit:
        g.add((node, RK.outcome, OUTCOMES[audit["outcome"]]))
    _rkx(g, node, audit, set(SCHEMA["properties"]))

    for i, person in enumerate(audit.get("auditors", [])):
        pname = str(person["name"])
        path = f"auditors[{i}].orcid"
        agent: URIRef | None = None
        if "orcid" in person:
            try:
                agent = orcid_iri(person["orcid"])
            except IdentifierError:
                agent = None  # validation's ORCID check reports the bad text with its path
        if agent is None:
            # never merge people by name alone: the key is scoped to this audit
            agent = mint("person", stable_key(source_key, pname, person.get("orcid")))
        g.add((agent, RDF.type, SDO.Person))
        g.add((agent, RDF.type, PROV.Agent))
        g.add((agent, SDO.name, Literal(pname)))
        if "orcid" in person:
            g.add((agent, RK.orcidAsWritten, Literal(str(person["orcid"]))))
            if path in lines:
                lines.setdefault("actor.orcid", lines[path])
        g.add((node, RK.auditor, agent))

    for i, f in enumerate(audit.get("findings", [])):
        finding = mint("finding", stable_key(key, i, f["attribute"], f.get("scope")))
        g.add((node, RK.hasFinding, finding))
        g.add((finding, RDF.type, RK.Finding))
        g.add((finding, RK.attribute, RK[f["attribute"]]))
        g.add((finding, PROV.wasGeneratedBy, node))
        if "evidence" in f:
            g.add((finding, RK.evidenceText, Literal(f["evidence"])))
        if "link" in f:
            g.add((finding, RK.evidenceLink, URIRef(f["link"])))
        if "scope" in f:
            g.add((finding, RK.scopeOfFinding, Literal(f["scope"])))
        _rkx(g, finding, f, {"attribute", "evidence", "link", "scope"})

    for i, m in enumerate(audit.get("metrics", [])):
        cmp = mint("metric-comparison", stable_key(key, i, m["metric"], m.get("dataset")))
        g.add((node, RK.hasMetricComparison, cmp))
        g.add((cmp, RDF.type, RK.MetricComparison))
        g.add((cmp, PROV.wasGeneratedBy, node))
        g.add((cmp, RK.metricName, Literal(m["metric"])))
        if "dataset" in m:
            g.add((cmp, RK.dataSetName, Literal(m["dataset"])))
        if "system" in m:
            g.add((cmp, RK.systemName, Literal(m["system"])))
        for k, prop in (
            ("reported", RK.reportedValue),
            ("reproduced", RK.reproducedValue),
            ("relative_difference", RK.relativeDifference),
        ):
            if k in m:
                g.add((cmp, prop, decimal_literal(m[k])))
        if "outcome" in m:
            g.add((cmp, RK.outcome, OUTCOMES[m["outcome"]]))
        if "note" in m:
            g.add((cmp, RDFS.comment, Literal(m["note"])))
        known = {"metric", "dataset", "system", "reported", "reproduced", "relative_difference"}
        _rkx(g, cmp, m, known | {"outcome", "note"})

    return [
        INFO.document(
            g,
            source_name=name,
            source_bytes=data,
            # one audit (its date, report, auditors, citation) per source key: another
            # audit of the same paper is a document of its own, a corrected file revises
            source_key=f"{source_key}:{key}",
            messages=messages,
            lines=lines,
            subject=node,
        )
    ]
