"""The survey analysis computed from the graph agrees with scipy/statsmodels on the JSON.

A session fixture loads the 374 consolidated reviews and the 454 per-paper site files
through the survey loader into a temporary embedded store. Each test then derives one
statistic from the graph (SPARQL → pandas → reprokg.survey / reprokg.studies) and
recomputes it here, independently, straight from the JSON rows with scipy/statsmodels.
Only this test module reads the JSON; the analysis reads the store.

The tests here run the SIGGRAPH study with its ``corrected`` method (replication scores
the reviewers did not give are left out of the ANOVA, as scipy/statsmodels do with NaN);
tests/studies/test_siggraph2020.py checks the ``published`` method, the study's own
script, rule by rule.
"""

from __future__ import annotations

import json
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
from reprokg.survey import analysis as sa
from tests.conftest import REPO, need

pytestmark = pytest.mark.slow  # the survey store its session fixture loads

AVAIL = "Is the code or software publicly available ?"
SCORE = "Feedbacks [could reproduce results (5=highly confident)]"
TESTED = "Did I manage to perform a complete test (deps/build)?"
CITES = "Citation count (google scholar)"
BUGFIX = "Feedbacks [easy to fix bugs (5=easy N/A if no bug)]"
SITE_TOPIC = (
    "Topic {Rendering, Animation and Simulation, Geometry, Images, Virtual Reality, Fabrication}"
)

# The consolidated file's topic spellings -> the labels the graph gives the six topics.
TOPIC_LABEL = {
    "Rendering": "Rendering",
    "Animation": "Animation and simulation",
    "Animation and Simulation": "Animation and simulation",
    "Geometry": "Geometry",
    "Image": "Images",
    "Images": "Images",
    "Virtual Reality": "Virtual reality",
    "Fabrication": "Fabrication",
}


# --- fixtures ---------------------------------------------------------------------------


@pytest.fixture(scope="session")
def graphics_dir(shared_data: Path) -> Path:
    d = shared_data / "replicability_graphics"
    need((d / "consolidatedData.json").is_file(), "consolidatedData.json is missing")
    return d


_STORES: dict[str, Any] = {}


def build_survey_store(graphics_dir: Path, tmp: Path) -> Any:
    """Both data sets loaded through the survey loader into an embedded store, once per run
    (the API tests reuse it)."""
    if "store" in _STORES:
        return _STORES["store"]
    try:
        from reprokg.loaders import replicability_graphics as loader
    except ImportError:
        need(False, "the survey loader reprokg.loaders.replicability_graphics is not there yet")
    from reprokg.store import open_store

    store = open_store(tmp)
    files = [
        graphics_dir / "consolidatedData.json",
        *sorted(graphics_dir.glob("per_paper/*/*.json")),
    ]
    for f in files:
        for doc in loader.load(f.read_bytes(), f.name):
            store.add_document(doc.iri, doc.graph)
    _STORES["store"] = store
    return store


@pytest.fixture(scope="session")
def survey_store(graphics_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    return build_survey_store(graphics_dir, tmp_path_factory.mktemp("survey-store"))


@pytest.fixture(scope="session")
def frame(survey_store: Any) -> pd.DataFrame:
    return sa.paper_frame(survey_store)


@pytest.fixture(scope="session")
def result(survey_store: Any) -> dict[str, Any]:
    return SIGGRAPH2020.run(survey_store, "corrected", dataset="both").to_json()


@pytest.fixture(scope="session")
def raw(graphics_dir: Path) -> pd.DataFrame:
    """The consolidated JSON, typed here independently of the loader and the analysis."""
    rows = json.loads((graphics_dir / "consolidatedData.json").read_text(encoding="utf-8"))
    df = pd.DataFrame(rows)
    return pd.DataFrame(
        {
            "doi": df["DOI"].str.lower(),
            "year": df["Year"].astype(int),
            "topic": df["Topic"].map(TOPIC_LABEL),
            "code": df[AVAIL] == "Yes",
            "industry": df["Authors"].str.contains("Private Companies", regex=False),
            "deep": df["Deep learning"] == "True",
            "citations": pd.to_numeric(df[CITES], errors="coerce"),
            "reviewer": df["Reviewer"].astype(str),
            "score": pd.to_numeric(df[SCORE], errors="coerce"),
            "tested": df[TESTED] == "Yes",
            "license": df["License type"],
            "docscore": df["Documentation score"],
            "needs_data": df["Does the code need data (other than examples/inputs) ?"],
            "langs": df["Main languages"],
            "swtype": df["Software Type"],
            "test": df[TESTED],
            "bugfix": pd.to_numeric(df[BUGFIX], errors="coerce"),
            "time": df["How long did take for you to evaluate the code this paper (if any)?"],
            "open_access": df["Open access"].astype(bool),
        }
    )


@pytest.fixture(scope="session")
def site(graphics_dir: Path) -> pd.DataFrame:
    """The per-paper site files: the master variant of each paper."""
    rows = []
    for f in sorted(graphics_dir.glob("per_paper/*/*.json")):
        variants = json.loads(f.read_text(encoding="utf-8"))
        master = [v for v in variants if v["Is master variant (boolean)"]]
        assert len(master) == 1, f
        v = master[0]
        rows.append(
            {
                "year": int(v["Year"]),
                "topic": TOPIC_LABEL[v[SITE_TOPIC]],
                "code": bool(v["Code available (boolean)"]),
                "industry": bool(v["Co-authors from industry (boolean)"]),
            }
        )
    return pd.DataFrame(rows)


def _cp(k: int, n: int) -> tuple[float, float]:
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    return ci.low, ci.high


# --- the frame --------------------------------------------------------------------------


def test_frame_has_one_row_per_reviewed_paper(frame: pd.DataFrame, raw: pd.DataFrame) -> None:
    cons = frame[frame["dataset"] == "consolidated"]
    assert len(cons) == 374
    assert cons["paper"].is_unique
    assert sorted(cons["paper"].str.removeprefix("https://doi.org/")) == sorted(raw["doi"])
    site = frame[frame["dataset"] == "per-paper"]
    assert len(site) == 454 and site["paper"].is_unique


# --- sharing ----------------------------------------------------------------------------


def test_sharing_by_year_and_overall(result: dict[str, Any], raw: pd.DataFrame) -> None:
    sharing = result["consolidated"]["sharing"]
    for year, rows in raw.groupby("year"):
        k, n = int(rows["code"].sum()), len(rows)
        got = sharing["by_year"][str(year)]
        assert (got["k"], got["n"]) == (k, n)
        assert got["rate"] == pytest.approx(k / n)
        assert got["ci95"] == pytest.approx(list(_cp(k, n)), abs=1e-12)
    k, n = int(raw["code"].sum()), len(raw)
    assert (sharing["overall"]["k"], sharing["overall"]["n"]) == (k, n) == (151, 374)
    assert sharing["overall"]["ci95"] == pytest.approx(list(_cp(k, n)), abs=1e-12)


def test_sharing_by_topic(result: dict[str, Any], raw: pd.DataFrame) -> None:
    by_topic = result["consolidated"]["sharing"]["by_topic"]
    assert set(by_topic) == set(raw["topic"])
    for topic, rows in raw.groupby("topic"):
        k, n = int(rows["code"].sum()), len(rows)
        assert (by_topic[topic]["k"], by_topic[topic]["n"]) == (k, n)
        assert by_topic[topic]["ci95"] == pytest.approx(list(_cp(k, n)), abs=1e-12)


def test_per_paper_sharing_by_year(result: dict[str, Any], site: pd.DataFrame) -> None:
    sharing = result["per-paper"]["sharing"]
    assert set(sharing["by_year"]) == {str(y) for y in site["year"].unique()}
    for year, rows in site.groupby("year"):
        k, n = int(rows["code"].sum()), len(rows)
        got = sharing["by_year"][str(year)]
        assert (got["k"], got["n"]) == (k, n)
        assert got["ci95"] == pytest.approx(list(_cp(k, n)), abs=1e-12)


# --- tests ------------------------------------------------------------------------------


def _chi2_p(a: pd.Series, b: pd.Series) -> tuple[float, float]:
    table = [[int(a.sum()), int((~a).sum())], [int(b.sum()), int((~b).sum())]]
    chi2, p, _, _ = stats.chi2_contingency(table, correction=False)
    return float(chi2), float(p)


def _expected_p(raw: pd.DataFrame) -> dict[str, float]:
    p: dict[str, float] = {}
    for y1, y2 in ((2014, 2016), (2014, 2018), (2016, 2018)):
        p[f"sharing_{y1}_vs_{y2}"] = _chi2_p(
            raw.loc[raw["year"] == y1, "code"], raw.loc[raw["year"] == y2, "code"]
        )[1]
    p["sharing_industry_vs_academia"] = _chi2_p(
        raw.loc[raw["industry"], "code"], raw.loc[~raw["industry"], "code"]
    )[1]
    p["sharing_deep_vs_not"] = _chi2_p(raw.loc[raw["deep"], "code"], raw.loc[~raw["deep"], "code"])[
        1
    ]
    y14 = raw[raw["year"] == 2014]
    p["citations_2014_code_vs_no_code"] = stats.mannwhitneyu(
        y14.loc[y14["code"], "citations"],
        y14.loc[~y14["code"], "citations"],
        alternative="two-sided",
        method="asymptotic",
        use_continuity=True,
    ).pvalue
    anova = _anova(raw)
    p["score_by_year"] = float(anova.loc["C(year)", "PR(>F)"])
    p["score_by_reviewer"] = float(anova.loc["C(reviewer)", "PR(>F)"])
    return p


def _anova(raw: pd.DataFrame) -> pd.DataFrame:
    sub = raw[raw["code"] & raw["tested"] & raw["score"].notna()]
    return sm.stats.anova_lm(ols("score ~ C(year) + C(reviewer)", data=sub).fit(), typ=2)


def test_chi2_tests_match_scipy(result: dict[str, Any], raw: pd.DataFrame) -> None:
    tests = result["consolidated"]["tests"]
    pairs = {
        "sharing_2014_vs_2016": (raw["year"] == 2014, raw["year"] == 2016),
        "sharing_2014_vs_2018": (raw["year"] == 2014, raw["year"] == 2018),
        "sharing_2016_vs_2018": (raw["year"] == 2016, raw["year"] == 2018),
        "sharing_industry_vs_academia": (raw["industry"], ~raw["industry"]),
        "sharing_deep_vs_not": (raw["deep"], ~raw["deep"]),
    }
    for tid, (a, b) in pairs.items():
        chi2, p = _chi2_p(raw.loc[a, "code"], raw.loc[b, "code"])
        assert tests[tid]["statistic"] == pytest.approx(chi2, rel=1e-9), tid
        assert tests[tid]["p"] == pytest.approx(p, rel=1e-9), tid
        assert "Yates" in tests[tid]["method"]


def test_citation_summaries_match_scipy(result: dict[str, Any], raw: pd.DataFrame) -> None:
    cites = result["consolidated"]["citations"]
    for year, rows in raw.groupby("year"):
        for grp, vals in (("code", rows.loc[rows["code"], "citations"]),
                          ("no_code", rows.loc[~rows["code"], "citations"])):  # fmt: skip
            x = vals.to_numpy(float)
            lo, hi = stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
            got = cites[str(year)][grp]
            assert got["n"] == len(x)
            assert got["mean"] == pytest.approx(x.mean())
            assert got["median"] == pytest.approx(float(np.median(x)))
            assert got["ci95"] == pytest.approx([lo, hi])


def test_citation_rank_sum_matches_scipy(result: dict[str, Any], raw: pd.DataFrame) -> None:
    y14 = raw[raw["year"] == 2014]
    ref = stats.mannwhitneyu(
        y14.loc[y14["code"], "citations"],
        y14.loc[~y14["code"], "citations"],
        alternative="two-sided",
        method="asymptotic",
        use_continuity=True,
    )
    got = result["consolidated"]["tests"]["citations_2014_code_vs_no_code"]
    assert got["statistic"] == pytest.approx(ref.statistic)
    assert got["p"] == pytest.approx(ref.pvalue, rel=1e-9)


def test_anova_matches_statsmodels(result: dict[str, Any], raw: pd.DataFrame) -> None:
    table = _anova(raw)
    tests = result["consolidated"]["tests"]
    for tid, row in (("score_by_year", "C(year)"), ("score_by_reviewer", "C(reviewer)")):
        assert tests[tid]["statistic"] == pytest.approx(table.loc[row, "F"], rel=1e-9)
        assert tests[tid]["p"] == pytest.approx(table.loc[row, "PR(>F)"], rel=1e-9)
        assert tests[tid]["df"] == table.loc[row, "df"]
        assert "Type II" in tests[tid]["method"]
        assert tests[tid]["n"] == int(table["df"].sum()) + 1 == 122


def test_bh_adjusts_the_eight_p_values_together(result: dict[str, Any], raw: pd.DataFrame) -> None:
    expected = _expected_p(raw)
    assert list(expected) == list(sg.BH_FAMILY)
    adjusted = multipletests(list(expected.values()), method="fdr_bh")[1]
    tests = result["consolidated"]["tests"]
    assert list(tests) == list(sg.TEST_IDS)
    for (tid, p), adj in zip(expected.items(), adjusted, strict=True):
        assert tests[tid]["p"] == pytest.approx(p, rel=1e-9), tid
        assert tests[tid]["p_adjusted"] == pytest.approx(adj, rel=1e-9), tid


def test_per_paper_industry_test_matches_scipy(result: dict[str, Any], site: pd.DataFrame) -> None:
    chi2, p = _chi2_p(site.loc[site["industry"], "code"], site.loc[~site["industry"], "code"])
    got = result["per-paper"]["tests"]["sharing_industry_vs_academia"]
    assert got["statistic"] == pytest.approx(chi2, rel=1e-9)
    assert got["p"] == pytest.approx(p, rel=1e-9)


# --- counts -----------------------------------------------------------------------------


def test_counts_match_json(result: dict[str, Any], raw: pd.DataFrame) -> None:
    counts = result["consolidated"]["counts"]
    for year, rows in [*raw.groupby("year"), ("total", raw)]:
        code = rows[rows["code"]]
        got = counts["total"] if year == "total" else counts["by_year"][str(year)]
        expected = {
            "papers": len(rows),
            "with_code": len(code),
            "code_without_license": int((code["license"] == "unspecified").sum()),
            "code_documentation_score_0": int((code["docscore"] == 0).sum()),
            "code_deep": int(code["deep"].sum()),
            "code_needs_data": int((code["needs_data"] == "Yes").sum()),
            "code_python": int(code["langs"].str.contains("Python").sum()),
            "code_matlab": int(code["langs"].str.contains("Matlab").sum()),
            "code_cpp": int(code["langs"].str.contains("C/C++", regex=False).sum()),
            "code_binary": int((code["swtype"] == "Binary").sum()),
            "test_completed": int((code["test"] == "Yes").sum()),
            "test_failed_technical": int((code["test"] == "No due to technical issue").sum()),
            "test_failed_hardware": int(
                (code["test"] == "No due to missing specific hardware").sum()
            ),
            "code_needed_modification": int(code["bugfix"].notna().sum()),
            "code_hard_to_fix": int((code["bugfix"] <= 2).sum()),
            "code_over_100_minutes": int((code["time"] == 10).sum()),
            "acm_open_access": int(rows["open_access"].sum()),
        }
        for key, value in expected.items():
            assert got[key] == value, (year, key)


# --- provenance and write-back ----------------------------------------------------------


def test_every_section_carries_sparql_and_method(result: dict[str, Any]) -> None:
    res = result["consolidated"]
    for section in ("sharing", "citations", "counts"):
        prov = res[section]["provenance"]
        assert "SELECT" in prov["sparql"] and prov["method"]
    for t in res["tests"].values():
        assert "SELECT" in t["provenance"]["sparql"]


def test_saved_result_is_queryable(survey_store: Any, result: dict[str, Any]) -> None:
    import dataclasses

    from reprokg.ingest import write_result
    from reprokg.store.base import SelectResult

    saved = SIGGRAPH2020.run(survey_store, "corrected")
    consolidated = saved.to_json()
    assert consolidated == result["consolidated"]
    iri = write_result(survey_store, saved).iri
    assert survey_store.has_document(iri)
    res = survey_store.query(
        "PREFIX rk: <https://w3id.org/reprokg/ontology#> "
        f"SELECT ?p ?n ?kind WHERE {{ GRAPH <{iri}> {{ ?r rk:hasStudyValue ?t . ?t rk:valueName "
        '"consolidated.tests.sharing_2014_vs_2018" ; rk:adjustedPValue ?p ; rk:sampleSize ?n . '
        f"<{iri}> rk:documentKind ?kind }} }}"
    )
    assert isinstance(res, SelectResult) and len(res.rows) == 1
    want = consolidated["tests"]["sharing_2014_vs_2018"]
    assert float(res.rows[0][0]) == pytest.approx(want["p_adjusted"])
    assert int(res.rows[0][1]) == want["n"] == 255
    assert str(res.rows[0][2]) == "study-result"
    # the saved analysis is not a survey review: a re-run gives the same numbers
    again = SIGGRAPH2020.run(survey_store, "corrected").to_json()
    assert again["tests"]["sharing_2014_vs_2018"]["p"] == pytest.approx(want["p"])
    # a different result for the same study and method is a revision that replaces the first
    analysis = saved.datasets["consolidated"]
    changed = dataclasses.replace(
        saved, datasets={"consolidated": dataclasses.replace(analysis, n_papers=-1)}
    )
    outcome = write_result(survey_store, changed)
    iri2 = outcome.iri
    assert outcome.status == "revised"
    assert iri2 != iri
    assert not survey_store.has_document(iri)
    rev = survey_store.query(
        "PREFIX prov: <http://www.w3.org/ns/prov#> "
        f"ASK {{ GRAPH <{iri2}> {{ <{iri2}> prov:wasRevisionOf <{iri}> }} }}"
    )
    assert rev.value is True
    survey_store.delete_document(iri2)


def test_every_ontology_term_the_query_uses_is_declared() -> None:
    """Catches a renamed property (the query would silently return nothing)."""
    import re

    from rdflib import Graph, URIRef
    from rdflib.namespace import RDF

    from reprokg.core.namespaces import RK
    from reprokg.sparql.named import package_query

    ontology = Graph()
    for ttl in (REPO / "ontology").glob("*.ttl"):
        ontology.parse(ttl, format="turtle")
    used = set(re.findall(r"\brk:([A-Za-z0-9]+)", package_query(sa.PAPERS_QUERY).sparql))
    assert used, "the query uses no rk: terms?"
    missing = sorted(t for t in used if (URIRef(RK[t]), RDF.type, None) not in ontology)
    assert not missing, f"rk: terms used by survey_papers.rq but not declared: {missing}"


def test_per_paper_codes_without_license(result: dict[str, Any], graphics_dir: Path) -> None:
    """Site data: an empty 'Code License (if any)' means no license (per_paper_template)."""
    expected = 0
    for f in sorted(graphics_dir.glob("per_paper/*/*.json")):
        v = next(x for x in json.loads(f.read_text("utf-8")) if x["Is master variant (boolean)"])
        lic = str(v["Code License (if any)"]).strip()
        if v["Code available (boolean)"] and lic in ("", "unspecified"):
            expected += 1
    assert result["per-paper"]["counts"]["total"]["code_without_license"] == expected


def test_generic_store_path_gives_the_same_frame(survey_store: Any, frame: pd.DataFrame) -> None:
    """The direct pyoxigraph read and the backend-neutral Store.query path agree."""

    class QueryOnly:  # what a remote backend offers: query() returning SelectResult
        def query(self, sparql: str) -> Any:
            return survey_store.query(sparql)

    from reprokg.sparql.rows import select_rows

    generic = sa.frame_from_rows(select_rows(QueryOnly(), sa.papers_query("both")))
    pd.testing.assert_frame_equal(generic, frame)


def test_per_paper_year_pairs_match_scipy(result: dict[str, Any], site: pd.DataFrame) -> None:
    tests = result["per-paper"]["tests"]
    for y1, y2 in ((2014, 2016), (2014, 2018), (2016, 2018)):
        chi2, p = _chi2_p(
            site.loc[site["year"] == y1, "code"], site.loc[site["year"] == y2, "code"]
        )
        got = tests[f"sharing_{y1}_vs_{y2}"]
        assert got["statistic"] == pytest.approx(chi2, rel=1e-9)
        assert got["p"] == pytest.approx(p, rel=1e-9)
    # no deep-learning flag and no citation counts in the site data: those tests are absent
    assert "sharing_deep_vs_not" not in tests
    assert "citations_2014_code_vs_no_code" not in tests
    assert result["per-paper"]["counts"]["total"]["code_deep"] is None


def test_survey_statistics_json_and_graph_come_from_one_object(
    frame: pd.DataFrame, raw: pd.DataFrame
) -> None:
    """The typed statistics give the study's JSON, and the study's document names each
    sharing rate with the k/n the consolidated JSON file gives (counted here from it)."""
    from reprokg.core.namespaces import RK

    consolidated = frame[frame["dataset"] == "consolidated"]
    stats = sa.survey_statistics(consolidated, "SELECT …")
    assert stats.to_json() == sa.describe_frame(consolidated, "SELECT …")
    overall = stats.sharing_overall
    assert (overall.k, overall.n) == (int(raw["code"].sum()), len(raw)) == (151, 374)
    g = SIGGRAPH2020.analyze({"consolidated": (consolidated, "SELECT …")}).to_graph()
    rates = {
        str(g.value(v, RK.valueName)): (
            g.value(v, RK.statisticValue).toPython(),
            int(g.value(v, RK.sampleSize)),
        )
        for v in g.subjects(RK.valueName, None)
        if ".sharing." in str(g.value(v, RK.valueName))
    }
    want = {
        f"consolidated.sharing.by_year.{y}": (p.rate, p.n) for y, p in stats.sharing_by_year.items()
    }
    want |= {
        f"consolidated.sharing.by_topic.{t}": (p.rate, p.n)
        for t, p in stats.sharing_by_topic.items()
    }
    want["consolidated.sharing.overall"] = (stats.sharing_overall.rate, stats.sharing_overall.n)
    assert rates == want
