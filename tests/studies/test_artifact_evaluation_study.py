"""``reprokg study artifact-evaluation``: badge rates per venue and year with exact intervals.

The intervals are checked against R's ``binom.test`` (run with Rscript); the counts of a
venue and year against the raw ReproDB labels, counted here without the loader's table.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from reprokg.cli import main
from reprokg.studies.artifact_evaluation import clopper_pearson
from tests.conftest import need

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


@pytest.mark.slow
def test_badge_rates_from_the_stored_reprodb(shared_data: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    f = shared_data / AE / "reprodb/artifacts.json"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["evidence", "load", "--store", str(store), str(f)]) == 0
        out.truncate(0)
        out.seek(0)
        assert (
            main(["study", "artifact-evaluation", "--store", str(store), "--format", "json"]) == 0
        )
    result = json.loads(out.getvalue())
    raw = json.loads(f.read_text("utf-8"))
    osdi = [r for r in raw if r["conference"] == "OSDI" and r["year"] == 2023]
    row = next(r for r in result["per_venue_year"] if (r["venue"], r["year"]) == ("OSDI", 2023))
    assert row["evaluated_artifacts"] == len(osdi) == 32
    reproduced = sum("reproduced" in r["badges"] for r in osdi)  # labels as written: 27
    assert row["results_reproduced"]["k"] == reproduced == 27
    assert row["badges"]["available"]["k"] == sum("available" in r["badges"] for r in osdi)
    lo, hi = clopper_pearson(27, 32)
    assert (row["results_reproduced"]["ci_low"], row["results_reproduced"]["ci_high"]) == (lo, hi)
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
