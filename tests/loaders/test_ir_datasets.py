"""The ir_datasets catalogue bundled from the ``ir-datasets`` package's own metadata."""

from __future__ import annotations

import json
import tomllib
from importlib import util

import pytest

from reprokg.loaders import ir_datasets
from tests.conftest import REPO

DATA = REPO / "loaders" / "data"


def test_the_catalogue_is_the_packages_metadata_with_its_licence() -> None:
    """ir-datasets 0.6.3's ``etc/metadata.json`` lists 817 ids; its docs page states
    1,864,661 documents for ``nyt`` and 250 queries for ``trec-robust04``."""
    known = ir_datasets.catalogue()
    assert len(known) == 817
    assert known["nyt"]["docs"] == 1864661
    assert known["trec-robust04"]["queries"] == 250
    head = json.loads((DATA / "ir_datasets.json").read_text())
    assert head["source"].startswith("ir-datasets ")
    assert (DATA / head["licence"]).is_file()
    data = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    shipped = data["package-data"]["reprokg"]
    assert {"loaders/data/*.json", "loaders/data/LICENSE.*"} <= set(shipped)


def test_an_id_outside_the_catalogue_keeps_a_minted_node() -> None:
    assert ir_datasets.known_id("https://ir-datasets.com/not-a-dataset") is None
    assert "/id/collection/" in str(ir_datasets.collection_iri("not-a-dataset"))


@pytest.mark.skipif(util.find_spec("ir_datasets") is None, reason="ir-datasets not installed")
def test_the_refresh_script_writes_the_bundled_file(tmp_path) -> None:
    """Regenerated from the installed package, the catalogue is the bundled one (same
    version) or at least names the same kind of ids."""
    out = tmp_path / "c.json"
    assert ir_datasets._refresh(out) == 0
    assert "nyt" in json.loads(out.read_text())["datasets"]
