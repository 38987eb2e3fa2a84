"""One true answer to "was it reproduced?", on a store holding every evidence source of
../shared/data: the papers list and every passport say the same of each work, a committee
decision is counted once however many sources state it, and a DOI two sources give to two
papers is shown as a conflict, never summed.

Expected values come from the raw files (ReproDB's artifacts.json, GRSI's paper data,
ReScience C's published.bib), read here without the loaders.
"""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from pathlib import Path

import pytest

from reprokg.evidence.assessments import fold, summarise
from reprokg.evidence.outcomes import OutcomeFilters, outcomes, work_outcomes
from reprokg.evidence.passport import ASSESSMENTS, passport
from reprokg.sparql.named import package_query
from reprokg.sparql.rows import select_dicts
from reprokg.store import open_store

pytestmark = pytest.mark.slow  # the field build takes ~2 min of CPU (docs/evidence.md)
DOI_RE = re.compile(r"(10\.\d{4,9}/[^\s?#]+)")


def _conflicting_dois(shared_data: Path) -> dict[str, set[str]]:
    """DOIs the sources give to records of different titles, from the raw files."""
    by: dict[str, set[str]] = defaultdict(set)
    ae = shared_data / "artifact_evaluation/reprodb/artifacts.json"
    for r in json.loads(ae.read_text("utf-8")):
        m = DOI_RE.search(r.get("paper_url") or "")
        if m:
            by[m.group(1).lower().rstrip("/")].add(r["title"].strip())
    grsi = shared_data / "surveys/grsi_isenberg/publication_data/grsi_paper_data.json"
    g_by: dict[str, set[str]] = defaultdict(set)
    for r in json.loads(grsi.read_text("utf-8")):
        if r.get("doi"):
            g_by[r["doi"].lower()].add(r["title"].strip())
    return {d: t for src in (by, g_by) for d, t in src.items() if len(t) > 1}


def test_the_list_says_of_every_work_what_its_passport_says(field_store: Path) -> None:
    """For every assessed work: the list's answer (the unbound query folded per work) equals
    the passport's (the query bound to the work: here 400 works per VALUES block, as the
    passport binds one), summary and all."""
    with open_store(field_store, read_only=True) as store:
        listed = work_outcomes(store)
        assert len(listed) > 5000
        works = sorted(listed)
        differ = []
        for i in range(0, len(works), 400):
            bound: dict[str, list[dict]] = defaultdict(list)
            q = package_query(ASSESSMENTS).bind({"paper": works[i : i + 400]})
            for r in select_dicts(store, q):
                bound[r["paper"]].append(r)
            for work in works[i : i + 400]:
                summary, _ = summarise(fold(bound[work]))
                if summary.to_json() != listed[work].summary.to_json():
                    differ.append(work)
        assert differ == []


def test_the_papers_page_and_the_passport_page_agree(field_store: Path, shared_data: Path) -> None:
    """Over HTTP: /papers' outcomes column and each /paper's summary, for a seeded sample of
    works and every conflict."""
    from fastapi.testclient import TestClient

    from reprokg.core.settings import Settings
    from reprokg.service.app import create_app

    with open_store(field_store, read_only=True) as s:
        app = create_app(Settings(store=str(field_store), access_log=False), store=s)
        with TestClient(app) as client:
            failed = client.get(
                "/papers",
                params={"outcome": "not-reproduced", "source": "rescience", "format": "json"},
            ).json()["rows"]
            dois = {r["paper"].removeprefix("https://doi.org/").lower() for r in failed}
            assert _failed_rescience(shared_data) <= dois  # the docs' own example
            rows = client.get("/papers", params={"format": "json"}).json()
            listed = {r["paper"]: r for r in rows["rows"]}
            assessed = sorted(w for w, r in listed.items() if r["outcomes"])
            sample = random.Random(39).sample(assessed, 60)
            sample += [f"https://doi.org/{d}" for d in _conflicting_dois(shared_data)]
            for work in sample:
                got = client.get("/paper", params={"iri": work, "format": "json"}).json()
                words = (listed[work]["outcomes"] or "").split(", ")
                assert got["verdict_summary"]["outcome_set"] == [w for w in words if w], work


def test_a_doi_given_to_two_papers_is_a_conflict_shown_apart(
    field_store: Path, shared_data: Path
) -> None:
    raw = _conflicting_dois(shared_data)
    assert len(raw) == 4  # three ReproDB DOIs, one GRSI DOI
    with open_store(field_store, read_only=True) as store:
        listed = work_outcomes(store)
        conflicts = {
            w.removeprefix("https://doi.org/") for w, o in listed.items() if o.summary.conflict
        }
        assert conflicts == set(raw)
        for doi, titles in raw.items():
            p = passport(store, f"https://doi.org/{doi}")
            assert p.summary.conflict and p.title is None
            assert {c.title for c in p.summary.claims} == titles
            assert p.summary.outcomes == {}  # no count adds two works
            assert all(sum(c.outcomes.values()) == 1 for c in p.summary.claims)
            assert p.summary.text.startswith("this DOI is claimed by 2 works")


def test_one_committee_decision_through_two_sources_counts_once(field_store: Path) -> None:
    """ReproDB consolidates the results pages: 341 decisions are stated by both, each one
    decision with both sources; and no work has two committee decisions in force for one
    venue, year and outcome."""
    with open_store(field_store, read_only=True) as store:
        rows = select_dicts(store, package_query(ASSESSMENTS).bind({}))
    by_work: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_work[r["paper"]].append(r)
    both = near_copies = 0
    for mine in by_work.values():
        _, decided = summarise(fold(mine))
        committee = [d for d in decided if d.kind.slug == "committee" and d.superseded_by is None]
        keys = [(d.first.venue, d.first.year, d.outcome, d.first.claimed_title) for d in committee]
        assert len(keys) == len(set(keys))
        for d in committee:
            if len(d.sources) == 2:
                both += 1
            elif len(d.records) > 1:
                near_copies += 1
    assert both == 341
    assert near_copies == 1  # a ReproDB record repeated with only `www.` in a URL changed


def _failed_rescience(shared_data: Path) -> set[str]:
    """The DOIs of ReScience C's failed replications and reproductions ([¬Re], [¬Rp]),
    read from published.bib."""
    bib = (shared_data / "surveys/rescience/journal_bib/_bibliography/published.bib").read_text(
        "utf-8"
    )
    return {
        m.group(1).lower()
        for entry in bib.split("\n@")
        if re.search(r"title\s*=\s*\{+\s*\[¬R[ep]\]", entry)
        for m in [re.search(r"doi\s*=\s*\{+([^}]+)\}", entry)]
        if m
    }


def test_failed_rescience_replications_are_listed(field_store: Path, shared_data: Path) -> None:
    """/papers?outcome=not-reproduced&source=rescience holds the journal's failed
    replications ([¬Re], [¬Rp] in published.bib) and, where one is named, their originals."""
    failed = _failed_rescience(shared_data)
    assert len(failed) == 8
    with open_store(field_store, read_only=True) as store:
        page = outcomes(store, OutcomeFilters(outcome="not-reproduced", document_kind="rescience"))
        listed = {w.work.removeprefix("https://doi.org/").lower() for w in page.items}
        assert failed <= listed
        for doi in failed:  # each article's passport says what it replicates
            p = passport(store, f"https://doi.org/{doi}")
            assert p.replication_of, doi  # named by DOI (MLRC) or by the cited title
            for original in p.replication_of:
                theirs = passport(store, original["original"])
                kinds = {(d.kind.slug, d.outcome) for d in theirs.decisions}
                assert ("replication", "not-reproduced") in kinds


def test_packages_the_study_excluded_read_not_assessed(
    field_store: Path, shared_data: Path
) -> None:
    """The 55 Dataverse packages the Trisovic study excludes (a download error in all six
    download logs, read here from the raw files) are *not assessed* in the list and on the
    passport, never *not reproduced*."""
    from reprokg.core.identifiers import doi_iri

    folder = shared_data / "surveys/trisovic_dataverse_r/analysis/data"
    bad = []
    for f in sorted(folder.glob("run_log_r*_download.csv")):
        rows = (line.split("\t") for line in f.read_text("utf-8").splitlines())
        bad.append({doi for doi, _file, status in rows if status != "ok"})
    assert len(bad) == 6
    excluded = {str(doi_iri(d)) for d in set.intersection(*bad)}
    assert len(excluded) == 55
    with open_store(field_store, read_only=True) as store:
        listed = work_outcomes(store)
        assert {w: listed[w].outcomes for w in excluded} == {
            w: frozenset({"not-attempted"}) for w in excluded
        }
        p = passport(store, sorted(excluded)[0])
        (line,) = p.summary.claims[0].lines
        assert line.startswith("re-execution: ") and "not assessed" in line
        assert "every file ran" not in line  # nothing was assessed


def test_a_seeded_sample_of_passports_states_exactly_what_the_sources_state(
    field_store: Path, shared_data: Path
) -> None:
    """Every decision the sources state and nothing extra, for a seeded sample of DOIs:
    ReproDB's records (a results badge, ACM Reproduced or IEEE ROR-R, is *reproduced*, any
    other badge *not assessed*: docs/badge-normalisation.md) and ReScience C's labels, read
    from the raw files here."""
    ae = json.loads((shared_data / "artifact_evaluation/reprodb/artifacts.json").read_text("utf-8"))
    conflicts = set(_conflicting_dois(shared_data))
    stated: dict[str, set[tuple[str, str, object, str]]] = defaultdict(set)
    for r in ae:
        m = DOI_RE.search(r.get("paper_url") or "")
        if not m or m.group(1).lower().rstrip("/") in conflicts:
            continue
        results = any(
            b.strip().lower() in ("reproduced", "reproducible", "ror-r") for b in r["badges"]
        )
        outcome = "reproduced" if results else "not-attempted"
        stated[m.group(1).lower().rstrip("/")].add(
            ("committee", r["conference"].casefold(), r["year"], outcome)
        )
    bib = (shared_data / "surveys/rescience/journal_bib/_bibliography/published.bib").read_text(
        "utf-8"
    )
    labels = {"Re": "reproduced", "Rp": "reproduced", "¬Re": "not-reproduced",
              "¬Rp": "not-reproduced", "~Re": "partially-reproduced"}  # fmt: skip
    rescience: dict[str, set[tuple[str, str, object, str]]] = {}
    for entry in bib.split("\n@"):
        t = re.search(r"title\s*=\s*\{+\s*\[([¬~]?R[ep])\]", entry)
        d = re.search(r"doi\s*=\s*\{+(10\.\d+/[^}]+)\}", entry)
        y = re.search(r"year\s*=\s*\{+(\d{4})", entry)
        if t and d and y and "under review" not in entry.lower():
            rescience[d.group(1).lower()] = {
                ("replication", "rescience c", int(y.group(1)), labels[t.group(1)])
            }
    rnd = random.Random(56)
    sample = {d: stated[d] for d in rnd.sample(sorted(stated), 40)}
    sample |= {d: rescience[d] for d in rnd.sample(sorted(rescience), 16)}
    with open_store(field_store, read_only=True) as store:
        for doi, want in sample.items():
            p = passport(store, f"https://doi.org/{doi}")
            mine = [
                d
                for d in p.decisions
                if d.superseded_by is None and d.kind.slug in ("committee", "replication")
            ]
            got = {
                (d.kind.slug, (d.first.venue or "").casefold(), d.first.year, d.outcome)
                for d in mine
            }
            assert got == want, doi
            assert len(mine) == len(want), doi  # nothing extra, nothing twice


def test_an_artifact_leads_to_its_paper_and_its_dead_link_shows(
    field_store: Path, shared_data: Path
) -> None:
    """An artifact's Zenodo DOI opens the passport of the paper it belongs to (was "nothing
    is known"); a Results Reproduced artifact whose link ReproDB found unreachable says so on
    the passport, with the date of the check (both read from the raw files)."""
    folder = shared_data / "artifact_evaluation/reprodb"
    ae = json.loads((folder / "artifacts.json").read_text("utf-8"))
    riker = next(r for r in ae if r.get("doi") == "10.5281/zenodo.6544966")
    checks = json.loads((folder / "artifact_availability.json").read_text("utf-8"))
    when = checks["summary"]["checked_at"][:10]
    dead = next(
        c
        for c in checks["records"]
        if not c["accessible"]
        and c["url"].startswith("https://github.com/")
        and any(
            r["title"] == c["title"]
            and c["url"] in r["artifact_urls"]
            and "reproduced" in [b.lower() for b in r["badges"]]
            for r in ae
        )
    )
    with open_store(field_store, read_only=True) as store:
        p = passport(store, "https://doi.org/10.5281/zenodo.6544966")
        assert p.resolved_from == "https://doi.org/10.5281/zenodo.6544966"
        assert p.title == riker["title"] and p.work != p.resolved_from
        owner = select_dicts(
            store,
            "SELECT ?paper WHERE { ?a <https://w3id.org/reprokg/ontology#artifactLocation> "
            f"<{dead['url']}> . ?paper <https://w3id.org/reprokg/ontology#hasArtifact> ?a }}",
        )
        p = passport(store, str(owner[0]["paper"]))
        texts = [a.text for a in p.artifacts]
        assert f"artifact link unreachable as of {when}: {dead['url']}" in texts
        assert any(line.startswith("committee: results reproduced") for c in p.summary.claims
                   for line in c.lines)  # fmt: skip
