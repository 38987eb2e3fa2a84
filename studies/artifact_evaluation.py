"""Artifact-evaluation badge rates per venue and year, with Clopper-Pearson intervals.

Reads the committees' assessments the ``artifact-evaluation`` loader stored (ReproDB's
``artifacts.json`` by default; ``source=results-pages`` for the sysartifacts/secartifacts
pages) and counts, per venue and year (and per venue, and overall), the evaluated
artifacts holding each badge class (:data:`CLASSES`, over the normalised ACM/NISO terms of
docs/badge-normalisation.md) and the share whose assessment is *reproduced* (a Results
Reproduced or Replicated badge) among the evaluated artifacts. Each share has its exact
two-sided 95% Clopper-Pearson interval (the beta quantiles of R's ``binom.test``). Where
ReproDB's ``papers.json`` lists the venue's papers, the share of papers with an evaluated
artifact is given beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypedDict

import pandas as pd

from reprokg.sparql.named import package_query
from reprokg.sparql.rows import select_rows
from reprokg.store.base import Store
from reprokg.studies.plugin import StudyValue
from reprokg.studies.study_result import StudyResult

QUERY = "studies/sparql/artifact_evaluation.rq"
PAPERS = "studies/sparql/artifact_evaluation_papers.rq"
RK = "https://w3id.org/reprokg/ontology#"
SOURCES = {"reprodb": RK + "ReproDB", "results-pages": RK + "ArtifactResultsPages"}
#: badge class -> the badge concepts that count for it
CLASSES: dict[str, tuple[str, ...]] = {
    "available": ("ACMArtifactsAvailable", "NISOOpenResearchObjects", "NISOOpenResearchObjectsAll"),
    "evaluated": (
        "ACMArtifactsEvaluated",
        "ACMArtifactsFunctional",
        "ACMArtifactsReusable",
        "NISOResearchObjectsReviewed",
    ),
    "reusable": ("ACMArtifactsReusable",),
    "reproduced": ("ACMResultsReproduced", "NISOResultsReproduced"),
    "replicated": ("ACMResultsReplicated", "NISOResultsReplicated"),
}
LEVEL = 0.95


def clopper_pearson(k: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """The exact two-sided interval of a binomial share k/n (R's ``binom.test``)."""
    from scipy.stats import beta

    if n == 0:
        return (0.0, 1.0)
    alpha = 1 - level
    lo = 0.0 if k == 0 else float(beta.ppf(alpha / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(beta.ppf(1 - alpha / 2, k + 1, n - k))
    return lo, hi


@dataclass
class Inputs:
    assessments: pd.DataFrame  # assessment, venue, year, outcome, classes (set)
    papers: pd.DataFrame  # paper, venue, year, evaluated


class Share(TypedDict):
    """k of n, the rate and its Clopper-Pearson interval (``None``: n is 0)."""

    k: int
    n: int
    rate: float | None
    ci_low: float
    ci_high: float


@dataclass(frozen=True, kw_only=True)
class ArtifactEvaluationResult(StudyResult):
    """Badge rates among evaluated artifacts, overall, per venue and per venue and year."""

    STUDY: ClassVar[str] = "artifact-evaluation"

    #: the intervals' confidence level
    level: float
    #: badge class -> the normalised terms it counts
    classes: dict[str, list[str]]
    #: evaluated_artifacts, badges {class: Share}, results_reproduced, without_badge
    overall: dict[str, Any]
    per_venue: list[dict[str, Any]]
    per_venue_year: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {
            "study": self.STUDY,
            "method": self.method,
            "level": self.level,
            "classes": self.classes,
            "overall": self.overall,
            "per_venue": self.per_venue,
            "per_venue_year": self.per_venue_year,
        }


def read(store: Store, source: str = "reprodb") -> Inputs:
    if source not in SOURCES:
        from reprokg.core.errors import UsageError

        raise UsageError(f"source must be one of {', '.join(SOURCES)}, got {source!r}")
    rows = select_rows(store, package_query(QUERY).bind({}))
    by: dict[str, dict[str, Any]] = {}
    for r in rows:
        if r.get("source") != SOURCES[source]:
            continue
        a = by.setdefault(
            r["assessment"],
            {
                "assessment": r["assessment"],
                "venue": r["venue"],
                "year": int(r["year"]),
                "reproduced": str(r["outcome"]) == RK + "OutcomeReproduced",
                "badges": set(),
            },
        )
        if r.get("badge", "").startswith(RK):
            a["badges"].add(r["badge"].removeprefix(RK))
    assessments = pd.DataFrame(
        list(by.values()), columns=["assessment", "venue", "year", "reproduced", "badges"]
    )
    papers = pd.DataFrame(
        select_rows(store, package_query(PAPERS).bind({})),
        columns=["paper", "venue", "year", "evaluated"],
    ).drop_duplicates("paper")
    return Inputs(assessments, papers)


def is_empty(inputs: Inputs) -> bool:
    return inputs.assessments.empty


def _share(k: int, n: int) -> Share:
    lo, hi = clopper_pearson(k, n)
    return {"k": k, "n": n, "rate": k / n if n else None, "ci_low": lo, "ci_high": hi}


def _group(df: pd.DataFrame) -> dict[str, Any]:
    n = len(df)
    out: dict[str, Any] = {"evaluated_artifacts": n, "badges": {}}
    for cls, terms in CLASSES.items():
        k = int(df["badges"].apply(lambda b, t=terms: bool(b & set(t))).sum())
        out["badges"][cls] = _share(k, n)
    out["results_reproduced"] = _share(int(df["reproduced"].sum()), n)
    out["without_badge"] = int(df["badges"].apply(lambda b: not b).sum())
    return out


def analyze(inputs: Inputs, method: str = "published") -> ArtifactEvaluationResult:
    df = inputs.assessments
    papers = inputs.papers
    per_venue_year = []
    for (venue, year), g in sorted(df.groupby(["venue", "year"])):
        row = {"venue": venue, "year": int(year), **_group(g)}
        p = papers[(papers.venue == venue) & (papers.year == year)]
        if len(p):
            row["papers_with_artifact"] = _share(int(p.evaluated.astype(bool).sum()), len(p))
        per_venue_year.append(row)
    per_venue = [{"venue": v, **_group(g)} for v, g in sorted(df.groupby("venue"))]
    return ArtifactEvaluationResult(
        method=method,
        level=LEVEL,
        classes={k: list(v) for k, v in CLASSES.items()},
        overall=_group(df),
        per_venue=per_venue,
        per_venue_year=per_venue_year,
    )


def _pct(s: Share) -> str:
    if s["rate"] is None:
        return "-"
    return f"{100 * s['rate']:5.1f}% [{100 * s['ci_low']:4.1f}, {100 * s['ci_high']:5.1f}]"


def format_table(result: ArtifactEvaluationResult) -> str:
    head = (
        f"{'venue':<11}{'year':>5}{'n':>6}  {'available':<22}{'evaluated':<22}"
        f"{'results reproduced':<22}"
    )
    lines = [
        "Badge rates among evaluated artifacts, 95% Clopper-Pearson intervals",
        head,
    ]
    for r in result.per_venue_year:
        lines.append(
            f"{r['venue']:<11}{r['year']:>5}{r['evaluated_artifacts']:>6}  "
            f"{_pct(r['badges']['available']):<22}{_pct(r['badges']['evaluated']):<22}"
            f"{_pct(r['results_reproduced']):<22}"
        )
    o = result.overall
    lines.append(
        f"{'all':<11}{'':>5}{o['evaluated_artifacts']:>6}  {_pct(o['badges']['available']):<22}"
        f"{_pct(o['badges']['evaluated']):<22}{_pct(o['results_reproduced']):<22}"
    )
    return "\n".join(lines)


def values(result: ArtifactEvaluationResult) -> list[StudyValue]:
    out = []
    for r in result.per_venue_year:
        s: Share = r["results_reproduced"]
        out.append(
            StudyValue(
                name=f"results_reproduced.{r['venue']}.{r['year']}",
                description="share of evaluated artifacts with a results badge",
                statistic=s["rate"],
                n=s["n"],
            )
        )
    o: Share = result.overall["results_reproduced"]
    out.append(
        StudyValue(
            name="results_reproduced.all",
            description="share of evaluated artifacts with a results badge, all venues",
            statistic=o["rate"],
            n=o["n"],
        )
    )
    return out


def charts(result: ArtifactEvaluationResult, inputs: Inputs, fmt: str = "svg") -> dict[str, bytes]:
    return {}
