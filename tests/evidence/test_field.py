"""The field build (``reprokg field build``, evidence/field.py): the same sources give the
same dump bytes, the manifest's counts are the raw files' counts, the dump restores, and
the date is the one given, never the clock.

Expected counts are read from the raw files here (json, without the loaders).
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import shutil
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reprokg.cli import main
from reprokg.core.errors import UsageError
from reprokg.core.settings import Settings
from reprokg.evidence.assessments import Summary
from reprokg.evidence.field import (
    FIELD_SOURCES,
    coverage_of,
    linked_coverage_of,
    plan_field,
    source_date,
)
from reprokg.evidence.outcomes import WorkOutcome


def _run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(argv)
    return code, out.getvalue()


def _manifest(out: Path) -> dict:
    (path,) = out.glob("*.manifest.json")
    return json.loads(path.read_text("utf-8"))


def _files(manifest: dict) -> dict[str, dict]:
    return {f["path"]: f for s in manifest["sources"] for f in s["files"]}


# ---------------------------------------------------------------- the date, never the clock


def test_the_date_comes_from_the_option_then_source_date_epoch_then_the_epoch() -> None:
    assert source_date("2026-05-06", 5) == (datetime(2026, 5, 6, tzinfo=UTC), "--date")
    assert source_date("2026-05-06T12:30:00+02:00")[0] == datetime(2026, 5, 6, 10, 30, tzinfo=UTC)
    # 1,700,000,000 s after the epoch is 2023-11-14T22:13:20Z (date -u -d @1700000000)
    assert source_date(None, 1_700_000_000) == (
        datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC),
        "SOURCE_DATE_EPOCH",
    )
    assert source_date(None, None)[0] == datetime(1970, 1, 1, tzinfo=UTC)
    with pytest.raises(UsageError, match="expected an ISO date"):
        source_date("May 6")


def test_source_date_epoch_is_read_under_its_own_name() -> None:
    """The reproducible-builds variable, not a REPROKG_ one: every build tool sets it."""
    assert Settings.from_env({"SOURCE_DATE_EPOCH": "1700000000"}).source_date_epoch == 1700000000
    assert Settings.from_env({}).source_date_epoch is None
    assert Settings(source_date_epoch=7).to_env()["SOURCE_DATE_EPOCH"] == "7"


# ---------------------------------------------------------------- a small folder, fast


#: a part of ../shared/data, laid out the same way: some files of most sources (the whole
#: field takes minutes to build, docs/evidence.md, The field build)
SMALL_FIELD = (
    "artifact_evaluation/reprodb/artifact_availability.json",
    "artifact_evaluation/sysartifacts/osdi2023-results.md",
    "artifact_evaluation/sysartifacts/sosp2023-results.md",
    "surveys/rescience/journal_bib/_bibliography/published.bib",
    "surveys/rescience/mlrc_metadata/2020",
    "surveys/grsi_isenberg/publication_data/grsi_paper_data.json",
    "surveys/pwc_code_checklist_neurips2019/notebooks/code_checklist-neurips2019.csv",
    *(
        f"replicability_graphics/per_paper/siggraph-2014/{name}"
        for name in ("10.1145-2601097.2601170.json", "10.1145-2601097.2601119.json")
    ),
)


def _small_field(root: Path, shared_data: Path) -> Path:
    for rel in SMALL_FIELD:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        if (shared_data / rel).is_dir():
            shutil.copytree(shared_data / rel, root / rel)
        else:
            shutil.copy(shared_data / rel, root / rel)
    return root


@pytest.mark.slow  # two builds and a restore of ~800 documents: 1-2 min on a busy machine
def test_a_small_field_builds_to_the_same_bytes_and_restores(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two builds of one folder, copied to two places, at two clock times: the same dump and
    manifest bytes; the dump restores (gzipped, as written) into a store holding every
    document; a source the folder lacks is listed as missing."""
    from reprokg.core import settings as config

    a = _small_field(tmp_path / "a" / "data", shared_data)
    b = _small_field(tmp_path / "elsewhere" / "data", shared_data)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    config.configure(None)
    try:
        code, text = _run(
            [
                "field",
                "build",
                str(a),
                "--store",
                str(tmp_path / "sa"),
                "--out",
                str(tmp_path / "oa"),
            ]
        )
        assert code == 0, text[-2000:]
        code, text = _run(
            [
                "field",
                "build",
                str(b),
                "--store",
                str(tmp_path / "sb"),
                "--out",
                str(tmp_path / "ob"),
            ]
        )
        assert code == 0, text[-2000:]
    finally:
        config.configure(None)
    (da,) = (tmp_path / "oa").glob("*.nq.gz")
    (db,) = (tmp_path / "ob").glob("*.nq.gz")
    assert da.read_bytes() == db.read_bytes()
    ma, mb = _manifest(tmp_path / "oa"), _manifest(tmp_path / "ob")
    assert ma == mb
    assert ma["build_date"] == "2023-11-14T22:13:20Z"
    assert ma["dump"]["sha256"] == hashlib.sha256(da.read_bytes()).hexdigest()
    assert {s["name"] for s in ma["sources"] if s["missing"]} == {
        "re-execution",
        "gk2018",
        "siggraph2020",
    }
    nquads = gzip.decompress(da.read_bytes())
    lines = nquads.splitlines()
    assert lines == sorted(set(lines)) and len(lines) == ma["dump"]["quads"]
    # author lists are RDF lists of blank nodes, labelled at random by each load: the dumps
    # agree because RDFC-1.0 relabelled them
    assert b" _:c14n" in nquads
    assert b'"2023-11-14T22:13:20Z"^^<http://www.w3.org/2001/XMLSchema#dateTime>' in nquads
    # restored as it is (gzip read by its magic bytes): every stored document is there
    code, text = _run(["restore", str(da), "--store", str(tmp_path / "restored")])
    assert code == 0, text
    stored = ma["stored"]["added"] + ma["stored"]["revised"]
    assert f": {stored} document(s) there (+{stored})" in text


# ---------------------------------------------------------------- checkouts of the upstreams

#: upstream path in a checkout -> the same file in the data layout (SMALL_FIELD's files, and
#: the markers ReScience's under-review.bib and GRSI's metadata); the paths are the
#: repositories' own (docs/evidence.md, The field build, Upstream layouts)
CHECKOUT_FILES = {
    "reprodb/src/assets/data/artifact_availability.json": (
        "artifact_evaluation/reprodb/artifact_availability.json"
    ),
    "sysartifacts/_conferences/osdi2023/results.md": (
        "artifact_evaluation/sysartifacts/osdi2023-results.md"
    ),
    "sysartifacts/_conferences/sosp2023/results.md": (
        "artifact_evaluation/sysartifacts/sosp2023-results.md"
    ),
    "rescience.github.io/_bibliography/published.bib": (
        "surveys/rescience/journal_bib/_bibliography/published.bib"
    ),
    "rescience.github.io/_bibliography/under-review.bib": (
        "surveys/rescience/journal_bib/_bibliography/under-review.bib"
    ),
    "MLRC/2020/accepted.bib": "surveys/rescience/mlrc_metadata/2020/accepted.bib",
    "Visualization-Reproducibility/publication_data/grsi_paper_data.json": (
        "surveys/grsi_isenberg/publication_data/grsi_paper_data.json"
    ),
    # a marker: GRSI's loader claims no file of it (unclaimed in the data layout)
    "Visualization-Reproducibility/publication_data/grsi_metadata.json": (
        "surveys/grsi_isenberg/publication_data/grsi_metadata.json"
    ),
    "releasing-research-code/notebooks/code_checklist-neurips2019.csv": (
        "surveys/pwc_code_checklist_neurips2019/notebooks/code_checklist-neurips2019.csv"
    ),
    **{
        f"replicability.graphics/data/siggraph-2014/{n}": (
            f"replicability_graphics/per_paper/siggraph-2014/{n}"
        )
        for n in ("10.1145-2601097.2601170.json", "10.1145-2601097.2601119.json")
    },
}
#: a marker path that DATA/ does not hold (sysartifacts' venue page; empty here)
CHECKOUT_MARKERS = ("sysartifacts/_conferences/eurosys.md",)


def _checkouts(root: Path, shared_data: Path) -> Path:
    """A folder of upstream checkouts holding SMALL_FIELD's real files at their upstream
    paths, and a folder that is no checkout."""
    for rel, data in CHECKOUT_FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(shared_data / data, root / rel)
    for d in (shared_data / "surveys/rescience/mlrc_metadata/2020").iterdir():
        if (d / "journal/metadata.yaml").is_file():
            (root / "MLRC/2020" / d.name / "journal").mkdir(parents=True)
            shutil.copy(d / "journal/metadata.yaml", root / "MLRC/2020" / d.name / "journal")
    for rel in CHECKOUT_MARKERS:
        (root / rel).touch()
    (root / "notes").mkdir()
    (root / "notes/todo.txt").write_text("not a checkout\n", "utf-8")
    return root


def test_checkouts_are_recognised_by_their_marker_paths_and_named_as_in_the_data_layout(
    tmp_path: Path,
) -> None:
    """Each checkout's files are read under their data-layout names (the names a dump
    holds), every source's files in the data layout's sorted order across checkouts; a
    folder that is no checkout is reported, a folder that is one checkout builds too."""
    for rel in (*CHECKOUT_FILES, *CHECKOUT_MARKERS, "secartifacts/_conferences/ndss.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).touch()
    (tmp_path / "secartifacts/_conferences/ndss2025").mkdir()
    (tmp_path / "secartifacts/_conferences/ndss2025/results.md").touch()
    (tmp_path / "secartifacts/_conferences/ndss2025/call.md").touch()  # not a results page
    (tmp_path / "notes").mkdir()
    plan = plan_field(tmp_path)
    names = {w.source.name: list(w.located) for w in plan.walks}
    assert names["artifact-evaluation"] == [
        "artifact_evaluation/reprodb/artifact_availability.json",
        "artifact_evaluation/secartifacts/ndss2025-results.md",
        "artifact_evaluation/sysartifacts/osdi2023-results.md",
        "artifact_evaluation/sysartifacts/sosp2023-results.md",
    ]
    assert names["rescience"] == [
        "surveys/rescience/journal_bib/_bibliography/published.bib",
        "surveys/rescience/journal_bib/_bibliography/under-review.bib",
    ]
    assert "mlrc" not in names  # accepted.bib alone: marked, but no metadata.yaml
    assert plan.missing == ["re-execution", "mlrc", "gk2018", "siggraph2020"]
    assert [u.split(":")[0] for u in plan.unrecognised] == ["MLRC/", "notes/"]
    walk = next(w for w in plan.walks if w.source.name == "artifact-evaluation")
    assert walk.checkouts == [
        ("reprodb", "ReproDB/reprodb.github.io"),
        ("secartifacts", "secartifacts/secartifacts.github.io"),
        ("sysartifacts", "sysartifacts/sysartifacts.github.io"),
    ]
    # the folder itself one checkout
    (only,) = plan_field(tmp_path / "Visualization-Reproducibility").walks
    assert list(only.located) == ["surveys/grsi_isenberg/publication_data/grsi_paper_data.json"]
    assert only.checkouts == [(".", "tobiasisenberg/Visualization-Reproducibility")]


def test_two_checkouts_of_one_repository_are_refused(tmp_path: Path) -> None:
    for copy in ("a", "b"):
        (tmp_path / copy / "src/assets/data").mkdir(parents=True)
        (tmp_path / copy / "src/assets/data/artifacts.json").touch()
    with pytest.raises(
        UsageError, match="two checkouts hold artifact_evaluation/reprodb/artifacts"
    ):
        plan_field(tmp_path)


def test_every_upstream_file_lands_under_its_source_in_the_data_layout() -> None:
    """The table's data-layout paths are its sources' own (a checkout file named outside
    its source's pattern would be a file the data layout never reads)."""
    for src in FIELD_SOURCES:
        assert src.upstream, src.name
        for up in src.upstream:
            for glob, data in up.files:
                assert data.startswith(src.pattern), (src.name, data)
                assert glob.count("*") == data.count("*"), (src.name, glob)


@pytest.mark.slow  # four builds' worth of loading (~800 documents twice): 1-2 min
def test_checkouts_build_the_same_dump_bytes_as_the_data_layout(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same real files, once in the data layout, once at their upstream paths in
    checkouts: byte-identical dumps, the same files (names, hashes, counts) per source; the
    folder that is no checkout is listed with the unclaimed files."""
    from reprokg.core import settings as config

    data = _small_field(tmp_path / "data", shared_data)
    for rel in (
        "surveys/rescience/journal_bib/_bibliography/under-review.bib",
        "surveys/grsi_isenberg/publication_data/grsi_metadata.json",
    ):
        shutil.copy(shared_data / rel, data / rel)
    checkouts = _checkouts(tmp_path / "checkouts", shared_data)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    config.configure(None)
    try:
        for folder, name in ((data, "d"), (checkouts, "c")):
            code, text = _run(
                [
                    "field",
                    "build",
                    str(folder),
                    "--store",
                    str(tmp_path / f"s{name}"),
                    "--out",
                    str(tmp_path / f"o{name}"),
                ]
            )
            assert code == 0, text[-2000:]
    finally:
        config.configure(None)
    (dd,) = (tmp_path / "od").glob("*.nq.gz")
    (dc,) = (tmp_path / "oc").glob("*.nq.gz")
    assert dd.read_bytes() == dc.read_bytes()
    md, mc = _manifest(tmp_path / "od"), _manifest(tmp_path / "oc")
    assert _files(md) == _files(mc)
    assert len(_files(mc)) == 9 + 23  # CHECKOUT_FILES less the unclaimed two; 23 MLRC 2020 reports
    assert md["dump"] == mc["dump"]
    assert [s["name"] for s in mc["sources"] if s["missing"]] == [
        "re-execution",
        "gk2018",
        "siggraph2020",
    ]
    assert any(u.startswith("notes/: not a checkout") for u in mc["unclaimed"])
    assert not any(u.startswith("notes/") for u in md["unclaimed"])


# ---------------------------------------------------------------- coverage, by the read model


def _work(work: str, sources: list[str], decisions: tuple[tuple[str, str], ...]) -> WorkOutcome:
    summary = Summary([], len(decisions), len(decisions), 0, 0, sources)
    return WorkOutcome(work, summary, frozenset(), decisions=decisions)


def test_coverage_counts_works_by_sources_and_kinds_and_decisions_per_kind() -> None:
    works = [
        # one committee decision stated by ReproDB and its results page: two sources, one kind
        _work("a", ["ReproDB", "sysartifacts"], (("committee", "reproduced"),)),
        _work("b", ["ReproDB"], (("committee", "not-attempted"),)),
        _work(
            "c",
            ["ReproDB", "ReScience C"],
            (("committee", "not-attempted"), ("replication", "reproduced")),
        ),
    ]
    c = coverage_of(works)
    assert c.works == 3
    assert c.by_sources == {2: 2, 1: 1}
    assert c.by_kinds == {1: 2, 2: 1}
    assert c.by_assessed_kinds == {1: 2, 0: 1}
    assert c.decisions == {
        "committee": {"reproduced": 1, "not-attempted": 2},
        "replication": {"reproduced": 1},
    }


# ---------------------------------------------------------------- coverage after linking


def test_works_joined_by_accepted_links_count_as_one() -> None:
    """a and b are joined through x, a node holding no assessment (a chain of links joins);
    c stays alone; the decisions are those before linking. Counted by hand."""
    works = {
        "a": _work("a", ["ReproDB"], (("committee", "reproduced"),)),
        "b": _work("b", ["ReScience C"], (("replication", "reproduced"),)),
        "c": _work("c", ["ReproDB", "sysartifacts"], (("committee", "not-attempted"),)),
    }
    linked = linked_coverage_of(works, [("a", "x"), ("x", "b"), ("y", "z")])
    assert (linked.links, linked.linked, linked.joined) == (3, 2, 2)
    c = linked.coverage
    assert c.works == 2
    assert c.by_sources == {2: 2}  # {ReproDB, ReScience C} and {ReproDB, sysartifacts}
    assert c.by_kinds == {2: 1, 1: 1}
    assert c.by_assessed_kinds == {2: 1, 0: 1}
    assert c.decisions == coverage_of(works.values()).decisions
    # no link: the coverage before linking
    assert linked_coverage_of(works, []).coverage == coverage_of(works.values())


@pytest.mark.slow  # a build of a part of DATA/ (~1 min on a busy machine)
def test_coverage_after_linking_on_a_small_real_store(shared_data: Path, tmp_path: Path) -> None:
    """On real records: the build's accepted links, and two links the test adds between a
    GRSI-stamped work and a ReScience-replicated one through a node of neither (a chain).
    The expected counts are networkx's connected components of the same links, each
    component's sources and kinds counted here."""
    import networkx as nx

    from reprokg.cli.base import open_cli_store
    from reprokg.evidence.field import accepted_links
    from reprokg.evidence.outcomes import work_outcomes

    data = _small_field(tmp_path / "data", shared_data)
    code, text = _run(
        ["field", "build", str(data), "--store", str(tmp_path / "s"), "--out", str(tmp_path / "o")]
    )
    assert code == 0, text[-2000:]
    m = _manifest(tmp_path / "o")["coverage_after_linking"]
    with open_cli_store(str(tmp_path / "s")) as store:
        works = work_outcomes(store)
        links = accepted_links(store)
    # what the build printed and wrote is what the function gives on its store
    assert m["accepted_links"] == len(links)
    assert m == linked_coverage_of(works, links).to_json()
    stamped = sorted(
        w for w, o in works.items() if "Graphics Replicability Stamp" in o.summary.sources
    )
    replicated = sorted(w for w, o in works.items() if o.summary.sources == ["ReScience C"])
    extra = [(stamped[0], "urn:x:between"), ("urn:x:between", replicated[0])]
    g = nx.Graph()
    g.add_nodes_from(works)
    g.add_edges_from([*links, *extra])
    by_sources: Counter[int] = Counter()
    by_kinds: Counter[int] = Counter()
    for component in nx.connected_components(g):
        members = [works[n] for n in component if n in works]
        if members:
            by_sources[len({s for w in members for s in w.summary.sources})] += 1
            by_kinds[len({k for w in members for k, _ in w.decisions})] += 1
    after = linked_coverage_of(works, [*links, *extra])
    assert after.coverage.works == sum(by_sources.values()) == len(works) - 1
    assert after.coverage.by_sources == dict(by_sources)
    assert after.coverage.by_kinds == dict(by_kinds)
    assert after.coverage.by_kinds.get(2) == 1  # the stamp and the replication, one work
    assert after.joined == 2


# ---------------------------------------------------------------- the whole field


@pytest.mark.slow
def test_the_manifest_counts_are_the_raw_files_counts(field_build: Path, shared_data: Path) -> None:
    """ReproDB's artifacts.json: 2,831 records, one an exact copy (one document fewer); GRSI:
    one stamped paper per array element, each a document; each file's sha256 is its bytes'."""
    files = _files(_manifest(field_build / "out"))
    rel = "artifact_evaluation/reprodb/artifacts.json"
    raw = json.loads((shared_data / rel).read_text("utf-8"))
    distinct = {json.dumps(r, sort_keys=True) for r in raw}
    assert files[rel]["records"] == len(raw)
    assert files[rel]["documents"] == len(distinct)
    assert files[rel]["sha256"] == hashlib.sha256((shared_data / rel).read_bytes()).hexdigest()
    rel = "surveys/grsi_isenberg/publication_data/grsi_paper_data.json"
    raw = json.loads((shared_data / rel).read_text("utf-8"))
    assert files[rel]["records"] == len(raw)
    assert files[rel]["documents"] == len({r["grsi_url"] for r in raw})
    assert files[rel]["rejected"] == 0
    assert files[rel]["sha256"] == hashlib.sha256((shared_data / rel).read_bytes()).hexdigest()
    # every source of the list was found in ../shared/data
    assert [s["name"] for s in _manifest(field_build / "out")["sources"]] == [
        s.name for s in FIELD_SOURCES
    ]
