"""``reprokg serve --demo``: the bundled example data in a fresh embedded store.

The examples ship as package data (``examples/``: a survey subset, run files with
ir_metadata headers, qrels, audits, stability studies, and real subsets of the field's
reproduction evidence in ``examples/evidence``: ReproDB badges, ReScience C outcomes, the
Dataverse R re-execution logs), so the demo works from an
installed wheel on a fresh machine, without the checkout or network access.

After loading, the demo does what a user would next: ``reprokg evaluate RUN… --qrels Q
--save`` (the bundled runs' reported measures evaluated on the bundled qrels, so the
leaderboards, *find baselines* and ``/leaderboards``, have rows), ``reprokg compare
--save --rule arp-within-5pct`` (the illustrative re-run against the original run: a stored
comparison with its PRIMAD signature and measures, and the rule's verdict) and ``reprokg
stability --save`` of every stability study (seed 003's model and tests, stored as
``stability-analysis`` documents; the examples' observations are illustrative, and their
analyses say so), ``reprokg stability --cd --save`` of each study with several experiments
and ``reprokg qra DOI --save`` of QRA's worked example (examples/qra) and of the runs' paper.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from contextlib import ExitStack, suppress
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from reprokg.core.resources import data_dir
from reprokg.store.base import Store

if TYPE_CHECKING:
    from reprokg.core.computed import ComputedResult

#: run files (with ir_metadata headers and run lines) evaluated on :data:`DEMO_QRELS`
DEMO_RUNS = (
    "runs/annotated_run_example.txt",
    "runs/bare_marker_run.txt",
    "runs/reproduced_run.txt",
)
#: (original, reproduced) baseline runs the demo compares (``reprokg compare --save``)
DEMO_COMPARISON = ("runs/annotated_run_example.txt", "runs/reproduced_run.txt")
#: the acceptance rule the demo's comparison is judged by (evidence/rules/presets.yaml)
DEMO_RULE = "arp-within-5pct"
#: the toy qrels of the tutorial the runs' lines come from (Apache-2.0, LICENSE.toy)
DEMO_QRELS = "runs/qrels.toy"

#: Example queries printed when the demo starts (path and query string).
EXAMPLE_REQUESTS = [
    "/papers?year=2018&code=yes",
    "/papers?outcome=not-reproduced",
    "/queries/reproduction-assessments?outcome=not-reproduced",
    "/queries/find-baselines?collection=https://ir-datasets.com/nyt&measure=map",
    "/queries",
    "/queries/survey-code-availability",
    "/queries/publications-with-attribute?attribute=S1",
    "/measures/studies",
    "/measures/studies/pwc-checklist-2019",
    "/documents",
    "/measures/stability/studies",
    "/measures/qra?paper=10.18653/v1/P17-2014",
    "/paper?doi=10.18653/v1/P17-2014",
    "/docs",
]


#: example folders that are not the demo's data: other tools' inputs for ``reprokg import``
#: (docs/exchange.md's walk-through)
NOT_DEMO = ("exchange",)


def demo_documents(root: Path) -> tuple[list, list]:
    """Documents of every example file a loader claims (named ``examples/...``), and the
    files that could not be loaded (licence notices and data no loader claims are left
    out)."""
    from reprokg.loaders.files import SourceWalk

    folders = [p for p in sorted(root.iterdir()) if p.name not in NOT_DEMO]
    walk = SourceWalk(folders, names=(root, "examples/"))
    docs = list(walk.documents())
    return docs, walk.errors


def load_demo(store: Store) -> dict[str, int]:
    """Ingest every bundled example into ``store``; counts of documents by outcome."""
    from reprokg.ingest import ingest

    with ExitStack() as stack:
        if not data_dir("examples").is_dir():
            return {}
        root = Path(stack.enter_context(resources.as_file(data_dir("examples"))))
        docs, errors = demo_documents(root)
        # Two example files describing the same thing (same source key) would replace
        # each other on every start; the first one wins.
        seen: set[str] = set()
        unique = []
        for doc in docs:
            if doc.source_key not in seen:
                seen.add(doc.source_key)
                unique.append(doc)
        result = ingest(store, unique)
        evaluate_demo_runs(store, root)
        id_status = estimate_demo_dimension(store, root)
    counts: dict[str, int] = {}
    if len(unique) < len(docs):
        counts["skipped (same source key)"] = len(docs) - len(unique)
    for item in result.documents:
        counts[item.status] = counts.get(item.status, 0) + 1
    if errors:
        counts["unreadable"] = len(errors)
    for status in analyse_stability(store):
        key = f"stability analysis {status}"
        counts[key] = counts.get(key, 0) + 1
    for kind, status in demo_statistics(store):
        key = f"{kind} {status}"
        counts[key] = counts.get(key, 0) + 1
    if id_status is not None:
        counts[f"intrinsic dimension {id_status}"] = 1
    return counts


#: a real data set the demo estimates the intrinsic dimension of (UCI Wine, CC BY 4.0)
DEMO_ID_DATA = "intrinsic_dimension/wine.csv"
DEMO_ID_DATASET = "https://archive.ics.uci.edu/dataset/109/wine"
#: its name as the UCI Machine Learning Repository titles that page
DEMO_ID_NAME = "Wine"


def estimate_demo_dimension(store: Store, root: Path) -> str | None:
    """``reprokg intrinsic-dimension wine.csv --features --dataset UCI --save`` (exact, the
    default score): the stored estimate the intrinsic-dimension views and the
    ``datasets-by-intrinsic-dimension`` example read; the write's outcome."""
    from reprokg.ingest import write_result
    from reprokg.intrinsic_dimension.document import dataset_ref
    from reprokg.intrinsic_dimension.io import read_data
    from reprokg.intrinsic_dimension.result import analysis

    path = root / DEMO_ID_DATA
    if not path.is_file():
        return None
    table = read_data(path)
    done = analysis(table.values, table.names, features=True)
    kept = done.result.stored(
        file_name="examples/" + DEMO_ID_DATA,
        sha256=table.sha256,
        dataset=dataset_ref(DEMO_ID_DATASET, table.sha256, DEMO_ID_NAME),
    )
    return write_result(store, kept).status


def analyse_stability(store: Store) -> list[str]:
    """Analyse every stability study in ``store`` (REML, alpha 0.05) and store each analysis;
    the outcome of each write (``added``, ``unchanged``, ``revised``)."""
    from reprokg.ingest import write_result
    from reprokg.stability.observations import list_studies
    from reprokg.stability.study import analyse_study

    return [write_result(store, analyse_study(store, s).result).status for s in list_studies(store)]


#: papers whose quantified reproducibility assessment the demo stores (``reprokg qra DOI
#: --save``): QRA's own worked example (examples/qra) and the runs' paper, on the measures
#: its run headers report
DEMO_QRA = (("10.18653/v1/P17-2014", ()), ("10.1007/978-3-030-15712-8_26", ("map", "P_10")))


def demo_statistics(store: Store) -> list[tuple[str, str]]:
    """``reprokg stability --cd --save`` of every study with two experiments or more and
    ``reprokg qra DOI --save`` of :data:`DEMO_QRA`: (kind, outcome) of each write."""
    from reprokg.core.errors import UsageError
    from reprokg.ingest import write_result
    from reprokg.measures.qra import assess, paper_iri
    from reprokg.stability.observations import list_studies
    from reprokg.stability.seed_variance import seed_variance

    results: list[ComputedResult] = []
    for s in list_studies(store):
        with suppress(UsageError):  # one experiment: nothing to rank
            results.append(seed_variance(store, s.iri, cd=True)[1]["cd"])
    for doi, measures in DEMO_QRA:
        result = assess(store, paper_iri(doi), measures)
        if result.quantities:
            results.append(result)
    return [(r.KIND, write_result(store, r).status) for r in results]


def demo_requests(store: Store) -> list[str]:
    """:data:`EXAMPLE_REQUESTS` and, per stability study in ``store``, its analysis and
    chart (the study ids are hashes of the examples' titles: read, not hard-coded)."""
    from reprokg.stability.observations import list_studies

    extra = []
    for s in list_studies(store):
        extra += [
            f"/measures/stability?study={s.id}",
            f"/measures/stability/chart.svg?study={s.id}",
        ]
    return [*EXAMPLE_REQUESTS, *extra]


def evaluate_demo_runs(store: Store, root: Path) -> None:
    """``reprokg evaluate`` of :data:`DEMO_RUNS` on :data:`DEMO_QRELS` with ``--save`` (the
    runs' reported map and P_10 on the leaderboards of their collection, nyt), then
    ``reprokg compare --save`` of :data:`DEMO_COMPARISON`."""
    from reprokg.evidence.verdicts import resolve, verdicts_on_saved
    from reprokg.ingest import write_result
    from reprokg.measures.evaluation import evaluate_runs
    from reprokg.measures.inputs import qrels_from_bytes, run_from_bytes
    from reprokg.measures.run_comparison import compare_inputs

    if not (root / DEMO_QRELS).is_file():
        return
    qrels = qrels_from_bytes((root / DEMO_QRELS).read_bytes(), "examples/" + DEMO_QRELS)
    runs = {
        name: run_from_bytes((root / name).read_bytes(), "examples/" + name)
        for name in DEMO_RUNS
        if (root / name).is_file()
    }
    if runs:
        evaluation = evaluate_runs(qrels, list(runs.values()))
        write_result(store, evaluation, inputs=evaluation.source_documents())
    orig, rep = DEMO_COMPARISON
    if orig in runs and rep in runs:
        compared = compare_inputs(qrels, runs[orig], runs[rep])
        iri = str(write_result(store, compared, inputs=compared.source_documents()).subject)
        # ``--rule arp-within-5pct``: the comparison's verdict, with the rule and its measures
        _, whole = verdicts_on_saved(store, compared, iri, [resolve(DEMO_RULE)])
        write_result(store, whole, inputs=whole.rule_documents())


def demo_store_dir(given: str | None) -> str:
    """``given`` or a fresh temporary folder (kept until the process exits)."""
    return given or tempfile.mkdtemp(prefix="reprokg-demo-")


#: folders of the package that do not go into a wheel (a checkout is the package too)
_NOT_PACKAGED = {"tests", "benchmarks", "docs", "build", "reprokg-data", "reprokg-blobs"}
#: what the package is made of: code and the data it ships (pyproject's package-data)
_PACKAGE_SUFFIXES = {
    ".py",
    ".ttl",
    ".rq",
    ".yaml",
    ".yml",
    ".json",
    ".csv",
    ".txt",
    ".toy",
    ".dat",
    ".j2",
    ".html",
    ".css",
    ".js",
    ".svg",
}


def demo_fingerprint() -> str:
    """A key of everything the demo store is built from: every file of the package (code,
    shapes, ontology, queries, examples) by name, size and modification time, so any change
    (an edit, an upgrade) builds a new demo store. Stat only: hashing the contents took
    a large share of every start (benchmarks/README.md#figures-once-quoted-in-code)."""
    import reprokg

    root = Path(reprokg.__file__).resolve().parent
    h = hashlib.sha256(reprokg.__version__.encode())
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if rel.parts[0] in _NOT_PACKAGED or any(p.startswith(".") for p in rel.parts):
            continue  # a checkout's tests, caches (.hypothesis) and stores are not the package
        whole = rel.parts[0] in ("examples", "ontology", "shapes", "queries")
        if not (whole or path.suffix in _PACKAGE_SUFFIXES) or not path.is_file():
            continue
        st = path.stat()  # size and modification time: an edit changes them; no reading
        h.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return h.hexdigest()[:24]


def demo_cache_dir(setting: str) -> Path | None:
    """The demo cache folder of ``Settings.demo_cache`` (None: ``off``)."""
    if setting.strip().lower() == "off":
        return None
    return Path(setting) if setting else Path.home() / ".cache" / "reprokg"


def build_or_restore(store: Store) -> tuple[dict[str, int], list[str]]:
    """The shipped demo store restored into the empty ``store`` (one bulk load,
    :mod:`reprokg.service.demo_bundle`), or, without a bundle of this version, the demo
    built from the examples; the banner's counts and requests."""
    from reprokg.service.demo_bundle import restore_bundle

    restored = restore_bundle(store)
    if restored is not None:
        return restored
    return load_demo(store), demo_requests(store)


def copy_demo_store(source: Path, target: Path) -> None:
    """The cached demo store into a fresh folder: the database copied, the kept originals
    hard-linked (content-addressed files, never changed in place; copied across file
    systems), so a start does not write the same ~900 small files again."""
    from reprokg.store.blobs import link_or_copy

    for part in sorted(source.iterdir()):
        copy = link_or_copy if part.name == "blobs" else shutil.copy2
        if part.is_dir():
            shutil.copytree(part, target / part.name, copy_function=copy, dirs_exist_ok=True)
        else:
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy2(part, target / part.name)


def prepare_demo(target: str, cache: Path | None) -> tuple[dict[str, int], list[str]]:
    """Fill the fresh store folder ``target`` with the demo data: a copy of the demo store
    built once per shipped bundle (or :func:`demo_fingerprint` without one) under ``cache``
    (built now if missing), or,
    without a cache, loaded now. The load's counts and the example requests.

    The first build restores the demo store the package ships (:func:`build_or_restore`);
    copying the finished store into each new folder takes milliseconds.
    """
    from reprokg.store import open_store

    if cache is None:
        with open_store(target) as store:
            return build_or_restore(store)
    from reprokg.service.demo_bundle import bundle_key

    # the shipped bundle names what it holds (its version and its files' hashes): hashing it
    # is cheaper than walking the package, and code edits do not change the bundle's quads
    entry = cache / f"demo-{bundle_key() or demo_fingerprint()}"
    if not (entry / "demo.json").is_file():
        cache.mkdir(parents=True, exist_ok=True)
        build = Path(tempfile.mkdtemp(prefix=".building-", dir=cache))
        try:
            with open_store(str(build / "store")) as store:
                counts, requests = build_or_restore(store)
            info = {"counts": counts, "requests": requests}
            (build / "demo.json").write_text(json.dumps(info), encoding="utf-8")
            with suppress(OSError):  # atomic; another process may have won the race
                os.rename(build, entry)
        finally:
            shutil.rmtree(build, ignore_errors=True)
    info = json.loads((entry / "demo.json").read_text(encoding="utf-8"))
    copy_demo_store(entry / "store", Path(target))
    return info["counts"], info["requests"]


if __name__ == "__main__":  # python -m reprokg.service.demo: rebuild the shipped demo store
    import reprokg
    from reprokg.service.demo_bundle import BUNDLE, write_bundle

    target = Path(reprokg.__file__).resolve().parent / BUNDLE
    built = write_bundle(target, lambda store: (load_demo(store), demo_requests(store)))
    print(json.dumps(built["counts"], indent=1))
    print(f"wrote {target}")
