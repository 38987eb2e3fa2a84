"""The importers through ``POST /documents`` (the one upload path: parse workers, limits)
and the crates through ``GET /documents/{id}/crate`` and ``GET /paper/crate``."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from reprokg.core.settings import Settings
from reprokg.service.app import create_app
from reprokg.store import open_store
from tests.exchange.conftest import CRATES

TOKEN = "exchange-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
OPENML = Path(__file__).parent / "data" / "openml" / "description.xml"


@pytest.fixture
def client(tmp_path):
    store = open_store(tmp_path / "kg", blob_dir=tmp_path / "blobs")
    settings = Settings(write_token=TOKEN, access_log=False, max_body_bytes=200_000)
    with TestClient(create_app(settings, store=store)) as c:
        yield c
    store.close()


def _zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return buf.getvalue()


@pytest.mark.slow
def test_imports_through_post_documents_and_out_as_crates(client, tmp_path: Path) -> None:
    # an RO-Crate's metadata, sniffed by its name
    meta = (CRATES / "provenance-revsort" / "ro-crate-metadata.json").read_bytes()
    r = client.post(
        "/documents?name=ro-crate-metadata.json",
        content=meta,
        headers={"Content-Type": "application/ld+json", **AUTH},
    )
    assert r.status_code == 201, r.text
    docs = r.json()["documents"]
    assert len(docs) == 3 and {d["kind"] for d in docs} == {"run"}
    # the same crate as a ZIP (binary: with ?kind=) gives the same documents, unchanged
    r = client.post(
        "/documents?kind=rocrate&name=crate.zip",
        content=_zip({"crate/ro-crate-metadata.json": meta}),
        headers={"Content-Type": "application/zip", **AUTH},
    )
    assert r.status_code == 201, r.text
    assert {d["status"] for d in r.json()["documents"]} == {"unchanged"}
    # an OpenML run description, sniffed
    r = client.post(
        "/documents?name=description.xml",
        content=OPENML.read_bytes(),
        headers={"Content-Type": "application/xml", **AUTH},
    )
    assert r.status_code == 201, r.text
    (run,) = r.json()["documents"]
    # and the run back out as a crate
    crate = client.get(f"/documents/{run['id']}/crate")
    assert crate.status_code == 200 and crate.headers["content-type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(crate.content)) as z:
        assert "ro-crate-metadata.json" in z.namelist()
        z.extractall(tmp_path / "crate")
    from rocrate.rocrate import ROCrate

    rc = ROCrate(str(tmp_path / "crate"))
    assert any(e.id == "#run-run" for e in rc.get_entities())


def test_errors_are_located_and_limited(client) -> None:
    bad = _zip({"mlruns/1/meta.yaml": b"name: [unclosed\n"})
    r = client.post(
        "/documents?kind=mlflow&name=mlruns.zip",
        content=bad,
        headers={"Content-Type": "application/zip", **AUTH},
    )
    assert r.status_code == 400
    body = r.json()["detail"]
    assert body["source"] == "mlruns.zip!mlruns/1/meta.yaml" and body["line"] == 2
    big = _zip({"mlruns/1/meta.yaml": b"x" * 10, "pad.bin": bytes(range(256)) * 1200})
    r = client.post(
        "/documents?kind=mlflow&name=mlruns.zip",
        content=big,
        headers={"Content-Type": "application/zip", **AUTH},
    )
    assert r.status_code == 413
    assert client.get("/documents").json()["count"] == 0  # nothing written
    r = client.get("/documents/" + "0" * 64 + "/crate")
    assert r.status_code == 404
    r = client.get("/paper/crate?doi=10.1234/nothing-here")
    assert r.status_code == 404
