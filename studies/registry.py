"""The registered studies: each a named analysis with its citation, data, SPARQL and methods.

In the style of :mod:`reprokg.measures.registry`: a :class:`PublishedStudy` says what it recomputes
(the publication, by DOI), whose analysis code it follows, which SPARQL it reads, and its
:class:`Method` s — the first, ``published``, is the default and follows the authors'
own analysis choices, each stated as one rule with its source; the others are documented
alternatives that say what they change. :meth:`Study.run` imports the study's module
(pandas, scipy) only when it runs, so listing the studies stays cheap.

A study module is a :class:`~reprokg.studies.plugin.StudyModule`: ``read(store,
**options)`` (its typed inputs, read via SPARQL), ``analyze(inputs, method, **options)``
(pure: inputs in, its result dataclass out, a
:class:`~reprokg.studies.study_result.StudyResult`), ``format_table(result)``,
``values(result)`` (the
numbers a result document names, as :class:`~reprokg.studies.plugin.StudyValue` s),
``charts(result, inputs, fmt)`` (``{file stem: SVG or PNG bytes}``) and
``is_empty(inputs)`` (nothing of the study in the store); :meth:`PublishedStudy.impl`
checks it when it imports it.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType, ModuleType
from typing import TYPE_CHECKING, cast

from reprokg.core.errors import NotFound, ReprokgError, UsageError
from reprokg.studies.plugin import OptionValue, StudyAnswer, StudyModule, missing_parts

if TYPE_CHECKING:
    from reprokg.store.base import Store

#: a study module as the registry sees it: its inputs are only handed back to it
RegisteredModule = StudyModule[object, StudyAnswer]

PUBLISHED = "published"
CORRECTED = "corrected"


@dataclass(frozen=True)
class Method:
    """One way of computing a study: its name, what it is, and its rules one by one."""

    name: str
    summary: str
    rules: tuple[str, ...]

    def to_dict(self) -> dict[str, str | list[str]]:
        return {"name": self.name, "summary": self.summary, "rules": list(self.rules)}


@dataclass(frozen=True)
class Option:
    """An option a study accepts: what it chooses, and its default."""

    description: str
    default: OptionValue

    def to_dict(self) -> dict[str, str | OptionValue]:
        return {"description": self.description, "default": self.default}


@dataclass(frozen=True)
class PublishedStudy:
    """A published study recomputed from the graph (not a comparison of runs: that is
    :class:`reprokg.measures.run_comparison.RunComparison`)."""

    name: str
    title: str
    #: the publication whose analysis is recomputed: a DOI IRI, else its URL, else None
    publication: str | None
    citation: str
    #: the authors' analysis code the ``published`` method follows
    follows: str
    #: what the study reads from the graph (document kinds, surveys)
    data: str
    #: the SPARQL it reads, as package paths (``studies/sparql/…``, ``queries/…``)
    queries: tuple[str, ...]
    methods: tuple[Method, ...]
    module: str
    #: options the study accepts, e.g. a data set or thresholds
    options: Mapping[str, Option] = field(default_factory=lambda: MappingProxyType({}))
    #: the options that choose what is read (given to ``read``); the others go to ``analyze``
    read_options: tuple[str, ...] = ()

    @property
    def default_method(self) -> str:
        return self.methods[0].name

    def method(self, name: str | None) -> Method:
        name = name or self.default_method
        for m in self.methods:
            if m.name == name:
                return m
        known = ", ".join(m.name for m in self.methods)
        raise UsageError(f"study {self.name} has no method {name!r}; its methods: {known}")

    def sparql(self) -> dict[str, str]:
        """The text of each query the study reads (the template, header included), by
        package path."""
        from reprokg.sparql.named import package_query

        return {q: package_query(q).sparql for q in self.queries}

    def impl(self) -> RegisteredModule:
        """The module that reads, computes and renders the study (imported on first use),
        checked against the plugin contract."""
        module: ModuleType = importlib.import_module(self.module)
        if not isinstance(module, StudyModule):
            raise ReprokgError(
                f"study {self.name}: module {self.module} is not a study module; it lacks "
                + ", ".join(missing_parts(module))
            )
        return cast(RegisteredModule, module)

    def coerce(self, options: Mapping[str, OptionValue]) -> dict[str, OptionValue]:
        """Option values given as text (command line, query string) as their default's type."""
        self.check_options(options)
        out = {}
        for k, v in options.items():
            default = self.options[k].default
            if isinstance(v, str) and isinstance(default, float):
                try:
                    v = float(v)
                except ValueError:
                    raise UsageError(f"option {k} must be a number, got {v!r}") from None
            out[k] = v
        return out

    def explicit(self, options: Mapping[str, OptionValue]) -> dict[str, OptionValue]:
        """``options`` without those given at their default (what names a result)."""
        given = self.coerce(options)
        return {k: v for k, v in given.items() if v != self.options[k].default}

    def check_options(self, options: Mapping[str, OptionValue]) -> None:
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            known = ", ".join(self.options) or "none"
            raise UsageError(
                f"study {self.name} has no option {', '.join(unknown)}; its options: {known}"
            )

    def read(self, store: Store, **options: OptionValue) -> object:
        """The study's inputs read from ``store`` (one or more SELECTs); options that are
        not :attr:`read_options` are accepted and left to :meth:`analyze`. Their type is
        the study module's; only it reads them."""
        options = self.coerce(options)
        given = {k: v for k, v in options.items() if k in self.read_options}
        return self.impl().read(store, **given)

    def analyze(
        self, inputs: object, method: str | None = None, **options: OptionValue
    ) -> StudyAnswer:
        """The study's result on inputs :meth:`read` returned, with every option given
        (read ones too: they name its document)."""
        m = self.method(method)
        options = self.coerce(options)
        given = {k: v for k, v in options.items() if k not in self.read_options}
        return self.impl().analyze(inputs, m.name, **given).with_options(options)

    def run(self, store: Store, method: str | None = None, **options: OptionValue) -> StudyAnswer:
        """Read from ``store`` and compute: the study's result."""
        self.method(method)  # refuse an unknown method before reading anything
        self.check_options(options)
        return self.analyze(self.read(store, **options), method, **options)

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "title": self.title,
            "publication": self.publication,
            "citation": self.citation,
            "follows": self.follows,
            "data": self.data,
            "queries": list(self.queries),
            "default_method": self.default_method,
            "methods": [m.to_dict() for m in self.methods],
            "options": {k: o.to_dict() for k, o in self.options.items()},
        }


def _study(
    *,
    name: str,
    title: str,
    publication: str | None,
    citation: str,
    follows: str,
    data: str,
    queries: Iterable[str],
    methods: Iterable[Method],
    module: str,
    options: Mapping[str, Option] | None = None,
    read_options: Iterable[str] = (),
) -> PublishedStudy:
    return PublishedStudy(
        name=name,
        title=title,
        publication=publication,
        citation=citation,
        follows=follows,
        data=data,
        queries=tuple(queries),
        methods=tuple(methods),
        module=module,
        options=MappingProxyType(dict(options or {})),
        read_options=tuple(read_options),
    )


_GS = "generateStatistics.m"

SIGGRAPH2020 = _study(
    name="siggraph2020",
    title="Code Replicability in Computer Graphics (Bonneel et al., SIGGRAPH 2020)",
    publication="https://doi.org/10.1145/3386569.3392413",
    citation="Nicolas Bonneel, David Coeurjolly, Julie Digne, Nicolas Mellado. Code "
    "Replicability in Computer Graphics. ACM Transactions on Graphics 39(4), SIGGRAPH 2020.",
    follows="GraphicsReplicability/sig20-paper-supplementary-materials: scripts/"
    "generateStatistics.m with chi2test.m and fdr_bh.m (MATLAB)",
    data="code-replicability reviews (kind survey): the consolidated data (374 papers) or "
    "the replicability.graphics site data",
    queries=("survey/sparql/survey_papers.rq",),
    methods=[
        Method(
            PUBLISHED,
            "the study's own MATLAB script, rule by rule",
            (
                "replication score = the recorded 1-5 answer; every non-numeric answer "
                f"('' or 'N/A') is 0 ({_GS}:133-142)",
                f"code shared = the availability answer contains 'Yes' ({_GS}:87); a complete "
                f"test = the test answer is 'Yes' ({_GS}:118)",
                f"industry = some author from a private company ({_GS}:157); deep learning = "
                f"the answer does not start with N or F ({_GS}:101); a missing year is 2018 "
                f"({_GS}:144-148)",
                "chi-squared tests of two proportions without continuity correction "
                f"(chi2test.m): 2014/2016, 2014/2018, 2016/2018 ({_GS}:200-202), deep learning "
                f"vs not ({_GS}:240), industry vs academia ({_GS}:381)",
                "2014 citations with vs without code: MATLAB ranksum, normal approximation "
                f"with tie-corrected variance and 0.5 continuity correction ({_GS}:325)",
                "first ANOVA anovan(score, {year, reviewer}) over every shared code whose test "
                f"was completed, scored or not ({_GS}:360): main effects, categorical factors, "
                "anovan's default Type III sums of squares (= Type II without interactions)",
                "the eight p-values (three year pairs, industry, deep learning, citations, the "
                "first ANOVA's two factors) adjusted together by Benjamini-Hochberg "
                f"(fdr_bh, 'pdep', {_GS}:385)",
                "second ANOVA anovan(score, {year, topic, industry}) over all papers, papers "
                f"without code scoring 0 ({_GS}:367); not part of the BH family",
            ),
        ),
        Method(
            CORRECTED,
            "the scores the reviewers did not give are left out instead of counted as 0",
            (
                "replication score: only recorded 1-5 answers; rows whose answer is '' or "
                "'N/A' are dropped from both ANOVAs instead of scored 0",
                "first ANOVA over shared codes whose test was completed and that have a score",
                "second ANOVA over the papers that have a score",
                "rows with a missing year, topic or industry flag are dropped, not defaulted",
                "everything else as published (the same tests, the same BH family)",
            ),
        ),
    ],
    module="reprokg.studies.siggraph2020",
    options={
        "dataset": Option("the review data set: consolidated, per-paper or both", "consolidated")
    },
    read_options=("dataset",),
)

GK2018 = _study(
    name="gk2018",
    title="State of the Art: Reproducibility in Artificial Intelligence "
    "(Gundersen & Kjensmo, AAAI 2018)",
    publication="https://doi.org/10.1609/aaai.v32i1.11503",
    citation="Odd Erik Gundersen, Sigbjørn Kjensmo. State of the Art: Reproducibility in "
    "Artificial Intelligence. AAAI 2018.",
    follows="aaai2018-paperid-62/aaai2018-paperid-62: evaluation_analysis.ipynb (pandas)",
    data="documentation assessments (kind gk2018) of 400 IJCAI/AAAI papers",
    queries=("studies/sparql/gk2018_assessments.rq",),
    methods=[
        Method(
            PUBLISHED,
            "the authors' notebook, cell by cell",
            (
                "experimental papers only: research_type E (cells 1 and 8)",
                "Method = problem description, goal/objective, research method, research "
                "question, pseudocode (cell 10); Data = train, validation, test, results "
                "(cell 12); Experiment = hypothesis, prediction, open source code, open "
                "experiment code, hardware specification, software dependencies, experiment "
                "setup, evaluation criteria (cell 14)",
                "per paper: R3D = mean of Method, R2D = mean of Method and Data, R1D = mean "
                "of all three, DataD = mean of Data, ExpD = mean of Experiment over the 0/1 "
                "answers, missing answers skipped (pandas mean(axis=1))",
                "R3/R2/R1 satisfied = every answered variable of the factors is 1 (pandas "
                "all(axis=1) skips missing answers)",
                "mean and variance over papers with ddof = 1 (pandas var()), overall, by "
                "venue (conference) and by period 2013/14 vs 2016 (cell 8)",
            ),
        ),
    ],
    module="reprokg.studies.gk2018",
)

PWC_CHECKLIST_2019 = _study(
    name="pwc-checklist-2019",
    title="ML Code Completeness Checklist, NeurIPS 2019 repositories (Papers with Code)",
    publication="https://medium.com/paperswithcode/ml-code-completeness-checklist-e9127b168501",
    citation="Papers with Code (Robert Stojnic et al.). ML Code Completeness Checklist, "
    "analysis of the official NeurIPS 2019 repositories, 2020 "
    "(https://medium.com/paperswithcode/ml-code-completeness-checklist-e9127b168501).",
    follows="paperswithcode/releasing-research-code: notebooks/code_checklist-analysis.Rmd (R)",
    data="checklist assessments (kind pwc-checklist) of 221 NeurIPS 2019 repositories",
    queries=("studies/sparql/pwc_checklist.rq",),
    methods=[
        Method(
            PUBLISHED,
            "the authors' R notebook with R's defaults",
            (
                "Python repositories only: t[t$python==1,] (Rmd:29)",
                "score = number of ticks: rowSums over training, evaluation, "
                "pretrained_model, results, dependencies (Rmd:36)",
                "per score: count, proportion of the Python repositories and summary() of "
                "the stars: min, quartiles by R's default type-7 quantile, mean, max (Rmd:44-52)",
                "MASS::rlm(stars ~ training + evaluation + pretrained_model + results + "
                "dependencies) with every default (Rmd:87): Huber psi k = 1.345, least-"
                "squares start, MAD scale re-estimated each step, at most 20 iterations, "
                "acc = 1e-4; summary.rlm standard errors and t values",
                "wilcox.test(stars[score==5], stars[score==i]) for i = 0..4 with R's defaults "
                "(Rmd:89-92): exact when both samples are under 50 and nothing is tied, "
                "otherwise the normal approximation with tie and continuity corrections",
            ),
        ),
    ],
    module="reprokg.studies.pwc_checklist_2019",
)

AUDITS = _study(
    name="audits",
    title="Audit analytics over the reproducibility attributes of Hille, Stubbemann & "
    "Hanika (TMLR 2024)",
    publication=None,  # TMLR 10/2024: no DOI in our copy of the paper (seed 000)
    citation="Tobias Hille, Maximilian Stubbemann, Tom Hanika. Reproducibility and Geometric "
    "Intrinsic Dimensionality: An Investigation on Graph Neural Network Research. "
    "Transactions on Machine Learning Research, 10/2024.",
    follows="the seed's ontology of audit attributes (D1-D9, S1-S19, R1-R6) and its proposed "
    "ordinal comparison and formal context (sections 3, 5 and appendix B)",
    data="audits (kind audit) with their findings and metric comparisons",
    queries=(
        "studies/sparql/audit_publications.rq",
        "studies/sparql/audit_findings.rq",
        "studies/sparql/audit_metrics.rq",
    ),
    methods=[
        Method(
            PUBLISHED,
            "the seed's definitions; thresholds for R2/R4 from its wording",
            (
                "open world: an asserted attribute marks a problem; an unasserted one is "
                "unknown, not absent",
                "frequency of an attribute = audited publications asserting it, summed per "
                "category (data set, software, computational result) and subcategory",
                "ordinal comparison: A is at least as reproducible as B when A's asserted "
                "attributes are a subset of B's (a preorder; publications with equal sets are "
                "one class of the partial order); Hasse diagram = covering pairs of classes",
                "formal concepts of the context publications x attributes D1-R6, by "
                "NextClosure (Ganter), each concept once in lectic order",
                "R2 derived = some metric's relative difference d has 0 < d <= small_max "
                "(default 2%: the seed's 'in the range of 1-2%'); R4 derived = at least "
                "almost_all (default 80%) of the metrics with a known difference have "
                "d > strong (default 5%); both defaults are assumptions the seed gives no "
                "number for, configurable; compared with what the auditors asserted",
            ),
        ),
    ],
    module="reprokg.studies.audits",
    options={
        "small_max": Option("R2: the largest relative difference that is small", 0.02),
        "strong": Option("R4: a relative difference above this is strong", 0.05),
        "almost_all": Option("R4: the share of metrics that must differ strongly", 0.8),
    },
)

GRSI_STAMPS = _study(
    name="grsi-stamps",
    title="Graphics Replicability Stamps among the SIGGRAPH code-replicability reviews "
    "(a join by DOI)",
    publication="https://doi.org/10.1109/BELIV64461.2024.00016",
    citation="Tobias Isenberg. The State of Reproducibility Stamps for Visualization Research "
    "Papers. BELIV 2024 (the stamp list), joined with Bonneel et al., SIGGRAPH 2020 (the "
    "reviews).",
    follows="no published analysis: a statistic neither source shows alone",
    data="stamps (kind grsi) joined by DOI IRI with the code-replicability reviews (kind survey)",
    queries=("queries/stamped-reviews.rq",),
    methods=[
        Method(
            PUBLISHED,
            "the reviews scored by the SIGGRAPH study's published rule",
            (
                "a review is stamped when a stamp of the GRSI list names its paper's DOI IRI "
                "(both sources lower-case the DOI)",
                "only the years in which a stamped paper occurs (the stamp began in 2016)",
                "code shared: stamped vs unstamped, Fisher's exact test, two-sided as R's "
                "fisher.test (the stamped group is small; chi-squared shown beside it)",
                "replication score of shared codes whose test was completed, non-numeric "
                "answers scored 0 as the SIGGRAPH study's script does: Wilcoxon rank-sum "
                "stamped vs unstamped, normal approximation with tie and continuity "
                "corrections (R's wilcox.test with ties)",
            ),
        ),
        Method(
            CORRECTED,
            "non-numeric replication scores left out",
            (
                "as published, but reviews whose replication answer is '' or 'N/A' are left "
                "out of the score comparison instead of scored 0",
            ),
        ),
    ],
    module="reprokg.studies.grsi",
    options={"survey": Option("the review data set: consolidated or per-paper", "consolidated")},
    read_options=("survey",),
)

_NB = "atrisovic/dataverse-r-study analysis/notebooks/"
TRISOVIC2022 = _study(
    name="trisovic2022",
    title="A large-scale study on research code quality and execution (Trisovic et al., "
    "Scientific Data 2022): re-execution rates",
    publication="https://doi.org/10.1038/s41597-022-01143-6",
    citation="Ana Trisovic, Matthew K. Lau, Thomas Pasquier, Mercè Crosas. A large-scale study "
    "on research code quality and execution. Scientific Data 9, 60 (2022).",
    follows=f"{_NB}01-success-analysis.ipynb, 02-get-combined-success-rates.ipynb and "
    "02-error_analysis.ipynb (pandas), with their printed outputs",
    data="re-execution logs (kind re-execution): the file results of R 3.2, 3.6 and 4.0 with "
    "and without code cleaning, and the download logs",
    queries=("studies/sparql/trisovic2022_results.rq", "studies/sparql/trisovic2022_downloads.rq"),
    methods=[
        Method(
            PUBLISHED,
            "the authors' notebooks, cell by cell",
            (
                "excluded DOIs: a download error in all six configurations (nb01 cells 8-11)",
                "per file and configuration: success = 'success', time limit = 'time limit "
                "exceeded', error = the rest, after the excluded DOIs' files are dropped "
                "(nb01 cell 15)",
                "per data set: success when any file ran, time limit when one hit it and none "
                "ran, error otherwise (nb01 cell 17)",
                "combined: the three versions' logs merged on (doi, file) by outer joins; a "
                "file's result is success if any version ran it, none when a version lacks it "
                "or hit the time limit, else R 3.6's; files of DOIs with a download error in "
                "all three configurations dropped unless they ran (nb02 cells 9-29, 32-55)",
                "error types by the notebook's substring rules, 'Error in source(r_file)' lines "
                "dropped (02-error_analysis cells 8-35)",
            ),
        ),
    ],
    module="reprokg.studies.trisovic2022",
)

ARTIFACT_EVALUATION = _study(
    name="artifact-evaluation",
    title="Artifact-evaluation badge rates per venue and year (ReproDB's systems and security "
    "venues)",
    publication="https://reprodb.github.io/",
    citation="ReproDB (ReproDB/reprodb.github.io): the artifact-evaluation results of OSDI, "
    "SOSP, EuroSys, ATC, FAST, SC, USENIX Security, NDSS, ACSAC, PETS, CHES, WOOT and SysTEX, "
    "consolidated from the venues' results pages.",
    follows="no published analysis: ReproDB shows counts; the rates and their exact intervals "
    "are ours",
    data="artifact-evaluation assessments (kind artifact-evaluation): ReproDB's artifacts.json "
    "(or the results pages) and its papers.json",
    queries=(
        "studies/sparql/artifact_evaluation.rq",
        "studies/sparql/artifact_evaluation_papers.rq",
    ),
    methods=[
        Method(
            PUBLISHED,
            "shares of the evaluated artifacts, exact binomial intervals",
            (
                "an evaluated artifact = one record of the source's results (a badge or not)",
                "badge classes over the normalised ACM/NISO terms (docs/badge-normalisation.md): "
                "available = ACM Available or NISO ORO; evaluated = ACM Artifacts Evaluated, "
                "Functional or Reusable, or NISO ROR; reusable = ACM Reusable; reproduced = ACM "
                "Results Reproduced or NISO ROR-R; replicated = ACM Results Replicated",
                "results reproduced = the committee's assessment is reproduced (a results "
                "badge), among all evaluated artifacts of the venue and year",
                "95% two-sided Clopper-Pearson intervals (beta quantiles, as R's binom.test)",
                "papers with an artifact = has_artifact among the papers ReproDB lists for the "
                "venue and year (papers.json), where it lists them",
            ),
        ),
    ],
    module="reprokg.studies.artifact_evaluation",
    options={"source": Option("the evidence: reprodb or results-pages", "reprodb")},
    read_options=("source",),
)

ARTIFACT_PERMANENCE = _study(
    name="artifact-permanence",
    title="Artifact permanence: evaluated artifacts still reachable, by badge level, venue, "
    "year and host (ReproDB's link checks)",
    publication="https://reprodb.github.io/",
    citation="ReproDB (ReproDB/reprodb.github.io): the artifact-evaluation results of systems "
    "and security venues (artifacts.json) and its checks of every artifact URL "
    "(artifact_availability.json).",
    follows="no published analysis: ReproDB shows reachability per platform, venue and year; "
    "the join with the badges, the hosts from the URL and the exact intervals are ours",
    data="artifact-evaluation assessments (kind artifact-evaluation) joined by location to "
    "ReproDB's dated availability observations (kind artifact-availability)",
    queries=(
        "studies/sparql/artifact_permanence.rq",
        "queries/reproduced-then-unreachable.rq",
    ),
    methods=[
        Method(
            PUBLISHED,
            "reachable shares of the checked artifact locations, exact binomial intervals",
            (
                "a unit = one location (URL or DOI) of an evaluated artifact that was checked, "
                "per assessment of the source; it joins its checks by location (a DOI URL as "
                "its DOI IRI); an artifact location nobody checked is left out",
                "the latest check of a location decides; checks at the same time that "
                "disagree count as unreachable",
                "badge level = the highest badge of the assessment: results reproduced or "
                "replicated (ACM, NISO ROR-R) > functional or reusable (ACM Evaluated, "
                "Functional, Reusable, NISO ROR) > available only (ACM Available, NISO ORO) "
                "> no badge (docs/badge-normalisation.md)",
                "host from the URL: github.com, zenodo.org, figshare.com, gitlab.com, "
                "bitbucket.org, archive.softwareheritage.org (a subdomain counts as its "
                "domain), a DOI by its prefix (10.5281 Zenodo, 10.6084 Figshare, else other "
                "DOI); every other page (personal, institutional, drives) is other",
                "95% two-sided Clopper-Pearson intervals (scipy binomtest proportion_ci "
                "method exact, as R's binom.test)",
            ),
        ),
    ],
    module="reprokg.studies.artifact_permanence",
    options={"source": Option("the assessments: reprodb or results-pages", "reprodb")},
    read_options=("source",),
)

#: Every study, in listing order.
REGISTRY: dict[str, PublishedStudy] = {
    s.name: s
    for s in (
        SIGGRAPH2020,
        GK2018,
        PWC_CHECKLIST_2019,
        AUDITS,
        GRSI_STAMPS,
        TRISOVIC2022,
        ARTIFACT_EVALUATION,
        ARTIFACT_PERMANENCE,
    )
}


def get(name: str) -> PublishedStudy:
    """The study registered as ``name``; :class:`NotFound` naming the others."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise NotFound(f"no study {name!r}; registered studies: {', '.join(REGISTRY)}") from None
