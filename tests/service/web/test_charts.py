"""The charts' numbers: Clopper–Pearson intervals against statsmodels and closed forms,
and every SVG well-formed with its numbers in <desc>."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from reprokg.service.web import charts


@pytest.mark.parametrize("k,n", [(0, 1), (0, 10), (3, 10), (10, 10), (37, 127), (1, 14), (67, 128)])
def test_clopper_pearson_matches_statsmodels(k: int, n: int) -> None:
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(k, n, alpha=0.05, method="beta")
    got = charts.clopper_pearson(k, n)
    assert got == pytest.approx((lo, hi), abs=1e-12)


def test_clopper_pearson_closed_forms() -> None:
    # k = 0: upper bound 1 - (alpha/2)^(1/n); k = n: lower bound (alpha/2)^(1/n)
    for n in (1, 5, 40):
        assert charts.clopper_pearson(0, n) == pytest.approx((0.0, 1 - 0.025 ** (1 / n)))
        assert charts.clopper_pearson(n, n) == pytest.approx((0.025 ** (1 / n), 1.0))
    assert charts.clopper_pearson(0, 0) == (0.0, 1.0)


def _svg(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag.endswith("svg") and root.get("role") == "img"
    return root


def test_charts_are_well_formed_and_state_their_numbers() -> None:
    points = [charts.Proportion("2014", 37, 127), charts.Proportion("x<&>", 0, 0)]
    root = _svg(charts.proportion_chart(points, "Code & data"))
    desc = next(e for e in root if e.tag.endswith("desc")).text
    assert "2014: 37 of 127, 29%" in desc and "no papers with a known answer" in desc
    _svg(charts.bar_chart([("a", 1.0), ("b", -0.5), ("c", None)], "deltas"))
    _svg(charts.interval_rows([("exp", 0.5, 0.4, 0.6, 3)], "means"))
    _svg(charts.proportion_chart([], "nothing"))
