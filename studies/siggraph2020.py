"""Code replicability in computer graphics (Bonneel et al., SIGGRAPH 2020), as published.

The survey's descriptive statistics (sharing rates, citations, table-1 counts) are
:func:`reprokg.survey.analysis.describe_frame`'s: they do not depend on how the study
scored its answers. This module adds the study's hypothesis tests, computed the way its
MATLAB script ``scripts/generateStatistics.m`` of
GraphicsReplicability/sig20-paper-supplementary-materials computes them (cited
``gs.m:LINE``; the rules are :data:`reprokg.studies.registry.SIGGRAPH2020`'s methods):

* replication score: the answer to "could reproduce results"; empty or anything starting
  with ``N`` ("N/A") is 0 (gs.m:133-142) — ``published``. ``corrected`` drops those rows.
  In the graph a non-numeric answer has no ``schema:ratingValue``, so it arrives as NaN.
* code shared: the availability answer contains "Yes" (gs.m:87; the graph's
  ``rk:codeShared``); industry: the authors field contains "Private Companies" (gs.m:157);
  deep: the answer does not start with N or F (gs.m:101); a missing year is 2018
  (gs.m:144-148); a complete test: the answer is exactly "Yes" (gs.m:118).
* χ² of two proportions without continuity correction (``chi2test.m``), year pairs
  (gs.m:200-202), deep learning (gs.m:240), industry vs academia (gs.m:381).
* citations of 2014 papers with vs without code: MATLAB ``ranksum`` (gs.m:325): with
  groups this large its normal approximation, tie-corrected variance and a 0.5
  continuity correction (its exact method is for min(n) < 10 and n < 20).
* first ANOVA: ``anovan(repro, {year, reviewer})`` over codes with a completed test
  (gs.m:360): main effects only, grouping variables categorical, MATLAB's default Type III
  sums of squares, which for a model without interactions equal Type II.
* the eight p-values above adjusted together by Benjamini–Hochberg (``fdr_bh``, 'pdep',
  gs.m:385; ``fdr_bh`` does not cap at 1, but the largest 'pdep' value is the largest p);
  the second ANOVA ``anovan(repro, {year, topics, authors})`` over all papers (gs.m:367)
  is *not* in that family.

Every test reports the ``n`` it used; the ANOVAs also say how many rows the score rule
scored 0 (published) or dropped (corrected).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, ClassVar, NamedTuple, Self, SupportsInt, cast

import numpy as np
import pandas as pd

from reprokg.sparql.rows import select_rows
from reprokg.store.base import Store
from reprokg.studies.plugin import StudyValue
from reprokg.studies.registry import CORRECTED, PUBLISHED, SIGGRAPH2020
from reprokg.studies.study_result import StudyResult
from reprokg.survey import analysis as sa
from reprokg.survey import stats as ss

STUDY = SIGGRAPH2020
METHODS = (PUBLISHED, CORRECTED)
YEAR_PAIRS = ((2014, 2016), (2014, 2018), (2016, 2018))
#: The Benjamini–Hochberg family, in the order of gs.m:385.
BH_FAMILY = (
    "sharing_2014_vs_2016",
    "sharing_2014_vs_2018",
    "sharing_2016_vs_2018",
    "sharing_industry_vs_academia",
    "sharing_deep_vs_not",
    "citations_2014_code_vs_no_code",
    "score_by_year",
    "score_by_reviewer",
)
#: The second ANOVA's factors (gs.m:367), outside the BH family.
ANOVA2 = ("anova2_year", "anova2_topic", "anova2_industry")
TEST_IDS = (*BH_FAMILY, *ANOVA2)
DATASETS = sa.DATASETS

_TEST_METHOD = {
    PUBLISHED: "the study's script (generateStatistics.m): Pearson chi-squared of two "
    "proportions without Yates' correction (year pairs, industry vs academia, deep "
    "learning vs not); MATLAB ranksum (normal approximation, tie and 0.5 continuity "
    "corrections) on 2014 citations with vs without code; main-effects ANOVA of the "
    "replication score, non-numeric answers scored 0, over every shared code whose test "
    "was completed (factors year, reviewer) and over every paper (factors year, topic, "
    "industry), Type III = Type II sums of squares; Benjamini-Hochberg over the first "
    "eight p-values (the second ANOVA is outside the family)",
    CORRECTED: "as published, except that non-numeric replication scores ('' or 'N/A') "
    "are dropped from both ANOVAs instead of scored 0, and rows with a missing year, "
    "topic or industry flag are dropped instead of defaulted",
}


# --- the registered study's interface -----------------------------------------------------


class Papers(NamedTuple):
    """One data set's reviewed papers (:func:`reprokg.survey.analysis.paper_frame`'s
    columns) and the SPARQL that read them."""

    frame: pd.DataFrame
    sparql: str


@dataclass(frozen=True)
class DatasetAnalysis:
    """The study over one data set: the survey's descriptive sections
    (:func:`reprokg.survey.analysis.describe_frame`) and this study's tests."""

    dataset: str
    method: str
    rules: list[str]
    n_papers: int
    years: list[int]
    sharing: dict[str, Any]
    #: test id -> method, statistic, p, p_adjusted (the BH family), n, provenance
    tests: dict[str, dict[str, Any]]
    citations: dict[str, Any]
    counts: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """The survey analysis's JSON (what :mod:`reprokg.survey` formats and draws)."""
        return {
            "dataset": self.dataset,
            "method": self.method,
            "rules": self.rules,
            "n_papers": self.n_papers,
            "years": self.years,
            "sharing": self.sharing,
            "tests": self.tests,
            "citations": self.citations,
            "counts": self.counts,
        }


@dataclass(frozen=True, kw_only=True)
class SiggraphResult(StudyResult):
    """The study over one data set or both (``dataset=both``: one saved document each)."""

    STUDY: ClassVar[str] = SIGGRAPH2020.name

    #: data set -> its analysis, in the order read
    datasets: dict[str, DatasetAnalysis]

    def to_json(self) -> dict[str, Any]:
        """One data set's analysis, or ``{dataset: analysis}`` when both were read."""
        if len(self.datasets) == 1:
            return next(iter(self.datasets.values())).to_json()
        return {d: a.to_json() for d, a in self.datasets.items()}

    def parts(self) -> list[Self]:
        if len(self.datasets) == 1:
            return [self]
        return [
            replace(self, datasets={d: a}, options={**self.options, "dataset": d})
            for d, a in self.datasets.items()
        ]


def read(store: Store, dataset: str = "consolidated") -> dict[str, Papers]:
    """``{dataset: its papers and the SPARQL that read them}`` for one data set or both."""
    if dataset not in (*DATASETS, "both"):
        from reprokg.core.errors import UsageError

        raise UsageError(f"dataset must be one of {', '.join(DATASETS)} or both")
    names = DATASETS if dataset == "both" else (dataset,)
    out = {}
    for d in names:
        sparql = sa.papers_query(d)
        out[d] = Papers(sa.frame_from_rows(select_rows(store, sparql)), sparql)
    return out


def is_empty(inputs: dict[str, Papers]) -> bool:
    return all(p.frame.empty for p in inputs.values())


def analyze(inputs: dict[str, Papers], method: str = PUBLISHED) -> SiggraphResult:
    """The study over each data set read."""
    return SiggraphResult(
        method=method,
        datasets={
            d: analyze_dataset(frame, sparql, method) for d, (frame, sparql) in inputs.items()
        },
    )


def analyze_frame(df: pd.DataFrame, sparql: str = "", method: str = PUBLISHED) -> dict[str, Any]:
    """:func:`analyze_dataset`'s JSON (what the survey's charts and table read)."""
    return analyze_dataset(df, sparql, method).to_json()


def analyze_dataset(df: pd.DataFrame, sparql: str = "", method: str = PUBLISHED) -> DatasetAnalysis:
    """The study over one data set's paper frame: the survey's descriptive sections, the
    method, its rules and every test with its ``n`` (BH family with adjusted p first, then
    the second ANOVA)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}")
    base = sa.describe_frame(df, sparql)
    tests = compute_tests(df, method)
    prov = {"sparql": sparql, "method": _TEST_METHOD[method]}
    for t in tests.values():
        t["provenance"] = prov
    return DatasetAnalysis(
        dataset=base["dataset"],
        method=method,
        rules=list(STUDY.method(method).rules),
        n_papers=base["n_papers"],
        years=base["years"],
        sharing=base["sharing"],
        tests=tests,
        citations=base["citations"],
        counts=base["counts"],
    )


def compute_tests(df: pd.DataFrame, method: str = PUBLISHED) -> dict[str, dict[str, Any]]:
    """The eight tests of the BH family (with ``p_adjusted``) then the second ANOVA's
    three factors; a test a data set cannot compute is left out (and out of the BH family)."""
    frame = prepare(df, method)
    tests: dict[str, dict[str, Any]] = {}
    tests.update(_sharing_tests(frame))
    cit = _citation_test(frame)
    if cit is not None:
        tests["citations_2014_code_vs_no_code"] = cit
    tests.update(anova_first(frame, method))
    raw = [tests[t]["p"] if t in tests else math.nan for t in BH_FAMILY]
    for tid, adj in zip(BH_FAMILY, ss.benjamini_hochberg(raw), strict=True):
        if tid in tests:
            tests[tid]["p_adjusted"] = _num(adj)
            tests[tid]["in_bh_family"] = True
    for tid, res in anova_second(frame, method).items():
        res["in_bh_family"] = False
        tests[tid] = res
    return {t: tests[t] for t in TEST_IDS if t in tests}


# --- the frame --------------------------------------------------------------------------


def prepare(df: pd.DataFrame, method: str) -> pd.DataFrame:
    """Typed copy with the script's defaults (published) or with nothing filled (corrected):
    ``score`` is the replication score, NaN where the answer was not numeric."""
    out = pd.DataFrame(index=df.index)
    out["year"] = pd.to_numeric(df["year"], errors="coerce").astype(float)
    out["topic"] = df["topic"].map(lambda v: v.strip() if isinstance(v, str) else None)
    out["code_shared"] = _bool(df["code_shared"]).fillna(False).astype(bool)
    out["industry"] = _bool(df["industry"])
    out["deep"] = _bool(df["deep"])
    out["citations"] = pd.to_numeric(df["citations"], errors="coerce")
    out["reviewer"] = df["reviewer"].map(lambda v: None if _missing(v) else str(v))
    out["score"] = pd.to_numeric(df["replication_score"], errors="coerce")
    out["scored"] = out["score"].notna()
    out["test_completed"] = _bool(df["test_completed"]).fillna(False).astype(bool)
    if method == PUBLISHED:
        out["score"] = out["score"].fillna(0.0)
        out["year"] = out["year"].fillna(2018.0)
        out["industry"] = out["industry"].fillna(False)
    return out


def _bool(s: pd.Series) -> pd.Series:
    def one(v: Any) -> Any:
        if _missing(v):
            return pd.NA
        if isinstance(v, bool | np.bool_):
            return bool(v)
        t = str(v).strip().lower()
        return True if t in ("true", "1", "yes") else False if t in ("false", "0", "no") else pd.NA

    return s.map(one).astype("boolean")


def _missing(v: Any) -> bool:
    if v is None or v is pd.NA:
        return True
    return isinstance(v, float) and math.isnan(v)


# --- tests of the BH family -------------------------------------------------------------


def _test(r: ss.TestResult, n: int) -> dict[str, Any]:
    d: dict[str, Any] = {"method": r.method, "statistic": _num(r.statistic), "p": _num(r.p)}
    if r.df is not None:
        d["df"] = r.df
    d["n"] = int(n)
    d["detail"] = dict(r.detail or {})
    return d


def _sharing_tests(f: pd.DataFrame) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}

    def k_n(mask: pd.Series) -> tuple[int, int]:
        sub = f.loc[mask.fillna(False).astype(bool), "code_shared"]
        return int(sub.sum()), int(len(sub))

    for a, b in YEAR_PAIRS:
        (ka, na), (kb, nb) = k_n(f["year"] == a), k_n(f["year"] == b)
        if na and nb:
            res = ss.chi2_two_proportions(ka, na, kb, nb)
            out[f"sharing_{a}_vs_{b}"] = _test(res, na + nb)
    for tid, col in (("sharing_industry_vs_academia", "industry"), ("sharing_deep_vs_not", "deep")):
        known = f[col].notna()
        if not known.any():
            continue
        yes = known & (f[col] == True)  # noqa: E712 - nullable boolean
        no = known & (f[col] == False)  # noqa: E712
        (k1, n1), (k2, n2) = k_n(yes), k_n(no)
        if n1 and n2:
            out[tid] = _test(ss.chi2_two_proportions(k1, n1, k2, n2), n1 + n2)
    return out


def _citation_test(f: pd.DataFrame) -> dict[str, Any] | None:
    """MATLAB ``ranksum(code, no code)`` on 2014 citation counts (gs.m:325)."""
    y14 = f[(f["year"] == 2014) & f["citations"].notna()]
    code = y14.loc[y14["code_shared"], "citations"].to_numpy(float)
    none = y14.loc[~y14["code_shared"], "citations"].to_numpy(float)
    if len(code) == 0 or len(none) == 0:
        return None
    if min(len(code), len(none)) < 10 and len(code) + len(none) < 20:
        return None  # MATLAB would use its exact method here, which is not written out
    return _test(ss.rank_sum_test(code, none), len(code) + len(none))


# --- ANOVA ------------------------------------------------------------------------------


def first_anova_rows(f: pd.DataFrame, method: str) -> pd.DataFrame:
    """Shared codes with a completed test (and, for ``corrected``, a numeric score)."""
    mask = f["code_shared"] & f["test_completed"] & f["reviewer"].notna() & f["year"].notna()
    if method == CORRECTED:
        mask &= f["scored"]
    return f.loc[mask]


def anova_first(f: pd.DataFrame, method: str = PUBLISHED) -> dict[str, dict[str, Any]]:
    """``anovan(repro, {year, reviewer})`` over codes with a completed test (gs.m:360)."""
    rows = first_anova_rows(f, method)
    if len(rows) == 0 or rows["year"].nunique() < 2 or rows["reviewer"].nunique() < 2:
        return {}
    res = ss.anova_main_effects(rows, "score", ["year", "reviewer"])
    out = {"score_by_year": res["year"], "score_by_reviewer": res["reviewer"]}
    base = f["code_shared"] & f["test_completed"]
    return {tid: _anova_test(r, f, base, method) for tid, r in out.items()}


def second_anova_rows(f: pd.DataFrame, method: str) -> pd.DataFrame:
    """Every paper (published) or every paper with a numeric score and known factors."""
    mask = f["year"].notna() & f["topic"].notna() & f["industry"].notna()
    if method == CORRECTED:
        mask &= f["scored"]
    rows = f.loc[mask].copy()
    rows["industry"] = rows["industry"].astype(bool)
    return rows


def anova_second(f: pd.DataFrame, method: str = PUBLISHED) -> dict[str, dict[str, Any]]:
    """``anovan(repro, {year, topics, authors})`` over all papers (gs.m:367), not in BH."""
    rows = second_anova_rows(f, method)
    if len(rows) == 0 or min(rows[c].nunique() for c in ("year", "topic", "industry")) < 2:
        return {}
    res = ss.anova_main_effects(rows, "score", ["year", "topic", "industry"])
    base = pd.Series(True, index=f.index)
    return {
        "anova2_year": _anova_test(res["year"], f, base, method),
        "anova2_topic": _anova_test(res["topic"], f, base, method),
        "anova2_industry": _anova_test(res["industry"], f, base, method),
    }


def _anova_test(r: ss.TestResult, f: pd.DataFrame, base: pd.Series, method: str) -> dict[str, Any]:
    detail = dict(r.detail or {})
    n = int(cast(SupportsInt, detail.pop("n")))  # the ANOVA's row count
    out = _test(ss.TestResult(r.method, r.statistic, r.p, r.df, detail), n)
    # how many rows of the ANOVA's population had no numeric score
    unscored = int((base & ~f["scored"]).sum())
    key = "scored_zero_not_numeric" if method == PUBLISHED else "dropped_not_numeric"
    out["detail"][key] = unscored
    return out


def _num(v: Any) -> float | None:
    if v is None:
        return None
    x = float(v)
    return None if math.isnan(x) else x


# --- output -----------------------------------------------------------------------------


def format_table(result: SiggraphResult) -> str:
    """The survey's table with this study's tests (one data set, or each of both)."""
    if len(result.datasets) == 1:
        return sa.format_table(result.to_json())
    parts = []
    for d, res in result.datasets.items():
        parts.append(f"== {d} ({res.n_papers} papers)\n{sa.format_table(res.to_json())}")
    return "\n\n".join(parts)


def charts(result: SiggraphResult, inputs: dict[str, Papers], fmt: str = "svg") -> dict[str, bytes]:
    """``{file stem: bytes}``: the survey's charts per data set
    (``consolidated-sharing_by_year``, ``…-sharing_by_topic``, ``…-citations``)."""
    from reprokg.survey import charts as sc

    out = {}
    for d, res in result.datasets.items():
        for name in sc.CHARTS:
            out[f"{d}-{name}"] = sc.render(name, res.to_json(), inputs[d].frame, fmt)
    return out


def values(result: SiggraphResult) -> list[StudyValue]:
    """The sharing rates (``{dataset}.sharing.{by_year|by_topic}.{key}``,
    ``{dataset}.sharing.overall``: the survey's statistics) and the tests
    (``{dataset}.tests.{id}``) as named values for the result document."""
    out = []
    for key, res in result.datasets.items():
        d = str(res.dataset) if len(result.datasets) == 1 else key
        sharing = res.sharing
        rates = [
            (f"{group}.{key}", p)
            for group in ("by_year", "by_topic")
            for key, p in sharing[group].items()
        ]
        for name, p in [*rates, ("overall", sharing["overall"])]:
            out.append(
                StudyValue(
                    name=f"{d}.sharing.{name}",
                    description="share of the papers with code or binary shared (k/n; its "
                    "Clopper-Pearson 95% interval in the result)",
                    statistic=p["rate"],
                    n=p["n"],
                )
            )
        for tid, t in res.tests.items():
            out.append(
                StudyValue(
                    name=f"{d}.tests.{tid}",
                    description=t["method"],
                    statistic=t["statistic"],
                    p=t["p"],
                    p_adjusted=t.get("p_adjusted"),
                    n=t["n"],
                )
            )
    return out
