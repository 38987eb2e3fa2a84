"""What a newcomer met in their first hour with the web views (issue 27), each fixed.

Tried as a new user would (``reprokg serve --demo``, every view in Chromium): the
stability page printed every observation as a Python list in place of their count; the
named-query forms rendered ``requiredtype="text"`` so an empty form went to a 400; an
unknown path or a malformed parameter showed raw JSON in the browser; equal scores were
ranked 1 and 2; each run was listed twice on its actor's page. The expected values here
come from SPARQL written in the test or from the demo's source files, never from the
view's own queries.
"""

from __future__ import annotations

import csv
import io
import re
from html.parser import HTMLParser
from typing import Any
from urllib.parse import quote

import pytest
import yaml

from tests.conftest import REPO
from tests.service.web.conftest import LiveServer, PageLog
from tests.service.web.test_views import ECIR, LIN, NYT, RUN, ask, html, rows

pytestmark = pytest.mark.slow  # Chromium and the demo store

# --------------------------------------------------------------------------- stability


def test_stability_page_shows_the_observation_count_not_the_observations(
    client, demo_store
) -> None:
    counts = ask(
        demo_store,
        """SELECT ?study (COUNT(DISTINCT ?o) AS ?n) WHERE {
             ?study a rk:StabilityStudy . ?e rk:inStudy ?study .
             ?r rk:inExperiment ?e ; rk:hasObservation ?o } GROUP BY ?study""",
    )
    assert counts, "the demo holds stability studies"
    r = client.get("/stability", headers={"Accept": "text/html"})
    assert r.status_code == 200
    page = r.text
    for c in counts:
        assert f"{c['n']} observation(s)" in page, c
    # the page was 685 KB of observation rows printed as a Python list
    assert "[{" not in page and "{&#39;" not in page and "{'experiment'" not in page
    assert len(r.content) < 150_000, len(r.content)


def test_stability_observations_are_a_csv_away(client, demo_store) -> None:
    page = html(client, "/stability")
    links = [
        a.replace("&amp;", "&")
        for a in _attrs(page, "a", "href")
        if "part=observations" in a and "format=csv" in a
    ]
    assert links, "each study links its observations as CSV"
    total = 0
    for link in links:
        r = client.get(link)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
        got = list(csv.DictReader(io.StringIO(r.text)))
        assert got and {"experiment", "seed", "repeat", "metric", "value"} <= set(got[0])
        total += len(got)
    (n,) = ask(
        demo_store,
        """SELECT (COUNT(DISTINCT ?o) AS ?n) WHERE {
             ?study a rk:StabilityStudy . ?e rk:inStudy ?study .
             ?r rk:inExperiment ?e ; rk:hasObservation ?o . ?o rk:metricValue ?v }""",
    )
    assert total == n["n"]


def test_stability_observations_need_a_stored_study(client) -> None:
    r = client.get("/stability?part=observations&format=csv&study=https://example.org/x")
    assert r.status_code == 400 and "study" in r.json()["detail"]["message"]


# --------------------------------------------------------------------------- forms


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _tags(page: str) -> list[tuple[str, dict[str, str | None]]]:
    p = _Tags()
    p.feed(page)
    return p.tags


def _attrs(page: str, tag: str, attr: str) -> list[str]:
    return [a[attr] or "" for t, a in _tags(page) if t == tag and attr in a]


#: every attribute our templates may write (HTML's, plus SVG's in the charts)
KNOWN_ATTRIBUTES = {
    "accept",
    "action",
    "alt",
    "aria-current",
    "aria-describedby",
    "aria-hidden",
    "aria-label",
    "aria-labelledby",
    "aria-live",
    "aria-sort",
    "autocomplete",
    "charset",
    "checked",
    "class",
    "clip-path",
    "cols",
    "colspan",
    "content",
    "crossorigin",
    "cx",
    "cy",
    "d",
    "data-label",
    "data-query",
    "decoding",
    "defer",
    "disabled",
    "dominant-baseline",
    "enctype",
    "fill",
    "fill-opacity",
    "font-family",
    "font-size",
    "font-weight",
    "for",
    "height",
    "hidden",
    "href",
    "hreflang",
    "http-equiv",
    "id",
    "integrity",
    "label",
    "lang",
    "lengthadjust",
    "list",
    "loading",
    "marker-end",
    "max",
    "maxlength",
    "media",
    "method",
    "min",
    "multiple",
    "name",
    "novalidate",
    "opacity",
    "open",
    "pattern",
    "placeholder",
    "points",
    "preserveaspectratio",
    "r",
    "rel",
    "required",
    "role",
    "rows",
    "rowspan",
    "rx",
    "scope",
    "selected",
    "size",
    "sizes",
    "spellcheck",
    "src",
    "srcset",
    "step",
    "stroke",
    "stroke-dasharray",
    "stroke-linecap",
    "stroke-opacity",
    "stroke-width",
    "style",
    "tabindex",
    "target",
    "text-anchor",
    "textlength",
    "title",
    "transform",
    "type",
    "value",
    "vector-effect",
    "viewbox",
    "width",
    "wrap",
    "x",
    "x1",
    "x2",
    "xmlns",
    "y",
    "y1",
    "y2",
}


@pytest.mark.parametrize(
    "url",
    [
        "/",
        "/papers",
        "/query",
        "/runs",
        "/leaderboards",
        f"/leaderboard?collection={NYT}&measure=map",
        "/stability",
        "/intrinsic-dimension",
        "/validate",
        f"/person?orcid={LIN[-19:]}",
    ],
)
def test_templates_write_only_real_attributes(client, url: str) -> None:
    """Template whitespace once glued two attributes into one (``requiredtype="text"``)."""
    glued = {
        (tag, a)
        for tag, attrs in _tags(html(client, url))
        for a in attrs
        if a not in KNOWN_ATTRIBUTES and not a.startswith(("data-", "aria-"))
    }
    assert not glued, glued


def test_named_query_forms_mark_required_parameters(client) -> None:
    from reprokg.sparql.named import load_queries

    form, inputs = None, {}
    for tag, a in _tags(html(client, "/query")):  # the inputs of each form, by its query
        if tag == "form" and (a.get("action") or "").startswith("/queries/"):
            form = (a["action"] or "").split("/")[2]
            inputs[form] = {}
        elif tag == "input" and form and a.get("name"):
            inputs[form][a["name"]] = a
    queries = load_queries()
    assert set(inputs) == set(queries)
    for name, q in queries.items():
        for p in q.params:
            field = inputs[name][p.name]
            assert ("required" in field) == (not p.optional), (name, p.name)
            assert field.get("type") in ("text", "number"), (name, p.name)


def test_an_empty_required_field_is_stopped_by_the_browser(
    live: LiveServer, page_and_log: tuple[Any, PageLog]
) -> None:
    page, log = page_and_log
    page.goto(live.url + "/query")
    page.locator("#form-find-baselines > summary").click()
    form = page.locator("form[action='/queries/find-baselines/table']")
    field = form.locator("input[name=collection]")
    field.fill("")
    assert field.evaluate("e => e.validity.valueMissing") is True
    form.locator("button[type=submit], input[type=submit]").first.click()
    page.wait_for_timeout(300)
    assert "/queries/find-baselines/table" not in page.url  # no request, no 400
    assert log.problems() == []


# --------------------------------------------------------------------------- error pages


@pytest.mark.parametrize(
    ("url", "status", "says"),
    [
        ("/nosuchpage", 404, "/nosuchpage"),
        ("/papers?year=abc", 422, "year"),
        ("/leaderboard?collection=nyt", 422, "measure"),
    ],
)
def test_errors_are_pages_for_browsers_and_json_for_programs(
    client, url: str, status: int, says: str
) -> None:
    browser = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    r = client.get(url, headers=browser)
    assert r.status_code == status
    assert r.headers["content-type"].startswith("text/html")
    assert "<h1>" in r.text and says in r.text and '{"detail"' not in r.text
    r = client.get(url)  # an API client: FastAPI's JSON, as before
    assert r.status_code == status and r.headers["content-type"] == "application/json"
    assert "detail" in r.json()


def test_error_page_in_the_browser(live: LiveServer, page_and_log: tuple[Any, PageLog]) -> None:
    page, log = page_and_log
    response = page.goto(live.url + "/papers?year=abc")
    assert response.status == 422
    assert page.locator("h1").inner_text() == "422 Unprocessable Content" or (
        page.locator("h1").inner_text().startswith("422 ")
    )
    assert "year" in page.locator("main .notice:not(.demo-banner)").inner_text()
    assert page.locator("nav").count() >= 1  # the site's navigation, not a JSON dump
    log.bad_responses.clear()  # the 422 is what was asked for (Chromium logs it too)
    log.console_errors = [m for m in log.console_errors if "status of 422" not in m]
    assert log.problems() == []


# --------------------------------------------------------------------------- ranks, people


def test_equal_scores_share_a_rank(client, demo_store) -> None:
    """Competition ranking ("1, 1, 3"): a run's rank is 1 + the runs scoring better."""
    ranking = rows(client, f"/leaderboard?collection={NYT}&measure=map")
    scores = [r["score"] for r in ranking]
    assert len(scores) > len(set(scores)), "the demo has a tie on map (two runs at 0.5)"
    assert [r["rank"] for r in ranking] == [1 + sum(o > s for o in scores) for s in scores]
    # and the run page's rank on the same board agrees
    for r in ranking:
        mine = [s for s in rows(client, f"/run?iri={r['run']}") if s["measure"] == "map"]
        assert [s["rank"] for s in mine] == [r["rank"]]


def test_each_run_once_on_its_actors_page(client) -> None:
    works = rows(client, f"/person?orcid={LIN[-19:]}")
    things = [w["thing"] for w in works]
    assert len(things) == len(set(things)), things


# --------------------------------------------------------------------------- writing


def test_demo_pages_say_how_writes_are_enabled(client) -> None:
    page = html(client, "/")
    banner = page[page.index('id="demo-banner"') :].split("</p>", 1)[0]
    assert "HTTP writes are off" in banner and "REPROKG_WRITE_TOKEN" in banner


def test_openapi_declares_the_bearer_scheme_of_writes(client) -> None:
    spec = client.get("/openapi.json").json()
    schemes = spec["components"]["securitySchemes"]
    (name,) = [n for n, s in schemes.items() if s == {**s, "type": "http", "scheme": "bearer"}]
    writes = [("post", "/documents"), ("delete", "/documents/{doc_id}"), ("post", "/comparisons")]
    for method, path in writes:
        assert spec["paths"][path][method]["security"] == [{name: []}], (method, path)
    # writing only on request (save=true, a SPARQL update): the token is optional
    for method, path in [("post", "/measures/intrinsic-dimension"), ("post", "/sparql")]:
        assert {name: []} in spec["paths"][path][method]["security"], (method, path)
    # reads need none
    assert "security" not in spec["paths"]["/documents"]["get"]


def test_swagger_offers_authorize(live: LiveServer, page_and_log: tuple[Any, PageLog]) -> None:
    page, log = page_and_log
    page.goto(live.url + "/docs")
    page.wait_for_selector(".swagger-ui .opblock")
    button = page.locator(".swagger-ui button.authorize")
    assert button.count() == 1 and "Authorize" in button.inner_text()
    button.click()
    assert page.locator(".swagger-ui .auth-container").count() >= 1
    assert log.problems() == []


# --------------------------------------------------------------------------- labels

#: IRIs that name things (ours, papers, people, collections): a person reads their labels
NAMING_IRI = re.compile(
    r"https://w3id\.org/reprokg/id/\S+|https://doi\.org/10\.\S+|https://orcid\.org/\d\S+"
    r"|https://ir-datasets\.com/\S+"
)
#: where an IRI is shown on purpose: the identifier line, code, the SPARQL behind the page
IRI_PLACES = {"pre", "code", "script", "style", "textarea", "title"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "wbr"}


class _Text(HTMLParser):
    """The text a person reads, outside the places an IRI is shown on purpose."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, str]] = []
        self.bare: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in VOID:
            self.stack.append((tag, dict(attrs).get("class") or ""))

    def handle_endtag(self, tag: str) -> None:
        while self.stack and self.stack.pop()[0] != tag:
            pass

    def handle_data(self, data: str) -> None:
        if any(t in IRI_PLACES or {"iri", "sparql-behind"} & set(c.split()) for t, c in self.stack):
            return
        self.bare += NAMING_IRI.findall(data)


LABELLED_VIEWS = [
    "/",
    "/papers",
    f"/paper?iri={ECIR}",
    "/paper?doi=10.1145/3197517.3201353",
    f"/person?orcid={LIN[-19:]}",
    "/runs",
    f"/run?iri={RUN}",
    "/leaderboards",
    f"/leaderboard?collection={NYT}&measure=map",
    "/comparisons",
    "/stability",
    "/intrinsic-dimension",
    f"/queries/find-baselines/table?collection={NYT}&measure=map",
    "/queries/stamped-reviews/table",
    "/queries/datasets-by-intrinsic-dimension/table?min=3",
    "/search?q=reproduc",
    "/id/" + RUN.removeprefix("https://w3id.org/reprokg/id/"),
]


@pytest.mark.parametrize("url", LABELLED_VIEWS)
def test_people_read_labels_not_iris(client, url: str) -> None:
    """Runs, papers, people, collections, documents and header parts read as labels; the
    IRI stays the link (and its title), and the page's own IRI line keeps it."""
    p = _Text()
    p.feed(html(client, url))
    assert p.bare == [], sorted(set(p.bare))


def _links(page: str, prefix: str) -> list[tuple[str, str, str]]:
    """(href, title, text) of the links to ``prefix`` views, in page order."""

    class Links(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.out: list[list[str]] = []
            self.open = False

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            a = dict(attrs)
            if tag == "a" and (a.get("href") or "").startswith(prefix):
                self.out.append([a["href"] or "", a.get("title") or "", ""])
                self.open = True

        def handle_endtag(self, tag: str) -> None:
            if tag == "a":
                self.open = False

        def handle_data(self, data: str) -> None:
            if self.open:
                self.out[-1][2] += data

    p = Links()
    p.feed(page)
    return [(h, t, x.strip()) for h, t, x in p.out]


def test_runs_sharing_a_tag_are_told_apart(client, demo_store) -> None:
    same_tag = ask(
        demo_store,
        """SELECT ?run WHERE { ?run a rk:Run ; rk:runTag "bm25+rm3" }""",
    )
    assert len(same_tag) == 3, "the demo has three bm25+rm3 runs (two run files, one YAML)"
    got = {r["run"]: r for r in rows(client, "/runs")}
    differs = {got[str(r["run"])]["file"]: got[str(r["run"])]["differs"] for r in same_tag}
    # examples/runs/bare_marker_run.txt writes `schema version: 0.2` and a `resources`
    # section the other two lack; metadata.yaml is the same header without run lines
    assert "schema-version: 0.2" in differs["bare_marker_run.txt"]
    assert "resources.runtime: 3h" in differs["bare_marker_run.txt"]
    assert "schema-version: 0.1" in differs["annotated_run_example.txt"]
    assert "no run lines" in differs["metadata.yaml"]
    assert len(set(differs.values())) == 3
    # in the table and on the leaderboard each run reads differently, its IRI the title
    for url, n in [("/runs", 4), (f"/leaderboard?collection={NYT}&measure=map", 3)]:
        links = _links(html(client, url), "/run?iri=")
        assert len(links) == n and len({text for _, _, text in links}) == n, links
        assert all(title.startswith("https://w3id.org/reprokg/id/run/") for _, title, _ in links)


def test_leaderboard_heading_names_the_collection(client) -> None:
    page = html(client, f"/leaderboard?collection={NYT}&measure=map")
    h1 = re.search(r"<h1>(.*?)</h1>", page, re.S).group(1)
    # the run headers' test collection: name "The New York Times Annotated Corpus"
    assert h1 == "map on The New York Times Annotated Corpus"


def test_ir_paper_has_the_venue_and_year_of_its_run_header(client) -> None:
    """examples/runs/annotated_run_example.txt cites the paper by DOI under its research
    goal, with venue ECIR and year 2019; bare_marker_run.txt's header gives its title."""
    header = (REPO / "examples/runs/annotated_run_example.txt").read_text(encoding="utf-8")
    meta = yaml.safe_load(
        "\n".join(
            line[2:]
            for line in header.split("# ir_metadata.start\n", 1)[1]
            .split("# ir_metadata.end", 1)[0]
            .splitlines()
        )
    )
    venue = meta["research goal"]["venue"]
    assert meta["research goal"]["publication"]["doi"].endswith(ECIR.removeprefix("https://"))
    (row,) = [r for r in rows(client, "/papers") if r["paper"] == ECIR]
    assert (row["year"], row["venue"]) == (venue["year"], venue["name"])
    page = html(client, f"/paper?iri={ECIR}")
    h1 = re.search(r"<h1>(.*?)</h1>", page, re.S).group(1)
    bare = (REPO / "examples/runs/bare_marker_run.txt").read_text(encoding="utf-8")
    (title,) = re.findall(r"^    title: (.+)$", bare, re.M)
    assert h1 == title == "Simple Techniques for Cross-Collection Relevance Feedback"
    assert "No source in this graph gives its title." not in page
    assert f"<dd>{venue['year']}</dd>" in page and f"<dd>{venue['name']}</dd>" in page


def test_labels_in_the_browser(live: LiveServer, page_and_log: tuple[Any, PageLog]) -> None:
    page, log = page_and_log
    page.goto(live.url + "/runs")
    cells = page.locator("table tbody tr td:first-child").all_inner_texts()
    assert len(cells) == len(set(cells)) == 4, cells
    assert not any(c.startswith("http") for c in cells)
    page.goto(live.url + f"/leaderboard?collection={NYT}&measure=map")
    assert page.locator("h1").inner_text() == "map on The New York Times Annotated Corpus"
    assert log.problems() == []


def test_a_runs_page_names_its_file_and_the_runs_sharing_its_tag(client, demo_store) -> None:
    others = ask(
        demo_store,
        f"""SELECT ?run WHERE {{ ?run a rk:Run ; rk:runTag "bm25+rm3" FILTER(?run != <{RUN}>) }}""",
    )
    page = html(client, f"/run?iri={RUN}")
    h1 = re.search(r"<h1>(.*?)</h1>", page, re.S).group(1)
    assert h1 == "Run bm25+rm3 · annotated_run_example.txt"  # the file RUN was loaded from
    section = page[page.index('id="same-tag"') :]
    hrefs = {h for h, _, _ in _links(section, "/run?iri=")}
    assert {f"/run?iri={quote(str(o['run']), safe='')}" for o in others} <= hrefs
    assert "schema-version: 0.2" in section  # bare_marker_run.txt's header
    # the PRIMAD card reads the ontology's labels, not camelCase local names
    assert "number of cores" in page and "numberOfCores" not in page


def test_a_runs_leaderboard_links_lead_to_its_ranking(client) -> None:
    """The run page linked each leaderboard by the shared collection node, which the
    ranking read as an ir_datasets id: every link led to an empty ranking."""
    page = html(client, f"/run?iri={RUN}")
    links = [h.replace("&amp;", "&") for h, _, _ in _links(page, "/leaderboard?")]
    assert links
    for link in links:
        ranked = [r["run"] for r in rows(client, link)]
        assert RUN in ranked, (link, ranked)


def test_a_decision_reads_once(client) -> None:
    """The stability page wrote "not_rejected — not rejected": a notation that only
    spells its label again is not shown (an audit attribute keeps its code)."""
    from reprokg.ontology.labels import terms

    page = html(client, "/stability")
    assert "not_rejected — not rejected" not in page and "not rejected" in page
    with_code = [t for t in terms().values() if t.notation == "S1"]
    assert with_code and with_code[0].display.startswith("S1")


def test_a_comparison_links_its_runs(client, demo_store) -> None:
    (c,) = ask(demo_store, "SELECT ?c WHERE { ?c a rk:ReproductionComparison }")
    runs = ask(
        demo_store,
        f"SELECT ?r WHERE {{ <{c['c']}> rk:originalRun|rk:reproducingRun ?r }}",
    )
    page = html(client, f"/comparison?iri={quote(str(c['c']), safe='')}")
    titles = {t for _, t, _ in _links(page, "/run?iri=")}
    assert {str(r["r"]) for r in runs} <= titles


def test_feature_discard_steps_read_as_labels(client, demo_store) -> None:
    (s,) = ask(demo_store, "SELECT ?s WHERE { ?s a rk:FeatureDiscardStudy }")
    url = f"/queries/discarded-features/table?experiment={quote(str(s['s']), safe='')}"
    p = _Text()
    p.feed(html(client, url))
    assert p.bare == [], sorted(set(p.bare))
