"""The Python API: what the command line does, for a notebook (docs/python.md).

``import reprokg`` gives these functions (re-exported lazily by the package's
``__init__``, so the import itself loads no rdflib, pandas or pyoxigraph). Each calls the
domain function the matching command calls and returns the typed result that command
prints — an :class:`~reprokg.ingest.IngestResult`, validation
:class:`~reprokg.validation.report.Report` s, a
:class:`~reprokg.measures.run_comparison.RunComparison`, an
:class:`~reprokg.measures.evaluation.Evaluation`, a
:class:`~reprokg.stability.study.StudyAnalysis`, a
:class:`~reprokg.evidence.passport.Passport`, a
:class:`~reprokg.ingest.DocumentOutcome` — never a formatted table; ``to_json()`` on each
is the command's ``--format json``. Errors are the one :class:`~reprokg.core.errors.ReprokgError`
tree. An adapter like ``cli/`` and ``service/``: it may import every domain layer and
nothing imports it but the package's ``__init__`` (tests/test_architecture.py).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, overload, runtime_checkable

if TYPE_CHECKING:
    import pandas as pd

    from reprokg.core.computed import ComputedResult
    from reprokg.core.document import Document
    from reprokg.evidence.passport import Passport
    from reprokg.ingest import DocumentOutcome, IngestResult
    from reprokg.measures.evaluation import Evaluation
    from reprokg.measures.run_comparison import RunComparison
    from reprokg.stability.study import StudyAnalysis
    from reprokg.store.base import Store
    from reprokg.validation.report import Report

__all__ = [
    "analyse_stability",
    "compare",
    "evaluate",
    "export",
    "load",
    "open_store",
    "passport",
    "query",
    "save",
    "validate",
]

#: a file or folder, as a string or a path
PathLike = str | os.PathLike[str]


def open_store(path: PathLike | None = None, read_only: bool = False) -> Store:
    """The store at ``path`` (a folder, ``":memory:"`` or a SPARQL endpoint URL; default
    ``$REPROKG_STORE`` or ``./reprokg-data``), as ``--store`` names it. Use it in a
    ``with`` block, which closes it. A writable open makes the folder; ``read_only``
    refuses a folder without a store and reads while ``reprokg serve`` holds it."""
    from reprokg.store import open_store as open_spec

    return open_spec(path, read_only=read_only)


def _check_inputs(paths: Sequence[PathLike], kind: str | None) -> None:
    """Every missing path named, and an unknown ``kind`` refused, before anything is read
    (as ``reprokg load`` and ``reprokg validate`` do)."""
    from reprokg.loaders import loader_for
    from reprokg.loaders.files import check_paths

    check_paths([str(p) for p in paths])
    if kind is not None:
        loader_for(kind)


def load(
    store: Store,
    *paths: PathLike,
    kind: str | None = None,
    force: bool = False,
    keep_originals: bool = True,
) -> IngestResult:
    """``reprokg load``: files and folders loaded, validated and written into ``store``;
    a document with a Violation is rejected (``result.documents[i].status``), warnings
    are in its report. ``kind`` forces the loader (detected per file otherwise)."""
    from reprokg.ingest import ingest_paths

    _check_inputs(paths, kind)
    return ingest_paths(
        store, [str(p) for p in paths], kind=kind, force=force, keep_originals=keep_originals
    )


def validate(*paths: PathLike, kind: str | None = None) -> list[Report]:
    """``reprokg validate``: one SHACL report per document under ``paths`` (and one per
    source that could not be read); nothing is written anywhere."""
    from reprokg.validation.paths import validate_paths

    _check_inputs(paths, kind)
    return validate_paths([str(p) for p in paths], kind)


def query(
    store: Store,
    sparql: str | None = None,
    *,
    name: str | None = None,
    params: dict[str, str] | None = None,
    all_rows: bool = False,
    timeout: float | None = None,
) -> pd.DataFrame:
    """``reprokg query``: a SELECT (``sparql``) or a named query (``name``, ``queries/*.rq``,
    with ``params``; a printed short id is taken for an IRI parameter) as a DataFrame, one
    column per variable, numbers and booleans typed, the rest as text, unbound as None.

    A named query answers a page as the command does (``all_rows``: every row);
    ``frame.attrs["page"]`` is its :class:`~reprokg.sparql.named.Page` (None when the query
    has no LIMIT). An ASK answers one row with the column ``boolean``."""
    import pandas as pd

    from reprokg.core.errors import UsageError
    from reprokg.sparql.named import Page
    from reprokg.sparql.rows import plain
    from reprokg.store.base import AskResult, SelectResult

    if (sparql is None) == (name is None):
        raise UsageError("give a SPARQL query or name= (a named query), not both or neither")
    page: Page | None = None
    if name is not None:
        from reprokg.sparql.ranked import answer

        res, page, _bound = answer(store, name, params, whole=all_rows, timeout=timeout)
    else:
        if params:
            raise UsageError("params= binds a named query's parameters; give name= too")
        assert sparql is not None
        res = store.query(sparql, timeout=timeout)
    if isinstance(res, AskResult):
        frame = pd.DataFrame({"boolean": [res.value]})
    elif isinstance(res, SelectResult):
        frame = pd.DataFrame(
            [[plain(t) for t in row] for row in res.rows], columns=list(res.variables)
        )
    else:
        raise UsageError(
            "a CONSTRUCT or DESCRIBE answers a graph, not rows: use store.query(...).graph"
        )
    frame.attrs["page"] = page
    return frame


def compare(
    qrels: PathLike,
    orig_base: PathLike,
    rep_base: PathLike,
    *,
    orig_adv: PathLike | None = None,
    rep_adv: PathLike | None = None,
    qrels_rpl: PathLike | None = None,
    collection: str | None = None,
    collection_rpl: str | None = None,
    store: Store | None = None,
    measures: Sequence[str] | None = None,
    order: Literal["file", "score"] = "file",
    rbo_extrapolated: bool = False,
    rbo_p: float | None = None,
    depth: int | None = None,
    correction: str = "holm",
    resamples: int = 9999,
    seed: int = 0,
) -> RunComparison:
    """``reprokg compare``: original vs reproduced runs (files, or document ids in
    ``store``): PRIMAD, KTU, RBO, RMSE, ER, ΔRI, the paired tests with ``correction``'s
    corrected p-values. ``save(store, comparison)`` stores it as ``--save`` does."""
    from reprokg.core.errors import UsageError
    from reprokg.measures.compare_refs import compare_refs
    from reprokg.measures.effectiveness import DEFAULT_MEASURES
    from reprokg.measures.registry import Options
    from reprokg.stats.multiplicity import correction_name

    try:
        method = correction_name(correction)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    given = {"depth": depth, "rbo_p": rbo_p}  # unset: the registry's defaults
    options = Options(
        measures=tuple(measures) if measures is not None else DEFAULT_MEASURES,
        order=order,
        rbo_extrapolated=rbo_extrapolated,
        correction=method,
        resamples=resamples,
        seed=seed,
        # the None-free values are ints and floats
        **{k: v for k, v in given.items() if v is not None},  # type: ignore[arg-type]
    )

    refs = [None if r is None else str(r) for r in (orig_base, rep_base, orig_adv, rep_adv)]
    return compare_refs(
        str(qrels),
        refs,
        options,
        store=store,
        qrels_rpl=None if qrels_rpl is None else str(qrels_rpl),
        collection=collection,
        collection_rpl=collection_rpl,
    )


def evaluate(
    qrels: PathLike,
    runs: PathLike | Sequence[PathLike],
    *,
    collection: str | None = None,
    store: Store | None = None,
) -> Evaluation:
    """``reprokg evaluate``: the measures each run's header reports, computed on ``qrels``
    (runs as files or document ids in ``store``). ``save(store, evaluation)`` puts the
    scores on their leaderboards as ``--save`` does."""
    from reprokg.measures.evaluation import evaluate_runs
    from reprokg.measures.inputs import resolve_qrels, resolve_run

    refs = [runs] if isinstance(runs, str | os.PathLike) else list(runs)
    judged = resolve_qrels(str(qrels), store, collection)
    return evaluate_runs(judged, [resolve_run(str(r), store) for r in refs])


def analyse_stability(
    store: Store,
    study: str | None = None,
    *,
    reml: bool = True,
    alpha: float = 0.05,
    metric: str | None = None,
    pairs: Sequence[tuple[str, str]] = (),
) -> StudyAnalysis:
    """``reprokg stability``: the stability model of a stored study (its IRI, id or title;
    ``None``: the only one) fitted as lme4/lmerTest do. ``.result`` is the
    :class:`~reprokg.stability.result.StabilityResult` the command prints; ``.frame`` the
    observations read. (Not ``reprokg.stability``: that name is the package.)"""
    from reprokg.stability.study import analyse_study

    return analyse_study(
        store, study, reml=reml, alpha=alpha, metric=metric, pairs=list(pairs) or None
    )


def passport(store: Store, work: str) -> Passport:
    """``reprokg passport``: what the graph knows of a paper (a DOI in any form, an IRI, or
    a printed id), led by whether it was reproduced."""
    from reprokg.evidence.passport import passport as passport_of
    from reprokg.evidence.passport import resolve_work

    return passport_of(store, resolve_work(store, work))


@overload
def export(
    store: Store, ident: str, format: Literal["turtle", "nquads", "yaml"] = "turtle"
) -> str: ...


@overload
def export(
    store: Store,
    ident: str,
    format: Literal["crate"],
    *,
    output: PathLike,
    ro_crate: Literal["1.1", "1.2"] = "1.1",
) -> Path: ...


def export(
    store: Store,
    ident: str,
    format: Literal["turtle", "nquads", "yaml", "crate"] = "turtle",
    *,
    output: PathLike | None = None,
    ro_crate: Literal["1.1", "1.2"] = "1.1",
) -> str | Path:
    """``reprokg export``: a stored document (a short id, id or IRI) as Turtle, N-Quads or
    the YAML of its source format, as text; ``format="crate"`` writes ``reprokg export
    crate``'s RO-Crate of a result, a run or a DOI's passport into ``output`` (a new
    folder or a ``.zip``) and returns where."""
    if format != "crate":
        from reprokg.exchange.views import document_text

        return document_text(store, ident, format)
    from reprokg.core.errors import UsageError
    from reprokg.exchange.crate import crate_files, write_files
    from reprokg.exchange.views import crate_content

    if output is None:
        raise UsageError('format="crate" needs output= (a new folder or a .zip)')
    return write_files(crate_files(crate_content(store, ident), ro_crate), Path(output))


@runtime_checkable
class _WithSources(Protocol):
    """A result stored with the documents it read (the run and qrels files)."""

    def source_documents(self) -> list[Document]: ...


def save(store: Store, result: ComputedResult | StudyAnalysis) -> DocumentOutcome:
    """A computed result stored as its command's ``--save`` stores it (validated, with
    provenance; a comparison or evaluation with the run and qrels documents it read).
    The outcome's ``iri`` is the document (``export`` takes it), ``subject`` the result's
    node."""
    from reprokg.ingest import write_result
    from reprokg.stability.study import StudyAnalysis

    computed = result.result if isinstance(result, StudyAnalysis) else result
    inputs = computed.source_documents() if isinstance(computed, _WithSources) else []
    return write_result(store, computed, inputs=inputs)
