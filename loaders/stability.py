"""Stability-study observations (YAML, or CSV with ``# key: value`` header lines) -> one document.

The design of seed 003 ("Reproducibility and Stability Analysis in Metric-Based Few-Shot
Learning"): per experiment (algorithm x implementation x optimizer), seeded repeated runs
of sampled hyper-parameter configurations, one observed metric per run, and tests of the
stability hypotheses H1-H3. One row / list item = one run:
``experiment, algorithm, implementation, optimizer, configuration, seed, repeat, metric,
value`` plus hyper-parameters as ``hp.<name>`` columns (CSV) or an ``hp`` mapping (YAML).
See docs/audit-format.md (section "Stability studies").

Configurations: ``configuration`` names the hyper-parameter configuration of a run (e.g.
``c1``); without it the name is derived from the run's ``hp.*`` values. Reruns of an
experiment (same algorithm, implementation and optimizer, another experiment name) share
their configuration nodes, so "the same configuration" is one node in the graph.
"""

from __future__ import annotations

import csv
import io
import re
from decimal import Decimal, InvalidOperation
from typing import Any, NoReturn

from rdflib import RDF, RDFS, XSD, Literal, URIRef

from reprokg.core.document import Document, Message
from reprokg.core.errors import IdentifierError, LoadError
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import doi_iri, mint
from reprokg.core.namespaces import RK, SCHEMA, new_graph
from reprokg.loaders.reading.contract import Claim, LoaderInfo
from reprokg.loaders.reading.limits import check_lines
from reprokg.loaders.reading.source import decode_text, scalar_text
from reprokg.loaders.reading.yaml_scalars import parse_yaml

INFO = LoaderInfo(kind="stability", name="reprokg.loaders.stability", version="2")

#: a run's columns (CSV) / keys (YAML); the simulator, the observations query and the web
#: view use this one tuple
ROW_KEYS = (
    "experiment",
    "algorithm",
    "implementation",
    "optimizer",
    "configuration",
    "seed",
    "repeat",
    "metric",
    "value",
)
REQUIRED_ROW = ("experiment", "algorithm", "metric", "value")
STUDY_KEYS = ("stability", "title", "publication", "dataset", "illustrative", "note")
HYPOTHESES = {"H1": RK.H1, "H2": RK.H2, "H3": RK.H3}
DECISIONS = {"rejected": RK.HypothesisRejected, "not_rejected": RK.HypothesisNotRejected}


def sniff(name: str, head: str) -> bool | Claim:
    """``stability: 1`` as the first YAML key, or a CSV starting with ``# stability: 1``;
    another ``stability:`` value is nearly a study (its load says what is wrong)."""
    lines = [ln for ln in head.lstrip("\ufeff").splitlines() if ln.strip()]
    if name.endswith(".csv"):
        key, version = r"^#\s*stability\s*:", r"^#\s*stability:\s*1\s*$"
    else:
        lines = [ln for ln in lines if not ln.lstrip().startswith("#")]
        key, version = r"^stability\s*:", r"^stability:\s*1\s*$"
    if not lines or not re.match(key, lines[0]):
        return Claim.NO
    return Claim.YES if re.match(version, lines[0]) else Claim.NEAR


def _fail(
    name: str, msg: str, line: int | None, field: str | None, column: int | None = None
) -> NoReturn:
    raise LoadError(msg, source=name, line=line, column=column, field=field)


def _number(value: Any, name: str, field: str, line: int | None, *, integer: bool) -> Any:
    text = str(value).strip()
    try:
        if integer:
            if not re.fullmatch(r"[+-]?\d+", text):
                raise ValueError
            return int(text)
        return (
            Decimal(text)
            if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text)
            else _bad()
        )
    except (ValueError, InvalidOperation):
        kind = "an integer" if integer else "a number"
        _fail(name, f"{text!r} is not {kind}", line, field)


def _bad() -> Any:
    raise ValueError


def _text(data: dict[str, Any], key: str, name: str, at: str = "") -> str | None:
    """A text field (a string or a number): a mapping or a list is a located error, not
    its Python text as a label (``title: {a: 1}`` was the study ``{'a': '1'}``)."""
    field = f"{at}.{key}" if at else key
    return scalar_text(data.get(key), name, field, expected="text")


def configuration_name(hps: list[tuple[str, str]]) -> str | None:
    """The name of a configuration given only by its hyper-parameters: ``name=value`` pairs
    in name order (``None`` without hyper-parameters)."""
    return ", ".join(f"{k}={v}" for k, v in hps) if hps else None


def _typed_literal(value: Any) -> Literal:
    """A hyper-parameter value typed from its text: integer, decimal, boolean or string."""
    text = str(value).strip()
    if re.fullmatch(r"[+-]?\d+", text):
        return Literal(int(text), datatype=XSD.integer)
    if re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?", text):
        return Literal(Decimal(text), datatype=XSD.decimal)
    if text in ("true", "false"):
        return Literal(text == "true", datatype=XSD.boolean)
    return Literal(text)


#: (line, cells) of each observation; the line is unknown for an empty YAML mapping
Rows = list[tuple[int | None, dict[str, str]]]


def _read_csv(text: str, name: str) -> tuple[dict[str, Any], Rows]:
    check_lines(text, name, delimiter=",")  # line length and fields before the csv reader
    meta: dict[str, Any] = {}
    body_start = 0
    lines = text.split("\n")
    for i, ln in enumerate(lines):
        if not ln.startswith("#"):
            body_start = i
            break
        m = re.match(r"^#\s*([A-Za-z_]+)\s*:\s*(.*?)\s*$", ln)
        if m:
            meta[m.group(1)] = m.group(2)
    else:
        body_start = len(lines)
    reader = csv.DictReader(io.StringIO("\n".join(lines[body_start:]), newline=""))
    rows: Rows = []
    try:  # a stray quote or carriage return is the csv module's error: located, not raised
        if reader.fieldnames is None:
            _fail(name, "no CSV header row after the # lines", body_start + 1, None)
        for row in reader:
            if None in row:
                _fail(name, "more cells than header columns", body_start + reader.line_num, None)
            cells = {k: (v or "").strip() for k, v in row.items()}
            rows.append((body_start + reader.line_num, cells))
    except csv.Error as exc:
        _fail(name, f"CSV error: {exc}", body_start + max(reader.line_num, 1), None)
    if "publication" in meta:
        meta["publication"] = {
            "doi" if meta["publication"].startswith("10.") else "url": meta["publication"]
        }
    return meta, rows


def _read_yaml(text: str, name: str) -> tuple[dict[str, Any], Rows]:
    data = parse_yaml(text, name)
    if not isinstance(data, dict):
        _fail(name, "expected a mapping with stability, title and observations", 1, None)
    obs = data.get("observations")
    if not isinstance(obs, list):
        _fail(
            name,
            "observations: expected a list of runs",
            getattr(obs, "line", None),
            "observations",
        )
    rows = []
    for i, item in enumerate(obs):
        if not isinstance(item, dict):
            _fail(
                name,
                "expected a mapping per run",
                getattr(item, "line", None),
                f"observations[{i}]",
            )
        line = min((getattr(k, "line", 0) for k in item), default=None)
        flat: dict[str, str] = {}
        for k, v in item.items():
            if k == "hp":
                if not isinstance(v, dict):
                    _fail(
                        name, "hp: expected a mapping name -> value", line, f"observations[{i}].hp"
                    )
                for hk, hv in v.items():
                    at = f"observations[{i}].hp.{hk}"
                    flat[f"hp.{hk}"] = scalar_text(hv, name, at, line=line) or ""
            else:
                at = f"observations[{i}].{k}"
                flat[str(k)] = scalar_text(v, name, at, line=line) or ""
        rows.append((line, flat))
    return data, rows


def load(data: bytes, name: str) -> list[Document]:
    text = decode_text(data, name)
    meta, rows = _read_csv(text, name) if name.endswith(".csv") else _read_yaml(text, name)
    if str(meta.get("stability", "")).strip() != "1":
        _fail(name, "expected 'stability: 1' (format version)", 1, "stability")
    if not rows:
        _fail(name, "no observations", None, "observations")
    messages: list[Message] = []
    lines: dict[str, int] = {}
    g = new_graph()

    title = (_text(meta, "title", name) or "").strip()
    pub = meta.get("publication") or {}
    pub_node: URIRef | None = None
    if isinstance(pub, dict) and pub.get("doi"):
        try:
            pub_node = doi_iri(str(pub["doi"]))
        except IdentifierError as exc:
            _fail(name, str(exc), getattr(pub["doi"], "line", None), "publication.doi")
        g.add((pub_node, RK.doiAsWritten, Literal(str(pub["doi"]))))
    elif isinstance(pub, dict) and pub.get("url"):
        if not re.match(r"^https?://\S+$", str(pub["url"])):
            _fail(
                name,
                "publication.url: expected an http(s) URL",
                getattr(pub["url"], "line", None),
                "publication.url",
            )
        pub_node = URIRef(str(pub["url"]))
    source_key = f"stability:{pub_node or title or name}"
    study = mint("stability-study", stable_key(source_key, title))
    g.add((study, RDF.type, RK.StabilityStudy))
    if title:
        g.add((study, RDFS.label, Literal(title)))
    if pub_node is not None:
        g.add((pub_node, RDF.type, SCHEMA.ScholarlyArticle))
        g.add((study, RDFS.seeAlso, pub_node))
    if meta.get("dataset"):
        g.add((study, RK.dataSetName, Literal(_text(meta, "dataset", name))))
    if "illustrative" in meta:
        flag = str(meta["illustrative"]).strip().lower()
        if flag not in ("true", "false"):
            _fail(
                name,
                "illustrative: expected true or false",
                getattr(meta["illustrative"], "line", None),
                "illustrative",
            )
        g.add((study, RK.isIllustrative, Literal(flag == "true")))
    if meta.get("note"):
        g.add((study, RDFS.comment, Literal(_text(meta, "note", name))))
    for k in meta:
        if k not in STUDY_KEYS and k not in ("observations", "hypotheses"):
            messages.append(
                Message("Info", str(k), f"unknown key {k!s} ignored", line=getattr(k, "line", None))
            )

    experiments: dict[str, URIRef] = {}
    #: (experiment, configuration name) -> (hyper-parameters, line first seen)
    configurations: dict[tuple[str, str], tuple[list[tuple[str, str]], int | None]] = {}
    added: set = set()  # experiment facts and configuration nodes already in the graph
    for line, row in rows:
        for req in REQUIRED_ROW:
            if not row.get(req):
                _fail(name, f"missing {req}", line, req)
        exp_name = row["experiment"]
        exp = experiments.get(exp_name)
        if exp is None:
            exp = mint("stability-experiment", stable_key(source_key, exp_name))
            experiments[exp_name] = exp
            g.add((exp, RDF.type, RK.StabilityExperiment))
            g.add((exp, RDFS.label, Literal(exp_name)))
            g.add((exp, RK.inStudy, study))
        for key, prop in (
            ("algorithm", RK.algorithmName),
            ("implementation", RK.implementationName),
            ("optimizer", RK.optimizerName),
        ):
            if row.get(key) and (exp, key, row[key]) not in added:
                added.add((exp, key, row[key]))  # each run repeats them: add once
                g.add((exp, prop, Literal(row[key])))
        hps = sorted((k[3:], v) for k, v in row.items() if k.startswith("hp.") and v != "")
        seed = _number(row["seed"], name, "seed", line, integer=True) if row.get("seed") else None
        repeat = (
            _number(row["repeat"], name, "repeat", line, integer=True) if row.get("repeat") else 1
        )
        value = _number(row["value"], name, "value", line, integer=False)
        given = row.get("configuration") or None
        config_name = given or configuration_name(hps)
        if config_name is not None:
            seen = configurations.setdefault((exp_name, config_name), (hps, line))
            if seen[0] != hps:
                _fail(
                    name,
                    f"configuration {config_name!r} of experiment {exp_name!r} has other "
                    f"hyper-parameters than on line {seen[1]}",
                    line,
                    "configuration",
                )
        # a run is its experiment, configuration, seed and repeat (the key without a given
        # configuration name is the one loader version 1 used: the same IRIs as before)
        run_key: tuple = (exp_name, hps, seed, repeat) + ((given,) if given else ())
        run = mint("stability-run", stable_key(source_key, *run_key))
        g.add((run, RDF.type, RK.StabilityRun))
        g.add((run, RK.inExperiment, exp))
        if seed is not None:
            g.add((run, RK.randomSeed, Literal(seed, datatype=XSD.integer)))
        g.add((run, RK.repeatIndex, Literal(repeat, datatype=XSD.integer)))
        if config_name is not None:
            # shared by the reruns of the experiment: same algorithm/implementation/optimizer
            rerun_group = tuple(
                row.get(k, "") for k in ("algorithm", "implementation", "optimizer")
            )
            cfg_key = stable_key(source_key, *rerun_group, config_name, hps)
            cfg = mint("hp-config", cfg_key)
            g.add((run, RK.usesConfiguration, cfg))
            if cfg not in added:  # the configuration's own triples, once
                added.add(cfg)
                g.add((cfg, RDF.type, RK.HyperParameterConfiguration))
                g.add((cfg, RK.configurationName, Literal(config_name)))
                for hp_name, hp_value in hps:
                    a = mint("hp-assignment", stable_key(cfg_key, hp_name))
                    g.add((a, RDF.type, RK.HyperParameterAssignment))
                    g.add((cfg, RK.hasHyperParameterAssignment, a))
                    g.add((a, RK.hyperParameterName, Literal(hp_name)))
                    g.add((a, RK.hyperParameterValue, _typed_literal(hp_value)))
        obs = mint("observation", stable_key(source_key, *run_key, row["metric"]))
        g.add((obs, RDF.type, RK.MetricObservation))
        g.add((run, RK.hasObservation, obs))
        g.add((obs, RK.metricName, Literal(row["metric"])))
        g.add((obs, RK.metricValue, Literal(value, datatype=XSD.decimal)))
        for k in row:
            if k not in ROW_KEYS and not k.startswith("hp.") and ("unknown", k) not in added:
                added.add(("unknown", k))  # once per column, at its first line
                messages.append(Message("Info", k, f"unknown column {k} ignored", line=line))

    raw_hypotheses = meta.get("hypotheses")
    for i, h in enumerate(raw_hypotheses if isinstance(raw_hypotheses, list) else []):
        path = f"hypotheses[{i}]"
        if not isinstance(h, dict):
            _fail(name, "expected a mapping", getattr(h, "line", None), path)
        hid = str(h.get("id", ""))
        if hid not in HYPOTHESES:
            _fail(
                name,
                f"id: {hid!r} is not one of H1, H2, H3",
                getattr(h.get("id"), "line", None),
                f"{path}.id",
            )
        t = mint("hypothesis-test", stable_key(source_key, i, hid))
        g.add((t, RDF.type, RK.HypothesisTest))
        g.add((study, RK.hasHypothesisTest, t))
        g.add((t, RK.testedHypothesis, HYPOTHESES[hid]))
        if h.get("test"):
            g.add((t, RK.testMethod, Literal(_text(h, "test", name, path))))
        if h.get("statistic") is not None:
            stat = _number(
                h["statistic"],
                name,
                f"{path}.statistic",
                getattr(h["statistic"], "line", None),
                integer=False,
            )
            g.add((t, RK.testStatistic, Literal(stat, datatype=XSD.decimal)))
        if h.get("p_value") is not None:
            p = _number(
                h["p_value"],
                name,
                f"{path}.p_value",
                getattr(h["p_value"], "line", None),
                integer=False,
            )
            g.add((t, RK.pValue, Literal(str(p), datatype=XSD.double)))
        if h.get("decision") is not None:
            d = str(h["decision"])
            if d not in DECISIONS:
                _fail(
                    name,
                    f"decision: {d!r} is not rejected or not_rejected",
                    getattr(h["decision"], "line", None),
                    f"{path}.decision",
                )
            g.add((t, RK.decision, DECISIONS[d]))
        if h.get("note"):
            g.add((t, RDFS.comment, Literal(_text(h, "note", name, path))))
        if getattr(h.get("id"), "line", None):
            lines[f"{path}.id"] = h["id"].line
    for k in ("title", "illustrative", "publication"):
        ln = next((getattr(key, "line", None) for key in meta if key == k), None)
        if ln:
            lines[f"study.{k}"] = ln

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
