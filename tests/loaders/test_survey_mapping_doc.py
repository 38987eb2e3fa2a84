"""docs/survey-mapping.md lists every JSON key of both formats (the analytics reads it)."""

from __future__ import annotations

import json
from pathlib import Path

from reprokg.loaders import replicability_graphics as rg
from tests.conftest import REPO

DOC = REPO / "docs" / "survey-mapping.md"


def test_every_key_of_the_real_data_is_documented(shared_data: Path):
    text = DOC.read_text(encoding="utf-8")
    keys = set()
    for r in json.loads((shared_data / "replicability_graphics/consolidatedData.json").read_text()):
        keys |= set(r)
    for f in (shared_data / "replicability_graphics/per_paper").glob("*/*.json"):
        for v in json.loads(f.read_text(encoding="utf-8")):
            keys |= set(v)
    keys.discard("##")  # comments of the per-paper template
    assert len(keys) > 90
    missing = sorted(k for k in keys if f"`{k.replace('|', chr(92) + '|')}`" not in text)
    assert missing == []


def test_doc_tables_match_the_loader():
    assert rg.mapping_markdown() in DOC.read_text(encoding="utf-8")
