"""Importers stay inside their input (issue 38): a symbolic link in a folder (MLflow store,
RO-Crate, tirex/ir_metadata, OpenML) or an archive that leads outside it is never
followed. Each outside file holds a secret that a reader following the link would store
(a valid source of its kind, so it would load); the secret must appear in no document, and
a warning must name the link. A link that stays inside the input still works."""

from __future__ import annotations

import io
import sqlite3
import zipfile
from pathlib import Path

import pytest

from reprokg.core.document import Document
from reprokg.core.errors import LoadError
from reprokg.loaders.files import SourceWalk
from reprokg.loaders.importers import import_path

SECRET = "TOP-SECRET-7f3a9c"
DATA = Path(__file__).parent / "data"
EXCHANGE = Path(__file__).parents[1] / "exchange" / "data"
TIREX = DATA / "tirex-tracker" / "ir_metadata.yml"
OPENML = EXCHANGE / "openml" / "description.xml"
CRATE = EXCHANGE / "crates" / "process-run-example1" / "ro-crate-metadata.json"


def _leaked(docs: list[Document]) -> bool:
    """Whether the secret is in any document's graph or kept source bytes."""
    return any(
        SECRET in d.graph.serialize(format="nt") or SECRET.encode() in d.source_bytes for d in docs
    )


def _named(skipped: list[LoadError], link: Path) -> bool:
    return any(e.source == str(link) and "outside the input" in str(e) for e in skipped)


# --------------------------------------------------------------------------- MLflow


def _mlflow_store(root: Path) -> Path:
    """A minimal MLflow file store (one experiment, one run) as ``mlflow`` lays it out."""
    run = root / "1" / "abc123"
    (run / "params").mkdir(parents=True)
    (run / "metrics").mkdir()
    (run / "tags").mkdir()
    (root / "1" / "meta.yaml").write_text("experiment_id: '1'\nname: exp\n")
    (run / "meta.yaml").write_text(
        "run_id: abc123\nexperiment_id: '1'\nstatus: 3\nstart_time: 1700000000000\n"
        "end_time: 1700000001000\nlifecycle_stage: active\nuser_id: someone\n"
    )
    (run / "params" / "seed").write_text("42")
    (run / "metrics" / "accuracy").write_text("1700000000500 0.9 0\n")
    return run


def test_mlflow_param_linked_outside_is_skipped_and_named(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    run = _mlflow_store(tmp_path / "mlruns")
    link = run / "params" / "x"
    link.symlink_to(secret)
    skipped: list[LoadError] = []
    docs = import_path(tmp_path / "mlruns", "mlflow", skipped)
    assert docs and not _leaked(docs)
    assert _named(skipped, link)


def test_mlflow_folder_linked_outside_is_skipped_and_named(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "params").mkdir(parents=True)
    (outside / "params" / "p").write_text(SECRET)
    run = _mlflow_store(tmp_path / "mlruns")
    link = run / "tags"
    link.rmdir()
    link.symlink_to(outside / "params", target_is_directory=True)
    skipped: list[LoadError] = []
    docs = import_path(tmp_path / "mlruns", "mlflow", skipped)
    assert docs and not _leaked(docs)
    assert _named(skipped, link)


def test_mlflow_link_inside_the_store_still_reads(tmp_path: Path) -> None:
    run = _mlflow_store(tmp_path / "mlruns")
    (run / "params" / "alias").symlink_to(run / "params" / "seed")
    skipped: list[LoadError] = []
    docs = import_path(tmp_path / "mlruns", "mlflow", skipped)
    assert skipped == []
    assert any('"alias"' in d.source_bytes.decode() for d in docs)


def test_a_symbolic_link_member_of_a_zip_is_refused() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("mlruns/1/meta.yaml", "experiment_id: '1'\nname: exp\n")
        info = zipfile.ZipInfo("mlruns/1/abc/params/x")
        info.external_attr = 0o120777 << 16  # a symbolic link, as `zip --symlinks` writes
        z.writestr(info, "/etc/passwd")
    from reprokg.loaders import load_source

    with pytest.raises(LoadError, match="symbolic link") as exc:
        load_source("store.zip", buf.getvalue(), "mlflow")
    assert "mlruns/1/abc/params/x" in str(exc.value)


def test_an_sqlite_log_linked_outside_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "in" / "mlflow.db"
    db.parent.mkdir()
    sqlite3.connect(db).close()
    db.write_bytes(db.read_bytes() or b"SQLite format 3\x00" + bytes(84))
    (tmp_path / "wal").write_text(SECRET)
    wal = db.with_name("mlflow.db-wal")
    wal.symlink_to(tmp_path / "wal")
    from reprokg.loaders.mlflow.sqlite import records_from_file

    with pytest.raises(LoadError, match="outside the input") as exc:
        records_from_file(db)
    assert exc.value.source == str(wal)


# --------------------------------------------------------------------------- RO-Crate


def test_crate_metadata_linked_outside_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.json"
    outside.write_text(CRATE.read_text().replace("Stian Soiland-Reyes", SECRET))
    assert SECRET in outside.read_text()
    crate = tmp_path / "crate"
    crate.mkdir()
    link = crate / "ro-crate-metadata.json"
    link.symlink_to(outside)
    with pytest.raises(LoadError, match="outside the input") as exc:
        import_path(crate, "rocrate")
    assert exc.value.source == str(link)
    assert SECRET not in str(exc.value)


def test_crate_metadata_linked_inside_still_reads(tmp_path: Path) -> None:
    crate = tmp_path / "crate"
    (crate / "meta").mkdir(parents=True)
    (crate / "meta" / "real.json").write_bytes(CRATE.read_bytes())
    (crate / "ro-crate-metadata.json").symlink_to(crate / "meta" / "real.json")
    assert import_path(crate, "rocrate")


# --------------------------------------------------------------------------- folder walks
# (tirex / ir_metadata and OpenML folders, and ``reprokg load``/``validate``)


def _outside_source(tmp_path: Path, fmt: str) -> Path:
    if fmt in ("run", "tirex"):
        text = TIREX.read_text().replace("dataset: toy", f"dataset: {SECRET}", 1)
        name = "ir_metadata.yml"
    else:
        text = OPENML.read_text().replace("Jan van Rijn", SECRET)
        name = "description.xml"
    assert SECRET in text
    out = tmp_path / "outside" / name
    out.parent.mkdir()
    out.write_text(text)
    return out


@pytest.mark.parametrize("kind", ["tirex", "openml"])
def test_folder_file_linked_outside_is_skipped_and_named(tmp_path: Path, kind: str) -> None:
    outside = _outside_source(tmp_path, kind)
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / outside.name).write_bytes((TIREX if kind == "tirex" else OPENML).read_bytes())
    link = folder / f"linked{outside.suffix}"
    link.symlink_to(outside)
    skipped: list[LoadError] = []
    docs = import_path(folder, kind, skipped)
    assert docs and not _leaked(docs)
    assert _named(skipped, link)


@pytest.mark.parametrize("kind", ["tirex", "openml"])
def test_folder_linked_outside_is_skipped_and_named(tmp_path: Path, kind: str) -> None:
    outside = _outside_source(tmp_path, kind)
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / outside.name).write_bytes((TIREX if kind == "tirex" else OPENML).read_bytes())
    link = folder / "sub"
    link.symlink_to(outside.parent, target_is_directory=True)
    skipped: list[LoadError] = []
    docs = import_path(folder, kind, skipped)
    assert docs and not _leaked(docs)
    assert _named(skipped, link)


def test_folder_links_inside_still_read(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    (folder / "real").mkdir(parents=True)
    (folder / "real" / "ir_metadata.yml").write_bytes(TIREX.read_bytes())
    (folder / "alias.yml").symlink_to(folder / "real" / "ir_metadata.yml")
    walk = SourceWalk([folder], "run")
    docs = list(walk.documents())
    assert walk.skipped == [] and walk.errors == []
    assert {Path(d.source_name).name for d in docs} == {"ir_metadata.yml", "alias.yml"}


def test_load_command_skips_and_names_a_link_outside(tmp_path: Path, capsys) -> None:
    """``reprokg import`` says which link it did not follow, on stderr."""
    from reprokg.cli import main

    outside = _outside_source(tmp_path, "run")
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "ir_metadata.yml").write_bytes(TIREX.read_bytes())
    (folder / "linked.yml").symlink_to(outside)
    store = tmp_path / "kg"
    assert main(["import", "tirex", str(folder), "--store", str(store)]) == 0
    err = capsys.readouterr().err
    assert f"skipped: {folder / 'linked.yml'}" in err and "outside the input" in err
