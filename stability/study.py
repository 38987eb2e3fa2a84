"""A stored stability study analysed end to end: graph → pandas → model → JSON, chart, document.

What the CLI (``reprokg stability``), the API (``GET /measures/stability``) and the demo
share: :func:`analyse_study` resolves the study, reads its observations with SPARQL,
picks the metric, fits the model and runs the tests; its result
(:class:`~reprokg.stability.result.StabilityResult`) is written back through
:func:`reprokg.ingest.write_result`; :func:`chart` draws it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from reprokg.core.errors import UsageError
from reprokg.stability.analysis import DEFAULT_ALPHA, StudyFit, fit_study, report
from reprokg.stability.observations import (
    OBSERVATIONS_QUERY,
    StudyInfo,
    observation_frame,
    observations_query,
    resolve_study,
)
from reprokg.stability.result import StabilityResult
from reprokg.store.base import Store

ILLUSTRATIVE_WARNING = (
    "The observations of this study are illustrative (rk:isIllustrative true), not "
    "measured: these numbers show the method, they are not evidence."
)


@dataclass
class StudyAnalysis:
    """One analysis of one stored study: the result and what made it."""

    study: StudyInfo
    fitted: StudyFit
    result: StabilityResult
    #: the observations read from the graph (all metrics)
    frame: pd.DataFrame

    @property
    def metric(self) -> str | None:
        return self.result.metric

    @property
    def alpha(self) -> float:
        return self.result.alpha


def check_alpha(alpha: float) -> float:
    if not (isinstance(alpha, int | float) and math.isfinite(alpha) and 0 < alpha < 1):
        raise UsageError(f"alpha must be a number strictly between 0 and 1, not {alpha!r}")
    return float(alpha)


def choose_metric(frame: pd.DataFrame, metric: str | None) -> tuple[str | None, list[str]]:
    """The metric to analyse and what to say about the choice."""
    counts = frame["metric"].dropna().astype(str).value_counts()
    if metric is not None:
        if metric not in counts.index:
            known = ", ".join(sorted(counts.index)) or "none"
            raise UsageError(
                f"the study has no observations of metric {metric!r} (it has: {known})"
            )
        return metric, []
    if counts.empty:
        return None, []
    if len(counts) == 1:
        return str(counts.index[0]), []
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    chosen = str(ranked[0][0])
    others = ", ".join(f"{m} ({n} rows)" for m, n in ranked[1:])
    return chosen, [
        f"The study observes {len(counts)} metrics; {chosen!r} ({ranked[0][1]} rows, the most) "
        f"was analysed. Choose another with metric= / --metric: {others}."
    ]


def analyse_study(
    store: Store,
    study: str | StudyInfo | None = None,
    *,
    reml: bool = True,
    alpha: float = DEFAULT_ALPHA,
    metric: str | None = None,
    pairs: list[tuple[str, str]] | None = None,
) -> StudyAnalysis:
    """Read the study's observations from the store and analyse them.

    ``study`` is an IRI, id or title (see :func:`.observations.resolve_study`); ``None``
    means the only study in the store. Raises ``NotFound``/``UsageError`` (the
    ``ReprokgError`` tree) for a study or metric that does not exist and an alpha outside
    (0, 1); every data problem is a null with a sentence in ``warnings`` instead.
    """
    alpha = check_alpha(alpha)
    info = study if isinstance(study, StudyInfo) else resolve_study(store, study)
    frame = observation_frame(store, info)
    chosen, notes = choose_metric(frame, metric)
    rows = frame[frame["metric"] == chosen] if chosen is not None else frame
    fitted = fit_study(rows, reml=reml)
    fitted.warnings[0:0] = ([ILLUSTRATIVE_WARNING] if info.illustrative else []) + notes
    result = report(fitted, study=info.iri, alpha=alpha, pairs=pairs)
    result.metric = chosen
    result.illustrative = info.illustrative
    result.observations = tuple(
        sorted({str(d) for d in frame["document"].dropna()}) or info.documents
    )
    result.experiment_iris = {
        str(e): str(i)
        for e, i in zip(frame["experiment"], frame["experiment_iri"], strict=True)
        if isinstance(e, str) and isinstance(i, str)
    }
    result.queries = {OBSERVATIONS_QUERY: observations_query(info)}
    return StudyAnalysis(info, fitted, result, frame)


def chart(analysis: StudyAnalysis, fmt: str = "svg") -> bytes:
    """Per-experiment means with 95% intervals, reruns side by side (SVG or PNG)."""
    from reprokg.stability.chart import chart_of_fit

    title = analysis.study.title or analysis.study.iri
    if analysis.study.illustrative:
        title = "ILLUSTRATIVE data (not measured): " + title
    return chart_of_fit(
        analysis.fitted, alpha=analysis.alpha, fmt=fmt, title=title, value_label=analysis.metric
    )
