"""Declarative reproducibility measures, each with its citation (in the style of ir-measures).

A :class:`Measure` says what it compares (rankings or topic scores), which study kinds it
applies to, its defaults and where it is defined; :mod:`reprokg.measures.comparison`
reads the registry to decide what to compute, and the RDF document names each value by
the measure's IRI, so a value in the graph carries its definition and citation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

from rdflib import URIRef

from reprokg.core.namespaces import RK

SAME = "same-collection"
CROSS = "cross-collection"

BREUER_2020 = "https://doi.org/10.1145/3397271.3401036"  # How to Measure the Reproducibility…
WEBBER_2010 = (
    "https://doi.org/10.1145/1852102.1852106"  # A similarity measure for indefinite rankings
)
CLARKE_2021 = "https://doi.org/10.1145/3451161"  # Assessing top-k preferences
STUDENT_1908 = "https://doi.org/10.1093/biomet/6.1.1"  # The probable error of a mean
REPRO_EVAL = "https://doi.org/10.1007/978-3-030-72240-1_51"  # repro_eval (ECIR 2021 demo)


@dataclass(frozen=True)
class Measure:
    """One reproducibility measure: a name used in JSON output, its meaning and citation."""

    name: str
    label: str
    definition: str
    citation: str
    compares: str  # "rankings" | "topic scores" | "mean improvements"
    kinds: frozenset[str]
    defaults: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    per_effectiveness_measure: bool = True
    higher_is_better: bool = True

    @property
    def iri(self) -> URIRef:
        return RK["measure-" + self.name]

    def applies_to(self, kind: str) -> bool:
        return kind in self.kinds

    def __str__(self) -> str:
        params = ",".join(f"{k}={v}" for k, v in self.defaults.items())
        return f"{self.name}({params})" if params else self.name


def _m(**kw) -> Measure:
    kw["kinds"] = frozenset(kw["kinds"])
    kw["defaults"] = MappingProxyType(kw.get("defaults", {}))
    return Measure(**kw)


KTU = _m(
    name="ktu",
    label="Kendall's tau Union",
    definition="Kendall's tau between the original and reproduced rankings of a topic, both "
    "mapped onto the union of their documents; mean over topics. 1 = same order.",
    citation=BREUER_2020,
    compares="rankings",
    kinds={SAME},
    defaults={"depth": 1000, "order": "file"},
    per_effectiveness_measure=False,
)
RBO = _m(
    name="rbo",
    label="Rank-Biased Overlap",
    definition="Top-weighted overlap of the original and reproduced rankings, normalised and "
    "truncated at the depth as in repro_eval (Clarke et al.'s code); mean over topics.",
    citation=WEBBER_2010,
    compares="rankings",
    kinds={SAME},
    defaults={"p": 0.95, "depth": 1000, "order": "file", "extrapolated": False},
    per_effectiveness_measure=False,
)
RMSE = _m(
    name="rmse",
    label="Root Mean Square Error",
    definition="Root mean square difference of per-topic scores of the original and reproduced "
    "run, per effectiveness measure. 0 = same scores.",
    citation=BREUER_2020,
    compares="topic scores",
    kinds={SAME},
    higher_is_better=False,
)
NRMSE = _m(
    name="nrmse",
    label="normalised Root Mean Square Error",
    definition="RMSE divided by the largest RMSE the original scores allow (max(x, 1-x) per "
    "topic), per effectiveness measure.",
    citation=REPRO_EVAL,
    compares="topic scores",
    kinds={SAME},
    higher_is_better=False,
)
PVALUE = _m(
    name="pvalue",
    label="t-test p-value",
    definition="Two-sided p-value of a paired t-test (same collection) or Student's unpaired "
    "t-test (cross collection) between original and reproduced topic scores.",
    citation=BREUER_2020,
    compares="topic scores",
    kinds={SAME, CROSS},
)
ER = _m(
    name="er",
    label="Effect Ratio",
    definition="Mean per-topic improvement of the reproduced advanced over the reproduced "
    "baseline run, divided by the same for the original runs. 1 = same effect.",
    citation=BREUER_2020,
    compares="mean improvements",
    kinds={SAME, CROSS},
)
DRI = _m(
    name="dri",
    label="Delta Relative Improvement",
    definition="Relative improvement of the original advanced over baseline run (of topic "
    "means) minus that of the reproduced runs. 0 = same relative effect.",
    citation=BREUER_2020,
    compares="mean improvements",
    kinds={SAME, CROSS},
    higher_is_better=False,
)

#: Every measure, in output order.
REGISTRY: dict[str, Measure] = {m.name: m for m in (KTU, RBO, RMSE, NRMSE, PVALUE, ER, DRI)}


def applicable(kind: str) -> list[Measure]:
    """Measures that apply to a study kind (same-collection or cross-collection)."""
    return [m for m in REGISTRY.values() if m.applies_to(kind)]
