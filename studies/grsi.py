"""Graphics Replicability Stamps among the code-replicability reviews: a join by DOI.

What no single source shows: the stamp list of the Graphics Replicability Stamp Initiative
(Isenberg, BELIV 2024 data; loader ``grsi``) and the SIGGRAPH code-replicability reviews
(Bonneel et al. 2020; loader ``survey``) describe the same papers by the same DOI IRI
(``core.identifiers.doi_iri`` lower-cases both), so the named query
``queries/stamped-reviews.rq`` marks each review's paper as stamped or not in one SELECT.
Do stamped papers differ from unstamped ones of the same reviews?

* code shared: the 2×2 table stamped/unstamped × shared/not, **Fisher's exact test**,
  two-sided with R ``fisher.test``'s rule (sum the tables no more probable than the
  observed one, relative tolerance 1e-7). The stamped group is small (12 of the 247
  papers of 2016 and 2018), so the expected counts of its row are near 5, where Pearson's
  χ² is unreliable; it is shown beside it.
* replication score of shared codes whose test was completed: **Wilcoxon rank-sum**
  stamped vs unstamped with R's defaults for tied data (normal approximation, tie and
  continuity corrections; scores 0-5 are heavily tied), under the SIGGRAPH study's score
  rule (``published``: a non-numeric answer is 0; ``corrected``: left out).
* only the years in which stamped papers occur (the stamp started in 2016, so a 2014
  paper could not hold one when it was published).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import numpy as np
import pandas as pd
from scipy import stats as st

from reprokg.core.errors import UsageError
from reprokg.sparql.rows import select_rows
from reprokg.store.base import Store
from reprokg.studies.plugin import StudyValue
from reprokg.studies.registry import CORRECTED, GRSI_STAMPS, PUBLISHED
from reprokg.studies.study_result import StudyResult
from reprokg.survey.stats import midranks, rank_sum_normal

STUDY = GRSI_STAMPS
QUERY = "stamped-reviews"
SURVEYS = {
    "consolidated": "https://w3id.org/reprokg/ontology#ReplicabilityGraphics2020",
    "per-paper": "https://w3id.org/reprokg/ontology#ReplicabilityGraphicsSite",
}
COLUMNS = (
    "review",
    "paper",
    "survey",
    "year",
    "code_shared",
    "test_completed",
    "replication_score",
    "stamped",
    "survey_flag",
)


class Reviews(NamedTuple):
    """What the study reads: the named query's rows for one review data set, and the
    SPARQL that was run."""

    frame: pd.DataFrame
    sparql: str


@dataclass(frozen=True, kw_only=True)
class GrsiResult(StudyResult):
    """Stamped vs unstamped reviewed papers of the years a stamp occurs in."""

    STUDY: ClassVar[str] = GRSI_STAMPS.name

    years: list[int]
    n_reviews: int
    n_stamped: int
    stamped_by_year: dict[str, int]
    #: the 2x2 table, its rates and (when no margin is 0) Fisher's and chi-squared's p
    code_shared: dict[str, Any]
    #: group sizes and (when both groups have one) the rank-sum test
    replication_score: dict[str, Any]
    survey_flag_vs_grsi: dict[str, int]
    rules: list[str]
    provenance: dict[str, str]

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "years": self.years,
            "n_reviews": self.n_reviews,
            "n_stamped": self.n_stamped,
            "stamped_by_year": self.stamped_by_year,
            "code_shared": self.code_shared,
            "replication_score": self.replication_score,
            "survey_flag_vs_grsi": self.survey_flag_vs_grsi,
            "rules": self.rules,
            "provenance": self.provenance,
        }


def read(store: Store, survey: str = "consolidated") -> Reviews:
    """The named query's rows for one review data set, and the SPARQL that was run."""
    from reprokg.sparql.named import get_query

    if survey not in SURVEYS:
        raise UsageError(f"survey must be one of {', '.join(SURVEYS)}")
    sparql = get_query(QUERY).bind({"survey": SURVEYS[survey]})
    df = pd.DataFrame(select_rows(store, sparql))
    for col in COLUMNS:
        if col not in df.columns:
            df[col] = None
    return Reviews(df[list(COLUMNS)], sparql)


def is_empty(inputs: Reviews) -> bool:
    return inputs.frame.empty


def fisher_exact(table: list[list[int]]) -> float:
    """Two-sided p of Fisher's exact test on a 2×2 table, R ``fisher.test``'s rule."""
    (a, b), (c, d) = table
    row1, col1, n = a + b, a + c, a + b + c + d
    lo, hi = max(0, row1 + col1 - n), min(row1, col1)
    support = np.arange(lo, hi + 1)
    logp = st.hypergeom.logpmf(support, n, col1, row1)
    obs = st.hypergeom.logpmf(a, n, col1, row1)
    keep = logp <= obs + math.log1p(1e-7)
    return float(min(1.0, np.exp(logp[keep]).sum()))


def _flag(s: pd.Series) -> pd.Series:
    return s.map(lambda v: bool(v) if isinstance(v, bool | np.bool_) else False).astype(bool)


def analyze(inputs: Reviews, method: str = PUBLISHED, years: list[int] | None = None) -> GrsiResult:
    """Stamped vs unstamped reviewed papers: code shared (Fisher) and score (rank-sum)."""
    if method not in (PUBLISHED, CORRECTED):
        raise ValueError("method must be published or corrected")
    df, sparql = inputs
    df = df.copy()
    df["stamped"] = _flag(df["stamped"])
    df["code_shared"] = _flag(df["code_shared"])
    df["test_completed"] = _flag(df["test_completed"])
    df["year"] = pd.to_numeric(df["year"], errors="coerce")
    if years is None:
        years = sorted(int(y) for y in df.loc[df["stamped"], "year"].dropna().unique())
    sub = df[df["year"].isin(years)] if years else df
    shared, stamped = sub["code_shared"], sub["stamped"]
    table = [
        [int((stamped & shared).sum()), int((stamped & ~shared).sum())],
        [int((~stamped & shared).sum()), int((~stamped & ~shared).sum())],
    ]
    sharing: dict[str, Any] = {
        "table": table,
        "rows": ["stamped", "unstamped"],
        "columns": ["code shared", "not shared"],
        "rate_stamped": table[0][0] / sum(table[0]) if sum(table[0]) else None,
        "rate_unstamped": table[1][0] / sum(table[1]) if sum(table[1]) else None,
        "n": int(len(sub)),
    }
    if all(sum(r) for r in table) and all(table[0][j] + table[1][j] for j in (0, 1)):
        chi2, chi2_p, _, expected = st.chi2_contingency(np.array(table), correction=False)
        sharing.update(
            {
                "fisher_p": fisher_exact(table),
                "chi2": float(chi2),
                "chi2_p": float(chi2_p),
                "min_expected": float(expected.min()),
                "test": "Fisher's exact test, two-sided (R fisher.test); Pearson chi-squared "
                "without continuity correction beside it",
            }
        )
    tested = sub[shared & sub["test_completed"]]
    score = pd.to_numeric(tested["replication_score"], errors="coerce")
    if method == PUBLISHED:
        score = score.fillna(0.0)
    else:
        keep = score.notna()
        tested, score = tested[keep], score[keep]
    x = score[tested["stamped"]].to_numpy(float)
    y = score[~tested["stamped"]].to_numpy(float)
    scores: dict[str, Any] = {"n_stamped": len(x), "n_unstamped": len(y), "n": len(x) + len(y)}
    if len(x) and len(y):
        u, z, p = rank_sum_normal(x, y, correct=True)
        scores.update(
            {
                "median_stamped": float(np.median(x)),
                "median_unstamped": float(np.median(y)),
                "mean_stamped": float(x.mean()),
                "mean_unstamped": float(y.mean()),
                "statistic": u,
                "z": z,
                "p": p,
                "rank_sum_stamped": float(midranks(np.concatenate([x, y]))[: len(x)].sum()),
                "test": "Wilcoxon rank sum test with continuity correction (normal "
                "approximation, tie-corrected variance; R wilcox.test with ties); statistic "
                "= W of the stamped group",
            }
        )
    flag = _flag(df["survey_flag"])
    return GrsiResult(
        method=method,
        years=years,
        n_reviews=int(len(df)),
        n_stamped=int(df["stamped"].sum()),
        stamped_by_year={
            str(int(k)): int(v)
            for k, v in df.loc[df["stamped"], "year"].value_counts().sort_index().items()
        },
        code_shared=sharing,
        replication_score=scores,
        survey_flag_vs_grsi={
            "both": int((flag & df["stamped"]).sum()),
            "survey_only": int((flag & ~df["stamped"]).sum()),
            "grsi_only": int((~flag & df["stamped"]).sum()),
        },
        rules=list(STUDY.method(method).rules),
        provenance={"sparql": sparql, "named_query": QUERY},
    )


def format_table(result: GrsiResult) -> str:
    cs, rs = result.code_shared, result.replication_score
    lines = [
        f"Stamped (GRSI list) vs unstamped among {result.n_reviews} reviews: "
        f"{result.n_stamped} stamped {result.stamped_by_year} (method: {result.method})",
        f"years compared: {', '.join(map(str, result.years))}",
        "",
        f"code shared: stamped {cs['table'][0][0]}/{sum(cs['table'][0])}, unstamped "
        f"{cs['table'][1][0]}/{sum(cs['table'][1])}",
    ]
    if "fisher_p" in cs:
        lines.append(
            f"  Fisher exact p = {cs['fisher_p']:.4g}  (chi-squared {cs['chi2']:.3f}, "
            f"p = {cs['chi2_p']:.4g}, smallest expected count {cs['min_expected']:.1f})"
        )
    lines.append(
        f"replication score of tested codes: stamped n={rs['n_stamped']}, unstamped "
        f"n={rs['n_unstamped']}"
    )
    if "p" in rs:
        lines.append(
            f"  medians {rs['median_stamped']:.1f} vs {rs['median_unstamped']:.1f}, means "
            f"{rs['mean_stamped']:.2f} vs {rs['mean_unstamped']:.2f}; W = {rs['statistic']:.1f}, "
            f"p = {rs['p']:.4g}"
        )
    f = result.survey_flag_vs_grsi
    lines.append(
        f"survey's own stamp flag vs the GRSI list: both {f['both']}, survey only "
        f"{f['survey_only']}, list only {f['grsi_only']}"
    )
    return "\n".join(lines)


def values(result: GrsiResult) -> list[StudyValue]:
    out = []
    cs, rs = result.code_shared, result.replication_score
    if "fisher_p" in cs:
        out.append(
            StudyValue(
                name="code_shared.fisher",
                description="Fisher's exact test, code shared, stamped vs unstamped",
                statistic=cs["rate_stamped"],
                p=cs["fisher_p"],
                n=cs["n"],
            )
        )
    if "p" in rs:
        out.append(
            StudyValue(
                name="replication_score.wilcoxon",
                description=rs["test"],
                statistic=rs["statistic"],
                p=rs["p"],
                n=rs["n"],
            )
        )
    return out


def charts(result: GrsiResult, inputs: Reviews, fmt: str = "svg") -> dict[str, bytes]:
    from reprokg.studies import plots

    t = result.code_shared["table"]
    rates = [r[0] / sum(r) * 100 if sum(r) else 0.0 for r in t]
    return {
        "grsi-stamps-code_shared": plots.render(
            lambda: plots.bars(
                ["stamped", "unstamped"],
                rates,
                ylabel="papers sharing code (%)",
                title=f"Code shared, SIGGRAPH {', '.join(map(str, result.years))} papers",
                notes=[f"{r[0]}/{sum(r)}" for r in t],
            ),
            fmt,
        )
    }
