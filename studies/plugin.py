"""The contract a study module keeps (a plugin of :mod:`reprokg.studies.registry`).

A :class:`~reprokg.studies.registry.PublishedStudy` names the module that reads, computes
and renders it; the module is a :class:`StudyModule` (checked when it is first imported,
so a module that lacks a part fails with its name, not later with an ``AttributeError``).
The numbers a result names are :class:`StudyValue` s, from which the ``study-result``
document's ``rk:StudyValue`` nodes are written (:mod:`reprokg.studies.study_result`).

Nothing here imports pandas, scipy or rdflib: listing the studies stays cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class StudyValue:
    """One number a study result names: its statistic, raw and adjusted p, and n."""

    #: its key in the result (``consolidated.tests.year_2014_2016``)
    name: str
    description: str | None = None
    statistic: float | None = None
    p: float | None = None
    p_adjusted: float | None = None
    n: int | None = None


@runtime_checkable
class StudyModule(Protocol):
    """What a study module provides; each function is pure but ``read``."""

    def read(self, store: Any, **options: Any) -> Any:
        """The study's inputs, read from ``store`` with SPARQL (the ``read_options``)."""
        ...

    def analyze(self, inputs: Any, method: str, **options: Any) -> dict[str, Any]:
        """Inputs in, the study's JSON answer out (the other options)."""
        ...

    def format_table(self, result: dict[str, Any]) -> str:
        """The answer as text for the terminal."""
        ...

    def values(self, result: dict[str, Any]) -> list[StudyValue]:
        """The numbers the result document names."""
        ...

    def charts(self, result: dict[str, Any], inputs: Any, fmt: str = "svg") -> dict[str, bytes]:
        """``{file stem: SVG or PNG bytes}``."""
        ...

    def is_empty(self, inputs: Any) -> bool:
        """Nothing of the study in the store."""
        ...


def missing_parts(module: object) -> list[str]:
    """The parts of :class:`StudyModule` that ``module`` lacks (or has but cannot call)."""
    parts = [
        n for n in vars(StudyModule) if not n.startswith("_") and callable(vars(StudyModule)[n])
    ]
    return [n for n in parts if not callable(getattr(module, n, None))]
