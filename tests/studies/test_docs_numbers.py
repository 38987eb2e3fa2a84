"""docs/studies.md's "Results on the real data" read against the studies' output (issue 39).

Each number a paragraph quotes is read out of the doc with a regular expression and
compared with what the study computes on the real data (the studies' shared store), so a
changed doc or a changed result fails here. The artifact-evaluation paragraph is checked
in test_artifact_evaluation_study.py (it needs the full ReproDB in its own store).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from reprokg.studies.registry import REGISTRY
from tests.conftest import REPO
from tests.studies.stores import studies_store

pytestmark = pytest.mark.slow  # the studies' store its fixture loads


@pytest.fixture(scope="module")
def doc() -> str:
    """docs/studies.md with its line breaks and runs of spaces made one space."""
    return " ".join((REPO / "docs" / "studies.md").read_text("utf-8").split())


@pytest.fixture(scope="module")
def results(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    store = studies_store(shared_data, tmp_path_factory.mktemp("studies-store"))
    return {
        name: {m.name: REGISTRY[name].run(store, m.name).to_json() for m in REGISTRY[name].methods}
        for name in ("gk2018", "pwc-checklist-2019", "audits", "grsi-stamps")
    }


def _para(doc: str, name: str) -> str:
    """The results paragraph of study ``name`` (``- *name*: …`` up to the next item)."""
    results = doc[doc.index("**Results on the real data**") :]
    m = re.search(rf"- \*{re.escape(name)}\*:? (.*?)(?= - \*|$)", results)
    assert m, f"docs/studies.md has no results paragraph for {name}"
    return m.group(1)


def _f(text: str) -> float:
    return float(text.replace(",", "").replace("−", "-"))


def _close(quoted: str, value: float) -> bool:
    """``value`` written to the digits ``quoted`` has (``0.0140``, ``5.9e-05``, ``196.5``)."""
    if "e" in quoted:
        mantissa = quoted.split("e")[0]
        digits = len(mantissa.split(".")[1]) if "." in mantissa else 0
        return f"{value:.{digits}e}" == quoted
    digits = len(quoted.split(".")[1]) if "." in quoted else 0
    return f"{value:.{digits}f}" == f"{_f(quoted):.{digits}f}"


def test_gk2018_paragraph(doc: str, results: dict[str, Any]) -> None:
    p = _para(doc, "gk2018")
    r = results["gk2018"]["published"]
    m = re.search(r"(\d+) experimental of (\d+) papers", p)
    assert m and (int(m[1]), int(m[2])) == (r["n"], r["n_papers"])
    quoted = re.findall(r"(R1D|R2D|R3D|DataD|ExpD) ([\d.]+) \((?:variance )?([\d.]+)\)", p)
    assert [q[0] for q in quoted] == ["R1D", "R2D", "R3D", "DataD", "ExpD"]
    for name, mean, variance in quoted:
        assert _close(mean, r["degrees"][name]["mean"]), name
        assert _close(variance, r["degrees"][name]["variance"]), name
    m = re.search(r"R1 = R2 = R3 = (\d+) papers satisfied \(Data alone: (\d+)\)", p)
    assert m and {r["satisfied"][k] for k in ("R1", "R2", "R3")} == {int(m[1])}
    assert r["satisfied_factors"]["Data"] == int(m[2])
    m = re.search(r"2013/14 R1D ([\d.]+) → 2016 ([\d.]+); (\w+ \d+) highest \(R1D ([\d.]+)\)", p)
    assert m
    assert _close(m[1], r["by_period"]["2013/14"]["degrees"]["R1D"]["mean"])
    assert _close(m[2], r["by_period"]["2016"]["degrees"]["R1D"]["mean"])
    conf = r["by_conference"]
    best = max(conf, key=lambda c: conf[c]["degrees"]["R1D"]["mean"])
    assert m[3] == best and _close(m[4], conf[best]["degrees"]["R1D"]["mean"])


def test_pwc_checklist_paragraph(doc: str, results: dict[str, Any]) -> None:
    p = _para(doc, "pwc-checklist-2019")
    r = results["pwc-checklist-2019"]["published"]
    m = re.search(r"(\d+) Python repositories of (\d+)", p)
    assert m and (int(m[1]), int(m[2])) == (int(r["n"]), int(r["n_repositories"]))
    m = re.search(
        r"median stars by ticks 0–5: ([\d.]+), ([\d.]+), ([\d.]+), ([\d.]+), "
        r"([\d.]+), \*\*([\d.]+)\*\*.*?mean ([\d,.]+)\)",
        p,
    )
    assert m
    for ticks in range(6):
        assert _close(m[ticks + 1], r["by_score"][str(ticks)]["median"]), ticks
    assert _close(m[7], r["by_score"]["5"]["mean"])
    quoted = re.findall(r"(\w+) ([+−-][\d.]+)(?: stars)? \(t = ([−-]?[\d.]+)\)", p)
    assert {q[0] for q in quoted} == set(r["rlm"]) - {"(Intercept)"}
    for term, estimate, t in quoted:
        assert _close(estimate.lstrip("+"), r["rlm"][term]["estimate"]), term
        assert _close(t, r["rlm"][term]["t"]), term
    m = re.search(
        r"5 ticks vs 0–4: p = ([\d.e-]+), ([\d.e-]+), ([\d.e-]+), ([\d.e-]+), ([\d.e-]+)", p
    )
    assert m
    for k in range(5):
        assert _close(m[k + 1], r["wilcoxon"][f"5 vs {k}"]["p"]), k


def test_audits_paragraph(doc: str, results: dict[str, Any]) -> None:
    p = _para(doc, "audits")
    r = results["audits"]["published"]
    m = re.search(
        r"(\d+) audits, (\d+) attributes asserted \(software (\d+) assertions, "
        r"computational result (\d+), data set (\d+); S1 in (\d+) of (\d+)\)",
        p,
    )
    assert m
    assert (int(m[1]), int(m[2])) == (r["n_audits"], len(r["frequencies"]))
    cat = r["by_category"]
    assert (int(m[3]), int(m[4]), int(m[5])) == (
        cat["software"],
        cat["computational result"],
        cat["data set"],
    )
    assert (int(m[6]), int(m[7])) == (r["frequencies"]["S1"], r["n_publications"])
    assert "pairwise incomparable" in p and r["order"] == []  # an antichain
    m = re.search(r"(\d+) formal concepts", p)
    assert m and int(m[1]) == len(r["concepts"])
    m = re.search(r"agree with the auditors (\d+) times, disagree once .*? unknown (\d+) times", p)
    summary = r["derived"]["summary"]
    assert m and (int(m[1]), 1, int(m[2])) == (
        summary["agree"],
        summary["disagree"],
        summary["unknown"],
    )


def test_grsi_paragraph(doc: str, results: dict[str, Any]) -> None:
    p = _para(doc, "grsi-stamps")
    pub, cor = results["grsi-stamps"]["published"], results["grsi-stamps"]["corrected"]
    m = re.search(
        r"(\d+) of the (\d+) reviewed papers hold a stamp \((\d+) of 2016, (\d+) of 2018\)", p
    )
    assert m
    assert (int(m[1]), int(m[2])) == (pub["n_stamped"], pub["n_reviews"])
    assert (int(m[3]), int(m[4])) == (
        pub["stamped_by_year"]["2016"],
        pub["stamped_by_year"]["2018"],
    )
    table = pub["code_shared"]["table"]
    m = re.search(
        r"all (\d+) shared code vs (\d+) of (\d+) unstamped papers of those years "
        r"\(Fisher p = ([\d.e-]+)\)",
        p,
    )
    assert m and table[0] == [int(m[1]), 0]
    assert (int(m[2]), int(m[3])) == (table[1][0], sum(table[1]))
    assert _close(m[4], pub["code_shared"]["fisher_p"])
    rs = pub["replication_score"]
    m = re.search(
        r"stamped median (\d+) vs (\d+) \(n = (\d+) vs (\d+)\), W = (\d+), "
        r"p = ([\d.]+) \(published rule; corrected: n = (\d+) unstamped, p = ([\d.]+)\)",
        p,
    )
    assert m
    assert (_f(m[1]), _f(m[2])) == (rs["median_stamped"], rs["median_unstamped"])
    assert (int(m[3]), int(m[4]), _f(m[5])) == (rs["n_stamped"], rs["n_unstamped"], rs["statistic"])
    assert _close(m[6], rs["p"])
    assert int(m[7]) == cor["replication_score"]["n_unstamped"]
    assert _close(m[8], cor["replication_score"]["p"])
