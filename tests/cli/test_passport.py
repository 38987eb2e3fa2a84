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
    assert list(data)[:3] == ["paper", "verdict_summary", "verdicts"]
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
