"""A comparison of runs as an RDF document (kind ``comparison``), and back to its JSON.

:func:`comparison_document` writes what :func:`reprokg.measures.run_comparison.compare_inputs`
computed (:meth:`RunComparison.document`) as the triples documented in
``docs/comparisons.md``, through the one result-document builder
(:func:`reprokg.core.computed.result_document`); :func:`reprokg.ingest.write_result`
stores it with the run and qrels documents read from files
(:meth:`RunComparison.source_documents`); :func:`comparison_json` rebuilds ``compare
--format json`` from stored triples. Apart from the computation so that ``reprokg
compare`` without ``--save`` never imports rdflib.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, ClassVar, Protocol

from rdflib import Literal, URIRef
from rdflib.namespace import DCTERMS, PROV, RDF, RDFS, SKOS

from reprokg.core.computed import Computation, result_document, software_versions
from reprokg.core.document import Document
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import mint
from reprokg.core.literals import double_literal
from reprokg.core.namespaces import MLS, RK, new_graph
from reprokg.measures import primad
from reprokg.measures.comparison import Comparison
from reprokg.measures.inputs import QrelsInput, RunInput, judging_qrels
from reprokg.measures.leaderboard import add_reported_scores
from reprokg.measures.registry import CROSS, REGISTRY, SAME
from reprokg.measures.reported import Scores
from reprokg.store.base import Store

if TYPE_CHECKING:
    from reprokg.measures.primad import PrimadComparison
#: the comparison document's rk:loaderName, as stored since the first comparisons
PRODUCER = "reprokg.measures.study"
#: the distributions whose versions a comparison records
SOFTWARE = ("ir-measures", "pytrec-eval-terrier", "scipy")
SIDES = {"baseline": RK.BaselineSide, "advanced": RK.AdvancedSide}
SIDE_ROLE = {"baseline": "base", "advanced": "adv"}
#: the measures that are one run's mean, and the role (orig/rep) of that run on each side
MEAN_OF = {"original_mean": "orig", "reproduced_mean": "rep"}


def _parameter(value: object) -> str:
    """An option's value as the text stored: a list comma-joined, a bool lower-case."""
    if isinstance(value, list):
        return ",".join(value)
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


class Compared(Protocol):
    """What the document is written from: a
    :class:`~reprokg.measures.run_comparison.RunComparison` (named structurally, since that
    module asks this one for its document)."""

    KIND: ClassVar[str]
    comparison: Comparison
    inputs: dict[str, RunInput]
    qrels: QrelsInput
    qrels_rpl: QrelsInput | None
    primad: PrimadComparison | None
    reported: dict[str, Scores]

    @property
    def title(self) -> str: ...

    def document(self) -> Document: ...


def comparison_document(study: Compared) -> Document:
    """The comparison as a document of kind ``comparison`` (see docs/comparisons.md)."""
    c = study.comparison
    shas = {role: inp.content_key for role, inp in study.inputs.items()}
    basis = {
        "runs": shas,
        "qrels": study.qrels.sha256,
        "qrels_rpl": study.qrels_rpl.sha256 if study.qrels_rpl else None,
        "options": c.options.to_json(),
    }
    key = stable_key("comparison", json.dumps(basis, sort_keys=True))
    node = mint("comparison", key)
    g = new_graph()
    g.add((node, RDF.type, RK.ReproductionComparison))
    g.add((node, RDF.type, PROV.Entity))
    g.add((node, DCTERMS.type, Literal(c.kind)))
    g.add((node, RDFS.label, Literal(study.title)))
    for role, inp in study.inputs.items():
        pred = RK.originalRun if role.startswith("orig") else RK.reproducingRun
        run = inp.subject or mint("run", stable_key("run-lines", inp.sha256))
        g.add((node, pred, run))
        g.add((run, RDF.type, RK.Run))
        runfile = mint("runfile", inp.sha256)
        g.add((run, RK.runFile, runfile))
        g.add((runfile, RK.sha256, Literal(inp.sha256)))
        if role in study.reported:
            kind = CROSS if study.qrels_rpl is not None else SAME
            judged = judging_qrels(role, kind, study.qrels, study.qrels_rpl)
            add_reported_scores(g, run, inp, judged, study.reported[role], mint("activity", key))
    if study.primad is not None:
        g.add((node, RK.primadSignature, Literal(study.primad.signature)))
        for key_, changed in study.primad.changed.items():
            g.add((node, primad.CHANGED_PREDICATE[key_], Literal(changed)))
        for concept in primad.study_kinds(study.primad.signature):
            g.add((node, RK.studyKind, concept))
    # provenance: what computed it, from which inputs, with which software and options
    used = [q.subject for q in (study.qrels, study.qrels_rpl) if q is not None]
    used += [mint("runfile", inp.sha256) for inp in study.inputs.values()]
    computation = Computation(
        label="reproducibility measures (reprokg compare)",
        key=key,
        used=used,
        software=software_versions(*SOFTWARE),
        parameters={k: _parameter(v) for k, v in c.options.to_json().items()},
    )
    activity = computation.activity
    for q in (study.qrels, study.qrels_rpl):
        if q is not None:
            g.add((q.subject, RK.sha256, Literal(q.sha256)))
    for w in c.warnings:
        g.add((node, RDFS.comment, Literal(w)))
    # the measure definitions used, with citations
    for m in REGISTRY.values():
        if m.name not in c.measures:
            continue
        mi = m.iri
        g.add((mi, RDF.type, RK.EvaluationMeasure))
        g.add((mi, RDFS.label, Literal(m.label, lang="en")))
        g.add((mi, SKOS.definition, Literal(m.definition, lang="en")))
        g.add((mi, DCTERMS.bibliographicCitation, URIRef(m.citation)))
    # every measure value; a run's mean names the run it is the mean of
    runs = {
        role: inp.subject or mint("run", stable_key("run-lines", inp.sha256))
        for role, inp in study.inputs.items()
    }
    for name, value in c.measures.items():
        mi = REGISTRY[name].iri
        for side, eff, x in _flatten(value):
            v = mint("value", stable_key(key, name, side or "", eff or ""))
            g.add((node, RK.measureValue, v))
            g.add((v, RDF.type, RK.MeasureValue))
            g.add((v, RDF.type, MLS.ModelEvaluation))
            g.add((v, MLS.specifiedBy, mi))
            g.add((v, RK.measureName, Literal(name)))
            if eff is not None:
                g.add((v, RK.irMeasuresName, Literal(eff)))
            if side is not None:
                g.add((v, RK.runSide, SIDES[side]))
            if x is not None and math.isfinite(x):
                g.add((v, MLS.hasValue, double_literal(x)))
            g.add((v, PROV.wasGeneratedBy, activity))
            of_run = MEAN_OF.get(name)
            if of_run is not None and side is not None:
                mean_of = runs.get(f"{of_run}_{SIDE_ROLE[side]}")
                if mean_of is not None:
                    g.add((v, PROV.wasDerivedFrom, mean_of))
    # (not canonical_json: a measure may be NaN, which a comparison's JSON has written)
    source = json.dumps({"basis": basis, "result": c.to_json()}, sort_keys=True).encode()
    return result_document(
        kind=study.KIND,
        subject=node,
        graph=g,
        computation=computation,
        source=source,
        source_key=f"comparison:{key}",
        source_name=f"comparison-{key}.json",
        producer=PRODUCER,
    )


def _flatten(value) -> list[tuple[str | None, str | None, float | None]]:
    """(side, effectiveness measure, value) triples of one measure's JSON value."""
    out = []
    if isinstance(value, dict) and set(value) <= set(SIDES):
        for side, v in value.items():
            if isinstance(v, dict):
                out += [(side, eff, x) for eff, x in v.items()]
            else:
                out.append((side, None, v))
    elif isinstance(value, dict):
        out += [(None, eff, x) for eff, x in value.items()]
    else:
        out.append((None, None, value))
    return out


# --------------------------------------------------------------------------- back to JSON


def comparison_json(g, node: URIRef) -> dict:
    """The ``compare --format json`` object rebuilt from a stored comparison's triples."""
    from reprokg.measures.effectiveness import DEFAULT_MEASURES

    params = {
        str(g.value(p, RK.parameterName)): str(g.value(p, RK.parameterValue))
        for a in g.objects(node, PROV.wasGeneratedBy)
        for p in g.objects(a, PROV.used)
        if (p, RDF.type, RK.ParameterSetting) in g
    }
    order = params.get("measures", ",".join(DEFAULT_MEASURES)).split(",")
    rank = {m: i for i, m in enumerate(order)}
    side_of = {v: k for k, v in SIDES.items()}
    raw: dict[str, list[tuple[str | None, str | None, float | None]]] = {}
    for v in g.objects(node, RK.measureValue):
        name = str(g.value(v, RK.measureName))
        eff = g.value(v, RK.irMeasuresName)
        side = g.value(v, RK.runSide)
        x = g.value(v, MLS.hasValue)
        raw.setdefault(name, []).append(
            (
                side_of.get(side) if side is not None else None,
                str(eff) if eff is not None else None,
                float(x) if x is not None else None,
            )
        )
    measures: dict = {}
    for name in [m for m in REGISTRY if m in raw] + sorted(set(raw) - set(REGISTRY)):
        items = sorted(raw[name], key=lambda t: (t[0] != "baseline", rank.get(t[1] or "", 1e9)))
        out: dict = {}
        for side, eff, x in items:
            if side is not None and eff is not None:
                out.setdefault(side, {})[eff] = x
            elif side is not None:
                out[side] = x
            elif eff is not None:
                out[eff] = x
        measures[name] = out
    signature = g.value(node, RK.primadSignature)
    options = {
        "depth": int(params.get("depth", 1000)),
        "order": params.get("order", "file"),
        "rbo_p": float(params.get("rbo_p", 0.95)),
        "rbo_depth": int(params.get("rbo_depth", 1000)),
        "rbo_extrapolated": params.get("rbo_extrapolated", "false") == "true",
        "measures": order,
        **_statistics_options(params),
    }
    return {
        "primad": str(signature) if signature is not None else None,
        "kind": str(g.value(node, DCTERMS.type)),
        "measures": measures,
        "warnings": sorted(str(c) for c in g.objects(node, RDFS.comment)),
        "options": options,
    }


#: the document a comparison node was stored in
DOCUMENT_QUERY = "measures/sparql/comparison-document.rq"


def stored_comparison(store: Store, node: str) -> dict | None:
    """The stored comparison ``node`` (an IRI) as compare's JSON (:func:`comparison_json`);
    None when the store holds no such comparison. The API's ``GET /comparisons/{id}`` and
    the comparison page read it through here."""
    from reprokg.sparql.named import package_query
    from reprokg.sparql.rows import select_rows

    rows = select_rows(store, package_query(DOCUMENT_QUERY).bind({"comparison": node}))
    if not rows:
        return None
    doc = rows[0]["g"]
    return comparison_json(store.get_document(URIRef(str(doc))), URIRef(node))


def _statistics_options(params: dict[str, str]) -> dict:
    """The statistics' options of a stored comparison (none for one stored before them)."""
    if "correction" not in params:
        return {}
    return {
        "correction": params["correction"],
        "family": params.get("family"),
        "resamples": int(params.get("resamples", 9999)),
        "seed": int(params.get("seed", 0)),
        "level": float(params.get("level", 0.95)),
    }
