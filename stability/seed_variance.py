"""A stored study's seed-variance statistics end to end: graph → frame → typed results.

What the CLI (``reprokg stability --compare A B``, ``--cd``) and the API
(``/measures/stability/compare``, ``/measures/stability/cd``) share: the study resolved,
its observations of one metric read with SPARQL, and the results of
:mod:`reprokg.stability.seed_comparison` with where they came from (the documents, the
experiments' IRIs, the query), ready to be stored (:mod:`reprokg.stability.seed_document`).
"""

from __future__ import annotations

from typing import Any

from reprokg.core.errors import UsageError
from reprokg.stability.observations import (
    OBSERVATIONS_QUERY,
    observation_frame,
    observations_query,
    resolve_study,
)
from reprokg.stability.seed_comparison import (
    compare_experiments,
    critical_difference,
    source_of,
)
from reprokg.stability.study import ILLUSTRATIVE_WARNING, check_alpha, choose_metric


def seed_variance(
    store: Any,
    study: str | None,
    *,
    metric: str | None = None,
    compare: tuple[str, str] | None = None,
    cd: bool = False,
    block: str = "seed",
    alpha: float = 0.05,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The JSON answer (study, metric, notes, ``compare``, ``critical_difference``) and the
    typed results by name (``compare``, ``cd``)."""
    if not compare and not cd:
        raise UsageError("ask for a comparison of two experiments, a critical difference, or both")
    check_alpha(alpha)
    info = resolve_study(store, study)
    frame = observation_frame(store, info)
    chosen, notes = choose_metric(frame, metric)
    if chosen is None:
        raise UsageError("the study has no observations to compare")
    rows = frame[frame["metric"] == chosen]
    notes = ([ILLUSTRATIVE_WARNING] if info.illustrative else []) + notes
    source = source_of(
        rows,
        {OBSERVATIONS_QUERY: observations_query(info)},
        illustrative=info.illustrative,
        notes=tuple(notes),
    )
    out: dict[str, Any] = {
        "study": info.iri,
        "title": info.title or info.id,
        "metric": chosen,
        "notes": notes,
    }
    results: dict[str, Any] = {}
    if compare:
        results["compare"] = compare_experiments(
            rows, *compare, seed=seed, level=level, study=info.iri, metric=chosen, source=source
        )
        out["compare"] = results["compare"].to_json()
    if cd:
        results["cd"] = critical_difference(
            rows, block=block, alpha=alpha, study=info.iri, metric=chosen, source=source
        )
        out["critical_difference"] = results["cd"].to_json()
    return out, results
