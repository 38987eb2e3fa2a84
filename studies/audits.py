"""Audit analytics for the reproducibility attributes of Hille, Stubbemann & Hanika (seed 000).

Every attribute (D1-D9 data set, S1-S19 software, R1-R6 computational result) marks a
*problem* found by an audit; an attribute not asserted is unknown, not absent (open
world). Over the audits in the graph this module gives

* attribute frequencies (publications asserting each), per category and subcategory;
* the ordinal comparison the seed proposes (section "Limitations and Extensions": "an
  ordinal measuring structure … that allows for formal comparison and ordering"):
  A is at least as reproducible as B when A's asserted attributes ⊆ B's, a preorder whose
  quotient is a partial order; its Hasse diagram (covering pairs);
* the formal concepts of the context publications × attributes (appendix B reads the
  audits as a formal context), by :mod:`fca`;
* R2/R4 *derived* from the metrics' relative differences, compared with what the
  auditors asserted. R2 (seed: "small deviation … when the relative difference is in the
  range of 1-2%") is read as 0 < d ≤ 2%: the auditors asserted R2 for GCN's deviations
  "typically within a range of 1%", so 1-2% is an upper end, not a floor. R4 ("strong
  differences in almost all experiments") has no number in the seed: ``strong`` (default
  5%) and ``almost_all`` (default 80% of the metrics with a known difference) are this
  module's assumptions, configurable, and every result states the thresholds it used.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar, TypedDict

import pandas as pd

from reprokg.sparql.named import package_query
from reprokg.sparql.rows import select_rows
from reprokg.store.base import Store
from reprokg.studies import fca
from reprokg.studies.plugin import OptionValue, StudyValue
from reprokg.studies.registry import AUDITS, PUBLISHED
from reprokg.studies.study_result import StudyResult

STUDY = AUDITS
QUERIES = {
    "publications": "studies/sparql/audit_publications.rq",
    "findings": "studies/sparql/audit_findings.rq",
    "metrics": "studies/sparql/audit_metrics.rq",
}

CATEGORIES = ("data set", "software", "computational result")


def _scheme() -> dict[str, tuple[str, str | None]]:
    """attribute -> (category, subcategory) as in the ontology's SKOS scheme (ontology/
    reprokg.ttl ``skos:broader``); S5 and S10 have no recoverable subcategory."""
    out: dict[str, tuple[str, str | None]] = {}
    for i in range(1, 10):
        out[f"D{i}"] = ("data set", "availability" if i <= 7 else "transformation")
    for i in range(1, 20):
        sub = (
            "environment"
            if i <= 4
            else None
            if i in (5, 10)
            else "usage"
            if i <= 9
            else "source code"
        )
        out[f"S{i}"] = ("software", sub)
    for i in range(1, 7):
        out[f"R{i}"] = ("computational result", "model" if i == 1 else "predictions")
    return out


ATTRIBUTE_SCHEME = _scheme()
ATTRIBUTES = tuple(ATTRIBUTE_SCHEME)


@dataclass(frozen=True)
class Thresholds:
    """Relative-difference thresholds for deriving R2 and R4 (fractions, 0.02 = 2%)."""

    small_max: float = 0.02  # R2: 0 < d <= small_max (seed: "in the range of 1-2%")
    strong: float = 0.05  # R4: a difference d > strong is strong (assumption, not the seed's)
    almost_all: float = 0.8  # R4: share of known differences that are strong (assumption)


def analyze_frames(
    findings: pd.DataFrame,
    metrics: pd.DataFrame | None = None,
    publications: list[str] | None = None,
    thresholds: Thresholds | None = None,
    audits: list[str] | None = None,
) -> dict[str, Any]:
    """The audit analytics as JSON: ``n_audits``, ``frequencies``, ``order``, ``concepts``,
    ``derived`` (and ``by_category``, ``by_subcategory``, ``hasse``, ``lattice``).

    ``findings``: one row per asserted attribute — ``audit``, ``publication``,
    ``attribute`` and optionally ``scope`` (data sets the finding is limited to, comma-
    separated). ``metrics``: ``publication``, ``metric``, ``dataset``, ``reported``,
    ``reproduced``, ``relative_difference`` (any may be missing). ``publications`` adds
    audited publications that asserted nothing, ``audits`` the audits (counted in
    ``n_audits``; by default those with a finding).
    """
    th = thresholds or Thresholds()
    if findings.empty:
        findings = pd.DataFrame(columns=["audit", "publication", "attribute", "scope"])
    pubs = sorted(set(findings["publication"]) | set(publications or []))
    attrs_of: dict[str, set[str]] = {p: set() for p in pubs}
    for p, a in zip(findings["publication"], findings["attribute"], strict=True):
        attrs_of[p].add(a)
    used = [a for a in ATTRIBUTES if any(a in s for s in attrs_of.values())]
    freq = {a: sum(a in s for s in attrs_of.values()) for a in used}
    by_cat = {c: 0 for c in CATEGORIES}
    by_sub: dict[str, int] = {}
    for a, k in freq.items():
        cat, sub = ATTRIBUTE_SCHEME[a]
        by_cat[cat] += k
        key = f"{cat} / {sub}" if sub else f"{cat} / (none)"
        by_sub[key] = by_sub.get(key, 0) + k
    order = [
        [a, b] for a in pubs for b in pubs if a != b and attrs_of[a] <= attrs_of[b]
    ]  # a is at least as reproducible as b
    classes = _equivalence_classes(pubs, attrs_of)
    reps = [c[0] for c in classes]
    hasse = fca.covering_pairs(reps, lambda x, y: attrs_of[x] <= attrs_of[y])
    found = fca.concepts(pubs, list(ATTRIBUTES), {p: attrs_of[p] for p in pubs})
    if audits is not None:
        n_audits = len(set(audits))
    else:
        n_audits = int(findings["audit"].nunique()) if "audit" in findings else len(pubs)
    return {
        "n_audits": n_audits,
        "n_publications": len(pubs),
        "frequencies": freq,
        "attributes": {p: [a for a in ATTRIBUTES if a in attrs_of[p]] for p in pubs},
        "by_category": by_cat,
        "by_subcategory": dict(sorted(by_sub.items())),
        "order": order,
        "equivalent": [c for c in classes if len(c) > 1],
        "hasse": [[x, y] for x, y in hasse],
        "concepts": [{"extent": list(c.extent), "intent": list(c.intent)} for c in found],
        "lattice": [list(e) for e in fca.concept_lattice_edges(found)],
        "derived": derive(findings, metrics, pubs, th),
        "definitions": (
            "frequency = publications asserting the attribute (open world: unasserted = "
            "unknown); [A, B] in order = attributes(A) ⊆ attributes(B), A at least as "
            "reproducible as B; hasse = covering pairs between classes of equal attribute "
            "sets; concepts = all formal concepts of publications × D1-R6 (NextClosure)"
        ),
    }


def _equivalence_classes(pubs: list[str], attrs_of: dict[str, set[str]]) -> list[list[str]]:
    classes: dict[frozenset[str], list[str]] = {}
    for p in pubs:
        classes.setdefault(frozenset(attrs_of[p]), []).append(p)
    return list(classes.values())


def relative_difference(row: dict[str, Any]) -> float | None:
    """The recorded relative difference, else |reproduced − reported| / |reported|."""
    d = row.get("relative_difference")
    if d is not None and not _nan(d):
        return abs(float(d))
    rep, rpr = row.get("reported"), row.get("reproduced")
    if rep is None or rpr is None or _nan(rep) or _nan(rpr) or float(rep) == 0:
        return None
    return abs(float(rpr) - float(rep)) / abs(float(rep))


def classify(d: float | None, th: Thresholds) -> str:
    """``none`` (d = 0), ``small`` (R2 range), ``intermediate``, ``strong`` or ``unknown``.

    Boundaries allow 1e-9 of rounding: |0.49 − 0.50|/0.50 is 0.020000000000000018 in
    binary floating point and must count as the 2% it is.
    """
    eps = 1e-9
    if d is None:
        return "unknown"
    if d <= eps:
        return "none"
    if d <= th.small_max + eps:
        return "small"
    return "strong" if d > th.strong + eps else "intermediate"


def derive(
    findings: pd.DataFrame, metrics: pd.DataFrame | None, pubs: list[str], th: Thresholds
) -> dict[str, Any]:
    """Per publication: each metric's class, R2/R4 derived vs asserted (also per scope)."""
    rows = [] if metrics is None else metrics.to_dict("records")
    out: dict[str, Any] = {"thresholds": asdict(th), "publications": {}}
    agree = disagree = unknown = 0
    for p in pubs:
        mine = [r for r in rows if r.get("publication") == p]
        classified = [
            {
                "metric": r.get("metric"),
                "dataset": None if _nan(r.get("dataset")) else r.get("dataset"),
                "relative_difference": relative_difference(r),
                "class": classify(relative_difference(r), th),
            }
            for r in mine
        ]
        asserted = findings[findings["publication"] == p]
        entry: dict[str, Any] = {"metrics": classified}
        for attr in ("R2", "R4"):
            said = asserted[asserted["attribute"] == attr]
            got = _derive_one(attr, classified, th)
            res: dict[str, Any] = {"asserted": len(said) > 0, "derived": got}
            res["agree"] = None if got is None else got == res["asserted"]
            scopes = _scopes(said)
            if scopes:
                scoped = [m for m in classified if m["dataset"] in scopes]
                res["scope"] = sorted(scopes)
                res["derived_in_scope"] = _derive_one(attr, scoped, th)
                got_in = res["derived_in_scope"]
                res["agree_in_scope"] = None if got_in is None else got_in == res["asserted"]
            entry[attr] = res
            if res["agree"] is None:
                unknown += 1
            elif res["agree"]:
                agree += 1
            else:
                disagree += 1
        out["publications"][p] = entry
    out["summary"] = {"agree": agree, "disagree": disagree, "unknown": unknown}
    return out


def _derive_one(attr: str, classified: list[dict[str, Any]], th: Thresholds) -> bool | None:
    known = [m for m in classified if m["class"] != "unknown"]
    if not known:
        return None
    if attr == "R2":
        return any(m["class"] == "small" for m in known)
    strong = sum(m["class"] == "strong" for m in known)
    return strong / len(known) >= th.almost_all


def _scopes(said: pd.DataFrame) -> set[str]:
    if "scope" not in said:
        return set()
    out: set[str] = set()
    for s in said["scope"]:
        if isinstance(s, str) and s.strip():
            out |= {x.strip() for x in s.split(",") if x.strip()}
    return out


def _nan(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


# --- the registered study's interface -----------------------------------------------------


@dataclass
class AuditInputs:
    """What the study reads: one row per audit, per finding and per metric comparison."""

    audits: pd.DataFrame
    findings: pd.DataFrame
    metrics: pd.DataFrame
    sparql: dict[str, str]


class Concept(TypedDict):
    """A formal concept: its publications and their common attributes."""

    extent: list[str]
    intent: list[str]


@dataclass(frozen=True, kw_only=True)
class AuditsResult(StudyResult):
    """The audit analytics (:func:`analyze_frames`'s sections) with the audited
    publications' titles."""

    STUDY: ClassVar[str] = AUDITS.name

    n_audits: int
    n_publications: int
    #: attribute -> publications asserting it
    frequencies: dict[str, int]
    #: publication -> the attributes asserted of it
    attributes: dict[str, list[str]]
    by_category: dict[str, int]
    by_subcategory: dict[str, int]
    #: [A, B]: A at least as reproducible as B
    order: list[list[str]]
    equivalent: list[list[str]]
    hasse: list[list[str]]
    concepts: list[Concept]
    #: [lower, upper] concept indexes
    lattice: list[list[int]]
    #: :func:`derive`'s answer: thresholds, per publication, summary
    derived: dict[str, Any]
    definitions: str
    titles: dict[str, str]
    rules: list[str]
    provenance: dict[str, str | dict[str, str]]

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "n_audits": self.n_audits,
            "n_publications": self.n_publications,
            "frequencies": self.frequencies,
            "attributes": self.attributes,
            "by_category": self.by_category,
            "by_subcategory": self.by_subcategory,
            "order": self.order,
            "equivalent": self.equivalent,
            "hasse": self.hasse,
            "concepts": self.concepts,
            "lattice": self.lattice,
            "derived": self.derived,
            "definitions": self.definitions,
            "titles": self.titles,
            "rules": self.rules,
            "provenance": self.provenance,
        }


def read(store: Store) -> AuditInputs:
    texts = {k: package_query(q).bind({}) for k, q in QUERIES.items()}

    def frame(key: str, columns: list[str]) -> pd.DataFrame:
        df = pd.DataFrame(select_rows(store, texts[key]))
        for col in columns:
            if col not in df.columns:
                df[col] = None
        return df[columns]

    return AuditInputs(
        audits=frame("publications", ["audit", "publication", "title"]),
        findings=frame("findings", ["audit", "publication", "attribute", "scope"]),
        metrics=frame(
            "metrics",
            [
                "audit",
                "publication",
                "metric",
                "dataset",
                "reported",
                "reproduced",
                "relative_difference",
            ],
        ),
        sparql=texts,
    )


def is_empty(inputs: AuditInputs) -> bool:
    return inputs.audits.empty


def thresholds(**options: OptionValue) -> Thresholds:
    """:class:`Thresholds` from options given as numbers or text (``small_max=0.03``)."""
    known = {f.name for f in fields(Thresholds)}
    values = {}
    for k, v in options.items():
        if k not in known:
            raise ValueError(f"unknown threshold {k!r}; one of {', '.join(sorted(known))}")
        x = float(v)
        if not 0 <= x <= 1 or math.isnan(x):
            raise ValueError(f"{k} must be a fraction between 0 and 1, got {v!r}")
        values[k] = x
    return Thresholds(**values)


def analyze(inputs: AuditInputs, method: str = PUBLISHED, **options: OptionValue) -> AuditsResult:
    """The audit analytics of the audits in the graph (thresholds from ``options``)."""
    if method != PUBLISHED:
        raise ValueError("audits has one method: published")
    try:
        th = thresholds(**options)
    except ValueError as exc:
        from reprokg.core.errors import UsageError

        raise UsageError(str(exc)) from exc
    res = analyze_frames(
        inputs.findings,
        inputs.metrics,
        sorted(set(inputs.audits["publication"])),
        th,
        audits=list(inputs.audits["audit"]),
    )
    titles = {
        p: t for p, t in zip(inputs.audits["publication"], inputs.audits["title"], strict=True)
    }
    return AuditsResult(
        method=method,
        **res,
        titles={p: titles[p] for p in sorted(titles) if isinstance(titles[p], str)},
        rules=list(STUDY.method(method).rules),
        provenance={"sparql": inputs.sparql, "follows": STUDY.follows},
    )


def _short(titles: Mapping[str, str], iri: str, width: int = 40) -> str:
    title = titles.get(iri)
    if title:
        return title if len(title) <= width else title[: width - 3] + "..."
    return iri.rsplit("/", 1)[-1]


def format_table(result: AuditsResult) -> str:
    titles = result.titles
    lines = [
        f"Audit analytics: {result.n_audits} audits of {result.n_publications} "
        f"publications (method: {result.method})",
        "",
        "Attributes asserted (publications): "
        + (", ".join(f"{a} {k}" for a, k in result.frequencies.items()) or "none"),
        "  by category: " + ", ".join(f"{c} {k}" for c, k in result.by_category.items()),
        "  by subcategory: " + ", ".join(f"{c} {k}" for c, k in result.by_subcategory.items()),
        "",
        "At least as reproducible as (attributes of A within those of B):",
    ]
    if not result.order:
        lines.append("  no two publications are comparable (an antichain)")
    for a, b in result.order:
        lines.append(f"  {_short(titles, a)}  >=  {_short(titles, b)}")
    lines += ["", f"Formal concepts ({len(result.concepts)}):"]
    for c in result.concepts:
        ext = ", ".join(_short(titles, p) for p in c["extent"]) or "-"
        lines.append(f"  {{{', '.join(c['intent'])}}}: {ext}")
    d = result.derived
    th = d["thresholds"]
    lines += [
        "",
        f"R2/R4 derived from metric differences (small <= {th['small_max']:.0%}, strong > "
        f"{th['strong']:.0%}, almost all >= {th['almost_all']:.0%}):",
    ]
    for p, entry in d["publications"].items():
        cells = []
        for attr in ("R2", "R4"):
            e = entry[attr]
            cells.append(
                f"{attr} asserted {'yes' if e['asserted'] else 'no'} / derived "
                f"{'-' if e['derived'] is None else 'yes' if e['derived'] else 'no'}"
            )
        lines.append(f"  {_short(titles, p):<42} " + "; ".join(cells))
    s = d["summary"]
    lines.append(f"  agree {s['agree']}, disagree {s['disagree']}, unknown {s['unknown']}")
    return "\n".join(lines)


def values(result: AuditsResult) -> list[StudyValue]:
    out = [
        StudyValue(
            name=f"frequencies.{a}",
            description=f"audited publications asserting {a}",
            statistic=float(k),
            n=result.n_publications,
        )
        for a, k in result.frequencies.items()
    ]
    out.append(
        StudyValue(
            name="concepts",
            description="formal concepts of publications x attributes",
            statistic=float(len(result.concepts)),
            n=result.n_publications,
        )
    )
    return out


def charts(result: AuditsResult, inputs: AuditInputs, fmt: str = "svg") -> dict[str, bytes]:
    """``attribute_frequencies`` (bars) and ``hasse`` (the order's Hasse diagram)."""
    from reprokg.studies import plots

    attrs = list(result.frequencies)
    freq = plots.render(
        lambda: plots.bars(
            attrs,
            [result.frequencies[a] for a in attrs],
            ylabel="audited publications asserting it",
            title="Audit attributes asserted (each marks a reproducibility problem)",
        ),
        fmt,
    )
    attrs_of = {p: set(a) for p, a in result.attributes.items()}
    classes = {c[0]: c for c in result.equivalent}
    nodes = [p for p in attrs_of if not any(p in c[1:] for c in classes.values())]
    # rows: the longest chain of covers above (the most reproducible class at the top)
    above: dict[str, list[str]] = {p: [] for p in nodes}
    for a, b in result.hasse:
        above[b].append(a)
    depth: dict[str, int] = {}

    def level(p: str) -> int:
        if p not in depth:
            depth[p] = 1 + max((level(q) for q in above[p]), default=-1)
        return depth[p]

    levels = {p: level(p) for p in nodes}
    labels = {
        p: " = ".join(_short(result.titles, q, 28) for q in classes.get(p, [p]))
        + "\n{"
        + ", ".join(a for a in ATTRIBUTES if a in attrs_of[p])
        + "}"
        for p in nodes
    }
    hasse = plots.render(
        lambda: plots.hasse(
            levels,
            [(a, b) for a, b in result.hasse],
            labels,
            title="At least as reproducible as (top) - subsets of asserted attributes",
        ),
        fmt,
    )
    return {
        "audits-attribute_frequencies": freq,
        "audits-hasse": hasse,
        "audits-concept_lattice": plots.render(lambda: _lattice_figure(result), fmt),
    }


def _lattice_figure(result: AuditsResult) -> Any:
    """The concept lattice with reduced labels: each attribute at the highest concept that
    has it, each publication at the lowest (the usual line diagram)."""
    from reprokg.studies import plots

    concepts = result.concepts
    ids = [str(i) for i in range(len(concepts))]
    up: dict[str, list[str]] = {i: [] for i in ids}  # upper covers (larger extents)
    down: dict[str, list[str]] = {i: [] for i in ids}
    for lo, hi in result.lattice:
        up[str(lo)].append(str(hi))
        down[str(hi)].append(str(lo))
    depth: dict[str, int] = {}

    def level(i: str) -> int:
        if i not in depth:
            depth[i] = 1 + max((level(j) for j in up[i]), default=-1)
        return depth[i]

    labels = {}
    for i in ids:
        c = concepts[int(i)]
        inherited = {a for j in up[i] for a in concepts[int(j)]["intent"]}
        below = {p for j in down[i] for p in concepts[int(j)]["extent"]}
        own = [a for a in c["intent"] if a not in inherited]
        objects = [_short(result.titles, p, 22) for p in c["extent"] if p not in below]
        if not c["extent"] and len(own) > 6:
            text = f"({len(own)} attributes no audit asserts)"
        else:
            text = ", ".join(own) if len(own) <= 6 else ", ".join(own[:5]) + f", +{len(own) - 5}"
        labels[i] = "\n".join(x for x in (text, *objects) if x) or " "
    return plots.hasse(
        {i: level(i) for i in ids},
        [(str(hi), str(lo)) for lo, hi in result.lattice],
        labels,
        title="Concept lattice of publications x asserted attributes (reduced labels)",
    )
