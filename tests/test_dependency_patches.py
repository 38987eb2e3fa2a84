"""Each patch of a dependency's internals takes effect, and the dependency is bounded.

Three packages are reached into, each from one module (tests/test_architecture.py keeps
private third-party names there): rdflib (``core/lazy_graph.py``: ``Graph.__store`` and
``Memory.__spo``), pyshacl (``validation/pyshacl_engine.py``: the prepared-query cache and
the constraint parameter lookup) and uvicorn (``service/http.py``: the request-head
limits on its HTTP protocol). A new release that moves what a patch reaches fails here,
not as a silent slowdown or a limit that no longer holds; pyproject.toml bounds each to the
versions the patch was written for.
"""

from __future__ import annotations

import asyncio
import re
import socket
import threading
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from rdflib import Graph, URIRef
from rdflib.namespace import RDF

from reprokg.core.namespaces import RK
from tests.conftest import REPO, need
from tests.test_architecture import PATCH_MODULES


def test_each_patched_package_has_an_upper_bound() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    specs = {
        re.split(r"[\[<>=]", d, maxsplit=1)[0].strip(): d
        for d in project["project"]["dependencies"]
    }
    for package in PATCH_MODULES:
        assert "<" in specs[package], f"{package} has no upper bound: {specs[package]}"


# ------------------------------------------------------------------------------- rdflib


def test_graph_triples_reads_rdflibs_index(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path reads ``Memory.__spo``; were it gone, ``graph_triples`` would quietly
    iterate the graph (correct, three times slower): iteration is forbidden here."""
    from reprokg.core.lazy_graph import graph_triples

    g = Graph()
    triples = {(URIRef(f"https://example.org/s{i}"), RDF.type, RK.Run) for i in range(5)}
    for t in triples:
        g.add(t)

    def no_iteration(self: Graph) -> Iterator[object]:
        raise AssertionError("graph_triples fell back to Graph.__iter__")

    monkeypatch.setattr(Graph, "__iter__", no_iteration)
    assert set(graph_triples(g)) == triples


def test_a_lazy_graph_fills_through_graphs_private_store() -> None:
    """``LazyGraph`` hooks ``Graph.__store``: the store is filled on first use, not before."""
    from reprokg.core.lazy_graph import LazyGraph, pending_triples

    t = (URIRef("https://example.org/s"), RDF.type, RK.Run)
    lazy = LazyGraph([t])
    assert pending_triples(lazy) == [t]
    assert lazy.value(t[0], RDF.type) == RK.Run  # reaches the store
    assert pending_triples(lazy) is None and len(lazy.store) == 1


# ------------------------------------------------------------------------------ pyshacl


@pytest.mark.slow
def test_pyshacl_parses_each_constraint_once_and_reads_our_parameter_list(
    shared_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Validating a real annotated run with pyshacl, twice: the SHACL-SPARQL constraint
    of ``shapes/run.ttl`` is prepared once and reused (cache hits), and pyshacl's
    ``Shape.validate`` asks our set-backed parameter list."""
    from pyshacl import shape as shape_module
    from pyshacl.constraints.sparql.sparql_based_constraints import SPARQLBasedConstraint

    from reprokg.loaders import ir_metadata
    from reprokg.validation import pyshacl_engine as engine
    from reprokg.validation.shapes import materialise_types

    path = shared_data / "ir_metadata" / "annotated_run_example.txt"
    need(path.is_file(), f"{path} missing")
    doc = ir_metadata.load(path.read_bytes(), path.name)[0]

    asked = []
    contains = engine._ParameterList.__contains__

    def counting(self: list, item: object) -> bool:
        asked.append(item)
        return contains(self, item)

    monkeypatch.setattr(engine._ParameterList, "__contains__", counting)
    before = engine._prepared.cache_info().hits
    for _ in range(2):
        engine.shacl_results(materialise_types(doc.graph), doc.kind)
    assert SPARQLBasedConstraint._validate_sparql_query.__module__ == engine.__name__
    assert isinstance(shape_module.CONSTRAINT_PARAMS[0], engine._ParameterList)
    assert asked, "pyshacl did not read the parameter list we seeded"
    assert engine._prepared.cache_info().hits > before


# ------------------------------------------------------------------------------ uvicorn


@pytest.fixture(scope="module")
def head_limited_server() -> Iterator[int]:
    """uvicorn in a thread with our protocol: a 1 s head timeout and a 1 KiB head, a
    body timeout of 1 s (+ 1 s per 500 bytes)."""
    import uvicorn
    from fastapi import FastAPI

    from reprokg.core.settings import Settings
    from reprokg.service.http import protocol_class

    app = FastAPI()

    @app.get("/ok")
    def ok() -> dict[str, bool]:
        return {"ok": True}

    async def post_ok(request):
        from fastapi.responses import JSONResponse

        return JSONResponse({"bytes": len(await request.body())})

    app.add_route("/ok", post_ok, methods=["POST"])

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = Settings(header_timeout=1.0, max_header_bytes=1024, body_timeout=1.0)
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, http=protocol_class(settings), log_level="error"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        need(time.monotonic() < deadline, "uvicorn did not start")
        time.sleep(0.05)
    yield port
    server.should_exit = True
    thread.join(10)


def _reply(port: int, payload: bytes, wait: float) -> bytes:
    """What the server sends (until it closes) after ``payload``, within ``wait`` s."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as s:
        if payload:
            s.sendall(payload)
        data = b""
        try:
            while chunk := s.recv(4096):
                data += chunk
        except TimeoutError:
            return data + b"<still open>"
    return data


def test_uvicorn_protocol_is_httptools_with_our_head_limits() -> None:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    from reprokg.core.settings import Settings
    from reprokg.service.http import ConnectionLimits, protocol_class

    cls = protocol_class(Settings(header_timeout=3.0, body_timeout=4.0))
    assert issubclass(cls, ConnectionLimits) and issubclass(cls, HttpToolsProtocol)
    assert cls.header_timeout == 3.0 and cls.body_timeout == 4.0


def test_a_silent_client_is_closed_after_the_head_timeout(head_limited_server: int) -> None:
    # uvicorn alone never times out a connection that sends nothing
    assert _reply(head_limited_server, b"", wait=5) == b""


def test_a_head_over_the_limit_is_refused_with_431(head_limited_server: int) -> None:
    head = b"GET /ok HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 2000 + b"\r\n\r\n"
    assert _reply(head_limited_server, head, wait=5).startswith(b"HTTP/1.1 431 ")
    ok = _reply(head_limited_server, b"GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 5)
    assert ok.startswith(b"HTTP/1.1 200 ")


@pytest.mark.slow
def test_a_body_that_stops_coming_is_cut_with_408(head_limited_server: int) -> None:
    # uvicorn alone waits for the rest of a body for ever
    head = b"POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" + b"a" * 10
    assert _reply(head_limited_server, head, wait=5).startswith(b"HTTP/1.1 408 ")
    whole = head + b"a" * 90
    assert b'{"bytes":100}' in _reply(head_limited_server, whole, wait=5)
