"""The code-replicability study recomputed from the graph: SPARQL → pandas → statistics → JSON.

The analysis never reads the survey JSON files: one SELECT (``measures/sparql/
survey_papers.rq``) returns one row per reviewed paper with the facts the study's method
needs, :func:`paper_frame` types them into a DataFrame, and :func:`analyze_frame` follows
the paper's method (sharing rates with exact intervals, χ² tests without Yates, citations,
two-factor ANOVA, Benjamini–Hochberg over the eight p-values, table-1 counts). Every
section carries the SPARQL and the method it came from so a reader can re-derive it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from rdflib import Literal, URIRef
from rdflib.namespace import PROV, RDF, XSD

from reprokg import __version__
from reprokg.core.document import Document
from reprokg.core.identifiers import content_hash, mint
from reprokg.core.namespaces import RK, RKX, SCHEMA, new_graph
from reprokg.ingest import write_results
from reprokg.store.base import NativeQueries, SelectResult, Store
from reprokg.survey import stats as ss

SPARQL_DIR = Path(__file__).resolve().parent / "sparql"
DATASETS = ("consolidated", "per-paper")
YEAR_PAIRS = ((2014, 2016), (2014, 2018), (2016, 2018))
TEST_IDS = (
    "sharing_2014_vs_2016",
    "sharing_2014_vs_2018",
    "sharing_2016_vs_2018",
    "sharing_industry_vs_academia",
    "sharing_deep_vs_not",
    "citations_2014_code_vs_no_code",
    "score_by_year",
    "score_by_reviewer",
)

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


def load_sparql(name: str) -> str:
    return (SPARQL_DIR / f"{name}.rq").read_text(encoding="utf-8")


_SURVEYS = {
    "consolidated": "rk:ReplicabilityGraphics2020",
    "per-paper": "rk:ReplicabilityGraphicsSite",
}
_VALUES_RE = re.compile(r"VALUES \(\?survey \?dataset\) \{.*?\n  \}", re.S)


def papers_query(dataset: str = "both") -> str:
    """``survey_papers.rq`` restricted to one data set (its VALUES row) or both.

    Binding the survey up front halves the work when only one data set is wanted; the
    exact text run is what the provenance of each section shows."""
    sparql = load_sparql("survey_papers")
    if dataset == "both":
        return sparql
    if dataset not in _SURVEYS:
        raise ValueError(f"dataset must be one of {', '.join(DATASETS)} or both")
    row = f'VALUES (?survey ?dataset) {{\n    ({_SURVEYS[dataset]} "{dataset}")\n  }}'
    out, n = _VALUES_RE.subn(row, sparql)
    assert n == 1, "survey_papers.rq lost its VALUES block"
    return out


# --- extraction -------------------------------------------------------------------------


def select_rows(store: Any, sparql: str) -> list[dict[str, Any]]:
    """Rows of a SELECT as dicts of plain Python values (unbound variables left out).

    Any reprokg ``Store`` works through :meth:`Store.query`. A store with
    :class:`~reprokg.store.base.NativeQueries` (the embedded one) is read directly and its
    terms converted without rdflib: for the survey query that halves the time (building
    ~8,000 rdflib literals cost more than the query itself, measured in
    ``benchmarks/survey``). The default graph is the merge of the documents either way.
    """
    if isinstance(store, NativeQueries):  # the embedded store: the merged default graph
        import pyoxigraph as ox

        solutions = store.native_query(sparql)
        if not isinstance(solutions, ox.QuerySolutions):
            raise TypeError("the survey query must be a SELECT")
        names = [v.value for v in solutions.variables]
        return [
            {n: _py_ox(t) for n, t in zip(names, sol, strict=True) if t is not None}
            for sol in solutions
        ]
    res = store.query(sparql)
    if not isinstance(res, SelectResult):
        raise TypeError("the survey query must be a SELECT")
    return [{k: _py(v) for k, v in row.items()} for row in res.dicts()]


def _py(term: Any) -> Any:
    if isinstance(term, Literal):
        return term.toPython()
    return str(term)


_XSD = "http://www.w3.org/2001/XMLSchema#"
_INTEGER_TYPES = {
    _XSD + t
    for t in [
        "integer",
        "int",
        "long",
        "short",
        "byte",
        "nonNegativeInteger",
        "positiveInteger",
        "nonPositiveInteger",
        "negativeInteger",
        "unsignedInt",
        "unsignedLong",
        "unsignedShort",
    ]
}
_FLOAT_TYPES = {_XSD + "decimal", _XSD + "double", _XSD + "float"}


def _py_ox(term: Any) -> Any:
    """A pyoxigraph term as a plain value: numbers and booleans typed, the rest as text."""
    import pyoxigraph as ox

    if not isinstance(term, ox.Literal):
        return term.value
    dt = term.datatype.value
    if dt in _INTEGER_TYPES:
        return int(term.value)
    if dt == _XSD + "boolean":
        return term.value in ("true", "1")
    if dt in _FLOAT_TYPES:
        return float(term.value)
    return term.value


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


def analyze_frame(df: pd.DataFrame, sparql: str = "") -> dict[str, Any]:
    """The study's statistics over one dataset's paper frame, as the JSON the API serves."""
    df = df.copy()
    df["code_shared"] = df["code_shared"].fillna(False).astype(bool)
    sharing = _sharing(df)
    tests = _tests(df)
    raw = [tests[t]["p"] if t in tests else math.nan for t in TEST_IDS]
    adjusted = ss.benjamini_hochberg(raw)
    for tid, adj in zip(TEST_IDS, adjusted, strict=True):
        if tid in tests:
            tests[tid]["p_adjusted"] = _num(adj)
    prov = _provenance(sparql)
    for t in tests.values():
        t["provenance"] = prov("tests")
    names = sorted(str(d) for d in df["dataset"].dropna().unique())
    return {
        "dataset": names[0] if len(names) == 1 else names,
        "n_papers": len(df),
        "years": sorted(int(y) for y in df["year"].dropna().unique()),
        "sharing": {**sharing, "provenance": prov("sharing")},
        "tests": tests,
        "citations": {**_citations(df), "provenance": prov("citations")},
        "counts": {**_counts(df), "provenance": prov("counts")},
    }


_METHODS = {
    "sharing": "code_shared = availability answer 'Yes' (code or binary); count k, papers n, "
    "rate k/n and two-sided 95% Clopper-Pearson (exact binomial, beta quantile) interval, "
    "per year, per topic and overall",
    "tests": "Pearson chi-squared of two proportions on 2x2 tables without Yates' correction "
    "(year pairs, industry = any author from a private company vs academia only, deep "
    "learning vs not); Wilcoxon rank-sum with normal approximation and continuity "
    "correction on citations of 2014 papers with vs without code; two-factor main-effects "
    "ANOVA (Type II sums of squares) of the replication score over codes whose test was "
    "completed, factors year and reviewer; the eight raw p-values adjusted together with "
    "Benjamini-Hochberg (tests a dataset cannot compute are left out of the adjustment)",
    "citations": "Google Scholar citation counts of papers with vs without code per year: "
    "mean with Student-t 95% interval (mean +- t_{0.975,n-1} s/sqrt(n)), median, n",
    "counts": "Table-1-style counts per year and total; code-level counts are over papers "
    "with code; needed modification = a bug-fix score was given (not N/A); hard = bug-fix "
    "score <= 2; more than 100 minutes = time slot 10",
}


def _provenance(sparql: str) -> Callable[[str], dict[str, str]]:
    def make(section: str) -> dict[str, str]:
        return {"sparql": sparql, "method": _METHODS[section]}

    return make


def _sharing(df: pd.DataFrame) -> dict[str, Any]:
    return {
        "by_year": {
            k: p.to_dict() for k, p in ss.proportions_by(df, "year", "code_shared").items()
        },
        "by_topic": {
            k: p.to_dict() for k, p in ss.proportions_by(df, "topic", "code_shared").items()
        },
        "overall": ss.proportion(int(df["code_shared"].sum()), len(df)).to_dict(),
    }


def _tests(df: pd.DataFrame) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}

    def k_n(mask: pd.Series) -> tuple[int, int]:
        sub = df.loc[mask, "code_shared"]
        return int(sub.sum()), int(len(sub))

    for a, b in YEAR_PAIRS:
        ka, na = k_n(df["year"] == a)
        kb, nb = k_n(df["year"] == b)
        if na and nb:
            out[f"sharing_{a}_vs_{b}"] = _test_dict(ss.chi2_two_proportions(ka, na, kb, nb))
    for tid, col in (("sharing_industry_vs_academia", "industry"), ("sharing_deep_vs_not", "deep")):
        known = df[col].notna()
        if known.sum() == 0:
            continue
        k1, n1 = k_n(known & (df[col] == True))  # noqa: E712 - nullable boolean
        k2, n2 = k_n(known & (df[col] == False))  # noqa: E712
        if n1 and n2:
            out[tid] = _test_dict(ss.chi2_two_proportions(k1, n1, k2, n2))
    y14 = df[(df["year"] == 2014) & df["citations"].notna()]
    if len(y14) and y14["code_shared"].any() and (~y14["code_shared"]).any():
        res = ss.rank_sum_test(
            y14.loc[y14["code_shared"], "citations"].tolist(),
            y14.loc[~y14["code_shared"], "citations"].tolist(),
        )
        out["citations_2014_code_vs_no_code"] = _test_dict(res)
    scored = anova_rows(df)
    levels = scored["year"].nunique() + scored["reviewer"].nunique() if len(scored) else 0
    # the main-effects model has levels - 1 parameters: with no residual degree of freedom
    # left (a few papers, each year or reviewer alone) the F test is undefined (statsmodels
    # raised ValueError on the demo data: a 500 for /measures/survey?dataset=both)
    if (
        len(scored)
        and scored["year"].nunique() > 1
        and scored["reviewer"].nunique() > 1
        and len(scored) > levels - 1
    ):
        try:
            res = ss.anova_two_factor(scored, "replication_score", "year", "reviewer")
        except (ValueError, np.linalg.LinAlgError):
            res = None  # a degenerate design: the two tests are left out (undefined)
        if res is not None and all(math.isfinite(r.p) for r in res.values()):
            out["score_by_year"] = _test_dict(res["year"])
            out["score_by_reviewer"] = _test_dict(res["reviewer"])
    return out


def anova_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Papers with code whose test was completed and that have a replication score."""
    mask = (
        df["code_shared"].fillna(False).astype(bool)
        & (df["test_completed"] == True)  # noqa: E712
        & df["replication_score"].notna()
        & df["reviewer"].notna()
    )
    return df.loc[mask, ["year", "reviewer", "replication_score"]].copy()


def _test_dict(r: ss.TestResult) -> dict[str, Any]:
    d: dict[str, Any] = {"method": r.method, "statistic": _num(r.statistic), "p": _num(r.p)}
    if r.df is not None:
        d["df"] = r.df
    if r.detail:
        d["detail"] = r.detail
    return d


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


def _num(v: Any) -> float | None:
    if v is None:
        return None
    f = float(v)
    return None if math.isnan(f) else f


def analyze(store: Any, dataset: str = "consolidated") -> dict[str, Any]:
    """The analysis of one dataset, or ``{"consolidated": …, "per-paper": …}`` for ``both``."""
    if dataset == "both":
        return {d: analyze(store, d) for d in DATASETS}
    sparql = papers_query(dataset)
    return analyze_frame(frame_from_rows(select_rows(store, sparql)), sparql)


# --- output -----------------------------------------------------------------------------


def format_table(result: dict[str, Any]) -> str:
    """A plain-text rendering of one dataset's result for the terminal."""
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
    lines.append("")
    lines.append(f"Tests{'':<31} {'statistic':>10} {'p':>10} {'p (BH)':>10}")
    for tid in TEST_IDS:
        t = result["tests"].get(tid)
        if t is None:
            lines.append(f"  {tid:<34} {'(no data)':>10}")
            continue
        lines.append(
            f"  {tid:<34} {_fmt(t['statistic'], 10, '.3f')} {_fmt(t['p'], 10, '.4g')} "
            f"{_fmt(t.get('p_adjusted'), 10, '.4g')}"
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


ANALYSIS_KIND = "survey-analysis"
_SURVEY_NODES = {
    "consolidated": RK.ReplicabilityGraphics2020,
    "per-paper": RK.ReplicabilityGraphicsSite,
}


def result_document(result: dict[str, Any], dataset: str) -> Document:
    """The analysis as a :class:`~reprokg.core.document.Document` (kind ``survey-analysis``).

    The full JSON is kept as an ``rdf:JSON`` literal; each test is also a
    ``schema:PropertyValue`` (id, method, statistic, p, adjusted p) so it can be queried.
    The source key is per data set, so a re-run is a revision of the previous analysis.
    """
    payload = json.dumps(result, sort_keys=True, default=str).encode("utf-8")
    sha = content_hash(payload)
    g = new_graph()
    node = mint("analysis", f"survey-{dataset}-{sha[:20]}")
    g.add((node, RDF.type, PROV.Entity))
    g.add((node, RDF.type, SCHEMA.Dataset))
    g.add((node, SCHEMA.name, Literal(f"Code-replicability survey analysis ({dataset})")))
    if dataset in _SURVEY_NODES:
        g.add((node, PROV.wasDerivedFrom, _SURVEY_NODES[dataset]))
    g.add((node, RDF.value, Literal(payload.decode("utf-8"), datatype=RDF.JSON)))
    for tid, t in result.get("tests", {}).items():
        tnode = mint("analysis", f"survey-{dataset}-{sha[:20]}-{tid}")
        g.add((node, SCHEMA.variableMeasured, tnode))
        g.add((tnode, RDF.type, SCHEMA.PropertyValue))
        g.add((tnode, SCHEMA.propertyID, Literal(tid)))
        g.add((tnode, SCHEMA.description, Literal(t["method"])))
        for key in ("statistic", "p", "p_adjusted"):
            if t.get(key) is not None:
                g.add((tnode, RKX[key], Literal(float(t[key]), datatype=XSD.double)))
    return Document(
        kind=ANALYSIS_KIND,
        graph=g,
        source_name=f"survey-analysis-{dataset}.json",
        source_bytes=payload,
        loader="reprokg.survey.analysis",
        loader_version=__version__,
        source_key=f"{ANALYSIS_KIND}:{dataset}",
        subject=node,
    )


def save_result(store: Store, result: dict[str, Any], dataset: str) -> URIRef:
    """Write the analysis back as one document through ingest (validated, with provenance);
    an earlier analysis of the same data set becomes its ``prov:wasRevisionOf``."""
    doc = result_document(result, dataset)
    write_results(store, [doc])
    return doc.iri
