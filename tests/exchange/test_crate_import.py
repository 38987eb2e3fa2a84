"""RO-Crate import: real crates of the RO-Crate specification and the Workflow Run Crate
profiles become validated runs with PRIMAD, and crate -> reprokg -> crate keeps every PRIMAD
field. Expected values are read from the crates' JSON here, not from the loader."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from reprokg.cli import main
from reprokg.core.errors import LoadError
from reprokg.core.namespaces import RK
from reprokg.loaders import load_source
from reprokg.loaders.importers import import_path
from reprokg.loaders.ir_metadata.export import graph_to_dict
from reprokg.measures.primad import COMPONENTS, component_values
from reprokg.validation.engine import validate_document
from tests.exchange.conftest import CRATES, documents_by_kind

FOREIGN = [
    "process-run-example1",
    "workflow-run-example2",
    "provenance-revsort",
    "snakemake-img-convert",
]


def _meta(name: str) -> dict:
    return json.loads((CRATES / name / "ro-crate-metadata.json").read_text())


def _actions(meta: dict) -> list[dict]:
    return [
        e
        for e in meta["@graph"]
        if set(e["@type"] if isinstance(e["@type"], list) else [e["@type"]])
        & {"CreateAction", "ActivateAction", "UpdateAction"}
    ]


@pytest.mark.parametrize("name", FOREIGN)
def test_real_crates_become_validated_runs(name: str) -> None:
    docs = import_path(CRATES / name, "rocrate")
    assert len(docs) == len(_actions(_meta(name))) > 0
    for doc in docs:
        assert doc.kind == "run" and doc.loader == "reprokg.loaders.rocrate"
        report = validate_document(doc)
        assert report.conforms, report.to_text()


def test_process_run_crate_primad() -> None:
    """The specification's ImageMagick conversion: instrument, agent, input, end time."""
    meta = _meta("process-run-example1")
    ents = {e["@id"]: e for e in meta["@graph"]}
    (action,) = _actions(meta)
    tool = ents[action["instrument"]["@id"]]
    agent = ents[action["agent"]["@id"]]
    (doc,) = import_path(CRATES / "process-run-example1", "rocrate")
    tree = graph_to_dict(doc.graph, doc.subject)
    assert tree["tag"] == action["name"]
    assert tree["implementation"]["name"] == tool["name"]
    assert tree["implementation"]["version"] == tool["softwareVersion"]
    assert tree["implementation"]["source"]["repository"] == tool["url"]
    assert tree["actor"] == {"name": agent["name"], "orcid": agent["@id"].rsplit("/", 1)[1]}
    obj = ents[action["object"]["@id"]]
    assert tree["data"]["other"] == [{"name": obj["name"]}]
    ends = [str(o) for o in doc.graph.objects(doc.subject, None) if "T" in str(o)]
    assert action["endTime"] in ends


def test_workflow_run_parameters_are_the_method() -> None:
    meta = _meta("workflow-run-example2")
    ents = {e["@id"]: e for e in meta["@graph"]}
    (action,) = _actions(meta)
    pvs = [ents[o["@id"]] for o in action["object"] if ents[o["@id"]]["@type"] == "PropertyValue"]
    (doc,) = import_path(CRATES / "workflow-run-example2", "rocrate")
    tree = graph_to_dict(doc.graph, doc.subject)
    assert tree["method"]["parameters"] == {pv["name"]: pv["value"] for pv in pvs}
    assert "ComputationalWorkflow" in tree["implementation"]["type"]


def test_container_image_and_environment_are_the_platform() -> None:
    meta = _meta("snakemake-img-convert")
    docs = import_path(CRATES / "snakemake-img-convert", "rocrate")
    trees = [graph_to_dict(d.graph, d.subject) for d in docs]
    with_image = [a for a in _actions(meta) if a.get("containerImage")]
    assert len([t for t in trees if "container image" in t.get("platform", {})]) == len(with_image)


def test_a_crate_without_an_execution_is_refused() -> None:
    with pytest.raises(LoadError, match="records no execution"):
        import_path(CRATES / "spec-rainfall", "rocrate")


def test_located_errors() -> None:
    with pytest.raises(LoadError) as err:
        load_source(
            "ro-crate-metadata.json",
            b'{"@context": "https://w3id.org/ro/crate/1.1/context",\n "@graph": [}',
            "rocrate",
        )
    assert err.value.line == 2
    with pytest.raises(LoadError, match="@id") as err:
        load_source("ro-crate-metadata.json", b'{"@graph": [{"name": "x"}]}', "rocrate")
    assert err.value.field == "@graph[0]"


def test_folder_zip_and_file_give_the_same_documents(tmp_path: Path) -> None:
    src = CRATES / "provenance-revsort"
    z = tmp_path / "crate.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.write(src / "ro-crate-metadata.json", "revsort/ro-crate-metadata.json")
        zf.writestr("revsort/README.txt", "payload")
    a = import_path(src, "rocrate")
    b = import_path(z, "rocrate")
    c = load_source("x.json", (src / "ro-crate-metadata.json").read_bytes(), "rocrate")
    assert [d.iri for d in a] == [d.iri for d in b] == [d.iri for d in c]


def test_import_is_idempotent(tmp_path: Path) -> None:
    store = tmp_path / "kg"
    args = ["import", "rocrate", str(CRATES / "provenance-revsort"), "--store", str(store)]
    assert main([*args, "--format-out", "json"]) == 0
    assert main([*args, "-v"]) == 0
    from reprokg.store import open_store

    with open_store(store, read_only=True) as s:
        assert len(documents_by_kind(s)["run"]) == 3


def _primad_by_tag(store_path: Path) -> dict[str, dict]:
    from reprokg.store import open_store

    out = {}
    with open_store(store_path, read_only=True) as s:
        for g in documents_by_kind(s).get("run", []):
            graph = s.get_document(g)
            for run in graph.subjects(predicate=None, object=RK.Run):
                tag = str(graph.value(run, RK.runTag))
                out[tag] = component_values(graph, run)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", ["process-run-example1", "provenance-revsort"])
def test_crate_to_reprokg_to_crate_keeps_every_primad_field(name: str, tmp_path: Path) -> None:
    """Import a real crate, export each run as a crate, import that: the same PRIMAD (every
    component compared deeply, PRIMAD's own comparison), from the PropertyValues alone."""
    first, second = tmp_path / "kg1", tmp_path / "kg2"
    assert main(["import", "rocrate", str(CRATES / name), "--store", str(first)]) == 0
    before = _primad_by_tag(first)
    from reprokg.store import open_store

    with open_store(first, read_only=True) as s:
        runs = documents_by_kind(s)["run"]
    for i, g in enumerate(runs):
        out = tmp_path / f"crate-{i}"
        assert main(["export", "crate", g, "-o", str(out), "--store", str(first)]) == 0
        # the YAML copy is for people; the PRIMAD must come back from the metadata alone
        shutil.rmtree(out / "runs", ignore_errors=True)
        assert main(["import", "rocrate", str(out), "--store", str(second)]) == 0
    after = _primad_by_tag(second)
    assert set(after) == set(before)
    for tag in before:
        for _letter, key, _pred in COMPONENTS:
            assert after[tag][key] == before[tag][key], (tag, key)


@pytest.mark.slow
def test_our_comparison_crate_reads_back_as_its_runs(result_store: Path, tmp_path: Path) -> None:
    """The runs of a stored comparison, exported and imported: the same PRIMAD as stored."""
    from reprokg.store import open_store

    with open_store(result_store, read_only=True) as s:
        comparison = documents_by_kind(s)["comparison"][0]
        g = s.get_document(comparison)
        runs = [
            (o, s.get_document(d))
            for p in (RK.originalRun, RK.reproducingRun)
            for o in g.objects(None, p)
            for d in documents_by_kind(s)["run"]
            if (o, None, RK.Run) in s.get_document(d)
        ]
    assert len(runs) == 2
    out = tmp_path / "crate"
    assert main(["export", "crate", comparison, "-o", str(out), "--store", str(result_store)]) == 0
    docs = import_path(out, "rocrate")
    assert len(docs) == 2
    imported = sorted(repr(component_values(d.graph, d.subject)) for d in docs)
    stored = sorted(repr(component_values(rg, run)) for run, rg in runs)
    assert imported == stored


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    ["website_checklist_examples_assembled.yaml", "annotated_run_example.txt"],
)
def test_a_real_header_survives_crate_and_back(
    name: str, shared_data: Path, tmp_path: Path
) -> None:
    """The ir_metadata website's examples of all six components (and repro_eval's annotated
    run): loaded, exported as a crate, imported from it: every PRIMAD field the same, and
    the ir_metadata YAML the same, field for field."""
    src = shared_data / "ir_metadata" / name
    store = tmp_path / "kg"
    assert main(["load", "--store", str(store), str(src)]) == 0
    from reprokg.store import open_store

    with open_store(store, read_only=True) as s:
        (g,) = documents_by_kind(s)["run"]
        graph = s.get_document(g)
    (run,) = list(graph.subjects(predicate=None, object=RK.Run))
    out = tmp_path / "crate"
    assert main(["export", "crate", g, "-o", str(out), "--store", str(store)]) == 0
    shutil.rmtree(out / "runs")  # the PRIMAD must come back from the metadata alone
    (doc,) = import_path(out, "rocrate")
    before, after = component_values(graph, run), component_values(doc.graph, doc.subject)
    for _letter, key, _pred in COMPONENTS:
        assert before[key] is not None, key  # the example describes every component
        assert after[key] == before[key], key
    assert graph_to_dict(doc.graph, doc.subject) == graph_to_dict(graph, run)
