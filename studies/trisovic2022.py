"""A large-scale study on research code quality and execution (Trisovic et al., Scientific
Data 2022): the re-execution rates, recomputed from the graph.

Follows the authors' notebooks of atrisovic/dataverse-r-study ``analysis/notebooks``
(cited as ``nb01`` = ``01-success-analysis.ipynb``, ``nb02`` =
``02-get-combined-success-rates.ipynb``, ``err`` = ``02-error_analysis.ipynb``, with their
0-based cell index), on the file results and download checks the ``re-execution`` loader
stored:

* download errors (nb01 cells 6-11): per configuration the log lines, those not ``ok`` and
  the DOIs with one; the DOIs excluded are those with a download error in *all six*
  configurations;
* per file (nb01 cells 15, 20-27): per configuration, the files of the excluded DOIs
  dropped, success = ``success``, time limit = ``time limit exceeded``, error = the rest;
* per data set (nb01 cell 17, charted but not printed): a package succeeds when any of its
  files does, hits the time limit when one does and none succeeds, fails otherwise;
* combined (nb02 cells 9-29 with cleaning, 32-55 without): the three R versions' logs merged
  on (doi, file) by outer joins; a file's result is ``success`` if any version ran it, *no
  result* when a version has no line for it or one hit the time limit, ``auth`` when one
  said "not authorized", else R 3.6's result; then the files of DOIs with a download error
  in the three configurations dropped unless they succeeded; rates over the files with a
  result (nb02 cells 29, 55) and over their data sets (cells 66-70);
* the validation merge (nb02 cells 57-61) and the error types (err cells 8-35): non-success
  results classified by the notebook's ``error_type`` substring rules, the five ``Error in
  source(r_file)`` lines dropped, the Sankey matching of files before and after cleaning.

The paper's abstract rounds these differently: "74% of R files failed ... 56% failed when
code cleaning was applied"; the notebooks' combined per-file failure is 75.1% and 60.2%
(the result carries both, and docs/studies.md says where they part).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from reprokg.sparql.named import package_query
from reprokg.sparql.rows import select_rows
from reprokg.store.base import Store
from reprokg.studies.plugin import StudyValue
from reprokg.studies.study_result import StudyResult

RESULTS = "studies/sparql/trisovic2022_results.rq"
DOWNLOADS = "studies/sparql/trisovic2022_downloads.rq"
VERSIONS = ("3.2", "3.6", "4.0")
#: nb01's order of the six configurations (cell 7: er_321, er_322, er_361, …)
CONFIGURATIONS = [(v, c) for v in VERSIONS for c in (False, True)]
#: the abstract of the paper (Scientific Data 9, 60 (2022))
PAPER_FAILED_INITIALLY = 74.0
PAPER_FAILED_WITH_CLEANING = 56.0


@dataclass
class Inputs:
    results: pd.DataFrame  # version, cleaning, doi, file, result
    downloads: pd.DataFrame  # version, cleaning, doi, lines, failed


@dataclass(frozen=True, kw_only=True)
class TrisovicResult(StudyResult):
    """The notebooks' re-execution rates: per file, per data set, combined over versions,
    the error types and the paper's own figures beside them."""

    STUDY: ClassVar[str] = "trisovic2022"

    #: per configuration: lines of the download logs and those with an error
    downloads: list[dict[str, Any]]
    excluded_dois: int
    #: per configuration: files kept, success, time limit, error and their rates
    per_file: list[dict[str, Any]]
    per_dataset: list[dict[str, Any]]
    #: with_cleaning / without_cleaning: the three versions combined (nb02)
    combined: dict[str, dict[str, Any]]
    validation: dict[str, int]
    error_types: dict[str, Any]
    paper: dict[str, float | None]

    def to_json(self) -> dict[str, Any]:
        return {
            "study": self.STUDY,
            "method": self.method,
            "downloads": self.downloads,
            "excluded_dois": self.excluded_dois,
            "per_file": self.per_file,
            "per_dataset": self.per_dataset,
            "combined": self.combined,
            "validation": self.validation,
            "error_types": self.error_types,
            "paper": self.paper,
        }


def read(store: Store) -> Inputs:
    def frame(query: str, columns: list[str]) -> pd.DataFrame:
        rows = select_rows(store, package_query(query).bind({}))
        df = pd.DataFrame(rows, columns=columns)
        df["version"] = df["version"].astype(str).str.removeprefix("R ")
        return df

    return Inputs(
        frame(RESULTS, ["version", "cleaning", "doi", "file", "result"]),
        frame(DOWNLOADS, ["version", "cleaning", "doi", "lines", "failed"]),
    )


def is_empty(inputs: Inputs) -> bool:
    return inputs.results.empty


def _name(version: str, cleaning: bool) -> str:
    return f"R {version} {'with' if cleaning else 'without'} code cleaning"


def _log(inputs: Inputs, version: str, cleaning: bool, column: str = "result") -> pd.DataFrame:
    r = inputs.results
    df = r[(r.version == version) & (r.cleaning == cleaning)][["doi", "file", "result"]]
    return df.rename(columns={"result": column}).reset_index(drop=True)


def _bad_dois(inputs: Inputs, configurations: list[tuple[str, bool]]) -> set[str]:
    d = inputs.downloads
    sets = [
        set(d[(d.version == v) & (d.cleaning == c) & (d.failed > 0)].doi) for v, c in configurations
    ]
    return set.intersection(*sets) if sets else set()


def _rate(k: int, n: int) -> float | None:
    return k / n if n else None


def _percent(rate: float | None) -> float | None:
    return None if rate is None else round(100 * rate, 1)


def analyze(inputs: Inputs, method: str = "published") -> TrisovicResult:
    d = inputs.downloads
    downloads = []
    for v, c in CONFIGURATIONS:  # nb01 cell 8
        sub = d[(d.version == v) & (d.cleaning == c)]
        downloads.append(
            {
                "configuration": _name(v, c),
                "version": v,
                "cleaning": c,
                "lines": int(sub.lines.sum()),
                "lines_with_error": int(sub.failed.sum()),
                "dois_with_error": int((sub.failed > 0).sum()),
            }
        )
    bad = _bad_dois(inputs, CONFIGURATIONS)  # nb01 cells 9-11
    per_file, per_dataset = [], []
    for v, c in CONFIGURATIONS:
        df = _log(inputs, v, c)
        kept = df[~df.doi.isin(bad)]  # nb01 cell 15: remove_bad_dois
        n = len(kept)
        success = int((kept.result == "success").sum())
        til = int((kept.result == "time limit exceeded").sum())
        per_file.append(
            {
                "configuration": _name(v, c),
                "version": v,
                "cleaning": c,
                "entries": len(df),
                "entries_after_exclusion": n,
                "unique_dois": int(kept.doi.nunique()),
                "success": success,
                "time_limit": til,
                "error": n - til - success,
                "success_rate": _rate(success, n),
                "time_limit_rate": _rate(til, n),
                "error_rate": _rate(n - til - success, n),
            }
        )
        total = set(kept.doi)  # nb01 cell 17: get_aggregated
        suc = set(kept[kept.result == "success"].doi)
        exc = set(kept[kept.result == "time limit exceeded"].doi) - suc
        per_dataset.append(
            {
                "configuration": _name(v, c),
                "version": v,
                "cleaning": c,
                "datasets": len(total),
                "success": len(suc),
                "time_limit": len(exc),
                "error": len(total - suc - exc),
                "success_rate": _rate(len(suc), len(total)),
            }
        )
    combined: dict[str, dict[str, Any]] = {}
    frames: dict[bool, pd.DataFrame] = {}
    for c in (True, False):
        key = "with_cleaning" if c else "without_cleaning"
        combined[key], frames[c] = _combined(inputs, c)
    # nb02 cells 57-61: the two combined frames side by side
    m = pd.merge(frames[True], frames[False], on=["doi", "file"], how="outer")
    validation = {
        "rows": len(m),
        "success_both": int(((m.success_x == 1) & (m.success_y == 1)).sum()),
        "no_result_without_cleaning": int(m.success_y.isnull().sum()),
    }
    with_c, without_c = combined["with_cleaning"], combined["without_cleaning"]
    return TrisovicResult(
        method=method,
        downloads=downloads,
        excluded_dois=len(bad),
        per_file=per_file,
        per_dataset=per_dataset,
        combined=combined,
        validation=validation,
        error_types=_error_types(frames[True], frames[False]),
        paper={
            "failed_initially_percent": _percent(without_c["error_rate"]),
            "paper_failed_initially_percent": PAPER_FAILED_INITIALLY,
            "failed_with_cleaning_percent": _percent(with_c["error_rate"]),
            "paper_failed_with_cleaning_percent": PAPER_FAILED_WITH_CLEANING,
        },
    )


def _combined_result(r32: Any, r36: Any, r40: Any) -> Any:
    """nb02 cell 14, ``get_combined_result``, rule by rule."""
    versions = [r32, r36, r40]
    if "success" in versions:
        return "success"
    if any(pd.isnull(x) for x in versions):
        return np.nan
    if "time limit exceeded" in versions:
        return np.nan
    if "not authorized" in versions:
        return "auth"
    return r36 or r40 or r32


def _success(el: Any) -> Any:
    """nb02 cell 15, ``get_success``: 1, 0, -1 (auth) or NaN."""
    if pd.isna(el):
        return el
    if el == "success":
        return 1
    if el == "auth":
        return -1
    return 0 if len(str(el)) > 1 else None


def _combined(inputs: Inputs, cleaning: bool) -> tuple[dict[str, Any], pd.DataFrame]:
    logs = {v: _log(inputs, v, cleaning, "r" + v.replace(".", "")) for v in VERSIONS}
    df = pd.merge(logs["3.2"], logs["3.6"], on=["doi", "file"], how="outer")  # cell 9
    merged_32_36 = len(df)
    df = pd.merge(df, logs["4.0"], on=["doi", "file"], how="outer")  # cell 11
    merged = len(df)
    # object dtype even when no file was run: an empty list would make a float column,
    # which the error-type cells' string tests refuse
    df["result"] = pd.Series(
        [_combined_result(a, b, c) for a, b, c in zip(df.r32, df.r36, df.r40, strict=True)],
        index=df.index,
        dtype=object,
    )
    df["success"] = df["result"].apply(_success)
    counts = df["success"].value_counts(dropna=False)
    success_counts = {("none" if pd.isna(k) else str(int(k))): int(n) for k, n in counts.items()}
    unique = int(df.doi.nunique())
    bad = _bad_dois(inputs, [(v, cleaning) for v in VERSIONS])  # cell 20
    df = df.drop(df[df.doi.isin(bad) & (df["result"] != "success")].index)  # cell 21
    dfe = df[df.result.notnull()]  # cell 29
    n = len(dfe)
    success = int((dfe.result == "success").sum())
    datasets = int(dfe.doi.nunique())
    with_success = int(dfe[dfe.result == "success"].doi.nunique())
    out = {
        "merged_rows_r32_r36": merged_32_36,
        "merged_rows": merged,
        "success_counts": success_counts,
        "unique_dois": unique,
        "excluded_dois": len(bad),
        "rows_after_exclusion": len(df),
        "dois_after_exclusion": int(df.doi.nunique()),
        "files_with_result": n,
        "dois_with_result": int(dfe.doi.nunique()),
        "success": success,
        "error": n - success,
        "success_rate": _rate(success, n),
        "error_rate": _rate(n - success, n),
        # cells 66-70: a data set succeeds when one of its files does
        "datasets": datasets,
        "datasets_with_success": with_success,
    }
    out["dataset_success_rate"] = _rate(with_success, datasets)
    return out, df


def error_type(el: str) -> str:
    """err cell 8, ``error_type``: the notebook's substring rules in its order."""
    if "success" in el:
        return "success"
    if "setwd" in el:
        return "setwd"
    for s in (
        "there is no package",
        "no packages called",
        "could not find function",
        "no library trees found",
        "install.packages",
    ):
        if s in el:
            return "library"
    for s in (
        "cannot open the connection",
        "does not exist",
        "No such file or directory",
        "must already exist",
        "basename",
        "cannot open file",
        "no device to print",
        "figure margins",
        ".pdf",
    ):
        if s in el:
            return "file, path or output"
    if "object" in el and "not found" in el:
        return "R object not found"
    if "reached elapsed time limit" in el:
        return "reached time limit"
    return "other"


def _error_types(with_c: pd.DataFrame, without_c: pd.DataFrame) -> dict[str, Any]:
    """err cells 10-35: the errors left after each combination, by type."""

    def errors(df: pd.DataFrame) -> pd.DataFrame:
        df = df[df["result"].notna()]  # cell 10
        df = df[df["result"] != "success"]  # cell 11
        df = df[~df.result.str.contains("Error in source(r_file)", regex=False)]  # cell 15
        return df.assign(error_type=df["result"].apply(error_type))  # cell 16

    source_errors = int(
        with_c[with_c.result.notna() & (with_c.result != "success")]
        .result.str.contains("Error in source(r_file)", regex=False)
        .sum()
    )
    e1, e2 = errors(with_c), errors(without_c)

    def shares(df: pd.DataFrame) -> dict[str, float]:  # cells 32, 34
        pct = (df["error_type"].value_counts(normalize=True) * 100).round(2).sort_index()
        return {str(k): float(v) for k, v in pct.items()}

    # cells 19-28: the files with an error both before and after cleaning
    m = pd.merge(e1, e2, on=["doi", "file"], how="outer")
    m = m[m["result_x"].notna() & m["result_y"].notna()]
    type_x = m["result_x"].apply(error_type)
    type_y = m["result_y"].apply(error_type)
    return {
        "source_r_file_errors": source_errors,
        "with_cleaning": {"n": len(e1), "percent": shares(e1)},
        "without_cleaning": {
            "n": len(e2),
            "counts": {str(k): int(v) for k, v in e2["error_type"].value_counts().items()},
            "percent": shares(e2),
        },
        "matched": {
            "n": len(m),
            "after_cleaning": {str(k): int(v) for k, v in type_y.value_counts().items()},
            "other_after_from": {
                str(k): int(v) for k, v in type_x[type_y == "other"].value_counts().items()
            },
        },
    }


def format_table(result: TrisovicResult) -> str:
    lines = [f"Re-execution per R file (nb01), DOIs excluded: {result.excluded_dois}"]
    lines.append(
        f"{'configuration':<36}{'files':>7}{'success':>9}{'TLE':>6}{'error':>7}{'rate':>8}"
    )
    for r in result.per_file:
        lines.append(
            f"{r['configuration']:<36}{r['entries_after_exclusion']:>7}{r['success']:>9}"
            f"{r['time_limit']:>6}{r['error']:>7}{100 * (r['success_rate'] or 0):>7.1f}%"
        )
    lines.append("")
    lines.append(f"{'per data set':<36}{'sets':>7}{'success':>9}{'TLE':>6}{'error':>7}")
    for r in result.per_dataset:
        lines.append(
            f"{r['configuration']:<36}{r['datasets']:>7}{r['success']:>9}"
            f"{r['time_limit']:>6}{r['error']:>7}"
        )
    lines.append("")
    for key, label in (("without_cleaning", "without"), ("with_cleaning", "with")):
        c = result.combined[key]
        lines.append(
            f"combined R 3.2/3.6/4.0, {label} cleaning: {c['success']} of "
            f"{c['files_with_result']} files ran ({100 * c['success_rate']:.1f}%), "
            f"{c['datasets_with_success']} of {c['datasets']} data sets"
        )
    p = result.paper
    lines.append(
        f"failed (notebooks): {p['failed_initially_percent']}% initially, "
        f"{p['failed_with_cleaning_percent']}% with cleaning; the paper's abstract: "
        f"{p['paper_failed_initially_percent']:.0f}% and "
        f"{p['paper_failed_with_cleaning_percent']:.0f}%"
    )
    return "\n".join(lines)


def values(result: TrisovicResult) -> list[StudyValue]:
    out = []
    for r in result.per_file:
        tag = f"r{r['version'].replace('.', '')}_{'env' if r['cleaning'] else 'no_env'}"
        out.append(
            StudyValue(
                name=f"per_file.{tag}.success_rate",
                description=f"share of R files that ran without error, {r['configuration']}",
                statistic=r["success_rate"],
                n=r["entries_after_exclusion"],
            )
        )
    for key, c in result.combined.items():
        words = key.replace("_", " ")
        out.append(
            StudyValue(
                name=f"combined.{key}.success_rate",
                description=f"share of files that ran in some R version, {words}",
                statistic=c["success_rate"],
                n=c["files_with_result"],
            )
        )
        out.append(
            StudyValue(
                name=f"combined.{key}.dataset_success_rate",
                description=f"share of data sets with a file that ran, {words}",
                statistic=c["dataset_success_rate"],
                n=c["datasets"],
            )
        )
    return out


def charts(result: TrisovicResult, inputs: Inputs, fmt: str = "svg") -> dict[str, bytes]:
    return {}
