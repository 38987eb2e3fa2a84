"""The shipped survey examples (``examples/survey``) load through the registry and validate.

Counts are those the examples README states (a third of the 374 papers, 19 site files,
the 400-row GK2018 CSV, the 221-row Papers with Code checklist, 20 GRSI stamps), checked
against the example files read with json/csv here.
"""

from __future__ import annotations

import csv
import json
from importlib import resources
from pathlib import Path

import pytest

from reprokg.core.resources import data_dir
from reprokg.loaders.files import SourceWalk
from reprokg.validation.batching import validate_documents


def _docs():
    with resources.as_file(data_dir("examples").joinpath("survey")) as root:
        root = Path(root)
        walk = SourceWalk([root], names=(root, "examples/survey/"))
        out = list(walk.documents())
        assert walk.errors == []
        subset = json.loads((root / "consolidatedData-subset.json").read_text(encoding="utf-8"))
        n_site = len(list((root / "per_paper").glob("*/*.json")))
        with open(root / "gk2018" / "evaluations.csv", encoding="utf-8", newline="") as fh:
            n_gk = len(list(csv.DictReader(fh)))
        pwc = root / "pwc-checklist-2019" / "code_checklist-neurips2019.csv"
        with open(pwc, encoding="utf-8", newline="") as fh:
            n_pwc = len(list(csv.DictReader(fh)))
        grsi = root / "grsi" / "grsi_paper_data-subset.json"
        n_grsi = len(json.loads(grsi.read_text(encoding="utf-8")))
    return out, len(subset), n_site, n_gk, n_pwc, n_grsi


@pytest.mark.slow
def test_examples_load_and_validate():
    docs, n_subset, n_site, n_gk, n_pwc, n_grsi = _docs()
    assert (n_subset, n_site, n_gk, n_pwc, n_grsi) == (125, 19, 400, 221, 20)
    by_kind: dict[str, int] = {}
    for d in docs:
        by_kind[d.kind] = by_kind.get(d.kind, 0) + 1
    assert by_kind == {
        "survey": n_subset + n_site,
        "gk2018": n_gk,
        "pwc-checklist": n_pwc,
        "grsi": n_grsi,
    }
    reports = validate_documents(docs)
    assert [r.to_text() for r in reports if not r.conforms] == []


def test_licence_notices_ship_with_the_examples():
    root = data_dir("examples").joinpath("survey")
    for name in ("LICENSE-CeCILL-B.txt", "LICENSE-BSD-3-per_paper.txt", "README.md"):
        assert root.joinpath(name).is_file(), name
    for folder in ("gk2018", "pwc-checklist-2019", "grsi"):
        assert root.joinpath(folder).joinpath("LICENSE-MIT").is_file(), folder
