"""Property tests of every loader on hostile input: only ``LoadError`` may escape.

Per loader kind: arbitrary bytes; the real files (bundled examples and ../shared/data)
truncated, with bytes flipped, inserted or deleted; and, for YAML and JSON sources, the
parsed tree mutated (keys removed, values swapped for other types, nesting inflated past
the limit) and written back. A loader may load such input or refuse it with a located
``LoadError``; any other exception (KeyError, TypeError, RecursionError, a crash) is a bug.
``LOADER_FUZZ_EXAMPLES`` sets the examples per test (default 40).
``benchmarks/fuzz/`` runs the same loaders under a coverage-guided fuzzer (atheris).
"""

from __future__ import annotations

import copy
import json
import os
from functools import cache
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reprokg import loaders
from reprokg.core.errors import LoadError
from tests.conftest import REPO, SHARED_DATA

EXAMPLES = REPO / "examples"
#: examples per test and kind (``LOADER_FUZZ_EXAMPLES`` for a longer run)
FUZZ = settings(
    max_examples=int(os.environ.get("LOADER_FUZZ_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


def _head(path: Path, lines: int) -> bytes:
    return b"".join(path.read_bytes().splitlines(keepends=True)[:lines])


@cache
def seeds() -> dict[str, list[tuple[str, bytes]]]:
    """(file name, bytes) per loader kind: small real files (cut down where large)."""
    out: dict[str, list[tuple[str, bytes]]] = {
        "run": [
            (p.name, p.read_bytes())
            for p in sorted((EXAMPLES / "runs").iterdir())
            if p.name in ("annotated_run_example.txt", "bare_marker_run.txt", "metadata.yaml")
        ],
        "audit": [(p.name, p.read_bytes()) for p in sorted((EXAMPLES / "audits").glob("*.yaml"))],
        "stability": [
            (p.name, p.read_bytes())
            for p in sorted((EXAMPLES / "stability").glob("*.*"))
            if p.suffix in (".csv", ".yaml")
        ],
        "survey": [
            (p.name, p.read_bytes())
            for p in sorted((EXAMPLES / "survey/per_paper").rglob("*.json"))[:3]
        ],
        "gk2018": [("evaluations.csv", _head(EXAMPLES / "survey/gk2018/evaluations.csv", 15))],
        "qrels": [
            ("qrels.txt", b"".join(f"30{i % 3} 0 doc{i} {i % 3}\n".encode() for i in range(40)))
        ],
        "mlrc": [],
        "feature-discard": [
            (p.name, p.read_bytes())
            for p in sorted((EXAMPLES / "intrinsic_dimension").glob("*.yaml"))
        ],
        "pwc-checklist": [
            (
                "code_checklist-neurips2019.csv",
                _head(EXAMPLES / "survey/pwc-checklist-2019/code_checklist-neurips2019.csv", 15),
            )
        ],
        "grsi": [
            (
                "grsi_paper_data.json",
                json.dumps(
                    json.loads(
                        (EXAMPLES / "survey/grsi/grsi_paper_data-subset.json").read_text("utf-8")
                    )[:3],
                    indent=1,
                ).encode(),
            )
        ],
    }
    studies_data = EXAMPLES.parent / "tests/studies/data"
    ae = json.loads((studies_data / "reprodb_subset/artifacts.json").read_text("utf-8"))
    out["artifact-evaluation"] = [("artifacts.json", json.dumps(ae[:3], indent=1).encode())]
    logs = studies_data / "trisovic_subset"
    out["re-execution"] = [
        (p.name, _head(p, 12)) for p in sorted(logs.glob("run_log_r36_*env*.csv"))
    ]
    out["rescience"] = []
    out["artifact-availability"] = []
    crates = EXAMPLES.parent / "tests/exchange/data/crates"
    out["rocrate"] = [
        ("ro-crate-metadata.json", (crates / n / "ro-crate-metadata.json").read_bytes())
        for n in ("process-run-example1", "workflow-run-example2")
    ]
    out["openml"] = [("description.xml", _head(crates.parent / "openml" / "description.xml", 60))]
    out["mlflow"] = [
        (
            "runs.json",
            json.dumps(
                {
                    "runs": [
                        {
                            "info": {"run_id": f"r{i}", "experiment_id": "1", "run_name": f"s{i}"},
                            "data": {
                                "params": [{"key": "seed", "value": str(i)}],
                                "metrics": [{"key": "acc", "value": 0.5, "step": 0}],
                                "tags": [{"key": "mlflow.user", "value": "me"}],
                            },
                        }
                        for i in range(3)
                    ]
                },
                indent=1,
            ).encode(),
        )
    ]
    subset = json.loads((EXAMPLES / "survey/consolidatedData-subset.json").read_text("utf-8"))
    out["survey"].append(("consolidatedData.json", json.dumps(subset[:2], indent=1).encode()))
    if SHARED_DATA.is_dir():
        mlrc = sorted(
            (SHARED_DATA / "surveys/rescience/mlrc_metadata").glob("*/*/journal/metadata.yaml")
        )
        out["mlrc"] = [("metadata.yaml", p.read_bytes()) for p in mlrc[:3]]
        bib = SHARED_DATA / "surveys/rescience/journal_bib/_bibliography/published.bib"
        out["rescience"] = [
            ("published.bib", "\n@".join(bib.read_text("utf-8").split("\n@")[:3]).encode())
        ]
        checks = SHARED_DATA / "artifact_evaluation/reprodb/artifact_availability.json"
        found = json.loads(checks.read_text("utf-8"))
        found["records"] = found["records"][:3]
        out["artifact-availability"] = [
            ("artifact_availability.json", json.dumps(found, indent=1).encode())
        ]
        page = SHARED_DATA / "artifact_evaluation/sysartifacts/osdi2023-results.md"
        out["artifact-evaluation"].append((page.name, _head(page, 75)))
        core17 = SHARED_DATA / "trec/qrels/core17.txt"
        if core17.is_file():
            out["qrels"].append(("core17.txt", _head(core17, 60)))
    return out


KINDS = [
    "run",
    "audit",
    "mlrc",
    "stability",
    "feature-discard",
    "survey",
    "gk2018",
    "pwc-checklist",
    "grsi",
    "artifact-evaluation",
    "artifact-availability",
    "rescience",
    "re-execution",
    "rocrate",
    "mlflow",
    "openml",
    "qrels",
]


def _load(data: bytes, name: str, kind: str) -> None:
    """Load; a LoadError is a refusal (fine), anything else fails the test."""
    try:
        loaders.load_source(name, data, kind=kind)
    except LoadError as exc:
        assert exc.source is not None or exc.message  # says what and where
        str(exc)


def _seed(kind: str) -> list[tuple[str, bytes]]:
    found = seeds()[kind]
    if not found:
        pytest.skip(f"no real files for {kind} (../shared/data missing)")
    return found


def test_every_loader_kind_has_seeds() -> None:
    assert set(KINDS) == set(loaders.loaders())
    assert all(seeds()[k] for k in KINDS if k not in ("mlrc", "rescience", "artifact-availability"))


@pytest.mark.parametrize("kind", KINDS)
@FUZZ
@given(data=st.binary(max_size=2_000), ext=st.sampled_from([".yaml", ".json", ".csv", ".txt", ""]))
def test_arbitrary_bytes(kind: str, data: bytes, ext: str) -> None:
    _load(data, "x" + ext, kind)


_BYTE_EDIT = st.one_of(
    st.tuples(st.just("truncate"), st.floats(0, 1), st.just(b"")),
    st.tuples(st.just("flip"), st.floats(0, 1), st.binary(min_size=1, max_size=4)),
    st.tuples(
        st.just("insert"),
        st.floats(0, 1),
        st.sampled_from(
            [
                b"\x00",
                b"\xff\xfe",
                b"[",
                b"{",
                b"]",
                b"}",
                b"*a",
                b"&a ",
                b"\n- ",
                b": ",
                b"\t",
                b"\r",
                b'"',
                b"'",
                b"#",
                b"\\",
                b"\xe2\x80\xa8",
                b"ir_metadata.end\n",
                b",",
                b"\x1e",
            ]
        ),
    ),
    st.tuples(st.just("delete"), st.floats(0, 1), st.integers(1, 40).map(lambda n: b"x" * n)),
)


def _edit(data: bytes, edits: list[tuple[str, float, bytes]]) -> bytes:
    for op, where, value in edits:
        i = int(where * len(data))
        if op == "truncate":
            data = data[:i]
        elif op == "flip":
            chunk = bytes(a ^ b for a, b in zip(data[i : i + len(value)], value, strict=False))
            data = data[:i] + chunk + data[i + len(chunk) :]
        elif op == "insert":
            data = data[:i] + value + data[i:]
        else:
            data = data[:i] + data[i + len(value) :]
    return data


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
@FUZZ
@given(pick=st.integers(0, 100), edits=st.lists(_BYTE_EDIT, min_size=1, max_size=6))
def test_real_files_with_bytes_mutated(kind: str, pick: int, edits) -> None:
    files = _seed(kind)
    name, data = files[pick % len(files)]
    _load(_edit(data, edits), name, kind)


_OTHER_VALUES = st.sampled_from(
    [
        None,
        0,
        -1,
        10**30,
        1.5,
        float("inf"),
        "",
        "x" * 300,
        "10.1145/<>",
        "0000-0000-0000-000X",
        [],
        {},
        True,
        ["a", 1],
        {"k": {"k": "v"}},
        "2020-13-45",
        "NaN",
    ]
)


def _paths(tree: object) -> list[tuple]:
    """Every path (tuple of keys and indexes) into a parsed YAML/JSON tree."""
    out: list[tuple] = []
    stack: list[tuple[tuple, object]] = [((), tree)]
    while stack:
        path, node = stack.pop()
        out.append(path)
        if isinstance(node, dict):
            stack.extend(((*path, k), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend(((*path, i), v) for i, v in enumerate(node))
    return out


def _mutate(tree: object, path: tuple, how: str, value: object) -> object:
    if not path:
        return [tree] if how == "inflate" else copy.deepcopy(value)
    parent = tree
    for step in path[:-1]:
        parent = parent[step]  # type: ignore[index]
    last = path[-1]
    if how == "remove":
        del parent[last]  # type: ignore[attr-defined]
    elif how == "swap":
        # a copy: the sampled lists and dicts are shared between examples, and the same
        # object put twice into one tree, then into itself, made a cycle that _paths
        # walked until the machine ran out of memory (22 GB)
        parent[last] = copy.deepcopy(value)  # type: ignore[index]
    else:  # inflate: wrap the value in 100 lists (past the depth limit of 64)
        wrapped = parent[last]  # type: ignore[index]
        for _ in range(100):
            wrapped = [wrapped]
        parent[last] = wrapped  # type: ignore[index]
    return tree


def _structured(kind: str) -> list[tuple[str, bytes]]:
    return [(n, d) for n, d in _seed(kind) if n.endswith((".yaml", ".json"))]


@pytest.mark.slow
@pytest.mark.parametrize(
    "kind", ["run", "audit", "mlrc", "stability", "feature-discard", "survey", "grsi"]
)
@FUZZ
@given(
    pick=st.integers(0, 100),
    edits=st.lists(
        st.tuples(
            st.floats(0, 1), st.sampled_from(["remove", "swap", "swap", "inflate"]), _OTHER_VALUES
        ),
        min_size=1,
        max_size=4,
    ),
)
def test_real_files_with_keys_removed_types_swapped_nesting_inflated(
    kind: str, pick: int, edits
) -> None:
    files = _structured(kind)
    if not files:
        pytest.skip(f"no YAML/JSON files for {kind}")
    name, data = files[pick % len(files)]
    is_json = name.endswith(".json")
    tree = json.loads(data) if is_json else yaml.safe_load(data)
    for where, how, value in edits:
        paths = _paths(tree)
        path = paths[int(where * (len(paths) - 1))]
        if how == "remove" and not path:
            continue
        tree = _mutate(tree, path, how, value)
    if is_json:
        text = json.dumps(tree, default=str)
    else:
        text = yaml.safe_dump(tree, allow_unicode=True, default_flow_style=None, width=10**6)
    _load(text.encode("utf-8"), name, kind)


REGRESSIONS = sorted((REPO / "tests/loaders/fuzz_regressions").iterdir())


@pytest.mark.parametrize("path", REGRESSIONS, ids=[p.name for p in REGRESSIONS])
def test_fuzz_findings_stay_fixed(path: Path) -> None:
    """Every input a fuzzer found (``<kind>-<what>.<ext>``) is loaded or refused, no crash.

    stability-csv-carriage-return.csv: this suite found it (a '\\r' in an unquoted CSV
    field was the csv module's ``_csv.Error``, a 500 on /validate).
    survey-affiliation-not-a-list.json: this suite too (an author's ``affiliation: 5`` was
    iterated: a TypeError).
    """
    kind = path.name.split("-", 1)[0]
    assert kind in KINDS
    _load(path.read_bytes(), path.name, kind)
