"""The statistics' figures in headless Chromium (Debian's, through Playwright), on the demo
store: the paper page's QRA figure, the stability page's critical-difference diagram and
the comparison page's forest plots show the numbers the graph holds (each read here from
the store with SPARQL, not from the page's code), render without a script, an inline
style the locked-down pages refuse, a failed request or a request leaving the machine,
and keep to the page's width."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.service.web.conftest import LiveServer, PageLog

pytestmark = pytest.mark.slow  # a Chromium page per figure

RK = (
    "PREFIX rk: <https://w3id.org/reprokg/ontology#> "
    "PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> "
    "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> "
)
NTS = "https://doi.org/10.18653/v1/p17-2014"


def _clean(page: Any, log: PageLog) -> None:
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"scrolls sideways by {overflow}px"
    assert log.problems() == []


def test_paper_page_draws_the_stored_qra(
    live: LiveServer, demo_store: Any, page_and_log: tuple[Any, PageLog], shot: Any
) -> None:
    stored = demo_store.query(
        RK + "SELECT ?label ?cv ?low ?high (COUNT(?m) AS ?n) WHERE { ?q rk:aboutPublication "
        f"<{NTS}> ; rdfs:label ?label ; rk:cvStar ?cv ; rk:confidenceLower ?low ; "
        "rk:confidenceUpper ?high ; rk:hasMeasurement ?m } GROUP BY ?label ?cv ?low ?high"
    ).rows
    assert len(stored) == 4  # QRA's Table 4: BLEU and SARI of NTS_def and NTS-w2v_def
    page, log = page_and_log
    page.goto(live.url + "/paper?doi=10.18653/v1/P17-2014", wait_until="load")
    figures = page.locator("figure.qra-figure svg")
    assert figures.count() == 2  # one per measure: BLEU, SARI (each on its own scale)
    text = " ".join(figures.all_text_contents())
    for label, cv, low, high, _n in stored:
        shown = f"CV* {float(cv):.3f} [{float(low):.3f}, {float(high):.3f}]"
        assert shown in text, (str(label), shown)
        assert str(label).split(" · ")[1] in text
    # one filled dot per quantity (the original), a hollow one per reproduction
    originals = page.locator("figure.qra-figure circle[r='5.5']").count()
    assert originals == 4
    hollow = page.locator("figure.qra-figure circle[fill='white']").count()
    assert hollow == sum(int(r[4]) for r in stored) - 4
    assert round(float(next(r[1] for r in stored if str(r[0]) == "BLEU · NTS_def")), 3) == 1.562
    shot(page, "paper-qra-1280")
    _clean(page, log)


def test_stability_page_draws_the_stored_critical_difference(
    live: LiveServer, demo_store: Any, page_and_log: tuple[Any, PageLog], shot: Any
) -> None:
    ((value,),) = demo_store.query(
        RK + "SELECT ?json WHERE { ?a a rk:CriticalDifferenceAnalysis ; rdf:value ?json }"
    ).rows
    ranks = json.loads(str(value))["average_ranks"]
    page, log = page_and_log
    page.goto(live.url + "/stability", wait_until="load")
    diagram = page.locator("figure.cd-diagram svg")
    assert diagram.count() == 1
    labels = diagram.locator("text").all_text_contents()
    for name, rank in ranks.items():
        assert f"{name} ({rank:.2f})" in labels
    caption = page.locator("figure.cd-diagram figcaption").inner_text()
    assert f"{json.loads(str(value))['critical_difference']:.4g}"[:4] in caption
    shot(page, "stability-cd-1280")
    _clean(page, log)


def test_comparison_page_draws_the_stored_effect_sizes(
    live: LiveServer, demo_store: Any, page_and_log: tuple[Any, PageLog], shot: Any
) -> None:
    rows = demo_store.query(
        RK + "SELECT ?c ?name ?x WHERE { ?c rk:measureValue ?v . ?v rk:measureName ?name ; "
        'rk:irMeasuresName "AP" ; <http://www.w3.org/ns/mls#hasValue> ?x . '
        'FILTER(?name IN ("dz", "dz_low", "dz_high")) }'
    ).rows
    comparison = str(rows[0][0])
    dz = {str(name): float(x) for _, name, x in rows}
    page, log = page_and_log
    page.goto(live.url + f"/comparison?iri={comparison}", wait_until="load")
    forest = page.locator("figure#forest-dz svg")
    assert forest.count() == 1 and page.locator("figure#forest-mean_diff svg").count() == 1
    shown = f"{dz['dz']:.3g} [{dz['dz_low']:.3g}, {dz['dz_high']:.3g}]"
    assert shown in forest.locator("text").all_text_contents()
    # the row's label (its text, then its tooltip): the effectiveness measure
    assert any(t.startswith("AP") for t in forest.locator("text").all_text_contents())
    shot(page, "comparison-forest-1280")
    _clean(page, log)
