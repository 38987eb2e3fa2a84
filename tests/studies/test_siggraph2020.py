"""SIGGRAPH 2020 study from the graph against the authors' rules applied here to the JSON.

The oracle reads ``consolidatedData.json`` itself and applies generateStatistics.m's rules
(gs.m:LINE) to the raw answers — never the frame the study reads from the graph — then
computes each test with another tool: scipy's χ² contingency and Mann–Whitney, statsmodels'
formula ANOVA (Type II, and Type III with sum-to-zero contrasts as MATLAB's anovan
computes by default) and statsmodels' Benjamini–Hochberg.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import stats
from statsmodels.formula.api import ols
from statsmodels.stats.multitest import multipletests

from reprokg.studies import siggraph2020 as sg
from reprokg.studies.registry import SIGGRAPH2020
from tests.studies.stores import SIGGRAPH, studies_store

SCORE = "Feedbacks [could reproduce results (5=highly confident)]"
TEST = "Did I manage to perform a complete test (deps/build)?"
AVAIL = "Is the code or software publicly available ?"
REL = 1e-9


@pytest.fixture(scope="module")
def store(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    return studies_store(shared_data, tmp_path_factory.mktemp("studies-store"))


@pytest.fixture(scope="module")
def results(store: Any) -> dict[str, dict[str, Any]]:
    return {m: SIGGRAPH2020.run(store, m).to_json() for m in sg.METHODS}


@pytest.fixture(scope="module")
def records(shared_data: Path) -> list[dict[str, Any]]:
    return json.loads((shared_data / SIGGRAPH).read_text(encoding="utf-8"))


def script_rows(records: list[dict[str, Any]]) -> pd.DataFrame:
    """generateStatistics.m lines 54-162, one rule per column, on the raw answers."""
    rows = []
    for r in records:
        if not r["Title"].strip():  # gs.m:55
            continue
        ans = r[SCORE]
        numeric = not (ans == "" or str(ans).startswith("N"))  # gs.m:133-142
        rows.append(
            {
                "hascode": "yes" in r[AVAIL].lower(),  # gs.m:87
                "completetest": r[TEST] == "Yes",  # gs.m:118
                "repro": int(ans) if numeric else 0,
                "numeric": numeric,
                "year": int(r["Year"]) if str(r["Year"]) else 2018,  # gs.m:144
                "deep": r["Deep learning"][0] not in "NF",  # gs.m:101
                "citations": r["Citation count (google scholar)"],  # gs.m:155
                "indus": "private companies" in r["Authors"].lower(),  # gs.m:157
                "reviewer": r["Reviewer"],
                "topic": r["Topic"].strip(),  # gs.m:160
            }
        )
    return pd.DataFrame(rows)


def chi2(df: pd.DataFrame, mask1: pd.Series, mask2: pd.Series) -> tuple[float, float, int]:
    t = [
        [df[mask1].hascode.sum(), (~df[mask1].hascode).sum()],
        [df[mask2].hascode.sum(), (~df[mask2].hascode).sum()],
    ]
    stat, p, _, _ = stats.chi2_contingency(np.array(t), correction=False)
    return float(stat), float(p), int(mask1.sum() + mask2.sum())


def anova(data: pd.DataFrame, factors: list[str]) -> dict[str, tuple[float, float, int]]:
    """Type II and, with sum-to-zero contrasts, Type III (anovan's default) — both."""
    t2 = sm.stats.anova_lm(
        ols("repro ~ " + " + ".join(f"C({f})" for f in factors), data=data).fit(), typ=2
    )
    t3 = sm.stats.anova_lm(
        ols("repro ~ " + " + ".join(f"C({f}, Sum)" for f in factors), data=data).fit(), typ=3
    )
    out = {}
    for f in factors:
        a, b = t2.loc[f"C({f})"], t3.loc[f"C({f}, Sum)"]
        assert a["F"] == pytest.approx(b["F"], rel=1e-9)  # Type II = Type III here
        out[f] = (float(a["F"]), float(a["PR(>F)"]), len(data))
    return out


@pytest.fixture(scope="module")
def oracle(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    d = script_rows(records)
    raw: dict[str, tuple[float, float, int]] = {}
    y = d.year
    raw["sharing_2014_vs_2016"] = chi2(d, y == 2014, y == 2016)  # gs.m:200
    raw["sharing_2014_vs_2018"] = chi2(d, y == 2014, y == 2018)
    raw["sharing_2016_vs_2018"] = chi2(d, y == 2016, y == 2018)
    raw["sharing_industry_vs_academia"] = chi2(d, d.indus, ~d.indus)  # gs.m:381
    raw["sharing_deep_vs_not"] = chi2(d, d.deep, ~d.deep)  # gs.m:240
    c14 = d[y == 2014]
    mw = stats.mannwhitneyu(
        c14[c14.hascode].citations,
        c14[~c14.hascode].citations,
        use_continuity=True,
        alternative="two-sided",
        method="asymptotic",
    )  # gs.m:325
    raw["citations_2014_code_vs_no_code"] = (float(mw.statistic), float(mw.pvalue), len(c14))
    out = {}
    for method, keep in (("published", lambda s: s), ("corrected", lambda s: s[s.numeric])):
        first = keep(d[d.hascode & d.completetest])  # gs.m:360
        a1 = anova(first, ["year", "reviewer"])
        a2 = anova(keep(d), ["year", "topic", "indus"])  # gs.m:367
        tests = dict(raw)
        tests["score_by_year"], tests["score_by_reviewer"] = a1["year"], a1["reviewer"]
        family = [tests[t][1] for t in sg.BH_FAMILY]  # gs.m:385
        adj = multipletests(family, method="fdr_bh")[1]
        tests["anova2_year"] = a2["year"]
        tests["anova2_topic"] = a2["topic"]
        tests["anova2_industry"] = a2["indus"]
        out[method] = {"tests": tests, "adjusted": dict(zip(sg.BH_FAMILY, adj, strict=True))}
    return out


@pytest.mark.parametrize("method", sg.METHODS)
def test_every_test_matches_the_script_on_the_json(
    results: dict[str, Any], oracle: dict[str, Any], method: str
) -> None:
    got, exp = results[method]["tests"], oracle[method]
    assert list(got) == list(sg.TEST_IDS)
    for tid in sg.TEST_IDS:
        stat, p, n = exp["tests"][tid]
        assert got[tid]["statistic"] == pytest.approx(stat, rel=REL), tid
        assert got[tid]["p"] == pytest.approx(p, rel=REL), tid
        assert got[tid]["n"] == n, tid
    for tid in sg.BH_FAMILY:
        assert got[tid]["p_adjusted"] == pytest.approx(exp["adjusted"][tid], rel=REL), tid
        assert got[tid]["in_bh_family"] is True
    for tid in sg.ANOVA2:
        assert got[tid]["in_bh_family"] is False
        assert "p_adjusted" not in got[tid]


def test_published_runs_over_126_codes_and_all_374_papers(results: dict[str, Any]) -> None:
    t = results["published"]["tests"]
    assert t["score_by_year"]["n"] == t["score_by_reviewer"]["n"] == 126
    assert t["score_by_year"]["detail"]["scored_zero_not_numeric"] == 4
    assert t["anova2_year"]["n"] == t["anova2_topic"]["n"] == t["anova2_industry"]["n"] == 374
    c = results["corrected"]["tests"]
    assert c["score_by_year"]["n"] == 122
    assert c["score_by_year"]["detail"]["dropped_not_numeric"] == 4
    assert c["anova2_year"]["n"] == 129


def test_the_score_rule_moves_three_bh_values(results: dict[str, Any]) -> None:
    pub, cor = results["published"]["tests"], results["corrected"]["tests"]
    moved = [
        t
        for t in sg.BH_FAMILY
        if not math.isclose(pub[t]["p_adjusted"], cor[t]["p_adjusted"], rel_tol=1e-12)
    ]
    assert moved == ["sharing_2014_vs_2016", "score_by_year", "score_by_reviewer"]


def test_keeps_every_survey_output_and_states_its_method(results: dict[str, Any]) -> None:
    for method, res in results.items():
        assert res["method"] == method and res["rules"] == list(SIGGRAPH2020.method(method).rules)
        assert res["dataset"] == "consolidated" and res["n_papers"] == 374
        assert set(res) >= {"sharing", "tests", "citations", "counts", "years"}
        assert res["sharing"]["overall"]["k"] == 151
        assert res["counts"]["total"]["test_completed"] == 126
        for t in res["tests"].values():
            assert isinstance(t["n"], int) and t["n"] > 0
            assert "SELECT" in t["provenance"]["sparql"] and t["provenance"]["method"]


def test_both_data_sets_are_keyed_and_the_site_data_has_the_second_anova(store: Any) -> None:
    res = SIGGRAPH2020.run(store, dataset="both").to_json()
    assert set(res) == {"consolidated", "per-paper"}
    assert res["per-paper"]["n_papers"] == 0  # the studies store holds no site data
    assert res["per-paper"]["tests"] == {}


def test_unknown_method_and_dataset_are_refused(store: Any) -> None:
    from reprokg.core.errors import UsageError

    with pytest.raises(UsageError, match="no method 'other'"):
        SIGGRAPH2020.run(store, "other")
    with pytest.raises(UsageError, match="dataset must be one of"):
        SIGGRAPH2020.run(store, dataset="nope")


def test_format_table_lists_every_test_with_n(store: Any, results: dict[str, Any]) -> None:
    table = SIGGRAPH2020.impl().format_table(SIGGRAPH2020.run(store))
    assert "Tests (method: published)" in table
    for tid in sg.TEST_IDS:
        line = next(ln for ln in table.splitlines() if ln.strip().startswith(tid))
        assert str(results["published"]["tests"][tid]["n"]) in line.split()
