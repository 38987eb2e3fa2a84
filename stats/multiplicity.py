"""Multiple-comparison corrections of a family of p-values, as R's ``p.adjust`` computes them.

A comparison reports one p-value per effectiveness measure and side (58 measures x 2 sides
by default): read one at a time, some are small by chance. :func:`adjust` corrects a whole
family at once with one of the six methods of R's ``p.adjust`` (family-wise error:
Bonferroni, Holm, Hochberg, Hommel; false discovery rate: Benjamini-Hochberg,
Benjamini-Yekutieli). Missing p-values (``None``/NaN) are left out of the family and stay
missing, as ``p.adjust`` does with ``NA``. tests/stats/test_multiplicity.py holds every
method to ``p.adjust`` run by Rscript, to 1e-12.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from reprokg.stats.methods import (
    BH_1995,
    BONFERRONI,
    BY_2001,
    HOCHBERG_1988,
    HOLM_1979,
    HOMMEL_1988,
    register,
)

_REFERENCE = "R stats::p.adjust"
CORRECTIONS = {
    "bonferroni": register(
        name="bonferroni",
        label="Bonferroni correction",
        definition="Each p-value times the family's size (at most 1): controls the "
        "family-wise error rate.",
        citation=BONFERRONI,
        reference=_REFERENCE,
        family="multiplicity",
    ),
    "holm": register(
        name="holm",
        label="Holm's step-down correction",
        definition="Sorted ascending, the i-th smallest of n p-values times (n - i + 1), made "
        "non-decreasing: controls the family-wise error rate, uniformly more powerful than "
        "Bonferroni.",
        citation=HOLM_1979,
        reference=_REFERENCE,
        family="multiplicity",
    ),
    "hochberg": register(
        name="hochberg",
        label="Hochberg's step-up correction",
        definition="Sorted descending, the i-th largest of n p-values times i, made "
        "non-increasing: family-wise error control for independent or positively dependent "
        "tests.",
        citation=HOCHBERG_1988,
        reference=_REFERENCE,
        family="multiplicity",
    ),
    "hommel": register(
        name="hommel",
        label="Hommel's correction",
        definition="The closed testing procedure with Simes' tests (Wright's 1992 "
        "algorithm): family-wise error control, more powerful than Hochberg's.",
        citation=HOMMEL_1988,
        reference=_REFERENCE,
        family="multiplicity",
    ),
    "BH": register(
        name="BH",
        label="Benjamini-Hochberg false discovery rate",
        definition="Sorted descending, the i-th largest of n p-values times n / (n - i + 1), "
        "made non-increasing: controls the false discovery rate for independent or "
        "positively dependent tests (Otero et al. 2025: with Wilcoxon, best practice in IR).",
        citation=BH_1995,
        reference=_REFERENCE,
        family="multiplicity",
    ),
    "BY": register(
        name="BY",
        label="Benjamini-Yekutieli false discovery rate",
        definition="Benjamini-Hochberg times the harmonic sum 1 + 1/2 + ... + 1/n: false "
        "discovery rate control under any dependence.",
        citation=BY_2001,
        reference=_REFERENCE,
        family="multiplicity",
    ),
}
#: R's other names for the false discovery rate methods
ALIASES = {"fdr": "BH"}
DEFAULT = "holm"


def correction_name(name: str) -> str:
    """The method's name as :data:`CORRECTIONS` holds it (``fdr`` is ``BH``); ValueError
    naming the known ones for anything else (``none`` is no correction)."""
    name = ALIASES.get(name, name)
    if name != "none" and name not in CORRECTIONS:
        known = ", ".join([*CORRECTIONS, *ALIASES, "none"])
        raise ValueError(f"unknown correction {name!r}; expected one of {known}")
    return name


def _adjust_sorted(p: np.ndarray, method: str) -> np.ndarray:
    """The adjusted values of ``p``, sorted ascending (``n`` = the family's size)."""
    n = len(p)
    i = np.arange(1, n + 1, dtype=float)
    if method == "bonferroni":
        return np.minimum(1.0, n * p)
    if method == "holm":
        return np.minimum(1.0, np.maximum.accumulate((n - i + 1) * p))
    # the step-up methods run from the largest p-value down
    if method == "hochberg":
        return np.minimum(1.0, np.minimum.accumulate(((n - i + 1) * p)[::-1])[::-1])
    if method == "BH":
        return np.minimum(1.0, np.minimum.accumulate((n / i * p)[::-1])[::-1])
    if method == "BY":
        harmonic = float(np.sum(1.0 / i))
        return np.minimum(1.0, np.minimum.accumulate((harmonic * n / i * p)[::-1])[::-1])
    if method == "hommel":
        return _hommel_sorted(p)
    raise ValueError(method)


def _hommel_sorted(p: np.ndarray) -> np.ndarray:
    """Hommel's adjusted p-values of ascending ``p`` (Wright 1992, section 3).

    For each size m of the intersection hypotheses, from n - 1 down to 2, a hypothesis's
    value is the smallest Simes p-value of an m-sized intersection holding it; its adjusted
    value is the largest of those over m (and at least its own p-value).
    """
    n = len(p)
    if n == 1:
        return p.copy()
    i = np.arange(1, n + 1, dtype=float)
    q = np.full(n, np.min(n * p / i))
    adjusted = q.copy()
    for m in range(n - 1, 1, -1):
        head = n - m + 1  # hypotheses 1..head get min(m p_i, the Simes value of the tail)
        tail = p[head:]  # the m - 1 largest
        simes_tail = np.min(m * tail / np.arange(2, m + 1))
        q[:head] = np.minimum(m * p[:head], simes_tail)
        q[head:] = q[head - 1]
        adjusted = np.maximum(adjusted, q)
    return np.maximum(adjusted, p)


def adjust(pvalues: Sequence[float | None], method: str = DEFAULT) -> list[float | None]:
    """The family's p-values corrected by ``method`` (R ``p.adjust``'s names; ``fdr`` is
    ``BH``; ``none`` returns them as they are). ``None`` and NaN stay ``None`` and are not
    counted in the family."""
    method = correction_name(method)
    values = np.asarray([np.nan if v is None else float(v) for v in pvalues], dtype=float)
    present = ~np.isnan(values)
    out: list[float | None] = [None] * len(values)
    if not present.any():
        return out
    if method == "none":
        return [float(v) if ok else None for v, ok in zip(values, present, strict=True)]
    p = values[present]
    order = np.argsort(p, kind="stable")
    adjusted = np.empty_like(p)
    adjusted[order] = _adjust_sorted(p[order], method)
    for j, v in zip(np.flatnonzero(present).tolist(), adjusted.tolist(), strict=True):
        out[j] = float(v)
    return out
