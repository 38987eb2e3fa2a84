"""No request leaves the service or the CLI while parsing hostile RDF (issue 38).

A real HTTP listener on 127.0.0.1 stands for an internal service: JSON-LD contexts, an
XML external entity and ``owl:imports`` point at it. ``POST /shacl`` and ``reprokg
shacl`` fetched the contexts (SSRF); ``POST /validate`` and ``POST /documents`` did not and
must not start to. Each route runs in the request thread and in a parse worker.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from reprokg.core.settings import Settings
from reprokg.service.app import create_app
from reprokg.store import open_store
from tests.conftest import REPO
from tests.loopback import Listener, loopback_listener

TOKEN = "secret"
SHAPES_TTL = b"""@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix ex: <http://ex.org/> .
ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:property [ sh:path ex:p ; sh:minCount 1 ] .
"""
DATA_TTL = b"<http://ex.org/a> a <http://ex.org/C> ; <http://ex.org/p> 1 .\n"


@pytest.fixture
def http() -> Iterator[Listener]:
    with loopback_listener() as listener:
        yield listener


@pytest.fixture(params=[0, 1], ids=["in-thread", "parse-worker"])
def client(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TestClient]:
    store = open_store(":memory:", blob_dir=tmp_path / "blobs")
    settings = Settings(write_token=TOKEN, access_log=False, parse_workers=request.param)
    with TestClient(create_app(settings, store=store)) as c:
        yield c
    store.close()


def _jsonld(http: Listener, path: str) -> bytes:
    return json.dumps(
        {"@context": f"{http.url}/{path}", "@id": "http://ex.org/a", "p": "x"}
    ).encode()


def _shacl(client: TestClient, shapes: tuple[str, bytes], data: tuple[str, bytes]):
    return client.post("/shacl", files=[("shapes", shapes), ("data", data)])


def test_shacl_fetches_no_json_ld_context(client: TestClient, http: Listener) -> None:
    r = _shacl(client, ("shapes.jsonld", _jsonld(http, "s")), ("data.ttl", DATA_TTL))
    assert r.status_code == 400, r.text
    detail = r.json()["detail"]
    assert detail["source"] == "shapes.jsonld" and f"{http.url}/s" in detail["message"]
    r = _shacl(client, ("shapes.ttl", SHAPES_TTL), ("data.jsonld", _jsonld(http, "d")))
    assert r.status_code == 400, r.text
    detail = r.json()["detail"]
    assert detail["source"] == "data.jsonld" and f"{http.url}/d" in detail["message"]
    assert http.requests == []


def _laughs() -> bytes:
    ents = '<!ENTITY l0 "lol">' + "".join(
        f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10)
    )
    return (
        f'<!DOCTYPE lolz [{ents}]><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax'
        '-ns#" xmlns:ex="http://ex.org/"><rdf:Description rdf:about="http://ex.org/a">'
        "<ex:p>&l9;</ex:p></rdf:Description></rdf:RDF>"
    ).encode()


def test_shacl_refuses_a_dtd_at_once(client: TestClient, http: Listener) -> None:
    started = time.monotonic()
    r = _shacl(client, ("shapes.rdf", _laughs()), ("data.ttl", DATA_TTL))
    assert r.status_code == 400 and "<!DOCTYPE lolz" in r.json()["detail"]["message"]
    external = (
        f'<!DOCTYPE r [<!ENTITY e SYSTEM "{http.url}/e">]><rdf:RDF xmlns:rdf="http://www.w3'
        '.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="http://ex.org/a">'
        "<rdf:value>&e;</rdf:value></rdf:Description></rdf:RDF>"
    ).encode()
    r = _shacl(client, ("shapes.ttl", SHAPES_TTL), ("data.rdf", external))
    assert r.status_code == 400 and r.json()["detail"]["source"] == "data.rdf"
    assert time.monotonic() - started < 10  # a worker's start included
    assert http.requests == []


def test_shacl_follows_no_owl_imports(client: TestClient, http: Listener) -> None:
    shapes = (
        b"@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        + f"<http://ex.org/shapes> owl:imports <{http.url}/x> .\n".encode()
        + SHAPES_TTL
    )
    r = _shacl(client, ("shapes.ttl", shapes), ("data.ttl", DATA_TTL))
    assert r.status_code == 200 and r.json()["conforms"] is True, r.text
    assert http.requests == []


def test_validate_and_documents_fetch_nothing(client: TestClient, http: Listener) -> None:
    """An RO-Crate with a second, remote context and an OpenML run description with an
    external entity: refused or reported, never fetched."""
    crate = json.dumps(
        {
            "@context": ["https://w3id.org/ro/crate/1.1/context", f"{http.url}/crate"],
            "@graph": [
                {"@id": "ro-crate-metadata.json", "about": {"@id": "./"}},
                {"@id": "./", "@type": "Dataset"},
            ],
        }
    ).encode()
    openml = (
        f'<!DOCTYPE r [<!ENTITY e SYSTEM "{http.url}/openml">]>'
        '<oml:run xmlns:oml="http://openml.org/openml"><oml:run_id>&e;</oml:run_id></oml:run>'
    ).encode()
    auth = {"Authorization": f"Bearer {TOKEN}"}
    for name, body in (("ro-crate-metadata.json", crate), ("run.xml", openml)):
        for route in ("/validate", "/documents"):
            r = client.post(route, params={"name": name}, content=body, headers=auth)
            assert r.status_code < 500, (route, name, r.text)
            assert r.status_code != 201, (route, name, r.text)
    assert http.requests == []


def test_cli_shacl_fetches_nothing(
    tmp_path: Path, http: Listener, capsys: pytest.CaptureFixture[str]
) -> None:
    from reprokg.cli import main

    shapes = tmp_path / "shapes.jsonld"
    shapes.write_bytes(_jsonld(http, "cli"))
    data = tmp_path / "data.ttl"
    data.write_bytes(DATA_TTL)
    assert main(["shacl", "--shapes", str(shapes), str(data)]) == 2
    err = capsys.readouterr().err
    assert str(shapes) in err and f"{http.url}/cli" in err, err
    assert http.requests == []


def test_cli_import_of_a_crate_fetches_nothing(
    tmp_path: Path, http: Listener, capsys: pytest.CaptureFixture[str]
) -> None:
    """``reprokg import rocrate`` of a real crate whose ``@context`` is pointed at the
    listener (and given an ``@import`` to it too): the crate is read as JSON, nothing is
    fetched, whatever the import then says of the context."""
    import json
    import shutil

    from reprokg.cli import main

    crate = tmp_path / "crate"
    shutil.copytree(REPO / "tests/exchange/data/crates/process-run-example1", crate)
    meta = crate / "ro-crate-metadata.json"
    doc = json.loads(meta.read_text("utf-8"))
    doc["@context"] = [f"{http.url}/crate-context", {"@import": f"{http.url}/imported"}]
    meta.write_text(json.dumps(doc), "utf-8")
    main(["import", "rocrate", str(crate), "--store", str(tmp_path / "store")])
    capsys.readouterr()
    assert http.requests == []
