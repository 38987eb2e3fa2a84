"""Contradiction alerts: ``contradictions(store, filters)``, ``reprokg alerts``, ``/alerts``.

One test per kind of contradiction on rows of the passport's query (the kinds a store of
the field rarely holds: a computed verdict, a re-execution, two committees), and the
failed replication and the dispute end to end on a store holding a real failed ReScience
replication (its MLRC header names the original) and a committee's Results Reproduced
record for the same original, through the loaders, the command and the service.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest

from reprokg.cli import main
from reprokg.evidence.contradictions import KINDS, counts, find
from tests.cli.test_passport import store_dir  # noqa: F401 - the real failed replication

RK = "https://w3id.org/reprokg/ontology#"
WORK = "https://doi.org/10.1234/original"
COMMITTEE = {"method": RK + "ArtifactEvaluationCommittee", "source": RK + "ReproDB"}


def row(assessment: str, outcome: str, method: str, source: str, **kw: Any) -> dict[str, Any]:
    return {
        "paper": WORK,
        "assessment": f"https://example.org/a/{assessment}",
        "concept": RK + outcome,
        "method": method,
        "source": source,
        **kw,
    }


BADGE = row("badge", "OutcomeReproduced", **COMMITTEE, venue="OSDI", year=2022, date="2022")


@pytest.mark.parametrize(
    ("negative", "kind"),
    [
        (
            row("rescience", "OutcomeNotReproduced", RK + "JournalReview", RK + "ReScienceC",
                date="2024-05-01"),
            "failed-replication",
        ),
        (
            row("verdict", "OutcomeNotReproduced", RK + "ComputedAcceptanceRule",
                RK + "ComputedVerdict", date="2025-01-02T10:00:00Z"),
            "computed-not-reproduced",
        ),
        (
            row("rerun", "OutcomeNotReproduced", RK + "AutomatedReExecution",
                RK + "DataverseRStudy", date="2021"),
            "failed-re-execution",
        ),
        (
            row("other-aec", "OutcomeNotReproduced", RK + "ArtifactEvaluationCommittee",
                RK + "ArtifactResultsPages", venue="ATC", year=2023, date="2023"),
            "conflicting-outcomes",
        ),
    ],
)  # fmt: skip
def test_a_negative_outcome_from_another_source_is_a_contradiction(
    negative: dict[str, Any], kind: str
) -> None:
    (c,) = find([BADGE, negative])
    assert c.kind == kind and c.work == WORK
    assert c.positive.assessment == BADGE["assessment"]
    assert c.negative.assessment == negative["assessment"]
    assert c.date == max(BADGE["date"], negative["date"])  # the later side: when it arose
    assert counts([c])[kind] == 1 and sum(counts([c]).values()) == 1


def test_a_dispute_is_a_contradiction_of_its_own() -> None:
    disputed = {
        **BADGE,
        "dispute": "https://example.org/dispute/1",
        "disputeReason": "the artifact no longer builds",
        "disputedByName": "Ada L",
        "disputeDate": "2026-01-01T00:00:00Z",
    }
    (c,) = find([disputed])
    assert c.kind == "dispute" and c.negative.note == "the artifact no longer builds"
    assert c.negative.sources == ("Ada L",) and c.date == "2026-01-01T00:00:00Z"


def test_no_contradiction_within_one_source_or_after_a_revision() -> None:
    # the Dataverse study's configurations: one ran, one did not; one source, no contradiction
    ran = row("r36", "OutcomeReproduced", RK + "AutomatedReExecution", RK + "DataverseRStudy")
    failed = row("r40", "OutcomeNotReproduced", RK + "AutomatedReExecution", RK + "DataverseRStudy")
    assert find([ran, failed]) == []
    # a superseded negative is no longer in force
    old = row("old", "OutcomeNotReproduced", RK + "JournalReview", RK + "ReScienceC",
              supersededBy="https://example.org/a/new")  # fmt: skip
    assert find([BADGE, old]) == []
    # a not-attempted (availability badges only) is not a negative
    none = row("avail", "OutcomeNotAttempted", RK + "JournalReview", RK + "ReScienceC")
    assert find([BADGE, none]) == []
    assert set(KINDS) == {"failed-replication", "computed-not-reproduced",
                          "failed-re-execution", "conflicting-outcomes", "dispute"}  # fmt: skip


# --------------------------------------------------------------------------- end to end


@pytest.fixture(scope="module")
def badged(
    store_dir: tuple[Path, str],  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, str]:
    """The failed replication's store, plus a committee's Results Reproduced record for the
    same original (ReproDB's artifacts.json layout, through its loader)."""
    d, original = store_dir
    folder = tmp_path_factory.mktemp("reprodb")
    record = {
        "conference": "OSDI", "category": "systems", "year": 2022,
        "title": "An original paper", "badges": ["available", "functional", "reproduced"],
        "artifact_urls": ["https://github.com/example/artifact"], "doi": "",
        "paper_url": original, "appendix_url": None, "award": None,
    }  # fmt: skip
    f = folder / "artifacts.json"
    f.write_text(json.dumps([record]), "utf-8")
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["evidence", "load", "--store", str(d), str(f)]) == 0
    return d, original


def _alerts(d: Path, *args: str) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["alerts", "--store", str(d), "--format", "json", *args]) == 0
    return json.loads(out.getvalue())


@pytest.mark.slow
def test_a_failed_replication_of_a_badged_paper_and_a_dispute_alert(
    badged: tuple[Path, str],
) -> None:
    from fastapi.testclient import TestClient

    from reprokg.core.settings import Settings
    from reprokg.service.app import create_app
    from reprokg.store import open_store

    d, original = badged
    got = _alerts(d)
    (c,) = got["contradictions"]
    assert c["kind"] == "failed-replication" and c["work"] == original
    assert c["positive"]["kind"] == "committee" and c["positive"]["sources"] == [
        "ReproDB artifact-evaluation results"
    ]
    assert c["negative"]["kind"] == "replication" and c["negative"]["outcome"] == "not-reproduced"
    assert got["counts"]["failed-replication"] == 1
    # a dispute of the committee's assessment is a second contradiction
    with contextlib.redirect_stdout(io.StringIO()):
        why = ["--reason", "the artifact <moved> & broke", "--by", "Ada L"]
        assert (
            main(["evidence", "dispute", c["positive"]["assessment"], *why, "--store", str(d)]) == 0
        )
    got = _alerts(d)
    assert got["counts"] == {**dict.fromkeys(KINDS, 0), "failed-replication": 1, "dispute": 1}
    assert _alerts(d, "--kind", "dispute")["total"] == 1
    assert _alerts(d, "--venue", "osdi")["total"] == 2  # the committee's venue, any case
    assert _alerts(d, "--venue", "ATC")["total"] == 0
    assert _alerts(d, "--work", "https://doi.org/10.1/none")["total"] == 0
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        assert main(["alerts", "--store", str(d)]) == 0
    assert text.getvalue().startswith("2 contradictions: failed-replication 1")
    # /alerts: the same, as JSON and as a well-formed Atom feed, paged
    store = open_store(d, read_only=True)
    with TestClient(create_app(Settings(store=str(d), access_log=False), store=store)) as client:
        r = client.get("/alerts", params={"limit": 1})
        assert r.status_code == 200 and r.json()["total"] == 2
        assert len(r.json()["contradictions"]) == 1 and "offset=1" in r.json()["next"]
        r = client.get("/alerts", headers={"Accept": "application/atom+xml"})
        assert r.headers["content-type"].startswith("application/atom+xml")
        feed = ET.fromstring(r.content)
        ns = {"a": "http://www.w3.org/2005/Atom"}
        entries = feed.findall("a:entry", ns)
        assert len(entries) == 2 and all(e.find("a:id", ns) is not None for e in entries)
        assert any("the artifact <moved> & broke" in (e.findtext("a:summary", "", ns))
                   for e in entries)  # fmt: skip
        assert client.get("/alerts", params={"kind": "nope"}).status_code == 400
        assert client.get("/alerts", params={"limit": 5000}).status_code in (400, 422)
        assert client.get("/alerts", params={"orcid": "0000-0002-1825-0097"}).json()["total"] == 0
        assert client.get("/alerts", params={"orcid": "0000-0002-1825-0090"}).status_code == 400
    store.close()
