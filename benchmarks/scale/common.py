"""What the scale benchmarks share: the counters graph reprokg keeps for a set of
documents, and each remote engine's own bulk path filled with what reprokg writes (the
documents, their merge, its state, the counters), from a file of N-Quads.

Used by ``remote_requests.py``, ``remote_ingest.py`` and ``table.py``.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from reprokg.store.merge import COUNTERS_GRAPH, MERGED_MARKER
from reprokg.store.remote import _DELTA, _HELD, MERGE_GRAPH, STATE_GRAPH

_STATE = "https://w3id.org/reprokg/store#mergeState"
_INT = "<http://www.w3.org/2001/XMLSchema#integer>"
#: the quad that says the merge is built (Virtuoso keeps the merge in its own graph)
VIRTUOSO_MERGED = f'<{STATE_GRAPH}> <{_STATE}> "merged" <{STATE_GRAPH}> .\n'


def counters_of(graphs: Iterable[str]) -> Iterator[str]:
    """The counters graph reprokg keeps for these document graphs, as N-Quads lines: each
    document's membership quad (the count), then one folded delta (the version)."""
    g = f"<{COUNTERS_GRAPH}>"
    n = 0
    for doc in graphs:
        n += 1
        yield f'<{doc}> <{_HELD}> "1"^^{_INT} {g} .\n'
    yield f'<https://w3id.org/reprokg/store#fold/bench> <{_DELTA}> "{n}"^^{_INT} {g} .\n'


def merge_line(triple: str, engine: str) -> str:
    """A document's triple (``s p o``) as the merge holds it on ``engine``: the default
    graph on Oxigraph server, :data:`MERGE_GRAPH` on Virtuoso."""
    return f"{triple} .\n" if engine == "oxigraph" else f"{triple} <{MERGE_GRAPH}> .\n"


def _chunks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            yield chunk


def oxigraph_post(url: str, body: bytes | Path) -> float:
    """Seconds for Oxigraph server's own bulk path (one POST of the N-Quads to ``/store``,
    one transaction) to take ``body`` (bytes or a file, streamed), the merge marker after."""
    base = url.removesuffix("/query")
    content = body if isinstance(body, bytes) else _chunks(body)
    t0 = time.perf_counter()
    r = httpx.post(
        base + "/store",
        content=content,
        headers={"Content-Type": "application/n-quads"},
        timeout=7200,
    )
    r.raise_for_status()
    httpx.post(
        base + "/update", data={"update": f"CREATE GRAPH <{MERGED_MARKER}>"}
    ).raise_for_status()
    return time.perf_counter() - t0


def virtuoso_load(d: Path, name: str) -> float:
    """Seconds for Virtuoso's loader (``ld_dir`` + ``rdf_loader_run`` + ``checkpoint``
    through ``isql``) to take the N-Quads file ``d/name`` into the engine started in ``d``."""
    ini = (d / "virtuoso.ini").read_text()
    sql_port = ini.split("ServerPort = ")[1].split()[0]
    isql = shutil.which("isql-vt") or "isql"
    unused = "https://example.org/bench/unused"
    script = f"ld_dir('{d}', '{name}', '{unused}');\nrdf_loader_run();\ncheckpoint;\n"
    t0 = time.perf_counter()
    res = subprocess.run(
        [isql, sql_port, "dba", "dba"], input=script, capture_output=True, text=True, timeout=7200
    )
    if res.returncode != 0 or "Error" in res.stdout:
        raise RuntimeError(res.stdout + res.stderr)
    return time.perf_counter() - t0


@contextmanager
def engine(kind: str, folder: Path) -> Iterator[str]:
    """A fresh engine (``oxigraph`` or ``virtuoso``, as ``tests/engines.py`` starts it) in
    ``folder``, its URL yielded; stopped and ``folder`` removed afterwards."""
    from tests.engines import _stop, start_oxigraph_server, start_virtuoso

    folder.mkdir()
    start = start_oxigraph_server if kind == "oxigraph" else start_virtuoso
    proc, url = start(folder)
    try:
        yield url
    finally:
        _stop(proc)
        shutil.rmtree(folder, ignore_errors=True)
