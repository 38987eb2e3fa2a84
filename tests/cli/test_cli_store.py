"""The store verbs of the CLI, in-process: load, validate, query, export, dump, restore, backup."""

from __future__ import annotations

import io
import json
import shutil

import pytest
import yaml

from reprokg.cli import main

#: the namespace of the store's bookkeeping graphs (store/merge.py)
STORE_NS = "https://w3id.org/reprokg/store#"


@pytest.fixture
def run_file(shared_data, tmp_path):
    src = shared_data / "ir_metadata" / "annotated_run_example.txt"
    dst = tmp_path / "src" / src.name
    dst.parent.mkdir()
    shutil.copy(src, dst)
    return dst


@pytest.fixture
def bad_orcid_file(shared_data, tmp_path):
    text = (shared_data / "ir_metadata" / "website_checklist_examples_assembled.yaml").read_text(
        encoding="utf-8"
    )
    assert "orcid: 0000-0002-0661-7189" in text
    f = tmp_path / "bad_orcid.yaml"
    f.write_text(text.replace("0000-0002-0661-7189", "0000-0002-0661-7188"), encoding="utf-8")
    return f


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.slow
def test_load_then_unchanged(capsys, run_file, tmp_path) -> None:
    store = str(tmp_path / "kg")
    code, out, _ = run(capsys, "load", str(run_file.parent), "--store", store)
    assert code == 0
    assert out.strip().splitlines()[-1].startswith("1 added, 0 unchanged, 0 revised, 0 rejected")
    code, out, _ = run(capsys, "load", str(run_file), "--store", store)
    assert code == 0 and "0 added, 1 unchanged" in out


def test_load_rejects_violation_with_exit_1(capsys, bad_orcid_file, tmp_path) -> None:
    store = str(tmp_path / "kg")
    code, out, err = run(capsys, "load", str(bad_orcid_file), "--store", store)
    assert code == 1
    assert "1 rejected" in out
    assert "0000-0002-0661-7188" in err and "MOD 11-2" in err
    assert not (tmp_path / "kg").exists()  # nothing written: the store it made is removed


def test_validate_formats_and_exit_codes(capsys, run_file, bad_orcid_file, tmp_path) -> None:
    assert run(capsys, "validate", str(run_file))[0] == 0
    code, out, _ = run(capsys, "validate", str(bad_orcid_file), "--format", "json")
    assert code == 1
    reports = json.loads(out)
    assert reports[0]["conforms"] is False
    assert any(r["path"] and "orcid" in r["path"] for r in reports[0]["results"])
    code, out, _ = run(capsys, "validate", str(bad_orcid_file), "--format", "turtle")
    assert code == 1 and "sh:ValidationReport" in out
    broken = tmp_path / "broken.yaml"
    broken.write_text("ir_metadata.start\ntag: [x\nir_metadata.end\n", encoding="utf-8")
    code, out, _ = run(capsys, "validate", str(broken))
    assert code == 2 and "broken.yaml:" in out


def test_query_formats_and_sources(capsys, run_file, tmp_path, monkeypatch) -> None:
    store = str(tmp_path / "kg")
    run(capsys, "load", str(run_file), "--store", store)
    q = (
        "PREFIX rk: <https://w3id.org/reprokg/ontology#> "
        "SELECT ?kind WHERE { ?d rk:documentKind ?kind }"
    )
    code, out, _ = run(capsys, "query", q, "--store", store, "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["head"]["vars"] == ["kind"]
    assert [b["kind"]["value"] for b in doc["results"]["bindings"]] == ["run"]
    code, out, _ = run(capsys, "query", q, "--store", store, "--format", "csv")
    assert out.splitlines() == ["kind", "run"]
    rq = tmp_path / "q.rq"
    rq.write_text(q, encoding="utf-8")
    code, out, _ = run(capsys, "query", f"@{rq}", "--store", store)
    assert code == 0 and out.splitlines()[2].strip() == "run" and "(1 row)" in out
    monkeypatch.setattr("sys.stdin", io.StringIO(q))
    code, out, _ = run(capsys, "query", "-", "--store", store, "--format", "csv")
    assert out.splitlines() == ["kind", "run"]
    code, _, err = run(capsys, "query", "SELECT ?x WHERE {", "--store", store)
    assert code == 2 and err


@pytest.mark.slow
def test_export_turtle_nquads_yaml(capsys, run_file, tmp_path) -> None:
    store = str(tmp_path / "kg")
    run(capsys, "load", str(run_file), "--store", store)
    code, out, _ = run(
        capsys, "query", "SELECT ?g WHERE { GRAPH ?g {} }", "--store", store, "--format", "csv"
    )
    # the document's graph (the store's bookkeeping graphs are listed too, in no set order)
    iri = next(g.strip() for g in out.splitlines()[1:] if not g.startswith(STORE_NS))
    doc_id = iri.rsplit("/", 1)[-1]
    code, out, _ = run(capsys, "export", doc_id[:12], "--store", store)
    assert code == 0 and "rk:Document" in out
    code, out, _ = run(capsys, "export", iri, "--store", store, "--format", "nquads")
    assert code == 0 and all(line.endswith(f"<{iri}> .") for line in out.strip().splitlines())
    code, out, _ = run(capsys, "export", doc_id, "--store", store, "--format", "yaml")
    assert code == 0
    header = yaml.safe_load(out)
    assert header["tag"] == "bm25+rm3"  # as written in the file's header
    assert run(capsys, "export", "deadbeefdeadbeef", "--store", store)[0] == 2


@pytest.mark.slow
def test_dump_restore_backup(capsys, run_file, tmp_path) -> None:
    store = str(tmp_path / "kg")
    run(capsys, "load", str(run_file), "--store", store)
    dump = tmp_path / "all.nq"
    assert run(capsys, "dump", "-o", str(dump), "--store", store)[0] == 0
    n_quads = len(dump.read_text(encoding="utf-8").strip().splitlines())
    code, out, _ = run(capsys, "restore", str(dump), "--store", str(tmp_path / "copy"))
    assert code == 0 and "1 document(s)" in out
    code, out, _ = run(
        capsys,
        "query",
        "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }",
        "--store",
        str(tmp_path / "copy"),
        "--format",
        "csv",
    )
    assert int(out.splitlines()[1]) == n_quads
    assert run(capsys, "backup", str(tmp_path / "bak"), "--store", store)[0] == 0
    code, out, _ = run(capsys, "dump", "--store", str(tmp_path / "bak"), "--read-only")
    assert len(out.strip().splitlines()) == n_quads
    assert run(capsys, "backup", str(tmp_path / "bak"), "--store", store)[0] == 2


def test_restore_reads_a_gzipped_dump_as_it_is(capsys, tmp_path) -> None:
    """``reprokg field build`` writes its dump gzipped: restore takes it by its magic bytes
    (and a plain dump as before)."""
    import gzip

    g = "https://w3id.org/reprokg/id/doc/" + "ab" * 32
    quad = f'<{g}> <http://www.w3.org/2000/01/rdf-schema#label> "x" <{g}> .\n'
    plain, packed = tmp_path / "a.nq", tmp_path / "a.nq.gz"
    plain.write_text(quad, encoding="utf-8")
    packed.write_bytes(gzip.compress(quad.encode(), mtime=0))
    for dump, store in ((packed, "z"), (plain, "p")):
        code, out, err = run(capsys, "restore", str(dump), "--store", str(tmp_path / store))
        assert code == 0, err
        assert "1 document(s) there (+1)" in out
