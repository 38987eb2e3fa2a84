"""SHACL engines side by side: reprokg's compiled engine, pyrudof (Rust, PyPI) and pyshacl.

    python benchmarks/validation/run.py                 # W3C suite + every kind
    python benchmarks/validation/run.py --per-kind 50   # at most 50 documents per kind

1. The W3C SHACL test suite (98 Core + 23 SHACL-SPARQL tests, benchmarks/validation/w3c.py):
   tests passed per engine, compared as the suite specifies, and the wall time of the whole
   suite (each test: read the Turtle files, validate, produce the report graph).
2. The project's kinds (benchmarks/validation/corpus.py: every document the demo validates,
   the real survey and MLRC records of ../shared/data): documents per second of each engine
   (reprokg batched as ingest runs it; pyshacl and pyrudof one document at a time, as they
   are used) and conformance: documents whose results equal pyshacl's, the reference, as
   (focus node, constraint component, severity, value) sets.

One process, engines interleaved per kind; CPU time is the stabler figure on a shared
machine. Results are printed and written as JSON (``--out``).
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent.parent) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(HERE.parent.parent))

from rdflib import Graph  # noqa: E402

from benchmarks.validation import corpus, w3c  # noqa: E402

ENGINES = ("reprokg", "pyrudof", "pyshacl")


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _since(start: tuple[float, float]) -> tuple[float, float]:
    wall, cpu = _clock()
    return wall - start[0], cpu - start[1]


# --------------------------------------------------------------------------- W3C suite


def w3c_reprokg(t: w3c.W3CTest) -> Graph:
    from reprokg.validation.shacl import parse_rdf, validate_graph

    data = parse_rdf(t.data.read_bytes(), "turtle", t.data.as_uri())
    shapes = parse_rdf(t.shapes.read_bytes(), "turtle", t.shapes.as_uri())
    return validate_graph(data, shapes).to_graph()


def w3c_pyshacl(t: w3c.W3CTest) -> Graph:
    from pyshacl import validate

    data = Graph().parse(t.data, format="turtle", publicID=t.data.as_uri())
    shapes = Graph().parse(t.shapes, format="turtle", publicID=t.shapes.as_uri())
    _c, report, _t = validate(data, shacl_graph=shapes, advanced=True, inference=None)
    return report


def w3c_pyrudof(t: w3c.W3CTest) -> Graph:
    import pyrudof

    r = pyrudof.Rudof(pyrudof.RudofConfig())
    r.read_data(str(t.data), base=t.data.as_uri())
    r.read_shacl(str(t.shapes), base=t.shapes.as_uri())
    r.validate_shacl()
    text = r.serialize_shacl_validation_results(format=pyrudof.ResultShaclValidationFormat.Turtle)
    return Graph().parse(data=text, format="turtle")


def run_w3c() -> dict[str, dict]:
    tests = w3c.tests()
    out: dict[str, dict] = {}
    for engine, fn in (
        ("reprokg", w3c_reprokg),
        ("pyrudof", w3c_pyrudof),
        ("pyshacl", w3c_pyshacl),
    ):
        passed = {"core": 0, "sparql": 0}
        failed: list[str] = []
        start = _clock()
        for t in tests:
            try:
                report = fn(t)
            except Exception:  # noqa: BLE001 - an engine refusing the shapes
                ok = t.expects_failure
            else:
                ok = not t.expects_failure and w3c.same_report(report, t.expected())
            if ok:
                passed[t.section] += 1
            else:
                failed.append(t.id)
        wall, cpu = _since(start)
        out[engine] = {"passed": passed, "failed": failed, "wall_s": wall, "cpu_s": cpu}
    return out


# --------------------------------------------------------------------------- project kinds

_LITERAL = re.compile(r'^"(.*)"(?:\^\^<[^>]*>|@[\w-]+)?$', re.DOTALL)


def _key(focus: object, component: object, severity: object, value: object) -> tuple:
    comp = str(component).rsplit("#", 1)[-1]
    sev = str(severity).rsplit("#", 1)[-1]
    return (str(focus), comp, sev, None if value is None else str(value))


def kind_reprokg(kind: str, docs: list) -> list[set]:
    from reprokg.validation.engine import fast_results

    found = fast_results(docs, kind)
    assert found is not None
    return [{_key(r.focus_node, r.constraint, r.severity, r.value) for r in res} for res in found]


def kind_pyshacl(kind: str, docs: list) -> list[set]:
    from reprokg.validation.pyshacl_engine import shacl_results
    from reprokg.validation.shapes import materialise_types

    return [
        {
            _key(r.focus_node, r.constraint, r.severity, r.value)
            for r in shacl_results(materialise_types(d.graph), kind)
        }
        for d in docs
    ]


def kind_pyrudof(kind: str, docs: list) -> list[set]:
    import pyrudof

    from reprokg.validation.shapes import materialise_types, shapes_graph

    r = pyrudof.Rudof(pyrudof.RudofConfig())
    r.read_shacl(shapes_graph(kind).serialize(format="turtle"))
    out = []
    for d in docs:
        text = materialise_types(d.graph).serialize(format="nt")
        r.read_data(text, format=pyrudof.RDFFormat.NTriples)
        found = set()
        for e in r.validate_shacl():
            value = e.value
            if value is not None:
                m = _LITERAL.match(value)
                value = m.group(1).encode().decode("unicode_escape") if m else value
            found.add(_key(e.focus_node, e.constraint_component, e.severity, value))
        out.append(found)
    return out


def run_kinds(per_kind: int) -> dict[str, dict]:
    from reprokg.validation.shapes import known_kinds

    docs = corpus.by_kind(corpus.documents())
    out: dict[str, dict] = {}
    for kind, group in docs.items():
        if kind not in known_kinds():
            continue  # no shapes (evaluation documents)
        group = group[:per_kind]
        row: dict[str, object] = {"documents": len(group)}
        results: dict[str, list[set] | None] = {}
        for engine, fn in (
            ("reprokg", kind_reprokg),
            ("pyrudof", kind_pyrudof),
            ("pyshacl", kind_pyshacl),
        ):
            start = _clock()
            try:
                results[engine] = fn(kind, group)
            except Exception as exc:  # noqa: BLE001 - an engine that cannot run these shapes
                results[engine] = None
                row[engine] = {"error": f"{type(exc).__name__}: {str(exc)[:200]}"}
                continue
            wall, cpu = _since(start)
            row[engine] = {"wall_s": wall, "cpu_s": cpu, "docs_per_s_cpu": len(group) / cpu}
        ref = results["pyshacl"]
        for engine in ("reprokg", "pyrudof"):
            got = results[engine]
            if got is not None and ref is not None and isinstance(row[engine], dict):
                row[engine]["equal_to_pyshacl"] = sum(  # type: ignore[index]
                    a == b for a, b in zip(got, ref, strict=True)
                )
        out[kind] = row
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--per-kind", type=int, default=100, help="most documents per kind")
    p.add_argument("--out", default=str(HERE / "results.json"))
    args = p.parse_args(argv)
    logging.disable(logging.CRITICAL)
    warnings.filterwarnings("ignore")
    suite = run_w3c()
    print("W3C SHACL suite (98 Core + 23 SHACL-SPARQL tests)")
    print(f"{'engine':10} {'Core':>7} {'SPARQL':>7} {'wall s':>8} {'CPU s':>8}")
    for engine, r in suite.items():
        print(
            f"{engine:10} {r['passed']['core']:>4}/98 {r['passed']['sparql']:>4}/23 "
            f"{r['wall_s']:8.2f} {r['cpu_s']:8.2f}"
        )
    kinds = run_kinds(args.per_kind)
    print("\nthe project's kinds: documents/s (CPU) and documents equal to pyshacl's results")
    print(f"{'kind':20} {'docs':>5} " + " ".join(f"{e:>22}" for e in ENGINES))
    for kind, row in kinds.items():
        cells = []
        for e in ENGINES:
            r = row[e]
            if "error" in r:  # type: ignore[operator]
                cells.append(f"{'error':>22}")
                continue
            eq = r.get("equal_to_pyshacl")  # type: ignore[union-attr]
            same = f" ={eq}" if eq is not None else ""
            cells.append(f"{r['docs_per_s_cpu']:>13.1f}/s{same:>7}")  # type: ignore[index]
        print(f"{kind:20} {row['documents']:>5} " + " ".join(cells))
    Path(args.out).write_text(json.dumps({"w3c": suite, "kinds": kinds}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
