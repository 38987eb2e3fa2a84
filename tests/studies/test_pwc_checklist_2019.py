"""ML Code Completeness Checklist (Papers with Code): the study from the graph against R itself.

``r/pwc_checklist.R`` runs the notebook's code (code_checklist-analysis.Rmd, with base
``read.csv`` for ``readr::read_csv``: the same numbers for this all-numeric table) on the
same CSV with R and MASS and prints every number at full precision; the study reads the
repositories from the graph. Synthetic CSVs reach the branches the real data does not (R's
exact rank-sum distribution, rlm on other designs). Under CI=true a missing R or MASS
fails instead of skipping (.ci/run installs them).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from reprokg.studies import mann_whitney
from reprokg.studies import pwc_checklist_2019 as pw
from reprokg.studies.registry import PWC_CHECKLIST_2019
from tests.conftest import need
from tests.studies.stores import PWC_CSV, studies_store

R_SCRIPT = Path(__file__).parent / "r" / "pwc_checklist.R"
REL = 1e-9


@pytest.fixture(scope="module")
def rscript() -> str:
    exe = shutil.which("Rscript")
    need(exe is not None, "Rscript (R) is not installed")
    ok = subprocess.run(
        [str(exe), "-e", "quit(status = !requireNamespace('MASS', quietly = TRUE))"],
        capture_output=True,
    )
    need(ok.returncode == 0, "the R package MASS is not installed (r-cran-mass)")
    return str(exe)


def run_r(rscript: str, csv: Path) -> dict[str, str]:
    out = subprocess.run(
        [rscript, str(R_SCRIPT), str(csv)], capture_output=True, text=True, check=True
    ).stdout
    return dict(line.split("\t", 1) for line in out.splitlines() if "\t" in line)


def flatten(result: dict[str, Any]) -> dict[str, float]:
    flat: dict[str, float] = {"n": result["n"]}
    for s, v in result["by_score"].items():
        for k, x in v.items():
            flat[f"by_score.{s}.{k}"] = x
    for term, v in result["rlm"].items():
        for k, x in v.items():
            flat[f"rlm.{term}.{k}"] = x
    flat["rlm_fit.scale"] = result["rlm_fit"]["scale"]
    flat["rlm_fit.iterations"] = result["rlm_fit"]["iterations"]
    for name, v in result["wilcoxon"].items():
        flat[f"wilcoxon.{name}.statistic"] = v["statistic"]
        flat[f"wilcoxon.{name}.p"] = v["p"]
    return flat


def compare(ours: dict[str, Any], theirs: dict[str, str]) -> None:
    flat = flatten(ours)
    numeric = {k: float(v) for k, v in theirs.items() if not k.endswith(".method")}
    assert set(flat) == set(numeric)
    for key, value in numeric.items():
        assert flat[key] == pytest.approx(value, rel=REL, abs=1e-12), key
    for name, v in ours["wilcoxon"].items():
        assert v["method"].startswith(theirs[f"wilcoxon.{name}.method"]), name


@pytest.mark.slow
def test_the_graph_gives_what_r_gives_on_the_csv(
    rscript: str, shared_data: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    store = studies_store(shared_data, tmp_path_factory.mktemp("studies-store"))
    ours = PWC_CHECKLIST_2019.run(store).to_json()
    compare(ours, run_r(rscript, shared_data / PWC_CSV))
    assert ours["n"] == 200 and ours["n_repositories"] == 221
    assert ours["by_score"]["5"]["median"] == 196.5  # the README: "median of 196"
    assert round(ours["by_score"]["5"]["mean"]) == 2665  # the README: "mean of 2,664"
    assert set(ours) >= {"n", "by_score", "rlm", "wilcoxon", "method"}
    assert set(ours["rlm"]) == {"(Intercept)", *pw.ITEMS}


def synthetic(seed: int, n: int, ties: bool) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    items = rng.integers(0, 2, size=(n, 5))
    base = 10 + items @ np.array([5.0, -3.0, 20.0, 8.0, 2.0])
    stars = np.abs(base + rng.standard_t(2, size=n) * 15)
    stars = np.round(stars) if ties else stars + rng.random(n) * 1e-3  # distinct values
    df = pd.DataFrame(items, columns=pw.ITEMS)
    df.insert(0, "url", [f"https://example.org/{i}" for i in range(n)])
    df.insert(1, "stars", stars)
    df.insert(2, "python", 1)
    for s in range(6):  # every score 0..5 present, so the notebook's loop has its groups
        df.loc[s, pw.ITEMS] = [1] * s + [0] * (5 - s)
    return df


@pytest.mark.parametrize(("seed", "n", "ties"), [(1, 60, False), (2, 90, True), (3, 400, False)])
def test_synthetic_data_match_r(
    rscript: str, tmp_path: Path, seed: int, n: int, ties: bool
) -> None:
    csv = tmp_path / "t.csv"
    synthetic(seed, n, ties).to_csv(csv, index=False, float_format="%.17g")
    ours = pw.analyze(pd.read_csv(csv)).to_json()
    theirs = run_r(rscript, csv)
    compare(ours, theirs)
    if not ties:  # small groups, no ties: R's exact distribution was used somewhere
        assert any("exact" in theirs[k] for k in theirs if k.endswith(".method"))


def test_exact_distribution_counts() -> None:
    # U for sizes 2 and 2: arrangements 6, U = 0,1,2,2,3,4 -> counts 1,1,2,1,1
    assert mann_whitney.mann_whitney_counts(2, 2).tolist() == [1, 1, 2, 1, 1]
    counts = mann_whitney.mann_whitney_counts(5, 7)
    assert sum(counts) == 792  # C(12, 5)
    assert counts.tolist() == counts.tolist()[::-1]  # symmetric
    assert mann_whitney.exact_cdf(0, 2, 2) == pytest.approx(1 / 6)
    assert mann_whitney.exact_upper(4, 2, 2) == pytest.approx(1 / 6)


def test_r_summary_is_type_7() -> None:
    x = np.array([1.0, 2.0, 4.0, 8.0])
    s = pw.r_summary(x)
    # type 7: h = (n-1)p + 1 -> q1 at 1.75: 1 + 0.75*(2-1) = 1.75; q3 at 3.25: 4 + 0.25*4 = 5
    assert (s["q1"], s["median"], s["q3"], s["mean"]) == (1.75, 3.0, 5.0, 3.75)


def test_statsmodels_rlm_is_not_mass_rlm(shared_data: Path) -> None:
    """Why rlm is written out: statsmodels' Huber RLM lands elsewhere on the same data."""
    import statsmodels.api as sm

    t = pd.read_csv(shared_data / PWC_CSV)
    t = t[t.python == 1]
    x = sm.add_constant(t[pw.ITEMS].astype(float))
    theirs = sm.RLM(t.stars.astype(float), x, M=sm.robust.norms.HuberT()).fit().params
    ours = pw.analyze(t).rlm["pretrained_model"]["estimate"]
    assert abs(theirs["pretrained_model"] - ours) / ours > 1e-3
