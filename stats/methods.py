"""The statistical methods, declared: what each computes, its citation and its reference.

In the style of :mod:`reprokg.measures.registry` (ir-measures'): a :class:`Method` names a
method, says what it computes, where it is defined (a DOI IRI) and which tool's numbers it
reproduces, with its defaults. The computing functions take their defaults from here, the
comparison's and the analyses' documents name each value's method by :attr:`Method.iri`,
and ``reprokg`` lists them (docs/statistics.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

# citations (DOI IRIs)
HOLM_1979 = "https://doi.org/10.2307/4615733"  # A simple sequentially rejective test procedure
HOCHBERG_1988 = "https://doi.org/10.1093/biomet/75.4.800"
HOMMEL_1988 = "https://doi.org/10.1093/biomet/75.2.383"
BH_1995 = "https://doi.org/10.1111/j.2517-6161.1995.tb02031.x"  # Benjamini & Hochberg
BY_2001 = "https://doi.org/10.1214/aos/1013699998"  # Benjamini & Yekutieli
BONFERRONI = "https://doi.org/10.2307/2282330"  # Dunn 1961, Multiple comparisons among means
WILCOXON_1945 = "https://doi.org/10.2307/3001968"  # Individual comparisons by ranking methods
SMUCKER_2007 = "https://doi.org/10.1145/1321440.1321528"  # randomization test for IR
COHEN_1988 = "https://doi.org/10.4324/9780203771587"  # Statistical power analysis
HEDGES_1981 = "https://doi.org/10.3102/10769986006002107"  # Distribution theory for Glass's
STEIGER_FOULADI_1997 = "https://doi.org/10.4324/9781315629049-17"  # noncentrality intervals
EFRON_1987 = "https://doi.org/10.1080/01621459.1987.10478410"  # Better bootstrap intervals
DROR_2019 = "https://doi.org/10.18653/v1/P19-1266"  # Deep dominance (ASO)
BOUTHILLIER_2021 = "https://arxiv.org/abs/2103.03098"  # Accounting for variance in ML benchmarks
AGARWAL_2021 = (
    "https://arxiv.org/abs/2108.13264"  # Deep RL at the edge of the statistical precipice
)
DEMSAR_2006 = "https://jmlr.org/papers/v7/demsar06a.html"  # Statistical comparisons of classifiers
FRIEDMAN_1937 = "https://doi.org/10.1080/01621459.1937.10503522"
BELZ_2022 = "https://doi.org/10.18653/v1/2022.acl-long.2"  # Quantified reproducibility assessment
BELZ_2025 = "https://arxiv.org/abs/2505.17043"  # QRA++: common types of results in NLP


@dataclass(frozen=True)
class Method:
    """One statistical method: a name used in JSON output, its meaning, citation, reference."""

    name: str
    label: str
    definition: str
    citation: str
    #: the tool whose numbers the implementation reproduces (and the tests compare against)
    reference: str
    #: multiplicity | paired test | effect size | interval | seed variance | ranking |
    #: reproducibility
    family: str
    defaults: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))

    @property
    def iri(self) -> Any:
        """The node a result document describes the method at (``{base}method/…``)."""
        from reprokg.core.identifiers import mint  # rdflib: only when a document is written

        return mint("method", self.name)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "definition": self.definition,
            "citation": self.citation,
            "reference": self.reference,
            "family": self.family,
            "defaults": dict(self.defaults),
        }


#: every method, by name, in the order they are registered
METHODS: dict[str, Method] = {}


def register(**kw: Any) -> Method:
    kw["defaults"] = MappingProxyType(kw.get("defaults", {}))
    method = Method(**kw)
    if method.name in METHODS:
        raise ValueError(f"method {method.name!r} registered twice")
    METHODS[method.name] = method
    return method


def method(name: str) -> Method:
    """A registered method by name (``KeyError`` naming the known ones otherwise)."""
    try:
        return METHODS[name]
    except KeyError:
        raise KeyError(f"no method {name!r}; known: {', '.join(METHODS)}") from None
