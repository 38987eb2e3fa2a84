"""``GET /measures/stability`` (the stability analysis of a stored study, JSON) and its chart.

The analysis of seed 003 recomputed from the graph: the study's observations read with
SPARQL, ``value ~ experiment + (1 | seed) + (1 | repeat)`` fitted by REML (or ML), the
random-effects likelihood-ratio tests (H1, H2), the Type III F test of experiment and the
rerun contrasts (H3), every number as lme4 + lmerTest give it. The response models below
document the JSON (the same object as ``reprokg stability --format json``).

Handlers are plain ``def`` (SPARQL, numpy and matplotlib are blocking work for the thread
pool). Errors are the ``ReprokgError`` tree: an unknown study 404, an ambiguous one or an
alpha outside (0, 1) 400, both with the studies there are.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Response
from pydantic import BaseModel, Field

from reprokg.core.errors import UsageError
from reprokg.service.deps import ReadStoreDep, error_responses

router = APIRouter(prefix="/measures/stability", tags=["measures"])

Method = Literal["REML", "ML"]


class FixedEffect(BaseModel):
    """One coefficient: lme4's ``summary(m)`` row with lmerTest's Satterthwaite df."""

    estimate: float | None
    se: float | None
    df: float | None = Field(description="Satterthwaite degrees of freedom")
    t: float | None
    p: float | None


class VarianceComponent(BaseModel):
    variance: float | None
    sd: float | None


class VarianceComponents(BaseModel):
    seed: VarianceComponent
    repeat: VarianceComponent
    residual: VarianceComponent


class RandomEffectTest(BaseModel):
    """``lmerTest::ranova``: the model without this random term (npar, logLik, AIC) and the
    likelihood-ratio test against the full model."""

    npar: int | None
    loglik: float | None
    aic: float | None
    lrt: float | None
    df: int | None
    p: float | None


class RandomEffectsTests(BaseModel):
    seed: RandomEffectTest = Field(description="H2")
    repeat: RandomEffectTest = Field(description="H1")


class FTest(BaseModel):
    """``anova(m)``: Type III F test with Satterthwaite denominator df."""

    sum_sq: float | None
    mean_sq: float | None
    num_df: int | None
    den_df: float | None
    f: float | None
    p: float | None


class Contrast(BaseModel):
    """``contest(m, L, joint = FALSE, confint = TRUE)`` of ``a - b`` (95% interval)."""

    estimate: float | None
    se: float | None
    df: float | None
    t: float | None
    lower: float | None
    upper: float | None
    p: float | None


class Hypothesis(BaseModel):
    test: str | None = Field(description="the test and the level alpha, in words")
    p: float | None
    decision: Literal["rejected", "not_rejected"] | None


class Hypotheses(BaseModel):
    H1: Hypothesis = Field(description="stable across repeats: the repeat LRT")
    H2: Hypothesis = Field(description="stable across seeds: the seed LRT")
    H3: Hypothesis = Field(description="reruns give the same mean: the smallest rerun-pair p")


class StabilityAnalysis(BaseModel):
    """The analysis; undefined numbers are ``null`` with a sentence in ``warnings``."""

    study: str | None = Field(description="the study's IRI")
    n: int = Field(description="observations fitted (after dropping unusable rows)")
    model: str = Field(description="the fitted model, lme4 syntax")
    method: Method
    singular: bool | None = Field(description="lme4::isSingular (tol 1e-4)")
    loglik: float | None = Field(description="logLik (REML criterion / -2 for REML)")
    fixed_effects: dict[str, FixedEffect] = Field(
        description="by lme4 term name: (Intercept), experimentNAME (treatment contrasts, "
        "experiments in sorted order)"
    )
    variance_components: VarianceComponents
    random_effects_tests: RandomEffectsTests
    anova: dict[str, FTest] = Field(description="{'experiment': …}; empty for one experiment")
    contrasts: dict[str, Contrast] = Field(
        description="'a - b' for every rerun pair (same algorithm, implementation, "
        "optimizer) and every pair asked for"
    )
    hypotheses: Hypotheses
    warnings: list[str]


class StudySummary(BaseModel):
    study: str
    id: str
    title: str | None
    illustrative: bool
    documents: list[str]


StudyParam = Annotated[
    str | None,
    Query(description="IRI, id or title of the study (default: the only one in the store)"),
]
MethodParam = Annotated[Method, Query(description="REML (default) or ML")]
AlphaParam = Annotated[float, Query(description="significance level of the decisions")]
MetricParam = Annotated[
    str | None, Query(description="the observed metric (default: the only or most observed)")
]
PairParam = Annotated[
    list[str] | None,
    Query(description="extra contrasts a:b (experiment names), repeatable"),
]


def _pairs(specs: list[str] | None) -> list[tuple[str, str]]:
    out = []
    for spec in specs or []:
        a, sep, b = spec.partition(":")
        if not sep or not a or not b:
            raise UsageError(f"pair expects a:b (two experiment names), not {spec!r}")
        out.append((a, b))
    return out


def _analyse(store, study, method, alpha, metric, pair):
    from reprokg.stability.study import analyse_study

    return analyse_study(
        store, study, reml=method == "REML", alpha=alpha, metric=metric, pairs=_pairs(pair)
    )


@router.get("", response_model=StabilityAnalysis, responses=error_responses(400, 404))
def stability_analysis(
    store: ReadStoreDep,
    study: StudyParam = None,
    method: MethodParam = "REML",
    alpha: AlphaParam = 0.05,
    metric: MetricParam = None,
    pair: PairParam = None,
) -> dict:
    """The stability analysis of a stored study (seed 003's model and tests, lme4/lmerTest
    numbers)."""
    return _analyse(store, study, method, alpha, metric, pair).result.to_json()


@router.get("/studies", response_model=list[StudySummary])
def stability_studies(store: ReadStoreDep) -> list[dict]:
    """The stability studies in the store (their ids are what ``study=`` takes)."""
    from reprokg.stability.observations import list_studies

    return [s.to_json() for s in list_studies(store)]


_MEDIA = {"svg": "image/svg+xml", "png": "image/png"}


@router.get(
    "/chart.{fmt}",
    response_class=Response,
    responses={200: {"content": {m: {} for m in _MEDIA.values()}}, **error_responses(400, 404)},
)
def stability_chart(
    fmt: Literal["svg", "png"],
    store: ReadStoreDep,
    study: StudyParam = None,
    method: MethodParam = "REML",
    alpha: AlphaParam = 0.05,
    metric: MetricParam = None,
) -> Response:
    """Per-experiment model means with 95% intervals, the reruns side by side with their
    contrast's p (``chart.svg`` or ``chart.png``)."""
    from reprokg.stability.study import chart

    analysis = _analyse(store, study, method, alpha, metric, None)
    return Response(chart(analysis, fmt), media_type=_MEDIA[fmt])
