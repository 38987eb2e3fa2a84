"""The code-replicability survey read from the graph: SPARQL → pandas → descriptive statistics.

Nothing here reads the survey JSON files: one SELECT (``survey/sparql/survey_papers.rq``)
returns one row per reviewed paper with the facts the study's method needs,
:func:`paper_frame` types them into a DataFrame, and :func:`describe_frame` computes what
does not depend on how the study scored its answers (sharing rates with exact intervals,
citations, table-1 counts). The study's hypothesis tests, whose inputs depend on its
scoring rules (χ² tests, rank-sum, the two ANOVAs, Benjamini–Hochberg), are the published
study :mod:`reprokg.studies.siggraph2020`, which builds on this module. Every section
carries the SPARQL and the method it came from so a reader can re-derive it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from reprokg.sparql.named import package_query
from reprokg.sparql.rows import select_rows
from reprokg.survey import stats as ss

PAPERS_QUERY = "survey/sparql/survey_papers.rq"
DATASETS = ("consolidated", "per-paper")

#: The columns :func:`paper_frame` produces (and :func:`analyze_frame` expects).
COLUMNS: dict[str, str] = {
    "paper": "IRI of the reviewed paper",
    "dataset": "consolidated | per-paper (which source the review came from)",
    "year": "SIGGRAPH year (int)",
    "topic": "one of the study's six topics",
    "code_shared": "code or binary publicly available (bool)",
    "industry": "at least one author from a private company (bool)",
    "deep": "paper uses deep learning (bool, may be missing)",
    "citations": "Google Scholar citation count (float, may be missing)",
    "reviewer": "who reviewed the code (str)",
    "replication_score": "could reproduce results, 1-5 (float, missing when N/A)",
    "test_completed": "a complete test (deps/build/run) was performed (bool, codes only)",
    "test_failure": "technical | hardware when the test was not completed",
    "has_license": "the code states a license (bool, codes only)",
    "documentation_score": "documentation score (int)",
    "needs_data": "code needs data other than examples (bool, codes only)",
    "languages": "main languages of the code (set of labels)",
    "software_type": "Code | Binary | Partial Code",
    "bugfix_score": "easy to fix bugs, 1-5 (float, missing when there was no bug)",
    "time_slot": "time to first run in 10-minute slots, 10 = more than 100 min",
    "arxiv": "preprint on arXiv or another open archive (bool)",
    "open_access": "ACM open access (bool)",
}


def papers_query(dataset: str = "both") -> str:
    """``survey_papers.rq`` restricted to one data set (``dataset`` bound) or both.

    Binding the data set up front halves the work when only one is wanted; the exact text
    run is what the provenance of each section shows."""
    if dataset not in (*DATASETS, "both"):
        raise ValueError(f"dataset must be one of {', '.join(DATASETS)} or both")
    return package_query(PAPERS_QUERY).bind({} if dataset == "both" else {"dataset": dataset})


# --- extraction -------------------------------------------------------------------------


def paper_frame(store: Any, dataset: str | None = None) -> pd.DataFrame:
    """One row per reviewed paper (columns :data:`COLUMNS`), optionally one dataset only."""
    rows = select_rows(store, papers_query(dataset or "both"))
    return frame_from_rows(rows)


def frame_from_rows(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Type the SELECT rows: booleans, numbers, language sets (GROUP_CONCAT with '|')."""
    df = pd.DataFrame(rows)
    for col in COLUMNS:
        if col not in df.columns:
            df[col] = None
    df = df[list(COLUMNS)].copy()
    df["year"] = pd.to_numeric(df["year"], errors="coerce").astype("Int64")
    for col in ("citations", "replication_score", "bugfix_score", "time_slot"):
        df[col] = pd.to_numeric(df[col], errors="coerce").astype(float)
    df["documentation_score"] = pd.to_numeric(df["documentation_score"], errors="coerce")
    for col in (
        "code_shared",
        "industry",
        "deep",
        "test_completed",
        "has_license",
        "needs_data",
        "arxiv",
        "open_access",
    ):
        df[col] = df[col].map(_bool).astype("boolean")
    labels = _option_labels()
    df["topic"] = df["topic"].map(lambda v: labels.get(v, v) if isinstance(v, str) else None)
    df["software_type"] = df["software_type"].map(
        lambda v: _SOFTWARE_TYPES.get(v, v) if isinstance(v, str) else None
    )
    df["test_failure"] = df["test_failure"].map(
        lambda v: _FAILURES.get(v, v) if isinstance(v, str) else None
    )
    df["languages"] = df["languages"].map(
        lambda v: (
            frozenset(_LANGUAGES.get(x, x) for x in str(v).split("|") if x)
            if isinstance(v, str)
            else frozenset()
        )
    )
    return df.sort_values(["dataset", "year", "paper"], kind="mergesort").reset_index(drop=True)


# Option concepts (rk:<LocalName>) -> the short labels the analysis groups by.
_SOFTWARE_TYPES = {
    "SoftwareTypeCode": "Code",
    "SoftwareTypeBinary": "Binary",
    "SoftwareTypePartialCode": "Partial Code",
}
_FAILURES = {"FailureTechnicalIssue": "technical", "FailureMissingHardware": "hardware"}
_LANGUAGES = {
    "LanguagePython": "Python",
    "LanguageMatlab": "Matlab",
    "LanguageCpp": "C/C++",
    "LanguageShader": "Shader",
    "LanguageOther": "Other",
}


def _option_labels() -> dict[str, str]:
    """Concept local name -> preferred label, from the survey option schemes (vocabulary,
    not data: the same table ontology/survey.ttl is written from)."""
    from reprokg.loaders.survey_options import SCHEMES

    return {name: label for _l, _d, options in SCHEMES.values() for name, label, *_ in options}


def _bool(v: Any) -> Any:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return pd.NA
    if isinstance(v, bool):
        return v
    s = str(v).strip().lower()
    if s in ("true", "1", "yes"):
        return True
    if s in ("false", "0", "no"):
        return False
    return pd.NA


# --- analysis ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SurveyStatistics:
    """What the survey says without any scoring rule, over one data set's papers: the
    sharing rates (typed :class:`~reprokg.survey.stats.Proportion` s, per year, per topic,
    overall), citations and table-1 counts, and the SPARQL that read the papers.

    ``to_json()`` is the descriptive part of the study ``siggraph2020``'s answer (each
    section with its provenance); its document is that study's (``study-result``,
    :class:`reprokg.studies.study_result.StudyResult`), which names the sharing rates and the
    tests as values.
    """

    dataset: str | list[str]
    n_papers: int
    years: list[int]
    sharing_by_year: dict[str, ss.Proportion]
    sharing_by_topic: dict[str, ss.Proportion]
    sharing_overall: ss.Proportion
    #: per year: ``{"code": mean_ci_t, "no_code": mean_ci_t}``
    citations: dict[str, dict[str, Any]]
    #: ``{"by_year": {year: counts}, "total": counts}``
    counts: dict[str, Any]
    sparql: str = ""

    def to_json(self) -> dict[str, Any]:
        prov = provenance(self.sparql)
        sharing = {
            "by_year": {k: p.to_dict() for k, p in self.sharing_by_year.items()},
            "by_topic": {k: p.to_dict() for k, p in self.sharing_by_topic.items()},
            "overall": self.sharing_overall.to_dict(),
        }
        return {
            "dataset": self.dataset,
            "n_papers": self.n_papers,
            "years": list(self.years),
            "sharing": {**sharing, "provenance": prov("sharing")},
            "citations": {**self.citations, "provenance": prov("citations")},
            "counts": {**self.counts, "provenance": prov("counts")},
        }


def survey_statistics(df: pd.DataFrame, sparql: str = "") -> SurveyStatistics:
    """The :class:`SurveyStatistics` of one data set's paper frame."""
    df = df.copy()
    df["code_shared"] = df["code_shared"].fillna(False).astype(bool)
    names = sorted(str(d) for d in df["dataset"].dropna().unique())
    return SurveyStatistics(
        dataset=names[0] if len(names) == 1 else names,
        n_papers=len(df),
        years=sorted(int(y) for y in df["year"].dropna().unique()),
        sharing_by_year=ss.proportions_by(df, "year", "code_shared"),
        sharing_by_topic=ss.proportions_by(df, "topic", "code_shared"),
        sharing_overall=ss.proportion(int(df["code_shared"].sum()), len(df)),
        citations=_citations(df),
        counts=_counts(df),
        sparql=sparql,
    )


def describe_frame(df: pd.DataFrame, sparql: str = "") -> dict[str, Any]:
    """The JSON of :func:`survey_statistics`: ``dataset``, ``n_papers``, ``years``,
    ``sharing``, ``citations``, ``counts`` (each section with its provenance). The
    hypothesis tests are :func:`reprokg.studies.siggraph2020.analyze_frame`'s."""
    return survey_statistics(df, sparql).to_json()


_METHODS = {
    "sharing": "code_shared = availability answer 'Yes' (code or binary); count k, papers n, "
    "rate k/n and two-sided 95% Clopper-Pearson (exact binomial, beta quantile) interval, "
    "per year, per topic and overall",
    "citations": "Google Scholar citation counts of papers with vs without code per year: "
    "mean with Student-t 95% interval (mean +- t_{0.975,n-1} s/sqrt(n)), median, n",
    "counts": "Table-1-style counts per year and total; code-level counts are over papers "
    "with code; needed modification = a bug-fix score was given (not N/A); hard = bug-fix "
    "score <= 2; more than 100 minutes = time slot 10",
}


def provenance(sparql: str, methods: dict[str, str] | None = None) -> Callable[[str], dict]:
    """``section -> {"sparql", "method"}`` for the sections of a result."""
    table = {**_METHODS, **(methods or {})}

    def make(section: str) -> dict[str, str]:
        return {"sparql": sparql, "method": table[section]}

    return make


def _citations(df: pd.DataFrame) -> dict[str, Any]:
    out: dict[str, Any] = {}
    cited = df[df["citations"].notna()]
    for year, rows in sorted(cited.groupby("year"), key=lambda kv: kv[0]):
        out[str(year)] = {
            "code": ss.mean_ci_t(rows.loc[rows["code_shared"], "citations"].tolist()),
            "no_code": ss.mean_ci_t(rows.loc[~rows["code_shared"], "citations"].tolist()),
        }
    return out


def _counts(df: pd.DataFrame) -> dict[str, Any]:
    """Table-1 counts per year and in total; one boolean array per count, computed once.

    A count is None where the data set does not record the fact at all (e.g. deep learning
    on the site data), so a missing field never reads as a count of 0."""
    flags = _count_flags(df)
    years = df["year"].to_numpy()

    def block(mask: np.ndarray) -> dict[str, int | None]:
        return {k: None if f is None else int((f & mask).sum()) for k, f in flags.items()}

    per_year = {str(y): block(years == y) for y in sorted(df["year"].dropna().unique())}
    return {"by_year": per_year, "total": block(np.ones(len(df), dtype=bool))}


def _count_flags(df: pd.DataFrame) -> dict[str, np.ndarray | None]:
    code = df["code_shared"].to_numpy(dtype=bool)

    def true(col: str) -> np.ndarray:
        return (df[col] == True).fillna(False).to_numpy(dtype=bool)  # noqa: E712

    def false(col: str) -> np.ndarray:
        return (df[col] == False).fillna(False).to_numpy(dtype=bool)  # noqa: E712

    def known(col: str, flag: np.ndarray) -> np.ndarray | None:
        return None if df[col].isna().all() else flag

    langs = df["languages"]
    lang = {k: langs.map(lambda s, k=k: k in s).to_numpy(dtype=bool) for k in LANGUAGE_LABELS}
    stype = df["software_type"]
    bugfix = df["bugfix_score"].to_numpy(dtype=float)
    slots = df["time_slot"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        hard = bugfix <= 2
        long = slots >= 10
    return {
        "papers": np.ones(len(df), dtype=bool),
        "with_code": code,
        "code_without_license": known("has_license", code & false("has_license")),
        "code_documentation_score_0": code & (df["documentation_score"] == 0).to_numpy(bool),
        "code_deep": known("deep", code & true("deep")),
        "code_needs_data": known("needs_data", code & true("needs_data")),
        "code_python": code & lang["Python"],
        "code_matlab": code & lang["Matlab"],
        "code_cpp": code & lang["C/C++"],
        "code_source": code & stype.isin(["Code", "Partial Code"]).to_numpy(bool),
        "code_binary": code & (stype == "Binary").to_numpy(bool),
        "test_completed": code & true("test_completed"),
        "test_failed_technical": code & (df["test_failure"] == "technical").to_numpy(bool),
        "test_failed_hardware": code & (df["test_failure"] == "hardware").to_numpy(bool),
        "code_needed_modification": code & ~np.isnan(bugfix),
        "code_hard_to_fix": code & hard,
        "code_over_100_minutes": code & long,
        "arxiv": known("arxiv", true("arxiv")),
        "acm_open_access": known("open_access", true("open_access")),
    }


LANGUAGE_LABELS = ("Python", "Matlab", "C/C++")


# --- output -----------------------------------------------------------------------------


def format_table(result: dict[str, Any]) -> str:
    """A plain-text rendering of one data set's result for the terminal: sharing, the tests
    the result holds (in its order, with n), citations and counts."""
    lines: list[str] = []
    sh = result["sharing"]

    def prop_line(label: str, p: dict[str, Any]) -> str:
        if p["rate"] is None:
            return f"  {label:<26} {p['k']:>4}/{p['n']:<4}"
        lo, hi = p["ci95"]
        return f"  {label:<26} {p['k']:>4}/{p['n']:<4} {p['rate']:6.1%}  [{lo:6.1%}, {hi:6.1%}]"

    lines.append("Code or binary shared (rate, Clopper-Pearson 95% CI)")
    for y, p in sh["by_year"].items():
        lines.append(prop_line(y, p))
    for t, p in sh["by_topic"].items():
        lines.append(prop_line(t, p))
    lines.append(prop_line("overall", sh["overall"]))
    if result.get("tests"):
        lines.append("")
        if result.get("method"):
            lines.append(f"Tests (method: {result['method']})")
        else:
            lines.append("Tests")
        lines.append(f"  {'':<34} {'n':>5} {'statistic':>10} {'p':>10} {'p (BH)':>10}")
        for tid, t in result["tests"].items():
            if t is None:
                lines.append(f"  {tid:<34} {'(no data)':>10}")
                continue
            n = t.get("n")
            lines.append(
                f"  {tid:<34} {'-' if n is None else n:>5} {_fmt(t['statistic'], 10, '.3f')} "
                f"{_fmt(t['p'], 10, '.4g')} {_fmt(t.get('p_adjusted'), 10, '.4g')}"
            )
    if any(k != "provenance" for k in result["citations"]):
        lines.append("")
        lines.append("Citations (mean [t 95% CI], median, n)")
        for y, c in result["citations"].items():
            if y == "provenance":
                continue
            for grp in ("code", "no_code"):
                s = c[grp]
                ci = s["ci95"]
                ci_txt = f"[{ci[0]:7.1f}, {ci[1]:7.1f}]" if ci else " " * 18
                mean = f"{s['mean']:7.1f}" if s["mean"] is not None else "      -"
                med = f"{s['median']:6.1f}" if s["median"] is not None else "     -"
                lines.append(f"  {y} {grp:<8} {mean} {ci_txt} {med} {s['n']:>4}")
    lines.append("")
    counts = result["counts"]
    years = list(counts["by_year"])
    lines.append(f"{'Counts':<30}" + "".join(f"{y:>7}" for y in years) + f"{'total':>7}")
    for key in counts["total"]:
        vals = [counts["by_year"][y][key] for y in years] + [counts["total"][key]]
        lines.append(f"  {key:<28}"[:30] + "".join(f"{'-' if v is None else v:>7}" for v in vals))
    return "\n".join(lines)


def _fmt(v: float | None, width: int, spec: str) -> str:
    return f"{'-':>{width}}" if v is None else f"{v:>{width}{spec}}"
