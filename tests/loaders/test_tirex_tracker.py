"""Standalone ir_metadata YAML as tirex-tracker writes it: sniffed, read, its producer recorded.

The fixture was written by tirex-tracker 0.2.24 itself (tests/loaders/data/tirex-tracker);
expected values are read from it with PyYAML, not with the loader under test. One test runs
the tracker (a test-only dependency) and loads what it writes now.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest
import yaml
from rdflib import Literal
from rdflib.namespace import PROV, RDF

from reprokg.core.namespaces import RK, SCHEMA
from reprokg.loaders import detect_kind, load_source
from reprokg.loaders.ir_metadata import loader as im
from tests.conftest import need

DATA = Path(__file__).parent / "data" / "tirex-tracker"
FIXTURE = DATA / "ir_metadata.yml"


def _producer(doc) -> tuple[str, str]:
    (sw,) = list(doc.graph.objects(doc.iri, PROV.wasAttributedTo))
    assert (sw, RDF.type, PROV.SoftwareAgent) in doc.graph
    assert (sw, RDF.type, SCHEMA.SoftwareApplication) in doc.graph
    return str(doc.graph.value(sw, SCHEMA.name)), str(doc.graph.value(sw, SCHEMA.softwareVersion))


def test_sniffed_by_name_and_by_layout() -> None:
    data = FIXTURE.read_bytes()
    head = data[:4096].decode()
    # keys sorted: neither schema version nor platform is in the first 4 KB
    assert "schema version" not in head and "\nplatform:" not in head
    assert detect_kind("ir_metadata.yml", head) == "run"
    assert detect_kind("tracked.yaml", head) == "run"  # by the tracker's layout alone
    assert detect_kind("notes.txt", head) is None


def test_producer_and_fields() -> None:
    data = FIXTURE.read_bytes()
    plain = yaml.safe_load(data)
    (doc,) = load_source("ir_metadata.yml", data)
    assert doc.kind == "run"
    assert _producer(doc) == ("tirex-tracker", str(plain["platform"]["software"]["tirex-tracker"]))
    impl = doc.graph.value(doc.subject, RK.implementation)
    cmd = doc.graph.value(doc.graph.value(impl, RK.executable), RK.command)
    assert shlex.split(str(cmd)) == plain["implementation"]["executable"]["cmd"]
    cpu = doc.graph.value(
        doc.graph.value(doc.graph.value(doc.subject, RK.platform), RK.hardware), RK.cpu
    )
    assert doc.graph.value(cpu, RK.model) == Literal(plain["platform"]["hardware"]["cpu"]["model"])
    assert doc.graph.value(cpu, RK.numberOfCores) == Literal(
        plain["platform"]["hardware"]["cpu"]["number of cores"]
    )
    assert (doc.subject, RK.schemaVersion, Literal("0.2")) in doc.graph
    assert any(m.path == "implementation.executable.cmd" for m in doc.messages)


def test_validates_and_loads_idempotently(tmp_path: Path) -> None:
    from reprokg.ingest import ingest_paths
    from reprokg.store import open_store

    with open_store(tmp_path / "kg") as store:
        first = ingest_paths(store, [FIXTURE])
        again = ingest_paths(store, [FIXTURE])
        rows = store.query(
            "SELECT ?v WHERE { ?d <http://www.w3.org/ns/prov#wasAttributedTo> ?s . "
            "?s <http://schema.org/softwareVersion> ?v }"
        ).rows
    assert [d.status for d in first.documents] == ["added"]
    assert [d.status for d in again.documents] == ["unchanged"]
    assert [str(r[0]) for r in rows] == ["0.2.24"]


def test_header_form_records_no_producer(shared_data: Path) -> None:
    """repro_eval's run-file headers name no producer: nothing is invented."""
    data = (shared_data / "ir_metadata" / "annotated_run_example.txt").read_bytes()
    (doc,) = im.load(data, "annotated_run_example.txt")
    assert list(doc.graph.objects(doc.iri, PROV.wasAttributedTo)) == []


def test_what_the_tracker_writes_now(tmp_path: Path) -> None:
    try:
        installed = version("tirex-tracker")
    except PackageNotFoundError:
        need(False, "tirex-tracker (test extra) is not installed")
        return
    script = (
        "from tirex_tracker import ExportFormat, tracking\n"
        "with tracking(export_format=ExportFormat.IR_METADATA, "
        "export_file_path='out.yml'):\n    sum(range(1000))\n"
    )
    subprocess.run([sys.executable, "-c", script], cwd=tmp_path, check=True, timeout=120)
    (doc,) = load_source("out.yml", (tmp_path / "out.yml").read_bytes())
    assert _producer(doc) == ("tirex-tracker", installed)
    from reprokg.validation.engine import validate_document

    assert validate_document(doc).conforms


@pytest.mark.parametrize("cmd", ["python3 run.py", ["python3", "my script.py", "--k=1"]])
def test_command_as_text_or_list(cmd) -> None:
    text = yaml.safe_dump({"implementation": {"executable": {"cmd": cmd}}, "tag": "t"})
    (doc,) = im.load(text.encode(), "meta.yaml", assume_yaml=True)
    impl = doc.graph.value(doc.subject, RK.implementation)
    got = str(doc.graph.value(doc.graph.value(impl, RK.executable), RK.command))
    assert (shlex.split(got) if isinstance(cmd, list) else got) == cmd
