"""Why reprokg has its own mixed-model numerics: statsmodels MixedLM, interlace-lme and
reprokg.stability against lme4/lmerTest, on the three data sets of the R cross-check.

Prints, per data set and library, the largest deviation from R of each kind of number in
the issue's JSON ("n/a" where the library does not produce it) and writes
``evaluation.csv`` next to this file. R is run twice: with lmer's default optimizer
settings and run to convergence ("tight"). interlace-lme is not a dependency of reprokg;
install it next to the project to rerun (``pip install interlace-lme==0.3.2``):

    python -m benchmarks.stability.evaluate_libs
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from reprokg.stability.analysis import analyse  # noqa: E402
from reprokg.stability.simulate import crossed_design, paper_design  # noqa: E402
from tests.stability.rref import Deviation, compare, run_r  # noqa: E402

TERMS = ("seed", "repeat")


def datasets() -> dict[str, pd.DataFrame]:
    return {
        "paper (singular)": paper_design(1),
        "seed variance": paper_design(11, seed_sd=0.02, repeat_sd=0.004),
        "small unbalanced": crossed_design(5, n_seeds=6, n_repeats=4, per_cell=2, keep=0.7),
    }


EXTRA_PAIRS = {"small unbalanced": [("a", "b"), ("b", "c")]}


def _term(name: str) -> str:
    if name in ("Intercept", "(Intercept)"):
        return "(Intercept)"
    inner = name.split("[T.", 1)[1].rstrip("]")
    return f"experiment{inner}"


def _skeleton(n: int) -> dict[str, Any]:
    return {
        "n": n,
        "singular": None,
        "loglik": None,
        "fixed_effects": {},
        "variance_components": {t: {"variance": None, "sd": None} for t in (*TERMS, "residual")},
        "random_effects_tests": {
            t: {k: None for k in ("npar", "loglik", "aic", "lrt", "df", "p")} for t in TERMS
        },
        "anova": {},
        "contrasts": {},
    }


def _pairs(result: dict[str, Any]) -> list[tuple[str, str]]:
    return [tuple(k.split(" - ")) for k in result["contrasts"]]


def _lvec(names: list[str], a: str, b: str) -> np.ndarray:
    v = np.zeros(len(names))
    if a != names[0]:
        v[names.index(a)] = 1.0
    if b != names[0]:
        v[names.index(b)] = -1.0
    return v


def run_statsmodels(d: pd.DataFrame, pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """MixedLM with crossed intercepts as variance components of one all-rows group."""
    import statsmodels.formula.api as smf

    data = d.assign(seed=d["seed"].astype(str), repeat=d["repeat"].astype(str), g=1)
    exps = sorted(data["experiment"].unique())

    def fit(vcs: tuple[str, ...]) -> Any:
        vc = {t: f"0 + C({t})" for t in vcs}
        model = smf.mixedlm(
            "value ~ C(experiment)", data, groups="g", vc_formula=vc, re_formula="0"
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return model.fit(reml=True)

    out = _skeleton(len(d))
    full = fit(TERMS)
    k = len(exps)
    fe = full.fe_params
    bse = full.bse_fe
    for name in fe.index:
        z = fe[name] / bse[name]
        out["fixed_effects"][_term(name)] = {
            "estimate": float(fe[name]),
            "se": float(bse[name]),
            "df": None,
            "t": float(z),
            "p": float(full.pvalues[name]),
        }
    vcomp = np.asarray(full.vcomp)
    for t, v in zip(full.model.exog_vc.names, vcomp, strict=True):  # sorted by name
        out["variance_components"][t] = {"variance": float(v), "sd": math.sqrt(max(v, 0.0))}
    out["variance_components"]["residual"] = {
        "variance": float(full.scale),
        "sd": math.sqrt(full.scale),
    }
    out["loglik"] = float(full.llf)
    out["singular"] = bool(np.any(np.sqrt(np.maximum(vcomp, 0) / full.scale) < 1e-4))
    npar = k + 3
    for t in TERMS:
        red = fit(tuple(x for x in TERMS if x != t))
        lrt = 2 * (full.llf - red.llf)
        from scipy import stats

        out["random_effects_tests"][t] = {
            "npar": npar - 1,
            "loglik": float(red.llf),
            "aic": -2 * red.llf + 2 * (npar - 1),
            "lrt": float(lrt),
            "df": 1,
            "p": float(stats.chi2.sf(lrt, 1)) if lrt > 0 else 1.0,
        }
    L = np.hstack([np.zeros((k - 1, 1)), np.eye(k - 1)])
    ft = full.f_test(np.hstack([L, np.zeros((k - 1, len(full.params) - k))]))
    out["anova"]["experiment"] = {
        "sum_sq": None,
        "mean_sq": None,
        "num_df": int(ft.df_num),
        "den_df": None,
        "f": float(np.squeeze(ft.fvalue)),
        "p": None,
    }
    for a, b in pairs:
        tt = full.t_test(_lvec(exps, a, b)[None, :])
        est = float(np.squeeze(tt.effect))
        se = float(np.squeeze(tt.sd))
        lo, hi = np.squeeze(tt.conf_int())
        out["contrasts"][f"{a} - {b}"] = {
            "estimate": est,
            "se": se,
            "df": None,
            "t": est / se,
            "lower": float(lo),
            "upper": float(hi),
            "p": float(np.squeeze(tt.pvalue)),
        }
    return out


def run_interlace(d: pd.DataFrame, pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """interlace.fit with crossed intercepts; its Satterthwaite df and Type III F."""
    import interlace
    from scipy import stats

    data = d.assign(seed=d["seed"].astype(str), repeat=d["repeat"].astype(str))
    exps = sorted(data["experiment"].unique())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = interlace.fit("value ~ experiment", data, groups=list(TERMS))
        reduced = {
            t: interlace.fit("value ~ experiment", data, groups=[x for x in TERMS if x != t])
            for t in TERMS
        }
        f3 = interlace.anova_type3(full)
    out = _skeleton(len(d))
    for name in full.fe_params.index:
        out["fixed_effects"][_term(name)] = {
            "estimate": float(full.fe_params[name]),
            "se": float(full.fe_bse[name]),
            "df": float(full.fe_df[name]),
            "t": float(full.fe_tvalues[name]),
            "p": float(full.fe_pvalues[name]),
        }
    for t in TERMS:
        v = float(full.variance_components[t])
        out["variance_components"][t] = {"variance": v, "sd": math.sqrt(max(v, 0.0))}
    out["variance_components"]["residual"] = {
        "variance": float(full.scale),
        "sd": math.sqrt(full.scale),
    }
    out["loglik"] = float(full.llf)
    out["singular"] = bool(full.is_singular)
    npar = len(exps) + 3
    for t in TERMS:
        red = reduced[t]
        lrt = 2 * (full.llf - red.llf)
        out["random_effects_tests"][t] = {
            "npar": npar - 1,
            "loglik": float(red.llf),
            "aic": -2 * red.llf + 2 * (npar - 1),
            "lrt": float(lrt),
            "df": 1,
            "p": float(stats.chi2.sf(lrt, 1)) if lrt > 0 else 1.0,
        }
    row = f3.iloc[0]
    out["anova"]["experiment"] = {
        "sum_sq": None,
        "mean_sq": None,
        "num_df": int(row["df1"]),
        "den_df": float(row["df2"]),
        "f": float(row["F"]),
        "p": float(row["Pr(>F)"]),
    }
    cov = np.asarray(full.fe_cov)
    beta = np.asarray(full.fe_params)
    for a, b in pairs:
        v = _lvec(exps, a, b)
        est = float(v @ beta)
        se = float(math.sqrt(v @ cov @ v))
        out["contrasts"][f"{a} - {b}"] = {
            "estimate": est,
            "se": se,
            "df": None,
            "t": est / se,
            "lower": None,
            "upper": None,
            "p": None,
        }
    return out


GROUPS = (
    ("fixef estimate (abs)", "fixed_effects", "estimate"),
    ("fixef se", "fixed_effects", "se"),
    ("fixef df", "fixed_effects", "df"),
    ("fixef p", "fixed_effects", "p"),
    ("variances", "variance_components", "variance"),
    ("logLik", "loglik", None),
    ("ranova logLik", "random_effects_tests", "loglik"),
    ("ranova p", "random_effects_tests", "p"),
    ("F", "anova", "f"),
    ("F den df", "anova", "den_df"),
    ("F p", "anova", "p"),
    ("contrast se", "contrasts", "se"),
    ("contrast df", "contrasts", "df"),
    ("contrast p", "contrasts", "p"),
)


def summarise(devs: list[Deviation]) -> dict[str, str]:
    row: dict[str, str] = {}
    for label, section, leaf in GROUPS:
        sel = [
            d
            for d in devs
            if d.path.split(".", 1)[0] == section and (leaf is None or d.path.endswith("." + leaf))
        ]
        vals = [d.value for d in sel if d.kind in ("rel", "abs") and d.ours is not None]
        if not vals:
            row[label] = "n/a"
        else:
            v = max(vals)
            row[label] = "inf" if not math.isfinite(v) else f"{v:.1e}"
    return row


def main() -> None:
    rows = []
    for name, d in datasets().items():
        t0 = time.perf_counter()
        ours = analyse(d, study=name, pairs=EXTRA_PAIRS.get(name))
        t_ours = time.perf_counter() - t0
        pairs = _pairs(ours)
        libs: dict[str, Any] = {"reprokg.stability": (ours, t_ours)}
        for lib, fn in (("statsmodels", run_statsmodels), ("interlace-lme", run_interlace)):
            t0 = time.perf_counter()
            try:
                libs[lib] = (fn(d, pairs), time.perf_counter() - t0)
            except Exception as exc:  # noqa: BLE001 - a library's failure is a finding here
                print(f"{lib} failed on {name}: {exc!r}")
        for mode in ("default", "tight"):
            r = run_r(d, pairs=pairs, mode=mode)
            for lib, (res, secs) in libs.items():
                summ = summarise(compare(res, r))
                rows.append(
                    {"data": name, "R": mode, "library": lib, "secs": f"{secs:.3f}", **summ}
                )
    table = pd.DataFrame(rows)
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        print(table.to_string(index=False))
    table.to_csv(Path(__file__).resolve().parent / "evaluation.csv", index=False)


if __name__ == "__main__":
    main()
