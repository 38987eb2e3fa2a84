"""Batched validation of every kind: documents per second on one core (issue 29's target:
≥ 1,000 of every kind, survey records and audits included), next to pyshacl.

    python -m benchmarks.ingest.kinds              # 1,000 documents per kind
    python -m benchmarks.ingest.kinds --n 2000 --pyshacl 20
    python -m benchmarks.ingest.kinds --kinds comparison,stability --pyshacl 0
    python -m benchmarks.ingest.kinds --pyshacl 0 --repeats 3 --collector-ab

The documents are real ones of every kind (benchmarks/validation/corpus.py: what the demo
validates and computes, plus the shared data's survey and MLRC records), repeated to ``--n``
per kind (each copy its own document, so each is validated). reprokg validates them as
ingest does (``validate_documents``: the compiled engine, batches of ``--batch``, the
ORCID checks and the report per document); pyshacl (``REPROKG_SHACL_ENGINE=pyshacl``'s
path) one at a time on the first ``--pyshacl`` documents. One process, one core; CPU time
(the median of ``--repeats`` passes). ``--collector-ab``: each pass also validates with the
cyclic garbage collector left running (the engine pauses it per batch), alternating, for the
before/after of that change in one run. ``--floor``: the CPU time pyoxigraph takes only to
parse the same documents' triples (N-Quads text made beforehand) into a store, as documents
per second (one parse per pass, alternating with the passes): no engine that reads them
into this store, and none that reads each triple at that rate, can go faster. "ratio to
the parse floor" is reprokg's rate over it (the same documents, so per triple as per
document: issue 43's target is >= 0.5 for every kind).

    python -m benchmarks.ingest.kinds --floor --pyshacl 0 --repeats 3
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent.parent))

from benchmarks.validation import corpus  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=1000, help="documents per kind")
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--pyshacl", type=int, default=20, help="documents per kind for pyshacl")
    p.add_argument(
        "--max-triples",
        type=int,
        default=300_000,
        help="fewer documents of a kind whose documents are large (a stability study holds "
        "~5,500 triples, a comparison ~10,200, a survey record ~110)",
    )
    p.add_argument("--kinds", help="only these kinds (comma-separated)")
    p.add_argument("--repeats", type=int, default=1, help="passes per kind (median)")
    p.add_argument(
        "--collector-ab", action="store_true", help="also with the collector left running"
    )
    p.add_argument(
        "--floor", action="store_true", help="also the store's parse alone (an upper bound)"
    )
    p.add_argument("--out", default=str(HERE / "results-kinds.json"))
    args = p.parse_args(argv)
    logging.disable(logging.CRITICAL)
    from reprokg.validation import batching
    from reprokg.validation.batching import validate_documents
    from reprokg.validation.pyshacl_engine import shacl_results
    from reprokg.validation.shapes import known_kinds, materialise_types

    kinds = set(known_kinds())
    if args.kinds:
        kinds &= set(args.kinds.split(","))
    rows = {}
    columns = ("triples/doc", "reprokg docs/CPU-s", "pyshacl docs/CPU-s", "ratio")
    print(f"{'kind':20} {'docs':>6} " + " ".join(f"{c:>19}" for c in columns))
    for kind, docs in corpus.by_kind(corpus.documents()).items():
        if kind not in kinds:
            continue
        size = sum(len(d.graph) for d in docs) / len(docs)
        n = max(args.pyshacl, min(args.n, int(args.max_triples / size)))
        group = [docs[i % len(docs)] for i in range(n)]
        validate_documents(group[: min(len(group), 8)])  # compile the kind's queries first
        paused = batching.cyclic_gc_paused
        passes: dict[str, list[float]] = {"paused": [], "collector": [], "floor": []}
        nquads = _nquads_text(group) if args.floor else None
        for r in range(args.repeats):
            if nquads is not None:  # alternating with the passes: the same load on the machine
                passes["floor"].append(_parse_alone(nquads, len(group)))
            modes = ("paused", "collector") if args.collector_ab else ("paused",)
            for mode in modes if r % 2 == 0 else modes[::-1]:
                batching.cyclic_gc_paused = paused if mode == "paused" else contextlib.nullcontext  # type: ignore[assignment]
                t = time.process_time()
                for i in range(0, len(group), args.batch):
                    validate_documents(group[i : i + args.batch])
                passes[mode].append(len(group) / (time.process_time() - t))
        batching.cyclic_gc_paused = paused
        ours = statistics.median(passes["paused"])
        before = statistics.median(passes["collector"]) if passes["collector"] else None
        sample = group[: args.pyshacl]
        t = time.process_time()
        for d in sample:
            shacl_results(materialise_types(d.graph), kind)
        theirs = len(sample) / (time.process_time() - t) if sample else float("nan")
        floor = statistics.median(passes["floor"]) if passes["floor"] else None
        to_floor = ours / floor if floor else None
        rows[kind] = {
            "documents": len(group),
            "distinct": len(docs),
            "triples_per_doc": size,
            "reprokg_docs_per_cpu_s": ours,
            "pyshacl_docs_per_cpu_s": theirs,
            "reprokg_collector_running_docs_per_cpu_s": before,
            "store_parse_alone_docs_per_cpu_s": floor,
            # the same documents: per document = per triple (issue 43's target: >= 0.5)
            "ratio_to_parse_floor": to_floor,
        }
        cells = (f"{size:.0f}", f"{ours:.0f}", f"{theirs:.1f}", f"{ours / theirs:.0f}×")
        extra = f"   collector running: {before:.0f}" if before is not None else ""
        extra += f"   store parse alone: {floor:.0f}" if floor is not None else ""
        extra += f"   ratio to the parse floor: {to_floor:.2f}" if to_floor is not None else ""
        print(
            f"{kind:20} {len(group):>6} " + " ".join(f"{c:>19}" for c in cells) + extra, flush=True
        )
    Path(args.out).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


def _nquads_text(group: list) -> str:
    """The documents' triples as N-Quads text, each document its own graph.

    Blank node labels are not renamed per document: two documents' ``_:b0`` become one
    node, which changes the graph but not the parsing.
    """
    triples: dict[int, list[str]] = {}  # per distinct document: the group repeats them
    lines = []
    for i, d in enumerate(group):
        if id(d) not in triples:
            text = d.graph.serialize(format="nt11")
            triples[id(d)] = [line[: -len(" .")] for line in text.splitlines() if line]
        end = f" <urn:reprokg:bench:{i}> .\n"
        lines += [line + end for line in triples[id(d)]]
    return "".join(lines)


def _parse_alone(nquads: str, documents: int) -> float:
    """Documents per CPU second of pyoxigraph parsing their triples (every triple, each
    document its own graph: :func:`_nquads_text`) into a new in-memory store."""
    import pyoxigraph as ox

    t = time.process_time()
    # lenient, as the engine loads the text it writes: no IRI is checked twice
    ox.Store().load(nquads, format=ox.RdfFormat.N_QUADS, lenient=True)
    return documents / (time.process_time() - t)


if __name__ == "__main__":
    raise SystemExit(main())
