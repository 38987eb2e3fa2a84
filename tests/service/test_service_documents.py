"""POST /documents and /validate with the real annotated run file (repro_eval's format)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from reprokg.core.hashing import content_hash
from reprokg.core.settings import Settings
from reprokg.service.app import create_app
from reprokg.store import open_store

TOKEN = "doc-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
TEXT = {"Content-Type": "text/plain", **AUTH}


@pytest.fixture
def run_bytes(shared_data: Path) -> bytes:
    return (shared_data / "ir_metadata" / "annotated_run_example.txt").read_bytes()


@pytest.fixture
def client(tmp_path):
    store = open_store(":memory:", blob_dir=tmp_path / "blobs")
    yield TestClient(create_app(Settings(write_token=TOKEN, access_log=False), store=store))
    store.close()


def _bad_orcid(data: bytes) -> bytes:
    # the file's ORCID 0000-0002-0661-7189 with its check digit broken
    assert b"0000-0002-0661-7189" in data
    return data.replace(b"0000-0002-0661-7189", b"0000-0002-0661-7188")


@pytest.mark.slow
def test_upload_a_run_file(client, run_bytes) -> None:
    r = client.post("/documents?name=example.run", content=run_bytes, headers=TEXT)
    assert r.status_code == 201, r.text
    body = r.json()
    [doc] = body["documents"]
    assert doc["status"] == "added" and doc["kind"] == "run"
    assert doc["id"] == content_hash(run_bytes)
    # the file's header tag (bm25+rm3) differs from its run lines' tag: a warning, stored anyway
    assert any(w["path"] == "tag" and w["severity"] == "Warning" for w in body["warnings"])

    listed = client.get("/documents").json()["documents"]
    assert [(d["id"], d["kind"], d["source"]) for d in listed] == [
        (doc["id"], "run", "example.run")
    ]
    r = client.get(f"/documents/{doc['id']}?original=true")
    assert r.status_code == 200 and r.content == run_bytes.replace(b"\r\n", b"\n")
    r = client.get(f"/documents/{doc['id']}", headers={"Accept": "text/turtle"})
    assert "https://orcid.org/0000-0002-0661-7189" in r.text

    again = client.post("/documents?name=example.run", content=run_bytes, headers=TEXT)
    assert again.status_code == 201 and again.json()["documents"][0]["status"] == "unchanged"
    assert client.get("/documents").json()["count"] == 1


@pytest.mark.slow
def test_violations_give_422_and_store_nothing(client, run_bytes) -> None:
    files = [
        ("file", ("good.run", run_bytes, "text/plain")),
        ("file", ("bad.run", _bad_orcid(run_bytes), "text/plain")),
    ]
    r = client.post("/documents", files=files, headers=AUTH)
    assert r.status_code == 422
    reports = {rep["source"]: rep for rep in r.json()["reports"]}
    assert reports["good.run"]["conforms"] is True
    bad = [x for x in reports["bad.run"]["results"] if x["severity"] == "Violation"]
    assert any("0000-0002-0661-7188" in (x["value"] or x["message"]) for x in bad)
    assert client.get("/documents").json()["count"] == 0


@pytest.mark.slow
def test_validate_never_stores(client, run_bytes) -> None:
    r = client.post("/validate?name=x.run", content=_bad_orcid(run_bytes), headers=TEXT)
    assert r.status_code == 200 and r.json()["conforms"] is False
    r = client.post("/validate?name=x.run", content=run_bytes, headers=TEXT)
    assert r.status_code == 200 and r.json()["conforms"] is True
    assert client.get("/documents").json()["count"] == 0


@pytest.mark.slow
def test_unreadable_input_is_400_with_the_position(client) -> None:
    r = client.post(
        "/documents?kind=run&name=h.yaml",
        content=b"tag: x\nplatform: [unclosed\n",
        headers={"Content-Type": "application/yaml", **AUTH},
    )
    assert r.status_code == 400
    detail = r.json()["detail"]
    assert detail["source"] == "h.yaml" and detail["line"] is not None
    assert client.get("/documents").json()["count"] == 0


@pytest.mark.slow
def test_unsupported_input_is_415(client) -> None:
    r = client.post("/documents?kind=nosuchkind", content=b"a: 1\n", headers=TEXT)
    assert r.status_code == 415
    r = client.post("/documents?name=notes.txt", content=b"just some words\n", headers=TEXT)
    assert r.status_code == 415
    r = client.post("/documents", content=b"\x00\x01\x02", headers=TEXT)
    assert r.status_code == 415


@pytest.mark.slow
def test_delete_an_uploaded_document(client, run_bytes) -> None:
    doc = client.post("/documents?name=e.run", content=run_bytes, headers=TEXT).json()
    doc_id = doc["documents"][0]["id"]
    assert (
        client.delete(f"/documents/{doc_id}", headers={"Authorization": "Bearer no"}).status_code
        == 403
    )
    assert client.get("/documents").json()["count"] == 1
    assert client.delete(f"/documents/{doc_id}", headers=AUTH).status_code == 204
    assert client.get("/documents").json()["count"] == 0


def test_the_original_of_a_file_loaded_by_the_cli(tmp_path, run_bytes, capsys) -> None:
    """Keeping the original is an ingest option ``reprokg load`` uses as the upload does:
    ``?original=true`` answered 404 for a file loaded with the CLI and 200 when uploaded."""
    from reprokg.cli import main

    src = tmp_path / "example.run"
    src.write_bytes(run_bytes)
    assert main(["load", str(src), "--store", str(tmp_path / "kg")]) == 0
    capsys.readouterr()
    store = open_store(tmp_path / "kg")
    try:
        client = TestClient(create_app(Settings(access_log=False), store=store))
        r = client.get(f"/documents/{content_hash(run_bytes)}?original=true")
        assert r.status_code == 200 and r.content == run_bytes.replace(b"\r\n", b"\n")
        assert 'filename="example.run"' in r.headers["content-disposition"]
    finally:
        store.close()
    # and --no-originals keeps none
    assert main(["load", str(src), "--store", str(tmp_path / "kg2"), "--no-originals"]) == 0
    store = open_store(tmp_path / "kg2")
    try:
        client = TestClient(create_app(Settings(access_log=False), store=store))
        r = client.get(f"/documents/{content_hash(run_bytes)}?original=true")
        assert r.status_code == 404
    finally:
        store.close()


def test_an_upload_nearly_claimed_gets_the_loaders_error(client) -> None:
    """The same one error path as the CLI (loaders.load_source): an audit of version 99 is
    answered with the audit loader's error, not "no loader recognises this input"."""
    from tests.conftest import REPO

    data = (REPO / "examples/audits/gcn.yaml").read_bytes()
    bad = data.replace(b"\naudit: 1\n", b"\naudit: 99\n")
    assert bad != data
    r = client.post("/validate?name=gcn.yaml", content=bad, headers=TEXT)
    assert r.status_code == 400
    detail = r.json()["detail"]
    assert (detail["line"], detail["field"], detail["kind"]) == (2, "audit", "audit")
    assert detail["message"] == "99 is not allowed here; expected one of: 1"
    r = client.post("/validate?name=notes.txt", content=b"just some words\n", headers=TEXT)
    assert r.status_code == 415
    assert r.json()["detail"]["tried"][:3] == ["run", "mlrc", "audit"]
