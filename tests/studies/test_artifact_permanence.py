"""``reprokg study artifact-permanence`` and the named query ``reproduced-then-unreachable``.

The reference is ReproDB's two raw files read here with plain ``json``: the join of a
checked URL to an artifact record, the badge levels (a table of the labels as ReproDB
writes them, from docs/badge-normalisation.md) and the hosts are written out again in this
file, not taken from the loaders or the study. The intervals are checked against
statsmodels' ``proportion_confint(method="beta")`` (and R's ``binom.test`` when Rscript is
installed).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import subprocess
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from reprokg.cli import main
from reprokg.studies.artifact_permanence import host, share
from tests.conftest import need

REPRODB = "artifact_evaluation/reprodb"

#: ReproDB's badge labels (lower-cased) by level, as docs/badge-normalisation.md reads them
RESULTS = {"reproduced", "reproducible", "ror-r"}
EVALUATED = {
    "functional",
    "badges: functional",
    "reusable",
    "artifact evaluated",
    "reviewed",
    "ror",
    "artifacts available + functional",
    "artifacts available + functional + reusable",
}
AVAILABLE = {"available", "badges: available", "artifacts available", "oro"}


def raw_level(badges: list[str]) -> str:
    labels = {b.strip().lower() for b in badges}
    if labels & RESULTS:
        return "results reproduced or replicated"
    if labels & EVALUATED:
        return "functional or reusable"
    if labels & AVAILABLE:
        return "available only"
    return "no badge"


_DOI = re.compile(r"^(?:https?://)?(?:dx\.)?doi\.org/(10\.\S+)$|^(10\.\d{4,9}/\S+)$", re.I)


def raw_location(text: str | None) -> str | None:
    """A URL as the graph names it: a DOI (bare or a doi.org URL) as https://doi.org/<lower>,
    a single http(s) URL as written, anything else (two URLs in one field, git@…) none."""
    text = (text or "").strip()
    m = _DOI.match(text)
    if m:
        return "https://doi.org/" + (m.group(1) or m.group(2)).rstrip(".,;").lower()
    return text if re.match(r"^https?://\S+$", text) else None


def raw_units(folder: Path) -> list[dict[str, Any]]:
    """One unit per (artifact record, checked location of it), records that are exact copies
    counted once — counted from the raw files alone."""
    checks = json.loads((folder / "artifact_availability.json").read_text("utf-8"))
    accessible: dict[str, bool] = {}
    for c in checks["records"]:
        loc = raw_location(c["url"])
        if loc is not None:
            accessible[loc] = accessible.get(loc, True) and c["accessible"]
    seen: set[str] = set()
    units = []
    for r in json.loads((folder / "artifacts.json").read_text("utf-8")):
        copy = json.dumps(r, sort_keys=True)
        if copy in seen:
            continue
        seen.add(copy)
        locs = {raw_location(u) for u in [*r["artifact_urls"], r["doi"]]} - {None}
        for loc in sorted(x for x in locs if x in accessible):
            units.append(
                {
                    "title": r["title"],
                    "venue": r["conference"],
                    "year": r["year"],
                    "level": raw_level(r["badges"]),
                    "host": host(loc),
                    "location": loc,
                    "accessible": accessible[loc],
                }
            )
    return units


@pytest.mark.parametrize(("k", "n"), [(30, 1067), (0, 9), (9, 9), (2476, 2554), (5, 9)])
def test_share_interval_equals_statsmodels_and_r(k: int, n: int) -> None:
    from statsmodels.stats.proportion import proportion_confint

    got = share(k, n)
    lo, hi = proportion_confint(k, n, alpha=0.05, method="beta")
    assert (got["ci_low"], got["ci_high"]) == pytest.approx((lo, hi), abs=1e-10)
    if shutil.which("Rscript"):
        out = subprocess.run(
            ["Rscript", "-e", f"cat(sprintf('%.15f', binom.test({k}, {n})$conf.int))"],
            capture_output=True, text=True, check=True, timeout=60,
        ).stdout.split()  # fmt: skip
        assert (got["ci_low"], got["ci_high"]) == pytest.approx(
            (float(out[0]), float(out[1])), abs=1e-9
        )


def test_host_from_the_url() -> None:
    assert host("https://github.com/AddrMiner/AddrMiner") == "GitHub"
    assert host("https://doi.org/10.5281/zenodo.6544966") == "Zenodo"
    assert host("https://zenodo.org/records/14643448") == "Zenodo"
    assert host("https://doi.org/10.6084/m9.figshare.19721692") == "Figshare"
    assert host("https://doi.org/10.17605/osf.io/pqh84") == "other DOI"
    assert host("https://gitlab.inria.fr/nest-public/nest-artifact") == "other (personal, " \
        "institutional and other pages)"  # fmt: skip
    assert host("https://openproxies-acsac18.github.io/").startswith("other")


@pytest.fixture(scope="module")
def store(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ReproDB's artifacts and its link checks, loaded by ``reprokg evidence load`` (~50 s)."""
    folder = shared_data / REPRODB
    need((folder / "artifact_availability.json").is_file(), "ReproDB's link checks missing")
    d = tmp_path_factory.mktemp("permanence") / "store"
    files = [str(folder / "artifacts.json"), str(folder / "artifact_availability.json")]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["evidence", "load", "--store", str(d), *files]) == 0
    return d


def _run(*args: str) -> Any:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([*args, "--format", "json"]) == 0
    return json.loads(out.getvalue())


def _counts(units: list[dict[str, Any]], key: str) -> dict[Any, tuple[int, int]]:
    n: Counter[Any] = Counter(u[key] for u in units)
    up: Counter[Any] = Counter(u[key] for u in units if u["accessible"])
    return {g: (n[g], up[g]) for g in n}


@pytest.mark.slow
def test_the_study_equals_the_count_from_the_raw_files(store: Path, shared_data: Path) -> None:
    units = raw_units(shared_data / REPRODB)
    checks = json.loads((shared_data / REPRODB / "artifact_availability.json").read_text())
    assert len(checks["records"]) == 2562  # ReproDB's own total
    assert sum(not c["accessible"] for c in checks["records"]) == 83
    got = _run("study", "artifact-permanence", "--store", str(store))
    assert got["n_locations"] == len(units)
    o = got["overall"]["reachable"]
    assert (o["n"], o["k"]) == (len(units), sum(u["accessible"] for u in units))
    for key, field in (
        ("by_badge_level", "level"),
        ("by_venue", "venue"),
        ("by_year", "year"),
        ("by_host", "host"),
    ):
        mine = {r[field]: (r["reachable"]["n"], r["reachable"]["k"]) for r in got[key]}
        assert mine == _counts(units, field), key
        for r in got[key]:
            assert r["unreachable"] == r["reachable"]["n"] - r["reachable"]["k"]
    down = [u for u in units if u["level"].startswith("results") and not u["accessible"]]
    assert got["results_badge_unreachable"]["locations"] == len(down)


@pytest.mark.slow
def test_reproduced_then_unreachable_names_the_raw_papers(store: Path, shared_data: Path) -> None:
    """The meta-researcher's question answers with rows: the papers are those a plain count
    of the raw files finds (Results Reproduced label, a checked location unreachable)."""
    units = raw_units(shared_data / REPRODB)
    want = {
        (u["venue"], u["year"], u["title"], u["location"])
        for u in units
        if u["level"].startswith("results") and not u["accessible"]
    }
    got = _run("query", "--store", str(store), "--name", "reproduced-then-unreachable")
    rows = {
        (b["venue"]["value"], int(b["year"]["value"]), b["title"]["value"], b["location"]["value"])
        for b in got["results"]["bindings"]
    }
    assert rows and rows == want
    by_venue = _run(
        "query", "--store", str(store), "--name", "reproduced-then-unreachable",
        "--param", "venue=ACSAC",
    )  # fmt: skip
    acsac = {b["location"]["value"] for b in by_venue["results"]["bindings"]}
    assert acsac == {loc for v, _, _, loc in want if v == "ACSAC"} and acsac


def test_the_issue_count_by_title_and_what_the_graph_cannot_join(shared_data: Path) -> None:
    """The issue's figures (83 unreachable, 31 behind a results badge) join checks to
    artifacts by title; the graph joins by location. The 5 unreachable checks no location
    joins are ReproDB's malformed URL fields (two URLs in one field, ``ttps://``): the check
    failed on the field, not on a dead artifact; one of them is behind a results badge."""
    folder = shared_data / REPRODB
    need((folder / "artifact_availability.json").is_file(), "ReproDB's link checks missing")
    checks = json.loads((folder / "artifact_availability.json").read_text("utf-8"))["records"]
    artifacts = json.loads((folder / "artifacts.json").read_text("utf-8"))
    by_title: dict[tuple[str, int, str], list[dict[str, Any]]] = defaultdict(list)
    for r in artifacts:
        by_title[(r["conference"], r["year"], r["title"])].append(r)
    down = [c for c in checks if not c["accessible"]]
    behind = [
        c
        for c in down
        if any(raw_level(r["badges"]).startswith("results")
               for r in by_title[(c["conference"], c["year"], c["title"])])
    ]  # fmt: skip
    assert (len(down), len(behind)) == (83, 31)
    joined = {u["location"] for u in raw_units(folder)}
    unjoined = [c["url"] for c in down if raw_location(c["url"]) not in joined]
    assert len(unjoined) == 5
    assert all(" " in u or not u.startswith("http") for u in unjoined)
    assert [c["url"] for c in behind if raw_location(c["url"]) not in joined] == [
        "ttps://doi.org/10.5281/zenodo.14694832"
    ]
