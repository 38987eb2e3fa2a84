"""docs/ontology.md is generated from the ontology and must be up to date with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from reprokg.cli import main
from reprokg.ontology import reference as docs_gen
from tests.conftest import REPO

DOC = REPO / "docs" / "ontology.md"


def test_committed_reference_is_up_to_date() -> None:
    assert DOC.read_text(encoding="utf-8") == docs_gen.render(), (
        "docs/ontology.md is stale: run `reprokg docs` and commit it"
    )


@pytest.mark.slow
def test_reference_lists_terms_from_every_module_with_their_definitions() -> None:
    text = docs_gen.render()
    for module in sorted((REPO / "ontology").glob("*.ttl")):
        assert f"## Module `{module.name}`" in text
    assert "#### `rk:Audit` — audit" in text
    assert "| S1 | `rk:S1` | S1: dependency versions not documented |" in text
    assert "Is the exact version of dependencies not documented?" in text
    # the ID scheme is ordered D, S, R by number
    assert (
        text.index("| D9 |") < text.index("| S1 |") < text.index("| S10 |") < text.index("| R1 |")
    )


@pytest.mark.slow
def test_cli_check_and_write(tmp_path: Path, capsys) -> None:
    out = tmp_path / "ontology.md"
    assert main(["docs", "--output", str(out), "--check"]) == 1
    assert main(["docs", "--output", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == docs_gen.render()
    assert main(["docs", "--output", str(out), "--check"]) == 0
