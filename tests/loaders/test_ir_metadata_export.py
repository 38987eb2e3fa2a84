"""Round trip YAML -> RDF -> YAML on the real files: every field and value comes back.

Both sides are parsed with the text-keeping YAML reader and compared as text, after a
normalisation written here (not the loader's): keys that the schema spells two ways
are mapped to one spelling (``reported_measures`` -> ``reported measures``,
``test_collection`` -> ``test collection``, ``training_data`` -> ``training data``,
``schema version`` -> ``schema-version``) and retrieval ``params`` are inlined into
their stage. Order is compared too: repro_eval compares components as dicts, so a
reordered list would read as a changed component.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from reprokg.loaders import ir_metadata as im
from reprokg.loaders.ir_metadata.export import graph_to_dict, graph_to_yaml
from reprokg.loaders.reading.yaml_scalars import parse_yaml

KEYS = {
    "reported_measures": "reported measures",
    "test_collection": "test collection",
    "training_data": "training data",
    "schema version": "schema-version",
}


def norm(v: Any) -> Any:
    if isinstance(v, dict):
        out: dict[str, Any] = {}
        for k, val in v.items():
            key = KEYS.get(str(k), str(k))
            if key == "params" and isinstance(val, dict):
                out.update({str(pk): norm(pv) for pk, pv in val.items()})
            else:
                out[key] = norm(val)
        return out
    if isinstance(v, list):
        return [norm(x) for x in v]
    text = str(v)
    return text.lower() if text.lower() in ("true", "false") else text


def header_yaml(data: bytes) -> str:
    text = data.decode()
    if "ir_metadata.start" not in text:
        return text
    body = text.split("ir_metadata.start\n", 1)[1].split("ir_metadata.end", 1)[0]
    return "\n".join(ln[2:] if ln.startswith("# ") else ln for ln in body.split("\n"))


@pytest.mark.parametrize(
    "name", ["annotated_run_example.txt", "website_checklist_examples_assembled.yaml"]
)
def test_round_trip_real_files(shared_data: Path, name: str) -> None:
    data = (shared_data / "ir_metadata" / name).read_bytes()
    [doc] = im.load(data, name)
    out = graph_to_yaml(doc.graph, doc.subject)
    original = norm(parse_yaml(header_yaml(data), "orig"))
    back = norm(parse_yaml(out, "export"))
    assert back == original


def test_round_trip_keeps_unknown_keys_and_alternative_spellings() -> None:
    src = (
        "schema version: 0.2\n"
        "tag: t1\n"
        "resources:\n  runtime: 3h\n  gpus: [a, b]\n"
        "research goal:\n  evaluation:\n    reported_measures: [map, ndcg]\n"
        "method:\n  automatic: false\n  retrieval:\n"
        "  - name: bm25\n    params:\n      b: 0.75\n      k1: 1.2\n"
        "  - name: rm3\n    reranks: bm25\n    fbTerms: 10\n"
        "data:\n  test_collection:\n    name: Robust04\n    folds: [f1, f2]\n"
        "implementation:\n  source:\n    commit: 1234567\n"
    )
    [doc] = im.load(src.encode(), "m.yaml")
    out = graph_to_yaml(doc.graph, doc.subject)
    assert norm(parse_yaml(out, "export")) == norm(parse_yaml(src, "orig"))
    # a standard YAML reader gets the commit back as a string, not the number 1234567
    assert yaml.safe_load(out)["implementation"]["source"]["commit"] == "1234567"
    assert yaml.safe_load(out)["method"]["automatic"] is False


def test_export_types_follow_the_schema(shared_data: Path) -> None:
    data = (shared_data / "ir_metadata" / "annotated_run_example.txt").read_bytes()
    [doc] = im.load(data, "a.txt")
    d = yaml.safe_load(graph_to_yaml(doc.graph, doc.subject))
    assert d["platform"]["hardware"]["cpu"]["number of cores"] == 16
    assert d["research goal"]["venue"]["year"] == 2019
    assert d["method"]["automatic"] is True
    assert d["method"]["retrieval"][0] == {
        "name": "bm25",
        "method": "org.apache.lucene.search.similarities.Similarity.BM25Similarity",
        "b": 0.4,
        "k1": 0.9,
    }
    assert d["implementation"]["source"]["commit"] == "9548cd6"
    assert list(d["platform"]["software"]["libraries"]) == ["python", "java"]


def test_unknown_run_iri_raises(shared_data: Path) -> None:
    data = (shared_data / "ir_metadata" / "annotated_run_example.txt").read_bytes()
    [doc] = im.load(data, "a.txt")
    with pytest.raises(KeyError):
        graph_to_dict(doc.graph, "https://example.org/not-a-run")
