"""QRA over the graph (measures/qra.py, reprokg qra): the paper's worked example loaded as
documents and assessed through the store; the runs' means of stored comparisons and their
reported scores against ir-measures; a stability study's runs against its CSV; the scale
shift; the result document and its shapes on the default validation engine.

The worked example is Table 4 of Belz, Popović & Mille (2022), "Quantified Reproducibility
Assessment of NLP Results" (ACL): CV* 1.562, 2.487, 4.176 and 3.572 for the BLEU and SARI
scores of Nisioi et al.'s (2017) NTS_def and NTS-w2v_def over the original and its
reproductions, and the figures the authors' code prints for the first (asbelz/coeff-var,
README): mean 85.58285714285714, unbiased sd 1.2904233075765223 with 95% CI
(0.4514829817654973, 2.1293636333875474), 71.429% of the values within one sd.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from reprokg.cli import main
from tests.conftest import REPO

NTS = REPO / "examples" / "qra"
NTS_DOI = "10.18653/v1/P17-2014"
NTS_IRI = "https://doi.org/10.18653/v1/p17-2014"
RUNS = REPO / "examples" / "runs"
RUNS_DOI = "10.1007/978-3-030-15712-8_26"
#: (measure, system) -> CV* in the paper's Table 4
TABLE_4 = {
    ("BLEU", "NTS_def"): 1.562,
    ("SARI", "NTS_def"): 2.487,
    ("BLEU", "NTS-w2v_def"): 4.176,
    ("SARI", "NTS-w2v_def"): 3.572,
}


def _json(capsys, *argv: str) -> dict:
    capsys.readouterr()
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def nts_store(tmp_path_factory) -> Path:
    store = tmp_path_factory.mktemp("qra") / "kg"
    assert main(["load", "--store", str(store), str(NTS)]) == 0
    return store


def test_the_papers_worked_example_through_the_graph(nts_store: Path, capsys) -> None:
    out = _json(capsys, "qra", "--store", str(nts_store), NTS_DOI, "--format", "json", "--save")
    got = {(q["measure"], q["parts"]["system"]): q for q in out["quantities"]}
    assert set(got) == set(TABLE_4)  # six audits, one quantity per metric and system
    for key, published in TABLE_4.items():
        assert round(got[key]["cv_star"], 3) == published, key
        assert got[key]["origin"] == "audit" and got[key]["paper"] == NTS_IRI
    bleu = got[("BLEU", "NTS_def")]
    assert bleu["n"] == 7 and [m["role"] for m in bleu["measurements"]].count("original") == 1
    assert bleu["mean"] == pytest.approx(85.58285714285714, rel=1e-15)
    assert bleu["sd"] == pytest.approx(1.2904233075765223, rel=1e-15)
    assert bleu["sd_low"] == pytest.approx(0.4514829817654973, abs=1e-9)
    assert bleu["sd_high"] == pytest.approx(2.1293636333875474, abs=1e-9)
    assert round(bleu["within_one_sd"], 3) == 71.429 and bleu["within_two_sd"] == 100.0
    # stored: the page's query reads the same numbers back from the qra document
    from reprokg.measures.qra_document import stored_quantities
    from reprokg.store import open_store

    with open_store(str(nts_store), read_only=True) as store:
        stored = {(q["measure"], q["label"]): q for q in stored_quantities(store, NTS_IRI)}
        kinds = {str(r[0]) for r in store.query(_KINDS).rows}
    assert stored[("BLEU", "BLEU · NTS_def")]["cvStar"] == pytest.approx(bleu["cv_star"])
    assert len(stored[("BLEU", "BLEU · NTS_def")]["measurements"]) == 7
    assert "qra" in kinds


_KINDS = (
    "SELECT DISTINCT ?k WHERE { GRAPH ?g { ?g <https://w3id.org/reprokg/ontology#documentKind> "
    "?k } }"
)


def test_every_audit_of_a_paper_is_its_own_document(nts_store: Path) -> None:
    """Six reproductions of one paper, told apart by their citation, are six documents
    (the audit loader keyed a document by its paper alone: each revised the one before)."""
    from reprokg.store import open_store

    with open_store(str(nts_store), read_only=True) as store:
        res = store.query(
            "SELECT (COUNT(DISTINCT ?a) AS ?n) "
            "WHERE { ?a a <https://w3id.org/reprokg/ontology#Audit> }"
        )
    assert int(res.rows[0][0]) == 6


def test_table_and_errors(nts_store: Path, capsys) -> None:
    assert main(["qra", "--store", str(nts_store), "--measure", "SARI"]) == 0
    text = capsys.readouterr().out
    assert "SARI · NTS_def  [audit]  n=5" in text and "CV* 2.487" in text
    assert main(["qra", "--store", str(nts_store)]) == 2  # neither a paper nor a measure
    assert "give a paper's DOI" in capsys.readouterr().err
    assert main(["qra", "--store", str(nts_store), "--measure", "BLEU", "--level", "1.5"]) == 2


def _ir_measures_means(run: Path, measure: str) -> float:
    """The run's mean of ``measure`` on the toy qrels, by ir-measures itself (the header's
    comment lines skipped)."""
    import ir_measures

    qrels = list(ir_measures.read_trec_qrels(str(RUNS / "qrels.toy")))
    lines = [
        ln.split()
        for ln in run.read_text().splitlines()
        if ln.strip() and not ln.lstrip().startswith("#")
    ]
    scored = [ir_measures.ScoredDoc(q, d, float(s)) for q, _, d, _, s, *_ in lines]
    parsed = ir_measures.parse_measure(measure)
    return ir_measures.calc_aggregate([parsed], qrels, scored)[parsed]


def _cv_star(values: list[float]) -> float:
    """CV* as the paper defines it (written out here, not reprokg's): unbiased sd
    s / c4(n) over the mean, times 100 (1 + 1/(4n))."""
    n = len(values)
    mean = sum(values) / n
    s = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    c4 = math.sqrt(2 / (n - 1)) * math.gamma(n / 2) / math.gamma((n - 1) / 2)
    return (1 + 1 / (4 * n)) * 100 * (s / c4) / mean


@pytest.mark.slow
def test_runs_of_a_paper_from_comparisons_and_leaderboards(tmp_path: Path, capsys) -> None:
    """The demo's original and re-run (a research goal naming the same DOI): stored as a
    comparison, the quantity is the original run's AP with the re-run's as its
    reproduction; evaluated only (their reported scores on the nyt leaderboards), the
    two runs share the PRIMAD Method and measure one quantity. The values are
    ir-measures' means of the run files."""
    orig, rerun = RUNS / "annotated_run_example.txt", RUNS / "reproduced_run.txt"
    expected = [_ir_measures_means(orig, "AP"), _ir_measures_means(rerun, "AP")]
    compared, evaluated = tmp_path / "compared", tmp_path / "evaluated"
    for store in (compared, evaluated):
        assert main(["load", "--store", str(store), str(orig), str(rerun)]) == 0
    qrels = str(RUNS / "qrels.toy")
    argv = ["--qrels", qrels, "--orig-base", str(orig), "--rep-base", str(rerun)]
    assert main(["compare", "--store", str(compared), "--save", *argv]) == 0
    assert (
        main(
            [
                "evaluate",
                "--store",
                str(evaluated),
                "--save",
                "--qrels",
                qrels,
                str(orig),
                str(rerun),
            ]
        )
        == 0
    )
    out = _json(
        capsys, "qra", "--store", str(compared), RUNS_DOI, "--measure", "map", "--format", "json"
    )
    (q,) = out["quantities"]
    assert q["origin"] == "comparison" and q["measure"] == "AP"
    assert [m["role"] for m in q["measurements"]] == ["original", "reproduction"]
    assert [m["value"] for m in q["measurements"]] == pytest.approx(expected, abs=1e-12)
    assert q["cv_star"] == pytest.approx(_cv_star(expected), rel=1e-12)
    assert any("counted once" in w for w in out["warnings"])  # the same runs' reported map
    out = _json(
        capsys, "qra", "--store", str(evaluated), RUNS_DOI, "--measure", "map", "--format", "json"
    )
    (q,) = out["quantities"]
    assert q["origin"] == "reported" and q["parts"]["dataset"] == "nyt"
    assert sorted(m["value"] for m in q["measurements"]) == pytest.approx(
        sorted(expected), abs=1e-12
    )
    assert q["cv_star"] == pytest.approx(_cv_star(expected), rel=1e-12)


@pytest.mark.slow
def test_stability_runs_are_the_csvs(tmp_path: Path, capsys) -> None:
    """Every configuration of every algorithm/implementation/optimizer of the bundled study:
    its runs (reruns, seeds, repeats) read from the graph are the CSV's rows."""
    import pandas as pd

    csv = REPO / "examples" / "stability" / "fewshot_seed003.csv"
    store = tmp_path / "kg"
    assert main(["load", "--store", str(store), str(csv)]) == 0
    out = _json(
        capsys, "qra", "--store", str(store), "--measure", "test accuracy", "--format", "json"
    )
    frame = pd.read_csv(csv, comment="#")
    groups = frame.groupby(["algorithm", "implementation", "optimizer", "configuration"])["value"]
    assert len(out["quantities"]) == groups.ngroups == 30
    for q in out["quantities"]:
        alg, impl, opt = q["parts"]["system"].split("/")
        values = groups.get_group((alg, impl, opt, q["parts"]["configuration"])).tolist()
        assert sorted(m["value"] for m in q["measurements"]) == sorted(values)
        assert {m["role"] for m in q["measurements"]} == {"run"}
        assert q["cv_star"] == pytest.approx(_cv_star(values), rel=1e-10)


def _audit(path: Path, values: list[float], metric: str = "rating") -> None:
    metrics = "".join(
        f"  - metric: {metric}\n    reported: {values[0]}\n    reproduced: {v}\n"
        for v in values[1:2]
    )
    path.write_text(
        "audit: 1\nreport_citation: a\npublication: {doi: 10.1000/qra}\nfindings: []\n"
        f"metrics:\n{metrics}"
    )


def test_scale_shifted_to_start_at_zero(tmp_path: Path, capsys) -> None:
    """A 1-5 rating: QRA shifts it to 0-4 before CV* (so CV* is larger); a value below the
    scale's minimum is refused with a sentence, not computed. Both CV*s are held to
    ``scipy.stats.variation(ddof=1)`` (s / mean) times the paper's 100 (1 + 1/(4n)) / c4(n)
    (Belz, Popović & Mille 2022), and to the paper's formula written out (``_cv_star``)."""
    from scipy.special import gamma
    from scipy.stats import variation

    def scipy_cv_star(values: list[float]) -> float:
        n = len(values)
        c4 = math.sqrt(2 / (n - 1)) * gamma(n / 2) / gamma((n - 1) / 2)
        return float(100 * (1 + 1 / (4 * n)) * variation(values, ddof=1) / c4)

    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    _audit(a, [4.1, 3.9])
    b.write_text(
        a.read_text().replace("report_citation: a", "report_citation: b").replace("3.9", "4.4")
    )
    store = tmp_path / "kg"
    assert main(["load", "--store", str(store), str(a), str(b)]) == 0
    plain = _json(capsys, "qra", "--store", str(store), "10.1000/qra", "--format", "json")
    shifted = _json(
        capsys,
        "qra",
        "--store",
        str(store),
        "10.1000/qra",
        "--scale-min",
        "rating=1",
        "--format",
        "json",
    )
    (p,), (s,) = plain["quantities"], shifted["quantities"]
    assert s["scale_min"] == 1.0
    mean = (4.1 + 3.9 + 4.4) / 3  # reported on the original scale, shifted or not
    assert s["mean"] == pytest.approx(mean, rel=1e-12)
    assert p["mean"] == pytest.approx(mean, rel=1e-12)
    for got, values in ((s, [3.1, 2.9, 3.4]), (p, [4.1, 3.9, 4.4])):
        assert got["cv_star"] == pytest.approx(scipy_cv_star(values), rel=1e-12)
        assert got["cv_star"] == pytest.approx(_cv_star(values), rel=1e-12)
    assert s["cv_star"] > p["cv_star"]
    below = _json(
        capsys, "qra", "--store", str(store), "10.1000/qra", "--scale-min", "4", "--format", "json"
    )
    (q,) = below["quantities"]
    assert q["cv_star"] is None and "below the scale's minimum" in q["warnings"][0]


def test_qra_document_conforms_and_a_broken_one_is_rejected(nts_store: Path) -> None:
    """The default validation engine validates the qra kind: the document conforms; a
    measurement with an unknown role, or a quantity of one measurement, is a Violation."""
    from rdflib import Literal
    from rdflib.namespace import RDF

    from reprokg.core.namespaces import RK
    from reprokg.measures.qra import assess
    from reprokg.store import open_store
    from reprokg.validation.batching import validate_documents

    with open_store(str(nts_store), read_only=True) as store:
        result = assess(store, NTS_IRI, ["SARI"])
    from reprokg.core.computed import ComputedResult

    assert isinstance(result, ComputedResult) and result.KIND == "qra"  # as every result
    doc = result.document()
    assert doc.kind == "qra" and doc.subject == next(
        doc.graph.subjects(RDF.type, RK.QuantifiedReproducibilityAssessment)
    )
    (report,) = validate_documents([doc])
    assert report.conforms, report
    m = next(doc.graph.subjects(RDF.type, RK.Measurement))
    doc.graph.set((m, RK.measurementRole, Literal("maybe")))
    (report,) = validate_documents([doc])
    assert not report.conforms
    assert any("role" in str(r) for r in report.results)


@pytest.mark.slow
def test_a_comparison_is_assessed_at_its_headline_measures(tmp_path: Path, capsys) -> None:
    """A stored comparison holds 58 quantities (repro_eval 0.5.0's default measures, one
    run mean each): by default QRA shows the headline ones (AP, P@10, nDCG@10), counts the
    other 55, and says why the n = 2 intervals reach below 0; ``--full`` shows all 58."""
    orig, rerun = RUNS / "annotated_run_example.txt", RUNS / "reproduced_run.txt"
    store = str(tmp_path / "kg")
    assert main(["load", "--store", store, str(orig), str(rerun)]) == 0
    argv = ["--qrels", str(RUNS / "qrels.toy"), "--orig-base", str(orig), "--rep-base", str(rerun)]
    assert main(["compare", "--store", store, "--save", *argv]) == 0
    capsys.readouterr()
    out = _json(capsys, "qra", "--store", store, RUNS_DOI, "--format", "json")
    assert [q["measure"] for q in out["quantities"]] == ["AP", "P@10", "nDCG@10"]
    assert out["other_quantities"] == 55 and out["headline_measures"][:3] == [
        "AP",
        "P@10",
        "nDCG@10",
    ]
    (ap,) = [q for q in out["quantities"] if q["measure"] == "AP"]
    assert ap["n"] == 2 and ap["cv_star_low"] < 0 < ap["cv_star"]
    (note,) = out["notes"]
    assert note.startswith("n = 2:") and "t(1) = 12.7" in note  # scipy: t.ppf(0.975, 1)
    assert main(["qra", "--store", store, RUNS_DOI]) == 0
    text = capsys.readouterr().out
    assert "55 more quantities" in text and "note: n = 2:" in text and "P@1000" not in text
    full = _json(capsys, "qra", "--store", store, RUNS_DOI, "--full", "--format", "json")
    assert len(full["quantities"]) == 58 and full["other_quantities"] == 0


def test_small_n_intervals_cross_zero_up_to_four_measurements() -> None:
    """The interval is SD +- t(n-1) SE(SD) with SD/SE(SD) = sqrt(2(n-1))/c4(n)^2: its lower
    end is below 0 for every sample exactly when t exceeds that ratio. Reference: scipy's t
    quantiles and c4 from scipy's gamma function; at 95% that is n = 2, 3, 4 and not 5."""
    from scipy.special import gamma
    from scipy.stats import t

    from reprokg.measures.qra import MeasuredQuantity, Measurement, small_n_notes
    from reprokg.stats.qra import cv_star

    def c4(n: int) -> float:
        return math.sqrt(2 / (n - 1)) * gamma(n / 2) / gamma((n - 1) / 2)

    crossing = [n for n in range(2, 9) if t.ppf(0.975, n - 1) > math.sqrt(2 * (n - 1)) / c4(n) ** 2]
    assert crossing == [2, 3, 4]
    quantities = []
    for n in range(2, 7):
        values = [0.40 + 0.01 * i for i in range(n)]
        q = MeasuredQuantity(
            "comparison", None, "AP", {}, [Measurement(v, "run", "s", "x") for v in values]
        )
        q.qra = cv_star(values)
        assert (q.qra.cv_star_low < 0) == (n in crossing)  # whatever the values: these ones
        quantities.append(q)
    notes = small_n_notes(quantities, 0.95)
    assert [int(n.split()[2].rstrip(":")) for n in notes] == crossing
