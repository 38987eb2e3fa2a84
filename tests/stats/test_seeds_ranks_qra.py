"""Seed-variance comparisons, rank tests and QRA against their references, each named:
deepsig's ASO (GPL-3.0, test-only) within its Monte Carlo error, rliable's IQM and
probability of improvement (points to 1e-12, intervals within Monte Carlo error),
autorank's Friedman test and average ranks to 1e-12 (its CD within the error of its
approximate studentized range), and QRA's CV* on the paper's Table 4 and the authors'
worked example. The seed-variance data is the bundled stability study (seed 003)."""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd
import pytest

from reprokg.stats.qra import cv_star
from reprokg.stats.rank_tests import friedman_nemenyi
from reprokg.stats.seeds import aso, iqm, iqm_point, prob_improvement, prob_improvement_point
from tests.conftest import need

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def study() -> pd.DataFrame:
    frame = pd.read_csv(REPO / "examples" / "stability" / "fewshot_seed003.csv", comment="#")
    return frame[frame["metric"] == "test accuracy"]


def _values(study: pd.DataFrame, experiment: str) -> np.ndarray:
    return study.loc[study["experiment"] == experiment, "value"].to_numpy(dtype=float)


@pytest.mark.slow
def test_aso_equals_deepsig_within_monte_carlo_error(study) -> None:
    """The violation ratio is deterministic: equal to deepsig's to 1e-12. ε_min depends
    on the bootstrap: ours over 20 seeds gives its Monte Carlo spread at 1,000 resamples
    (deepsig's default); deepsig's value must lie within 4 of those standard deviations of
    our mean (measured here: sd ~0.01 at these sizes)."""
    from deepsig import aso as deepsig_aso
    from deepsig.aso import compute_violation_ratio

    a = _values(study, "protonet-adam-1")
    b = _values(study, "protonet-sgd-1")
    ours = [aso(a, b, seed=s) for s in range(20)]
    assert abs(ours[0].violation_ratio - compute_violation_ratio(a, b, dt=0.005)) <= 1e-12
    eps = np.array([o.epsilon_min for o in ours])
    ref = deepsig_aso(a, b, num_bootstrap_iterations=1000, seed=1, show_progress=False)
    assert abs(ref - eps.mean()) <= 4 * max(eps.std(), 1e-3)


def _rliable_metrics() -> ModuleType:
    """rliable comes from .ci/run with --no-deps (pyproject's test extra says why)."""
    need(
        importlib.util.find_spec("rliable") is not None,
        "rliable is not installed: pip install --no-deps 'rliable==1.2.0'",
    )
    return importlib.import_module("rliable.metrics")


def test_iqm_and_improvement_points_equal_rliable(study) -> None:
    metrics = _rliable_metrics()

    a = _values(study, "m-net-adam-1")
    b = _values(study, "m-net-adam-2")
    assert abs(iqm_point(a) - metrics.aggregate_iqm(a[:, None])) <= 1e-12
    both = np.stack([a[:80], b[:80]], axis=1)  # two "tasks"
    assert abs(iqm_point(both) - metrics.aggregate_iqm(both)) <= 1e-12
    ref = metrics.probability_of_improvement(a[:, None], b[:, None])
    assert abs(prob_improvement_point(a, b) - ref) <= 1e-12
    assert prob_improvement_point(a, a) == 0.5  # rliable: identical scores -> 0.5


def test_intervals_within_monte_carlo_error_of_rliables_bootstrap(study) -> None:
    """rliable's interval is arch's bootstrap percentile interval of the IQM, runs
    resampled within each task. ``rliable.library.get_interval_estimates`` cannot run here
    (rliable 1.2 passes ``random_state`` to arch, which arch 8 refuses; arch 7, which took
    it, does not import under pandas 3), so the oracle is what it calls for one task: arch's
    ``IIDBootstrap(...).conf_int(method="percentile")`` of ``rliable.metrics.aggregate_iqm``
    at 2,000 resamples. Its ends agree with ours within 3 Monte Carlo standard errors (the
    spread of our ends over 10 seeds)."""
    from arch.bootstrap import IIDBootstrap

    metrics = _rliable_metrics()

    a = _values(study, "tadam-adam-1")
    ours = [iqm(a, seed=s) for s in range(10)]
    lows = np.array([o.low for o in ours])
    highs = np.array([o.high for o in ours])
    boot = IIDBootstrap(a[:, None], seed=0)
    ref = boot.conf_int(
        lambda s: np.array([metrics.aggregate_iqm(s)]), reps=2000, method="percentile"
    )
    assert abs(ref[0, 0] - lows.mean()) <= 3 * max(lows.std(), 1e-4)
    assert abs(ref[1, 0] - highs.mean()) <= 3 * max(highs.std(), 1e-4)
    pi = prob_improvement(a, _values(study, "tadam-sgd-1"))
    assert pi.low <= pi.value <= pi.high


def _rliable_library(monkeypatch) -> ModuleType:
    """``rliable.library`` made importable and runnable for the test only: rliable imports
    ``absl.logging`` (not installed with --no-deps) just to log, so a silent stand-in is put
    in its place; rliable 1.2 passes ``random_state`` to arch, which arch 8 takes for data
    and refuses, so arch's ``IndependentSamplesBootstrap`` is given an ``__init__`` that
    drops it (rliable's resampling ignores it anyway: it draws from ``np.random.choice``)."""
    import sys

    import arch.bootstrap as arch_bs

    _rliable_metrics()
    if importlib.util.find_spec("absl") is None:
        absl = ModuleType("absl")
        absl.logging = ModuleType("absl.logging")  # type: ignore[attr-defined]
        absl.logging.info = lambda *args, **kwargs: None  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, "absl", absl)
        monkeypatch.setitem(sys.modules, "absl.logging", absl.logging)
    original = arch_bs.IndependentSamplesBootstrap.__init__

    def init(self, *args, random_state=None, **kwargs) -> None:
        original(self, *args, **kwargs)

    monkeypatch.setattr(arch_bs.IndependentSamplesBootstrap, "__init__", init)
    monkeypatch.delitem(sys.modules, "rliable.library", raising=False)
    return importlib.import_module("rliable.library")


@pytest.mark.slow
def test_prob_improvement_interval_within_monte_carlo_error_of_rliable(study, monkeypatch) -> None:
    """P(A > B) and its interval against rliable's ``get_interval_estimates`` of
    ``metrics.probability_of_improvement`` (its ``StratifiedIndependentBootstrap``,
    percentile, 2,000 resamples), one task and two. The point is deterministic: equal to
    1e-12. The resampling scheme is the same (each algorithm's runs resampled with
    replacement within each task, independently of the other's), but rliable draws from
    numpy's global legacy ``np.random.choice`` and we from ``default_rng(seed)``, so the
    ends cannot be equal. rliable's (one draw) must lie within 4 standard errors of the
    difference from our mean end over 10 seeds, sd √(1 + 1/10), sd the spread of our ends
    (~0.0015 here). Measured: rliable's two-task low end over 8 seeds averages 0.4884 (sd
    0.0020) against our 0.4890; its seed 0 (0.4840) lies 3.1 such errors off."""
    library = _rliable_library(monkeypatch)
    metrics = importlib.import_module("rliable.metrics")
    one = (_values(study, "tadam-adam-1"), _values(study, "tadam-sgd-1"))
    two = (
        np.stack([one[0][:80], _values(study, "m-net-adam-1")[:80]], axis=1),
        np.stack([one[1][:80], _values(study, "m-net-adam-2")[:80]], axis=1),
    )
    state = np.random.get_state()
    try:
        for a, b in (one, two):
            np.random.seed(0)
            a2, b2 = a.reshape(len(a), -1), b.reshape(len(b), -1)
            points, intervals = library.get_interval_estimates(
                {"ab": [a2, b2]}, metrics.probability_of_improvement, reps=2000
            )
            ours = [prob_improvement(a, b, resamples=2000, seed=s) for s in range(10)]
            assert abs(ours[0].value - float(points["ab"])) <= 1e-12
            assert 0.52 < ours[0].value < 0.95  # neither a tie nor a certainty
            lows = np.array([o.low for o in ours])
            highs = np.array([o.high for o in ours])
            (ref_low,), (ref_high,) = intervals["ab"]
            error = np.sqrt(1 + 1 / len(ours))
            assert abs(ref_low - lows.mean()) <= 4 * error * max(lows.std(), 1e-4)
            assert abs(ref_high - highs.mean()) <= 4 * error * max(highs.std(), 1e-4)
    finally:
        np.random.set_state(state)


def test_single_seed_and_equal_scores() -> None:
    one = iqm(np.array([0.7]))
    assert one.value == one.low == one.high == 0.7
    same = aso(np.array([0.5, 0.5]), np.array([0.5, 0.5]))
    assert same.violation_ratio == 0.5  # deepsig: equal distributions -> 0.5


def _seed_blocks(study: pd.DataFrame) -> pd.DataFrame:
    """Blocks = seeds (mean over configurations and repeats), columns = experiments."""
    return study.pivot_table(index="seed", columns="experiment", values="value", aggfunc="mean")


def test_friedman_and_average_ranks_equal_autorank(study) -> None:
    from autorank import autorank

    table = _seed_blocks(study)
    mine = friedman_nemenyi(table.to_numpy(), list(table.columns))
    ref = autorank(table, alpha=0.05, force_mode="nonparametric", verbose=False)
    assert ref.omnibus == "friedman"
    assert abs(mine.pvalue - ref.pvalue) <= 1e-12
    for name, rank in zip(mine.names, mine.average_ranks, strict=True):
        assert abs(rank - ref.rankdf.loc[name, "meanrank"]) <= 1e-12
    # autorank's q_alpha is statsmodels' approximate qsturng (4e-5 relative at k = 12)
    assert mine.critical_difference == pytest.approx(ref.cd, rel=1e-4)


def test_friedman_with_ties_equals_scipy() -> None:
    import scipy.stats as st

    x = np.array([[1, 2, 2, 4], [3, 3, 1, 2], [0.5, 0.5, 0.5, 0.1], [2, 1, 3, 4]])
    mine = friedman_nemenyi(x, list("abcd"))
    ref = st.friedmanchisquare(*x.T)
    assert abs(mine.statistic - ref.statistic) <= 1e-12 and abs(mine.pvalue - ref.pvalue) <= 1e-12


# the paper's Table 4 (Belz, Popović & Mille 2022): CV* of four system/measure pairs
TABLE_4 = [
    ([84.51, 84.50, 87.46, 85.60, 84.20, 86.61, 86.20], 1.562),  # NTS_def, BLEU, 7 scores
    ([30.65, 30.65, 29.13, 30.65, 29.96], 2.487),  # NTS_def, SARI
    ([87.50, 80.75, 89.36, 88.10, 89.64, 88.80], 4.176),  # NTS-w2v_def, BLEU
    ([31.11, 30.28, 31.11, 29.12], 3.572),  # NTS-w2v_def, SARI
]


@pytest.mark.parametrize(("scores", "published"), TABLE_4)
def test_qra_reproduces_the_papers_table_4(scores, published) -> None:
    assert round(cv_star(scores).cv_star, 3) == published


def test_qra_worked_example_of_the_authors() -> None:
    """The worked example the authors' code prints for Table 4's BLEU scores of NTS_def
    (asbelz/coeff-var, README): CV* 1.5616560359100269, mean 85.58285714285714, unbiased sd
    1.2904233075765223 with 95% CI (0.4514829817654973, 2.1293636333875474), n 7, 100% of
    the values within two and 71.429% within one standard deviation."""
    r = cv_star(TABLE_4[0][0])
    assert r.cv_star == pytest.approx(1.5616560359100269, rel=1e-14)
    assert r.mean == pytest.approx(85.58285714285714, rel=1e-15)
    assert r.sd == pytest.approx(1.2904233075765223, rel=1e-15)
    assert r.n == 7 and r.within_two_sd == 100.0 and round(r.within_one_sd, 3) == 71.429
    # the README's interval came from an earlier revision of their code; their current code
    # (scipy's t.interval around s*) gives ours: within 1e-9 of the README's figures
    assert r.sd_low == pytest.approx(0.4514829817654973, abs=1e-9)
    assert r.sd_high == pytest.approx(2.1293636333875474, abs=1e-9)


def test_qra_scale_shift_and_edge_cases() -> None:
    ratings = [4.1, 3.9, 4.4]  # a 1-5 rating scale: shifted to start at 0
    assert cv_star(ratings, scale_min=1).cv_star > cv_star(ratings).cv_star
    assert cv_star([0.3, 0.3]).cv_star == 0.0
    with pytest.raises(ValueError, match="n >= 2"):
        cv_star([0.5])


def test_qra_plus_set_agreement_equals_scipy() -> None:
    """QRA++'s type II/III measures of one reproduction against scipy's pearsonr,
    spearmanr and kendalltau (tau-b), ties included; Table 4's four original values
    against the first reproduction's of each."""
    import scipy.stats as st

    from reprokg.stats.qra import set_agreement

    for a, b in (
        ([84.51, 30.65, 87.50, 31.11], [84.50, 30.65, 80.75, 30.28]),
        ([1, 2, 2, 3, 5], [2, 2, 1, 4, 4]),  # ties on both sides
    ):
        mine = set_agreement(a, b)
        assert mine.pearson_r == pytest.approx(st.pearsonr(a, b).statistic, abs=1e-12)
        assert mine.spearman_rho == pytest.approx(st.spearmanr(a, b).statistic, abs=1e-12)
        assert mine.kendall_tau == pytest.approx(st.kendalltau(a, b).statistic, abs=1e-12)
    flat = set_agreement([0.3, 0.3, 0.3], [0.1, 0.2, 0.3])
    assert flat.pearson_r is None and flat.kendall_tau is None  # undefined, not 0
    assert set_agreement([0.5], [0.4]).n == 1


def test_qra_plus_kendall_w_equals_friedman_over_m_n_minus_1() -> None:
    """Kendall's W (tie corrected) = Friedman's tie-corrected χ² / (m (n - 1)), scipy's
    friedmanchisquare with the sources as blocks and the quantities as treatments."""
    import scipy.stats as st

    from reprokg.stats.qra import kendall_w

    x = np.array(
        [[84.51, 30.65, 87.50, 31.11], [84.50, 30.65, 80.75, 30.28], [87.46, 29.13, 89.36, 31.11]]
    )
    ties = np.array([[1, 2, 2, 4], [3, 3, 1, 2], [1, 1, 2, 2], [2, 1, 3, 4]], dtype=float)
    for m in (x, ties):
        chi2 = st.friedmanchisquare(*m.T).statistic
        assert kendall_w(m) == pytest.approx(chi2 / (m.shape[0] * (m.shape[1] - 1)), abs=1e-12)
    assert kendall_w(np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])) == 1.0
    assert kendall_w(np.array([[1.0, 2.0]])) is None
