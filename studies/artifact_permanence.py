"""Artifact permanence: are evaluated artifacts still where the committees found them?

Joins two ReproDB files no single view of ReproDB joins: the committees' assessments
(``artifacts.json``, loader ``artifact-evaluation``: badges, venue, year, the artifact's
locations) and its link checks (``artifact_availability.json``, loader
``artifact-availability``: one dated ``rk:AvailabilityObservation`` per checked URL). An
observation joins an artifact by location (``rk:checkedLocation`` = ``rk:artifactLocation``,
a DOI URL as its DOI IRI). The unit is one *checked location of an evaluated artifact*
(an assessment × a location of its artifact that was checked), judged by its latest check;
its share still reachable is given overall and by badge level (the highest badge the
committee awarded), venue, year of the evaluation and host (from the URL, :func:`host`),
each with its exact two-sided 95% Clopper-Pearson interval (scipy's ``binomtest(...)
.proportion_ci(method="exact")``, R's ``binom.test``). The papers behind the failed
results-badge locations are the named query ``queries/reproduced-then-unreachable.rq``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, ClassVar
from urllib.parse import urlsplit

from reprokg.core.errors import UsageError
from reprokg.sparql.named import package_query
from reprokg.sparql.rows import select_rows
from reprokg.store.base import Store
from reprokg.studies.plugin import StudyValue
from reprokg.studies.registry import ARTIFACT_PERMANENCE
from reprokg.studies.study_result import StudyResult

QUERY = "studies/sparql/artifact_permanence.rq"
NAMED_QUERY = "reproduced-then-unreachable"
RK = "https://w3id.org/reprokg/ontology#"
SOURCES = {"reprodb": RK + "ReproDB", "results-pages": RK + "ArtifactResultsPages"}
LEVEL = 0.95
#: badge levels, highest first: a location counts under its assessment's highest badge
LEVELS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "results reproduced or replicated",
        (
            "ACMResultsReproduced",
            "NISOResultsReproduced",
            "ACMResultsReplicated",
            "NISOResultsReplicated",
        ),
    ),
    (
        "functional or reusable",
        (
            "ACMArtifactsEvaluated",
            "ACMArtifactsFunctional",
            "ACMArtifactsReusable",
            "NISOResearchObjectsReviewed",
        ),
    ),
    (
        "available only",
        ("ACMArtifactsAvailable", "NISOOpenResearchObjects", "NISOOpenResearchObjectsAll"),
    ),
)
NO_BADGE = "no badge"
#: host of a URL (exact host or a subdomain of it) -> its name; a DOI by its prefix
HOSTS = {
    "github.com": "GitHub",
    "zenodo.org": "Zenodo",
    "figshare.com": "Figshare",
    "gitlab.com": "GitLab",
    "bitbucket.org": "Bitbucket",
    "archive.softwareheritage.org": "Software Heritage",
}
DOI_PREFIXES = {"10.5281": "Zenodo", "10.6084": "Figshare"}
OTHER_DOI = "other DOI"
OTHER = "other (personal, institutional and other pages)"


def host(location: str) -> str:
    """Where a location is hosted, from its URL: a DOI IRI by its registrant prefix (Zenodo
    10.5281, Figshare 10.6084, else "other DOI"), a URL by its host name (:data:`HOSTS`,
    a subdomain counting as its domain), anything else "other"."""
    parts = urlsplit(location)
    name = (parts.hostname or "").lower()
    if name == "doi.org":
        prefix = parts.path.lstrip("/").split("/", 1)[0]
        return DOI_PREFIXES.get(prefix, OTHER_DOI)
    for domain, label in HOSTS.items():
        if name == domain or name.endswith("." + domain):
            return label
    return OTHER


def level(badges: set[str]) -> str:
    """The highest badge level among badge concept IRIs (or local names)."""
    local = {b.rsplit("#", 1)[-1] for b in badges}
    for name, concepts in LEVELS:
        if local & set(concepts):
            return name
    return NO_BADGE


def share(k: int, n: int) -> dict[str, Any]:
    """``k`` of ``n`` reachable with the exact (Clopper-Pearson) 95% interval."""
    if n == 0:
        return {"k": 0, "n": 0, "rate": None, "ci_low": None, "ci_high": None}
    from scipy.stats import binomtest

    ci = binomtest(k, n).proportion_ci(confidence_level=LEVEL, method="exact")
    return {
        "k": k,
        "n": n,
        "rate": k / n,
        "ci_low": float(ci.low),
        "ci_high": float(ci.high),
    }


@dataclass(frozen=True)
class Location:
    """One checked location of one evaluated artifact, judged by its latest check."""

    assessment: str
    venue: str
    year: int
    level: str
    location: str
    host: str
    accessible: bool
    checked_at: str


@dataclass
class Inputs:
    locations: list[Location]
    source: str
    sparql: str


def read(store: Store, source: str = "reprodb") -> Inputs:
    """The checked locations of ``source``'s assessments (rows folded per assessment ×
    location: badges gathered, the latest check kept; checks of the same time that
    disagree count as unreachable)."""
    if source not in SOURCES:
        raise UsageError(f"source must be one of {', '.join(SOURCES)}, got {source!r}")
    sparql = package_query(QUERY).bind({})
    badges: dict[str, set[str]] = defaultdict(set)
    facts: dict[str, tuple[str, int]] = {}
    checks: dict[tuple[str, str], tuple[str, bool]] = {}
    for r in select_rows(store, sparql):
        if r.get("source") != SOURCES[source]:
            continue
        a = str(r["assessment"])
        facts[a] = (str(r["venue"]), int(r["year"]))
        if r.get("badge"):
            badges[a].add(str(r["badge"]))
        key, when, ok = (a, str(r["location"])), str(r["checkedAt"]), bool(r["accessible"])
        seen = checks.get(key)
        if seen is None or when > seen[0]:
            checks[key] = (when, ok)
        elif when == seen[0]:
            checks[key] = (when, seen[1] and ok)
    out = [
        Location(a, *facts[a], level(badges[a]), loc, host(loc), ok, when)
        for (a, loc), (when, ok) in sorted(checks.items())
    ]
    return Inputs(out, source, sparql)


def is_empty(inputs: Inputs) -> bool:
    return not inputs.locations


def _groups(locations: list[Location], key: str, order: list[Any]) -> list[dict[str, Any]]:
    n: dict[Any, int] = defaultdict(int)
    k: dict[Any, int] = defaultdict(int)
    for loc in locations:
        g = getattr(loc, key)
        n[g] += 1
        k[g] += loc.accessible
    return [
        {key: g, "unreachable": n[g] - k[g], "reachable": share(k[g], n[g])} for g in order if n[g]
    ]


@dataclass(frozen=True, kw_only=True)
class ArtifactPermanenceResult(StudyResult):
    """Reachable shares of checked artifact locations, overall and by group."""

    STUDY: ClassVar[str] = "artifact-permanence"

    source: str
    checked_at: list[str]
    n_locations: int
    n_distinct_urls: int
    n_assessments: int
    #: unreachable, reachable (a share with its Clopper-Pearson interval)
    overall: dict[str, Any]
    by_badge_level: list[dict[str, Any]]
    by_venue: list[dict[str, Any]]
    by_year: list[dict[str, Any]]
    by_host: list[dict[str, Any]]
    #: locations, assessments, the named query listing their papers
    results_badge_unreachable: dict[str, Any]
    rules: list[str]
    provenance: dict[str, str]

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "source": self.source,
            "checked_at": self.checked_at,
            "n_locations": self.n_locations,
            "n_distinct_urls": self.n_distinct_urls,
            "n_assessments": self.n_assessments,
            "overall": self.overall,
            "by_badge_level": self.by_badge_level,
            "by_venue": self.by_venue,
            "by_year": self.by_year,
            "by_host": self.by_host,
            "results_badge_unreachable": self.results_badge_unreachable,
            "rules": self.rules,
            "provenance": self.provenance,
        }


def analyze(inputs: Inputs, method: str = "published") -> ArtifactPermanenceResult:
    """Reachable shares of the checked locations, overall and by badge level, venue, year
    and host, each with its Clopper-Pearson interval."""
    locs = inputs.locations
    up = sum(loc.accessible for loc in locs)
    levels = [name for name, _ in LEVELS] + [NO_BADGE]
    hosts = sorted({loc.host for loc in locs}, key=lambda h: (h.startswith("other"), h))
    results_down = [loc for loc in locs if loc.level == levels[0] and not loc.accessible]
    return ArtifactPermanenceResult(
        method=method,
        source=inputs.source,
        checked_at=sorted({loc.checked_at for loc in locs}),
        n_locations=len(locs),
        n_distinct_urls=len({loc.location for loc in locs}),
        n_assessments=len({loc.assessment for loc in locs}),
        overall={"unreachable": len(locs) - up, "reachable": share(up, len(locs))},
        by_badge_level=_groups(locs, "level", levels),
        by_venue=_groups(locs, "venue", sorted({loc.venue for loc in locs})),
        by_year=_groups(locs, "year", sorted({loc.year for loc in locs})),
        by_host=_groups(locs, "host", hosts),
        results_badge_unreachable={
            "locations": len(results_down),
            "assessments": len({loc.assessment for loc in results_down}),
            "named_query": NAMED_QUERY,
        },
        rules=list(ARTIFACT_PERMANENCE.method(method).rules),
        provenance={"sparql": inputs.sparql, "named_query": NAMED_QUERY},
    )


def _line(label: str, row: dict[str, Any], down: int) -> str:
    s = row
    if s["n"] == 0:
        return f"  {label:<48} {0:>5}"
    return (
        f"  {label:<48} {s['n']:>5} {down:>5}  {100 * s['rate']:5.1f}% "
        f"[{100 * s['ci_low']:5.1f}, {100 * s['ci_high']:5.1f}]"
    )


def format_table(answer: ArtifactPermanenceResult) -> str:
    result = answer.to_json()
    o = result["overall"]
    lines = [
        f"Artifact permanence ({result['source']}; checked {', '.join(result['checked_at'])}): "
        f"{result['n_locations']} checked locations of {result['n_assessments']} evaluated "
        f"artifacts, {o['unreachable']} unreachable",
        f"  {'':<48} {'n':>5} {'down':>5}  reachable [95% Clopper-Pearson]",
        _line("all", o["reachable"], o["unreachable"]),
    ]
    for key, title in (
        ("by_badge_level", "badge level"),
        ("by_host", "host"),
        ("by_venue", "venue"),
        ("by_year", "year of the evaluation"),
    ):
        lines.append(f"by {title}:")
        field = key.removeprefix("by_").replace("badge_level", "level")
        for row in result[key]:
            lines.append(_line(str(row[field]), row["reachable"], row["unreachable"]))
    r = result["results_badge_unreachable"]
    lines.append(
        f"results-badge artifacts unreachable: {r['locations']} locations of "
        f"{r['assessments']} assessments (the papers: reprokg query {r['named_query']})"
    )
    return "\n".join(lines)


def values(answer: ArtifactPermanenceResult) -> list[StudyValue]:
    result = answer.to_json()
    out = [
        StudyValue(
            name="overall.reachable",
            description="share of checked artifact locations still reachable",
            statistic=result["overall"]["reachable"]["rate"],
            n=result["overall"]["reachable"]["n"],
        )
    ]
    for row in result["by_badge_level"]:
        out.append(
            StudyValue(
                name=f"by_badge_level.{row['level'].replace(' ', '_')}.reachable",
                description=f"share reachable, badge level {row['level']}",
                statistic=row["reachable"]["rate"],
                n=row["reachable"]["n"],
            )
        )
    return out


def charts(answer: ArtifactPermanenceResult, inputs: Inputs, fmt: str = "svg") -> dict[str, bytes]:
    from reprokg.studies import plots

    rows = answer.by_badge_level
    return {
        "artifact-permanence-by_badge_level": plots.render(
            lambda: plots.bars(
                [r["level"] for r in rows],
                [100 * (r["reachable"]["rate"] or 0.0) for r in rows],
                ylabel="checked locations reachable (%)",
                title="Artifact locations still reachable, by badge level",
                notes=[f"{r['reachable']['k']}/{r['reachable']['n']}" for r in rows],
            ),
            fmt,
        )
    }
