"""DataCite Metadata Schema 4.7 records of frozen results, as XML and as DataCite's JSON.

One :class:`Record` is written two ways: :func:`to_xml` (the ``resource`` element of kernel
4, which ``tests/exchange`` validates against the 4.7 XSD) and :func:`to_json` (the
attributes of DataCite's REST API, the JSON Zenodo and DataCite deposits read). A result
that reproduces a publication says so with DataCite 4.7's ``relationType="Other"`` and
``relationTypeInformation="reproduces"``; its inputs are ``IsDerivedFrom``, what it cites
``References``.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any
from xml.etree import ElementTree as ET

NS = "http://datacite.org/schema/kernel-4"
SCHEMA_LOCATION = f"{NS} https://schema.datacite.org/meta/kernel-4.7/metadata.xsd"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
XML_NS = "http://www.w3.org/XML/1998/namespace"
_DOI_RE = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)?(10\.\d{4,9}/\S+)$", re.IGNORECASE)
#: what XML 1.0 forbids in a document (its ``Char`` production): the C0 controls but tab,
#: line feed and carriage return, lone surrogates, U+FFFE and U+FFFF
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


@dataclass(frozen=True)
class Creator:
    """A person (``Family, Given``) with an ORCID where known, or an organisation."""

    name: str
    orcid: str | None = None  # https://orcid.org/… (checked by the caller)
    organisation: bool = False

    @property
    def family_given(self) -> tuple[str | None, str | None]:
        if self.organisation or "," not in self.name:
            return None, None
        family, given = (p.strip() for p in self.name.split(",", 1))
        return family or None, given or None


@dataclass(frozen=True)
class Related:
    """A related identifier: a DOI or a URL, how it relates, and (for ``Other``) in words."""

    identifier: str
    relation: str
    information: str | None = None
    resource_type: str | None = None

    @property
    def kind(self) -> str:
        return "DOI" if _DOI_RE.match(self.identifier) else "URL"

    @property
    def value(self) -> str:
        m = _DOI_RE.match(self.identifier)
        return m.group(1) if m else self.identifier


@dataclass
class Record:
    doi: str
    title: str
    creators: list[Creator]
    publisher: str
    year: int
    resource_type: str
    resource_type_general: str = "Dataset"
    version: str | None = None
    license_url: str | None = None
    license_id: str | None = None
    abstract: str = ""
    technical_info: str = ""
    methods: str = ""
    subjects: list[str] = field(default_factory=list)
    related: list[Related] = field(default_factory=list)
    created: str | None = None  # YYYY-MM-DD
    formats: list[str] = field(default_factory=list)
    sizes: list[str] = field(default_factory=list)


def xml_safe(value: Any) -> Any:
    """``value`` (a record, a creator, a related identifier, a list, a string) with every
    character XML 1.0 forbids dropped from its text: ElementTree writes a control
    character (``\\x01`` in a creator, a title) as it is, and no XML parser reads the file.
    Both forms of a record (:func:`to_xml`, :func:`to_json`) are written from the same
    cleaned record, so they say the same."""
    if isinstance(value, str):
        return _NOT_XML.sub("", value)
    if isinstance(value, list):
        return [xml_safe(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.replace(
            value, **{f.name: xml_safe(getattr(value, f.name)) for f in dataclasses.fields(value)}
        )
    return value


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    e = ET.SubElement(parent, f"{{{NS}}}{tag}", {k: v for k, v in attrs.items() if v})
    if text is not None:
        e.text = text
    return e


def to_xml(r: Record) -> bytes:
    """The record as a DataCite kernel-4 ``resource`` (UTF-8, with its XML declaration)."""
    r = xml_safe(r)
    ET.register_namespace("", NS)
    ET.register_namespace("xsi", XSI)
    root = ET.Element(f"{{{NS}}}resource", {f"{{{XSI}}}schemaLocation": SCHEMA_LOCATION})
    _sub(root, "identifier", r.doi, identifierType="DOI")
    creators = _sub(root, "creators")
    for c in r.creators:
        e = _sub(creators, "creator")
        _sub(e, "creatorName", c.name, nameType="Organizational" if c.organisation else "Personal")
        family, given = c.family_given
        if given:
            _sub(e, "givenName", given)
        if family:
            _sub(e, "familyName", family)
        if c.orcid:
            _sub(
                e,
                "nameIdentifier",
                c.orcid,
                nameIdentifierScheme="ORCID",
                schemeURI="https://orcid.org/",
            )
    titles = _sub(root, "titles")
    _sub(titles, "title", r.title).set(f"{{{XML_NS}}}lang", "en")
    _sub(root, "publisher", r.publisher)
    _sub(root, "publicationYear", str(r.year))
    _sub(root, "resourceType", r.resource_type, resourceTypeGeneral=r.resource_type_general)
    if r.subjects:
        subjects = _sub(root, "subjects")
        for s in r.subjects:
            _sub(subjects, "subject", s)
    if r.created:
        dates = _sub(root, "dates")
        _sub(dates, "date", r.created, dateType="Created")
    _sub(root, "language", "en")
    if r.related:
        rel = _sub(root, "relatedIdentifiers")
        for x in r.related:
            _sub(
                rel,
                "relatedIdentifier",
                x.value,
                relatedIdentifierType=x.kind,
                relationType=x.relation,
                relationTypeInformation=x.information or "",
                resourceTypeGeneral=x.resource_type or "",
            )
    if r.sizes:
        sizes = _sub(root, "sizes")
        for s in r.sizes:
            _sub(sizes, "size", s)
    if r.formats:
        formats = _sub(root, "formats")
        for f in r.formats:
            _sub(formats, "format", f)
    if r.version:
        _sub(root, "version", r.version)
    if r.license_url:
        rights = _sub(root, "rightsList")
        _sub(
            rights,
            "rights",
            r.license_id or r.license_url,
            rightsURI=r.license_url,
            rightsIdentifier=(r.license_id or "").lower(),
            rightsIdentifierScheme="SPDX" if r.license_id else "",
            schemeURI="https://spdx.org/licenses/" if r.license_id else "",
        )
    descriptions = _sub(root, "descriptions")
    for kind, text in (
        ("Abstract", r.abstract),
        ("Methods", r.methods),
        ("TechnicalInfo", r.technical_info),
    ):
        if text:
            _sub(descriptions, "description", text, descriptionType=kind)
    ET.indent(root)
    return ET.tostring(root, encoding="UTF-8", xml_declaration=True) + b"\n"


def to_json(r: Record) -> dict[str, Any]:
    """The record as DataCite's JSON (the ``attributes`` of its REST API)."""
    r = xml_safe(r)
    creators = []
    for c in r.creators:
        item: dict[str, Any] = {
            "name": c.name,
            "nameType": "Organizational" if c.organisation else "Personal",
        }
        family, given = c.family_given
        if given:
            item["givenName"] = given
        if family:
            item["familyName"] = family
        if c.orcid:
            item["nameIdentifiers"] = [
                {
                    "nameIdentifier": c.orcid,
                    "nameIdentifierScheme": "ORCID",
                    "schemeUri": "https://orcid.org/",
                }
            ]
        creators.append(item)
    related = []
    for x in r.related:
        item = {
            "relatedIdentifier": x.value,
            "relatedIdentifierType": x.kind,
            "relationType": x.relation,
        }
        if x.information:
            item["relationTypeInformation"] = x.information
        if x.resource_type:
            item["resourceTypeGeneral"] = x.resource_type
        related.append(item)
    out: dict[str, Any] = {
        "doi": r.doi,
        "creators": creators,
        "titles": [{"title": r.title, "lang": "en"}],
        "publisher": {"name": r.publisher},
        "publicationYear": r.year,
        "types": {"resourceTypeGeneral": r.resource_type_general, "resourceType": r.resource_type},
        "subjects": [{"subject": s} for s in r.subjects],
        "dates": [{"date": r.created, "dateType": "Created"}] if r.created else [],
        "language": "en",
        "relatedIdentifiers": related,
        "sizes": list(r.sizes),
        "formats": list(r.formats),
        "version": r.version,
        "rightsList": [],
        "descriptions": [
            {"description": text, "descriptionType": kind}
            for kind, text in (
                ("Abstract", r.abstract),
                ("Methods", r.methods),
                ("TechnicalInfo", r.technical_info),
            )
            if text
        ],
        "schemaVersion": "http://datacite.org/schema/kernel-4",
    }
    if r.license_url:
        rights: dict[str, Any] = {
            "rights": r.license_id or r.license_url,
            "rightsUri": r.license_url,
        }
        if r.license_id:
            rights.update(
                {
                    "rightsIdentifier": r.license_id.lower(),
                    "rightsIdentifierScheme": "SPDX",
                    "schemeUri": "https://spdx.org/licenses/",
                }
            )
        out["rightsList"] = [rights]
    return out
