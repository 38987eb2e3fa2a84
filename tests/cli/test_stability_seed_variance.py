"""``reprokg stability --compare A B`` and ``--cd`` on the bundled stability study loaded
into an embedded store: the numbers are those of the study's runs as the graph holds them
(checked against R on the CSV's own rows), and the CD diagram is a self-contained SVG (no
script, no external reference)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from reprokg.cli import main
from tests.conftest import need
from tests.stats.conftest import run_r

pytestmark = pytest.mark.slow  # loads the study into a store

REPO = Path(__file__).resolve().parents[2]
CSV = REPO / "examples" / "stability" / "fewshot_seed003.csv"


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("seed-variance") / "store"
    assert main(["load", "-q", "--store", str(d), str(CSV)]) == 0
    return d


def _r_vector(x: np.ndarray) -> str:
    return "c(" + ",".join(repr(float(v)) for v in np.ravel(x)) + ")"


def _r_reference(a: np.ndarray, b: np.ndarray, table: pd.DataFrame) -> list[float]:
    """R's numbers: P(A > B) + ½ P(A = B) over every pair of runs (``outer``), the Friedman
    p-value of ``friedman.test`` on the seeds x experiments matrix, and the average ranks
    (``rank`` of the negated scores per seed: 1 = best, ties averaged)."""
    rscript = shutil.which("Rscript")
    need(rscript is not None, "Rscript is not installed")
    k = table.shape[1]
    code = (
        f"a <- {_r_vector(a)}; b <- {_r_vector(b)}; "
        f"m <- matrix({_r_vector(table.to_numpy())}, ncol = {k}, byrow = TRUE); "
        "p <- mean(outer(a, b, '>')) + 0.5 * mean(outer(a, b, '==')); "
        "r <- colMeans(t(apply(-m, 1, rank))); "
        "cat(format(c(p, friedman.test(m)$p.value, r), digits = 17))"
    )
    return run_r(str(rscript), code)


def test_compare_and_cd(store_dir: Path, tmp_path: Path, capsys) -> None:
    """P(A beats B), the Friedman p-value and the average ranks equal R's (outer, friedman.test,
    rank) on the CSV's rows to 1e-12."""
    code = main(
        [
            "stability", "--store", str(store_dir), "--format", "json",
            "--compare", "tadam-adam-1", "m-net-adam-1", "--cd", "--charts", str(tmp_path),
        ]
    )  # fmt: skip
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    rows = pd.read_csv(CSV, comment="#")
    a = rows.loc[rows["experiment"] == "tadam-adam-1", "value"].to_numpy(float)
    b = rows.loc[rows["experiment"] == "m-net-adam-1", "value"].to_numpy(float)
    c = out["compare"]
    assert c["runs"] == {"a": len(a), "b": len(b)}
    table = rows.pivot_table(index="seed", columns="experiment", values="value", aggfunc="mean")
    p_ab, friedman_p, *ranks = _r_reference(a, b, table)
    assert c["p_a_beats_b"]["value"] == pytest.approx(p_ab, abs=1e-12)
    assert c["aso"]["epsilon_min_a_over_b"] < 0.5 < c["aso"]["epsilon_min_b_over_a"]
    cd = out["critical_difference"]
    assert cd["blocks"] == 5 and cd["friedman_pvalue"] == pytest.approx(friedman_p, abs=1e-12)
    assert sorted(cd["average_ranks"]) == sorted(table.columns)
    for name, rank in zip(table.columns, ranks, strict=True):
        assert cd["average_ranks"][name] == pytest.approx(rank, abs=1e-12), name
    (svg,) = tmp_path.glob("cd-*.svg")
    text = svg.read_text()
    assert text.startswith("<svg") and "<script" not in text and "href" not in text
    assert all(name in text for name in table.columns)


def test_unknown_experiment_names_the_known_ones(store_dir: Path, capsys) -> None:
    code = main(["stability", "--store", str(store_dir), "--compare", "nope", "tadam-adam-1"])
    assert code != 0
    assert "tadam-adam-1" in capsys.readouterr().err
    assert np.isfinite(1.0)


def test_saved_results_are_typed_documents(store_dir: Path, capsys) -> None:
    """--save stores both as documents of their kinds (validated by the default engine);
    the stored critical difference reads back as the numbers the command printed, and the
    same results again are unchanged."""
    argv = [
        "stability", "--store", str(store_dir), "--format", "json", "--save",
        "--compare", "tadam-adam-1", "m-net-adam-1", "--cd", "--block", "configuration",
    ]  # fmt: skip
    assert main(argv) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert "saved seed-comparison" in captured.err and "saved critical-difference" in captured.err
    assert main(argv) == 0
    assert (
        captured.err.count(", added)") == 2 and capsys.readouterr().err.count(", unchanged)") == 2
    )
    from reprokg.stability.seed_document import stored_critical_differences
    from reprokg.store import open_store

    with open_store(str(store_dir), read_only=True) as store:
        (stored,) = [
            s
            for s in stored_critical_differences(store, out["study"])
            if s["block"] == "configuration"
        ]
        kinds = store.query(
            "SELECT ?k (COUNT(?g) AS ?n) WHERE { GRAPH ?g { ?g "
            "<https://w3id.org/reprokg/ontology#documentKind> ?k } } GROUP BY ?k"
        )
    counts = {str(k): int(n) for k, n in kinds.rows}
    assert counts["seed-comparison"] == 1 and counts["critical-difference"] == 1
    cd = out["critical_difference"]
    assert stored["average_ranks"] == cd["average_ranks"] and stored["blocks"] == 5
    assert stored["critical_difference"] == cd["critical_difference"]


def test_a_broken_seed_variance_document_is_rejected(store_dir: Path) -> None:
    from rdflib import Literal
    from rdflib.namespace import RDF

    from reprokg.core.namespaces import RK
    from reprokg.stability.seed_variance import seed_variance
    from reprokg.store import open_store
    from reprokg.validation.batching import validate_documents

    with open_store(str(store_dir), read_only=True) as store:
        _, results = seed_variance(store, None, compare=("tadam-adam-1", "m-net-adam-1"), cd=True)
    from reprokg.core.computed import ComputedResult

    assert all(isinstance(r, ComputedResult) for r in results.values())
    docs = [r.document() for r in results.values()]
    assert [d.kind for d in docs] == ["seed-comparison", "critical-difference"]
    assert all(r.conforms for r in validate_documents(docs))
    comparison, ranking = docs
    v = next(comparison.graph.subjects(RDF.type, RK.StatisticValue))
    comparison.graph.set((v, RK.statisticName, Literal("luck")))
    ranking.graph.set((ranking.subject, RK.blockFactor, Literal("moon")))
    assert not any(r.conforms for r in validate_documents([comparison, ranking]))
