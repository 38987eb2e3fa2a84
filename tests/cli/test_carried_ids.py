"""One identifier a user can carry (issue 41).

Before: ``compare --save`` printed the comparison's IRI, which ``export crate`` and
``freeze`` refused ("no document …": they took only document ids), and nothing listed
what a store holds. Now every saving command prints a short id that every other command
resolves through one function (``reprokg.store.catalog.resolve``), and ``reprokg list``
shows kind, id, title and date.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from reprokg.cli import main
from tests.conftest import REPO

#: the module's store is made by one ``compare --save`` (about 10 s on a shared machine)
pytestmark = pytest.mark.slow

RUNS = REPO / "examples" / "runs"
COMPARE = [
    "compare",
    "--qrels",
    str(RUNS / "qrels.toy"),
    "--orig-base",
    str(RUNS / "annotated_run_example.txt"),
    "--rep-base",
    str(RUNS / "reproduced_run.txt"),
    "--save",
]
#: "saved the comparison as 633600da (https://w3id.org/reprokg/id/comparison/…)"
SAVED = re.compile(r"saved the comparison as ([0-9a-f]{8,}) \((https://\S+/comparison/\S+)\)")


def _run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, str]:
    """A store with two runs and a saved comparison: (store, printed id, printed IRI); the
    tests only read it."""
    store = str(tmp_path_factory.mktemp("ids") / "kg")
    err_text = io.StringIO()
    with contextlib.redirect_stderr(err_text), contextlib.redirect_stdout(io.StringIO()):
        code = main([*COMPARE, "--store", store])
    err = err_text.getvalue()
    assert code == 0, err
    found = SAVED.search(err)
    assert found, err
    return store, found.group(1), found.group(2)


def test_a_saved_comparisons_printed_id_works_in_export_crate_and_freeze(
    saved: tuple[str, str, str], tmp_path: Path, capsys: Any
) -> None:
    store, short, iri = saved
    for ident in (short, iri):  # the id and the IRI it printed (main refused both)
        out = tmp_path / f"crate-{len(ident)}"
        code, _, err = _run(capsys, "export", "crate", ident, "-o", str(out), "--store", store)
        assert code == 0, err
        crate = json.loads((out / "ro-crate-metadata.json").read_text())
        assert any(e.get("@id") == iri for e in crate["@graph"]), "the crate is the comparison's"
    frozen = tmp_path / "frozen"
    code, out, err = _run(capsys, "freeze", short, "-o", str(frozen), "--store", store)
    assert code == 0, err
    assert f"froze comparison {iri}" in err
    assert (frozen / "datacite.xml").is_file()


def test_the_id_works_in_export_query_and_passport(
    saved: tuple[str, str, str], capsys: Any
) -> None:
    store, short, iri = saved
    code, out, err = _run(capsys, "export", short, "--store", store)
    assert code == 0, err
    assert iri.rsplit("/", 1)[-1] in out  # the comparison's document, in Turtle
    code, out, err = _run(capsys, "passport", short, "--store", store, "--format", "json")
    assert code == 0, err
    assert json.loads(out)["paper"] == iri  # the passport of what the id is about


def test_a_feature_discard_id_binds_a_named_querys_iri_parameter(
    tmp_path: Path, capsys: Any
) -> None:
    store = str(tmp_path / "kg")
    source = REPO / "examples" / "intrinsic_dimension" / "sagn_sle_yelp.yaml"
    code, out, err = _run(capsys, "load", "--store", store, str(source))
    assert code == 0, err
    short = re.search(r"added\s+([0-9a-f]{8,})\s+feature-discard", out)
    assert short, out
    argv = ["query", "--store", store, "--name", "discarded-features", "--format", "json"]
    code, out, err = _run(capsys, *argv, "--param", f"experiment={short.group(1)}")
    assert code == 0, err
    rows = json.loads(out)["results"]["bindings"]
    # the example's discard curve: proportions 0.1 … (the YAML's steps), one row each
    steps = source.read_text().count("proportion:")
    assert steps and len(rows) == steps


def test_an_unknown_id_says_what_was_expected(saved: tuple[str, str, str], capsys: Any) -> None:
    store, _, _ = saved
    code, _, err = _run(capsys, "export", "crate", "ffffffff", "-o", "x", "--store", store)
    assert code == 2
    assert "no document 'ffffffff'" in err


def test_list_shows_kind_id_title_and_date(saved: tuple[str, str, str], capsys: Any) -> None:
    store, short, iri = saved
    code, out, err = _run(capsys, "list", "--store", store)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["kind", "id", "title", "date"]
    # the comparison, the qrels and two runs: the four documents compare --save stored
    assert lines[-1] == "(4 documents)"
    comparison = [line for line in lines if line.startswith("comparison")]
    assert len(comparison) == 1 and short in comparison[0]
    code, out, _ = _run(capsys, "list", "--store", store, "--kind", "run", "--format", "json")
    data = json.loads(out)
    assert data["count"] == 2 and {d["kind"] for d in data["documents"]} == {"run"}
    assert {d["source"] for d in data["documents"]} == {
        "annotated_run_example.txt",
        "reproduced_run.txt",
    }
    code, out, _ = _run(capsys, "list", "--store", store, "reproduced")
    assert "reproduced_run.txt" in out and "(1 document)" in out


def test_list_pages_and_says_how_many_more(saved: tuple[str, str, str], capsys: Any) -> None:
    store, _, _ = saved
    code, out, _ = _run(capsys, "list", "--store", store, "--limit", "3")
    assert code == 0
    last = "(3 of 4 documents (1-3); next page: --offset 3; every one: --all)"
    assert out.splitlines()[-1] == last
    code, out, _ = _run(capsys, "list", "--store", store, "--limit", "3", "--offset", "3")
    assert out.splitlines()[-1] == "(1 of 4 documents (4-4))"
    code, out, _ = _run(capsys, "list", "--store", store, "--kind", "survey")
    assert out.strip().startswith("(no documents matching kind survey in the store")


def test_the_id_dereferences_on_the_web(saved: tuple[str, str, str]) -> None:
    from fastapi.testclient import TestClient

    from reprokg.core.settings import Settings, settings
    from reprokg.service.app import create_app
    from reprokg.store import open_store

    path, short, iri = saved
    with (
        open_store(path, read_only=True) as store,
        TestClient(create_app(Settings(access_log=False), store=store)) as client,
    ):
        res = client.get(f"/id/{short}", follow_redirects=False)
        assert res.status_code == 303
        assert res.headers["location"] == "/id/" + iri.removeprefix(settings().base)
        assert client.get("/id/ffffffff").status_code == 404
