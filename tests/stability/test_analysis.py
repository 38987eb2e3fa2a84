"""The issue's JSON dict: shape, reruns and H1-H3, edge cases, chart, speed (no R needed)."""

from __future__ import annotations

import json
import time

import numpy as np
import pandas as pd
import pytest

from reprokg.stability.analysis import analyse
from reprokg.stability.chart import means_chart
from reprokg.stability.simulate import crossed_design, paper_design

TOP_KEYS = [
    "study", "n", "model", "method", "singular", "loglik", "fixed_effects",
    "variance_components", "random_effects_tests", "anova", "contrasts", "hypotheses",
    "warnings",
]  # fmt: skip


@pytest.fixture(scope="module")
def paper() -> pd.DataFrame:
    return paper_design(1)


def _strict_json(result: dict) -> None:
    """Numbers as JSON numbers: no NaN/inf may reach the output."""
    json.dumps(result, allow_nan=False)


def test_json_shape_exactly_as_the_issue(paper: pd.DataFrame) -> None:
    res = analyse(paper, study="https://w3id.org/reprokg/id/study/s1")
    _strict_json(res)
    assert list(res) == TOP_KEYS
    assert res["study"] == "https://w3id.org/reprokg/id/study/s1"
    assert res["method"] == "REML"
    assert res["model"] == "value ~ experiment + (1 | seed) + (1 | repeat)"
    exps = sorted(paper["experiment"].unique())
    assert list(res["fixed_effects"]) == ["(Intercept)", *[f"experiment{e}" for e in exps[1:]]]
    for row in res["fixed_effects"].values():
        assert list(row) == ["estimate", "se", "df", "t", "p"]
    assert list(res["variance_components"]) == ["seed", "repeat", "residual"]
    for row in res["variance_components"].values():
        assert list(row) == ["variance", "sd"]
    assert list(res["random_effects_tests"]) == ["seed", "repeat"]
    for row in res["random_effects_tests"].values():
        assert list(row) == ["npar", "loglik", "aic", "lrt", "df", "p"]
    assert list(res["anova"]["experiment"]) == ["sum_sq", "mean_sq", "num_df", "den_df", "f", "p"]
    for row in res["contrasts"].values():
        assert list(row) == ["estimate", "se", "df", "t", "lower", "upper", "p"]
    assert list(res["hypotheses"]) == ["H1", "H2", "H3"]
    for row in res["hypotheses"].values():
        assert list(row) == ["test", "p", "decision"]


def test_reruns_and_hypotheses(paper: pd.DataFrame) -> None:
    res = analyse(paper, alpha=0.05)
    assert list(res["contrasts"]) == [
        "m-net-adam-1 - m-net-adam-2",
        "m-net-sgd-1 - m-net-sgd-2",
        "protonet-adam-1 - protonet-adam-2",
        "protonet-sgd-1 - protonet-sgd-2",
        "tadam-adam-1 - tadam-adam-2",
        "tadam-sgd-1 - tadam-sgd-2",
    ]
    h = res["hypotheses"]
    assert h["H1"]["p"] == res["random_effects_tests"]["repeat"]["p"]
    assert h["H2"]["p"] == res["random_effects_tests"]["seed"]["p"]
    ps = [c["p"] for c in res["contrasts"].values()]
    assert h["H3"]["p"] == min(ps)
    assert h["H3"]["decision"] == ("rejected" if min(ps) < 0.05 else "not_rejected")
    assert "alpha = 0.05" in h["H3"]["test"]
    # a stricter alpha can only turn rejections into non-rejections
    strict = analyse(paper, alpha=1e-6)["hypotheses"]["H3"]
    assert strict["decision"] == ("rejected" if min(ps) < 1e-6 else "not_rejected")
    assert "alpha = 1e-06" in strict["test"]


def test_reference_level_in_a_contrast(paper: pd.DataFrame) -> None:
    """a - b where a is the reference level: minus b's coefficient."""
    res = analyse(paper, pairs=[("m-net-adam-1", "tadam-sgd-2")])
    c = res["contrasts"]["m-net-adam-1 - tadam-sgd-2"]
    fe = res["fixed_effects"]["experimenttadam-sgd-2"]
    assert c["estimate"] == pytest.approx(-fe["estimate"], rel=1e-12)
    assert c["se"] == pytest.approx(fe["se"], rel=1e-12)
    assert c["p"] == pytest.approx(fe["p"], rel=1e-9)


def test_ml_on_request(paper: pd.DataFrame) -> None:
    res = analyse(paper, reml=False)
    assert res["method"] == "ML"
    assert res["loglik"] != analyse(paper)["loglik"]


def test_non_finite_values_are_dropped_with_a_warning(paper: pd.DataFrame) -> None:
    bad = paper.copy()
    bad["value"] = bad["value"].astype(object)
    bad.loc[[0, 5, 9], "value"] = [np.nan, np.inf, "n/a"]
    res = analyse(bad)
    clean = analyse(paper.drop(index=[0, 5, 9]))
    assert res["n"] == len(paper) - 3
    assert res["fixed_effects"] == clean["fixed_effects"]
    assert any("3 row(s) with a missing or non-finite value" in w for w in res["warnings"])
    _strict_json(res)


def test_one_experiment_has_no_f_test() -> None:
    res = analyse(crossed_design(5, experiments=("a",), n_seeds=5, n_repeats=4, per_cell=2))
    _strict_json(res)
    assert res["model"] == "value ~ 1 + (1 | seed) + (1 | repeat)"
    assert res["anova"] == {} and res["contrasts"] == {}
    assert list(res["fixed_effects"]) == ["(Intercept)"]
    assert res["hypotheses"]["H3"] == {"test": None, "p": None, "decision": None}
    assert any("Only one experiment" in w for w in res["warnings"])
    assert res["hypotheses"]["H1"]["p"] is not None


def test_one_seed_level_leaves_the_term_out() -> None:
    res = analyse(crossed_design(5, n_seeds=1, n_repeats=4, per_cell=3))
    _strict_json(res)
    assert res["model"] == "value ~ experiment + (1 | repeat)"
    assert res["variance_components"]["seed"] == {"variance": None, "sd": None}
    assert set(res["random_effects_tests"]["seed"].values()) == {None}
    assert res["hypotheses"]["H2"]["decision"] is None
    assert any("Only one seed level" in w for w in res["warnings"])
    assert any("H2 is not tested" in w for w in res["warnings"])


def test_one_seed_and_one_repeat_is_the_linear_model() -> None:
    res = analyse(crossed_design(5, n_seeds=1, n_repeats=1, per_cell=5))
    _strict_json(res)
    assert res["model"] == "value ~ experiment"
    assert res["singular"] is False
    assert res["anova"]["experiment"]["den_df"] == pytest.approx(15 - 3, rel=1e-9)


@pytest.mark.parametrize(
    "frame",
    [
        paper_design(1).iloc[:0],
        crossed_design(5, n_seeds=1, n_repeats=1, per_cell=1),  # n = p
        paper_design(1).drop(columns=["seed"]),
        paper_design(1).assign(value=np.nan),
    ],
    ids=["empty", "n-equals-p", "no-seed-column", "all-nan"],
)
def test_nothing_estimable_gives_nulls_and_a_sentence(frame: pd.DataFrame) -> None:
    res = analyse(frame)
    _strict_json(res)
    assert list(res) == TOP_KEYS
    assert res["loglik"] is None and res["singular"] is None
    assert res["warnings"]


def test_missing_cells_are_reported() -> None:
    res = analyse(crossed_design(5, n_seeds=6, n_repeats=4, per_cell=1, keep=0.7))
    assert any("cells have no observation" in w for w in res["warnings"])
    assert res["variance_components"]["seed"]["variance"] > 0


def test_without_algorithm_column_h3_is_null(paper: pd.DataFrame) -> None:
    res = analyse(paper.drop(columns=["algorithm"]))
    assert res["contrasts"] == {}
    assert res["hypotheses"]["H3"]["decision"] is None
    assert any("No algorithm column" in w for w in res["warnings"])


@pytest.mark.slow
def test_chart_svg_and_png(paper: pd.DataFrame) -> None:
    svg = means_chart(paper)
    assert svg.startswith(b"<?xml") and b"<svg" in svg[:500]
    png = means_chart(paper, fmt="png")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert means_chart(paper.iloc[:0]).startswith(b"<?xml")  # nothing to plot, no traceback


def test_paper_sized_analysis_under_one_second(paper: pd.DataFrame) -> None:
    """Fit, both LRT refits, F test, six contrasts: well under 1 s (R: ~0.3-0.8 s)."""
    analyse(paper)
    t0 = time.perf_counter()
    for _ in range(3):
        analyse(paper_design(11, seed_sd=0.02, repeat_sd=0.004))
    assert (time.perf_counter() - t0) / 3 < 1.0


@pytest.mark.parametrize(
    "frame",
    [
        crossed_design(5, n_seeds=5, n_repeats=4, per_cell=2, residual_sd=0.0, repeat_sd=0.0),
        crossed_design(5, n_seeds=5, n_repeats=4, per_cell=2).assign(value=0.5),
    ],
    ids=["deterministic-runs", "constant"],
)
def test_no_residual_variation_is_refused_with_a_reason(frame: pd.DataFrame) -> None:
    """lme4 fails to converge (deterministic) or stops with an error (constant) here."""
    res = analyse(frame)
    _strict_json(res)
    assert res["loglik"] is None
    assert any("residual variance is 0" in w for w in res["warnings"])


def test_tiny_residual_variance_still_fits() -> None:
    """Residual sd 1e-3 of the seed sd: theta ~ 900, still at R's optimum (logLik 617.261)."""
    res = analyse(
        crossed_design(5, n_seeds=5, n_repeats=4, per_cell=2, residual_sd=1e-3, repeat_sd=0.0)
    )
    assert res["loglik"] == pytest.approx(617.26104971, rel=1e-10)
    assert res["variance_components"]["seed"]["variance"] == pytest.approx(0.5949, rel=1e-3)


def test_a_reduced_model_that_cannot_be_refitted_is_a_sentence(
    paper: pd.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ranova's refits can fail (lmm raises ModelError): nulls and a warning, no traceback."""
    from reprokg.stability import lmm

    def fail(model: object) -> list:
        raise lmm.ModelError("the optimiser did not converge in 200 Newton steps")

    monkeypatch.setattr(lmm, "ranova", fail)
    res = analyse(paper)
    _strict_json(res)
    assert res["random_effects_tests"]["seed"]["p"] is None
    assert res["hypotheses"]["H1"]["decision"] is None and res["fixed_effects"]
    assert any("random-effects tests could not be computed" in w for w in res["warnings"])
