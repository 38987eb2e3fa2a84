"""Quantified reproducibility assessment over the graph: the original and every reproduction
of each measured quantity the graph holds, and the degree of reproducibility of each (QRA,
Belz, Popović & Mille 2022; numbers from :mod:`reprokg.stats.qra`).

What one *measured quantity* is depends on where the graph holds its values (one named
query reads all four, ``measures/sparql/qra-measurements.rq``):

* **audit**: a metric comparison of an audit names the metric, the data set and (when the
  paper has several) the system; the value the original reported is the original's
  measurement, each audit's reproduced value one reproduction's. Audits of the same paper
  that name the same metric, data set and system measure the same quantity.
* **comparison**: a stored same-collection comparison holds each side's original and
  reproduced run's mean score per effectiveness measure, each naming its run; the
  quantity is the original run's mean of one measure, and every comparison reproducing
  that run adds its reproduced run's mean.
* **reported**: runs whose research goal is the paper report scores on leaderboards (test
  collection × measure); runs on the same leaderboard with the same PRIMAD Method (what a
  reproduction keeps: a changed Method is another experiment) measure one quantity. A
  run's score already counted in a comparison is not counted again.
* **stability**: every run of one configuration of one algorithm, implementation and
  optimizer of a stability study (its reruns, seeds and repeats) measures the same
  quantity; none is the original.

Per quantity, CV* with its interval on the measure's scale shifted to start at 0 (the
scale's minimum: 0 unless given, ``scale_min``); per paper, measure and origin, QRA++'s
agreement of each reproduction with the original over the set of quantities both measured
(r, ρ, τ_b, at least three quantities) and Kendall's W over the original and every
reproduction that measured the whole set. :class:`QRAResult` is a computed result (kind
``qra``; ``shapes/qra.ttl``, ``ontology/statistics.ttl``).
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, NotRequired, cast

from typing_extensions import TypedDict

from reprokg.core.errors import UsageError
from reprokg.core.hashing import stable_key
from reprokg.stats.qra import QRA, SetAgreement, cv_star, kendall_w, set_agreement
from reprokg.store.base import Store

KIND = "qra"
PRODUCER = "reprokg.measures.qra"
QUERY = "measures/sparql/qra-measurements.rq"
ORIGINS = ("audit", "comparison", "reported", "stability")
ROLES = ("original", "reproduction", "run")
#: at least this many quantities make a set QRA++'s correlations are computed over (two
#: values always correlate ±1)
MIN_SET = 3


# The JSON answer's shapes, written once: ``to_json()`` returns these and the service
# declares them (``/measures/qra``). ``typing_extensions``' TypedDict: pydantic reads no
# other on Python 3.11.

Origin = Literal["audit", "comparison", "reported", "stability"]
Role = Literal["original", "reproduction", "run"]


class MeasurementJSON(TypedDict):
    value: float
    role: Role
    source: str
    "the node the value was read from"
    label: str
    "who measured it"
    run: str | None


class QuantityJSON(TypedDict):
    """One measured quantity, its measurements and CV* (null with a warning when undefined)."""

    key: str
    origin: Origin
    paper: str | None
    measure: str
    label: str
    parts: dict[str, str]
    "what defines the quantity besides the measure"
    scale_min: float
    "subtracted from every value before CV*"
    n: int
    measurements: list[MeasurementJSON]
    mean: float | None
    sd: float | None
    "unbiased standard deviation s / c4(n)"
    sd_low: float | None
    sd_high: float | None
    cv: float | None
    cv_star: float | None
    "CV* in percent; 0 = reproduced exactly"
    cv_star_low: float | None
    cv_star_high: float | None
    within_one_sd: NotRequired[float | None]
    within_two_sd: NotRequired[float | None]
    warnings: list[str]


class AgreementJSON(TypedDict):
    """QRA++: one reproduction against the original over a set of quantities."""

    paper: str | None
    measure: str
    origin: Origin
    reproduction: str
    label: str
    quantities: list[str]
    n: int
    pearson_r: float | None
    spearman_rho: float | None
    kendall_tau: float | None


class ConcordanceJSON(TypedDict):
    paper: str | None
    measure: str
    origin: Origin
    sources: list[str]
    quantities: list[str]
    kendall_w: float | None


class QRAJSON(TypedDict):
    """The assessment (``reprokg qra --format json``)."""

    paper: str | None
    measures: list[str]
    origins: list[Origin]
    level: float
    scale_min: dict[str, float]
    quantities: list[QuantityJSON]
    agreements: list[AgreementJSON]
    concordances: list[ConcordanceJSON]
    warnings: list[str]
    #: the headline measures the quantities shown were kept to (None: every measure)
    headline_measures: list[str] | None
    #: quantities of other measures left out of what is shown (``--full`` shows them)
    other_quantities: int
    #: why a small-n interval can cross 0, when one does
    notes: list[str]


@dataclass(frozen=True)
class Measurement:
    """One measured value of a quantity, and who measured it."""

    value: float
    role: str
    #: the node the value was read from: the audit, the comparison, the run, the study
    source: str
    #: who measured it, for people (an audit's citation, a run's tag, seed and repeat)
    label: str
    run: str | None = None

    def to_json(self) -> MeasurementJSON:
        return {
            "value": self.value,
            "role": cast(Role, self.role),
            "source": self.source,
            "label": self.label,
            "run": self.run,
        }


@dataclass
class MeasuredQuantity:
    """One quantity, its measurements and the degree of its reproducibility."""

    origin: str
    paper: str | None
    measure: str
    #: what defines it besides paper and measure (data set, system, run, configuration …)
    parts: dict[str, str]
    measurements: list[Measurement]
    scale_min: float = 0.0
    qra: QRA | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return stable_key(
            "quantity", self.origin, self.paper or "", self.measure, *sorted(self.parts.items())
        )

    @property
    def label(self) -> str:
        """What was measured, for people: the measure and what defines the quantity."""
        shown = [v for k, v in self.parts.items() if k not in HIDDEN_PARTS and v]
        return " · ".join([self.measure, *shown])

    def values(self, role: str | None = None) -> list[float]:
        return [m.value for m in self.measurements if role is None or m.role == role]

    def to_json(self) -> QuantityJSON:
        out: dict[str, Any] = {
            "key": self.key,
            "origin": self.origin,
            "paper": self.paper,
            "measure": self.measure,
            "label": self.label,
            "parts": dict(self.parts),
            "scale_min": self.scale_min,
            "n": len(self.measurements),
            "measurements": [m.to_json() for m in self.measurements],
        }
        out.update(_qra_json(self.qra))
        out["warnings"] = list(self.warnings)
        return cast(QuantityJSON, out)


#: parts that identify a quantity but mean nothing to a reader (IRIs shown as links instead)
HIDDEN_PARTS = {"run", "study", "original_value", "method", "collection"}


def _qra_json(q: QRA | None) -> dict[str, Any]:
    keys = ("mean", "sd", "sd_low", "sd_high", "cv", "cv_star", "cv_star_low", "cv_star_high")
    if q is None:
        return dict.fromkeys(keys)
    j = q.to_json()
    return {k: j[k] for k in keys} | {
        "within_one_sd": j["within_one_sd"],
        "within_two_sd": j["within_two_sd"],
    }


@dataclass(frozen=True)
class Agreement:
    """QRA++ over a set: one reproduction's values against the original's."""

    paper: str | None
    measure: str
    origin: str
    reproduction: str
    label: str
    #: the quantities' keys, in the order the values were paired
    quantities: tuple[str, ...]
    result: SetAgreement

    def to_json(self) -> AgreementJSON:
        return cast(
            AgreementJSON,
            {
                "paper": self.paper,
                "measure": self.measure,
                "origin": self.origin,
                "reproduction": self.reproduction,
                "label": self.label,
                "quantities": list(self.quantities),
                **self.result.to_json(),
            },
        )


@dataclass(frozen=True)
class Concordance:
    """Kendall's W of the original's and every reproduction's ranking of a set."""

    paper: str | None
    measure: str
    origin: str
    sources: tuple[str, ...]
    quantities: tuple[str, ...]
    w: float | None

    def to_json(self) -> ConcordanceJSON:
        return {
            "paper": self.paper,
            "measure": self.measure,
            "origin": cast(Origin, self.origin),
            "sources": list(self.sources),
            "quantities": list(self.quantities),
            "kendall_w": self.w,
        }


@dataclass
class QRAResult:
    """The assessment of every measured quantity of a paper (or of a measure) the graph
    holds: the JSON answer of ``reprokg qra`` and its ``qra`` document."""

    KIND: ClassVar[str] = KIND
    PRODUCER: ClassVar[str] = PRODUCER

    paper: str | None
    measures: tuple[str, ...]
    origins: tuple[str, ...]
    level: float
    quantities: list[MeasuredQuantity]
    agreements: list[Agreement] = field(default_factory=list)
    concordances: list[Concordance] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: scale minima given (measure -> minimum; "" for every measure)
    scale_min: Mapping[str, float] = field(default_factory=dict)
    # --- what it was computed from (not in the JSON answer)
    documents: tuple[str, ...] = ()
    queries: Mapping[str, str] = field(default_factory=dict)
    #: the headline measures the quantities shown were kept to (None: every measure)
    headline: tuple[str, ...] | None = None
    #: quantities of other measures left out of what is shown (``--full`` shows them)
    left_out: int = 0

    def to_json(self) -> QRAJSON:
        return {
            "paper": self.paper,
            "measures": list(self.measures),
            "origins": [cast(Origin, o) for o in self.origins],
            "level": self.level,
            "scale_min": dict(self.scale_min),
            "quantities": [q.to_json() for q in self.quantities],
            "agreements": [a.to_json() for a in self.agreements],
            "concordances": [c.to_json() for c in self.concordances],
            "warnings": list(self.warnings),
            "headline_measures": None if self.headline is None else list(self.headline),
            "other_quantities": self.left_out,
            "notes": small_n_notes(self.quantities, self.level),
        }

    def headline_only(self) -> QRAResult:
        """The result kept to the headline measures (``measures/headline.py``): the
        quantities of a stored comparison (one per effectiveness measure it computed, 58
        by default) only at :data:`HEADLINE_MEASURES` and at the measures the runs report;
        quantities of audits, reported scores and stability studies all (they are the
        measures their sources chose). The rest is counted in ``left_out``."""
        from dataclasses import replace

        from reprokg.measures.headline import HEADLINE_MEASURES

        reported = {q.measure for q in self.quantities if q.origin == "reported"}
        wanted = (
            *HEADLINE_MEASURES,
            *sorted(set(measure_names(reported)) - set(HEADLINE_MEASURES)),
        )
        kept = [q for q in self.quantities if q.origin != "comparison" or q.measure in wanted]
        measures = {q.measure for q in kept}
        return replace(
            self,
            quantities=kept,
            agreements=[a for a in self.agreements if a.measure in measures],
            concordances=[c for c in self.concordances if c.measure in measures],
            headline=wanted,
            left_out=len(self.quantities) - len(kept),
        )

    @property
    def key(self) -> str:
        return stable_key(KIND, json.dumps(self._basis(), sort_keys=True))

    def _basis(self) -> dict[str, Any]:
        return {
            "paper": self.paper,
            "measures": sorted(self.measures),
            "origins": sorted(self.origins),
            "level": self.level,
            "scale_min": dict(sorted(self.scale_min.items())),
        }

    def to_graph(self) -> Any:
        return self.document().graph

    def document(self, software: Mapping[str, str] | None = None) -> Any:
        from reprokg.measures.qra_document import qra_document  # rdflib: when stored

        return qra_document(self, software)


# --------------------------------------------------------------------------- reading


def measure_names(measures: Iterable[str]) -> list[str]:
    """The names asked for and, for a trec_eval name, its ir-measures name (``map`` is
    ``AP``: a comparison names its means by ir-measures, a run header as it reports)."""
    out: list[str] = []
    for m in measures:
        out.append(m)
        from reprokg.measures.reported import ir_measures_name

        alias = ir_measures_name(m)
        if alias and alias not in out:
            out.append(alias)
    return list(dict.fromkeys(out))


def read_rows(
    store: Store, paper: str | None, measures: Sequence[str]
) -> tuple[list[dict[str, Any]], str]:
    """The measurement rows (plain values) and the SPARQL that read them."""
    from reprokg.sparql.named import package_query
    from reprokg.sparql.rows import select_rows

    params: dict[str, str | Sequence[str]] = {}
    if paper:
        params["paper"] = paper
    if measures:
        params["measure"] = list(measures)
    text = package_query(QUERY).bind(params)
    return select_rows(store, text), text


def _short(iri: str | None) -> str:
    if not iri:
        return ""
    return iri.rstrip("/").rsplit("/", 1)[-1].rsplit("#", 1)[-1]


def _num(v: Any) -> float | None:
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _distinct(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows without repeats (a triple several documents hold is read from each)."""
    return list({tuple(sorted(r.items())): r for r in rows}.values())


def gather(
    rows: list[dict[str, Any]], method_of: Mapping[tuple[str, str], object] | None = None
) -> tuple[list[MeasuredQuantity], list[str]]:
    """The measured quantities of the rows (by origin, see the module's docstring), and
    sentences on what was left out. ``method_of`` maps (run, its document) to the run's
    PRIMAD Method (the reported scores' runs; :func:`methods_of`)."""
    by_origin: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in _distinct(rows):
        if _num(r.get("value")) is not None:
            by_origin[str(r.get("origin"))].append(r)
    notes: list[str] = []
    quantities = _audits(by_origin["audit"], notes)
    compared = _comparisons(by_origin["comparison"], notes)
    quantities += compared
    counted = {(m.run, q.measure) for q in compared for m in q.measurements if m.run is not None}
    quantities += _reported(by_origin["reported"], counted, method_of or {}, notes)
    quantities += _stability(by_origin["stability"])
    return quantities, notes


def _audits(rows: list[dict[str, Any]], notes: list[str]) -> list[MeasuredQuantity]:
    groups: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        key = (r.get("paper"), r["measure"], r.get("dataset") or "", r.get("system") or "")
        groups[key].append(r)
    out = []
    for (paper, measure, dataset, system), rs in groups.items():
        q = MeasuredQuantity("audit", paper, measure, {"system": system, "dataset": dataset}, [])
        reported = Counter(float(r["value"]) for r in rs if r["role"] == "original")
        if reported:
            value, _ = max(reported.items(), key=lambda kv: (kv[1], -kv[0]))
            if len(reported) > 1:
                q.warnings.append(
                    f"the audits give {len(reported)} different reported values "
                    f"({', '.join(f'{v:g}' for v in sorted(reported))}); the most often "
                    f"given, {value:g}, is the original's"
                )
            q.measurements.append(
                Measurement(value, "original", str(paper), "original (as reported)")
            )
        seen = set()
        found = []
        for r in rs:
            if r["role"] != "reproduction" or (r["source"], r["value"]) in seen:
                continue
            seen.add((r["source"], r["value"]))
            label = str(r.get("citation") or "") or (
                f"audit of {r['date']}" if r.get("date") else f"audit {_short(r['source'])[:8]}"
            )
            found.append(Measurement(float(r["value"]), "reproduction", str(r["source"]), label))
        q.measurements += sorted(found, key=lambda m: (m.label, m.source, m.value))
        out.append(q)
    return out


def _comparisons(rows: list[dict[str, Any]], notes: list[str]) -> list[MeasuredQuantity]:
    originals: dict[tuple, dict[str, Any]] = {}
    for r in rows:
        if r["role"] == "original":
            originals[(r["source"], r["original"], r["measure"])] = r
    groups: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        o = originals.get((r["source"], r["original"], r["measure"]))
        if r["role"] == "reproduction" and o is not None:
            groups[(r.get("paper"), r["original"], r["measure"], float(o["value"]))].append(r)
    out = []
    for (paper, original, measure, value), rs in groups.items():
        tag = rs[0].get("originalTag")
        parts = {"run": str(original), "original_value": repr(value)}
        parts["original run"] = f"run {tag or _short(original)}"
        q = MeasuredQuantity("comparison", paper, measure, parts, [])
        q.measurements.append(
            Measurement(value, "original", str(original), parts["original run"], str(original))
        )
        seen = set()
        for r in sorted(rs, key=lambda r: (str(r.get("tag") or ""), str(r["run"]))):
            if (r["run"], r["value"]) in seen:
                continue
            seen.add((r["run"], r["value"]))
            q.measurements.append(
                Measurement(
                    float(r["value"]),
                    "reproduction",
                    str(r["source"]),
                    f"run {r.get('tag') or _short(r['run'])}",
                    str(r["run"]),
                )
            )
        out.append(q)
    return out


def methods_of(store: Store, rows: list[dict[str, Any]]) -> dict[tuple[str, str], object]:
    """The PRIMAD Method of each run that shares a leaderboard with another run of its
    paper (only those can measure a quantity twice), from its header document."""
    from reprokg.measures import primad

    boards: dict[tuple, set[tuple[str, str]]] = defaultdict(set)
    for r in rows:
        if r.get("origin") == "reported":
            boards[(r.get("paper"), r.get("collection"), r["measure"])].add(
                (r["run"], r["document"])
            )
    wanted = {rd for runs in boards.values() if len(runs) > 1 for rd in runs}
    out: dict[tuple[str, str], object] = {}
    graphs: dict[str, Any] = {}
    for run, doc in sorted(wanted):
        if doc not in graphs:
            graphs[doc] = store.get_document(doc)
        from rdflib import URIRef

        out[(run, doc)] = primad.component_values(graphs[doc], URIRef(run)).get("method")
    return out


def _reported(
    rows: list[dict[str, Any]],
    counted: AbstractSet[tuple[str | None, str]],
    method_of: Mapping[tuple[str, str], object],
    notes: list[str],
) -> list[MeasuredQuantity]:
    groups: dict[tuple, dict[str, dict[str, Any]]] = defaultdict(dict)
    skipped = 0
    for r in rows:
        if (r["run"], r["measure"]) in counted:
            skipped += 1
            continue
        method = stable_key("method", repr(method_of.get((r["run"], r["document"]))))[:12]
        key = (r.get("paper"), str(r.get("collection")), r["measure"], method)
        groups[key].setdefault(r["run"], r)
    if skipped:
        notes.append(
            f"{skipped} reported score(s) of runs are counted once, in the comparison that "
            "holds the same run's mean"
        )
    variants = Counter(k[:3] for k in groups)
    numbered: Counter = Counter()
    out = []
    for (paper, collection, measure, method), runs in sorted(groups.items()):
        dataset = str(next(iter(runs.values())).get("dataset") or "")
        if dataset.startswith(("http://", "https://")):
            dataset = _short(dataset)  # an ir_datasets id as its IRI: its last segment
        parts = {"collection": collection, "dataset": dataset, "method": method}
        if variants[(paper, collection, measure)] > 1:  # runs of another Method: told apart
            numbered[(paper, collection, measure)] += 1
            parts["variant"] = f"method {numbered[(paper, collection, measure)]}"
        q = MeasuredQuantity("reported", paper, measure, parts, [])
        for run, r in sorted(runs.items(), key=lambda kv: (str(kv[1].get("tag") or ""), kv[0])):
            q.measurements.append(
                Measurement(
                    float(r["value"]), "run", run, f"run {r.get('tag') or _short(run)}", run
                )
            )
        out.append(q)
    return out


def _stability(rows: list[dict[str, Any]]) -> list[MeasuredQuantity]:
    groups: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        key = (
            r.get("paper"),
            r["source"],
            r["measure"],
            r.get("algorithm") or "",
            r.get("implementation") or "",
            r.get("optimizer") or "",
            r.get("configuration") or "",
        )
        groups[key].append(r)
    out = []
    for (paper, study, measure, alg, impl, opt, config), rs in groups.items():
        system = "/".join(x for x in (alg, impl, opt) if x) or str(rs[0].get("experiment"))
        parts = {"study": str(study), "system": system, "configuration": config}
        q = MeasuredQuantity("stability", paper, measure, parts, [])
        for r in sorted(
            rs, key=lambda r: (str(r.get("experiment")), str(r.get("seed")), str(r.get("repeat")))
        ):
            label = " ".join(
                x
                for x in (
                    str(r.get("experiment") or ""),
                    f"seed {r['seed']}" if r.get("seed") is not None else "",
                    f"repeat {r['repeat']}" if r.get("repeat") is not None else "",
                )
                if x
            )
            q.measurements.append(Measurement(float(r["value"]), "run", str(study), label))
        out.append(q)
    return out


# --------------------------------------------------------------------------- assessing


def scale_minimum(scale_min: Mapping[str, float], measure: str) -> float:
    """The scale's minimum of ``measure``: given for it, or for every measure (key ``""``),
    else 0 (the measures the graph holds — effectiveness, accuracy, BLEU — start at 0)."""
    return float(scale_min.get(measure, scale_min.get("", 0.0)))


def assess_quantities(
    quantities: list[MeasuredQuantity], scale_min: Mapping[str, float], level: float
) -> list[MeasuredQuantity]:
    """CV* of every quantity with an original and a reproduction (or two runs)."""
    out = []
    for q in quantities:
        if len(q.measurements) < 2:
            continue
        q.scale_min = scale_minimum(scale_min, q.measure)
        values = q.values()
        low = min(values)
        if low < q.scale_min:
            q.warnings.append(
                f"a value ({low:g}) lies below the scale's minimum {q.scale_min:g}: give "
                f"the measure's scale minimum (scale_min {q.measure}=MIN) to shift it to 0"
            )
        else:
            try:
                q.qra = cv_star(values, scale_min=q.scale_min, level=level)
            except ValueError as exc:
                q.warnings.append(str(exc))
        out.append(q)
    return sorted(out, key=lambda q: (q.paper or "", q.measure, q.origin, q.label, q.key))


def set_measures(
    quantities: list[MeasuredQuantity],
) -> tuple[list[Agreement], list[Concordance]]:
    """QRA++ per paper, measure and origin: each reproduction's agreement with the original
    over the quantities both measured (at least :data:`MIN_SET`), and Kendall's W over the
    original and every reproduction that measured all of the set."""
    groups: dict[tuple, list[MeasuredQuantity]] = defaultdict(list)
    for q in quantities:
        if q.origin in ("audit", "comparison") and q.values("original"):
            groups[(q.paper, q.measure, q.origin)].append(q)
    agreements: list[Agreement] = []
    concordances: list[Concordance] = []
    for (paper, measure, origin), qs in sorted(groups.items(), key=lambda kv: repr(kv[0])):
        if len(qs) < MIN_SET:
            continue
        original = {q.key: q.values("original")[0] for q in qs}
        by_source: dict[str, dict[str, float]] = defaultdict(dict)
        labels: dict[str, str] = {}
        for q in qs:
            for m in q.measurements:
                if m.role == "reproduction":
                    by_source[m.source].setdefault(q.key, m.value)
                    labels[m.source] = m.label
        for source, vals in sorted(by_source.items()):
            keys = tuple(k for k in original if k in vals)
            if len(keys) < MIN_SET:
                continue
            agreements.append(
                Agreement(
                    paper,
                    measure,
                    origin,
                    source,
                    labels[source],
                    keys,
                    set_agreement([original[k] for k in keys], [vals[k] for k in keys]),
                )
            )
        full = [s for s, vals in sorted(by_source.items()) if set(original) <= set(vals)]
        if full:
            keys = tuple(original)
            matrix = [[original[k] for k in keys]] + [[by_source[s][k] for k in keys] for s in full]
            concordances.append(
                Concordance(paper, measure, origin, ("original", *full), keys, kendall_w(matrix))
            )
    return agreements, concordances


#: why a small-n CV* interval reaches below 0 (docs/statistics.md, "QRA: small samples")
SMALL_N_NOTE = (
    "n = {n}: the {pct}% interval of CV* is its standard deviation's estimate plus or minus "
    "t({df}) = {t:.3g} standard errors; with {n} measurements t exceeds the estimate's own "
    "ratio to its standard error ({ratio:.3g}), so the lower end is below 0 whatever the "
    "values. CV* itself is never negative: a lower end below 0 says the measurements are "
    "too few to bound the variation from below (more reproductions narrow it), not that "
    "it could be negative."
)


def small_n_notes(quantities: Sequence[MeasuredQuantity], level: float) -> list[str]:
    """One note per sample size among the quantities whose interval must reach below 0
    (t of n - 1 degrees of freedom above sqrt(2 (n - 1)) / c4(n)^2, the ratio of the
    bias-corrected SD to its standard error as :func:`~reprokg.stats.qra.cv_star` takes
    them): at 95% every n up to 4."""
    from reprokg.stats.qra import c4
    from reprokg.stats.student_t import t_quantile

    out = []
    for n in sorted({len(q.measurements) for q in quantities if q.qra is not None}):
        t = t_quantile(1.0 - (1.0 - level) / 2.0, n - 1)
        ratio = math.sqrt(2.0 * (n - 1)) / c4(n) ** 2
        if t > ratio:
            pct = f"{100 * level:g}"
            out.append(SMALL_N_NOTE.format(n=n, pct=pct, df=n - 1, t=t, ratio=ratio))
    return out


def scale_minima(specs: Iterable[str]) -> dict[str, float]:
    """Scale minima as people write them: ``MIN`` (key ``""``: every measure) or
    ``MEASURE=MIN`` (``rating=1``)."""
    out: dict[str, float] = {}
    for spec in specs:
        name, sep, value = spec.rpartition("=")
        try:
            out[name if sep else ""] = float(value)
        except ValueError:
            raise UsageError(f"scale_min: expected MIN or MEASURE=MIN, not {spec!r}") from None
    return out


def paper_iri(text: str) -> str:
    """A paper as the graph names it: a DOI's IRI (any accepted DOI form), or an http(s)
    IRI as given."""
    from reprokg.core.errors import IdentifierError
    from reprokg.core.identifiers import doi_iri

    try:
        return str(doi_iri(text))
    except IdentifierError:
        from reprokg.validation.checks import iri_refusal

        # the store's IRI parser: a NUL passed a check for spaces and failed the query (500)
        if text.startswith(("http://", "https://")) and iri_refusal(text) is None:
            return text
        raise UsageError(f"paper: not a DOI or an http(s) IRI: {text!r}") from None


def check_level(level: float) -> float:
    if not (isinstance(level, int | float) and math.isfinite(level) and 0 < level < 1):
        raise UsageError(f"level must be a number strictly between 0 and 1, not {level!r}")
    return float(level)


def assess(
    store: Store,
    paper: str | None = None,
    measures: Sequence[str] = (),
    *,
    origins: Sequence[str] = ORIGINS,
    scale_min: Mapping[str, float] | None = None,
    level: float = 0.95,
) -> QRAResult:
    """QRA of every measured quantity about ``paper`` (an IRI) and/or of ``measures`` the
    store holds, from the ``origins`` asked for."""
    level = check_level(level)
    unknown = sorted(set(origins) - set(ORIGINS))
    if unknown:
        raise UsageError(f"origin must be among {', '.join(ORIGINS)}, not {', '.join(unknown)}")
    scale = dict(scale_min or {})
    names = measure_names(measures)
    rows, text = read_rows(store, paper, names)
    rows = [r for r in rows if r.get("origin") in origins]
    quantities, notes = gather(rows, methods_of(store, rows))
    quantities = assess_quantities(quantities, scale, level)
    agreements, concordances = set_measures(quantities)
    warnings = list(notes)
    if not quantities:
        warnings.append(
            "the graph holds no quantity measured twice (an original and a reproduction, or "
            "two runs) for "
            + (f"<{paper}>" if paper else "any paper")
            + (f" and measure(s) {', '.join(measures)}" if measures else "")
        )
    return QRAResult(
        paper=paper,
        measures=tuple(measures),
        origins=tuple(o for o in ORIGINS if o in origins),
        level=level,
        quantities=quantities,
        agreements=agreements,
        concordances=concordances,
        warnings=warnings,
        scale_min=scale,
        documents=tuple(sorted({str(r["document"]) for r in rows if r.get("document")})),
        queries={QUERY: text},
    )
