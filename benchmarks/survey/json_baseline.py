"""The same statistics straight from ``consolidatedData.json`` with pandas + scipy/statsmodels.

The benchmark's other side: no graph, no SPARQL, no reprokg code — only the JSON keys as
the review form wrote them. Also a handy cross-check of the graph-based numbers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy import stats
from statsmodels.formula.api import ols
from statsmodels.stats.multitest import multipletests

AVAIL = "Is the code or software publicly available ?"
SCORE = "Feedbacks [could reproduce results (5=highly confident)]"
TESTED = "Did I manage to perform a complete test (deps/build)?"
CITES = "Citation count (google scholar)"


def frame(path: Path) -> pd.DataFrame:
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    df = pd.DataFrame(raw)
    return pd.DataFrame(
        {
            "year": df["Year"].astype(int),
            "topic": df["Topic"],
            "code": df[AVAIL] == "Yes",
            "industry": df["Authors"].str.contains("Private Companies"),
            "deep": df["Deep learning"] == "True",
            "citations": pd.to_numeric(df[CITES], errors="coerce"),
            "reviewer": df["Reviewer"].astype(str),
            "score": pd.to_numeric(df[SCORE], errors="coerce"),
            "tested": df[TESTED] == "Yes",
        }
    )


def cp(k: int, n: int) -> list[float]:
    ci = stats.binomtest(k, n).proportion_ci(method="exact")
    return [float(ci.low), float(ci.high)]


def analyze(df: pd.DataFrame) -> dict[str, Any]:
    out: dict[str, Any] = {"by_year": {}, "by_topic": {}, "tests": {}, "citations": {}}
    for col, key in (("year", "by_year"), ("topic", "by_topic")):
        for g, rows in df.groupby(col):
            k, n = int(rows["code"].sum()), len(rows)
            out[key][str(g)] = {"k": k, "n": n, "rate": k / n, "ci95": cp(k, n)}
    p: dict[str, float] = {}

    def chi(mask_a: pd.Series, mask_b: pd.Series) -> float:
        a, b = df.loc[mask_a, "code"], df.loc[mask_b, "code"]
        table = [[a.sum(), (~a).sum()], [b.sum(), (~b).sum()]]
        return float(stats.chi2_contingency(table, correction=False)[1])

    for y1, y2 in ((2014, 2016), (2014, 2018), (2016, 2018)):
        p[f"sharing_{y1}_vs_{y2}"] = chi(df["year"] == y1, df["year"] == y2)
    p["sharing_industry_vs_academia"] = chi(df["industry"], ~df["industry"])
    p["sharing_deep_vs_not"] = chi(df["deep"], ~df["deep"])
    y14 = df[df["year"] == 2014]
    p["citations_2014_code_vs_no_code"] = float(
        stats.mannwhitneyu(
            y14.loc[y14["code"], "citations"],
            y14.loc[~y14["code"], "citations"],
            method="asymptotic",
        ).pvalue
    )
    sub = df[df["code"] & df["tested"] & df["score"].notna()]
    table = sm.stats.anova_lm(ols("score ~ C(year) + C(reviewer)", data=sub).fit(), typ=2)
    p["score_by_year"] = float(table.loc["C(year)", "PR(>F)"])
    p["score_by_reviewer"] = float(table.loc["C(reviewer)", "PR(>F)"])
    adj = multipletests(list(p.values()), method="fdr_bh")[1]
    out["tests"] = {
        k: {"p": v, "p_adjusted": float(a)} for (k, v), a in zip(p.items(), adj, strict=True)
    }
    for y, rows in df.groupby("year"):
        out["citations"][str(y)] = {}
        for grp, vals in (("code", rows.loc[rows["code"], "citations"]),
                          ("no_code", rows.loc[~rows["code"], "citations"])):  # fmt: skip
            x = vals.dropna().to_numpy(float)
            lo, hi = stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
            out["citations"][str(y)][grp] = {
                "mean": float(x.mean()),
                "ci95": [float(lo), float(hi)],
                "median": float(np.median(x)),
            }
    return out
