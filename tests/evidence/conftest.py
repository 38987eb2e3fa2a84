"""A store holding every evidence source of ../shared/data (built once per session)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

#: the evidence folders, as docs/evidence.md loads them
EVIDENCE = (
    "artifact_evaluation",
    "surveys/rescience/journal_bib",
    "surveys/trisovic_dataverse_r/analysis/data",
)
#: the other evidence sources: MLRC headers (they name originals), GRSI stamps (the surveys
#: hold reviews, not assessments, and are left out: they only add unassessed papers)
RECORDS = ("surveys/rescience/mlrc_metadata", "surveys/grsi_isenberg")


@pytest.fixture(scope="session")
def field_store(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every evidence source of ../shared/data in one store (~1 min)."""
    from reprokg.cli import main

    d = tmp_path_factory.mktemp("field") / "store"
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(
            ["evidence", "load", "--store", str(d), *(str(shared_data / p) for p in EVIDENCE)]
        )
        assert code == 0, out.getvalue()[-2000:]
        code = main(["load", "--store", str(d), *(str(shared_data / p) for p in RECORDS)])
    assert code == 0, out.getvalue()[-2000:]
    return d
