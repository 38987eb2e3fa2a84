"""``reprokg study artifact-evaluation``: badge rates per venue and year with exact intervals.

The intervals are checked against R's ``binom.test`` (run with Rscript); the counts of a
venue and year against the raw ReproDB labels, counted here without the loader's table.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from reprokg.cli import main
from reprokg.studies.artifact_evaluation import clopper_pearson
from tests.conftest import REPO, need

AE = "artifact_evaluation"


@pytest.mark.parametrize(("k", "n"), [(27, 32), (0, 12), (12, 12), (1211, 2830), (3, 10)])
def test_clopper_pearson_equals_r_binom_test(k: int, n: int) -> None:
    need(shutil.which("Rscript") is not None, "Rscript is not installed")
    out = subprocess.run(
        ["Rscript", "-e", f"cat(sprintf('%.15f', binom.test({k}, {n})$conf.int))"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.split()
    lo, hi = clopper_pearson(k, n)
    assert (lo, hi) == pytest.approx((float(out[0]), float(out[1])), abs=1e-12)


def _study(store: Path, *params: str) -> dict:
    out = io.StringIO()
    args = ["study", "artifact-evaluation", "--store", str(store), "--format", "json"]
    with contextlib.redirect_stdout(out):
        assert main([*args, *(x for p in params for x in ("--param", p))]) == 0
    return json.loads(out.getvalue())


@pytest.fixture(scope="module")
def stored(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every artifact-evaluation source (ReproDB and the results pages) in one store,
    loaded once for the module (~30 s)."""
    store = tmp_path_factory.mktemp("ae") / "store"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["evidence", "load", "--store", str(store), str(shared_data / AE)]) == 0
    return store


@pytest.fixture(scope="module")
def result(stored: Path) -> dict:
    return _study(stored)


@pytest.mark.slow
def test_badge_rates_from_the_stored_reprodb(shared_data: Path, result: dict) -> None:
    f = shared_data / AE / "reprodb/artifacts.json"
    raw = json.loads(f.read_text("utf-8"))
    osdi = [r for r in raw if r["conference"] == "OSDI" and r["year"] == 2023]
    row = next(r for r in result["per_venue_year"] if (r["venue"], r["year"]) == ("OSDI", 2023))
    assert row["evaluated_artifacts"] == len(osdi) == 32
    reproduced = sum("reproduced" in r["badges"] for r in osdi)  # labels as written: 27
    assert row["results_reproduced"]["k"] == reproduced == 27
    assert row["badges"]["available"]["k"] == sum("available" in r["badges"] for r in osdi)
    lo, hi = clopper_pearson(27, 32)
    assert (row["results_reproduced"]["ci_low"], row["results_reproduced"]["ci_high"]) == (lo, hi)
    # WOOT 2021, the highest rate: its 4 records each carry NISO's ROR-R as written
    woot = [r for r in raw if r["conference"] == "WOOT" and r["year"] == 2021]
    row = next(r for r in result["per_venue_year"] if (r["venue"], r["year"]) == ("WOOT", 2021))
    assert row["results_reproduced"]["k"] == sum("ROR-R" in r["badges"] for r in woot) == 4
    assert row["evaluated_artifacts"] == len(woot) == 4
    # ACSAC 2024: 'reproducible' is ACSAC's results badge (29 of 53 records)
    acsac = next(r for r in result["per_venue_year"] if (r["venue"], r["year"]) == ("ACSAC", 2024))
    assert (acsac["results_reproduced"]["k"], acsac["evaluated_artifacts"]) == (29, 53)
    # overall: 1,211 results badges among 2,830 artifacts (one exact copy skipped)
    assert (
        result["overall"]["results_reproduced"]["k"],
        result["overall"]["evaluated_artifacts"],
    ) == (
        1211,
        2830,
    )


def _pct(x: float) -> str:
    """A rate as the doc writes it: one decimal, ``100`` and ``0`` without one."""
    text = f"{100 * x:.1f}"
    return text[:-2] if text in ("100.0", "0.0") else text


#: the results paragraph of the study in docs/studies.md
_DOC_RE = re.compile(
    r"\*artifact-evaluation\* \(ReproDB, (?P<n>[\d,]+) artifacts after one exact copy\): "
    r"(?P<rate>[\d.]+)% \[(?P<lo>[\d.]+), (?P<hi>[\d.]+)\]\s+carry a results badge "
    r"\((?P<k>[\d,]+)\); by venue and year \((?P<vy>\d+) venue-years\) from 0% in "
    r"(?P<zero>\d+) of them\s+\((?P<nobadge>\d+) whose records carry no badge at all: "
    r"(?P<nobadge_names>[^;]+); (?P<other>\d+) whose\s+badges include no results badge, "
    r"e\.g\. ACSAC before (?P<acsac>\d{4})\) to (?P<top>[\d.]+)% \[(?P<top_lo>[\d.]+), "
    r"(?P<top_hi>[\d.]+)\] \((?P<top_venue>\w+) (?P<top_year>\d{4}),\s+(?P<top_k>\d+) of "
    r"(?P<top_n>\d+)\); of the venue-years with at least (?P<min_n>\d+) artifacts the highest "
    r"is (?P<big_venue>\w+) (?P<big_year>\d{4}), (?P<big>[\d.]+)%\s+\[(?P<big_lo>[\d.]+), "
    r"(?P<big_hi>[\d.]+)\] \((?P<big_k>\d+) of (?P<big_n>\d+)\)\. The results pages of "
    r"(?P<pages>\d+) venue-years give the same counts as\s+ReproDB for those rounds\."
)


def _num(text: str) -> int:
    return int(text.replace(",", ""))


@pytest.mark.slow
def test_docs_studies_numbers_are_the_studys_output(stored: Path, result: dict) -> None:
    """Issue 39: docs/studies.md said the rates go "to 84.4% (OSDI 2023)"; the data's
    highest is WOOT 2021, 4 of 4. Every number of the paragraph is read out of the doc
    and compared with the study's output, so a changed doc or result fails here."""
    m = _DOC_RE.search((REPO / "docs" / "studies.md").read_text("utf-8"))
    assert m, "the artifact-evaluation results paragraph of docs/studies.md changed form"
    d = m.groupdict()
    overall = result["overall"]["results_reproduced"]
    assert _num(d["n"]) == result["overall"]["evaluated_artifacts"] == overall["n"]
    assert _num(d["k"]) == overall["k"]
    assert (d["rate"], d["lo"], d["hi"]) == tuple(
        _pct(overall[x]) for x in ("rate", "ci_low", "ci_high")
    )
    rows = result["per_venue_year"]
    assert int(d["vy"]) == len(rows)
    zero = [r for r in rows if r["results_reproduced"]["k"] == 0]
    no_badge = [r for r in zero if r["without_badge"] == r["evaluated_artifacts"]]
    assert int(d["zero"]) == len(zero)
    assert (int(d["nobadge"]), int(d["other"])) == (len(no_badge), len(zero) - len(no_badge))
    named = {r["venue"] for r in no_badge} | {f"{r['venue']} {r['year']}" for r in no_badge}
    pets = {r["year"] for r in no_badge if r["venue"] == "PETS"}
    assert pets == {r["year"] for r in rows if r["venue"] == "PETS" and r["year"] < 2025}
    for name in ("CHES", "PETS", "WOOT 2022"):
        assert name in d["nobadge_names"] and name in named
    acsac = {r["year"] for r in zero if r["venue"] == "ACSAC"}
    assert acsac and max(acsac) + 1 == int(d["acsac"])

    def rate(r: dict) -> tuple[float, int]:
        return r["results_reproduced"]["rate"], r["evaluated_artifacts"]

    for prefix, pool in (
        ("top", rows),
        ("big", [r for r in rows if r["evaluated_artifacts"] >= int(d["min_n"])]),
    ):
        best = max(pool, key=rate)
        rr = best["results_reproduced"]
        assert (d[f"{prefix}_venue"], int(d[f"{prefix}_year"])) == (best["venue"], best["year"])
        assert (int(d[f"{prefix}_k"]), int(d[f"{prefix}_n"])) == (rr["k"], rr["n"])
        assert (d[prefix], d[f"{prefix}_lo"], d[f"{prefix}_hi"]) == tuple(
            _pct(rr[x]) for x in ("rate", "ci_low", "ci_high")
        )
    pages = _study(stored, "source=results-pages")["per_venue_year"]
    assert int(d["pages"]) == len(pages)
    by_key = {(r["venue"], r["year"]): r for r in rows}
    for r in pages:
        same = by_key[(r["venue"], r["year"])]
        assert (r["results_reproduced"]["k"], r["evaluated_artifacts"]) == (
            same["results_reproduced"]["k"],
            same["evaluated_artifacts"],
        )
