"""Request size and time of a passport-like query, ``documents()`` and ``version()`` at
growing document counts: embedded store, Oxigraph server and Virtuoso 7 side by side.

    cd reprokg && python -m benchmarks.scale.remote_requests [--sizes 1000 10000] [--out F]

Data: ``n`` documents, each one run ``<run/i>`` citing paper ``<paper/(i mod 100)>`` with a
tag and a score (4 triples), so a paper is cited by n/100 runs. The engines are started on
loopback by ``tests/engines.py`` and filled through their own bulk paths with what reprokg
would have written (the documents, their merge, the merge's state and the counters), so
loading is not what is measured here:

* embedded — ``OxigraphStore.restore`` of the N-Quads;
* Oxigraph server — its Graph Store endpoint (``/store``) with the N-Quads and the merge in
  the default graph;
* Virtuoso — its bulk loader (``ld_dir`` / ``rdf_loader_run`` through ``isql``).

Measured through :class:`reprokg.store.remote.RemoteStore` (the request bodies its HTTP
client sends, the largest one reported) and, for Virtuoso, the request the previous design
sent for the same query (``named-graph-uri`` per document, after a listing query), posted
directly. Times are medians of 5 (after one warm-up). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx

from benchmarks.scale.common import (
    VIRTUOSO_MERGED,
    counters_of,
    engine,
    oxigraph_post,
    virtuoso_load,
)
from reprokg.store import open_store
from reprokg.store.remote import MERGE_GRAPH, RemoteStore

EX = "https://example.org/bench/"
PAPERS = 100
PASSPORT = (
    f"SELECT ?run ?tag ?doc WHERE {{ GRAPH ?doc {{ ?run <{EX}cites> <{EX}paper/7> }} "
    f"?run <{EX}tag> ?tag }} ORDER BY ?run"
)
#: Virtuoso refused the previous design's request at 10,000 documents (400): not tried beyond
PREVIOUS_UP_TO = 10_000


def triples(i: int) -> list[str]:
    run = f"<{EX}run/{i}>"
    return [
        f"{run} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{EX}Run>",
        f"{run} <{EX}cites> <{EX}paper/{i % PAPERS}>",
        f'{run} <{EX}tag> "run-{i}"',
        f'{run} <{EX}score> "{i}"^^<http://www.w3.org/2001/XMLSchema#integer>',
    ]


def nquads(n: int, merge_graph: str | None, merge: bool = True) -> str:
    """The documents, then (``merge``) their merge: in ``merge_graph`` or the default graph."""
    lines = []
    for i in range(n):
        for t in triples(i):
            lines.append(f"{t} <{EX}doc/{i}> .")
            if merge:
                lines.append(f"{t} <{merge_graph}> ." if merge_graph else f"{t} .")
    return "\n".join(lines) + "\n"


def counters(n: int) -> str:
    """The counters graph reprokg keeps for the ``n`` documents, as N-Quads: each
    document's membership quad (the count) and one folded delta (the version)."""
    return "".join(counters_of(f"{EX}doc/{i}" for i in range(n)))


def oxigraph_bulk_load(url: str, n: int) -> float:
    """Seconds for Oxigraph server's own bulk path (one POST of the N-Quads to ``/store``)
    to take what reprokg writes for ``n`` documents (merge in the default graph)."""
    return oxigraph_post(url, (nquads(n, None) + counters(n)).encode())


def virtuoso_bulk_load(d: Path, n: int) -> float:
    """Seconds for Virtuoso's loader (``ld_dir`` + ``rdf_loader_run``) to take what reprokg
    writes for ``n`` documents into the engine started in ``d``."""
    (d / "bench.nq").write_text(nquads(n, MERGE_GRAPH) + VIRTUOSO_MERGED + counters(n))
    return virtuoso_load(d, "bench.nq")


def timed(fn: Callable[[], Any], repeats: int = 5) -> tuple[float, Any]:
    fn()
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000, out


def spy_sizes(store: RemoteStore) -> list[int]:
    sizes: list[int] = []
    post = store._client.post

    def spy(url: str, *, content: bytes = b"", **kw: Any) -> Any:
        sizes.append(len(content))
        return post(url, content=content, **kw)

    store._client.post = spy  # type: ignore[method-assign]
    return sizes


def measure_remote(url: str, n: int) -> dict[str, Any]:
    store = open_store(url, read_only=True)
    assert isinstance(store, RemoteStore) and store.merged
    assert store.document_count() == n, (store.document_count(), n)
    sizes = spy_sizes(store)
    out: dict[str, Any] = {}
    for name, fn in (
        ("passport", lambda: store.query(PASSPORT).rows),  # type: ignore[union-attr]
        ("documents()", store.documents),
        ("version()", store.version),
    ):
        sizes.clear()
        ms, res = timed(fn)
        out[name] = {"ms": round(ms, 2), "request_bytes": max(sizes)}
        if name == "passport":
            assert len(res) == n // PAPERS, len(res)
    store.close()
    return out


def previous_design(url: str, n: int) -> dict[str, Any]:
    """The request the remote store sent before (merge graph + one named-graph-uri per
    document, after listing them): posted as it was."""
    store = open_store(url, read_only=True)
    assert isinstance(store, RemoteStore)

    def run() -> int:
        docs = store.documents()
        data = [("query", PASSPORT), ("default-graph-uri", MERGE_GRAPH)]
        data += [("named-graph-uri", str(d)) for d in docs]
        body = urlencode(data).encode()
        r = httpx.post(
            store.url,
            content=body,
            headers={
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/sparql-results+json",
            },
            timeout=600,
        )
        r.raise_for_status()
        run.size = len(body)  # type: ignore[attr-defined]
        return len(r.json()["results"]["bindings"])

    try:
        ms, rows = timed(run, repeats=3)
        result = {"ms": round(ms, 2), "request_bytes": run.size}  # type: ignore[attr-defined]
        assert rows == n // PAPERS
    except (httpx.HTTPError, AssertionError) as exc:
        result = {"error": str(exc)[:200]}
    store.close()
    return result


def embedded(n: int, work: Path) -> dict[str, Any]:
    path = work / f"embedded-{n}"
    store = open_store(path)
    src = work / f"docs-{n}.nq"
    src.write_text(nquads(n, None, merge=False))
    with src.open("rb") as f:
        store.restore(f)
    out: dict[str, Any] = {}
    for name, fn in (
        ("passport", lambda: store.query(PASSPORT).rows),  # type: ignore[union-attr]
        ("documents()", store.documents),
        ("version()", store.version),  # type: ignore[attr-defined]
    ):
        ms, _ = timed(fn)
        out[name] = {"ms": round(ms, 2), "request_bytes": 0}
    store.close()
    shutil.rmtree(path)
    return out


def oxigraph(n: int, work: Path) -> dict[str, Any]:
    with engine("oxigraph", work / f"oxs-{n}") as url:
        load_s = oxigraph_bulk_load(url, n)
        out = measure_remote("oxigraph+" + url, n)
        out["bulk_load_s"] = round(load_s, 1)
    return out


def virtuoso(n: int, work: Path) -> dict[str, Any]:
    d = work / f"virtuoso-{n}"
    with engine("virtuoso", d) as url:
        load_s = virtuoso_bulk_load(d, n)
        out = measure_remote("virtuoso+" + url, n)
        out["bulk_load_s"] = round(load_s, 1)
        if n <= PREVIOUS_UP_TO:
            out["previous_design_passport"] = previous_design("virtuoso+" + url, n)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--engines", nargs="+", default=["embedded", "oxigraph", "virtuoso"])
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="reprokg-scale-") as tmp:
        for n in args.sizes:
            for engine in args.engines:
                fn = {"embedded": embedded, "oxigraph": oxigraph, "virtuoso": virtuoso}[engine]
                row = {"n": n, "engine": engine, **fn(n, Path(tmp))}
                print(json.dumps(row), flush=True)
                results.append(row)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
