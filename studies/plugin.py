"""The contract a study module keeps (a plugin of :mod:`reprokg.studies.registry`).

A :class:`~reprokg.studies.registry.PublishedStudy` names the module that reads, computes
and renders it; the module is a :class:`StudyModule` (checked when it is first imported,
so a module that lacks a part fails with its name, not later with an ``AttributeError``).
``read`` takes the store and returns the study's typed inputs; ``analyze`` returns the
study's result, a dataclass keeping :class:`StudyAnswer` (a
:class:`~reprokg.core.computed.ComputedResult`: its JSON and its ``study-result`` document
derive from it, :class:`reprokg.studies.study_result.StudyResult`); ``format_table``,
``values`` and ``charts`` take that result. :mod:`reprokg.studies.modules` checks each
registered module against ``StudyModule[ItsInputs, ItsResult]`` under mypy. The numbers a
result names are :class:`StudyValue` s, from which the document's ``rk:StudyValue``
nodes are written.

Nothing here imports pandas, scipy or rdflib: listing the studies stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar, runtime_checkable

if TYPE_CHECKING:
    from typing import Self

    from rdflib import Graph

    from reprokg.core.document import Document

#: an option's value: text as given (``dataset=both``) or a number (``small_max=0.03``)
OptionValue = str | float

InputsT = TypeVar("InputsT")
ResultT = TypeVar("ResultT", bound="StudyAnswer")


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
class StudyAnswer(Protocol):
    """A study's result: a :class:`~reprokg.core.computed.ComputedResult` (spelled out
    here, which imports no rdflib), with the method and options it was computed with and
    the results it is saved as (one per data set when a study computed several at once)."""

    KIND: ClassVar[str]

    @property
    def method(self) -> str:
        """The method it followed (``published``, ``corrected``)."""
        ...

    @property
    def options(self) -> Mapping[str, OptionValue]:
        """The options it was computed with, as given."""
        ...

    def with_options(self, options: Mapping[str, OptionValue]) -> Self:
        """The same result, computed with ``options`` (every option given, read ones too)."""
        ...

    def to_json(self) -> dict[str, Any]:
        """The JSON answer (``reprokg study NAME --format json``, the HTTP API)."""
        ...

    def to_graph(self) -> Graph:
        """The result document's triples."""
        ...

    def document(self) -> Document:
        """The result as a ``study-result`` document, ready for ingest."""
        ...

    def parts(self) -> list[Self]:
        """The results saved, one document each."""
        ...


@runtime_checkable
class StudyModule(Protocol[InputsT, ResultT]):
    """What a study module provides; each function is pure but ``read``.

    ``read`` and ``analyze`` take the study's own options as keywords (its
    ``read_options``, the others), which a protocol cannot spell one by one: they are
    typed as callables of any keywords returning the study's inputs and result.
    """

    @property
    def read(self) -> Callable[..., InputsT]:
        """``read(store, **read_options)``: the study's inputs, read from the
        :class:`~reprokg.store.base.Store` with SPARQL."""
        ...

    @property
    def analyze(self) -> Callable[..., ResultT]:
        """``analyze(inputs, method, **options)``: inputs in, the study's result out."""
        ...

    def format_table(self, result: ResultT) -> str:
        """The result as text for the terminal."""
        ...

    def values(self, result: ResultT) -> list[StudyValue]:
        """The numbers the result document names."""
        ...

    def charts(self, result: ResultT, inputs: InputsT, fmt: str = "svg") -> dict[str, bytes]:
        """``{file stem: SVG or PNG bytes}``."""
        ...

    def is_empty(self, inputs: InputsT) -> bool:
        """Nothing of the study in the store."""
        ...


def missing_parts(module: object) -> list[str]:
    """The parts of :class:`StudyModule` that ``module`` lacks (or has but cannot call)."""
    parts = [n for n in vars(StudyModule) if not n.startswith("_")]
    return [n for n in parts if not callable(getattr(module, n, None))]
