"""ML Code Completeness Checklist, NeurIPS 2019 (Papers with Code): the R notebook in Python.

Follows ``notebooks/code_checklist-analysis.Rmd`` of paperswithcode/releasing-research-code
(cited ``Rmd:LINE``), with R's own algorithms re-implemented where Python libraries differ:

* Python repositories only (``t[t$python==1,]``, Rmd:29);
* score = number of ticks, ``rowSums(t[,4:8])`` over training, evaluation,
  pretrained_model, results, dependencies (Rmd:36);
* per score: count, proportion of the Python repositories, and ``summary()`` of stars —
  min, quartiles by R's default type-7 quantile, mean, max (Rmd:44-52). R ≥ 4.0 keeps the
  full values (older R rounded the summary to 4 significant digits);
* ``MASS::rlm(stars ~ training + evaluation + pretrained_model + results + dependencies)``
  with every default (Rmd:87): Huber ψ (k = 1.345), least-squares start, scale
  re-estimated each step as median(|r|)/0.6745, IRLS by weighted least squares, stop when
  ‖r_old − r_new‖/‖r_old‖ ≤ 1e-4 or after 20 steps; ``summary.rlm`` standard errors
  (method "XtX"): σ̂ = s·√(Σ(ψ(r/s)·r)²/(n−p)) … see :func:`rlm_huber`;
* ``wilcox.test(stars[score==5], stars[score==i])`` for i = 0..4 with R's defaults
  (Rmd:89-92): exact when both samples have fewer than 50 values and no value is tied,
  otherwise the normal approximation with tie correction and continuity correction.

statsmodels' ``RLM`` is not used: it estimates the scale differently (its default MAD is
centred at the median and its iteration and convergence rules differ), so its estimates
do not match ``rlm``'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, NotRequired, TypedDict

import numpy as np
import pandas as pd

from reprokg.sparql.named import package_query
from reprokg.sparql.rows import select_rows
from reprokg.store.base import Store
from reprokg.studies import mann_whitney
from reprokg.studies.plugin import StudyValue
from reprokg.studies.registry import PUBLISHED, PWC_CHECKLIST_2019
from reprokg.studies.study_result import StudyResult
from reprokg.survey.stats import midranks, rank_sum_normal

STUDY = PWC_CHECKLIST_2019
QUERY = "studies/sparql/pwc_checklist.rq"
ITEMS = ["training", "evaluation", "pretrained_model", "results", "dependencies"]
COLUMNS = ("repository", "stars", "python", *ITEMS)
HUBER_K = 1.345
MAXIT = 20
ACC = 1e-4


class WilcoxTest(TypedDict):
    """``wilcox.test(x, y)`` as R reports it, with the sample sizes."""

    statistic: float
    p: float
    method: str
    z: NotRequired[float]
    n: int
    n_x: int
    n_y: int


@dataclass(frozen=True, kw_only=True)
class PwcChecklistResult(StudyResult):
    """Stars of the Python repositories by checklist score, the robust regression and the
    rank-sum tests of 5 ticks against each other score."""

    STUDY: ClassVar[str] = PWC_CHECKLIST_2019.name

    #: Python repositories analysed
    n: int
    n_repositories: int
    #: score -> n, proportion and R's summary() of the stars
    by_score: dict[str, dict[str, float]]
    #: term -> estimate, se, t (empty when the design is singular)
    rlm: dict[str, dict[str, float]]
    rlm_fit: dict[str, float | bool]
    wilcoxon: dict[str, WilcoxTest]
    rules: list[str]
    provenance: dict[str, str]

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "n": self.n,
            "n_repositories": self.n_repositories,
            "by_score": self.by_score,
            "rlm": self.rlm,
            "rlm_fit": self.rlm_fit,
            "wilcoxon": self.wilcoxon,
            "rules": self.rules,
            "provenance": self.provenance,
        }


def read(store: Store) -> pd.DataFrame:
    """One row per assessed repository: ``repository`` (IRI), ``stars``, ``python`` and the
    five items as 1/0 (missing where the graph has no value)."""
    df = pd.DataFrame(select_rows(store, package_query(QUERY).bind({})))
    for col in COLUMNS:
        if col not in df.columns:
            df[col] = None
    df = df[list(COLUMNS)].copy()
    for col in ("python", *ITEMS):
        df[col] = df[col].map(lambda v: None if v is None else int(bool(v)))
    return df


def is_empty(df: pd.DataFrame) -> bool:
    return df.empty


def analyze(df: pd.DataFrame, method: str = PUBLISHED) -> PwcChecklistResult:
    """``{"n", "by_score", "rlm", "wilcoxon"}`` over the Python repositories of ``df``.

    ``df`` has one row per repository: ``stars``, ``python`` and the five items as 0/1
    (the CSV's columns, or :func:`read`'s).
    """
    if method != PUBLISHED:
        raise ValueError("pwc-checklist-2019 has one method: published")
    t = df[pd.to_numeric(df["python"], errors="coerce") == 1]
    t = t.dropna(subset=["stars", *ITEMS])
    stars = pd.to_numeric(t["stars"], errors="raise").to_numpy(float)
    items = t[ITEMS].apply(pd.to_numeric, errors="raise").to_numpy(float)
    score = items.sum(axis=1).astype(int)
    n = len(stars)
    by_score: dict[str, dict[str, float]] = {}
    for s in sorted(set(score.tolist())):
        x = stars[score == s]
        by_score[str(s)] = {"n": int(len(x)), "proportion": len(x) / n, **r_summary(x)}
    names = ["(Intercept)", *ITEMS]
    rlm: dict[str, dict[str, float]] = {}
    fit_info: dict[str, float | bool] = {}
    if n > len(names) and np.linalg.matrix_rank(np.column_stack([np.ones(n), items])) == 6:
        fit = rlm_huber(np.column_stack([np.ones(n), items]), stars)
        rlm = {
            name: {"estimate": float(b), "se": float(se), "t": float(b / se)}
            for name, b, se in zip(names, fit["coef"], fit["se"], strict=True)
        }
        fit_info = {
            "scale": fit["scale"],
            "iterations": fit["iterations"],
            "converged": fit["converged"],
            "df_residual": n - len(names),
        }
    wilcoxon: dict[str, WilcoxTest] = {}
    top = stars[score == 5]
    for k in range(5):
        other = stars[score == k]
        if len(top) and len(other):
            wilcoxon[f"5 vs {k}"] = wilcox_test(top, other)
    return PwcChecklistResult(
        method=method,
        n=n,
        n_repositories=int(len(df)),
        by_score=by_score,
        rlm=rlm,
        rlm_fit=fit_info,
        wilcoxon=wilcoxon,
        rules=list(STUDY.method(method).rules),
        provenance={"sparql": package_query(QUERY).bind({}), "follows": STUDY.follows},
    )


def r_summary(x: np.ndarray) -> dict[str, float]:
    """R's ``summary()`` of a numeric vector: min, q1, median, mean, q3, max (type 7)."""
    q = np.quantile(x, [0.0, 0.25, 0.5, 0.75, 1.0], method="linear")  # R type 7
    return {
        "min": float(q[0]),
        "q1": float(q[1]),
        "median": float(q[2]),
        "mean": float(np.mean(x)),
        "q3": float(q[3]),
        "max": float(q[4]),
    }


def _huber_weight(u: np.ndarray, k: float = HUBER_K) -> np.ndarray:
    """MASS ``psi.huber``: min(1, k/|u|), 1 at u = 0."""
    a = np.abs(u)
    out = np.ones_like(a)
    big = a > k
    out[big] = k / a[big]
    return out


def _wls(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    sw = np.sqrt(w)
    coef, *_ = np.linalg.lstsq(x * sw[:, None], y * sw, rcond=None)
    return coef


def rlm_huber(
    x: np.ndarray, y: np.ndarray, k: float = HUBER_K, maxit: int = MAXIT, acc: float = ACC
) -> dict[str, Any]:
    """M-estimation as ``MASS::rlm`` with its defaults, and ``summary.rlm``'s standard errors.

    Iteration (rlm.default, method "M", scale.est "MAD", test.vec "resid"): start from
    least squares; each step sets s = median(|r|)/0.6745 (the median of the absolute
    residuals themselves, not centred), weights w = min(1, k/|r/s|), refits by weighted
    least squares, and stops once √(Σ(r_old − r)²/max(1e-20, Σ r_old²)) ≤ acc (or s = 0),
    at most ``maxit`` steps. The reported scale is the last s, i.e. the one the final
    weights were computed from.

    Standard errors (summary.rlm, "XtX"): with u = r/s, ψ(u) = u·w, ψ'(u) = [|u| ≤ k],
    m = mean ψ', κ = 1 + p·var(ψ')/(n·m²) (var with ddof 1),
    σ = √(Σ(r·w)²/(n−p))·κ/m, and se_j = σ·√((XᵀX)⁻¹_jj).
    """
    n, p = x.shape
    if np.linalg.matrix_rank(x) < p:
        raise ValueError("singular design: rlm does not fit singular models")
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    resid = y - x @ coef
    scale = math.nan
    converged = False
    iterations = 0
    for _ in range(maxit):
        iterations += 1
        old = resid
        scale = float(np.median(np.abs(resid)) / 0.6745)
        if scale == 0:
            converged = True
            break
        w = _huber_weight(resid / scale, k)
        coef = _wls(x, y, w)
        resid = y - x @ coef
        delta = math.sqrt(float(((old - resid) ** 2).sum()) / max(1e-20, float((old**2).sum())))
        if delta <= acc:
            converged = True
            break
    u = resid / scale
    w = _huber_weight(u, k)
    s2 = float(((resid * w) ** 2).sum()) / (n - p)
    psiprime = (np.abs(u) <= k).astype(float)
    m = float(psiprime.mean())
    kappa = 1 + p * float(psiprime.var(ddof=1)) / (n * m**2)
    stddev = math.sqrt(s2) * kappa / m
    # √diag((XᵀX)⁻¹) as the row norms of R⁻¹ from the QR of X (as summary.rlm does)
    r = np.linalg.qr(x, mode="r")
    rinv = np.linalg.solve(r, np.eye(p))
    rowlen = np.sqrt((rinv**2).sum(axis=1))
    return {
        "coef": coef,
        "se": rowlen * stddev,
        "scale": scale,
        "stddev": stddev,
        "iterations": iterations,
        "converged": converged,
    }


def wilcox_test(x: np.ndarray, y: np.ndarray, correct: bool = True) -> WilcoxTest:
    """Two-sample ``wilcox.test(x, y)`` with R's defaults (two-sided, mu = 0).

    W = Σ ranks of x − n_x(n_x+1)/2 over mid-ranks of the pooled sample. Exact (the
    Mann–Whitney distribution, p = min(1, 2·P(W ≤ w)) or 2·P(W ≥ w) on the side of w) when
    n_x < 50, n_y < 50 and no value in the pooled sample is tied; otherwise the normal
    approximation with the tie-corrected variance and, by default, the continuity correction.
    """
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    nx, ny = len(x), len(y)
    pooled = np.concatenate([x, y])
    ranks = midranks(pooled)
    w = float(ranks[:nx].sum()) - nx * (nx + 1) / 2
    ties = len(np.unique(pooled)) != len(pooled)
    if nx < 50 and ny < 50 and not ties:
        # the tail on the side of w (R: pwilcox(w − 1, upper) above the centre, else lower)
        upper = w > nx * ny / 2
        tail = mann_whitney.exact_upper(w, nx, ny) if upper else mann_whitney.exact_cdf(w, nx, ny)
        return {
            "statistic": w,
            "p": min(2 * tail, 1.0),
            "method": "Wilcoxon rank sum exact test",
            "n": nx + ny,
            "n_x": nx,
            "n_y": ny,
        }
    _, z, p = rank_sum_normal(x, y, correct=correct)
    return {
        "statistic": w,
        "p": p,
        "method": "Wilcoxon rank sum test"
        + (" with continuity correction" if correct else "")
        + (" (exact not possible: ties)" if ties and nx < 50 and ny < 50 else ""),
        "z": z,
        "n": nx + ny,
        "n_x": nx,
        "n_y": ny,
    }


# --- output -----------------------------------------------------------------------------


def format_table(result: PwcChecklistResult) -> str:
    lines = [
        f"ML Code Completeness Checklist (NeurIPS 2019): {result.n} Python repositories of "
        f"{result.n_repositories} (method: {result.method})",
        "",
        f"  {'ticks':<6}{'n':>5}{'share':>8}{'min':>8}{'q1':>9}{'median':>9}{'mean':>10}"
        f"{'q3':>9}{'max':>9}",
    ]
    for s, v in result.by_score.items():
        lines.append(
            f"  {s:<6}{v['n']:>5}{v['proportion']:>8.1%}{v['min']:>8.0f}{v['q1']:>9.2f}"
            f"{v['median']:>9.1f}{v['mean']:>10.1f}{v['q3']:>9.2f}{v['max']:>9.0f}"
        )
    if result.rlm:
        fit = result.rlm_fit
        lines += [
            "",
            f"MASS::rlm (Huber), scale {fit['scale']:.2f}, {fit['iterations']} iterations, "
            f"{fit['df_residual']} residual df",
            f"  {'term':<18}{'estimate':>11}{'se':>10}{'t':>8}",
        ]
        for term, v in result.rlm.items():
            lines.append(f"  {term:<18}{v['estimate']:>11.3f}{v['se']:>10.3f}{v['t']:>8.3f}")
    if result.wilcoxon:
        lines += ["", "wilcox.test, 5 ticks vs each other score"]
        for name, w in result.wilcoxon.items():
            lines.append(
                f"  {name:<8} W = {w['statistic']:>7.1f}  p = {w['p']:.4g}  ({w['method']})"
            )
    return "\n".join(lines)


def values(result: PwcChecklistResult) -> list[StudyValue]:
    out = []
    for term, v in result.rlm.items():
        out.append(
            StudyValue(
                name=f"rlm.{term}",
                description="MASS::rlm (Huber) estimate of the stars per tick of the item",
                statistic=v["estimate"],
                n=result.n,
            )
        )
    for name, w in result.wilcoxon.items():
        out.append(
            StudyValue(
                name=f"wilcoxon.{name}",
                description=w["method"],
                statistic=w["statistic"],
                p=w["p"],
                n=w["n_x"] + w["n_y"],
            )
        )
    for s, v in result.by_score.items():
        out.append(
            StudyValue(
                name=f"by_score.{s}.median",
                description=f"median GitHub stars of Python repositories with {s} ticks",
                statistic=v["median"],
                n=int(v["n"]),
            )
        )
    return out


def charts(result: PwcChecklistResult, inputs: pd.DataFrame, fmt: str = "svg") -> dict[str, bytes]:
    """``median_stars_by_ticks``: the notebook's bar chart of median stars per score."""
    from reprokg.studies import plots

    by_score = result.by_score
    scores = list(by_score)
    medians = [by_score[s]["median"] for s in scores]
    notes = [f"n={by_score[s]['n']} ({by_score[s]['proportion']:.0%})" for s in scores]
    return {
        "pwc-checklist-2019-median_stars_by_ticks": plots.render(
            lambda: plots.bars(
                [f"{s} ticks" for s in scores],
                medians,
                ylabel="median GitHub stars",
                title="NeurIPS 2019 Python repositories by ML code checklist ticks",
                notes=notes,
            ),
            fmt,
        )
    }
