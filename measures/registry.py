"""Declarative reproducibility measures, each with its citation (in the style of ir-measures).

A :class:`Measure` says what it compares (rankings or topic scores), which study kinds it
applies to, its defaults, where it is defined and how it is computed;
:func:`reprokg.measures.comparison.compare` computes exactly the measures
:func:`applicable` returns (each from the same :class:`Inputs`), and the RDF document
names each value by :attr:`Measure.iri`, so a value in the graph carries its definition
and citation. The defaults are repro_eval 0.5.0's, as the computing modules reproduce it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NotRequired, cast

from typing_extensions import TypedDict

from reprokg.loaders.trec_files import Run
from reprokg.measures import reproducibility as rp
from reprokg.measures.effectiveness import DEFAULT_MEASURES, TopicScores
from reprokg.measures.rankings import RUN_LENGTH

if TYPE_CHECKING:
    from rdflib import URIRef

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
    #: the value in the comparison's JSON shape, from the prepared runs and topic scores
    compute: Callable[[Inputs], Any] | None = None
    #: needs both advanced runs (the measure compares improvements over the baseline)
    needs_advanced: bool = False
    #: computed from every side's topic scores at once (a family of p-values over the
    #: sides); the others are computed per side, from that side's runs and scores
    across_sides: bool = False

    @property
    def iri(self) -> URIRef:
        """The node the comparison document describes the measure at (``{base}measure/…``)."""
        from reprokg.core.identifiers import mint  # rdflib: only when a document is written

        return mint("measure", self.name)

    def applies_to(self, kind: str) -> bool:
        return kind in self.kinds

    def __str__(self) -> str:
        params = ",".join(f"{k}={v}" for k, v in self.defaults.items())
        return f"{self.name}({params})" if params else self.name


def _m(**kw) -> Measure:
    kw["kinds"] = frozenset(kw["kinds"])
    kw["defaults"] = MappingProxyType(kw.get("defaults", {}))
    return Measure(**kw)


# --------------------------------------------------------------------------- computations
# Each takes the comparison's prepared inputs (runs, topic scores, options, warnings) and
# returns the measure's JSON value: per side (baseline/advanced) or per effectiveness
# measure.


def _ktu(inp: Inputs) -> dict[str, float | None]:
    return {
        role: rp.ktu(inp.runs[o], inp.runs[r], inp.warnings, label=f"KTU {role}")[0]
        for role, o, r in inp.pairs
    }


def _rbo(inp: Inputs) -> dict[str, float | None]:
    opts = inp.options
    return {
        role: rp.rbo(
            inp.runs[o],
            inp.runs[r],
            inp.warnings,
            p=opts.rbo_p,
            depth=opts.rbo_depth,
            extrapolated=opts.rbo_extrapolated,
            label=f"RBO {role}",
        )[0]
        for role, o, r in inp.pairs
    }


def _rmse(inp: Inputs) -> dict[str, Any]:
    s = inp.scores
    return {role: rp.rmse(s[o], s[r], inp.warnings, f"RMSE {role}") for role, o, r in inp.pairs}


def _nrmse(inp: Inputs) -> dict[str, Any]:
    return {role: rp.nrmse(inp.scores[o], inp.scores[r], []) for role, o, r in inp.pairs}


def _pvalue(inp: Inputs) -> dict[str, Any]:
    s = inp.scores
    paired = inp.kind == SAME
    return {
        role: rp.ttest(s[o], s[r], inp.warnings, paired=paired, label=f"t-test {role}")
        for role, o, r in inp.pairs
    }


def _er(inp: Inputs) -> dict[str, float | None]:
    s = inp.scores
    return rp.effect_ratio(s["orig_base"], s["orig_adv"], s["rep_base"], s["rep_adv"], inp.warnings)


def _dri(inp: Inputs) -> dict[str, float | None]:
    s = inp.scores
    return rp.delta_relative_improvement(
        s["orig_base"], s["orig_adv"], s["rep_base"], s["rep_adv"], inp.warnings
    )


KTU = _m(
    name="ktu",
    label="Kendall's tau Union",
    definition="Kendall's tau between the original and reproduced rankings of a topic, both "
    "mapped onto the union of their documents; mean over topics. 1 = same order.",
    citation=BREUER_2020,
    compares="rankings",
    kinds={SAME},
    defaults={"depth": RUN_LENGTH, "order": "file"},
    per_effectiveness_measure=False,
    compute=_ktu,
)
RBO = _m(
    name="rbo",
    label="Rank-Biased Overlap",
    definition="Top-weighted overlap of the original and reproduced rankings, normalised and "
    "truncated at the depth as in repro_eval (Clarke et al.'s code); mean over topics.",
    citation=WEBBER_2010,
    compares="rankings",
    kinds={SAME},
    defaults={"p": rp.RBO_P, "depth": rp.RBO_DEPTH, "order": "file", "extrapolated": False},
    per_effectiveness_measure=False,
    compute=_rbo,
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
    compute=_rmse,
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
    compute=_nrmse,
)
PVALUE = _m(
    name="pvalue",
    label="t-test p-value",
    definition="Two-sided p-value of a paired t-test (same collection) or Student's unpaired "
    "t-test (cross collection) between original and reproduced topic scores.",
    citation=BREUER_2020,
    compares="topic scores",
    kinds={SAME, CROSS},
    compute=_pvalue,
)
ER = _m(
    name="er",
    label="Effect Ratio",
    definition="Mean per-topic improvement of the reproduced advanced over the reproduced "
    "baseline run, divided by the same for the original runs. 1 = same effect.",
    citation=BREUER_2020,
    compares="mean improvements",
    kinds={SAME, CROSS},
    compute=_er,
    needs_advanced=True,
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
    compute=_dri,
    needs_advanced=True,
)

# --------------------------------------------------------------------------- statistics
# The paired tests, effect sizes and intervals of original vs reproduced topic scores
# (reprokg.stats, each equal to its reference tool), and the corrections of each test's
# family of p-values. The scores are paired by topic, so they apply to same-collection
# comparisons; the t-test's correction applies to both kinds.

#: which p-values one correction adjusts together
FAMILY = "each test's p-values over every effectiveness measure and side of the comparison"


def _differences(inp: Inputs, role_o: str, role_r: str) -> tuple[Any, list[str]]:
    """Original minus reproduced per-topic scores (topics x measures) of the topics both
    have, computed once per side."""
    key = f"diff:{role_o}"
    if key not in inp.cache:
        o, r = rp._paired(inp.scores[role_o], inp.scores[role_r], "statistics", [])
        inp.cache[key] = (o.values - r.values, o.measures)
    return inp.cache[key]


def _per_measure(measures: list[str], values: Any) -> dict[str, float | None]:
    return {m: rp._clean(float(v)) for m, v in zip(measures, values, strict=True)}


def _wilcoxon(inp: Inputs) -> dict[str, Any]:
    from reprokg.stats.paired import wilcoxon

    out = {}
    for side, o, r in inp.pairs:
        d, names = _differences(inp, o, r)
        tests = wilcoxon(d)
        out[side] = {m: t.pvalue for m, t in zip(names, tests, strict=True)}
    return out


def _randomization(inp: Inputs) -> dict[str, Any]:
    from reprokg.stats.paired import randomization

    out = {}
    for side, o, r in inp.pairs:
        d, names = _differences(inp, o, r)
        res = randomization(d, resamples=inp.options.resamples, seed=inp.options.seed)
        out[side] = dict(zip(names, res.pvalues, strict=True))
    return out


def _effect(inp: Inputs, o: str, r: str) -> Any:
    key = f"effect:{o}"
    if key not in inp.cache:
        from reprokg.stats.effect_size import effect_sizes

        d, _ = _differences(inp, o, r)
        inp.cache[key] = effect_sizes(d, level=inp.options.level)
    return inp.cache[key]


def _interval(inp: Inputs, o: str, r: str) -> Any:
    key = f"interval:{o}"
    if key not in inp.cache:
        from reprokg.stats.bootstrap import bootstrap_mean

        d, _ = _differences(inp, o, r)
        opts = inp.options
        inp.cache[key] = bootstrap_mean(
            d, resamples=opts.resamples, seed=opts.seed, level=opts.level
        )
    return inp.cache[key]


#: the runs ΔRI's bootstrap resamples together, in the order stats.bootstrap_dri takes them
DRI_ROLES = ("orig_base", "orig_adv", "rep_base", "rep_adv")


def _dri_interval(inp: Inputs) -> Any:
    """ΔRI's paired bootstrap (the four runs resampled by one draw of the topics they
    share), once for both ends: the measures across sides share the cache."""
    key = "interval:dri"
    if key not in inp.cache:
        from reprokg.stats.bootstrap import bootstrap_dri

        s = inp.scores
        shared = set.intersection(*(set(s[r].topics) for r in DRI_ROLES))
        if any(len(s[r].topics) != len(shared) for r in DRI_ROLES):
            inp.warnings.append(
                f"DRI interval: resampled over the {len(shared)} topic(s) all four runs have"
            )
        topics = sorted(shared)
        opts = inp.options
        interval = bootstrap_dri(
            *(s[r].restrict(topics).values for r in DRI_ROLES),
            resamples=opts.resamples,
            seed=opts.seed,
            level=opts.level,
        )
        names = s["orig_adv"].measures
        undefined = [
            m for m, d, lo in zip(names, interval.mean, interval.low, strict=True)
            if math.isfinite(d) and not math.isfinite(lo)
        ]  # fmt: skip
        if undefined:
            inp.warnings.append(
                "DRI interval: a baseline mean is zero in some resample (ΔRI undefined "
                f"there), no interval for {', '.join(undefined[:12])}"
                f"{' …' if len(undefined) > 12 else ''}"
            )
        inp.cache[key] = (interval, names)
    return inp.cache[key]


def _dri_end(attr: str) -> Callable[[Inputs], Any]:
    def compute(inp: Inputs) -> dict[str, float | None]:
        interval, names = _dri_interval(inp)
        return _per_measure(names, getattr(interval, attr))

    return compute


def _field(source: Callable[[Inputs, str, str], Any], attr: str) -> Callable[[Inputs], Any]:
    def compute(inp: Inputs) -> dict[str, Any]:
        out = {}
        for side, o, r in inp.pairs:
            _, names = _differences(inp, o, r)
            out[side] = _per_measure(names, getattr(source(inp, o, r), attr))
        return out

    return compute


def _mean_of(reproduced: bool) -> Callable[[Inputs], Any]:
    """Each side's original (or reproduced) run's mean score per effectiveness measure: the
    measured quantity a reproduction repeats (QRA reads it from a stored comparison)."""

    def compute(inp: Inputs) -> dict[str, Any]:
        out = {}
        for side, o, r in inp.pairs:
            s = inp.scores[r if reproduced else o]
            means = s.means() if s.topics else dict.fromkeys(s.measures, math.nan)
            out[side] = {m: rp._clean(v) for m, v in means.items()}
        return out

    return compute


def _adjusted(test: str) -> Callable[[Inputs], Any]:
    """The correction of one test's p-values over every measure and side at once."""

    def compute(inp: Inputs) -> dict[str, Any]:
        from reprokg.stats.multiplicity import adjust

        raw = inp.cache[test]  # {side: {measure: p}}: the test's values, every side
        flat = [(side, m, p) for side, ps in raw.items() for m, p in ps.items()]
        corrected = adjust([p for _, _, p in flat], inp.options.correction)
        out: dict[str, dict[str, float | None]] = {side: {} for side in raw}
        for (side, m, _), q in zip(flat, corrected, strict=True):
            out[side][m] = q
        return out

    return compute


def _stat_measure(method: str, **kw: Any) -> Measure:
    """A measure computed by a reprokg.stats method: its citation and reference are the
    method's (``stats.methods``), its definition says what value of it this is."""
    from reprokg.stats import bootstrap, effect_size, multiplicity, paired  # noqa: F401
    from reprokg.stats.methods import method as stats_method

    m = stats_method(method)
    kw.setdefault("citation", m.citation)
    kw.setdefault("kinds", {SAME})
    kw.setdefault("compares", "topic scores")
    kw["definition"] = f"{kw['definition']} Reference: {m.reference}."
    return _m(**kw)


WILCOXON = _stat_measure(
    "wilcoxon",
    name="wilcoxon",
    label="Wilcoxon signed-rank p-value",
    definition="Two-sided p-value of Wilcoxon's signed-rank test of the per-topic original "
    "vs reproduced scores, as R's wilcox.test(paired = TRUE).",
    compute=_wilcoxon,
)
RANDOMIZATION = _stat_measure(
    "randomization",
    name="randomization",
    label="randomization test p-value",
    definition="Two-sided p-value of the paired randomization (sign-flip) test of the mean "
    "difference: exact up to 2^20 sign vectors, else the options' resamples and seed.",
    compute=_randomization,
)
ORIGINAL_MEAN = _m(
    name="original_mean",
    label="mean score of the original run",
    definition="The original run's effectiveness: its mean score over the topics it is "
    "evaluated on (repro_eval's ARP), per effectiveness measure.",
    citation=BREUER_2020,
    compares="topic scores",
    kinds={SAME, CROSS},
    compute=_mean_of(reproduced=False),
)
REPRODUCED_MEAN = _m(
    name="reproduced_mean",
    label="mean score of the reproduced run",
    definition="The reproduced run's effectiveness: its mean score over the topics it is "
    "evaluated on (repro_eval's ARP), per effectiveness measure.",
    citation=BREUER_2020,
    compares="topic scores",
    kinds={SAME, CROSS},
    compute=_mean_of(reproduced=True),
)
_CI = "interval (the options' level)"
DZ = _stat_measure(
    "cohen_dz",
    name="dz",
    label="Cohen's d_z",
    definition="Mean original minus reproduced per-topic score over the differences' "
    "standard deviation.",
    compute=_field(_effect, "dz"),
)
DZ_LOW = _stat_measure(
    "cohen_dz",
    name="dz_low",
    label="d_z, lower end",
    definition=f"Lower end of d_z's noncentral-t {_CI}.",
    compute=_field(_effect, "dz_low"),
)
DZ_HIGH = _stat_measure(
    "cohen_dz",
    name="dz_high",
    label="d_z, upper end",
    definition=f"Upper end of d_z's noncentral-t {_CI}.",
    compute=_field(_effect, "dz_high"),
)
GZ = _stat_measure(
    "hedges_gz",
    name="gz",
    label="Hedges' g_z",
    definition="d_z times Hedges' small-sample correction 1 - 3 / (4 (n - 1) - 1).",
    compute=_field(_effect, "gz"),
)
GZ_LOW = _stat_measure(
    "hedges_gz",
    name="gz_low",
    label="g_z, lower end",
    definition=f"Lower end of g_z's noncentral-t {_CI}.",
    compute=_field(_effect, "gz_low"),
)
GZ_HIGH = _stat_measure(
    "hedges_gz",
    name="gz_high",
    label="g_z, upper end",
    definition=f"Upper end of g_z's noncentral-t {_CI}.",
    compute=_field(_effect, "gz_high"),
)
DIFF = _stat_measure(
    "bootstrap",
    name="mean_diff",
    label="mean difference",
    definition="Mean original minus reproduced per-topic score.",
    compute=_field(_interval, "mean"),
)
DIFF_LOW = _stat_measure(
    "bootstrap",
    name="mean_diff_low",
    label="mean difference, lower end",
    definition=f"Lower end of the mean difference's BCa bootstrap {_CI}, the options' "
    "resamples and seed.",
    compute=_field(_interval, "low"),
)
DIFF_HIGH = _stat_measure(
    "bootstrap",
    name="mean_diff_high",
    label="mean difference, upper end",
    definition=f"Upper end of the mean difference's BCa bootstrap {_CI}, the options' "
    "resamples and seed.",
    compute=_field(_interval, "high"),
)
DRI_LOW = _stat_measure(
    "dri_bootstrap",
    name="dri_low",
    label="Delta Relative Improvement, lower end",
    definition=f"Lower end of ΔRI's (DRI's) paired BCa bootstrap {_CI}: the topics the four "
    "runs share resampled together, the options' resamples and seed.",
    compares="mean improvements",
    compute=_dri_end("low"),
    needs_advanced=True,
)
DRI_HIGH = _stat_measure(
    "dri_bootstrap",
    name="dri_high",
    label="Delta Relative Improvement, upper end",
    definition=f"Upper end of ΔRI's (DRI's) paired BCa bootstrap {_CI}: the topics the four "
    "runs share resampled together, the options' resamples and seed.",
    compares="mean improvements",
    compute=_dri_end("high"),
    needs_advanced=True,
)
PVALUE_ADJUSTED = _stat_measure(
    "holm",
    name="pvalue_adjusted",
    label="t-test p-value, corrected",
    definition="The t-test p-values corrected for multiplicity by the options' correction "
    "(default Holm) over the family of every measure and side.",
    kinds={SAME, CROSS},
    compute=_adjusted("pvalue"),
    across_sides=True,
)
WILCOXON_ADJUSTED = _stat_measure(
    "holm",
    name="wilcoxon_adjusted",
    label="Wilcoxon p-value, corrected",
    definition="The Wilcoxon p-values corrected for multiplicity by the options' correction "
    "over the family of every measure and side.",
    compute=_adjusted("wilcoxon"),
    across_sides=True,
)
RANDOMIZATION_ADJUSTED = _stat_measure(
    "holm",
    name="randomization_adjusted",
    label="randomization p-value, corrected",
    definition="The randomization test's p-values corrected for multiplicity by the options' "
    "correction over the family of every measure and side.",
    compute=_adjusted("randomization"),
    across_sides=True,
)
#: the measures drawing Monte Carlo resamples from numpy.random
MONTE_CARLO = frozenset({RANDOMIZATION.name, DIFF.name, DIFF_LOW.name, DIFF_HIGH.name})


def draw_ahead(wanted: list[Measure], opts: Options, topics: int) -> None:
    """Draw the Monte Carlo measures' resamples and signs for ``topics`` paired topics
    now: reprokg.stats keeps a seed's last draw, so a forked child started after this and
    the process share one (each side and ΔRI's bootstrap drew it again:
    benchmarks/README.md#figures-once-quoted-in-code). What a measure draws later is the same
    whether or not it was drawn ahead."""
    names = {m.name for m in wanted}
    if topics < 2 or not names & MONTE_CARLO:
        return
    from reprokg.stats.bootstrap import seeded_resamples
    from reprokg.stats.paired import RANDOMIZATION as RANDOMIZATION_TEST
    from reprokg.stats.paired import seeded_signs

    if names & {DIFF.name, DIFF_LOW.name, DIFF_HIGH.name, DRI_LOW.name, DRI_HIGH.name}:
        seeded_resamples(opts.seed, opts.resamples, topics)
    if RANDOMIZATION.name in names and 2**topics > RANDOMIZATION_TEST.defaults["exact_limit"]:
        seeded_signs(opts.seed, opts.resamples, topics)


#: the corrected measures and the per-side test each corrects
ADJUSTS = {
    PVALUE_ADJUSTED.name: PVALUE.name,
    WILCOXON_ADJUSTED.name: WILCOXON.name,
    RANDOMIZATION_ADJUSTED.name: RANDOMIZATION.name,
}

#: Every measure, in output order: repro_eval's, then the statistics next to them.
REGISTRY: dict[str, Measure] = {
    m.name: m
    for m in (
        KTU,
        RBO,
        RMSE,
        NRMSE,
        PVALUE,
        ER,
        DRI,
        WILCOXON,
        RANDOMIZATION,
        ORIGINAL_MEAN,
        REPRODUCED_MEAN,
        DIFF,
        DIFF_LOW,
        DIFF_HIGH,
        DRI_LOW,
        DRI_HIGH,
        DZ,
        DZ_LOW,
        DZ_HIGH,
        GZ,
        GZ_LOW,
        GZ_HIGH,
        PVALUE_ADJUSTED,
        WILCOXON_ADJUSTED,
        RANDOMIZATION_ADJUSTED,
    )
}


class OptionsJSON(TypedDict):
    """The options a comparison was computed with (``reprokg compare``'s): the JSON shape
    ``Options.to_json()`` returns and the service declares; a comparison stored before the
    statistics' options has none of them."""

    depth: int
    order: Literal["file", "score"]
    rbo_p: float
    rbo_depth: int
    rbo_extrapolated: bool
    measures: list[str]
    correction: NotRequired[str | None]
    "p.adjust's method (none: uncorrected)"
    family: NotRequired[str | None]
    "the p-values one correction adjusts together"
    resamples: NotRequired[int | None]
    "Monte Carlo resamples (randomization, bootstrap)"
    seed: NotRequired[int | None]
    level: NotRequired[float | None]
    "confidence level of the intervals"


@dataclass
class Options:
    """The parameters of a comparison; the defaults are the measures' (repro_eval 0.5.0's)."""

    measures: tuple[str, ...] = DEFAULT_MEASURES
    depth: int = KTU.defaults["depth"]
    #: rankings for KTU/RBO: "file" (repro_eval: file order, adjacent ties by docid desc)
    #: or "score" (corrected: score descending, ties by docid descending, as trec_eval)
    order: str = KTU.defaults["order"]
    rbo_p: float = RBO.defaults["p"]
    rbo_depth: int = RBO.defaults["depth"]
    #: Webber's extrapolated RBO instead of the truncated normalised form
    rbo_extrapolated: bool = RBO.defaults["extrapolated"]
    #: the multiple-comparison correction of each test's family of p-values (R p.adjust's
    #: names, or "none"); the family is every measure and side of the comparison
    correction: str = "holm"
    #: Monte Carlo resamples of the randomization test and the bootstrap, and their seed
    resamples: int = 9999
    seed: int = 0
    #: confidence level of the effect sizes' and the mean difference's intervals
    level: float = 0.95

    def to_json(self) -> OptionsJSON:
        return {
            "depth": self.depth,
            "order": cast(Literal["file", "score"], self.order),
            "rbo_p": self.rbo_p,
            "rbo_depth": self.rbo_depth,
            "rbo_extrapolated": self.rbo_extrapolated,
            "measures": list(self.measures),
            "correction": self.correction,
            "family": FAMILY,
            "resamples": self.resamples,
            "seed": self.seed,
            "level": self.level,
        }


@dataclass
class Inputs:
    """What a registered measure computes from (:attr:`Measure.compute`)."""

    kind: str
    #: prepared rankings by role: orig_base, rep_base and, when given, orig_adv, rep_adv
    runs: dict[str, Run]
    #: per-topic effectiveness by role
    scores: dict[str, TopicScores]
    #: (side, original role, reproduced role): baseline and, when given, advanced
    pairs: list[tuple[str, str, str]]
    options: Options
    #: sentences for the comparison's warnings, appended as measures are computed
    warnings: list[str]
    #: values several measures of one side share (the paired differences, the effect
    #: sizes with their intervals), computed once per side
    cache: dict[str, Any] = field(default_factory=dict)


def applicable(kind: str, *, advanced: bool = True) -> list[Measure]:
    """Measures that apply to a study kind (same-collection or cross-collection), in output
    order; without advanced runs the measures of improvements are left out."""
    return [
        m for m in REGISTRY.values() if m.applies_to(kind) and (advanced or not m.needs_advanced)
    ]
