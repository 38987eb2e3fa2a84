"""The graph the studies are recomputed from, built once per test process from the real data.

Every source goes through its loader (the same documents ``reprokg load`` makes) into a
temporary embedded store: the 374 consolidated SIGGRAPH reviews, the Gundersen & Kjensmo
evaluations, the Papers with Code checklist, the GRSI stamp list, the four example
audits, and subsets of the Dataverse R re-execution logs and of ReproDB's artifacts. The
documents are written in one transaction without validation (the loaders' validation is
tested with the loaders); write-back tests use ``ingest`` itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import REPO, need

SIGGRAPH = Path("replicability_graphics/consolidatedData.json")
PER_PAPER = Path("replicability_graphics/per_paper")
GK_CSV = Path("surveys/gundersen_kjensmo_2018/data/evaluations.csv")
PWC_CSV = Path("surveys/pwc_code_checklist_neurips2019/notebooks/code_checklist-neurips2019.csv")
GRSI_JSON = Path("surveys/grsi_isenberg/publication_data/grsi_paper_data.json")
AUDITS = REPO / "examples" / "audits"
#: small real subsets of the evidence sources (the full files are checked by their own tests)
TRISOVIC_SUBSET = REPO / "tests" / "studies" / "data" / "trisovic_subset"
REPRODB_SUBSET = REPO / "tests" / "studies" / "data" / "reprodb_subset" / "artifacts.json"

_CACHE: dict[str, Any] = {}


def sources(shared_data: Path, per_paper: bool = False) -> list[Path]:
    files = [shared_data / p for p in (SIGGRAPH, GK_CSV, PWC_CSV, GRSI_JSON)]
    for f in files:
        need(f.is_file(), f"{f} is missing")
    if per_paper:
        files.append(shared_data / PER_PAPER)
    return [*files, AUDITS, TRISOVIC_SUBSET, REPRODB_SUBSET]


def load_into(store: Any, paths: list[Path]) -> int:
    """Every document of ``paths`` written to ``store`` in one transaction; their number."""
    from reprokg.loaders.files import load_path
    from reprokg.store.base import DocumentWrite

    writes = []
    for p in paths:
        for doc in load_path(p):
            writes.append(DocumentWrite(doc.iri, list(doc.graph)))
    store.write_documents(writes)
    return len(writes)


def studies_store(shared_data: Path, tmp: Path) -> Any:
    """The embedded store holding every study's data (built once per process)."""
    if "store" not in _CACHE:
        from reprokg.store import open_store

        store = open_store(tmp)
        load_into(store, sources(shared_data))
        _CACHE["store"] = store
    return _CACHE["store"]
