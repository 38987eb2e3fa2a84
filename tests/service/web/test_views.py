"""Each view's rows against SPARQL written here, independently of the view's queries.

The views answer ``?format=json`` with ``{columns, rows}`` (what the table shows) and
``?format=csv`` with the same rows; the checks below ask the store the same question in
their own words and compare. Demo data: ``serve --demo``'s (tests/service/web/conftest.py).
"""

from __future__ import annotations

import csv
import io
import math
import re

import ir_measures
import pytest

from reprokg.core.resources import data_dir
from reprokg.store.base import SelectResult

PREFIXES = """PREFIX rk: <https://w3id.org/reprokg/ontology#>
PREFIX schema: <http://schema.org/>
PREFIX mls: <http://www.w3.org/ns/mls#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
"""
TETWILD = "https://doi.org/10.1145/3197517.3201353"  # both survey data sets and a stamp
ECIR = "https://doi.org/10.1007/978-3-030-15712-8_26"  # the example runs' paper
LIN = "https://orcid.org/0000-0002-0661-7189"
RUN = "https://w3id.org/reprokg/id/run/200ce88d2451641c3351"  # annotated_run_example.txt
NYT = "https://ir-datasets.com/nyt"


def ask(store, sparql: str) -> list[dict]:
    res = store.query(PREFIXES + sparql)
    assert isinstance(res, SelectResult)
    return [
        {k: v.toPython() if hasattr(v, "toPython") else v for k, v in r.items()}
        for r in res.dicts()
    ]


def rows(client, url: str) -> list[dict]:
    r = client.get(url, params={"format": "json"} if "?" not in url else None)
    if "?" in url:
        r = client.get(url + "&format=json")
    assert r.status_code == 200, r.text
    return r.json()["rows"]


def html(client, url: str) -> str:
    r = client.get(url, headers={"Accept": "text/html"})
    assert r.status_code == 200, r.text[:500]
    assert r.headers["content-type"].startswith("text/html")
    return r.text


def chart_points(page: str, chart_id: str) -> dict[str, tuple[int, int]]:
    """label -> (k, n) read from the <desc> of the chart in figure ``chart_id``."""
    fig = page[page.index(f'id="{chart_id}"') :]
    desc = re.search(r"<desc[^>]*>(.*?)</desc>", fig, re.S).group(1)
    return {
        m.group(1): (int(m.group(2)), int(m.group(3)))
        for m in re.finditer(r"(?:^|; )([^:;]+): (\d+) of (\d+)", desc)
    }


# --------------------------------------------------------------------------- home, search


def test_home_counts(client, demo_store) -> None:
    got = {r["what"]: r["n"] for r in rows(client, "/")}
    papers = ask(
        demo_store, "SELECT (COUNT(DISTINCT ?p) AS ?n) WHERE { ?p a schema:ScholarlyArticle }"
    )
    runs = ask(demo_store, "SELECT (COUNT(DISTINCT ?r) AS ?n) WHERE { ?r a rk:Run }")
    kinds = ask(
        demo_store,
        "SELECT ?k (COUNT(DISTINCT ?g) AS ?n)"
        " WHERE { ?g a rk:Document ; rk:documentKind ?k } GROUP BY ?k",
    )
    assert got["papers"] == papers[0]["n"] and got["runs"] == runs[0]["n"]
    for k in kinds:
        assert got[f"documents of kind {k['k']}"] == k["n"]
    assert got["leaderboards"] >= 2 and got["comparisons"] == 1
    page = html(client, "/")
    assert 'href="/docs"' in page and 'href="/sparql"' in page


@pytest.mark.slow
def test_search_goes_to_the_passport_and_finds_titles(client) -> None:
    r = client.get("/search", params={"q": "doi:10.1145/3197517.3201353"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/paper?doi=10.1145%2F3197517.3201353"
    found = rows(client, "/search?q=tetrahedral")
    assert ("paper", TETWILD) in {(r["kind"], r["thing"]) for r in found}
    assert all("tetrahedral" in r["label"].lower() for r in found)


# --------------------------------------------------------------------------- papers

CODE_YES = """
  { ?x rk:reviewedPaper ?p ; rk:codeShared true }
  UNION { ?x rk:reviewedPaper ?p ; rk:documentsMethodSourceCode true }
  UNION { ?x rk:reviewedPaper ?p ; rk:documentsExperimentCode true }
  UNION { ?x rk:researchGoal/rk:publication ?p ; rk:implementation/rk:source/rk:repositoryUrl ?u }
"""
CODE_KNOWN = """
  { ?x rk:reviewedPaper ?p ; rk:codeShared ?b }
  UNION { ?x rk:reviewedPaper ?p ; rk:documentsMethodSourceCode ?b }
  UNION { ?x rk:reviewedPaper ?p ; rk:documentsExperimentCode ?b }
  UNION { ?x rk:researchGoal/rk:publication ?p ; rk:implementation/rk:source/rk:repositoryUrl ?u }
"""
YEAR_2018 = """
  { ?p rk:publicationYear 2018 }
  UNION { ?p schema:datePublished ?d FILTER(STRSTARTS(STR(?d), "2018")) }
"""


@pytest.mark.slow
def test_papers_filtered_rows_are_the_papers_sparql_finds(client, demo_store) -> None:
    got = rows(client, "/papers?year=2018&code=yes")
    want = ask(
        demo_store,
        f"SELECT DISTINCT ?p WHERE {{ ?p a schema:ScholarlyArticle {YEAR_2018} {CODE_YES} }}",
    )
    assert sorted(r["paper"] for r in got) == sorted(str(w["p"]) for w in want)
    assert got and all(r["code"] == "yes" and r["year"] == 2018 for r in got)
    # sorted by title, as the page
    assert [r["title"].lower() for r in got] == sorted(r["title"].lower() for r in got)
    everything = rows(client, "/papers")
    total = ask(  # the articles, and the replication packages a re-execution assesses
        demo_store,
        "SELECT (COUNT(DISTINCT ?p) AS ?n) WHERE { { ?p a schema:ScholarlyArticle } UNION "
        "{ ?p a <https://w3id.org/reprokg/ontology#ReplicationPackage> } }",
    )
    assert len(everything) == total[0]["n"]


def test_papers_csv_is_the_json_rows(client) -> None:
    body = client.get("/papers?year=2018&code=yes&format=csv").text
    csv_rows = list(csv.DictReader(io.StringIO(body)))
    json_rows = rows(client, "/papers?year=2018&code=yes")
    assert [r["paper"] for r in csv_rows] == [r["paper"] for r in json_rows]
    assert [r["title"] for r in csv_rows] == [r["title"] for r in json_rows]


def test_papers_chart_follows_the_filters(client, demo_store) -> None:
    year = chart_points(html(client, "/papers"), "chart-year")
    k = ask(
        demo_store,
        f"SELECT (COUNT(DISTINCT ?p) AS ?n)"
        f" WHERE {{ ?p a schema:ScholarlyArticle {YEAR_2018} {CODE_YES} }}",
    )
    n = ask(
        demo_store,
        f"SELECT (COUNT(DISTINCT ?p) AS ?n)"
        f" WHERE {{ ?p a schema:ScholarlyArticle {YEAR_2018} {CODE_KNOWN} }}",
    )
    assert year["2018"] == (k[0]["n"], n[0]["n"])
    venue = chart_points(html(client, "/papers?venue=SIGGRAPH+2018"), "chart-year")
    assert set(venue) == {"2018"} and venue["2018"][1] <= n[0]["n"]


def test_papers_pages_and_sorts(client) -> None:
    page1 = html(client, "/papers?sort=year&desc=true&size=25")
    assert "Page 1 of" in page1 and 'rel="next"' in page1
    all_rows = rows(client, "/papers?sort=year&desc=true")
    years = [r["year"] for r in all_rows if r["year"] is not None]
    assert years == sorted(years, reverse=True)
    assert client.get("/papers?size=7").status_code == 400
    assert client.get("/papers?code=maybe").status_code == 422


# --------------------------------------------------------------------------- passport


def test_passport_of_a_cross_source_doi_shows_every_source(client, demo_store) -> None:
    data = client.get("/paper", params={"doi": "10.1145/3197517.3201353", "format": "json"}).json()
    surveys = ask(
        demo_store,
        f"SELECT DISTINCT ?s WHERE {{ ?r rk:reviewedPaper <{TETWILD}> ; rk:inSurvey ?s }}",
    )
    assert len(surveys) == 2  # the curated example: both data sets
    assert {r["survey"] for r in data["reviews"]} == {str(s["s"]) for s in surveys}
    assert any(
        f["property"].endswith("#replicabilityStamp") and f["value"] is True for f in data["facts"]
    )
    page = html(client, "/paper?doi=10.1145/3197517.3201353")
    assert "Graphics Replicability Stamp" in page
    assert page.count('class="chart score-chart"') == 2  # the five scores of each review
    for name in (
        "Code Replicability in Computer Graphics data (2020)",
        "replicability.graphics site data",
    ):
        assert name in page


def test_passport_runs_and_reproductions(client, demo_store) -> None:
    data = client.get("/paper", params={"doi": ECIR, "format": "json"}).json()
    runs = ask(
        demo_store, f"SELECT DISTINCT ?r WHERE {{ ?r rk:researchGoal/rk:publication <{ECIR}> }}"
    )
    assert {r["run"] for r in data["runs"] if r["relation"] == "cites it as research goal"} == {
        str(r["r"]) for r in runs
    }
    assert any(r.get("signature") == "PrimAd" for r in data["runs"])


def test_passport_of_an_audited_paper_names_attributes_and_evidence(client, demo_store) -> None:
    paper = "https://arxiv.org/abs/1609.02907"
    want = ask(
        demo_store,
        f"SELECT ?e"
        f" WHERE {{ ?a rk:auditedPublication <{paper}> ; rk:hasFinding ?f ."
        " ?f rk:evidenceText ?e }",
    )
    page = html(client, "/paper?iri=" + paper)
    assert want and all(
        str(w["e"]).replace('"', "&#34;") in page or str(w["e"])[:40] in page for w in want
    )
    assert re.search(r"S\d+: ", page)  # attribute labels from the ontology, not IRIs


def test_unknown_paper_is_404_as_a_page_for_browsers(client) -> None:
    r = client.get("/paper?doi=10.9999/nothing.here", headers={"Accept": "text/html"})
    assert r.status_code == 404 and "text/html" in r.headers["content-type"]
    r = client.get("/paper?doi=10.9999/nothing.here")
    assert r.status_code == 404 and r.json()["detail"]["error"] == "NotFound"


# --------------------------------------------------------------------------- person, run


def test_person_works(client, demo_store) -> None:
    got = rows(client, f"/person?orcid={LIN[-19:]}")
    want = ask(
        demo_store,
        f"""SELECT DISTINCT ?t WHERE {{
          {{ ?t schema:author <{LIN}> }} UNION {{ ?t rk:actor/rk:person <{LIN}> }}
          UNION {{ ?t prov:wasAssociatedWith <{LIN}> ; a rk:Run }} }}""",
    )
    assert {r["thing"] for r in got} == {str(w["t"]) for w in want} and got


def test_run_scores_and_leaderboard_rank(client, demo_store) -> None:
    got = rows(client, f"/run?iri={RUN}")
    want = ask(
        demo_store,
        f"SELECT ?m ?v"
        f" WHERE {{ <{RUN}> rk:reportedScore ?s . ?s rk:measureName ?m ; mls:hasValue ?v }}",
    )
    assert sorted((r["measure"], r["value"]) for r in got) == sorted((w["m"], w["v"]) for w in want)
    assert all(r["rank"] == 1 for r in got)  # its 0.5 is the best on both boards
    page = html(client, f"/run?iri={RUN}")
    for letter in "PRIMAD":
        assert f"{letter} — " in page
    assert "anserini" in page and "Jimmy Lin" in page


def test_runs_list(client, demo_store) -> None:
    want = ask(demo_store, "SELECT (COUNT(DISTINCT ?r) AS ?n) WHERE { ?r a rk:Run }")
    assert len(rows(client, "/runs")) == min(want[0]["n"], 100)


# --------------------------------------------------------------------------- leaderboards


def test_leaderboards_and_ranking(client, demo_store) -> None:
    boards = rows(client, "/leaderboards")
    want = ask(
        demo_store,
        """SELECT ?m (COUNT(DISTINCT ?run) AS ?n) (MAX(?v) AS ?best) WHERE {
          ?run rk:reportedScore ?s . ?s rk:onLeaderboard ?b ; mls:hasValue ?v .
          ?b rk:leaderboardMeasure ?m } GROUP BY ?m""",
    )
    assert sorted((b["measure"], b["runs"], b["best"]) for b in boards) == sorted(
        (w["m"], w["n"], w["best"]) for w in want
    )
    ranking = rows(client, f"/leaderboard?collection={NYT}&measure=map")
    scores = ask(
        demo_store,
        """SELECT ?run ?v WHERE { ?run rk:reportedScore ?s . ?s rk:measureName "map" ;
           mls:hasValue ?v ; rk:onLeaderboard ?b }""",
    )
    assert [r["score"] for r in ranking] == sorted((s["v"] for s in scores), reverse=True)
    # ties share a rank: 1 + the number of better scores ("1, 1, 3")
    ranked = [r["score"] for r in ranking]
    assert [r["rank"] for r in ranking] == [1 + sum(o > s for o in ranked) for s in ranked]
    assert len(ranking) == 3
    filtered = rows(client, f"/leaderboard?collection={NYT}&measure=map&toolkit=nothing")
    assert filtered == []


# --------------------------------------------------------------------------- comparisons


def _comparison(demo_store) -> str:
    (c,) = ask(demo_store, "SELECT ?c WHERE { ?c a rk:ReproductionComparison }")
    return str(c["c"])


def test_comparison_measures(client, demo_store) -> None:
    iri = _comparison(demo_store)
    listed = rows(client, "/comparisons")
    assert [r["comparison"] for r in listed] == [iri] and listed[0]["signature"] == "PrimAd"
    got = rows(client, f"/comparison?iri={iri}")
    want = ask(
        demo_store,
        f"SELECT ?m ?v"
        f" WHERE {{ <{iri}> rk:measureValue ?x . ?x rk:measureName ?m"
        " OPTIONAL { ?x mls:hasValue ?v } }",
    )
    assert len(got) == len(want)
    assert sorted(r["value"] for r in got if r["value"] is not None) == pytest.approx(
        sorted(w["v"] for w in want if w.get("v") is not None)
    )


def test_comparison_per_topic_deltas_from_the_run_files(client, demo_store) -> None:
    """Per-topic AP of the two runs, computed here with ir_measures from the files."""
    iri = _comparison(demo_store)
    got = rows(client, f"/comparison?iri={iri}&measure=AP&part=topics")
    runs = data_dir("examples") / "runs"

    def per_topic(name: str) -> dict[str, float]:
        lines = [
            ln for ln in (runs / name).read_text().splitlines() if ln and not ln.startswith("#")
        ]
        run = [
            ir_measures.ScoredDoc(f[0], f[2], float(f[4]))
            for f in (ln.split() for ln in lines)
            if len(f) == 6
        ]
        qrels = [
            ir_measures.Qrel(f[0], f[2], int(f[3]))
            for f in (ln.split() for ln in (runs / "qrels.toy").read_text().splitlines())
        ]
        return {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.AP], qrels, run)}

    orig, rep = per_topic("annotated_run_example.txt"), per_topic("reproduced_run.txt")
    assert {r["topic"]: r["delta"] for r in got} == pytest.approx(
        {t: rep[t] - orig[t] for t in orig}
    )
    assert {r["side"] for r in got} == {"baseline"}
    page = html(client, f"/comparison?iri={iri}")
    assert page.count('class="chart topic-chart"') == 1


# --------------------------------------------------------------------------- analyses


def test_stability_studies_and_hypotheses(client, demo_store) -> None:
    got = rows(client, "/stability")
    studies = ask(demo_store, "SELECT ?s WHERE { ?s a rk:StabilityStudy }")
    tests = ask(demo_store, "SELECT ?t ?p WHERE { ?s rk:hasHypothesisTest ?t . ?t rk:pValue ?p }")
    assert {r["study"] for r in got} == {str(s["s"]) for s in studies} and len(studies) == 2
    assert sorted(r["p"] for r in got if r.get("p") is not None) == pytest.approx(
        sorted(t["p"] for t in tests)
    )
    page = html(client, "/stability")
    assert "Illustrative values" in page and "H3" in page and "rejected" in page.lower()


def test_intrinsic_dimension_rows_are_the_stored_estimate(client, demo_store) -> None:
    """The demo stores the UCI Wine estimate (ID 11.2785420816569 by the authors' idim and
    obsdim, tests/intrinsic_dimension/test_oracles.py): one row per feature, 13 features."""
    want = ask(
        demo_store,
        "SELECT ?e ?id ?name ?nid WHERE { ?e a rk:IntrinsicDimensionEstimate ; "
        "rk:intrinsicDimensionValue ?id ; rk:hasFeatureDimension ?f . "
        "?f rk:featureName ?name ; rk:normalizedIntrinsicDimension ?nid }",
    )
    got = rows(client, "/intrinsic-dimension")
    assert len(got) == len(want) == 13
    assert {(r["estimate"], r["feature"]) for r in got} == {(str(w["e"]), w["name"]) for w in want}
    assert {round(float(r["id"]), 10) for r in got} == {11.2785420817}
    nids = [float(r["nid"]) for r in got]
    assert nids == sorted(nids, reverse=True)  # highest first, as the seed discards them
    assert "No intrinsic-dimension results in this graph yet" not in html(
        client, "/intrinsic-dimension"
    )


def test_studies_recompute_the_survey(client, demo_store) -> None:
    surveys = rows(client, "/studies")
    want = ask(
        demo_store,
        "SELECT ?s (COUNT(DISTINCT ?r) AS ?n) WHERE { ?r rk:inSurvey ?s } GROUP BY ?s",
    )
    assert {
        (r["survey"], r["reviews"])
        for r in surveys
        if r["survey"] != "https://w3id.org/reprokg/ontology#Audit"
    } == {(str(w["s"]), w["n"]) for w in want}
    page = html(client, "/studies")
    api = client.get("/measures/survey").json()["sharing"]["by_year"]
    points = chart_points(page, "chart-survey-year")
    assert points == {y: (v["k"], v["n"]) for y, v in api.items()}


# --------------------------------------------------------------------------- query, validate


def test_query_form_table_equals_the_named_query_api(client) -> None:
    params = f"collection={NYT}&measure=map"
    table = rows(client, f"/queries/find-baselines/table?{params}")
    api = client.get(f"/queries/find-baselines?{params}").json()["results"]["bindings"]
    assert [r["run"] for r in table] == [b["run"]["value"] for b in api] and table
    page = html(client, "/query")
    assert "yasgui.min.js" in page and 'id="form-find-baselines"' in page
    prefixes = client.get("/query/prefixes.json").json()
    assert prefixes["rk"] == "https://w3id.org/reprokg/ontology#"


@pytest.mark.slow
def test_validate_shows_the_orcid_check_digit_error_with_its_line(client) -> None:
    form = html(client, "/validate")
    text = re.search(r"<textarea[^>]*>(.*?)</textarea>", form, re.S).group(1)
    import html as h

    source = h.unescape(text)
    line = next(i for i, ln in enumerate(source.splitlines(), 1) if "0000-0002-0661-7188" in ln)
    r = client.post("/validate/report?format=json", data={"text": source, "name": "run.txt"})
    results = r.json()["results"]
    orcid = [x for x in results if x["severity"] == "Violation" and "orcid" in (x["path"] or "")]
    assert orcid and orcid[0]["line"] == line
    page = client.post("/validate/report", data={"text": source, "name": "run.txt"}).text
    assert f'id="line-{line}" class="flagged flagged-Violation"' in page
    assert f'href="#line-{line}">line {line}</a>' in page


def test_validate_reports_unreadable_input_with_its_line(client) -> None:
    r = client.post(
        "/validate/report?format=json",
        data={"text": "stability: 1\ntitle: [unclosed\n", "name": "s.yaml"},
    )
    (res,) = r.json()["results"]
    assert res["severity"] == "Violation" and res["line"]


# --------------------------------------------------------------------------- linked data, docs


def test_id_pages_label_findings_with_attribute_and_evidence(client, demo_store) -> None:
    (a,) = ask(
        demo_store,
        "SELECT ?a WHERE { ?a rk:auditedPublication <https://arxiv.org/abs/1609.02907> }",
    )
    path = "/id/" + str(a["a"]).removeprefix("https://w3id.org/reprokg/id/")
    page = html(client, path)
    findings = ask(demo_store, f"SELECT ?f WHERE {{ <{a['a']}> rk:hasFinding ?f }}")
    assert findings
    for f in findings:  # shown as "finding S7: …: evidence", not as the bare IRI
        assert re.search(re.escape(f'title="{f["f"]}">finding ') + r"[DSR]\d+: ", page)


def test_docs_are_offline(client) -> None:
    page = client.get("/docs").text
    assert "/static/vendor/swagger-ui/swagger-ui-bundle.js" in page
    assert "cdn" not in page.lower()
    assert client.get("/static/vendor/swagger-ui/swagger-ui-bundle.js").status_code == 200
    r = client.get("/redoc", follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/docs"


@pytest.mark.parametrize(
    "url",
    [
        "/",
        "/papers?year=2018",
        "/evidence",
        "/sources",
        "/sources/reprodb",
        "/runs",
        "/leaderboards",
        "/comparisons",
        "/stability",
        "/studies",
        "/intrinsic-dimension",
    ],
)
def test_every_view_answers_csv_and_json(client, url: str) -> None:
    sep = "&" if "?" in url else "?"
    j = client.get(url + sep + "format=json").json()
    c = client.get(url + sep + "format=csv")
    assert c.headers["content-type"].startswith("text/csv")
    parsed = list(csv.reader(io.StringIO(c.text)))
    assert parsed[0] == j["columns"] and len(parsed) - 1 == len(j["rows"])
    assert client.get(url + sep + "format=xml").status_code == 406
    assert not math.isnan(len(j["rows"]))


@pytest.mark.slow
def test_every_example_link_returns_rows(client) -> None:
    """The home page's named-query links (each query's examples) all have rows in the
    demo, and so do the example requests ``serve --demo`` prints."""
    from reprokg.service.demo import EXAMPLE_REQUESTS
    from reprokg.sparql.named import load_queries

    page = html(client, "/")
    for q in load_queries().values():
        assert f"/queries/{q.name}/table" in page
        for ex in q.examples:
            got = client.get(f"/queries/{q.name}/table", params={**ex, "format": "json"})
            assert got.status_code == 200 and got.json()["rows"], (q.name, ex)
    for path in EXAMPLE_REQUESTS:
        r = client.get(path)
        assert r.status_code == 200, path
        if path.startswith("/queries/") and "?" in path:
            assert r.json()["results"]["bindings"], path


def test_comparison_page_leads_with_the_summary(client, demo_store) -> None:
    """The comparison page in the order ``reprokg compare`` prints: the summary (PRIMAD in
    words, the headline measures, the verdict with its reason) before the charts and the
    table of every measure; the headline's means are the stored ones."""
    iri = _comparison(demo_store)
    page = html(client, f"/comparison?iri={iri}")
    summary, verdict, every = (
        page.index('id="summary"'),
        page.index('id="summary-verdict"'),
        page.index("All measures"),
    )
    assert summary < verdict < page.index('id="verdicts"') < every
    assert summary < page.index('id="chart-measures"')
    assert "platform and actor changed" in page[summary:verdict]
    assert "insufficient evidence" in page[verdict : page.index("</dd>", verdict)]
    (stored,) = ask(
        demo_store,
        f"SELECT ?v WHERE {{ <{iri}> rk:measureValue ?x . ?x rk:measureName "
        '"original_mean" ; rk:irMeasuresName "AP" ; mls:hasValue ?v }',
    )
    table = page[page.index('id="headline-table"') : page.index("</table>", summary)]
    # the rule's measure (arp-within-5pct reads AP) is the headline
    assert table.count("(baseline)") == 1 and "AP (baseline)" in table
    assert f">{float(stored['v']):.4g}<" in table
