"""The stability analysis of seed 003, from observations to the issue's JSON dict.

One row per run: ``value, experiment, seed, repeat`` (plus ``algorithm, implementation,
optimizer`` to find reruns, ``configuration`` carried along). The model is the paper's
eq. 5, ``value ~ experiment + (1 | seed) + (1 | repeat)``, with lme4's conventions
(treatment contrasts, experiments in sorted order, the first one the intercept) and
lmerTest's tests: ranova (H1 = the repeat term, H2 = the seed term), the Type III F test
of ``experiment`` and ``contest(m, L, joint = FALSE, confint = TRUE)`` for rerun pairs
(H3). Every number is one lme4/lmerTest print; see ``lmm.py`` for how.

Nothing here reads a store or speaks HTTP: callers hand over a DataFrame and get a
:class:`~reprokg.stability.result.StabilityResult` (:func:`report`) or its JSON
(:func:`analyse`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from reprokg.stability import lmm
from reprokg.stability.result import (
    RANDOM_TERMS,
    Contrast,
    FixedEffect,
    FTest,
    HypothesisOutcome,
    RandomEffectTest,
    StabilityResult,
    VarianceComponent,
)

RERUN_KEYS = ("algorithm", "implementation", "optimizer")
DEFAULT_ALPHA = 0.05

Json = dict[str, Any]


def _num(x: Any) -> float | None:
    """A JSON number, or None for NaN/inf (the caller adds the sentence to warnings)."""
    if x is None:
        return None
    v = float(x)
    return v if math.isfinite(v) else None


class _Rows:
    """The usable rows as numpy arrays (pandas per-call overhead dominated the analysis)."""

    def __init__(self, frame: pd.DataFrame, warnings: list[str]) -> None:
        missing = [c for c in ("value", "experiment", *RANDOM_TERMS) if c not in frame.columns]
        if missing:
            warnings.append(
                f"The observations have no {', '.join(missing)} column(s): nothing to fit."
            )
            frame = frame.assign(**{c: None for c in missing})
        value = pd.to_numeric(frame["value"], errors="coerce").to_numpy(dtype=float)
        keys = {c: frame[c].to_numpy(dtype=object) for c in ("experiment", *RANDOM_TERMS)}
        finite = np.isfinite(value)
        keys_ok = np.ones(len(value), dtype=bool)
        for col in keys.values():
            keys_ok &= ~pd.isna(col)
        n_bad_value = int((~finite).sum())
        n_bad_keys = int((finite & ~keys_ok).sum())
        if n_bad_value:
            warnings.append(
                f"{n_bad_value} row(s) with a missing or non-finite value were dropped before "
                "fitting."
            )
        if n_bad_keys:
            warnings.append(
                f"{n_bad_keys} row(s) without an experiment, seed or repeat were dropped "
                "before fitting."
            )
        keep = finite & keys_ok
        all_exp = {str(e) for e in keys["experiment"][keys_ok]}
        self.value = value[keep]
        self.n = int(keep.sum())
        # levels compared as text, so that seed 1 and seed "1" are one level
        text = {c: np.asarray([str(x) for x in v[keep]], dtype=object) for c, v in keys.items()}
        self.experiments, self.exp_codes = _codes(text["experiment"])
        self.codes = {t: _codes(text[t])[1] for t in RANDOM_TERMS}
        self.n_levels = {t: int(c.max()) + 1 if c.size else 0 for t, c in self.codes.items()}
        for gone in sorted(all_exp - set(self.experiments)):
            warnings.append(f"Experiment {gone!r} has no usable rows and is left out.")
        first = np.unique(self.exp_codes, return_index=True)[1] if self.n else np.zeros(0, int)
        rows = np.flatnonzero(keep)
        self.meta: dict[str, tuple[str, str, str] | None] = {}
        self.ambiguous: list[str] = []
        meta_cols = [
            frame[k].to_numpy(dtype=object)[rows] if k in frame.columns else None
            for k in RERUN_KEYS
        ]
        for e, i in zip(self.experiments, first, strict=True):
            vals = [_text(col[i]) if col is not None else "" for col in meta_cols]
            # RERUN_KEYS has three names
            self.meta[e] = tuple(vals) if vals[0] else None  # type: ignore[assignment]
            sel = self.exp_codes == self.experiments.index(e)
            for col in meta_cols:
                if col is not None and len({_text(x) for x in col[sel]}) > 1:
                    self.ambiguous.append(e)
                    break
        self.has_algorithm = "algorithm" in frame.columns


def _text(x: Any) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else str(x)


def _codes(values: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Sorted distinct values (code-point order, as Python's sorted) and integer codes."""
    if values.size == 0:
        return [], np.zeros(0, dtype=np.intp)
    levels, codes = np.unique(values.astype(str), return_inverse=True)
    return [str(x) for x in levels], codes.astype(np.intp)


def _reruns(rows: _Rows, warnings: list[str]) -> list[tuple[str, str]]:
    """Pairs (a, b), a < b, of experiments with the same algorithm/implementation/optimizer."""
    if not rows.has_algorithm:
        warnings.append("No algorithm column: reruns cannot be recognised, so H3 cannot be tested.")
        return []
    for name in rows.ambiguous:
        warnings.append(
            f"Experiment {name!r} has more than one algorithm/implementation/optimizer; "
            "its first row decides which reruns it belongs to."
        )
    groups: dict[tuple[str, str, str], list[str]] = {}
    for e in rows.experiments:
        key = rows.meta[e]
        if key is not None:
            groups.setdefault(key, []).append(e)
    pairs: list[tuple[str, str]] = []
    for names in groups.values():
        pairs.extend(combinations(sorted(names), 2))
    return sorted(pairs)


def _contrast_vector(names: list[str], a: str, b: str) -> np.ndarray:
    """Coefficients of ``a - b`` under treatment contrasts (reference = names[0])."""
    v = np.zeros(len(names))
    if a != names[0]:
        v[names.index(a)] = 1.0
    if b != names[0]:
        v[names.index(b)] = -1.0
    return v


def model_formula(has_experiment: bool, terms: list[str]) -> str:
    """The fitted model in lme4 syntax."""
    fixed = "experiment" if has_experiment else "1"
    return " + ".join([f"value ~ {fixed}", *[f"(1 | {t})" for t in terms]])


def empty_result(study: str | None, n: int, method: str, warnings: list[str]) -> StabilityResult:
    """The result with nothing estimable (every number null)."""
    return StabilityResult(
        study, n, model_formula(True, list(RANDOM_TERMS)), method, warnings=warnings
    )


@dataclass
class StudyFit:
    """The fitted model of one study and what is needed to report on it."""

    rows: _Rows
    method: str
    terms: list[str]
    x_names: list[str]
    X: np.ndarray | None
    model: lmm.LMMFit | None
    warnings: list[str] = field(default_factory=list)

    @property
    def experiments(self) -> list[str]:
        return self.rows.experiments

    def contrast_vector(self, a: str, b: str) -> np.ndarray:
        """Coefficients of ``a - b`` on the fixed effects (treatment contrasts)."""
        return _contrast_vector(self.experiments, a, b)

    def contrast(self, a: str, b: str, level: float = 0.95) -> dict[str, float]:
        """``a - b`` as lmerTest's contest1D (Satterthwaite df)."""
        assert self.model is not None
        return self.model.contrast(self.contrast_vector(a, b), level=level)

    def mean(self, e: str, level: float = 0.95) -> dict[str, float]:
        """The model's mean of experiment ``e`` (intercept + its effect) with its interval."""
        assert self.model is not None
        vec = np.zeros(len(self.experiments))
        vec[0] = 1.0
        j = self.experiments.index(e)
        if j:
            vec[j] = 1.0
        return self.model.contrast(vec, level=level)


def fit_study(frame: pd.DataFrame, *, reml: bool = True) -> StudyFit:
    """Clean the rows, build eq. 5 (leaving out what cannot be estimated) and fit it.

    Data problems end up in ``warnings`` (and ``model`` None when nothing can be fitted),
    never as an exception.
    """
    warnings: list[str] = []
    method = "REML" if reml else "ML"
    rows = _Rows(frame, warnings)
    fitted = StudyFit(rows, method, [], [], None, None, warnings)
    if rows.n == 0:
        warnings.append("No usable observations: nothing was fitted.")
        return fitted
    codes: list[np.ndarray] = []
    for term in RANDOM_TERMS:
        m = rows.n_levels[term]
        if m < 2:
            warnings.append(
                f"Only one {term} level: the {term} variance cannot be estimated, so "
                f"(1 | {term}) is left out of the model (lme4 stops with 'grouping "
                "factors must have > 1 sampled level'); its variance and test are null."
            )
        elif m >= rows.n:
            warnings.append(
                f"Every observation has its own {term}: the {term} variance cannot be told "
                f"from the residual, so (1 | {term}) is left out of the model (lme4 stops "
                "with 'number of levels of each grouping factor must be < number of "
                "observations'); its variance and test are null."
            )
        else:
            fitted.terms.append(term)
            codes.append(rows.codes[term])
    fitted.X, fitted.x_names = _fixed_design(rows.exp_codes, rows.experiments)
    if len(rows.experiments) == 1:
        warnings.append(
            f"Only one experiment ({rows.experiments[0]!r}): no F test of experiment and no "
            "contrasts."
        )
    _note_missing_cells(rows, warnings)
    try:
        design = lmm.make_design(
            rows.value, fitted.X, codes, x_names=fitted.x_names, factor_names=fitted.terms
        )
        fitted.model = lmm.fit(design, reml=reml)
    except lmm.ModelError as exc:
        warnings.append(f"The model could not be fitted: {exc}.")
        return fitted
    _hessian_warnings(fitted.model, warnings)
    if fitted.model.singular:
        zero = [
            t
            for t, th in zip(fitted.terms, fitted.model.theta, strict=True)
            if th < lmm.SINGULAR_TOL
        ]
        warnings.append(
            "Boundary (singular) fit: the "
            + " and the ".join(f"{t} variance" for t in zero)
            + (" are" if len(zero) > 1 else " is")
            + " estimated at (or next to) 0 (lme4::isSingular, tol 1e-4)."
        )
    return fitted


def analyse(
    frame: pd.DataFrame,
    *,
    study: str | None = None,
    reml: bool = True,
    alpha: float = DEFAULT_ALPHA,
    pairs: list[tuple[str, str]] | None = None,
) -> Mapping[str, Any]:
    """Fit eq. 5 and run the paper's tests; the issue's JSON dict (keys exactly so), i.e.
    :func:`report`'s :class:`StabilityResult` as JSON.

    ``pairs`` adds contrasts ``a - b`` to the rerun pairs found from the metadata.
    Never raises for data problems: what cannot be computed is ``None`` with a sentence
    in ``warnings``.
    """
    return report(fit_study(frame, reml=reml), study=study, alpha=alpha, pairs=pairs).to_json()


def report(
    fitted: StudyFit,
    *,
    study: str | None = None,
    alpha: float = DEFAULT_ALPHA,
    pairs: list[tuple[str, str]] | None = None,
) -> StabilityResult:
    """The :class:`StabilityResult` of a :class:`StudyFit` at level ``alpha``."""
    warnings = list(fitted.warnings)
    rows, terms, model = fitted.rows, fitted.terms, fitted.model
    experiments = rows.experiments
    has_experiment = len(experiments) > 1
    result = empty_result(study, rows.n, fitted.method, warnings)
    result.alpha = alpha
    if rows.n:
        result.model = model_formula(has_experiment, terms)
    if model is None:
        return result

    result.singular = model.singular
    result.loglik = _num(model.loglik)
    result.fixed_effects = {
        name: FixedEffect(*(_num(row[k]) for k in ("estimate", "se", "df", "t", "p")))
        for name, row in zip(fitted.x_names, model.coefficients(), strict=True)
    }
    vc = result.variance_components
    for term, var in zip(terms, model.variances, strict=True):
        vc[term] = VarianceComponent(_num(var), _num(math.sqrt(var)))
    vc["residual"] = VarianceComponent(_num(model.sigma**2), _num(model.sigma))

    tests = result.random_effects_tests
    try:
        ranova_rows = lmm.ranova(model)[1:]
    except lmm.ModelError as exc:  # a reduced model that cannot be refitted
        warnings.append(f"The random-effects tests could not be computed: {exc}.")
        ranova_rows = []
    for term, row in zip(terms, ranova_rows, strict=False):
        tests[term] = RandomEffectTest(
            int(row["npar"]),
            _num(row["loglik"]),
            _num(row["aic"]),
            _num(row["lrt"]),
            int(row["df"]),
            _num(row["p"]),
        )

    if has_experiment and fitted.X is not None:
        ft = model.ftest(lmm.type1_contrasts(fitted.X)[1:])
        result.anova = {
            "experiment": FTest(
                _num(ft["sum_sq"]),
                _num(ft["mean_sq"]),
                int(ft["num_df"]),
                _num(ft["den_df"]),
                _num(ft["f"]),
                _num(ft["p"]),
            )
        }

    reruns = _reruns(rows, warnings) if has_experiment else []
    wanted = list(reruns)
    for a, b in pairs or []:
        if a not in experiments or b not in experiments or a == b:
            warnings.append(f"Contrast {a} - {b} asked for, but there is no such pair.")
        elif (a, b) not in wanted:
            wanted.append((a, b))
    for a, b in wanted:
        c = fitted.contrast(a, b)
        result.contrasts.append(
            Contrast(
                a, b, *(_num(c[k]) for k in ("estimate", "se", "df", "t", "lower", "upper", "p"))
            )
        )
    result.hypotheses = _hypotheses(result, reruns, alpha, terms, warnings)
    _null_sentences(result, warnings)
    return result


def _fixed_design(exp_codes: np.ndarray, experiments: list[str]) -> tuple[np.ndarray, list[str]]:
    """Treatment-contrast model matrix, columns named as lme4 names them."""
    X = np.zeros((exp_codes.size, len(experiments)))
    X[:, 0] = 1.0
    rows = np.flatnonzero(exp_codes > 0)
    X[rows, exp_codes[rows]] = 1.0
    return X, ["(Intercept)", *[f"experiment{e}" for e in experiments[1:]]]


def _note_missing_cells(rows: _Rows, warnings: list[str]) -> None:
    ns, nr = rows.n_levels["seed"], rows.n_levels["repeat"]
    cell = (rows.exp_codes * ns + rows.codes["seed"]) * nr + rows.codes["repeat"]
    total = len(rows.experiments) * ns * nr
    empty = total - int(np.unique(cell).size)
    if empty > 0:
        warnings.append(
            f"{empty} of {total} experiment x seed x repeat cells have no observation; the "
            "model uses the rows present (unbalanced data, no imputation)."
        )


def _hessian_warnings(model: lmm.LMMFit, warnings: list[str]) -> None:
    """lmerTest's warnings about the Hessian of the variance parameters."""
    ev = model.hessian_eigenvalues
    neg = ev[ev < -lmm.HESSIAN_TOL]
    zero = ev[np.abs(ev) < lmm.HESSIAN_TOL]
    if neg.size:
        warnings.append(
            f"Model failed to converge with {neg.size} negative eigenvalue(s) of the "
            "Hessian of the variance parameters (lmerTest warns the same); Satterthwaite "
            "df use the positive part."
        )
    if zero.size:
        warnings.append(
            f"Model may not have converged with {zero.size} eigenvalue(s) of the Hessian "
            "close to zero (lmerTest warns the same); Satterthwaite df use its "
            "Moore-Penrose inverse."
        )


def _decision(p: float | None, alpha: float) -> str | None:
    if p is None:
        return None
    return "rejected" if p < alpha else "not_rejected"


def _hypotheses(
    result: StabilityResult,
    reruns: list[tuple[str, str]],
    alpha: float,
    terms: list[str],
    warnings: list[str],
) -> dict[str, HypothesisOutcome]:
    out: dict[str, HypothesisOutcome] = {}
    for h, term, what in (
        ("H1", "repeat", "same configuration and seed: stable across repeats"),
        ("H2", "seed", "same configuration, different seeds: stable"),
    ):
        p = result.random_effects_tests[term].p
        out[h] = HypothesisOutcome(
            f"{what}; likelihood ratio test of (1 | {term}) (lmerTest::ranova, chi-square, "
            f"1 df), rejected when p < alpha = {alpha:g}",
            p,
            _decision(p, alpha),
        )
        if term not in terms:
            warnings.append(f"{h} is not tested: (1 | {term}) is not in the model.")
    contrast_p = [result.contrast(f"{a} - {b}").p for a, b in reruns]
    rerun_p = [p for p in contrast_p if p is not None]
    if rerun_p:
        p = min(rerun_p)
        test = (
            "rerunning the same experiment gives the same mean; t tests (Satterthwaite df) "
            f"of the {len(reruns)} rerun contrast(s), rejected when any p < alpha = "
            f"{alpha:g} (no multiplicity adjustment, as in the paper); p is the smallest"
        )
        out["H3"] = HypothesisOutcome(test, p, _decision(p, alpha))
    else:
        out["H3"] = HypothesisOutcome()
        warnings.append(
            "H3 is not tested: no reruns (experiments with the same algorithm, "
            "implementation and optimizer under different names)."
        )
    return out


def _null_sentences(result: StabilityResult, warnings: list[str]) -> None:
    """A sentence for every number that came out undefined where one was expected."""
    for term, row in result.fixed_effects.items():
        if bad := row.nulls():
            warnings.append(f"Fixed effect {term}: {', '.join(bad)} undefined (null).")
    for c in result.contrasts:
        if bad := [k for k in c.nulls() if k not in ("minuend", "subtrahend")]:
            warnings.append(f"Contrast {c.name}: {', '.join(bad)} undefined (null).")
    for name, f in result.anova.items():
        if bad := f.nulls():
            warnings.append(f"F test of {name}: {', '.join(bad)} undefined (null).")
