"""The web views in headless Chromium (Debian's, driven by Playwright; never a download).

Every view renders at 1280 px and at phone width (390 px) without a JavaScript error, a
failed request, an HTTP error or a request leaving the machine, and without scrolling
sideways; the papers filters change the table, the chart and the URL, and the CSV link
gives the rows shown; the passport of the cross-source DOI shows every source; YASGUI
runs a named-query example against /sparql and shows rows; the validate page shows the
ORCID check-digit error of a broken header at its line; the skip link and focus ring work.
Screenshots of every view go to build/screenshots/ (test artifacts).
"""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest

from tests.service.web.conftest import LiveServer, PageLog

pytestmark = pytest.mark.slow  # a Chromium page per view (a minute to start)

RUN = "https://w3id.org/reprokg/id/run/200ce88d2451641c3351"
VIEWS = {
    "home": "/",
    "papers": "/papers",
    "paper": "/paper?doi=10.1145/3197517.3201353",
    "paper-audit": "/paper?iri=https://arxiv.org/abs/1609.02907",
    "paper-runs": "/paper?doi=10.1007/978-3-030-15712-8_26",
    "person": "/person?orcid=0000-0002-0661-7189",
    "runs": "/runs",
    "run": f"/run?iri={RUN}",
    "leaderboards": "/leaderboards",
    "leaderboard": "/leaderboard?collection=https://ir-datasets.com/nyt&measure=map",
    "comparisons": "/comparisons",
    "comparison": None,  # the demo's comparison, found in the store
    "studies": "/studies",
    "stability": "/stability",
    "intrinsic-dimension": "/intrinsic-dimension",
    "query-form": "/queries/find-baselines/table?collection=https://ir-datasets.com/nyt&measure=map",
    "validate": "/validate",
    "search": "/search?q=reproduc",
    "id-audit": None,  # an audit's linked-data page
    "docs": "/docs",
}


@pytest.fixture(scope="module")
def urls(demo_store: Any) -> dict[str, str]:
    rk = "PREFIX rk: <https://w3id.org/reprokg/ontology#> "
    (c,) = demo_store.query(rk + "SELECT ?c WHERE { ?c a rk:ReproductionComparison }").rows
    (a,) = demo_store.query(
        rk + "SELECT ?a WHERE { ?a rk:auditedPublication <https://arxiv.org/abs/1609.02907> }"
    ).rows
    out = dict(VIEWS)
    out["comparison"] = f"/comparison?iri={c[0]}"
    out["id-audit"] = "/id/" + str(a[0]).removeprefix("https://w3id.org/reprokg/id/")
    return out


@pytest.mark.parametrize("viewport", [(1280, 900), (390, 844)], ids=["1280px", "phone"])
@pytest.mark.parametrize("name", list(VIEWS))
def test_view_renders_clean(
    live: LiveServer, urls: dict, page_and_log: tuple[Any, PageLog], shot: Any, name: str, viewport
) -> None:
    page, log = page_and_log
    page.goto(live.url + urls[name], wait_until="load")
    page.wait_for_selector("h1, .swagger-ui .info .title")
    if name == "docs":
        page.wait_for_selector(".swagger-ui .opblock")
    else:
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, f"{name} scrolls sideways by {overflow}px at {viewport[0]}px"
    shot(page, f"{name}-{viewport[0]}")
    assert log.problems() == []


def _titles(page: Any) -> list[str]:
    return page.locator("#papers-table tbody tr td:first-child").all_inner_texts()


def test_papers_filters_change_table_chart_url_and_csv(
    live: LiveServer, page_and_log: tuple[Any, PageLog], shot: Any
) -> None:
    page, log = page_and_log
    page.goto(live.url + "/papers")
    chart_before = page.locator("#chart-year desc").text_content()
    count_before = page.locator("#count").inner_text()
    page.select_option("select[name=year]", "2018")
    page.select_option("select[name=code]", "yes")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_url("**/papers?*year=2018*")
    assert "code=yes" in page.url
    assert page.locator("#count").inner_text() != count_before
    assert page.locator("#chart-year desc").text_content() != chart_before
    shown = _titles(page)
    assert shown, "no rows for year=2018&code=yes in the demo"
    shot(page, "papers-filtered-1280")
    # the CSV link of the filtered view gives exactly the rows shown (one page here)
    href = page.locator("footer a", has_text="CSV").get_attribute("href")
    assert "year=2018" in href and "code=yes" in href
    body = page.request.get(live.url + href).text()
    assert [r["title"] for r in csv.DictReader(io.StringIO(body))] == shown
    # sorting by a column header keeps the filters in the URL
    page.get_by_role("link", name="Year", exact=True).click()
    page.wait_for_url("**sort=year**")
    assert "year=2018" in page.url and _titles(page)
    assert log.problems() == []


def test_passport_of_the_cross_source_doi_shows_all_sources(
    live: LiveServer, page_and_log: tuple[Any, PageLog]
) -> None:
    page, log = page_and_log
    page.goto(live.url + "/search?q=10.1145/3197517.3201353")  # the search box's DOI jump
    page.wait_for_url("**/paper?doi=*")
    sources = page.locator("#sources").inner_text()
    assert "Code Replicability in Computer Graphics data (2020)" in sources
    assert "replicability.graphics site data" in sources
    assert "stamp or badge" in sources
    assert page.locator("#reviews-table tbody tr:not(.comment)").count() == 2
    assert page.locator("figure.score-chart svg").count() == 2
    assert log.problems() == []


def test_yasgui_runs_a_named_query_example(
    live: LiveServer, page_and_log: tuple[Any, PageLog], shot: Any
) -> None:
    page, log = page_and_log
    page.goto(live.url + "/query")
    page.get_by_role("button", name="Baselines on a test collection").click()
    page.wait_for_selector(".yasr table tbody tr td", timeout=60_000)
    text = page.locator(".yasr").inner_text()
    assert "bm25+rm3" in text and "No data available" not in text
    assert page.locator(".yasr table tbody tr").count() == 3
    assert "example=find-baselines" in page.url
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the results make the page scroll sideways by {overflow}px"
    shot(page, "query-find-baselines-1280")
    assert log.problems() == []


def test_validate_shows_the_orcid_error_at_its_line(
    live: LiveServer, page_and_log: tuple[Any, PageLog], shot: Any
) -> None:
    page, log = page_and_log
    page.goto(live.url + "/validate")
    source = page.locator("#v-text").input_value()
    line = next(i for i, ln in enumerate(source.splitlines(), 1) if "0000-0002-0661-7188" in ln)
    with page.expect_navigation(timeout=180_000):
        page.get_by_role("button", name="Validate").click()
    report = page.locator("ol.results").inner_text()
    assert "check digit" in report.lower() or "mod 11-2" in report.lower(), report
    assert f"line {line}" in report
    assert page.locator(f"#line-{line}.flagged").count() == 1
    page.get_by_role("link", name=f"line {line}").first.click()
    assert page.url.endswith(f"#line-{line}")
    shot(page, "validate-report-1280")
    assert log.problems() == []


def test_keyboard_skip_link_and_focus_ring(
    live: LiveServer, page_and_log: tuple[Any, PageLog]
) -> None:
    page, log = page_and_log
    page.goto(live.url + "/papers")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to content"
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    # the filter form is reachable by keyboard from the main content
    for _ in range(3):
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('form.filters') !== null")
    assert log.problems() == []
