"""The three reproduction-evidence loaders on the real files of ../shared/data.

Expected counts were read from the raw files independently of the loaders (Python's
``collections.Counter`` over the JSON labels, a regex over the BibTeX titles, ``awk`` over
the tab-separated logs); each test says how.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from rdflib import RDF, URIRef

from reprokg.core.namespaces import RK
from reprokg.loaders import artifact_evaluation, detect_kind, re_execution, rescience
from reprokg.validation.batching import validate_documents

AE = "artifact_evaluation"
BIB = "surveys/rescience/journal_bib/_bibliography/published.bib"
LOGS = "surveys/trisovic_dataverse_r/analysis/data"


def _objects(docs: list, prop: URIRef) -> Counter:
    return Counter(str(o).rsplit("#", 1)[-1] for d in docs for o in d.graph.objects(None, prop))


def _outcomes(docs: list) -> Counter:
    return _objects(docs, RK.outcome)


@pytest.fixture(scope="module")
def artifacts(shared_data: Path) -> tuple[list, object]:
    f = shared_data / AE / "reprodb/artifacts.json"
    return artifact_evaluation.load_with_summary(f.read_bytes(), str(f))


@pytest.mark.slow
def test_reprodb_badges_after_normalisation(shared_data: Path, artifacts) -> None:
    docs, summary = artifacts
    # raw labels (Counter over artifacts.json): available 976, Badges: Available 952,
    # Available 127, Artifacts Available 1, and 11 combined SysTEX labels with "Artifacts
    # Available"; functional 933 + Functional 722 + Badges: Functional 13 + 11 combined;
    # reproduced 600 + Reproduced 544 + ACSAC's reproducible 63; reusable 68 + Reusable 7
    # + 8 combined; Artifact Evaluated 77; ORO 13; ROR 7 + ACSAC's reviewed 25; ROR-R 4
    assert _objects(docs, RK.badge) == {
        "ACMArtifactsAvailable": 976 + 952 + 127 + 1 + 11 - 1,  # less the exact copy
        "ACMArtifactsFunctional": 933 + 722 + 13 + 11,
        "ACMResultsReproduced": 600 + 544 + 63,
        "ACMArtifactsReusable": 68 + 7 + 8,
        "ACMArtifactsEvaluated": 77,
        "NISOOpenResearchObjects": 13,
        "NISOResearchObjectsReviewed": 7 + 25,
        "NISOResultsReproduced": 4,
    }
    # one record is an exact copy of another (USENIXSEC 2025 "ImpROV", 'Badges: Available'):
    # 2,830 documents
    assert len(docs) == 2830 and summary.records == 2831
    assert [why for _, _, why in summary.skipped] == [
        next(why for _, _, why in summary.skipped if "exact copy" in why)
    ]
    # records with a results badge (reproduced/Reproduced/reproducible/ROR-R): 1,211; the
    # other 1,620 "not attempted", less the copy
    assert _outcomes(docs) == {"OutcomeReproduced": 1211, "OutcomeNotAttempted": 1619}
    assert ("badges", "Badges:", "no badge (an empty list)") in summary.normalised


@pytest.mark.slow
def test_reprodb_papers_by_doi_or_minted_and_artifacts_apart(artifacts) -> None:
    docs, _ = artifacts
    papers = {s for d in docs for s in d.graph.subjects(RK.hasArtifact, None)}
    dois = {p for p in papers if str(p).startswith("https://doi.org/")}
    # paper_url carries a DOI in 377 records, 374 distinct (a regex for 10.NNNN/… over
    # paper_url): the artifact DOIs of the 'doi' field (Zenodo, figshare) never are papers
    assert not any("zenodo" in str(p) or "figshare" in str(p) for p in dois)
    assert len(dois) == 374
    locations = {o for d in docs for o in d.graph.objects(None, RK.artifactLocation)}
    assert URIRef("https://doi.org/10.5281/zenodo.6544966") in locations
    # a DOI paper has a candidate match with the minted venue/year/title node, never sameAs
    matches = [d for d in docs if (None, RDF.type, RK.CandidateMatch) in d.graph]
    assert len(matches) == 377
    from rdflib import OWL

    assert not any((None, OWL.sameAs, None) in d.graph for d in docs)


@pytest.mark.slow
def test_reprodb_papers_json_one_document_per_venue_and_year(shared_data: Path) -> None:
    f = shared_data / AE / "reprodb/papers.json"
    raw = json.loads(f.read_text("utf-8"))
    docs, summary = artifact_evaluation.load_with_summary(f.read_bytes(), str(f))
    assert len(docs) == len({(r["conference"], r["year"]) for r in raw})
    flags = Counter(str(o) for d in docs for o in d.graph.objects(None, RK.artifactEvaluated))
    assert flags == {"true": 2332, "false": 3514}  # has_artifact in papers.json
    assert summary.records == 5846


@pytest.mark.parametrize(
    ("page", "available", "functional", "reproduced", "rows"),
    [
        # span ids aa/af/rr counted with grep in the Markdown table (the page's own summary
        # list says 14 available and 25 reproduced: it disagrees with its table)
        ("sysartifacts/osdi2023-results.md", 29, 31, 27, 32),
        ("sysartifacts/eurosys2024-results.md", 32, 25, 12, 32),
        ("sysartifacts/sosp2023-results.md", 33, 34, 25, 34),
        ("secartifacts/usenixsec2024-results.md", 142, 126, 99, 142),
        ("secartifacts/ndss2025-results.md", 61, 59, 45, 63),
    ],
)
def test_results_pages(shared_data: Path, page, available, functional, reproduced, rows) -> None:
    f = shared_data / AE / page
    assert detect_kind(f.name, f.read_text("utf-8")[:4096]) == "artifact-evaluation"
    docs, _ = artifact_evaluation.load_with_summary(f.read_bytes(), str(f))
    assert len(docs) == rows
    badges = _objects(docs, RK.badge)
    assert (
        badges["ACMArtifactsAvailable"],
        badges["ACMArtifactsFunctional"],
        badges["ACMResultsReproduced"],
    ) == (available, functional, reproduced)
    assert _outcomes(docs)["OutcomeReproduced"] == reproduced
    assert all(r.conforms for r in validate_documents(docs))


def test_results_page_and_reprodb_meet_on_the_minted_paper(shared_data: Path) -> None:
    """OSDI 2023 has no DOIs in either source: the same venue, year and title mint one node."""
    page = shared_data / AE / "sysartifacts/osdi2023-results.md"
    docs, _ = artifact_evaluation.load_with_summary(page.read_bytes(), str(page))
    from_page = {s for d in docs for s in d.graph.subjects(RK.hasArtifact, None)}
    raw = json.loads((shared_data / AE / "reprodb/artifacts.json").read_text("utf-8"))
    from reprokg.loaders.evidence import minted_paper

    from_reprodb = {
        minted_paper(r["conference"], r["year"], r["title"])
        for r in raw
        if r["conference"] == "OSDI" and r["year"] == 2023
    }
    assert len(from_page & from_reprodb) >= 30  # of 32 (two titles are spelled differently)


@pytest.mark.slow
def test_rescience_outcomes(shared_data: Path) -> None:
    f = shared_data / BIB
    assert detect_kind(f.name, f.read_text("utf-8")[:4096]) == "rescience"
    docs, summary = rescience.load_with_summary(f.read_bytes(), str(f))
    # title labels by a regex over the raw BibTeX titles: [Re] 192, [Rp] 13, [¬Re] 6,
    # [~Re] 2, [¬Rp] 2, none 8 (six editorials, a letter, one unlabelled reproduction)
    assert len(docs) == 223
    assert _outcomes(docs) == {
        "OutcomeReproduced": 192 + 13,
        "OutcomeNotReproduced": 6 + 2,
        "OutcomePartiallyReproduced": 2,
    }
    kinds = _objects(docs, RK.reproductionKind)
    assert kinds == {"Acm2020Replicability": 192 + 6 + 2, "Acm2020Reproducibility": 13 + 2}
    assert len(summary.skipped) == 8
    assert all(r.conforms for r in validate_documents(docs))


def test_rescience_under_review_is_no_outcome(shared_data: Path) -> None:
    f = shared_data / BIB.replace("published", "under-review")
    docs, summary = rescience.load_with_summary(f.read_bytes(), str(f))
    assert len(docs) == 2 and not _outcomes(docs)
    assert {why for _, _, why in summary.skipped} == {"the article is still under review"}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("log", "success", "time_limit", "error"),
    [  # awk over column 3: "success", "time limit exceeded", anything else
        ("run_log_r32_env.csv", 909, 295, 3824),
        ("run_log_r32_no_env.csv", 757, 1, 6330),
        ("run_log_r36_env.csv", 1296, 279, 4651),
        ("run_log_r36_no_env.csv", 589, 8, 3445),
        ("run_log_r40_env.csv", 1017, 723, 3548),
        ("run_log_r40_no_env.csv", 821, 50, 6278),
    ],
)
def test_re_execution_results(shared_data: Path, log, success, time_limit, error) -> None:
    f = shared_data / LOGS / log
    assert detect_kind(f.name, f.read_text("utf-8")[:4096]) == "re-execution"
    (doc,), summary = re_execution.load_with_summary(f.read_bytes(), str(f))
    statuses = Counter(str(o) for o in doc.graph.objects(None, RK.executionStatus))
    assert statuses == {"success": success, "time-limit": time_limit, "error": error}
    packages = {o for o in doc.graph.objects(None, RK.assessedWork)}
    assert sum(summary.outcomes.values()) == len(packages)
    assert validate_documents([doc])[0].conforms


@pytest.mark.slow
def test_re_execution_configuration_from_the_name(shared_data: Path) -> None:
    f = shared_data / LOGS / "run_log_r36_no_env.csv"
    (doc,), _ = re_execution.load_with_summary(f.read_bytes(), str(f))
    run = re_execution.run_node("3.6", False)
    assert str(doc.graph.value(run, RK.runtimeVersion)) == "R 3.6"
    assert doc.graph.value(run, RK.codeCleaning).toPython() is False


# --------------------------------------------------------------------------- malformed


def test_malformed_artifact_records_are_located_and_do_not_stop_the_others() -> None:
    good = {"conference": "OSDI", "year": 2023, "title": "A Paper", "badges": ["reproduced"],
            "artifact_urls": ["https://github.com/x/y"], "doi": "", "paper_url": None}  # fmt: skip
    data = json.dumps(
        [good, "not an object", {**good, "title": "Other", "year": "twenty"},
         {**good, "title": "Third", "badges": "reproduced"}, {**good, "title": "Fourth"}],
        indent=1,
    ).encode()  # fmt: skip
    docs, summary = artifact_evaluation.load_with_summary(data, "artifacts.json")
    reports = validate_documents(docs)
    assert [r.conforms for r in reports] == [True, False, False, False, True]
    bad = [r.results[0] for r in reports if not r.conforms]
    text = data.decode()
    lines = [
        text.count("\n", 0, text.index(marker)) + 1
        for marker in ('"not an object"', '"title": "Other"', '"title": "Third"')
    ]
    # a record's line is the line of its opening brace (the string: its own line)
    assert [(r.path, r.line) for r in bad] == [
        ("record", lines[0]),
        ("year", lines[1] - 3),
        ("badges", lines[2] - 3),
    ]
    assert "'year' must be a year" in bad[1].message
    assert len(summary.skipped) == 3


def test_unknown_badge_is_kept_as_written_and_reported() -> None:
    rec = {"conference": "SOSP", "year": 2019, "title": "T", "badges": ["Results Validated"]}
    (doc,), summary = artifact_evaluation.load_with_summary(json.dumps([rec]).encode(), "a.json")
    assert not list(doc.graph.objects(None, RK.badge))
    assert any("not in the normalisation table" in m.message for m in doc.messages)
    assert ("badges", "Results Validated", "unknown (kept as written)") in summary.normalised


def test_malformed_bibtex_entry_is_rejected_with_its_line(shared_data: Path) -> None:
    good = (shared_data / BIB).read_text("utf-8").split("\n@")[1]
    text = "@" + good + "\n\n@Article {Broken:2020,\n  title = {{[Re] Unclosed}\n\n"
    docs, summary = rescience.load_with_summary(text.encode(), "x.bib")
    reports = validate_documents(docs)
    assert sorted(r.conforms for r in reports) == [False, True]
    bad = next(r for r in reports if not r.conforms).results[0]
    assert bad.line == text.count("\n", 0, text.index("@Article {Broken")) + 1
    assert summary.skipped


def test_malformed_log_lines_are_skipped_with_warnings() -> None:
    data = (
        b"doi:10.7910/DVN/AAAAAA\ta.R\tsuccess\n"
        b"doi:10.7910/DVN/AAAAAA\tb.R\n"
        b"not-a-doi\tc.R\tsuccess\n"
        b"doi:10.7910/DVN/AAAAAA\tb.R\tError in x : object 'y' not found\n"
    )
    (doc,), summary = re_execution.load_with_summary(data, "run_log_r40_env.csv")
    report = validate_documents([doc])[0]
    assert report.conforms
    warned = [(r.line, r.path) for r in report.results if r.severity == "Warning"]
    assert (2, "line") in warned and (3, "doi") in warned
    assert summary.outcomes == {"partially-reproduced": 1}


def test_re_execution_needs_the_configuration_in_the_name() -> None:
    from reprokg.core.errors import LoadError

    with pytest.raises(LoadError, match="run_log_rXY_env.csv"):
        re_execution.load(b"doi:10.7910/DVN/A\ta.R\tsuccess\n", "logs.csv")


@pytest.mark.slow
def test_reloading_the_evidence_changes_nothing(tmp_path: Path) -> None:
    """``reprokg evidence load`` twice: every document of the second load is unchanged."""
    import contextlib
    import io

    from reprokg.cli import main
    from tests.conftest import REPO

    args = ["evidence", "load", "--store", str(tmp_path / "s"), "--format", "json"]
    args.append(str(REPO / "examples" / "evidence"))
    outs = []
    for _ in range(2):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(args) == 0
        outs.append(json.loads(out.getvalue())["stored"])
    first, second = outs
    assert first["added"] > 100 and first["rejected"] == 0
    assert second == {"added": 0, "unchanged": sum(first.values()), "revised": 0, "rejected": 0}


def test_the_badge_normalisation_table_in_docs_is_current() -> None:
    from reprokg.loaders.badges import SPELLINGS, table_markdown
    from tests.conftest import REPO

    doc = (REPO / "docs" / "badge-normalisation.md").read_text("utf-8")
    assert doc == table_markdown(), (
        "run: python -m reprokg.loaders.badges > docs/badge-normalisation.md"
    )
    # every label ReproDB writes (a Counter over artifacts.json) is in the table or split by it
    for label in ("Badges: Available", "ROR-R", "reproducible", "reviewed", "Artifact Evaluated",
                  "Artifacts Available + Functional + Reusable"):  # fmt: skip
        from reprokg.loaders.badges import normalise

        n = normalise(label)
        assert n.terms and not n.unknown, label
    assert len({s.spelling for s in SPELLINGS}) == len(SPELLINGS)


# --------------------------------------------------------------------------- issue 39


def _raw_download_errors(folder: Path) -> dict[str, dict[str, str]]:
    """Per download log, the packages with a line not "ok" and its first status (read
    straight from the tab-separated files, not through the loader)."""
    out: dict[str, dict[str, str]] = {}
    for f in sorted(folder.glob("run_log_r*_download.csv")):
        bad: dict[str, str] = {}
        for line in f.read_text("utf-8").splitlines():
            doi, _file, status = line.split("\t")
            if status != "ok":
                bad.setdefault(doi, status)
        out[f.name.removesuffix("_download.csv")] = bad
    return out


@pytest.mark.slow
def test_re_execution_download_failure_is_not_assessed_never_not_reproduced(
    shared_data: Path,
) -> None:
    """A package whose files did not download is *not assessed*, with the reason in words;
    the study's excluded packages (a download error in all six logs) never *not reproduced*."""
    from reprokg.core.identifiers import doi_iri

    folder = shared_data / LOGS
    raw = _raw_download_errors(folder)
    assert len(raw) == 6
    excluded = set.intersection(*(set(b) for b in raw.values()))
    assert len(excluded) == 55  # the study's nb01 cell 11: 55 DOIs dropped
    excluded_iris = {doi_iri(d) for d in excluded}
    not_assessed: set[tuple[str, URIRef]] = set()
    expected: set[tuple[str, URIRef]] = set()
    noted_excluded: set[URIRef] = set()
    excluded_outcomes: Counter = Counter()
    for config, bad in raw.items():
        f = folder / f"{config}.csv"
        ran = {line.split("\t")[0] for line in f.read_text("utf-8").splitlines()}
        expected |= {(config, doi_iri(d)) for d in bad if d in ran}
        (doc,), summary = re_execution.load_with_summary(f.read_bytes(), str(f))
        g = doc.graph
        for a in g.subjects(RDF.type, RK.ReproductionAssessment):
            work = g.value(a, RK.assessedWork)
            outcome = g.value(a, RK.outcome)
            note = str(g.value(a, RK.evidenceNote))
            if work in excluded_iris:
                excluded_outcomes[str(outcome).rsplit("#", 1)[-1]] += 1
            if outcome == RK.OutcomeNotAttempted:
                not_assessed.add((config, work))
                assert note.startswith("download failed: checksum error")
                assert str(g.value(a, RK.downloadStatus)) == "checksum error"
            if "excluded by the study" in note:
                noted_excluded.add(work)
        assert validate_documents([doc])[0].conforms
    # exactly the configurations' failed downloads are not assessed; exactly the study's
    # excluded packages say so; none of their 260 assessments is "not reproduced" (150 were)
    assert not_assessed == expected
    assert noted_excluded == excluded_iris
    assert excluded_outcomes == {"OutcomeNotAttempted": 260}


def test_the_packaged_download_errors_are_the_study_logs(shared_data: Path) -> None:
    """The table the run-log loader reads equals the six published download logs."""
    from reprokg.core.identifiers import doi_iri

    raw = _raw_download_errors(shared_data / LOGS)
    table = re_execution.download_errors()
    flat = {
        (c[len("run_log_r") :][:1] + "." + c[len("run_log_r") :][1:2], c.endswith("_env")
         and not c.endswith("no_env"), str(doi_iri(d))): st
        for c, bad in raw.items() for d, st in bad.items()
    }  # fmt: skip
    assert {k: v[0] for k, v in table.items()} == flat
    assert len(re_execution.excluded_by_study()) == 55


@pytest.mark.parametrize(
    ("written", "doi", "repaired"),
    [
        ("10.5281_zenodo.11077385", "10.5281/zenodo.11077385", True),
        ("https://doi.org/10.5281/zenodo.6484021", "10.5281/zenodo.6484021", True),
        ("http://dx.doi.org/10.1145/3600006.3613138", "10.1145/3600006.3613138", True),
        ("doi:10.1145/3600006.3613138.", "10.1145/3600006.3613138", True),
        ("10.1145/3600006.3613138", "10.1145/3600006.3613138", False),
        ("TBD", None, False),
        ("n/a", None, False),
        ("11084/23333", None, False),  # a handle, not a DOI
        ("https://zenodo.org/badge/latestdoi/585223762", None, False),
    ],
)
def test_repair_doi(written: str, doi: str | None, repaired: bool) -> None:
    from reprokg.core.identifiers import repair_doi

    r = repair_doi(written)
    assert r.doi == doi and bool(r.repair) == repaired
    assert (r.problem is not None) == (doi is None)


@pytest.mark.slow
def test_rescience_malformed_dois_are_repaired_or_reported(shared_data: Path) -> None:
    """published.bib writes one article DOI with an underscore for the slash, one as a URL,
    code/data DOIs as URLs, handles and badge links (a regex over the raw bib's fields)."""
    f = shared_data / BIB
    docs, summary = rescience.load_with_summary(f.read_bytes(), str(f))
    reports = {s for d in docs for s in d.graph.subjects(RDF.type, RK.ReproductionReport)}
    assert URIRef("https://doi.org/10.5281/zenodo.11077385") in reports
    assert URIRef("https://doi.org/10.5281/zenodo.6484021") in reports
    # the repair names the record, in the document and in the load summary
    msgs = [m for d in docs for m in d.messages if m.path == "doi" and "repaired" in m.message]
    assert any("10.5281_zenodo.11077385" in m.message and "entry " in m.message for m in msgs)
    normalised = {(f_, w): r for (f_, w, r), _ in summary.normalised.items()}
    assert normalised[("doi", "10.5281_zenodo.11077385")].startswith("DOI 10.5281/zenodo.11077385")
    assert normalised[("code_doi", "11084/23333")].startswith("not a DOI")
    assert normalised[("code_doi", "https://zenodo.org/badge/latestdoi/585223762")].startswith(
        "not a DOI"
    )
    # every article keeps a DOI IRI: none minted (all 223 entries carry a doi field)
    assert all(str(r).startswith("https://doi.org/") for r in reports)


@pytest.mark.slow
def test_artifact_availability_observations_join_the_artifacts(
    shared_data: Path, artifacts
) -> None:
    """Counted straight from artifact_availability.json: 2,562 checked URLs, 83 unreachable;
    every unreachable URL is a location of a ReproDB artifact, 31 of them behind a results
    badge (its record's labels reproduced/Reproduced/reproducible/ROR-R)."""
    import re

    from reprokg.loaders import artifact_availability

    f = shared_data / AE / "reprodb/artifact_availability.json"
    raw = json.loads(f.read_text("utf-8"))["records"]
    unreachable = [r for r in raw if r["accessible"] is False]
    assert (len(raw), len(unreachable)) == (2562, 83)
    assert detect_kind(f.name, f.read_text("utf-8")[:4096]) == "artifact-availability"
    (doc,), summary = artifact_availability.load_with_summary(f.read_bytes(), str(f))
    g = doc.graph
    obs = set(g.subjects(RDF.type, RK.AvailabilityObservation))
    down = {o for o in obs if g.value(o, RK.locationAccessible).toPython() is False}
    # two records are exact copies (2,560 distinct); six "URLs" are two URLs joined by a
    # space or "ttps://…": skipped and reported (five of them unreachable)
    distinct = {json.dumps(r, sort_keys=True): r for r in raw}.values()
    unusable = [r for r in distinct if " " in r["url"].strip() or not r["url"].startswith("http")]
    assert len(distinct) == 2560 and len(unusable) == len(summary.skipped) == 6
    bad_down = sum(1 for r in unusable if not r["accessible"])
    assert (len(obs), len(down)) == (2560 - 6, 83 - bad_down) == (2554, 78)
    assert {str(o) for o in g.objects(None, RK.checkedAt)} == {"2026-05-06T22:15:57+00:00"}
    assert validate_documents([doc])[0].conforms
    # joined by URL: the artifact whose rk:artifactLocation is the checked location
    docs, _ = artifacts
    located: dict[URIRef, set[URIRef]] = {}
    results = {}
    for d in docs:
        for a, loc in d.graph.subject_objects(RK.artifactLocation):
            located.setdefault(loc, set()).add(a)
        for s, a in d.graph.subject_objects(RK.evaluatedArtifact):
            results[a] = d.graph.value(s, RK.outcome) == RK.OutcomeReproduced
    down_locations = {g.value(o, RK.checkedLocation) for o in down}
    assert all(loc in located for loc in down_locations)
    behind_results = {loc for loc in down_locations if any(results[a] for a in located[loc])}
    raw_rr = {
        r["url"]
        for r in unreachable
        for a in json.loads((shared_data / AE / "reprodb/artifacts.json").read_text("utf-8"))
        if r["url"] in (a.get("artifact_urls") or [])
        and any(re.search(r"reproduc|ROR-R", b, re.I) for b in a.get("badges") or [])
    }
    assert len(raw_rr) == 31  # of the 83 unreachable URLs, as written
    usable_rr = {u for u in raw_rr if " " not in u.strip() and u.startswith("http")}
    assert len(behind_results) == len(usable_rr)


@pytest.mark.slow
def test_every_committee_assessment_names_its_artifact_and_the_artifact_its_paper(
    artifacts,
) -> None:
    """Each ReproDB verdict names the artifact it judged (rk:evaluatedArtifact); an
    artifact's Zenodo DOI leads to its paper (?paper rk:hasArtifact ?artifact)."""
    docs, _ = artifacts
    for d in docs:
        g = d.graph
        for a in g.subjects(RDF.type, RK.ReproductionAssessment):
            artifact = g.value(a, RK.evaluatedArtifact)
            assert artifact is not None and (artifact, RDF.type, RK.ResearchArtifact) in g
            assert g.value(predicate=RK.hasArtifact, object=artifact) == g.value(a, RK.assessedWork)
    zenodo = URIRef("https://doi.org/10.5281/zenodo.6544966")
    (d,) = [d for d in docs if (None, RK.artifactLocation, zenodo) in d.graph]
    artifact = d.graph.value(predicate=RK.artifactLocation, object=zenodo)
    paper = d.graph.value(predicate=RK.hasArtifact, object=artifact)
    assert (paper, RDF.type, URIRef("http://schema.org/ScholarlyArticle")) in d.graph


def test_a_doi_given_to_two_titles_is_a_warning_naming_both(shared_data: Path) -> None:
    """ReproDB gives three paper DOIs to two papers each: the load says so, with both titles
    (the passport then shows the two works apart: tests/evidence/test_read_model.py)."""
    from reprokg.loaders import artifact_evaluation

    f = shared_data / "artifact_evaluation/reprodb/artifacts.json"
    docs, summary = artifact_evaluation.load_with_summary(f.read_bytes(), str(f))
    warned = [m for d in docs for m in d.messages if "two papers claim one DOI" in m.message]
    assert sorted(m.value for m in warned) == [
        "10.1145/3359789.3359827",
        "10.1145/3477132.3483577",
        "10.1145/3477132.3483582",
    ]
    crash = next(m for m in warned if m.value == "10.1145/3477132.3483577")
    assert "Crash Consistent Non-Volatile Memory Express" in crash.message
    assert "Understanding and Detecting Software Upgrade Failures" in crash.message
    assert summary.counts["DOIs given to two titles"] == 3
