"""Writing documents into Oxigraph server and Virtuoso 7 through reprokg — one request per
document (the path before issue 43) and batched (``RemoteStore.write_documents``, the
ingest's batch size) — side by side with each engine's own bulk loader on the same quads.

    cd reprokg && python -m benchmarks.scale.remote_ingest [--sizes 1000 10000] [--out F]

Data: the documents of ``benchmarks/scale/remote_requests.py`` (``n`` runs of 4 triples,
each citing one of 100 papers). Every measurement starts a fresh engine on loopback
(``tests/engines.py``) and writes the ``n`` documents into it:

* ``per_document`` — ``RemoteStore.add_document`` for each (one SPARQL Update request each:
  counters delta, unmerge, drop, insert, merge);
* ``batched`` — ``RemoteStore.write_documents`` in batches of
  :data:`~reprokg.validation.batching.DEFAULT_BATCH_SIZE` (what ``reprokg load`` calls);
* ``restore`` — ``RemoteStore.restore`` of the documents' N-Quads (what ``reprokg dump``
  writes and ``reprokg restore`` reads): batched since issue 43, one request a graph before;
* ``bulk`` — the engine's own loader on the quads reprokg ends with (the documents, their
  merge, the counters): Oxigraph server's Graph Store endpoint (``POST /store`` of the
  whole N-Quads file, one transaction), and the ``oxigraph load`` CLI into a new folder;
  Virtuoso's ``ld_dir`` + ``rdf_loader_run()`` + ``checkpoint`` through ``isql``.

Each write path is checked afterwards: ``document_count()`` and the merge's triple count.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from rdflib import Literal, URIRef

from benchmarks.scale.common import engine
from benchmarks.scale.remote_requests import (
    EX,
    PAPERS,
    counters,
    nquads,
    oxigraph_bulk_load,
    virtuoso_bulk_load,
)
from reprokg.store import open_store
from reprokg.store.base import DocumentWrite
from reprokg.store.remote import RemoteStore
from reprokg.validation.batching import DEFAULT_BATCH_SIZE

_STATE = "https://w3id.org/reprokg/store#mergeState"
RDF_TYPE = URIRef("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
XSD_INT = URIRef("http://www.w3.org/2001/XMLSchema#integer")
#: the per-document path is timed up to this many documents (it is the slow one)
PER_DOCUMENT_UP_TO = 10_000


def writes(n: int) -> list[DocumentWrite]:
    """The documents of ``remote_requests.triples`` as rdflib terms."""
    out = []
    for i in range(n):
        run = URIRef(f"{EX}run/{i}")
        triples = [
            (run, RDF_TYPE, URIRef(f"{EX}Run")),
            (run, URIRef(f"{EX}cites"), URIRef(f"{EX}paper/{i % PAPERS}")),
            (run, URIRef(f"{EX}tag"), Literal(f"run-{i}")),
            (run, URIRef(f"{EX}score"), Literal(str(i), datatype=XSD_INT)),
        ]
        out.append(DocumentWrite(URIRef(f"{EX}doc/{i}"), triples))
    return out


def requests_of(store: RemoteStore) -> list[int]:
    """The request bodies the store's HTTP client sends (an httpx event hook)."""
    sizes: list[int] = []
    store._client.event_hooks["request"].append(
        lambda r: sizes.append(len(r.content) if r.method == "POST" else 0)
    )
    return sizes


def through_reprokg(url: str, n: int, batched: bool, restore: bool = False) -> dict[str, Any]:
    store = open_store(url)
    assert isinstance(store, RemoteStore)
    store.merged  # noqa: B018 - the empty engine's merge state is set up before timing
    docs = writes(n)
    sizes = requests_of(store)
    t0 = time.perf_counter()
    if restore:
        store.restore(io.BytesIO(nquads(n, None, merge=False).encode()))
    elif batched:
        for i in range(0, n, DEFAULT_BATCH_SIZE):
            store.write_documents(docs[i : i + DEFAULT_BATCH_SIZE])
    else:
        for w in docs:
            store.add_document(w.iri, w.triples)  # type: ignore[arg-type]
    seconds = time.perf_counter() - t0
    requests = len(sizes)
    assert store.document_count() == n, store.document_count()
    merged = store.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    assert int(merged.rows[0][0]) == 4 * n, merged  # type: ignore[union-attr]
    store.close()
    return {
        "s": round(seconds, 2),
        "docs_per_s": round(n / seconds),
        "requests": requests,
        "largest_request_bytes": max(sizes),
    }


def oxigraph(n: int, work: Path, paths: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for path in paths:
        with engine("oxigraph", work / f"oxs-{n}-{path}") as url:
            if path == "bulk":
                t = oxigraph_bulk_load(url, n)
                out["bulk_gsp"] = {"s": round(t, 2), "requests": 2}
            elif path != "per_document" or n <= PER_DOCUMENT_UP_TO:
                out[path] = through_reprokg(
                    "oxigraph+" + url, n, batched=path == "batched", restore=path == "restore"
                )
    if "bulk" in paths:  # the CLI's loader into a new folder (no server)
        f = work / f"bulk-{n}.nq"
        f.write_text(nquads(n, None) + counters(n))
        t0 = time.perf_counter()
        subprocess.run(
            ["oxigraph", "load", "--location", str(work / f"cli-{n}"), "--file", str(f)],
            check=True,
            capture_output=True,
        )
        out["bulk_cli"] = {"s": round(time.perf_counter() - t0, 2)}
        shutil.rmtree(work / f"cli-{n}", ignore_errors=True)
        f.unlink()
    return out


def virtuoso(n: int, work: Path, paths: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for path in paths:
        if path == "per_document" and n > PER_DOCUMENT_UP_TO:
            continue
        d = work / f"virtuoso-{n}-{path}"
        with engine("virtuoso", d) as url:
            if path == "bulk":
                t = virtuoso_bulk_load(d, n)
                out["bulk_loader"] = {"s": round(t, 2)}
            else:
                out[path] = through_reprokg(
                    "virtuoso+" + url, n, batched=path == "batched", restore=path == "restore"
                )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--engines", nargs="+", default=["oxigraph", "virtuoso"])
    ap.add_argument("--paths", nargs="+", default=["bulk", "batched", "per_document"])
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="reprokg-ingest-") as tmp:
        for n in args.sizes:
            for engine in args.engines:
                fn = {"oxigraph": oxigraph, "virtuoso": virtuoso}[engine]
                row = {"n": n, "engine": engine, **fn(n, Path(tmp), args.paths)}
                bulk = row.get("bulk_gsp", row.get("bulk_loader", {})).get("s")
                for path in ("batched", "per_document", "restore"):
                    if bulk and path in row:
                        row[path]["x_bulk"] = round(row[path]["s"] / bulk, 2)
                print(json.dumps(row), flush=True)
                results.append(row)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
