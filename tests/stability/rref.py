"""Run the reference analysis in R (lme4 + lmerTest) and compare it with ours, number by number.

Used by the tests and by benchmarks/stability. R is a test-time tool only, never a runtime
dependency.
"""

from __future__ import annotations

import math
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

R_SCRIPT = Path(__file__).resolve().parent / "r" / "stability.R"

# The tolerances.
FIXED_ABS = 1e-6
REL = 1e-4


def have_r() -> bool:
    """Rscript with lme4 and lmerTest installed."""
    if shutil.which("Rscript") is None:
        return False
    proc = subprocess.run(
        ["Rscript", "-e", "suppressMessages({library(lme4); library(lmerTest)})"],
        capture_output=True,
        text=True,
    )
    return proc.returncode == 0


@dataclass
class RResult:
    """Parsed output of one job of r/stability.R."""

    scalars: dict[str, Any] = field(default_factory=dict)
    theta: list[float] = field(default_factory=list)
    fixef: dict[str, list[float]] = field(default_factory=dict)
    vc: dict[str, list[float]] = field(default_factory=dict)
    ranova: dict[str, list[float]] = field(default_factory=dict)
    anova: dict[str, list[float]] = field(default_factory=dict)
    contrast: dict[str, list[float]] = field(default_factory=dict)
    times: list[float] = field(default_factory=list)
    wall: float = math.nan
    stderr: str = ""
    error: str = ""


def _f(x: str) -> float:
    return math.nan if x == "NA" else float(x)


def parse(text: str) -> RResult:
    """The records of one job (the lines between ``job NAME`` and ``end NAME``)."""
    res = RResult()
    for line in text.splitlines():
        f = line.rstrip("\n").split("\t")
        tag = f[0]
        if tag in ("fixef", "vc", "ranova", "anova", "contrast"):
            getattr(res, tag)[f[1]] = [_f(x) for x in f[2:]]
        elif tag == "theta":
            res.theta = [_f(x) for x in f[1:]]
        elif tag == "time":
            res.times = [_f(x) for x in f[1:]]
        elif tag == "singular":
            res.scalars["singular"] = f[1] == "TRUE"
        elif tag in ("n", "sigma", "loglik"):
            res.scalars[tag] = _f(f[1])
        elif tag == "error":
            res.error = "\t".join(f[1:])
    return res


@dataclass(frozen=True)
class Job:
    """One analysis for R: a data set, REML or ML, the contrasts, how often to time it."""

    name: str
    frame: pd.DataFrame
    reml: bool = True
    pairs: tuple[tuple[str, str], ...] = ()
    reps: int = 1
    mode: str = "default"  # or "tight": BOBYQA run to convergence


def run_jobs(jobs: list[Job], *, nice: bool = False) -> dict[str, RResult]:
    """Every job in one ``Rscript`` process (lme4 + lmerTest load once); results by name.

    ``wall`` of each result is the whole process's time. Raises RuntimeError when R fails
    as a whole or a job raised an R error.
    """
    with tempfile.TemporaryDirectory() as tmp:
        lines = []
        for i, job in enumerate(jobs):
            csv = Path(tmp) / f"data{i}.csv"
            job.frame.to_csv(csv, index=False)
            spec = ";".join(f"{a}|{b}" for a, b in job.pairs) or "-"
            method = "REML" if job.reml else "ML"
            lines.append("\t".join([job.name, str(csv), method, spec, str(job.reps), job.mode]))
        spec_file = Path(tmp) / "jobs.tsv"
        spec_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
        cmd = ["Rscript", str(R_SCRIPT), str(spec_file)]
        if nice:
            cmd = ["nice", "-n", "10", *cmd]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"Rscript failed:\n{proc.stderr}")
    out: dict[str, RResult] = {}
    chunks = proc.stdout.split("\njob\t")
    chunks[0] = chunks[0].removeprefix("job\t")
    for chunk in chunks:
        if not chunk.strip():
            continue
        name, _, body = chunk.partition("\n")
        res = parse(body)
        if res.error:
            raise RuntimeError(f"R failed on {name}: {res.error}")
        res.wall = wall
        res.stderr = proc.stderr
        out[name] = res
    missing = [j.name for j in jobs if j.name not in out]
    if missing:
        raise RuntimeError(f"R printed nothing for {missing}:\n{proc.stderr}")
    return out


def run_r(
    frame: pd.DataFrame,
    *,
    reml: bool = True,
    pairs: list[tuple[str, str]] | None = None,
    reps: int = 1,
    mode: str = "default",
    nice: bool = False,
) -> RResult:
    """One analysis in its own Rscript process."""
    job = Job("one", frame, reml, tuple(pairs or ()), reps, mode)
    return run_jobs([job], nice=nice)["one"]


@dataclass
class Deviation:
    path: str
    ours: Any
    theirs: Any
    kind: str  # "abs" or "rel"
    value: float  # the deviation in that kind
    ok: bool


def _close(
    path: str, ours: Any, theirs: float, *, rel: float, abs_: float = 0.0, floor: float = 0.0
) -> Deviation:
    """|ours - theirs| <= max(rel * |theirs|, abs_) + floor (floor: for values that are ~0)."""
    if ours is None or (isinstance(theirs, float) and math.isnan(theirs)):
        ok = ours is None and isinstance(theirs, float) and math.isnan(theirs)
        return Deviation(path, ours, theirs, "missing", 0.0 if ok else math.inf, ok)
    diff = abs(float(ours) - theirs)
    scale = abs(theirs)
    if abs_ and not rel:
        return Deviation(path, ours, theirs, "abs", diff, diff <= abs_ + floor)
    value = diff / scale if scale > 0 else (0.0 if diff == 0 else math.inf)
    ok = diff <= max(rel * scale, abs_) + floor
    return Deviation(path, ours, theirs, "rel", value, ok)


def compare(ours: dict[str, Any], r: RResult, *, p_rel: float = REL) -> list[Deviation]:
    """Every number of the issue's JSON against R's, at the issue's tolerances.

    Variances and sds that are ~0 (singular fits: R's optimiser may stop at theta ~1e-8
    instead of 0) are compared with a floor on the residual's scale (1e-8 of the residual
    variance, 1e-4 of the residual sd); a p-value R reports as exactly 0 (underflow) needs
    ours below 1e-300; an LRT R reports as ~1e-12 where ours is exactly 0 needs |diff| <
    1e-6.
    """
    out: list[Deviation] = []
    out.append(
        Deviation(
            "n",
            ours["n"],
            r.scalars["n"],
            "abs",
            abs(ours["n"] - r.scalars["n"]),
            ours["n"] == r.scalars["n"],
        )
    )
    out.append(
        Deviation(
            "singular",
            ours["singular"],
            r.scalars.get("singular"),
            "abs",
            0.0,
            ours["singular"] == r.scalars.get("singular"),
        )
    )
    out.append(_close("loglik", ours["loglik"], r.scalars["loglik"], rel=REL))
    for term, row in ours["fixed_effects"].items():
        est, se, df, t, p = r.fixef[term]
        pre = f"fixed_effects.{term}."
        out.append(_close(pre + "estimate", row["estimate"], est, rel=0.0, abs_=FIXED_ABS))
        out.append(_close(pre + "se", row["se"], se, rel=REL, abs_=FIXED_ABS))
        out.append(_close(pre + "df", row["df"], df, rel=REL))
        out.append(_close(pre + "t", row["t"], t, rel=REL))
        out.append(_close(pre + "p", row["p"], p, rel=p_rel, floor=1e-300))
    res_var, res_sd = r.vc["Residual"]
    for term, row in ours["variance_components"].items():
        key = "Residual" if term == "residual" else term
        if key not in r.vc:
            ok = row["variance"] is None
            out.append(Deviation(f"variance_components.{term}", row, None, "missing", 0.0, ok))
            continue
        var, sd = r.vc[key]
        pre = f"variance_components.{term}."
        out.append(_close(pre + "variance", row["variance"], var, rel=REL, floor=1e-8 * res_var))
        out.append(_close(pre + "sd", row["sd"], sd, rel=REL, floor=1e-4 * res_sd))
    for term, row in ours["random_effects_tests"].items():
        key = f"(1|{term})"
        if key not in r.ranova:
            ok = row["p"] is None
            out.append(Deviation(f"random_effects_tests.{term}", row, None, "missing", 0.0, ok))
            continue
        npar, ll, aic, lrt, df, p = r.ranova[key]
        pre = f"random_effects_tests.{term}."
        out.append(Deviation(pre + "npar", row["npar"], npar, "abs", 0.0, row["npar"] == npar))
        out.append(_close(pre + "loglik", row["loglik"], ll, rel=REL))
        out.append(_close(pre + "aic", row["aic"], aic, rel=REL))
        out.append(_close(pre + "lrt", row["lrt"], lrt, rel=REL, floor=1e-6))
        out.append(Deviation(pre + "df", row["df"], df, "abs", 0.0, row["df"] == df))
        out.append(_close(pre + "p", row["p"], p, rel=p_rel, floor=1e-300))
    if "experiment" in r.anova or ours["anova"]:
        a = ours["anova"].get("experiment")
        if a is None or "experiment" not in r.anova:
            out.append(
                Deviation(
                    "anova.experiment", a, r.anova.get("experiment"), "missing", math.inf, False
                )
            )
        else:
            ss, ms, ndf, ddf, f, p = r.anova["experiment"]
            out.append(_close("anova.experiment.sum_sq", a["sum_sq"], ss, rel=REL))
            out.append(_close("anova.experiment.mean_sq", a["mean_sq"], ms, rel=REL))
            out.append(
                Deviation(
                    "anova.experiment.num_df", a["num_df"], ndf, "abs", 0.0, a["num_df"] == ndf
                )
            )
            out.append(_close("anova.experiment.den_df", a["den_df"], ddf, rel=REL))
            out.append(_close("anova.experiment.f", a["f"], f, rel=REL))
            out.append(_close("anova.experiment.p", a["p"], p, rel=p_rel, floor=1e-300))
    for name, row in ours["contrasts"].items():
        est, se, df, t, lo, hi, p = r.contrast[name]
        pre = f"contrasts.{name}."
        out.append(_close(pre + "estimate", row["estimate"], est, rel=0.0, abs_=FIXED_ABS))
        out.append(_close(pre + "se", row["se"], se, rel=REL, abs_=FIXED_ABS))
        out.append(_close(pre + "df", row["df"], df, rel=REL))
        out.append(_close(pre + "t", row["t"], t, rel=REL))
        out.append(_close(pre + "lower", row["lower"], lo, rel=0.0, abs_=FIXED_ABS))
        out.append(_close(pre + "upper", row["upper"], hi, rel=0.0, abs_=FIXED_ABS))
        out.append(_close(pre + "p", row["p"], p, rel=p_rel, floor=1e-300))
    if len(r.contrast) != len(ours["contrasts"]):
        out.append(
            Deviation(
                "contrasts",
                sorted(ours["contrasts"]),
                sorted(r.contrast),
                "missing",
                math.inf,
                False,
            )
        )
    return out


def worst(devs: list[Deviation]) -> dict[str, float]:
    """The largest deviation per kind of number (for the evaluation table)."""
    groups: dict[str, float] = {}
    for d in devs:
        leaf = d.path.rsplit(".", 1)[-1]
        section = d.path.split(".", 1)[0]
        key = f"{section}.{leaf}" if "." in d.path else d.path
        if d.kind in ("rel", "abs") and math.isfinite(d.value):
            groups[key] = max(groups.get(key, 0.0), d.value)
    return groups
