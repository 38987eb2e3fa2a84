"""Feature-discard experiments (YAML) -> one document: the seed's "discard the features of
highest normalized intrinsic dimension and watch the score" as linked data.

Seed 000 (Hille, Stubbemann & Hanika, TMLR 2024, §5.3) discards, for every proportion
0.1, …, 0.9, that fraction of a data set's features with the highest (approximate)
normalized intrinsic dimension, retrains the method with its original hyper-parameters and
reports the score (accuracy or f1, over ten seeds). One file is one such series: one
method on one data set with one discard strategy::

    feature-discard: 1
    title: SAGN+SLE on yelp, features discarded by NID
    publication: {doi: 10.…}            # or {url: https://…}: who reports it (optional)
    illustrative: true                  # scores read off a figure or made up (optional)
    dataset: yelp                       # a name, or {name:, doi: | iri:}
    method: SAGN+SLE
    metric: f1
    strategy: id                        # id (highest NID first) | reverse-id | random
    intrinsic_dimension: https://w3id.org/reprokg/id/intrinsic-dimension/…  # optional
    runs: 10                            # seeds per score (optional)
    score_before: 0.65                  # all features
    steps:
      - proportion: 0.1
        score: 0.64
        discarded: [f12, f7]            # optional: the features removed, by name

``intrinsic_dimension`` links the series to a stored estimate
(``reprokg intrinsic-dimension --features --save`` prints its IRI): without an explicit
``discarded`` list, the features a step removed are then the ⌊p·d⌋ of highest rank in
that estimate (lowest for ``reverse-id``), which the named query *discarded-features*
lists. The study is an ``rk:FeatureDiscardStudy``; each step an
``rk:FeatureDiscardExperiment`` (proportion, strategy, method, data set, score after).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any, NoReturn

from rdflib import RDF, RDFS, XSD, Literal, URIRef

from reprokg.core.document import Document, Message
from reprokg.core.errors import IdentifierError, LoadError
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import doi_iri, mint
from reprokg.core.namespaces import RK, SCHEMA, new_graph
from reprokg.loaders.reading.contract import Claim, LoaderInfo
from reprokg.loaders.reading.source import decode_text, scalar_text
from reprokg.loaders.reading.yaml_scalars import Scalar, parse_yaml

INFO = LoaderInfo(kind="feature-discard", name="reprokg.loaders.feature_discard", version="1")

KEYS = (
    "feature-discard",
    "title",
    "publication",
    "illustrative",
    "note",
    "dataset",
    "method",
    "metric",
    "strategy",
    "intrinsic_dimension",
    "runs",
    "score_before",
    "steps",
)
STEP_KEYS = ("proportion", "score", "discarded", "note")
STRATEGIES = {
    "id": RK.DiscardByIntrinsicDimension,
    "reverse-id": RK.DiscardByIntrinsicDimensionReversed,
    "random": RK.DiscardAtRandom,
}
_NUMBER_RE = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_IRI_RE = re.compile(r"^https?://[^\s<>\"{}|\\^`]+$")


def sniff(name: str, head: str) -> bool | Claim:
    """``feature-discard: 1`` as the first YAML key; another ``feature-discard:`` value is
    nearly a study (its load says what is wrong)."""
    if not name.lower().endswith((".yaml", ".yml")):
        return Claim.NO
    lines = [
        ln
        for ln in head.lstrip("\ufeff").splitlines()
        if ln.strip() and not ln.lstrip().startswith("#")
    ]
    if not lines or not re.match(r"^feature-discard\s*:", lines[0]):
        return Claim.NO
    return Claim.YES if re.match(r"^feature-discard:\s*1\s*$", lines[0]) else Claim.NEAR


def _line(value: Any) -> int | None:
    return getattr(value, "line", None)


def _fail(name: str, message: str, value: Any, field: str) -> NoReturn:
    raise LoadError(message, source=name, line=_line(value), field=field)


def _text(name: str, data: dict, key: str, *, required: bool) -> str | None:
    value = data.get(key)
    if value is None or (isinstance(value, Scalar) and value.is_null):
        if required:
            _fail(name, f"{key}: required", None, key)
        return None
    if not isinstance(value, str) or not value.strip():
        _fail(name, f"{key}: expected text", value, key)
    return str(value).strip()


def _decimal(name: str, value: Any, field: str) -> Decimal:
    text = str(value).strip() if isinstance(value, str) else ""
    if not _NUMBER_RE.match(text):
        _fail(name, f"{field}: expected a number, got {value!r}", value, field)
    return Decimal(text)


def _key_line(data: dict, key: str) -> int | None:
    return next((_line(k) for k in data if k == key), None)


def load(data: bytes, name: str) -> list[Document]:
    text = decode_text(data, name)
    meta = parse_yaml(text, name)
    if not isinstance(meta, dict):
        raise LoadError(
            "expected a mapping with feature-discard, dataset, method, metric, steps",
            source=name,
            line=1,
        )
    if str(meta.get("feature-discard", "")).strip() != "1":
        _fail(name, "expected 'feature-discard: 1' (format version)", None, "feature-discard")
    messages: list[Message] = []
    lines: dict[str, int] = {}
    for k in meta:
        if k not in KEYS:
            messages.append(Message("Info", str(k), f"unknown key {k!s} ignored", line=_line(k)))
    for k in KEYS:
        ln = _key_line(meta, k)
        if ln:
            lines[k] = ln

    method = _text(name, meta, "method", required=True)
    metric = _text(name, meta, "metric", required=True)
    title = _text(name, meta, "title", required=False)
    strategy_name = _text(name, meta, "strategy", required=False) or "id"
    if strategy_name not in STRATEGIES:
        _fail(
            name,
            f"strategy: {strategy_name!r} is not one of {', '.join(STRATEGIES)}",
            meta.get("strategy"),
            "strategy",
        )
    g = new_graph()

    # the data set: a DOI or IRI names it; a name alone is minted inside this source
    raw_ds = meta.get("dataset")
    ds_name: str | None = None
    ds_node: URIRef | None = None
    if isinstance(raw_ds, dict):
        ds_name = _text(name, raw_ds, "name", required=False)
        if raw_ds.get("doi") is not None:
            try:
                ds_node = doi_iri(str(raw_ds["doi"]))
            except IdentifierError as exc:
                _fail(name, f"dataset.doi: {exc}", raw_ds["doi"], "dataset.doi")
            g.add((ds_node, RK.doiAsWritten, Literal(str(raw_ds["doi"]))))
        elif raw_ds.get("iri") is not None:
            if not _IRI_RE.match(str(raw_ds["iri"])):
                _fail(name, "dataset.iri: expected an http(s) IRI", raw_ds["iri"], "dataset.iri")
            ds_node = URIRef(str(raw_ds["iri"]))
        elif not ds_name:
            _fail(name, "dataset: give a name, a doi or an iri", raw_ds, "dataset")
    elif isinstance(raw_ds, str) and raw_ds.strip():
        ds_name = str(raw_ds).strip()
    else:
        _fail(
            name, "dataset: required (a name, or a mapping with name, doi or iri)", None, "dataset"
        )

    pub = meta.get("publication")
    pub_node: URIRef | None = None
    if isinstance(pub, dict) and pub.get("doi") is not None:
        try:
            pub_node = doi_iri(str(pub["doi"]))
        except IdentifierError as exc:
            _fail(name, f"publication.doi: {exc}", pub["doi"], "publication.doi")
        g.add((pub_node, RK.doiAsWritten, Literal(str(pub["doi"]))))
    elif isinstance(pub, dict) and pub.get("url") is not None:
        if not _IRI_RE.match(str(pub["url"])):
            _fail(name, "publication.url: expected an http(s) URL", pub["url"], "publication.url")
        pub_node = URIRef(str(pub["url"]))
    elif pub is not None:
        _fail(name, "publication: expected a mapping with doi or url", pub, "publication")

    ds_key = str(ds_node) if ds_node is not None else f"name:{ds_name}"
    source_key = (
        f"{INFO.kind}:{pub_node or title or name}:{ds_key}:{method}:{metric}:{strategy_name}"
    )
    if ds_node is None:
        ds_node = mint("dataset", stable_key(source_key, "dataset", ds_name))
    g.add((ds_node, RDF.type, RK.DataSet))
    if ds_name:
        g.add((ds_node, RK.dataSetName, Literal(ds_name)))

    study = mint("feature-discard-study", stable_key(source_key))
    g.add((study, RDF.type, RK.FeatureDiscardStudy))
    g.add((study, RK.ofDataSet, ds_node))
    if title:
        g.add((study, RDFS.label, Literal(title)))
    if pub_node is not None:
        g.add((pub_node, RDF.type, SCHEMA.ScholarlyArticle))
        g.add((study, RDFS.seeAlso, pub_node))
    if meta.get("note") is not None:
        note = scalar_text(meta["note"], name, "note", expected="text")
        g.add((study, RDFS.comment, Literal(note)))
    if "illustrative" in meta:
        flag = str(meta["illustrative"]).strip().lower()
        if flag not in ("true", "false"):
            _fail(
                name,
                "illustrative: expected true or false",
                meta["illustrative"],
                "illustrative",
            )
        g.add((study, RK.illustrativeScores, Literal(flag == "true")))
    if meta.get("runs") is not None:
        runs = str(meta["runs"]).strip()
        if not re.fullmatch(r"\d+", runs):
            _fail(name, "runs: expected a whole number of runs", meta["runs"], "runs")
        g.add((study, RK.runsPerScore, Literal(int(runs), datatype=XSD.integer)))

    estimate: URIRef | None = None
    raw_est = meta.get("intrinsic_dimension")
    if raw_est is not None:
        if not isinstance(raw_est, str) or not _IRI_RE.match(str(raw_est)):
            _fail(
                name,
                "intrinsic_dimension: expected the IRI of a stored estimate "
                "(printed by reprokg intrinsic-dimension --save)",
                raw_est,
                "intrinsic_dimension",
            )
        estimate = URIRef(str(raw_est))

    if meta.get("score_before") is None:
        _fail(name, "score_before: required (the score with all features)", None, "score_before")
    before = _decimal(name, meta["score_before"], "score_before")
    obs = mint("observation", stable_key(source_key, "before"))
    g.add((obs, RDF.type, RK.MetricObservation))
    g.add((obs, RK.metricName, Literal(metric)))
    g.add((obs, RK.metricValue, Literal(before, datatype=XSD.decimal)))
    g.add((study, RK.scoreWithAllFeatures, obs))

    steps = meta.get("steps")
    if not isinstance(steps, list) or not steps:
        _fail(name, "steps: expected a list of discard steps", steps, "steps")
    seen: dict[Decimal, int] = {}
    strategy = STRATEGIES[strategy_name]
    for i, step in enumerate(steps):
        path = f"steps[{i}]"
        if not isinstance(step, dict):
            _fail(name, f"{path}: expected a mapping with proportion and score", step, path)
        for k in step:
            if k not in STEP_KEYS:
                messages.append(
                    Message("Info", f"{path}.{k}", f"unknown key {k!s} ignored", line=_line(k))
                )
        if step.get("proportion") is None:
            _fail(name, f"{path}.proportion: required", None, f"{path}.proportion")
        p = _decimal(name, step["proportion"], f"{path}.proportion")
        if p in seen:
            _fail(
                name,
                f"{path}.proportion: {p} already given in steps[{seen[p]}]",
                step["proportion"],
                f"{path}.proportion",
            )
        seen[p] = i
        if step.get("score") is None:
            _fail(name, f"{path}.score: required", None, f"{path}.score")
        score = _decimal(name, step["score"], f"{path}.score")
        exp = mint("feature-discard", stable_key(source_key, str(p.normalize())))
        g.add((exp, RDF.type, RK.FeatureDiscardExperiment))
        g.add((exp, RK.inFeatureDiscardStudy, study))
        g.add((exp, RK.ofDataSet, ds_node))
        g.add((exp, RK.methodName, Literal(method)))
        g.add((exp, RK.discardStrategy, strategy))
        g.add((exp, RK.discardProportion, Literal(p, datatype=XSD.decimal)))
        if estimate is not None:
            g.add((exp, RK.rankedBy, estimate))
        after = mint("observation", stable_key(source_key, str(p.normalize()), "after"))
        g.add((after, RDF.type, RK.MetricObservation))
        g.add((after, RK.metricName, Literal(metric)))
        g.add((after, RK.metricValue, Literal(score, datatype=XSD.decimal)))
        g.add((exp, RK.hasScore, after))
        discarded = step.get("discarded")
        if discarded is not None:
            if not isinstance(discarded, list) or not all(
                isinstance(x, str) and str(x).strip() for x in discarded
            ):
                _fail(
                    name,
                    f"{path}.discarded: expected a list of feature names",
                    discarded,
                    f"{path}.discarded",
                )
            for feature in discarded:
                g.add((exp, RK.discardedFeatureName, Literal(str(feature).strip())))
        if step.get("note") is not None:
            note = scalar_text(step["note"], name, f"{path}.note", expected="text")
            g.add((exp, RDFS.comment, Literal(note)))
        ln = _line(step.get("proportion"))
        if ln:
            lines[f"{path}.proportion"] = ln
            lines[f"{path}.score"] = _line(step.get("score")) or ln

    return [
        INFO.document(
            g,
            source_name=name,
            source_bytes=data,
            source_key=source_key,
            messages=messages,
            lines=lines,
            subject=study,
        )
    ]
