"""The headline of a comparison: what a reader needs first, and the measures it reports.

A comparison computes 58 effectiveness measures times a dozen statistics; a paper reports a
few. :data:`HEADLINE_MEASURES` is the one declared default of the effectiveness measures
that ``reprokg compare``'s summary, ``reprokg qra`` and ``reprokg freeze`` report unless
asked for others (``--measure NAME``) or for all (``--full``); :func:`headline_measures`
picks them for one comparison: the measures the acceptance rules judge, else those the
original run's header reports (the paper's own), else the default.
:func:`comparison_summary` is the summary itself (runs, collection, PRIMAD in words, the
headline measures with their intervals, the verdict with its reason), the same object for
the CLI's text, its JSON (``summary``) and the comparison page. Nothing here computes a
statistic: it reads what the comparison reports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: the effectiveness measures reported when neither a rule nor the original run names any:
#: AP (MAP, the measure repro_eval's and Breuer et al.'s examples read), P@10 and nDCG@10,
#: the cut-offs TREC ad hoc papers customarily report
HEADLINE_MEASURES: tuple[str, ...] = ("AP", "P@10", "nDCG@10")
#: the PRIMAD components in signature order, in words (measures/primad.py's COMPONENTS)
PRIMAD_WORDS: tuple[str, ...] = (
    "platform",
    "research goal",
    "implementation",
    "method",
    "actor",
    "data",
)
ROLE_WORDS = {
    "orig_base": "original baseline",
    "rep_base": "reproduced baseline",
    "orig_adv": "original advanced",
    "rep_adv": "reproduced advanced",
}
#: a value's key in a comparison's measures: (measure, side or None, effectiveness or None)
Key = tuple[str, str | None, str | None]


def headline_measures(
    available: Sequence[str],
    chosen: Sequence[str] = (),
    judged: Iterable[str] = (),
    reported: Iterable[str] = (),
) -> list[str]:
    """The effectiveness measures a summary reports, among those ``available``: the ones
    ``chosen`` (``--measure``), else those the rules judge, else those the original run
    reports, else :data:`HEADLINE_MEASURES`. A chosen measure not available is an error
    naming the ones that are."""
    if chosen:
        missing = [m for m in chosen if m not in available]
        if missing:
            from reprokg.core.errors import UsageError

            raise UsageError(
                f"--measure {', '.join(missing)}: not among the comparison's effectiveness "
                f"measures ({', '.join(available)})"
            )
        return list(dict.fromkeys(chosen))
    for source in (judged, reported, HEADLINE_MEASURES):
        found = [m for m in dict.fromkeys(source) if m in available]
        if found:
            return found
    return list(available[:3])


def primad_words(signature: str | None) -> str:
    """A PRIMAD signature in words: ``PrimAd`` -> "platform and actor changed; research
    goal, implementation, method and data unchanged" (upper case: changed)."""
    if not signature or len(signature) != len(PRIMAD_WORDS):
        return "not known (a baseline run has no ir_metadata header)"
    changed = [w for w, c in zip(PRIMAD_WORDS, signature, strict=True) if c.isupper()]
    same = [w for w, c in zip(PRIMAD_WORDS, signature, strict=True) if not c.isupper()]

    def listed(words: list[str]) -> str:
        return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]

    if not changed:
        return "nothing changed (every component the same)"
    if not same:
        return "every component changed"
    return f"{listed(changed)} changed; {listed(same)} unchanged"


def flat_values(measures: Mapping[str, Any]) -> dict[Key, Any]:
    """A comparison's ``measures`` (compare's JSON) as (measure, side, effectiveness) ->
    value, the shape the stored comparison's rows have."""
    out: dict[Key, Any] = {}
    for name, value in measures.items():
        if not isinstance(value, Mapping):
            out[(name, None, None)] = value
            continue
        for key, x in value.items():
            if key in ("baseline", "advanced"):
                if isinstance(x, Mapping):
                    out.update({(name, key, e): v for e, v in x.items()})
                else:
                    out[(name, key, None)] = x
            else:
                out[(name, None, key)] = x
    return out


@dataclass
class HeadlineRow:
    """One effectiveness measure on one side: the runs' means and how far apart."""

    measure: str
    side: str
    original: float | None
    reproduced: float | None
    #: mean per-topic difference, original - reproduced, with its interval
    mean_diff: float | None = None
    low: float | None = None
    high: float | None = None
    rmse: float | None = None
    #: effect ratio (across sides: on the baseline row only)
    er: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "measure": self.measure,
            "side": self.side,
            "original": self.original,
            "reproduced": self.reproduced,
            "mean_diff": self.mean_diff,
            "mean_diff_interval": None if self.low is None else [self.low, self.high],
            "rmse": self.rmse,
            "er": self.er,
        }


def headline_rows(values: Mapping[Key, Any], measures: Sequence[str]) -> list[HeadlineRow]:
    """The headline rows of a comparison's values for ``measures``, per side it has."""

    def v(name: str, side: str | None, eff: str | None) -> float | None:
        x = values.get((name, side, eff))
        return x if isinstance(x, int | float) and not isinstance(x, bool) else None

    sides = [s for s in ("baseline", "advanced") if any(k[1] == s for k in values)]
    rows = []
    for side in sides:
        for m in measures:
            row = HeadlineRow(
                m,
                side,
                v("original_mean", side, m),
                v("reproduced_mean", side, m),
                v("mean_diff", side, m),
                v("mean_diff_low", side, m),
                v("mean_diff_high", side, m),
                v("rmse", side, m),
                v("er", None, m) if side == "baseline" else None,
            )
            if any(x is not None for x in (row.original, row.mean_diff, row.rmse, row.er)):
                rows.append(row)
    return rows


@dataclass
class ComparisonSummary:
    """What a reader of a comparison needs first (docs/comparisons.md, "Summary")."""

    #: role (orig_base …) -> the run as named (file name and tag, or stored IRI)
    runs: dict[str, str]
    collection: str | None
    kind: str
    primad: str | None
    measures: list[str]
    rows: list[HeadlineRow]
    #: ranking agreement per side (KTU, RBO): side -> {name: value}
    rankings: dict[str, dict[str, float | None]] = field(default_factory=dict)
    level: float = 0.95
    #: the comparison's verdict: outcome, rules and the reasons, one per line
    verdict: dict[str, Any] | None = None
    stored: str | None = None
    #: effectiveness measures the comparison has that the summary leaves out
    more: int = 0
    #: what the comparison is called (its runs and collection)
    title: str | None = None
    #: its study kinds in the ontology's words (``independent repeat``)
    study: str | None = None

    @property
    def primad_text(self) -> str:
        return primad_words(self.primad)

    def to_json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "runs": dict(self.runs),
            "collection": self.collection,
            "kind": self.kind,
            "study": self.study,
            "primad": {"signature": self.primad, "in_words": self.primad_text},
            "headline_measures": list(self.measures),
            "headline": [r.to_json() for r in self.rows],
            "rankings": self.rankings,
            "level": self.level,
            "verdict": self.verdict,
            "stored": self.stored,
            "other_measures": self.more,
        }

    def lines(self) -> list[str]:
        """The summary as text, at most 15 lines for two runs and one rule."""
        out = [self.title] if self.title else []
        for role in ("orig_base", "rep_base", "orig_adv", "rep_adv"):
            if role in self.runs:
                out.append(f"{ROLE_WORDS[role] + ':':<21} {self.runs[role]}")
        out.append(f"{'collection:':<21} {self.collection or 'not named (--collection ID)'}")
        out.append(f"{'PRIMAD ' + (self.primad or '-') + ':':<21} {self.primad_text}")
        study = f"{self.study} ({self.kind})" if self.study and self.study != "-" else self.kind
        out.append(f"{'study:':<21} {study}")
        for side, values in self.rankings.items():
            shown = ", ".join(f"{k.upper()} {_f(x)}" for k, x in values.items())
            out.append(f"{'rankings (' + side + '):':<21} {shown} (1 = the same ranking)")
        if self.rows:
            pct = f"{self.level:.0%}"
            out.append(
                f"{'':<21} {'original':>9} {'reproduced':>10}  "
                f"{'orig - rep [' + pct + ' interval]':<31} {'RMSE':>6}"
                + (f" {'ER':>6}" if any(r.er is not None for r in self.rows) else "")
            )
            for r in self.rows:
                diff = "-" if r.mean_diff is None else f"{r.mean_diff:+.4f}"
                if r.low is not None:
                    diff += f" [{r.low:+.4f}, {r.high:+.4f}]"
                out.append(
                    f"{r.measure + ' (' + r.side + ')':<21} {_f(r.original):>9} "
                    f"{_f(r.reproduced):>10}  {diff:<31} {_f(r.rmse):>6}"
                    + (f" {_f(r.er):>6}" if any(x.er is not None for x in self.rows) else "")
                )
        if self.verdict is None:
            out.append(f"{'verdict:':<21} none (an acceptance rule decides: --rule NAME)")
        else:
            out.append(f"{'verdict:':<21} {self.verdict['outcome']} ({self.verdict['by']})")
            out += [f"{'':<21} {why}" for why in self.verdict["reasons"]]
        if self.stored:
            out.append(f"{'stored as:':<21} {self.stored}")
        return out


def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.4f}"


def comparison_summary(
    *,
    runs: Mapping[str, str],
    collection: str | None,
    kind: str,
    primad: str | None,
    values: Mapping[Key, Any],
    available: Sequence[str],
    chosen: Sequence[str] = (),
    judged: Iterable[str] = (),
    reported: Iterable[str] = (),
    level: float = 0.95,
    verdict: dict[str, Any] | None = None,
    stored: str | None = None,
    title: str | None = None,
    study: str | None = None,
) -> ComparisonSummary:
    """The summary of one comparison from its values (:func:`flat_values` of compare's
    JSON, or the stored comparison's rows)."""
    measures = headline_measures(available, chosen, judged, reported)
    rankings: dict[str, dict[str, float | None]] = {}
    for side in ("baseline", "advanced"):
        got = {m: values.get((m, side, None)) for m in ("ktu", "rbo") if (m, side, None) in values}
        if got:
            rankings[side] = got
    return ComparisonSummary(
        runs=dict(runs),
        collection=collection,
        kind=kind,
        primad=primad,
        measures=measures,
        rows=headline_rows(values, measures),
        rankings=rankings,
        level=level,
        verdict=verdict,
        stored=stored,
        more=len([m for m in available if m not in measures]),
        title=title,
        study=study,
    )


def verdict_summary(outcome: str, rules: Sequence[str], reasons: Sequence[str]) -> dict[str, Any]:
    """A verdict for the summary: the outcome, by which rule(s), and why (one line each)."""
    by = ("rule " if len(rules) == 1 else "rules ") + ", ".join(rules)
    if len(rules) > 1:
        by += ": reproduced only if every rule says so"
    return {"outcome": outcome, "rules": list(rules), "by": by, "reasons": list(reasons)}
