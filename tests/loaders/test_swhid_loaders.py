"""SWHIDs the sources record, stored as the code they name (``rk:softwareHeritageCode``, the
archive's IRI of the core SWHID): ReScience C's ``code_swh``, MLRC's ``code.swh``, ReproDB's
Software Heritage permalinks, GRSI's ``repo_archive_url`` and the SIGGRAPH survey's ``Software
Heritage permalink``. The expected sets are read from the raw files with regular
expressions and json, not through the loaders; a SWHID two sources record joins them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rdflib import RDF, Literal, URIRef

from reprokg.core.namespaces import RK, SCHEMA
from reprokg.loaders import artifact_evaluation, grsi, replicability_graphics, rescience

BIB = "surveys/rescience/journal_bib/_bibliography/published.bib"
ARTIFACTS = "artifact_evaluation/reprodb/artifacts.json"
GRSI = "surveys/grsi_isenberg/publication_data/grsi_paper_data.json"
SIGGRAPH = "replicability_graphics/per_paper"
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


def _raw_grsi(shared_data: Path) -> set[str]:
    records = json.loads((shared_data / GRSI).read_text("utf-8"))
    found = (_iri(r.get("repo_archive_url") or "") for r in records)
    return {v for v in found if v}


#: a permalink as swh.model (the reference implementation) reads it: a qualifier's SWHID
#: (visit=, anchor=) is 40 hex digits, nothing after; the origin= URL may end in "/"
_PERMALINK = re.compile(
    r"^https://archive\.softwareheritage\.org/(swh:1:(?:cnt|dir|rev|rel|snp):[0-9a-f]{40})"
    r"(?:;origin=[^;]+)?(?:;visit=swh:1:snp:[0-9a-f]{40})?(?:;anchor=swh:1:[a-z]{3}:[0-9a-f]{40})?"
    r"(?:;path=[^;]+)?/?$"
)


def _raw_siggraph(shared_data: Path) -> tuple[set[str], list[str]]:
    """The permalinks' core SWHIDs, and the values naming one swh.model refuses."""
    ok, refused = set(), []
    for f in sorted((shared_data / SIGGRAPH).glob("*/*.json")):
        for v in re.findall(r'"Software Heritage permalink":\s*"([^"]+)"', f.read_text("utf-8")):
            m = _PERMALINK.match(v)
            if m and not re.search(r"(visit|anchor)=swh:1:[a-z]{3}:[0-9a-f]{40}/$", v):
                ok.add(RESOLVER + m.group(1))
            elif "/browse/" not in v:
                refused.append(v)
    return ok, refused


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


@pytest.mark.slow  # GRSI's 460 stamps and the survey's 454 per-paper files: ~3 s
def test_grsi_and_the_siggraph_survey_store_their_swhids_and_share_none(
    shared_data: Path,
) -> None:
    """GRSI's archive links name snapshots, the survey's permalinks folders and revisions:
    counted on the raw files, the two and ReScience C share no SWHID (not even one named in
    a qualifier), so code joins none of them."""
    gr = _codes(grsi.load((shared_data / GRSI).read_bytes(), GRSI))
    sg_docs: list = []
    for f in sorted((shared_data / SIGGRAPH).glob("*/*.json")):
        sg_docs += replicability_graphics.load(f.read_bytes(), f.name)
    sg = _codes(sg_docs)
    raw_gr = _raw_grsi(shared_data)
    raw_sg, refused = _raw_siggraph(shared_data)
    assert (gr, sg) == (raw_gr, raw_sg)
    assert (len(raw_gr), len(raw_sg)) == (223, 93)
    # refused: "pending", and three whose visit=/anchor= SWHID ends in a browser's "/"
    assert len(refused) == 4
    warned = [m for d in sg_docs for m in d.messages if m.path == "Software Heritage permalink"]
    assert sorted(m.value for m in warned) == sorted(refused)
    for m in warned:
        assert m.severity == "Warning" and m.line is not None
        assert m.message.startswith("paper 10.1145/")
        assert "expected swh:1:<cnt|dir|rev|rel|snp>" in m.message
    # every SWHID the raw files name at all (qualifiers' visit= and anchor= included)
    named = re.compile(r"swh:1:[a-z]+:[0-9a-f]{40}")
    all_gr = set(named.findall((shared_data / GRSI).read_text("utf-8")))
    all_sg = {
        s for f in (shared_data / SIGGRAPH).glob("*/*.json") for s in named.findall(f.read_text())
    }
    all_rs = set(named.findall((shared_data / BIB).read_text("utf-8")))
    assert (len(all_gr), len(all_sg), len(all_rs)) == (223, 125, 162)
    assert all_gr & all_sg == all_gr & all_rs == all_sg & all_rs == set()
    assert gr & sg == gr & _raw_rescience(shared_data) == sg & _raw_rescience(shared_data) == set()


def test_a_grsi_permalink_names_its_code_and_a_browse_link_stays_a_link() -> None:
    h = "dd8bd739e177916f168ae1b5cf5f15209bb1aafb"
    rec = {"title": "T", "doi": "10.1145/1", "grsi_url": "https://www.replicabilitystamp.org/#a"}
    perma = f"{RESOLVER}swh:1:snp:{h};origin=https://github.com/juhyeonkim95/MitsubaOHD"
    browse = f"{RESOLVER}browse/origin/?origin_url=https://gitlab.inria.fr/x/y"
    bad = f"{RESOLVER}swh:1:snp:{h[:-1]};origin=https://github.com/a/b"
    recs = [
        {**rec, "repo_archive_url": perma},
        {**rec, "doi": "10.1145/2", "grsi_url": rec["grsi_url"] + "b", "repo_archive_url": browse},
        {**rec, "doi": "10.1145/3", "grsi_url": rec["grsi_url"] + "c", "repo_archive_url": bad},
    ]
    a, b, c = grsi.load(json.dumps(recs).encode(), "g.json")
    (stamp,) = a.graph.subjects(RK.softwareHeritageCode, URIRef(f"{RESOLVER}swh:1:snp:{h}"))
    assert (stamp, RK.stampedCodeArchive, URIRef(perma)) in a.graph
    assert not list(b.graph.objects(None, RK.softwareHeritageCode)) and not b.messages
    assert not list(c.graph.objects(None, RK.softwareHeritageCode))
    (m,) = c.messages
    assert m.severity == "Warning" and m.path == "repo_archive_url" and m.line is not None
    assert m.message.startswith("stamp https://www.replicabilitystamp.org/#ac: repo_archive_url")
    assert "expected swh:1:<cnt|dir|rev|rel|snp>" in m.message
