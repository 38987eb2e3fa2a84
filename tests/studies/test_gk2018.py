"""Gundersen & Kjensmo 2018 from the graph against pandas on the CSV and the notebook's output.

The oracle is the authors' notebook re-run here with pandas on ``evaluations.csv``
(``research_type == 'E'``, ``mean(axis=1)`` and ``all(axis=1)`` over the factor columns,
``var()`` with ddof 1); the study reads the same data from the graph.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from reprokg.studies import gk2018 as gk
from reprokg.studies.registry import GK2018
from tests.studies.stores import GK_CSV, studies_store

pytestmark = pytest.mark.slow  # the study's store its fixture loads


@pytest.fixture(scope="module")
def result(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    store = studies_store(shared_data, tmp_path_factory.mktemp("studies-store"))
    return GK2018.run(store).to_json()


@pytest.fixture(scope="module")
def csv_papers(shared_data: Path) -> pd.DataFrame:
    """The CSV as the notebook reads it, experimental papers only, degrees per paper."""
    d = pd.read_csv(shared_data / GK_CSV, index_col=0)
    e = d[d.research_type == "E"].copy()
    for name, cols in gk.DEGREES.items():
        e[name] = e[cols].mean(axis=1)  # pandas skips NaN
    for name, cols in {**gk.SATISFIED, **gk.FACTORS}.items():
        e[name] = e[cols].all(axis=1)  # pandas skips NaN here too
    e["period"] = e.conference.map(
        {"AAAI 14": "2013/14", "IJCAI 13": "2013/14", "AAAI 16": "2016", "IJCAI 16": "2016"}
    )
    e["venue"] = e.conference.str.split().str[0]
    e["year"] = 2000 + e.conference.str.split().str[1].astype(int)
    return e


def check(summary: dict[str, Any], papers: pd.DataFrame) -> None:
    assert summary["n"] == len(papers)
    for name in gk.DEGREES:
        got = summary["degrees"][name]
        assert got["mean"] == pytest.approx(papers[name].mean(), rel=1e-12)
        assert got["variance"] == pytest.approx(papers[name].var(), rel=1e-12)
        assert got["n"] == papers[name].notna().sum()
    for name in gk.SATISFIED:
        assert summary["satisfied"][name] == int(papers[name].sum())
    for name in gk.FACTORS:
        assert summary["satisfied_factors"][name] == int(papers[name].sum())


def test_overall_matches_pandas(result: dict[str, Any], csv_papers: pd.DataFrame) -> None:
    check(result, csv_papers)
    assert result["n_papers"] == 400


def test_by_conference_period_venue_and_year_match_pandas(
    result: dict[str, Any], csv_papers: pd.DataFrame
) -> None:
    for key, col in (
        ("by_conference", "conference"),
        ("by_period", "period"),
        ("by_venue", "venue"),
        ("by_year", "year"),
    ):
        groups = dict(list(csv_papers.groupby(col)))
        assert set(result[key]) == {str(k) for k in groups}, key
        for k, papers in groups.items():
            check(result[key][str(k)], papers)


# The notebook's printed output (evaluation_analysis.ipynb, cells 10-14, 4 decimals).
PUBLISHED = {
    "R3D": (0.2615, 0.0342),
    "R2D": (0.2525, 0.0251),
    "R1D": (0.2383, 0.0140),
    "DataD": (0.2287, 0.0763),
    "ExpD": (0.2235, 0.0219),
}
PUBLISHED_PERIOD = {
    "2013/14": {"R3D": (0.2603, 0.0338), "R1D": (0.2078, 0.0099), "DataD": (0.1704, 0.0582)},
    "2016": {"R3D": (0.2627, 0.0349), "R1D": (0.2665, 0.0163), "ExpD": (0.2604, 0.0220)},
}
PUBLISHED_CONF_R1D = {
    "AAAI 14": 0.213408,
    "AAAI 16": 0.231972,
    "IJCAI 13": 0.200977,
    "IJCAI 16": 0.301436,
}


def test_the_notebooks_printed_figures(result: dict[str, Any]) -> None:
    assert result["n"] == 325 and result["method"] == "published"
    for name, (mean, var) in PUBLISHED.items():
        assert round(result["degrees"][name]["mean"], 4) == mean
        assert round(result["degrees"][name]["variance"], 4) == var
    for period, vals in PUBLISHED_PERIOD.items():
        for name, (mean, var) in vals.items():
            d = result["by_period"][period]["degrees"][name]
            assert (round(d["mean"], 4), round(d["variance"], 4)) == (mean, var)
    for conf, r1d in PUBLISHED_CONF_R1D.items():
        assert round(result["by_conference"][conf]["degrees"]["R1D"]["mean"], 6) == r1d
    assert result["satisfied"] == {"R1": 0, "R2": 0, "R3": 0}
    assert result["satisfied_factors"] == {"Method": 0, "Data": 9, "Exp": 0}


def test_missing_answers_are_skipped_not_zero() -> None:
    row: dict[str, Any] = {"research_type": "E", "conference": "X 16", "year": 2016}
    row.update({v: True for v in gk.VARIABLES})
    row["train"] = None
    row["validation"] = None
    res = gk.analyze(pd.DataFrame([row]))
    assert res.degrees["DataD"]["mean"] == 1.0  # 2 of 2 answered
    assert res.satisfied["R2"] == 1
    assert res.degrees["DataD"]["variance"] is None  # one paper: no ddof=1 variance


def test_only_experimental_papers_count() -> None:
    rows = [
        {
            "research_type": t,
            "conference": "A 14",
            "year": 2014,
            **{v: v == "train" for v in gk.VARIABLES},
        }
        for t in ("E", "T", "E")
    ]
    res = gk.analyze(pd.DataFrame(rows))
    assert res.n == 2 and res.n_papers == 3
    assert res.degrees["DataD"]["mean"] == pytest.approx(0.25)
