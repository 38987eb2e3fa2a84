"""``reprokg evidence match``: candidate matches between papers of different records.

On the field's data (../shared/data) a same venue, year and title across records is, so far,
always one node already or two DOIs: the ReScience C bibliography and the MLRC headers hold
seven pairs of reports with one normalised title and two DOIs (found by grep over the files,
listed below), which the pass must leave apart. A paper that one source names by DOI and
another mints differently (GK2018 mints by its PDF link) is a candidate match, recorded
with its evidence and never merged.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from reprokg.cli import main
from reprokg.evidence.candidate_matches import find, venue_key
from reprokg.evidence.passport import passport
from reprokg.ingest import ingest, write_result
from reprokg.loaders import artifact_evaluation, gundersen_kjensmo, load_source
from reprokg.store import open_store

GK = "surveys/gundersen_kjensmo_2018/data/evaluations.csv"
BIB = "surveys/rescience/journal_bib/_bibliography/published.bib"
MLRC = "surveys/rescience/mlrc_metadata"
Z = "https://doi.org/10.5281/zenodo."
RK = "https://w3id.org/reprokg/ontology#"
#: two reports, one normalised title, two DOIs (grep -B10 'zenodo.N}' published.bib; the
#: MLRC 2020/2021 headers give the first four the challenge's venue too)
DISTINCT = {
    (Z + "4835056", Z + "4835602"),  # [Re] Explaining Groups of Points in Low-Dimensional…
    (Z + "6574655", Z + "6574709"),  # [Re] Explaining in Style: Training a GAN…
    (Z + "6574669", Z + "6574681"),  # [Re] Exacerbating Algorithmic Bias through Fairness…
    (Z + "6574673", Z + "6574689"),  # [Re] Replication Study of "Fairness and Bias in Online…"
    (Z + "8173650", Z + "8173737"),  # [Re] / [¬Re] G-Mixup: Graph Data Augmentation… (2023)
    (Z + "8173674", Z + "8173711"),  # [Re] Reproducibility Study of "Label-Free Explainability…"
    (Z + "8173747", Z + "8173749"),  # [Re] CrossWalk(:) Fairness-enhanced Node Representation…
}


def test_venue_key_folds_case_punctuation_and_a_year() -> None:
    assert venue_key("SIGGRAPH 2016") == venue_key("siggraph") == "siggraph"
    assert venue_key("IJCAI 2016") == venue_key("IJCAI") == "ijcai"
    assert venue_key("USENIX Security") != venue_key("USENIXSEC")


@pytest.mark.slow
def test_the_fields_reports_with_one_title_and_two_dois_stay_apart(
    shared_data: Path, tmp_path: Path
) -> None:
    docs = load_source(BIB, (shared_data / BIB).read_bytes())
    for f in sorted((shared_data / MLRC).glob("*/*/journal/metadata.yaml")):
        docs += load_source(str(f), f.read_bytes())
    with open_store(tmp_path / "s") as store:
        assert ingest(store, docs).count("rejected") == 0
        found = find(store)
    assert found.matches == []
    assert set(found.distinct_dois) == DISTINCT
    assert found.papers >= 223  # every ReScience article is a titled paper node


def _gk_row(shared_data: Path) -> bytes:
    """The header and first row of GK2018's evaluations.csv (a real IJCAI 2016 paper)."""
    lines = (shared_data / GK).read_bytes().splitlines(keepends=True)
    assert b"A Generative Model for Recognizing Mixed Group Activities" in lines[1]
    return lines[0] + lines[1]


def _artifact(doi: str | None) -> bytes:
    """An artifacts.json record (ReproDB's format) of the same paper, written for the test:
    the artifact-evaluation sources hold no IJCAI paper. Its DOI, when given, is a test DOI."""
    rec = {"conference": "IJCAI", "category": "ai", "year": 2016,
           "title": "A generative model for recognizing mixed group activities in still images.",
           "badges": ["available"], "artifact_urls": ["https://github.com/example/mixed"],
           "doi": "", "paper_url": f"https://doi.org/{doi}" if doi else "", "appendix_url": "",
           "award": ""}  # fmt: skip
    return json.dumps([rec]).encode()


def test_a_doi_and_another_sources_minted_node_are_a_candidate(
    shared_data: Path, tmp_path: Path
) -> None:
    gk = gundersen_kjensmo.load(_gk_row(shared_data), "evaluations.csv")
    ae = artifact_evaluation.load(_artifact("10.5555/mixed-groups"), "artifacts.json")
    with open_store(tmp_path / "s") as store:
        assert ingest(store, [*gk, *ae]).count("rejected") == 0
        found = find(store)
        # the artifact record matched its DOI to its own minted node (within the record):
        # the pass leaves that pair to the loader and matches GK2018's node to the DOI
        (m,) = found.matches
        gk_paper = next(str(s) for s in gk[0].graph.subjects(predicate=None, object=None)
                        if "/publication/" in str(s))  # fmt: skip
        assert {m.a, m.b} == {gk_paper, "https://doi.org/10.5555/mixed-groups"}
        assert (venue_key(m.venue), m.year) == ("ijcai", 2016)
        assert m.kinds == ("artifact-evaluation", "gk2018") and len(m.documents) == 2
        assert "same venue" in m.evidence and "no identifier joins them" in m.evidence
        first = write_result(store, found)
        assert first.status == "added"
        # the pass again: the same matches (its own document is not a loader's match)
        assert find(store).matches == found.matches
        again = write_result(store, find(store))
        assert again.status == "unchanged"
        rows = store.query(
            "PREFIX rk: <https://w3id.org/reprokg/ontology#> SELECT ?c WHERE { ?m a "
            "rk:CandidateMatch ; rk:candidate ?c ; rk:matchEvidence ?e }"
        ).rows
        assert gk_paper in {str(r[0]) for r in rows}  # recorded; nothing merged
        same_as = "<http://www.w3.org/2002/07/owl#sameAs>"
        assert store.query(f"ASK {{ <{gk_paper}> {same_as} ?o }}").value is False


def test_two_minted_nodes_of_different_records_are_a_candidate(
    shared_data: Path, tmp_path: Path, capsys
) -> None:
    """Without a DOI the artifact record's paper is minted from venue, year and title, GK2018's
    from its link: two nodes, one candidate (through the command, stored)."""
    gk = gundersen_kjensmo.load(_gk_row(shared_data), "evaluations.csv")
    ae = artifact_evaluation.load(_artifact(None), "artifacts.json")
    store = tmp_path / "s"
    with open_store(store) as s:
        ingest(s, [*gk, *ae])
    dry = io.StringIO()
    with contextlib.redirect_stdout(dry):
        assert main(["evidence", "match", "--dry-run", "--store", str(store)]) == 0
    assert "1 candidate match(es) across records (1 accepted for joins)" in dry.getvalue()
    with open_store(store) as s:  # --dry-run: the match found, nothing stored
        assert s.query(f"ASK {{ ?d <{RK}documentKind> 'candidate-matches' }}").value is False
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["evidence", "match", "--store", str(store), "--format", "json"]) == 0
    data = json.loads(out.getvalue())
    (m,) = data["matches"]
    assert all("/publication/" in c for c in m["candidates"])
    assert data["stored"]["status"] == "added" and data["distinct_dois"] == []


def _artifact_titled(title: str) -> bytes:
    rec = json.loads(_artifact(None))[0]
    rec["title"] = title
    return json.dumps([rec]).encode()


@pytest.mark.parametrize(
    ("title", "accepted"),
    [
        # British spelling: one letter (rapidfuzz token_sort_ratio of the normalised titles 98.6)
        ("A Generative Model for Recognising Mixed Group Activities in Still Images", True),
        # another paper's title sharing the rare words (ratio 88.6): proposed, not accepted
        ("A Generative Model for Recognizing Mixed Group Activities in Videos", False),
    ],
)
def test_a_similar_title_of_another_record_is_a_scored_candidate(
    shared_data: Path, tmp_path: Path, title: str, accepted: bool
) -> None:
    """No exact key joins them (the titles differ): the link pass proposes the pair with its
    score and fields, accepted for joins only at the declared threshold; nothing merged."""
    gk = gundersen_kjensmo.load(_gk_row(shared_data), "evaluations.csv")
    ae = artifact_evaluation.load(_artifact_titled(title), "artifacts.json")
    with open_store(tmp_path / "s") as store:
        assert ingest(store, [*gk, *ae]).count("rejected") == 0
        found = find(store)
        (m,) = found.matches
        assert m.accepted is accepted and dict(m.fields)["year"] == 1.0
        assert ("at or above the threshold" in m.reason) is accepted
        assert "similar titles" in m.evidence and m.to_json()["accepted"] is accepted
        assert write_result(store, found).status == "added"
        rows = store.query(
            f"PREFIX rk: <{RK}> SELECT ?s ?a ?d WHERE {{ ?m a rk:CandidateMatch ; "
            "rk:matchScore ?s ; rk:matchAccepted ?a ; rk:matchDecision ?d }"
        ).rows
        (score, flag, _why) = rows[0]
        assert float(str(score)) == pytest.approx(m.score, abs=1e-4)
        assert str(flag).lower() == str(accepted).lower()
        gk_paper = next(str(s) for s in gk[0].graph.subjects() if "/publication/" in str(s))
        (link,) = passport(store, gk_paper).links  # the read model reads the flag back
        assert link.accepted is accepted and link.decision == m.reason


@pytest.mark.slow  # ~6 s: the web app
def test_the_passport_shows_the_links_accepted_and_why(shared_data: Path, tmp_path: Path) -> None:
    """The read model, ``reprokg passport`` and /paper show each link of the work to another
    source's record: accepted or a candidate, its score and the reason."""
    from fastapi.testclient import TestClient

    from reprokg.cli.passport import format_text
    from reprokg.core.settings import Settings
    from reprokg.service.app import create_app

    gk = gundersen_kjensmo.load(_gk_row(shared_data), "evaluations.csv")
    british = "A Generative Model for Recognising Mixed Group Activities in Still Images"
    ae = artifact_evaluation.load(_artifact_titled(british), "artifacts.json")
    gk_paper = next(str(s) for s in gk[0].graph.subjects() if "/publication/" in str(s))
    with open_store(tmp_path / "s") as store:
        ingest(store, [*gk, *ae])
        (m,) = find(store).matches
        write_result(store, find(store))
        other = m.b if m.a == gk_paper else m.a
        (link,) = passport(store, gk_paper).links
        assert (link.other, link.accepted) == (other, True)
        assert link.score == pytest.approx(m.score, abs=1e-4)
        assert link.title == british and "at or above the threshold 0.95" in link.decision
        text = format_text(passport(store, gk_paper))
        assert "Linked across sources: 1 accepted of 1" in text and british in text
        app = create_app(Settings(store=str(tmp_path / "s"), access_log=False), store=store)
        with TestClient(app) as client:
            page = client.get("/paper", params={"iri": gk_paper}).text
            got = client.get("/paper", params={"iri": gk_paper, "format": "json"}).json()
    assert 'id="cross-source-links"' in page and "1 accepted of 1" in page
    assert got["links"][0]["accepted"] is True and got["links"][0]["other"] == other
