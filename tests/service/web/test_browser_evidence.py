"""Was it reproduced? The passport and the papers view in headless Chromium.

The demo store (every bundled example, with the real evidence subsets of
examples/evidence and the demo comparison's verdict by the rule ``arp-within-5pct``)
gets, for this module, three records in their sources' own formats that name the paper
of the demo's runs (Yu et al., ECIR 2019, doi:10.1007/978-3-030-15712-8_26): an
artifact-evaluation record in ReproDB's format with a results badge, an ML Reproducibility
Challenge header naming it as the original, and that report's ReScience C BibTeX entry.
The records are illustrative (ECIR has no artifact evaluation; the report is invented);
they are removed again after the module.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from tests.service.web.conftest import LiveServer, PageLog

pytestmark = pytest.mark.slow  # Chromium and the demo store

DOI = "10.1007/978-3-030-15712-8_26"
PAPER = f"https://doi.org/{DOI}"
REPORT_DOI = "10.5281/zenodo.0000001"

ARTIFACT = {
    "conference": "ECIR",
    "year": 2019,
    "title": "Simple Techniques for Cross-Collection Relevance Feedback",
    "badges": ["Artifacts Available + Functional", "Reproduced"],
    "artifact_urls": ["https://github.com/castorini/anserini"],
    "doi": "",
    "paper_url": PAPER,
    "appendix_url": None,
    "award": None,
}
MLRC = f"""title: "[Re] Simple Techniques for Cross-Collection Relevance Feedback"
authors:
  - name: Josiah Carberry
    orcid: 0000-0002-1825-0097
    affiliations: 1
affiliations:
  - code: 1
    name: Somewhere
type: Replication
code:
  - url: https://github.com/castorini/anserini
replication:
  - cite: "Yu et al., ECIR 2019"
  - doi: {DOI}
article:
  - doi: {REPORT_DOI}
journal:
  - name: "ReScience C"
"""
BIB = f"""@Article {{Replicator:2023,
  author =       {{A. Replicator}},
  title =        {{{{[Re] Simple Techniques for Cross-Collection Relevance Feedback}}}},
  journal =      {{ReScience C}},
  year =         {{2023}},
  month =        {{5}},
  doi =          {{{REPORT_DOI}}},
  url =          {{https://zenodo.org/record/1/files/article.pdf}},
  review_url =   {{https://openreview.net/forum?id=example}},
  type =         {{Replication}},
  language =     {{Python}},
  domain =       {{Information Retrieval}}
}}
"""


@pytest.fixture(scope="module")
def evidence_store(demo_store: Any) -> Any:
    from reprokg.ingest import ingest
    from reprokg.loaders import artifact_evaluation, mlrc, rescience

    docs = [
        *artifact_evaluation.load(json.dumps([ARTIFACT]).encode(), "artifacts.json"),
        *mlrc.load(MLRC.encode(), "replicator2023/journal/metadata.yaml"),
        *rescience.load(BIB.encode(), "published.bib"),
    ]
    result = ingest(demo_store, docs)
    assert result.count("rejected") == 0, [d.report.to_text() for d in result.documents]
    yield demo_store
    for d in result.documents:
        if d.status == "added":
            demo_store.delete_document(d.iri)


@pytest.fixture(scope="module")
def live_evidence(evidence_store: Any, demo_app: Any) -> Any:
    with LiveServer(demo_app) as server:
        yield server


def test_passport_shows_badge_replication_and_computed_verdict(
    live_evidence: LiveServer, page_and_log: tuple[Any, PageLog], shot: Any
) -> None:
    page, log = page_and_log
    page.goto(live_evidence.url + f"/paper?doi={DOI}")
    page.wait_for_selector("#verdict-summary")
    rows = page.locator("#verdicts-table tbody tr").all_inner_texts()
    text = "\n".join(rows)
    badge = next(r for r in rows if "ReproDB" in r)
    assert "reproduced" in badge and "ECIR" in badge
    replication = next(r for r in rows if "ReScience C" in r)
    assert "reproduced" in replication and "[Re]" in replication
    verdict = next(r for r in rows if "rule arp-within-5pct" in r)
    assert "computed" in verdict.lower()
    summary = page.locator("#verdict-summary").inner_text()
    # one line per kind of evidence, never one sum over kinds
    for kind in ("committee: results reproduced", "replication by others", "computed verdict"):
        assert kind in summary, summary
    # the verdict section comes before the facts: the passport leads with the answer
    order = page.evaluate("[...document.querySelectorAll('h2')].map(h => h.id || h.textContent)")
    assert order.index("verdict-heading") < order.index("facts")
    # the evidence links go where they should: the review, the comparison
    links = page.locator("#verdicts-table a").evaluate_all("as => as.map(a => a.href)")
    assert any("openreview.net" in h for h in links)
    assert any("/comparison?" in h for h in links)
    shot(page, "paper-verdicts-1280")
    # the comparison the verdict rests on lists it with its rule
    page.goto(next(h for h in links if "/comparison?" in h))
    assert "arp-within-5pct" in page.locator("#verdict-list").inner_text()
    assert log.problems() == [], text


def test_papers_not_reproduced_equals_sparql(
    live_evidence: LiveServer,
    evidence_store: Any,
    page_and_log: tuple[Any, PageLog],
    shot: Any,
) -> None:
    expected = {
        str(r[0])
        for r in evidence_store.query(
            """PREFIX rk: <https://w3id.org/reprokg/ontology#>
            PREFIX schema: <http://schema.org/>
            PREFIX prov: <http://www.w3.org/ns/prov#>
            SELECT DISTINCT ?paper WHERE {
              { ?paper a schema:ScholarlyArticle } UNION { ?paper a rk:ReplicationPackage }
              { ?a rk:assessedWork ?paper }
              UNION { ?report rk:reproduces ?paper . ?a rk:reproductionReport ?report }
              UNION { ?a rk:reproductionReport ?paper }
              UNION { ?a rk:auditedPublication ?paper }
              ?a rk:outcome rk:OutcomeNotReproduced .
              FILTER NOT EXISTS { ?later prov:wasRevisionOf ?a ; a rk:ReproductionAssessment }
            }"""
        ).rows
    }
    assert expected, "the demo holds no paper assessed as not reproduced"
    page, log = page_and_log
    page.goto(live_evidence.url + "/papers")
    page.select_option("select[name=outcome]", "not-reproduced")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_url("**outcome=not-reproduced**")
    # the form sends year= (any) with the outcome: a blank year is no filter, not an error
    assert "year=&" in page.url and page.locator("h1").inner_text() == "Papers"
    shown = page.locator("#papers-table tbody tr").count()  # one page: fewer than 50
    href = page.locator("footer a", has_text="CSV").get_attribute("href")
    assert "outcome=not-reproduced" in href
    body = page.request.get(live_evidence.url + href).text()
    got = {r["paper"] for r in csv.DictReader(io.StringIO(body))}
    assert got == expected
    assert shown == len(expected)
    shot(page, "papers-not-reproduced-1280")
    assert log.problems() == []
