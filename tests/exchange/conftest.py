"""Exchange fixtures: a store holding every kind of result, and the oracles that read crates.

roc-validator (the RO-Crate validator of the RO-Crate community) resolves the RO-Crate
JSON-LD context over HTTP; the tests serve it the contexts the specification publishes
(tests/exchange/data/ro-crate-context) through ``responses``, so it runs offline and
unchanged otherwise.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import need

DATA = Path(__file__).parent / "data"
CRATES = DATA / "crates"
CONTEXTS = {
    "https://w3id.org/ro/crate/1.1/context": DATA / "ro-crate-context" / "1.1.jsonld",
    "https://w3id.org/ro/crate/1.2/context": DATA / "ro-crate-context" / "1.2.jsonld",
}
#: a paper of the bundled examples with runs (repro_eval's run header cites it)
PAPER = "10.1007/978-3-030-15712-8_26"


@pytest.fixture(scope="session")
def result_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store with every bundled example and every kind of computed result: the demo's
    comparison, evaluation, stability analyses, intrinsic dimension and verdict, the audits
    study recomputed, a critical-difference ranking and a seed comparison (about a minute,
    once per session)."""
    from reprokg.cli import main
    from reprokg.service.demo import load_demo
    from reprokg.store import open_store

    path = tmp_path_factory.mktemp("exchange") / "kg"
    with open_store(path) as store:
        counts = load_demo(store)
    assert "rejected" not in counts, counts
    assert main(["study", "audits", "--save", "--format", "json", "--store", str(path)]) == 0
    # issue 31's results of a stability study: a critical-difference ranking and a comparison
    # of two experiments over their seeds
    from reprokg.stability.observations import list_studies
    from reprokg.store import open_store as _open

    with _open(path, read_only=True) as store:
        study = next(s for s in list_studies(store) if "Illustrative" in (s.title or ""))
    base = ["stability", "--store", str(path), "--study", study.id, "--save", "--format", "json"]
    assert main([*base, "--cd"]) == 0
    assert main([*base, "--compare", "m-net-adam-1", "tadam-adam-1"]) == 0
    return path


@pytest.fixture
def store_copy(result_store: Path, tmp_path: Path) -> Callable[[], Path]:
    def copy() -> Path:
        dest = tmp_path / "kg-copy"
        shutil.copytree(result_store, dest)
        return dest

    return copy


def documents_by_kind(store) -> dict[str, list[str]]:
    from reprokg.store.base import SelectResult

    res = store.query(
        "SELECT ?g ?k WHERE { GRAPH ?g { ?g <https://w3id.org/reprokg/ontology#documentKind> ?k }"
        " } ORDER BY ?k ?g"
    )
    assert isinstance(res, SelectResult)
    out: dict[str, list[str]] = {}
    for g, k in res.rows:
        out.setdefault(str(k), []).append(str(g))
    return out


@pytest.fixture(scope="session")
def roc_validate() -> Callable[[Path, str], list[str]]:
    """``validate(crate, profile)``: roc-validator's issues at the required level."""
    try:
        import responses
        from rocrate_validator import models, services
    except ImportError:
        need(False, "roc-validator (test extra) is not installed")
        raise

    def validate(crate: Path, profile: str = "process-run-crate") -> list[str]:
        with responses.RequestsMock(assert_all_requests_are_fired=False) as rs:
            for url, path in CONTEXTS.items():
                rs.get(url, body=path.read_bytes(), content_type="application/ld+json")
            settings = services.ValidationSettings(
                rocrate_uri=str(crate),
                profile_identifier=profile,
                requirement_severity=models.Severity.REQUIRED,
            )
            result = services.validate(settings)
            return [f"{i.severity.name}: {i.message}" for i in result.get_issues()]

    return validate


@pytest.fixture
def open_result_store(result_store: Path) -> Iterator:
    from reprokg.store import open_store

    with open_store(result_store, read_only=True) as store:
        yield store


def runs_by_id(docs: list) -> dict:
    """The imported run documents by their MLflow run id (``schema:identifier``)."""
    from reprokg.core.namespaces import SCHEMA

    return {str(d.graph.value(d.subject, SCHEMA.identifier)): d for d in docs if d.kind == "run"}


def scores_of_run_as_mlflow_reads(doc, want: dict) -> dict:
    """Assert the run's PRIMAD fields equal what ``MlflowClient`` read (``want``: params,
    tags), and that it reports the same metrics; its score nodes by metric name."""
    from reprokg.core.namespaces import RK
    from reprokg.loaders.ir_metadata.export import graph_to_dict

    tree = graph_to_dict(doc.graph, doc.subject)
    assert tree["method"]["parameters"] == want["params"]  # MLflow's parameters are text
    assert tree["implementation"]["source"] == {
        "commit": want["tags"]["mlflow.source.git.commit"],
        "repository": want["tags"]["mlflow.source.git.repoURL"],
    }
    assert tree["actor"]["name"] == want["tags"]["mlflow.user"]
    assert tree["tag"] == want["tags"]["mlflow.runName"]
    scores = {
        str(doc.graph.value(v, RK.measureName)): v
        for v in doc.graph.objects(doc.subject, RK.reportedScore)
    }
    assert set(scores) == set(want["metrics"])
    return scores
