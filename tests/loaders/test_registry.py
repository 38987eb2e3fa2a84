"""Every loader is registered, and a broken loader fails loudly instead of vanishing."""

from __future__ import annotations

import ast
import contextlib
import io
from pathlib import Path

import pytest

from reprokg import loaders
from reprokg.cli import main
from reprokg.loaders.reading.contract import Loader, LoaderInfo
from tests.conftest import REPO


def _modules_defining_kind() -> set[str]:
    """``reprokg.loaders.X`` for every module under loaders/ that assigns ``INFO`` (its
    :class:`LoaderInfo`); a package's loader module is registered as the package."""
    found = set()
    for path in (REPO / "loaders").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assigns = any(
            isinstance(n, ast.Assign) and any(getattr(t, "id", None) == "INFO" for t in n.targets)
            for n in tree.body
        )
        if assigns:
            rel = path.relative_to(REPO / "loaders").with_suffix("")
            parts = list(rel.parts)
            if len(parts) > 1:  # loaders/ir_metadata/loader.py -> the package ir_metadata
                parts = parts[:1]
            found.add("reprokg.loaders." + ".".join(parts))
    return found


@pytest.mark.slow
def test_every_module_with_a_kind_is_registered() -> None:
    defined = _modules_defining_kind()
    assert "reprokg.loaders.qrels" in defined  # the one that was missing (issue 12)
    assert defined == set(loaders.LOADER_MODULES)


def test_the_type_checker_sees_every_registered_loader() -> None:
    """``TYPED_LOADERS`` (under TYPE_CHECKING in loaders/__init__.py) is what mypy checks
    against the Loader protocol: it must list the registered modules, in order."""
    tree = ast.parse((REPO / "loaders" / "__init__.py").read_text(encoding="utf-8"))
    [typed] = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.AnnAssign) and getattr(n.target, "id", None) == "TYPED_LOADERS"
    ]
    assert isinstance(typed.value, ast.Tuple)
    names = ["reprokg.loaders." + e.id for e in typed.value.elts if isinstance(e, ast.Name)]
    assert names == list(loaders.LOADER_MODULES)


def test_every_registered_loader_exposes_the_loader_api() -> None:
    found = loaders.loaders()
    assert set(found) == {
        "run",
        "rocrate",
        "mlflow",
        "openml",
        "mlrc",
        "audit",
        "stability",
        "feature-discard",
        "survey",
        "gk2018",
        "pwc-checklist",
        "grsi",
        "artifact-evaluation",
        "artifact-availability",
        "rescience",
        "re-execution",
        "qrels",
    }
    for kind, module in found.items():
        assert isinstance(module, Loader) and isinstance(module.INFO, LoaderInfo)
        assert kind == module.INFO.kind
        assert module.INFO.name.startswith("reprokg.loaders.")


def test_a_module_without_the_contract_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Checked structurally when the registry imports it: a module that lacks ``INFO``
    (here the source-reading helpers, which have no loader) is named in a TypeError."""
    monkeypatch.setattr(loaders, "LOADER_MODULES", ("reprokg.loaders.reading.source",))
    loaders.loaders.cache_clear()
    try:
        with pytest.raises(TypeError, match=r"reprokg\.loaders\.reading\.source does not satisfy"):
            loaders.loaders()
    finally:
        monkeypatch.undo()
        loaders.loaders.cache_clear()


def test_documents_are_built_by_the_loader_info() -> None:
    """``INFO.document`` writes kind, loader name and version (the provenance ingest
    stores) from the one LoaderInfo, and keeps the loader's lists (no copy)."""
    from rdflib import Graph

    info = LoaderInfo(kind="audit", name="reprokg.loaders.audit", version="7")
    messages: list = []
    doc = info.document(Graph(), source_name="a.yaml", source_bytes=b"x", source_key="k")
    assert (doc.kind, doc.loader, doc.loader_version) == ("audit", "reprokg.loaders.audit", "7")
    doc = info.document(
        Graph(), source_name="a.yaml", source_bytes=b"x", source_key="k", messages=messages
    )
    assert doc.messages is messages


def test_a_broken_loader_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        loaders, "LOADER_MODULES", (*loaders.LOADER_MODULES, "reprokg.loaders.does_not_exist")
    )
    loaders.loaders.cache_clear()
    try:
        with pytest.raises(ModuleNotFoundError):
            loaders.loaders()
    finally:
        monkeypatch.undo()
        loaders.loaders.cache_clear()


@pytest.mark.parametrize("name", ["core17.txt", "core18.txt", "robust05.txt"])
def test_validate_kind_qrels_on_the_real_qrels(shared_data: Path, name: str) -> None:
    path = shared_data / "trec" / "qrels" / name
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["validate", "--kind", "qrels", "--format", "json", str(path)])
    assert code == 0, out.getvalue()
    import json

    [report] = json.loads(out.getvalue())
    assert report["conforms"] and report["source"].endswith(name)
    # the one warning: the file names no collection (a first '# ir_datasets:' line)
    assert [r["path"] for r in report["results"] if r["severity"] == "Warning"] == ["ir_datasets"]


def test_import_takes_the_formats_the_loaders_name() -> None:
    """``reprokg import FORMAT``'s formats are the registry's (``INFO.formats``), listed in
    its help with what each reads; the CLI keeps no table of its own."""
    import reprokg.cli.exchange as exchange_cli

    assert not hasattr(exchange_cli, "IMPORT_FORMATS")
    formats = loaders.import_formats()
    assert set(formats) == {"ir_metadata", "mlflow", "openml", "rocrate", "tirex"}
    assert formats["tirex"] is formats["ir_metadata"] is loaders.loader_for("run")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main(["import", "--help"])
    shown = "".join(out.getvalue().split())  # argparse wraps lines (and after hyphens)
    for fmt, mod in formats.items():
        assert "".join(f"{fmt}: {mod.INFO.reads}".split()) in shown
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit):
        main(["import", "nosuch", "x"])
    choices = err.getvalue().split("choose from ", 1)[1].split(")")[0]
    assert [c.strip(" '") for c in choices.split(",")] == list(formats)


def test_folder_and_database_capabilities_are_declared_by_the_loaders() -> None:
    """An MLflow store and a crate folder are read by their loaders as one input; an OpenML
    or ir_metadata folder is a folder of files; only MLflow opens a database file."""
    from reprokg.loaders.reading.contract import DatabaseLoader, FolderLoader

    found = loaders.import_formats()
    folders = {f for f, m in found.items() if isinstance(m, FolderLoader)}
    databases = {f for f, m in found.items() if isinstance(m, DatabaseLoader)}
    assert folders == {"mlflow", "rocrate"}
    assert databases == {"mlflow"}
