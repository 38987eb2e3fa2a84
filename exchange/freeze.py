"""``reprokg freeze ID -o DIR``: a result as a citable, frozen deposit.

The folder holds what a Zenodo or DataCite deposit needs: ``crate.zip`` (the RO-Crate of
:mod:`reprokg.exchange.crate`), ``datacite.xml`` and ``datacite.json`` (DataCite 4.7:
creators with ORCIDs, ``IsDerivedFrom`` the inputs and runs, ``Other``/"reproduces" the
original publication, ``References`` what else it cites, the software versions, the
licence) and the result's table as ``table.tex`` (a LaTeX ``tabular``) and ``table.csv``: a
comparison's at its headline measures, sized for a paper, or with ``full`` every value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from reprokg.core.errors import IdentifierError, UsageError
from reprokg.core.identifiers import doi_iri, orcid_iri
from reprokg.exchange.crate import (
    DEFAULT_LICENSE,
    CrateContent,
    CrateInput,
    crate_files,
    sha256,
    write_files,
    zip_bytes,
)
from reprokg.exchange.datacite import Creator, Record, Related, to_json, to_xml
from reprokg.exchange.tables import csv_bytes, latex_table, table_of

#: what a frozen result is, as DataCite's free-text resource type
RESOURCE_TYPES = {
    "comparison": "Reproducibility comparison",
    "passport": "Reproducibility passport",
    "run": "Run metadata (PRIMAD)",
}
_SPDX_RE = re.compile(r"^https?://spdx\.org/licenses/([A-Za-z0-9.+-]+?)(?:\.html)?/?$")


def parse_creator(text: str) -> Creator:
    """``Family, Given`` or ``Family, Given;0000-0002-1825-0097`` (an ORCID in any accepted
    form, check digit verified), or ``=Organisation name``."""
    text = text.strip()
    if text.startswith("="):
        return Creator(text[1:].strip(), organisation=True)
    name, _sep, orcid = text.partition(";")
    if not name.strip():
        raise UsageError(f"--creator {text!r}: expected 'Family, Given[;ORCID]'")
    iri = None
    if orcid.strip():
        try:
            iri = str(orcid_iri(orcid.strip()))
        except IdentifierError as exc:
            raise UsageError(f"--creator {text!r}: {exc}") from exc
    return Creator(name.strip(), iri)


def _doi(value: str) -> str:
    try:
        return str(doi_iri(value))
    except IdentifierError as exc:
        raise UsageError(f"{value!r}: {exc}") from exc


def _run_people(content: CrateContent) -> list[Creator]:
    out = []
    for run in content.runs:
        actor = run.tree.get("actor")
        if isinstance(actor, dict) and actor.get("name"):
            orcid = None
            if actor.get("orcid"):
                try:
                    orcid = str(orcid_iri(str(actor["orcid"])))
                except IdentifierError:
                    orcid = None
            out.append(Creator(str(actor["name"]), orcid))
    return out


def _original_publications(content: CrateContent) -> list[str]:
    """What a comparison reproduces: the publication its original runs report."""
    out = []
    for run in content.runs:
        if not run.key.startswith("original"):
            continue
        pub = (run.tree.get("research goal") or {}).get("publication") or {}
        if isinstance(pub, dict) and pub.get("doi"):
            try:
                out.append(str(doi_iri(str(pub["doi"]))))
            except IdentifierError:
                continue
    return sorted(set(out))


def datacite_record(
    content: CrateContent,
    *,
    creators: list[Creator],
    reproduces: list[str],
    publisher: str,
    license: str,
    version: str,
    doi: str | None,
    files: dict[str, bytes],
    verdicts: Sequence[dict] = (),
) -> Record:
    """The DataCite record of a frozen result (``files``: the crate's, for its size)."""
    known = [Creator(p.name, p.iri if "orcid.org/" in p.iri else None) for p in content.authors]
    people = list(dict.fromkeys(creators or known or _run_people(content)))
    if not people:
        raise UsageError(
            "no creator is known for this result (no one it is attributed to, no actor in "
            "its runs): give --creator 'Family, Given;ORCID'"
        )
    repro = [_doi(d) for d in reproduces] or _original_publications(content)
    related = [Related(d, "Other", "reproduces", "JournalArticle") for d in repro]
    for i in content.inputs:
        if isinstance(i, CrateInput):
            related.append(Related(i.iri, "IsDerivedFrom"))
        elif i.about:
            related.append(Related(i.about, "IsDerivedFrom"))
    for run in content.runs:
        related.append(Related(run.iri, "IsDerivedFrom"))
    related += [Related(c, "References") for c in content.cites if c not in repro]
    related += [Related(a, "IsReviewedBy") for a in content.related]
    seen: set[tuple[str, str]] = set()
    unique = []
    for r in related:
        if (r.value, r.relation) not in seen:
            seen.add((r.value, r.relation))
            unique.append(r)
    m = _SPDX_RE.match(license)
    software = "; ".join(f"{k} {v}" for k, v in sorted(content.software.items()))
    params = "; ".join(f"{k}={v}" for k, v in sorted(content.parameters.items()))
    size = sum(len(b) for b in files.values())
    return Record(
        doi=doi or f"10.5072/reprokg.{sha256(content.subject.encode())[:12]}",
        title=content.title,
        creators=people,
        publisher=publisher,
        year=int(content.created[:4]),
        resource_type=RESOURCE_TYPES.get(content.kind, f"{content.kind} (reprokg)"),
        version=version,
        license_url=license,
        license_id=m.group(1) if m else None,
        abstract=content.description,
        methods=f"{content.activity}."
        + (f" Parameters: {params}." if params else "")
        + "".join(f" Verdict of rule {v.get('rule')}: {v.get('outcome')}." for v in verdicts or ()),
        technical_info=f"Computed with {software}." if software else "",
        subjects=["reproducibility", content.kind],
        related=unique,
        created=content.created[:10],
        formats=["application/zip", "application/ld+json", "text/csv"],
        sizes=[f"{len(files)} files", f"{size} bytes"],
    )


def freeze(
    content: CrateContent,
    output: str | Path,
    *,
    creators: Sequence[Creator] = (),
    reproduces: Sequence[str] = (),
    publisher: str = "reprokg",
    license: str | None = None,
    version: str = "1",
    doi: str | None = None,
    ro_crate: str = "1.1",
    full: bool = False,
    measures: Sequence[str] = (),
) -> Path:
    """Write the frozen deposit of ``content`` into the new or empty folder ``output``: a
    comparison's table at its headline ``measures`` (sized for a paper), or every value
    (``full``)."""
    license = license or DEFAULT_LICENSE
    content.license = license
    files = crate_files(content, ro_crate)
    stem = "passport" if content.kind == "passport" else "result"
    data = json.loads(files[f"{stem}.json"]) if f"{stem}.json" in files else None
    record = datacite_record(
        content,
        creators=list(creators),
        reproduces=list(reproduces),
        publisher=publisher,
        license=license,
        version=version,
        doi=doi,
        files=files,
        verdicts=(data or {}).get("verdicts", []) if content.kind != "passport" else [],
    )
    table = table_of(content.kind, data, full=full, chosen=measures)
    out: dict[str, bytes] = {
        "crate.zip": zip_bytes(files),
        "datacite.xml": to_xml(record),
        "datacite.json": (
            json.dumps(to_json(record), indent=2, ensure_ascii=False) + "\n"
        ).encode(),
    }
    if table is not None and table.rows:
        out["table.csv"] = csv_bytes(table)
        label = f"tab:{content.kind}-{sha256(content.subject.encode())[:8]}"
        out["table.tex"] = latex_table(table, label).encode("utf-8")
    return write_files(out, output)
