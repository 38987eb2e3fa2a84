"""SWHIDs the sources record, stored as the code they name (``rk:softwareHeritageCode``, the
archive's IRI of the core SWHID): ReScience C's ``code_swh``, MLRC's ``code.swh``, ReproDB's
Software Heritage permalinks. The expected sets are read from the raw files with regular
expressions and json, not through the loaders; a SWHID two sources record joins them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rdflib import RDF, Literal, URIRef

from reprokg.core.namespaces import RK, SCHEMA
from reprokg.loaders import artifact_evaluation, rescience

BIB = "surveys/rescience/journal_bib/_bibliography/published.bib"
ARTIFACTS = "artifact_evaluation/reprodb/artifacts.json"
RESOLVER = "https://archive.softwareheritage.org/"
#: a core SWHID, the ``swh:`` prefix optional (MLRC writes ``1:dir:…`` too)
_CORE = re.compile(r"^(?:swh:)?(1:(?:cnt|dir|rev|rel|snp):[0-9a-f]{40})")


def _iri(written: str) -> str | None:
    m = _CORE.match(written.strip().removeprefix(RESOLVER))
    return f"{RESOLVER}swh:{m.group(1)}" if m else None


def _raw_rescience(shared_data: Path) -> set[str]:
    text = (shared_data / BIB).read_text("utf-8")
    found = (_iri(v) for v in re.findall(r"code_swh\s*=\s*\{([^}]*)\}", text))
    return {v for v in found if v}


def _raw_mlrc(files: list[Path]) -> set[str]:
    out = set()
    for f in files:
        for v in re.findall(r"^\s*-?\s*swh:[ \t]*(\S*)", f.read_text("utf-8"), re.M):
            if _iri(v):
                out.add(_iri(v))
    return out  # type: ignore[return-value]


def _raw_reprodb(shared_data: Path) -> set[str]:
    records = json.loads((shared_data / ARTIFACTS).read_text("utf-8"))
    found = (_iri(u) for r in records for u in r.get("artifact_urls") or [] if RESOLVER in u)
    return {v for v in found if v}


def _codes(docs: list) -> set[str]:
    out = set()
    for d in docs:
        for code in d.graph.objects(None, RK.softwareHeritageCode):
            assert (code, RDF.type, SCHEMA.SoftwareSourceCode) in d.graph
            (ident,) = d.graph.objects(code, SCHEMA.identifier)
            assert RESOLVER + str(ident) == str(code)
            out.add(str(code))
    return out


@pytest.mark.slow  # ReproDB's 2,831 artifacts and ReScience's bibliography: ~10 s
def test_swhids_are_stored_as_code_and_join_the_sources_that_share_them(
    shared_data: Path, mlrc_docs: list, mlrc_files: list[Path]
) -> None:
    rs_docs, _ = rescience.load_with_summary((shared_data / BIB).read_bytes(), BIB)
    ae_docs, _ = artifact_evaluation.load_with_summary((shared_data / ARTIFACTS).read_bytes(), "a")
    rs, ml, ae = _codes(rs_docs), _codes(mlrc_docs), _codes(ae_docs)
    raw_rs, raw_ml, raw_ae = (
        _raw_rescience(shared_data),
        _raw_mlrc(mlrc_files),
        _raw_reprodb(shared_data),
    )
    assert (rs, ml, ae) == (raw_rs, raw_ml, raw_ae)
    assert (len(raw_rs), len(raw_ml), len(raw_ae)) == (159, 69, 2)
    # what the sources share, counted on the raw files: ReScience C and its MLRC headers
    # name the same code 69 times (every SWHID MLRC records); ReScience (or MLRC) and ReproDB never
    assert rs & ml == raw_rs & raw_ml and len(raw_rs & raw_ml) == 69
    assert rs & ae == raw_rs & raw_ae == set()
    assert ml & ae == raw_ml & raw_ae == set()


def test_a_malformed_swhid_is_a_warning_naming_the_entry_the_field_and_the_form(
    shared_data: Path,
) -> None:
    text = (shared_data / BIB).read_text("utf-8")
    entry = next(e for e in text.split("\n@")[1:] if "code_swh" in e)
    key = re.match(r"\w+\s*\{\s*([^,]+),", entry).group(1).strip()  # type: ignore[union-attr]
    bad = re.sub(r"code_swh\s*=\s*\{[^}]*\}", "code_swh = {swh:1:dir:not-a-hash}", entry)
    (doc,), _ = rescience.load_with_summary(("@" + bad).encode(), "x.bib")
    assert not list(doc.graph.objects(None, RK.softwareHeritageCode))
    assert Literal("swh:1:dir:not-a-hash") in set(doc.graph.objects(None, RK.softwareHeritageId))
    (m,) = [m for m in doc.messages if m.path == "code_swh"]
    assert m.severity == "Warning" and m.line is not None
    assert f"entry {key}" in m.message and "expected swh:1:<cnt|dir|rev|rel|snp>" in m.message
    assert doc.source_name == "x.bib"


def test_a_permalink_of_reprodb_names_its_code() -> None:
    h = "108a16dbb953d71bf228236ec09f6c3c3c967dad"
    url = f"{RESOLVER}swh:1:dir:{h};origin=https://github.com/islamazhar/CASPER"
    rec = {"conference": "SOSP", "year": 2023, "title": "T", "artifact_urls": [url]}
    (doc,), _ = artifact_evaluation.load_with_summary(json.dumps([rec]).encode(), "a.json")
    (artifact,) = doc.graph.subjects(RK.softwareHeritageCode, URIRef(f"{RESOLVER}swh:1:dir:{h}"))
    assert (artifact, RK.artifactLocation, URIRef(url)) in doc.graph
