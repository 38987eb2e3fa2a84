"""Results as linked data on a real embedded store: the document, its shapes (both SHACL
engines), revisions, the stored JSON, and the two named queries — ending with the seed's
experiment run for real on scikit-learn's wine data: rank the features, discard the
highest-NID ones, retrain, load the experiment as YAML and ask which features it removed.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from rdflib import Literal, URIRef
from rdflib.namespace import RDF

from reprokg.core.errors import IdentifierError, NotFound, ValidationFailed
from reprokg.core.namespaces import RK
from reprokg.ingest import ingest, write_result
from reprokg.intrinsic_dimension import analysis, intrinsic_dimension
from reprokg.intrinsic_dimension.document import (
    dataset_ref,
    stored_answer,
    stored_result,
)
from reprokg.loaders import feature_discard
from reprokg.sparql.named import run as run_named
from reprokg.store import open_store
from reprokg.validation.engine import fast_results, shacl_key
from reprokg.validation.pyshacl_engine import shacl_results
from reprokg.validation.shapes import materialise_types
from tests.intrinsic_dimension.conftest import oracle

SHA = "ab" * 32
WORKED = np.array([[0, 1, 2, 3, 4, 5], [0, 0.5, 1, 4, 4.5, 5], [1, 1, 1, 1, 1.2, 6]], dtype=float).T


@pytest.fixture()
def store(tmp_path: Path):
    s = open_store(tmp_path / "store")
    yield s
    s.close()


def _save(store, X, names=None, *, dataset=None, sha=SHA, file_name="x.csv", **options):
    done = analysis(X, names, **options)
    kept = done.result.stored(file_name=file_name, sha256=sha, dataset=dataset_ref(dataset, sha))
    return done, stored_answer(kept, write_result(store, kept))


def _rows(store, name: str, **params: str) -> list[dict[str, object]]:
    res = run_named(store, name, params)
    return [{k: v.toPython() for k, v in r.items()} for r in res.dicts()]


# --- the document ------------------------------------------------------------------------


def test_worked_example_document_triples() -> None:
    done = analysis(WORKED, ["f1", "f2", "f3"], features=True)
    ref = dataset_ref("10.1000/XYZ", SHA)
    doc = done.result.stored(file_name="worked.csv", sha256=SHA, dataset=ref).document()
    g, est = doc.graph, doc.subject
    assert (est, RDF.type, RK.IntrinsicDimensionEstimate) in g
    assert (est, RK.ofDataSet, URIRef("https://doi.org/10.1000/xyz")) in g
    assert g.value(est, RK.intrinsicDimensionValue).toPython() == pytest.approx(
        3.305785123966942, rel=1e-15
    )
    assert g.value(est, RK.discriminability).toPython() == pytest.approx(0.55, rel=1e-15)
    assert g.value(est, RK.observableDiameter) == Literal(5.0)
    assert g.value(est, RK.isApproximated).toPython() is False
    data_file = g.value(est, RK.computedFrom)
    assert str(g.value(data_file, RK.dataFileSha256)) == SHA
    assert str(g.value(data_file, RK.dataFileName)) == "worked.csv"
    feats = {
        str(g.value(f, RK.featureName)): (
            g.value(f, RK.featureRank).toPython(),
            g.value(f, RK.featureIndex).toPython(),
        )
        for f in g.objects(est, RK.hasFeatureDimension)
    }
    assert feats == {"f1": (3, 0), "f2": (2, 1), "f3": (1, 2)}
    assert str(g.value(est, RK.featureScoreFunction)) == "fscod"


@pytest.mark.parametrize(
    "options",
    [
        {"features": True},
        {"support": 20, "features": True},
        {"support": 20, "exact": True},
        {"hops": 2, "edges": np.array([[i, (i + 1) % 40] for i in range(40)])},
        {"hops": 1, "edges": np.array([[i, (i + 1) % 40] for i in range(40)]), "support": 9},
    ],
)
def test_fast_engine_equals_pyshacl_and_conforms(options: dict) -> None:
    X = np.random.default_rng(4).normal(size=(40, 3))
    X[:, 2] = 1.0  # a constant feature: infinite NID, no value triple
    done = analysis(X, ["a", "b", "c"], **options)
    doc = done.result.stored(
        file_name="x.npy", sha256=SHA, dataset=dataset_ref(None, SHA)
    ).document()
    [fast] = fast_results([doc], doc.kind) or [None]
    ref = shacl_results(materialise_types(doc.graph), doc.kind)
    if fast is not None:
        assert shacl_key(fast) == shacl_key(ref)
    assert not [r for r in ref if r.severity == "Violation"]


def test_a_broken_result_is_rejected(store) -> None:
    done = analysis(WORKED, features=True)
    result = done.result.stored(file_name="w.csv", sha256=SHA, dataset=dataset_ref(None, SHA))
    doc = result.document()
    doc.graph.remove((doc.subject, RK.numberOfPoints, None))
    doc.graph.add((doc.subject, RK.intrinsicDimensionValue, Literal(-1.0)))

    class Broken:  # the result whose document lost n and gained a negative ID
        KIND = result.KIND
        to_json = result.to_json
        to_graph = result.to_graph

        def document(self):
            return doc

    with pytest.raises(ValidationFailed) as err:
        write_result(store, Broken())
    paths = {r.path for rep in err.value.reports for r in rep.results}
    assert {"n", "id"} <= paths
    assert store.documents() == []


def test_dataset_identifiers() -> None:
    assert str(dataset_ref("doi:10.5281/ZENODO.1", SHA).iri) == "https://doi.org/10.5281/zenodo.1"
    assert dataset_ref("https://doi.org/10.5281/zenodo.1", SHA).doi_as_written
    assert str(dataset_ref("https://example.org/ds/7", SHA).iri) == "https://example.org/ds/7"
    minted = dataset_ref(None, SHA)
    assert minted.minted and str(minted.iri).endswith(f"dataset/sha256-{SHA}")
    for bad in ("cora", "doi:nope", "http://exa mple.org"):
        with pytest.raises(IdentifierError, match="neither a DOI"):
            dataset_ref(bad, SHA)


# --- stored: revisions and the JSON as computed ------------------------------------------


def test_save_unchanged_revised_and_get(store) -> None:
    X = np.random.default_rng(1).normal(size=(80, 3))
    done, first = _save(store, X, ["a", "b", "c"], dataset="10.1000/ds", features=True)
    assert first["status"] == "added" and first["dataset"] == "https://doi.org/10.1000/ds"
    _, again = _save(store, X, ["a", "b", "c"], dataset="10.1000/ds", features=True)
    assert again["status"] == "unchanged" and again["iri"] == first["iri"]
    # a new version of the data file for the same data set and options revises the estimate
    Y = X.copy()
    Y[0, 0] += 1.0
    _, revised = _save(
        store, Y, ["a", "b", "c"], dataset="10.1000/ds", sha="cd" * 32, features=True
    )
    assert revised["status"] == "revised" and revised["iri"] == first["iri"]
    assert len(store.documents()) == 1
    got = stored_result(store, first["result_id"])
    assert list(got)[:10] == list(done.result.to_json())
    assert got["id"] == pytest.approx(intrinsic_dimension(Y), rel=1e-15)
    assert got["stored"]["data_file"] == {"name": "x.csv", "sha256": "cd" * 32}
    assert got["stored"]["result_id"] == first["result_id"]
    with pytest.raises(NotFound):
        stored_result(store, "0" * 20)
    with pytest.raises(NotFound):
        stored_result(store, "not-an-id")


# --- named query: which data sets have an ID above x -------------------------------------


def test_datasets_by_intrinsic_dimension(store) -> None:
    datasets = oracle("sklearn.datasets")
    iris = datasets.load_iris().data
    wine = datasets.load_wine().data
    _save(store, iris, dataset="https://example.org/iris", sha="01" * 32, file_name="iris.csv")
    _save(store, wine, dataset="10.1000/wine", sha="02" * 32, file_name="wine.csv")
    # a bounded estimate (support sequence) and an infinite one (constant data)
    _, bounded = _save(
        store, wine[:, :5], dataset="https://example.org/wine5", sha="03" * 32, support=12
    )
    _save(store, np.ones((5, 2)), dataset="https://example.org/const", sha="04" * 32)
    id_iris, id_wine = intrinsic_dimension(iris), intrinsic_dimension(wine)
    lo5 = stored_result(store, bounded["result_id"])["bounds"]["id"][0]
    assert min(id_iris, id_wine, lo5) > 1

    rows = _rows(store, "datasets-by-intrinsic-dimension", min="1")
    by_ds = {r["dataset"]: r for r in rows}
    assert set(by_ds) == {
        "https://example.org/iris",
        "https://doi.org/10.1000/wine",
        "https://example.org/wine5",
        "https://example.org/const",
    }
    assert math.isinf(by_ds["https://example.org/const"]["id"])
    assert by_ds["https://example.org/iris"]["id"] == pytest.approx(id_iris, rel=1e-15)
    assert by_ds["https://doi.org/10.1000/wine"]["doi"] == "10.1000/wine"
    assert by_ds["https://example.org/wine5"]["exact"] is False
    assert by_ds["https://example.org/wine5"]["id"] == pytest.approx(lo5, rel=1e-15)
    assert by_ds["https://example.org/wine5"]["id_upper"] > lo5
    # highest first, and the threshold is strict
    ids = [r["id"] for r in rows]
    assert ids == sorted(ids, reverse=True)
    cut = sorted([id_iris, id_wine, lo5])[1]
    above = _rows(store, "datasets-by-intrinsic-dimension", min=repr(cut))
    assert len(above) == 2 and all(r["id"] > cut for r in above)
    capped = _rows(store, "datasets-by-intrinsic-dimension", min="1", max=repr(cut))
    assert {r["id"] for r in capped} == {i for i in (id_iris, id_wine, lo5) if i <= cut}


# --- the seed's experiment, for real: discard the highest-NID features and retrain --------


@pytest.mark.slow
def test_feature_discard_experiment_end_to_end(store, tmp_path: Path) -> None:
    datasets = oracle("sklearn.datasets")
    linear = oracle("sklearn.linear_model")
    selection = oracle("sklearn.model_selection")
    preprocessing = oracle("sklearn.preprocessing")
    pipeline = oracle("sklearn.pipeline")
    wine = datasets.load_wine()
    X, y, names = wine.data, wine.target, list(wine.feature_names)
    done, stored = _save(
        store, X, names, dataset="10.24432/C5PC7J", file_name="wine.csv", features=True
    )
    ranked = sorted(names, key=lambda nm: done.result.to_json()["features"][nm]["rank"])

    def score(cols: list[str]) -> float:
        idx = [names.index(c) for c in cols]
        model = pipeline.make_pipeline(
            preprocessing.StandardScaler(), linear.LogisticRegression(max_iter=2000)
        )
        return float(selection.cross_val_score(model, X[:, idx], y, cv=5).mean())

    before = score(names)
    steps = []
    for p in (0.2, 0.5):
        gone = ranked[: int(math.floor(p * len(names)))]
        steps.append((p, gone, score([c for c in names if c not in gone])))
    yaml_text = "\n".join(
        [
            "feature-discard: 1",
            "title: logistic regression on wine, features discarded by NID",
            "publication: {url: https://example.org/test}",
            "dataset: {name: wine, doi: 10.24432/C5PC7J}",
            "method: logistic regression",
            "metric: accuracy",
            "strategy: id",
            f"intrinsic_dimension: {stored['iri']}",
            "runs: 5",
            f"score_before: {before!r}",
            "steps:",
            f"  - {{proportion: {steps[0][0]}, score: {steps[0][2]!r}}}",
            f"  - proportion: {steps[1][0]}",
            f"    score: {steps[1][2]!r}",
            f"    discarded: [{', '.join(steps[1][1])}]",
        ]
    )
    [doc] = feature_discard.load(yaml_text.encode(), "wine-discard.yaml")
    result = ingest(store, [doc])
    assert [d.status for d in result.documents] == ["added"], result.documents[0].report
    study = str(doc.subject)
    rows = _rows(store, "discarded-features", experiment=study)
    got = {}
    for r in rows:
        got.setdefault(float(r["proportion"]), []).append(r)
    assert [r["feature"] for r in got[0.2]] == steps[0][1]  # by rank: the ranking's top 2
    assert {r["source"] for r in got[0.2]} == {"by rank"}
    assert [r["rank"] for r in got[0.2]] == [1, 2]
    assert got[0.2][0]["nid"] == pytest.approx(done.result.to_json()["features"][ranked[0]]["id"])
    assert sorted(r["feature"] for r in got[0.5]) == sorted(steps[1][1])
    assert {r["source"] for r in got[0.5]} == {"listed"}
    for p, _, after in steps:
        assert {float(r["score_after"]) for r in got[p]} == {after}  # decimals, as written
        assert {float(r["score_before"]) for r in got[p]} == {before}
        assert {r["metric"] for r in got[p]} == {"accuracy"}
    # one step by its own IRI
    step_iri = str(got[0.2][0]["step"])
    one = _rows(store, "discarded-features", experiment=step_iri)
    assert [r["feature"] for r in one] == steps[0][1]
    # the estimate the experiment links to is the one the query above lists
    by_id = _rows(store, "datasets-by-intrinsic-dimension", min="0")
    assert [str(r["estimate"]) for r in by_id] == [stored["iri"]]


def test_discarded_features_of_steps_without_features(store) -> None:
    """The seed-000 example publishes no ranking and lists no features: each step is one
    row with its scores (from the YAML: 0.65 before, 0.64 … 0.48 after) and no feature."""
    path = Path(__file__).resolve().parents[2] / "examples/intrinsic_dimension/sagn_sle_yelp.yaml"
    [doc] = feature_discard.load(path.read_bytes(), path.name)
    assert [d.status for d in ingest(store, [doc]).documents] == ["added"]
    rows = _rows(store, "discarded-features", experiment=str(doc.subject))
    assert [float(r["proportion"]) for r in rows] == [i / 10 for i in range(1, 10)]
    assert {r["source"] for r in rows} == {"unknown"}
    assert all("feature" not in r for r in rows)
    assert [float(r["score_after"]) for r in rows] == [
        0.64,
        0.63,
        0.62,
        0.61,
        0.59,
        0.57,
        0.55,
        0.52,
        0.48,
    ]
    assert {float(r["score_before"]) for r in rows} == {0.65}


def test_json_and_graph_come_from_one_result(store) -> None:
    """The typed result's JSON and its document agree: the named query reads the stored
    estimate's numbers as the JSON gives them, per feature and per hop (bounded hops keep
    their certified bounds, which the JSON shows only as a midpoint)."""
    from reprokg.intrinsic_dimension.result import IntrinsicDimensionResult

    X = np.random.default_rng(7).normal(size=(60, 3))
    edges = np.array([[i, (i + 1) % 60] for i in range(60)])
    done = analysis(X, ["a", "b", "c"], features=True, hops=1, edges=edges, support=9)
    result = done.result.stored(file_name="x.npy", sha256=SHA, dataset=dataset_ref(None, SHA))
    answer = result.to_json()
    assert IntrinsicDimensionResult.from_json(answer).to_json() == answer
    doc = result.document()
    g, est = doc.graph, doc.subject
    lo, hi = answer["bounds"]["id"]
    assert g.value(est, RK.intrinsicDimensionLowerBound).toPython() == lo
    assert g.value(est, RK.intrinsicDimensionUpperBound).toPython() == hi
    nid = {
        str(g.value(f, RK.featureName)): g.value(f, RK.normalizedIntrinsicDimension).toPython()
        for f in g.objects(est, RK.hasFeatureDimension)
    }
    assert nid == {k: f["id"] for k, f in answer["features"].items()}
    (hop,) = g.objects(est, RK.hasHopDimension)
    h1 = done.hops[1].bounds
    assert g.value(hop, RK.intrinsicDimensionLowerBound).toPython() == h1.id_lower
    assert (
        g.value(hop, RK.intrinsicDimensionLowerBound).toPython()
        + g.value(hop, RK.intrinsicDimensionUpperBound).toPython()
    ) / 2 == pytest.approx(answer["hops"]["1"], rel=1e-15)
    write_result(store, result)
    rows = _rows(store, "datasets-by-intrinsic-dimension", min="0")
    assert [(r["id"], r["exact"]) for r in rows] == [(lo, False)]
