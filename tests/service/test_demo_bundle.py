"""The demo store the package ships (service/demo_bundle/) is the one the examples build."""

from __future__ import annotations

import gzip
import tarfile

import pyoxigraph as ox
import pytest

from reprokg.core.resources import data_dir
from reprokg.service import demo_bundle
from reprokg.service.demo import load_demo, prepare_demo
from reprokg.service.demo_bundle import BLOBS, BUNDLE, DUMP, TIME_PREDICATES, dump_lines
from reprokg.store import open_store

REBUILD = "stale demo bundle: rebuild it with `python -m reprokg.service.demo`"


def _canonical(lines: list[bytes]) -> set[ox.Quad]:
    """The quads without what says *when* they were stored (the times, and the ingest
    activity named by them), blank nodes canonicalised (RDFC-1.0)."""
    timed = {line for line in lines if any(p.encode() in line for p in TIME_PREDICATES)}
    ingest_activities = {line.split(b" ", 1)[0] for line in timed}
    kept = b"\n".join(
        b" ".join(b"<urn:x-ingest>" if t in ingest_activities else t for t in line.split(b" "))
        for line in lines
        if line not in timed
    )
    dataset = ox.Dataset(ox.parse(kept, ox.RdfFormat.N_QUADS))
    dataset.canonicalize(ox.CanonicalizationAlgorithm.RDFC_1_0)
    return set(dataset)


def _bundled_lines() -> list[bytes]:
    with data_dir(BUNDLE).joinpath(DUMP).open("rb") as fh:
        return gzip.decompress(fh.read()).splitlines()


def _bundled_blobs() -> set[str]:
    with (
        data_dir(BUNDLE).joinpath(BLOBS).open("rb") as fh,
        tarfile.open(fileobj=fh, mode="r:gz") as tar,
    ):
        return {m.name.rsplit("/", 1)[-1] for m in tar.getmembers() if m.isfile()}


@pytest.mark.slow
def test_the_bundle_holds_what_the_examples_build(tmp_path) -> None:
    with open_store(str(tmp_path / "kg")) as store:
        load_demo(store)
        built = dump_lines(store)
        blobs = {p.name for p in store.blob_dir.rglob("*") if p.is_file()}
    assert len(built) > 50_000  # every example, not an empty build
    assert _canonical(built) == _canonical(_bundled_lines()), REBUILD
    assert blobs == _bundled_blobs(), REBUILD


def test_the_first_demo_start_restores_the_bundle(tmp_path, monkeypatch) -> None:
    """No cache and no build: the store is the bundle, restored (load_demo never runs)."""

    def no_build(store):
        raise AssertionError("the demo was built, not restored")

    monkeypatch.setattr("reprokg.service.demo.load_demo", no_build)
    counts, requests = prepare_demo(str(tmp_path / "kg"), None)
    assert counts == demo_bundle.bundle_info()["counts"]
    assert "/docs" in requests
    with open_store(str(tmp_path / "kg")) as store:
        assert sorted(dump_lines(store)) == sorted(_bundled_lines())
        # the originals came too: the tour's run file is downloadable as it was loaded
        run = data_dir("examples").joinpath("runs/annotated_run_example.txt").read_bytes()
        import hashlib

        assert store.get_blob(hashlib.sha256(run).hexdigest()) == run
        rows = store.query("SELECT (COUNT(DISTINCT ?g) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }").rows
    assert int(rows[0][0]) >= 900


def test_a_bundle_of_another_version_is_not_used(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(demo_bundle, "__version__", "0.0.0-other")
    assert demo_bundle.bundle_info() is None
    with open_store(str(tmp_path / "kg")) as store:
        assert demo_bundle.restore_bundle(store) is None
