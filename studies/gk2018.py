"""State of the art: Reproducibility in AI (Gundersen & Kjensmo, AAAI 2018): the degrees.

Follows the authors' notebook ``evaluation_analysis.ipynb`` of
aaai2018-paperid-62/aaai2018-paperid-62 (cited by 0-based cell index, ``cell N``; the
data folder's README names the notebook as the analysis of the degrees):

* experimental papers only: ``research_type`` is ``E`` (cell 1 converter, cell 8 filter);
* Method = problem description, goal/objective, research method, research question,
  pseudocode (cell 10); Data = train, validation, test, results (cell 12); Experiment =
  hypothesis, prediction, open source code, open experiment code, hardware specification,
  software dependencies, experiment setup, evaluation criteria (cell 14). The notebook's
  lists also hold ``conference``; pandas 0.20's ``mean(axis=1)`` drops that non-numeric
  column and ``all(axis=1)`` finds its text true, so it changes nothing and is left out;
* a degree is the per-paper mean of the 0/1 answers over its variables, missing answers
  skipped (pandas ``mean(axis=1)``): R3D over Method, R2D over Method ∪ Data, R1D over all
  three, DataD over Data, ExpD over Experiment (cells 10, 12, 14);
* a paper satisfies R3/R2/R1 (and Data, Exp) when every *answered* variable is 1 — pandas
  ``all(axis=1)`` skips missing values, so an unanswered validation split does not fail R2;
* mean and variance over papers, the variance with ddof = 1 (pandas ``var()``), overall, by
  conference (``groupby('conference')``: venue and year, e.g. "AAAI 14") and by period,
  2013/14 (AAAI 14, IJCAI 13) vs 2016 (AAAI 16, IJCAI 16) (cell 8); by venue and by year
  alone as well.

The rows come from the graph (``studies/sparql/gk2018_assessments.rq``): each variable
is a boolean, or absent when the paper was not scored on it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar, TypedDict

import numpy as np
import pandas as pd

from reprokg.sparql.named import package_query
from reprokg.sparql.rows import select_rows
from reprokg.store.base import Store
from reprokg.studies.plugin import StudyValue
from reprokg.studies.registry import GK2018, PUBLISHED
from reprokg.studies.study_result import StudyResult

STUDY = GK2018
QUERY = "studies/sparql/gk2018_assessments.rq"

METHOD = [
    "problem_description",
    "goal/objective",
    "research_method",
    "research_question",
    "pseudocode",
]
DATA = ["train", "validation", "test", "results"]
EXPERIMENT = [
    "hypothesis",
    "prediction",
    "open_source_code",
    "open_experiment_code",
    "hardware_specification",
    "software_dependencies",
    "experiment_setup",
    "evaluation_criteria",
]
VARIABLES = METHOD + DATA + EXPERIMENT
#: the columns :func:`read` gives (the query's, with ``goal_objective`` renamed)
COLUMNS = ("assessment", "paper", "research_type", "conference", "year", *VARIABLES)
#: degree name -> variables averaged
DEGREES: dict[str, list[str]] = {
    "R1D": METHOD + DATA + EXPERIMENT,
    "R2D": METHOD + DATA,
    "R3D": METHOD,
    "DataD": DATA,
    "ExpD": EXPERIMENT,
}
#: the degrees of reproducibility whose satisfaction is counted (the issue's keys)
SATISFIED: dict[str, list[str]] = {
    "R1": METHOD + DATA + EXPERIMENT,
    "R2": METHOD + DATA,
    "R3": METHOD,
}
#: the factors whose satisfaction the notebook also counts (cells 12, 14)
FACTORS: dict[str, list[str]] = {"Method": METHOD, "Data": DATA, "Exp": EXPERIMENT}
PERIODS = {2013: "2013/14", 2014: "2013/14", 2016: "2016"}


class Degree(TypedDict):
    """A degree over papers: mean and variance (ddof = 1) of the per-paper degree, n."""

    mean: float | None
    variance: float | None
    n: int


class Summary(TypedDict):
    """The degrees and satisfied counts of a group of experimental papers."""

    n: int
    degrees: dict[str, Degree]
    satisfied: dict[str, int]
    satisfied_factors: dict[str, int]


@dataclass(frozen=True, kw_only=True)
class Gk2018Result(StudyResult):
    """The study over all experimental papers, and by conference, period, venue and year."""

    STUDY: ClassVar[str] = GK2018.name

    #: experimental papers
    n: int
    degrees: dict[str, Degree]
    satisfied: dict[str, int]
    satisfied_factors: dict[str, int]
    by_conference: dict[str, Summary]
    by_period: dict[str, Summary]
    by_venue: dict[str, Summary]
    by_year: dict[str, Summary]
    #: assessed papers, experimental or not
    n_papers: int
    rules: list[str]
    provenance: dict[str, str]

    def overall(self) -> Summary:
        return {
            "n": self.n,
            "degrees": self.degrees,
            "satisfied": self.satisfied,
            "satisfied_factors": self.satisfied_factors,
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            **self.overall(),
            "by_conference": self.by_conference,
            "by_period": self.by_period,
            "by_venue": self.by_venue,
            "by_year": self.by_year,
            "n_papers": self.n_papers,
            "rules": self.rules,
            "provenance": self.provenance,
        }


def read(store: Store) -> pd.DataFrame:
    """One row per assessed paper (columns :data:`COLUMNS`), variables True/False/None."""
    rows = select_rows(store, package_query(QUERY).bind({}))
    df = pd.DataFrame(rows)
    df = df.rename(columns={"goal_objective": "goal/objective"})
    for col in COLUMNS:
        if col not in df.columns:
            df[col] = None
    return df[list(COLUMNS)]


def is_empty(df: pd.DataFrame) -> bool:
    return df.empty


def per_paper(df: pd.DataFrame) -> pd.DataFrame:
    """Degrees and satisfied flags of each experimental paper (missing answers skipped).

    ``df`` has one row per paper: ``research_type`` (E/T), ``conference`` (as written,
    e.g. "AAAI 14"), ``year`` and the variables as 1/0/True/False, missing = not answered.
    """
    exp = df[df["research_type"].astype(str).str.strip() == "E"]
    values = (
        exp[VARIABLES]
        .apply(lambda c: pd.to_numeric(c.map(_num01), errors="coerce"))
        .to_numpy(float)
    )
    answered = ~np.isnan(values)
    ones = np.where(answered, values, 0.0)
    idx = {v: i for i, v in enumerate(VARIABLES)}
    out = pd.DataFrame(index=exp.index)
    out["conference"] = exp["conference"].astype(str).str.strip().to_numpy()
    out["venue"] = [re.sub(r"\s*'?\d+\s*$", "", c) for c in out["conference"]]
    out["year"] = pd.to_numeric(exp["year"], errors="coerce").to_numpy()
    out["period"] = out["year"].map(PERIODS)
    for name, cols in DEGREES.items():
        sel = [idx[c] for c in cols]
        k = answered[:, sel].sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[name] = np.where(k > 0, ones[:, sel].sum(axis=1) / k, np.nan)
    for name, cols in {**SATISFIED, **FACTORS}.items():
        sel = [idx[c] for c in cols]
        # every answered variable is 1 (a paper with nothing answered is vacuously true)
        out[name] = ~((values[:, sel] == 0) & answered[:, sel]).any(axis=1)
    return out


def _num01(v: object) -> object:
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return np.nan
    if isinstance(v, bool | np.bool_):
        return float(v)
    return v


def _summary(p: pd.DataFrame) -> Summary:
    degrees: dict[str, Degree] = {}
    for name in DEGREES:
        x = p[name].to_numpy(float)
        x = x[~np.isnan(x)]
        degrees[name] = {
            "mean": float(x.mean()) if len(x) else None,
            "variance": float(x.var(ddof=1)) if len(x) > 1 else None,
            "n": int(len(x)),
        }
    return {
        "n": int(len(p)),
        "degrees": degrees,
        "satisfied": {name: int(p[name].sum()) for name in SATISFIED},
        "satisfied_factors": {name: int(p[name].sum()) for name in FACTORS},
    }


def _by(p: pd.DataFrame, col: str) -> dict[str, Summary]:
    sub = p.dropna(subset=[col])
    return {str(_key(k)): _summary(g) for k, g in sorted(sub.groupby(col), key=lambda kv: kv[0])}


def _key(k: object) -> object:
    return int(k) if isinstance(k, float) and k.is_integer() else k


def analyze(df: pd.DataFrame, method: str = PUBLISHED) -> Gk2018Result:
    """``{"n", "degrees": {R1D…: {"mean", "variance", "n"}}, "satisfied": {R1, R2, R3}}``
    over all experimental papers, plus the same by conference (venue and year, as the
    notebook groups), by period (2013/14, 2016), by venue and by year."""
    if method != PUBLISHED:
        raise ValueError("gk2018 has one method: published")
    p = per_paper(df)
    return Gk2018Result(
        method=method,
        **_summary(p),
        by_conference=_by(p, "conference"),
        by_period=_by(p, "period"),
        by_venue=_by(p, "venue"),
        by_year=_by(p, "year"),
        n_papers=int(len(df)),
        rules=list(STUDY.method(method).rules),
        provenance={"sparql": package_query(QUERY).bind({}), "follows": STUDY.follows},
    )


def format_table(result: Gk2018Result) -> str:
    lines = [
        f"Gundersen & Kjensmo 2018: {result.n} experimental of {result.n_papers} papers "
        f"(method: {result.method})",
        "",
        f"{'':<14}" + "".join(f"{d:>16}" for d in DEGREES),
    ]

    def row(label: str, s: Summary) -> str:
        cells = []
        for d in DEGREES:
            v = s["degrees"][d]
            var = "-" if v["variance"] is None else f"{v['variance']:.4f}"
            mean = "-" if v["mean"] is None else f"{v['mean']:.4f}"
            cells.append(f"{mean + ' (' + var + ')':>16}")
        return f"  {label:<12}" + "".join(cells)

    lines.append(row("all", result.overall()))
    for group in (result.by_conference, result.by_period):
        for k, s in group.items():
            lines.append(row(f"{k} ({s['n']})", s))
    lines.append("  (mean (variance, ddof=1) of the per-paper degree)")
    lines.append("")
    sat = result.satisfied
    fac = result.satisfied_factors
    lines.append(
        "Satisfied (every answered variable documented): "
        + ", ".join(f"{k} {v}" for k, v in {**sat, **fac}.items())
    )
    return "\n".join(lines)


def values(result: Gk2018Result) -> list[StudyValue]:
    out = []
    for d, v in result.degrees.items():
        out.append(
            StudyValue(
                name=f"degrees.{d}",
                description=f"mean over papers of the per-paper degree {d}",
                statistic=v["mean"],
                n=v["n"],
            )
        )
    for k, n in result.satisfied.items():
        out.append(
            StudyValue(
                name=f"satisfied.{k}",
                description=f"papers satisfying {k}",
                statistic=float(n),
                n=result.n,
            )
        )
    return out


def charts(result: Gk2018Result, inputs: pd.DataFrame, fmt: str = "svg") -> dict[str, bytes]:
    """``degrees_by_conference``: the mean degrees per conference, one group of bars each."""
    from reprokg.studies import plots

    groups = {"all": result.overall(), **result.by_conference}
    series = {d: [g["degrees"][d]["mean"] or 0.0 for g in groups.values()] for d in DEGREES}
    return {
        "gk2018-degrees_by_conference": plots.render(
            lambda: plots.grouped_bars(
                list(groups),
                series,
                ylabel="mean degree over experimental papers",
                title="Gundersen & Kjensmo 2018: degrees of reproducibility",
                ylim=(0, 0.6),
            ),
            fmt,
        )
    }
