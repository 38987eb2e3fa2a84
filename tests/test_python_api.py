"""The Python API (``reprokg.api``, docs/python.md) is the command line's work in Python.

docs/python.md's ``python`` cells are run as written, in order, in one namespace in a
folder of their own (as a notebook runs them), and what they computed is held against the
command line's ``--format json`` of the same command on the same files and store, run as a
separate process: the API and the CLI must agree, number for number.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO

PAGE = REPO / "docs" / "python.md"
RUNS = "examples/runs"
DOI = "10.1007/978-3-030-15712-8_26"
STUDY = "Illustrative stability study in the design of seed 003 (metric-based few-shot learning)"


def cells(text: str) -> list[str]:
    """The page's ```python blocks, in order."""
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


@pytest.fixture(scope="module")
def notebook(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """The namespace after every cell ran, and the folder they ran in (its ``kg`` store
    closed by the last cell)."""
    folder = tmp_path_factory.mktemp("notebook")
    (folder / "examples").symlink_to(REPO / "examples")
    namespace: dict[str, Any] = {"__name__": "__notebook__"}
    here = Path.cwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for i, cell in enumerate(cells(PAGE.read_text(encoding="utf-8")), 1):
                exec(compile(cell, f"{PAGE.name}, python cell {i}", "exec"), namespace)
    finally:
        os.chdir(here)
    return namespace, folder


def cli(folder: Path, *args: str) -> Any:
    """``reprokg ARGS`` run as its own process in ``folder``: its JSON, or its text."""
    env = {**os.environ, "PYTHONPATH": str(REPO.parent)}
    env.pop("REPROKG_STORE", None)
    proc = subprocess.run(
        [sys.executable, "-m", "reprokg", *args],
        capture_output=True,
        text=True,
        cwd=folder,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout) if "json" in args else proc.stdout


def as_json(value: Any) -> Any:
    """What the command writes of ``value`` (``json.dumps``, read back)."""
    return json.loads(json.dumps(value, default=str))


# ------------------------------------------------------------------ the surface, quickly


def test_the_page_has_the_walk_through() -> None:
    """Every API function is named on the page, and there are cells to run."""
    import reprokg

    text = PAGE.read_text(encoding="utf-8")
    assert len(cells(text)) >= 8
    missing = [name for name in reprokg.API if f"reprokg.{name}(" not in text]
    assert not missing, f"API functions docs/python.md does not show: {missing}"


def test_import_reprokg_gives_the_api_and_keeps_the_packages() -> None:
    import reprokg
    import reprokg.api
    import reprokg.stability

    assert sorted(reprokg.__all__) == sorted(["__version__", *reprokg.API])
    assert sorted(reprokg.api.__all__) == sorted(reprokg.API)
    for name in reprokg.API:
        function = getattr(reprokg, name)
        assert function is getattr(reprokg.api, name) and function.__doc__, name
        assert name in dir(reprokg)
    # the API's names shadow no package: ``reprokg.stability`` is still the analysis package
    assert reprokg.stability.__name__ == "reprokg.stability"
    with pytest.raises(AttributeError, match="no attribute 'nothing_of_ours'"):
        reprokg.nothing_of_ours  # noqa: B018


@pytest.mark.slow
def test_query_refuses_what_is_not_one_query(tmp_path: Path) -> None:
    import reprokg
    from reprokg.core.errors import UsageError

    with reprokg.open_store(":memory:") as store:
        with pytest.raises(UsageError, match="not both or neither"):
            reprokg.query(store)
        with pytest.raises(UsageError, match="not both or neither"):
            reprokg.query(store, "ASK {}", name="find-baselines")
        assert reprokg.query(store, "ASK { ?s ?p ?o }")["boolean"].tolist() == [False]
        with pytest.raises(UsageError, match="answers a graph"):
            reprokg.query(store, "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }")


def test_open_store_read_only_refuses_a_missing_store(tmp_path: Path) -> None:
    import reprokg
    from reprokg.core.errors import StoreError

    with pytest.raises(StoreError, match="no store at"):
        reprokg.open_store(tmp_path / "typo", read_only=True)
    assert not (tmp_path / "typo").exists()


# ------------------------------------------------------- the page's cells against the CLI


@pytest.mark.slow
def test_validate_agrees_with_the_cli(notebook: tuple[dict[str, Any], Path]) -> None:
    ns, folder = notebook
    out = cli(folder, "validate", f"{RUNS}/annotated_run_example.txt", "--format", "json")
    assert [r.to_dict() for r in ns["reports"]] == out
    assert [r["conforms"] for r in out] == [True]


@pytest.mark.slow
def test_load_wrote_what_the_cli_lists(notebook: tuple[dict[str, Any], Path]) -> None:
    """Every document the notebook loaded and saved is in the store ``reprokg list`` reads."""
    ns, folder = notebook
    listed = cli(folder, "list", "--store", "kg", "--all", "--format", "json")
    iris = {e["iri"] for e in listed["documents"]}
    assert {str(d.iri) for d in ns["loaded"].documents} <= iris
    assert str(ns["saved"].iri) in iris
    kinds = {e["iri"]: e["kind"] for e in listed["documents"]}
    assert kinds[str(ns["saved"].iri)] == "comparison"
    assert sorted(kinds.values()).count("evaluation") == 1


@pytest.mark.slow
def test_evaluate_agrees_with_the_cli(notebook: tuple[dict[str, Any], Path]) -> None:
    ns, folder = notebook
    out = cli(
        folder,
        "evaluate",
        "--qrels",
        f"{RUNS}/qrels.toy",
        f"{RUNS}/annotated_run_example.txt",
        f"{RUNS}/reproduced_run.txt",
        "--format",
        "json",
    )
    assert as_json(ns["evaluation"].to_json())["runs"] == out["runs"]
    assert [r["scores"]["map"]["value"] for r in out["runs"]]  # scores were computed


@pytest.mark.slow
def test_query_agrees_with_the_cli(notebook: tuple[dict[str, Any], Path]) -> None:
    ns, folder = notebook
    out = cli(
        folder,
        "query",
        "--store",
        "kg",
        "--read-only",
        "--name",
        "find-baselines",
        "--param",
        "collection=https://ir-datasets.com/nyt",
        "--param",
        "measure=map",
        "--format",
        "json",
    )
    frame = ns["baselines"]
    assert list(frame.columns) == out["head"]["vars"]
    rows = [
        (b["tag"]["value"], float(b["score"]["value"]), b["run"]["value"])
        for b in out["results"]["bindings"]
    ]
    assert len(rows) == 2  # the two runs evaluated on the collection
    assert list(zip(frame["tag"], frame["score"], frame["run"], strict=True)) == rows
    assert ns["tags"].shape == (2, 2)


@pytest.mark.slow
def test_compare_agrees_with_the_cli(notebook: tuple[dict[str, Any], Path]) -> None:
    ns, folder = notebook
    out = cli(
        folder,
        "compare",
        "--qrels",
        f"{RUNS}/qrels.toy",
        "--orig-base",
        f"{RUNS}/annotated_run_example.txt",
        "--rep-base",
        f"{RUNS}/reproduced_run.txt",
        "--format",
        "json",
    )
    api = as_json(ns["comparison"].to_json())
    assert api["measures"] == out["measures"]
    assert api["primad"] == out["primad"] and api["kind"] == out["kind"]
    assert out["measures"]["ktu"]["baseline"] is not None


@pytest.mark.slow
def test_passport_agrees_with_the_cli(notebook: tuple[dict[str, Any], Path]) -> None:
    ns, folder = notebook
    out = cli(folder, "passport", DOI, "--store", "kg", "--format", "json")
    assert as_json(ns["card"].to_json()) == out
    assert len(out["runs"]) == 2


@pytest.mark.slow
def test_stability_agrees_with_the_cli(notebook: tuple[dict[str, Any], Path]) -> None:
    ns, folder = notebook
    out = cli(folder, "stability", "--store", "kg", "--study", STUDY, "--format", "json")
    assert as_json(ns["analysis"].result.to_json()) == out
    # the data lines of examples/stability/fewshot_seed003.csv (less its 5 comment lines and
    # its header: grep -v "^#" FILE | tail -n +2 | wc -l)
    assert out["n"] == 1083


@pytest.mark.slow
def test_export_agrees_with_the_cli(notebook: tuple[dict[str, Any], Path]) -> None:
    ns, folder = notebook
    doc = str(ns["loaded"].documents[0].iri)
    assert ns["header"] == cli(folder, "export", "--store", "kg", doc, "--format", "yaml")
    assert ns["turtle"] + "\n" == cli(folder, "export", "--store", "kg", str(ns["saved"].iri))
    assert str(ns["crate"]) == "passport.zip" and (folder / "passport.zip").stat().st_size > 0
