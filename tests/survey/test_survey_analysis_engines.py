"""The survey query is portable: remote engines give the same frame as the embedded store.

The analysis reaches a remote backend only through ``Store.query`` (SPARQL 1.1 Protocol),
so this runs the same SELECT on an Oxigraph server and on Virtuoso 7 over the consolidated
data and compares the typed frame with the embedded store's, row for row. (Virtuoso gave no
answer within 60 s while each query named every document graph in its dataset; it answers
since the dataset is the merge graph alone.)
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from reprokg.store.base import DocumentWrite
from reprokg.studies.registry import SIGGRAPH2020
from reprokg.survey import analysis as sa
from tests.conftest import need
from tests.engines import oxigraph_server, virtuoso_server  # noqa: F401 - fixtures
from tests.survey.test_survey_analysis import build_survey_store

pytestmark = [pytest.mark.slow, pytest.mark.engine]  # SPARQL engines started per module


def _clear(store: Any) -> None:
    for g in store.documents():
        store.delete_document(g)


@pytest.fixture(params=["oxigraph-server", "virtuoso"])
def remote(request: pytest.FixtureRequest, tmp_path: Path, shared_data: Path) -> Iterator[Any]:
    from reprokg.loaders import replicability_graphics as loader
    from reprokg.store import open_store

    src = shared_data / "replicability_graphics" / "consolidatedData.json"
    need(src.is_file(), "consolidatedData.json is missing")
    fixture = "oxigraph_server" if request.param == "oxigraph-server" else "virtuoso_server"
    url = request.getfixturevalue(fixture)
    store = open_store(url, blob_dir=tmp_path / "blobs")
    _clear(store)
    try:
        store.write_documents(
            [DocumentWrite(doc.iri, doc.graph) for doc in loader.load(src.read_bytes(), src.name)]
        )
        yield store
    finally:
        _clear(store)
        store.close()


def test_remote_engine_gives_the_embedded_frame(
    remote: Any, shared_data: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    embedded = build_survey_store(
        shared_data / "replicability_graphics", tmp_path_factory.mktemp("survey-store")
    )
    want = sa.paper_frame(embedded, "consolidated")
    got = sa.paper_frame(remote, "consolidated")
    pd.testing.assert_frame_equal(got, want)
    a = SIGGRAPH2020.run(remote).to_json()
    b = SIGGRAPH2020.run(embedded).to_json()
    assert list(a["tests"]) == list(b["tests"])
    for tid in b["tests"]:
        assert a["tests"][tid]["p"] == pytest.approx(b["tests"][tid]["p"], rel=1e-12)
        assert a["tests"][tid]["n"] == b["tests"][tid]["n"]
