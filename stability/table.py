"""The stability analysis as text for the terminal, laid out like R's printouts.

Sections in the paper's order: the model, fixed effects (``summary(m)``), variance
components, the random-effects tests (Table 1, ``ranova``), the F test of experiment
(Table 4, ``anova``), the contrasts (Table 2, ``contest``), the hypotheses and the warnings.
``-`` is a null.
"""

from __future__ import annotations

from typing import Any


def _n(v: Any, spec: str = ".6g", width: int = 12) -> str:
    if v is None:
        return f"{'-':>{width}}"
    if isinstance(v, bool):
        return f"{str(v):>{width}}"
    return f"{v:>{width}{spec}}"


def _p(v: Any, width: int = 11) -> str:
    return _n(v, ".4g", width)


def format_table(result: dict[str, Any], title: str | None = None) -> str:
    lines: list[str] = []
    if title:
        lines.append(title)
    lines.append(f"study   {result['study']}")
    singular = {True: "singular fit", False: "not singular", None: "not fitted"}[result["singular"]]
    lines.append(f"model   {result['model']}   ({result['method']}, n = {result['n']}, {singular})")
    lines.append(f"logLik  {_n(result['loglik'], '.6f', 0).strip()}")
    lines.append("")

    lines.append(f"{'Fixed effects':<32}{'Estimate':>12}{'Std. Error':>12}{'df':>12}")
    lines[-1] += f"{'t value':>12}{'Pr(>|t|)':>11}"
    for term, row in result["fixed_effects"].items():
        lines.append(
            f"  {term:<30}{_n(row['estimate'])}{_n(row['se'])}{_n(row['df'], '.6g')}"
            f"{_n(row['t'], '.4f')}{_p(row['p'])}"
        )
    lines.append("")
    lines.append(f"{'Variance components':<32}{'Variance':>12}{'Std.Dev.':>12}")
    for term, row in result["variance_components"].items():
        lines.append(f"  {term:<30}{_n(row['variance'])}{_n(row['sd'])}")
    lines.append("")
    lines.append(
        f"{'Random effects (LRT, ranova)':<32}{'npar':>6}{'logLik':>12}{'AIC':>12}"
        f"{'LRT':>10}{'Df':>4}{'Pr(>Chisq)':>11}"
    )
    for term, row in result["random_effects_tests"].items():
        lines.append(
            f"  {'(1 | ' + term + ')':<30}{_n(row['npar'], 'd', 6)}{_n(row['loglik'], '.3f')}"
            f"{_n(row['aic'], '.3f')}{_n(row['lrt'], '.4g', 10)}{_n(row['df'], 'd', 4)}"
            f"{_p(row['p'])}"
        )
    lines.append("")
    lines.append(
        f"{'Type III F test (Satterthwaite)':<32}{'Sum Sq':>10}{'Mean Sq':>10}{'NumDF':>6}"
        f"{'DenDF':>10}{'F value':>10}{'Pr(>F)':>11}"
    )
    if not result["anova"]:
        lines.append("  (none: one experiment)")
    for term, row in result["anova"].items():
        lines.append(
            f"  {term:<30}{_n(row['sum_sq'], '.5g', 10)}{_n(row['mean_sq'], '.5g', 10)}"
            f"{_n(row['num_df'], 'd', 6)}{_n(row['den_df'], '.5g', 10)}{_n(row['f'], '.5g', 10)}"
            f"{_p(row['p'])}"
        )
    lines.append("")
    lines.append(
        f"{'Contrasts (a - b)':<40}{'Estimate':>11}{'Std. Error':>11}{'df':>9}{'t value':>9}"
        f"{'lower':>12}{'upper':>12}{'Pr(>|t|)':>11}"
    )
    if not result["contrasts"]:
        lines.append("  (none)")
    for name, row in result["contrasts"].items():
        lines.append(
            f"  {name:<38}{_n(row['estimate'], '.5g', 11)}{_n(row['se'], '.5g', 11)}"
            f"{_n(row['df'], '.5g', 9)}{_n(row['t'], '.3f', 9)}{_n(row['lower'], '.5g', 12)}"
            f"{_n(row['upper'], '.5g', 12)}{_p(row['p'])}"
        )
    lines.append("")
    lines.append("Hypotheses")
    for h, row in result["hypotheses"].items():
        decision = row["decision"] or "not tested"
        lines.append(f"  {h}  {decision:<13} p = {_p(row['p'], 0).strip()}")
        if row["test"]:
            lines.append(f"      {row['test']}")
    if result["warnings"]:
        lines.append("")
        lines.append("Warnings")
        lines.extend(f"  - {w}" for w in result["warnings"])
    return "\n".join(lines)
