"""OpenML run descriptions: openml-python's own test fixture (tests/exchange/data/openml,
BSD-3-Clause) imported, validated, and checked against what openml-python itself reads from
it (a test-only oracle, offline)."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from reprokg.cli import main
from reprokg.core.errors import LoadError
from reprokg.core.namespaces import MLS, RK, SCHEMA
from reprokg.loaders import load_source
from reprokg.loaders.ir_metadata.export import graph_to_dict
from reprokg.validation.engine import validate_document
from tests.conftest import need

FIXTURE = Path(__file__).parent / "data" / "openml" / "description.xml"


@pytest.fixture(scope="module")
def oracle():
    try:
        from openml.runs.functions import _create_run_from_xml
    except ImportError:
        need(False, "openml (openml-python, test extra) is not installed")
        raise
    return _create_run_from_xml(FIXTURE.read_text(), from_server=True)


def _scores(doc) -> dict:
    return {
        str(doc.graph.value(v, RK.measureName)): v
        for v in doc.graph.objects(doc.subject, RK.reportedScore)
    }


def test_description_is_sniffed_validated_and_read_as_openml_python_reads_it(oracle) -> None:
    (doc,) = load_source("description.xml", FIXTURE.read_bytes())
    assert doc.loader == "reprokg.loaders.openml" and doc.kind == "run"
    assert validate_document(doc).conforms
    tree = graph_to_dict(doc.graph, doc.subject)
    assert str(doc.graph.value(doc.subject, SCHEMA.identifier)) == str(oracle.run_id)
    assert tree["implementation"]["name"] == oracle.flow_name
    assert tree["implementation"]["flow"] == f"https://www.openml.org/f/{oracle.flow_id}"
    assert tree["implementation"]["executable"]["cmd"] == oracle.setup_string
    assert tree["method"]["parameters"] == {
        p["oml:name"]: p["oml:value"] for p in oracle.parameter_settings
    }
    assert tree["actor"]["name"] == oracle.uploader_name
    assert tree["data"]["test collection"]["source"].endswith(f"/t/{oracle.task_id}")
    assert f"({oracle.task_type})" in tree["data"]["test collection"]["name"]
    scores = _scores(doc)
    assert set(scores) == set(oracle.evaluations) | set(oracle.fold_evaluations)
    for name, value in oracle.evaluations.items():
        if isinstance(value, float):
            assert float(doc.graph.value(scores[name], MLS.hasValue)) == value
        else:  # openml-python keeps the array as the value when there is no number
            detail = json.loads(str(doc.graph.value(scores[name], RDF_value())))
            assert detail["array_data"] == value
            assert tree["platform"]["os information"] == value
    # per repeat and fold, as openml-python keeps them
    for name, repeats in oracle.fold_evaluations.items():
        detail = json.loads(str(doc.graph.value(scores[name], RDF_value())))
        got = {(f["repeat"], f["fold"]): f["value"] for f in detail["folds"]}
        want = {(r, f): v for r, folds in repeats.items() for f, v in folds.items()}
        assert got == want


def RDF_value():
    from rdflib.namespace import RDF

    return RDF.value


def _as_json(xml: bytes) -> bytes:
    """The description as OpenML's JSON API writes it (its XML without the oml: prefix)."""
    ns = "{http://openml.org/openml}"

    def walk(e: ET.Element):
        children = list(e)
        if not children:
            return (e.text or "").strip()
        out: dict = {}
        for c in children:
            key = c.tag.replace(ns, "")
            value = walk(c)
            if c.attrib:
                value = {**value, **c.attrib} if isinstance(value, dict) else value
            out.setdefault(key, []).append(value)
        return {k: v[0] if len(v) == 1 and k not in ("parameter_setting", "evaluation") else v
                for k, v in out.items()}  # fmt: skip

    root = ET.fromstring(xml)
    run = walk(root)
    return json.dumps({"run": run}).encode()


def test_the_json_form_reads_the_same(oracle) -> None:
    (from_xml,) = load_source("description.xml", FIXTURE.read_bytes())
    (from_json,) = load_source("run-100.json", _as_json(FIXTURE.read_bytes()))
    assert graph_to_dict(from_json.graph, from_json.subject) == graph_to_dict(
        from_xml.graph, from_xml.subject
    )
    assert set(_scores(from_json)) == set(oracle.evaluations) | set(oracle.fold_evaluations)


def test_import_command_is_idempotent(tmp_path: Path) -> None:
    store = str(tmp_path / "kg")
    assert main(["import", "openml", str(FIXTURE), "--store", store]) == 0
    assert main(["import", "openml", str(FIXTURE.parent), "--store", store, "-v"]) == 0


def test_hostile_or_broken_xml_is_refused_with_its_place() -> None:
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]>'
        b'<oml:run xmlns:oml="http://openml.org/openml"><oml:run_id>&b;</oml:run_id></oml:run>'
    )
    with pytest.raises(LoadError, match="DTD"):
        load_source("bomb.xml", bomb, "openml")
    broken = FIXTURE.read_bytes().replace(b"</oml:flow_name>", b"</oml:flow>", 1)
    with pytest.raises(LoadError) as err:
        load_source("description.xml", broken, "openml")
    assert err.value.line == 8
