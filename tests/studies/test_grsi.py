"""Stamped vs unstamped reviews, joined by DOI in the graph, against the two JSON files
joined here: the 2×2 table and score samples by the study's rules, p-values from R
(``fisher.test``, ``wilcox.test``) and Fisher's test written with ``math.comb``."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest

from reprokg.studies import grsi
from reprokg.studies.registry import GRSI_STAMPS
from tests.conftest import need
from tests.studies.stores import GRSI_JSON, SIGGRAPH, studies_store

pytestmark = pytest.mark.slow  # the study's store its fixture loads

SCORE = "Feedbacks [could reproduce results (5=highly confident)]"
TEST = "Did I manage to perform a complete test (deps/build)?"
AVAIL = "Is the code or software publicly available ?"


@pytest.fixture(scope="module")
def data(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple:
    records = json.loads((shared_data / SIGGRAPH).read_text("utf-8"))
    stamps = json.loads((shared_data / GRSI_JSON).read_text("utf-8"))
    store = studies_store(shared_data, tmp_path_factory.mktemp("studies-store"))
    res = {m.name: GRSI_STAMPS.run(store, m.name).to_json() for m in GRSI_STAMPS.methods}
    return records, stamps, res


def oracle(records: list, stamps: list, method: str) -> tuple:
    dois = {s["doi"].lower() for s in stamps}
    rows = [r for r in records if int(r["Year"]) in (2016, 2018)]
    st = [r["DOI"].lower() in dois for r in rows]
    sh = [r[AVAIL] == "Yes" for r in rows]
    pairs = list(zip(st, sh, strict=True))
    table = [
        [sum(a and b for a, b in pairs), sum(a and not b for a, b in pairs)],
        [sum(b and not a for a, b in pairs), sum(not a and not b for a, b in pairs)],
    ]
    x, y = [], []
    for r, s_, c in zip(rows, st, sh, strict=True):
        if not (c and r[TEST] == "Yes"):
            continue
        v = r[SCORE]
        if isinstance(v, int):
            val = float(v)
        elif method == "published":
            val = 0.0
        else:
            continue
        (x if s_ else y).append(val)
    return table, x, y


def fisher_by_hand(table: list[list[int]]) -> float:
    (a, b), (c, d) = table
    n, r1, c1 = a + b + c + d, a + b, a + c

    def prob(k: int) -> float:
        return math.comb(c1, k) * math.comb(n - c1, r1 - k) / math.comb(n, r1)

    p_obs = prob(a)
    ks = range(max(0, r1 + c1 - n), min(r1, c1) + 1)
    return sum(prob(k) for k in ks if prob(k) <= p_obs * (1 + 1e-7))


def test_the_join_finds_twelve_stamped_papers_by_doi(data: tuple) -> None:
    records, stamps, res = data
    dois = {s["doi"].lower() for s in stamps}
    assert sum(r["DOI"].lower() in dois for r in records) == 12
    r = res["published"]
    assert r["n_stamped"] == 12 and r["n_reviews"] == 374
    assert r["stamped_by_year"] == {"2016": 3, "2018": 9}
    assert r["years"] == [2016, 2018]
    # the survey's own flag (its answer or the site's title list) agrees on all twelve
    assert r["survey_flag_vs_grsi"] == {"both": 12, "survey_only": 1, "grsi_only": 0}


@pytest.mark.parametrize("method", ["published", "corrected"])
def test_the_statistic_matches_the_oracle_and_r(data: tuple, method: str) -> None:
    records, stamps, res = data
    table, x, y = oracle(records, stamps, method)
    r = res[method]
    assert r["method"] == method
    assert r["code_shared"]["table"] == table
    assert r["code_shared"]["n"] == sum(map(sum, table))
    assert r["code_shared"]["fisher_p"] == pytest.approx(fisher_by_hand(table), rel=1e-9)
    rs = r["replication_score"]
    assert (rs["n_stamped"], rs["n_unstamped"], rs["n"]) == (len(x), len(y), len(x) + len(y))
    rscript = shutil.which("Rscript")
    need(rscript is not None, "Rscript (R) is not installed")
    code = (
        f"t <- matrix(c({table[0][0]},{table[1][0]},{table[0][1]},{table[1][1]}), 2);"
        f"x <- c({','.join(map(str, x))}); y <- c({','.join(map(str, y))});"
        "w <- suppressWarnings(wilcox.test(x, y));"
        'cat(sprintf("%.17g", c(fisher.test(t)$p.value, w$statistic, w$p.value)))'
    )
    out = subprocess.run([str(rscript), "-e", code], capture_output=True, text=True, check=True)
    fisher_p, w, p = map(float, out.stdout.split())
    assert r["code_shared"]["fisher_p"] == pytest.approx(fisher_p, rel=1e-9)
    assert rs["statistic"] == w
    assert rs["p"] == pytest.approx(p, rel=1e-9)


def test_reads_the_named_query(data: tuple) -> None:
    _, _, res = data
    assert res["published"]["provenance"]["named_query"] == "stamped-reviews"
    assert "rk:ReplicabilityStampGrant" in res["published"]["provenance"]["sparql"]
    assert "VALUES" in res["published"]["provenance"]["sparql"]  # the survey, bound as a term


def test_fisher_exact_small_tables() -> None:
    # the lady tasting tea: [[3, 1], [1, 3]] -> two-sided p = 0.4857 (Fisher 1935)
    assert grsi.fisher_exact([[3, 1], [1, 3]]) == pytest.approx(34 / 70)
    assert grsi.fisher_exact([[4, 0], [0, 4]]) == pytest.approx(2 / 70)
