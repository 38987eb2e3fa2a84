"""RO-Crate export of every kind reprokg computes or holds, checked by the community's tools:
roc-validator (required level of the Process Run Crate profile; RO-Crate 1.2's own profile
for 1.2 crates) and ro-crate-py (``rocrate``) reading it back. Checksums and sizes are
recomputed here with hashlib from the files written, not read from the code under test.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import pytest
from rdflib import Graph

from reprokg.cli import main
from tests.conftest import need
from tests.exchange.conftest import PAPER, documents_by_kind

KINDS = [
    "comparison",
    "evaluation",
    "stability-analysis",
    "intrinsic-dimension",
    "study-result",
    "assessment",
    "critical-difference",
    "seed-comparison",
    "run",
]


def _export(store: Path, ident: str, out: Path, *extra: str) -> Path:
    code = main(["export", "crate", ident, "-o", str(out), "--store", str(store), *extra])
    assert code == 0
    return out


def _rocrate(path: Path):
    try:
        from rocrate.rocrate import ROCrate
    except ImportError:
        need(False, "rocrate (ro-crate-py, test extra) is not installed")
        raise
    return ROCrate(str(path))


def _check_payload(crate_dir: Path) -> dict:
    """Every File the metadata names exists, with the sha256 and size it says."""
    meta = json.loads((crate_dir / "ro-crate-metadata.json").read_text())
    entities = {e["@id"]: e for e in meta["@graph"]}
    root = entities["./"]
    parts = [p["@id"] for p in root["hasPart"]]
    assert parts, "the root lists its files"
    for pid in parts:
        e = entities[pid]
        data = (crate_dir / pid.replace("%20", " ")).read_bytes()
        assert e["sha256"] == hashlib.sha256(data).hexdigest(), pid
        assert int(e["contentSize"]) == len(data), pid
    return entities


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_validates_and_reads_back(
    kind: str, result_store: Path, tmp_path: Path, roc_validate
) -> None:
    from reprokg.store import open_store

    with open_store(result_store, read_only=True) as store:
        docs = documents_by_kind(store)
    assert docs.get(kind), f"the fixture store holds no {kind}"
    doc_id = docs[kind][0].rsplit("/", 1)[-1]
    crate = _export(result_store, doc_id, tmp_path / kind)
    assert roc_validate(crate) == []
    entities = _check_payload(crate)
    # read back with ro-crate-py: the root, the computation and the runs it recorded
    rc = _rocrate(crate)
    actions = {e.id: e for e in rc.get_entities() if e.type == "CreateAction"}
    assert "#export" in actions
    if kind != "run":
        assert "#computation" in actions
        assert actions["#computation"]["instrument"].id == "https://w3id.org/reprokg"
    # the graph: graph.nt is the result the export query read, graph.jsonld the same triples
    nt = (crate / "graph.nt").read_bytes()
    assert hashlib.sha256(nt).hexdigest() in actions["#export"]["description"]
    g_nt = Graph().parse(data=nt.decode(), format="nt")
    g_ld = Graph().parse(data=(crate / "graph.jsonld").read_text(), format="json-ld")
    assert len(g_nt) == len(g_ld) > 0
    assert f"GRAPH <{docs[kind][0]}>" in (crate / "export" / "query.sparql").read_text()
    if kind in ("comparison", "evaluation", "run"):
        runs = [a for a in actions if a.startswith("#run-")]
        assert runs, "the runs' PRIMAD"
        # every PRIMAD field is a PropertyValue of its run's action
        pvs = [e for e in entities.values() if e.get("@type") == "PropertyValue"]
        assert any(e["name"].startswith("platform.") for e in pvs)
    if kind not in ("run", "assessment"):
        assert (crate / "result.json").is_file() and (crate / "result.csv").is_file()


@pytest.mark.slow
def test_passport_as_crate_1_2(result_store: Path, tmp_path: Path, roc_validate) -> None:
    crate = _export(result_store, PAPER, tmp_path / "passport", "--ro-crate", "1.2")
    assert roc_validate(crate, "ro-crate-1.2") == []
    entities = _check_payload(crate)
    meta = entities["ro-crate-metadata.json"]
    assert meta["conformsTo"] == {"@id": "https://w3id.org/ro/crate/1.2"}
    data = json.loads((crate / "passport.json").read_text())
    assert data["paper"] == f"https://doi.org/{PAPER}"
    # the SPARQL behind each part of the passport, as files of the computation
    queries = sorted(p.name for p in (crate / "queries").iterdir())
    assert any("paper-runs" in q for q in queries)
    runs = [e for e in entities.values() if str(e["@id"]).startswith("#run-")]
    runs = [e for e in runs if e.get("@type") == "CreateAction"]
    assert len(runs) == len({r["run"] for r in data["runs"]}) > 0


def test_zip_is_the_folder_and_deterministic(result_store: Path, tmp_path: Path) -> None:
    from reprokg.store import open_store

    with open_store(result_store, read_only=True) as store:
        doc_id = documents_by_kind(store)["comparison"][0].rsplit("/", 1)[-1]
    folder = _export(result_store, doc_id, tmp_path / "dir")
    z1 = _export(result_store, doc_id, tmp_path / "a.zip")
    z2 = _export(result_store, doc_id, tmp_path / "b.zip")
    assert z1.read_bytes() == z2.read_bytes()
    with zipfile.ZipFile(z1) as z:
        names = z.namelist()
        assert names[0] == "ro-crate-metadata.json"
        files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
        assert sorted(names) == files
        for n in names:
            assert z.read(n) == (folder / n).read_bytes()
    rc = _rocrate(z1)
    assert rc.root_dataset["name"].startswith("comparison")


def test_comparison_crate_holds_its_numbers(result_store: Path, tmp_path: Path) -> None:
    """result.json is GET /comparisons/{id}'s JSON; the CSV holds every value of it."""
    import csv

    from reprokg.store import open_store

    with open_store(result_store, read_only=True) as store:
        doc_id = documents_by_kind(store)["comparison"][0].rsplit("/", 1)[-1]
    crate = _export(result_store, doc_id, tmp_path / "c")
    data = json.loads((crate / "result.json").read_text())
    rows = list(csv.DictReader((crate / "result.csv").open()))
    n = 0
    for r in rows:
        value = data["measures"][r["measure"]]
        for key in (r["side"], r["effect"]):
            if key:
                value = value[key]
        assert (value is None and r["value"] == "") or float(r["value"]) == value
        n += 1
    expected = sum(
        len(v) if not isinstance(next(iter(v.values())), dict) else sum(len(x) for x in v.values())
        for v in data["measures"].values()
    )
    assert n == expected > 0


def test_export_refuses_a_non_empty_folder(result_store: Path, tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "keep.txt").write_text("mine")
    code = main(["export", "crate", PAPER, "-o", str(tmp_path / "x"), "--store", str(result_store)])
    assert code == 2
    assert (tmp_path / "x" / "keep.txt").read_text() == "mine"
