"""``reprokg passport`` and ``/paper?format=json``: the verdict summary leads, over every source.

The store holds real records: a ReScience C article (``[¬Re]``, from the journal's
bibliography) and the ML Reproducibility Challenge header of the same report, which names
the original paper by DOI (both in ../shared/data), plus the demo comparison's verdict.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

from reprokg.cli import main
from reprokg.ingest import ingest
from reprokg.loaders import mlrc, rescience
from reprokg.store import open_store

BIB = "surveys/rescience/journal_bib/_bibliography/published.bib"
MLRC = "surveys/rescience/mlrc_metadata"


#: the passport's JSON leads as its text does: title, identifiers, then the answer
LEADING_KEYS = ["title", "identifiers", "published", "paper", "verdict_summary", "verdicts"]


@pytest.fixture(scope="module")
def store_dir(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A store with a failed replication ([¬Re]) whose MLRC header names its original."""
    headers = sorted((shared_data / MLRC).glob("*/*/journal/metadata.yaml"))
    failed = next(h for h in headers if re.search(r'title:\s*"?\[¬Re\]', h.read_text("utf-8")))
    (header,) = mlrc.load(failed.read_bytes(), str(failed))
    from reprokg.core.namespaces import RK

    report, original = next(iter(header.graph.subject_objects(RK.reproduces)))
    entries = (shared_data / BIB).read_text("utf-8").split("\n@")
    doi = str(report).removeprefix("https://doi.org/")
    entry = next(e for e in entries if doi in e.lower())
    bib = rescience.load(("@" + entry.lstrip("@")).encode(), "published.bib")
    d = tmp_path_factory.mktemp("passport") / "store"
    with open_store(d) as s:
        result = ingest(s, [header, *bib])
        assert result.count("rejected") == 0
    return d, str(original)


def _run(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(args))
    return code, out.getvalue()


def test_passport_json_leads_with_the_verdict(store_dir: tuple[Path, str]) -> None:
    d, original = store_dir
    code, out = _run("passport", original, "--store", str(d), "--format", "json")
    assert code == 0
    data = json.loads(out)
    # title and identifiers first (as the text and the page), then the answer
    assert list(data)[:6] == LEADING_KEYS
    summary = data["verdict_summary"]
    assert summary["outcomes"] == {"not-reproduced": 1}
    assert summary["sources"] == ["ReScience C"]
    (v,) = data["verdicts"]
    assert v["as_written"] == "[¬Re]" and v["method"] == "journal review of a replication"
    assert any(link.startswith("https://openreview.net/") for link in v["links"])


def test_passport_text_and_web_json_agree(store_dir: tuple[Path, str]) -> None:
    d, original = store_dir
    code, text = _run("passport", original, "--store", str(d))
    assert code == 0
    # the answer first, one line per kind of evidence, in the kind's own words
    assert "Was it reproduced?\n  replication by others: not reproduced (ReScience C 20" in text
    from fastapi.testclient import TestClient

    from reprokg.core.settings import Settings
    from reprokg.service.app import create_app

    with open_store(d, read_only=True) as s:
        app = create_app(Settings(store=str(d), access_log=False), store=s)
        with TestClient(app) as client:
            web = client.get("/paper", params={"iri": original, "format": "json"}).json()
    _, out = _run("passport", original, "--store", str(d), "--format", "json")
    assert web["verdict_summary"] == json.loads(out)["verdict_summary"]


def test_an_unknown_work_is_a_clear_error(store_dir: tuple[Path, str]) -> None:
    d, _ = store_dir
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["passport", "10.9999/nothing-here", "--store", str(d)])
    assert code != 0 and "nothing is known about" in err.getvalue()


def test_superseded_assessments_are_listed_not_counted() -> None:
    from reprokg.evidence.assessments import fold, summarise

    rk = "https://w3id.org/reprokg/ontology#"
    src = rk + "ComputedVerdicts"
    rows = [
        {"assessment": "a1", "concept": rk + "OutcomeNotReproduced", "source": src,
         "supersededBy": "a2"},
        {"assessment": "a2", "concept": rk + "OutcomeReproduced", "source": src, "dispute": "d1"},
    ]  # fmt: skip
    entries = fold(rows)
    s, decided = summarise(entries)
    assert s.outcomes == {"reproduced": 1}
    assert (s.superseded, s.disputed, len(entries)) == (1, 1, 2)
    assert decided[-1].first.assessment == "a1"  # superseded ones last


def test_named_query_reproduction_assessments(store_dir: tuple[Path, str]) -> None:
    """By DOI: the failed replication, reached through the report's rk:reproduces; the
    outcome filter keeps it for not-reproduced and drops it for reproduced."""
    d, original = store_dir
    base = ["query", "--store", str(d), "--read-only", "--name", "reproduction-assessments"]
    base += ["--format", "json", "--param", f"doi={original}"]
    code, out = _run(*base)
    assert code == 0
    rows = json.loads(out)["results"]["bindings"]
    assert [(r["outcome"]["value"], r["asWritten"]["value"]) for r in rows] == [
        ("not-reproduced", "[¬Re]")
    ]
    assert rows[0]["report"]["value"].startswith("https://doi.org/10.5281/zenodo.")
    _, out = _run(*base, "--param", "outcome=not-reproduced", "--param", "venue=ReScience C")
    assert len(json.loads(out)["results"]["bindings"]) == 1
    _, out = _run(*base, "--param", "outcome=reproduced")
    assert json.loads(out)["results"]["bindings"] == []


def _untitled_passport():
    """A passport as the README tour's paper has it: no title, a DBLP record, venue and
    year, one computed decision, two rows of one run, nothing else."""
    from reprokg.evidence.assessments import fold, summarise
    from reprokg.evidence.passport import Passport

    rk = "https://w3id.org/reprokg/ontology#"
    work = "https://doi.org/10.1007/978-3-030-15712-8_26"
    rows = [
        {"assessment": "a1", "concept": rk + "OutcomeInconclusive",
         "source": rk + "ComputedVerdicts", "rule": "arp-within-5pct"},
    ]  # fmt: skip
    summary, decided = summarise(fold(rows))
    facts = [
        {"property": "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
         "value": "http://schema.org/ScholarlyArticle"},
        {"property": rk + "dblp", "value": "https://dblp.org/rec/conf/ecir/YuXL19"},
        {"property": rk + "conferenceName", "value": "ECIR"},
        {"property": rk + "publicationYear", "value": 2019},
    ]  # fmt: skip
    runs = [{"run": "https://example.org/run/1", "comparison": c} for c in ("c1", "c2")]
    parts = {"reviews": [], "assessments": [], "audits": [], "runs": runs, "studies": [], "qra": []}
    return Passport(work, summary, decided, facts, parts=parts)


def test_passport_leads_with_title_and_identifiers_and_every_count_says_what() -> None:
    """Untitled said once; the identifiers by scheme; no count of nothing under the answer
    (the old "0 assessments" under one assessment), none unexplained ("7 facts")."""
    from reprokg.cli.passport import format_text

    text = format_text(_untitled_passport())
    lines = text.splitlines()
    assert lines[0] == "Untitled: no source in the graph gives this paper's title"
    assert (
        lines[1] == "DOI 10.1007/978-3-030-15712-8_26 · DBLP https://dblp.org/rec/conf/ecir/YuXL19"
    )
    assert lines[2] == "published in ECIR 2019" and lines[4].startswith("Was it reproduced?")
    assert text.count("no source") == 1 and "rule rule" not in text
    assert not re.search(r"(^|\s)0 \w", text), text  # no count of nothing
    assert "  1 runs whose ir_metadata header names it" in text  # one run, two rows
    assert "4 facts stated about it: type, DBLP record, conference name, publication year" in text
    assert "Not in the graph: authors; code-replicability reviews;" in text


def test_passport_json_in_the_same_order() -> None:
    """The JSON leads as the text does: title, identifiers, then the answer; counts say
    what they count."""
    data = _untitled_passport().to_json()
    assert list(data)[:6] == LEADING_KEYS
    counts = {c["part"]: c for c in data["counts"]}
    assert counts["runs"]["count"] == 1 and counts["facts"]["count"] == 4
    assert all(c["counts"] for c in data["counts"])
