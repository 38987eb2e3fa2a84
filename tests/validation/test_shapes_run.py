"""shapes/run.ttl on the real ir_metadata files and on variants with one defect each.

Each variant changes one line of the real annotated run (or the website examples), so
the expected finding is known from the edit itself: its severity, the ir_metadata
source path it names, and the line that was edited.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reprokg.loaders import ir_metadata as im
from reprokg.validation.engine import validate_document
from reprokg.validation.report import Report


@pytest.fixture(scope="module")
def annotated(shared_data: Path) -> str:
    return (shared_data / "ir_metadata" / "annotated_run_example.txt").read_text()


@pytest.fixture(scope="module")
def website(shared_data: Path) -> str:
    return (shared_data / "ir_metadata" / "website_checklist_examples_assembled.yaml").read_text()


def report(text: str, name: str = "run.txt") -> Report:
    [doc] = im.load(text.encode(), name)
    return validate_document(doc)


def findings(rep: Report, severity: str) -> list[tuple[str | None, int | None]]:
    return sorted(
        ((r.path, r.line) for r in rep.results if r.severity == severity),
        key=lambda x: (x[0] or "", x[1] or 0),
    )


def edit(text: str, old: str, new: str) -> tuple[str, int]:
    """Replace the one line starting with ``old``; return the text and its line number."""
    lines = text.split("\n")
    hits = [i for i, ln in enumerate(lines) if ln.startswith(old)]
    assert len(hits) == 1, (old, hits)
    lines[hits[0]] = new
    return "\n".join(lines), hits[0] + 1


def test_real_files_conform(annotated: str, website: str) -> None:
    for text, name in ((annotated, "a.txt"), (website, "w.yaml")):
        rep = report(text, name)
        assert rep.conforms, rep.to_text()
        assert findings(rep, "Violation") == []
    # the annotated example's header tag differs from its run lines' tag
    assert [p for p, _ in findings(report(annotated), "Warning")] == ["tag"]
    assert findings(report(website, "w.yaml"), "Warning") == []


@pytest.mark.parametrize(
    ("old", "new", "path"),
    [
        ("#     commit:", "#     commit: not-a-sha", "implementation.source.commit"),
        ("#     commit:", "#     commit: 9548cd", "implementation.source.commit"),
        ("#     doi:", "#     doi: 10.1007", "research goal.publication.doi"),
        ("#     doi:", "#     doi: https://doi.org/11.1007/x", "research goal.publication.doi"),
        (
            "#     repository:",
            "#     repository: github.com/castorini/anserini",
            "implementation.source.repository",
        ),
        (
            "#     dblp:",
            "#     dblp: dblp.org/rec/conf/ecir/YuXL19",
            "research goal.publication.dblp",
        ),
        ("#   orcid:", "#   orcid: 0000-0002-0661", "actor.orcid"),
        ("#   orcid:", "#   orcid: 0000-0002-0661-7188", "actor.orcid"),  # check digit
        ("#     year:", "#     year: 19", "research goal.venue.year"),
        ("#     year:", "#     year: 2519", "research goal.venue.year"),
        ("#     year:", "#     year: twenty nineteen", "research goal.venue.year"),
        ("#   role:", "#   role: author", "actor.role"),
        (
            "#       number of cores: 16",
            "#       number of cores: sixteen",
            "platform.hardware.cpu.number of cores",
        ),
        ("#   automatic:", "#   automatic: maybe", "method.automatic"),
        ("#   mail:", "#   mail: jimmylin at uwaterloo", "actor.mail"),
        (
            "#     qrels: https://trec.nist.gov/data/core/",
            "#     qrels: core/qrels.txt",
            "data.test collection.qrels",
        ),
        ("#     weight:", "#     weight: heavy", "method.retrieval.weight"),
        (
            "#       number of cores: 10752",
            "#       number of cores: many",
            "platform.hardware.gpu.number of cores",
        ),
        (
            "#     qrels: https://trec.nist.gov/data/robust/",
            "#     qrels: robust/qrels.txt",
            "data.training data.qrels",
        ),
        ("#     reranks: bm25", "#     reranks: bm26", "method.retrieval.reranks"),
    ],
)
def test_one_defect_one_violation(annotated: str, old: str, new: str, path: str) -> None:
    text, line = edit(annotated, old, new)
    rep = report(text)
    assert not rep.conforms
    violations = findings(rep, "Violation")
    assert {p for p, _ in violations} == {path}, rep.to_text()
    # every violation carries the edited line, except where the path is written in several
    # list items (reranks appears in four stages): then no line rather than a wrong one
    if path == "method.retrieval.reranks":
        assert {ln for _, ln in violations} <= {None, line}
    else:
        assert line in {ln for _, ln in violations}


def test_violation_messages_name_the_source_path(annotated: str) -> None:
    text, _ = edit(annotated, "#     commit:", "#     commit: zzz")
    [v] = [r for r in report(text).results if r.severity == "Violation"]
    assert v.message.startswith("implementation.source.commit:")
    assert v.value == "zzz"


@pytest.mark.parametrize("commit", ["1234567", "12e4567", "9548cd6", "a" * 40, "b" * 64])
def test_valid_commits_including_typing_traps(annotated: str, commit: str) -> None:
    text, _ = edit(annotated, "#     commit:", f"#     commit: {commit}")
    assert report(text).conforms


def test_recommended_but_missing_are_warnings(annotated: str) -> None:
    text, _ = edit(annotated, "#     doi:", "#     note: no doi")
    text, _ = edit(text, "#     commit:", "#     branch: master")
    lines = text.split("\n")
    start = next(i for i, ln in enumerate(lines) if ln.startswith("#   test collection:"))
    end = next(i for i, ln in enumerate(lines) if ln.startswith("#   training data:"))
    del lines[start:end]
    rep = report("\n".join(lines))
    assert rep.conforms
    warned = {p for p, _ in findings(rep, "Warning")}
    assert warned == {
        "tag",
        "research goal.publication.doi",
        "implementation.source.commit",
        "data.test collection",
    }
    # the unknown keys written instead are Info, with their lines
    infos = {p for p, _ in findings(rep, "Info")}
    assert {"research goal.publication.note", "implementation.source.branch"} <= infos


def test_minimal_header_is_info_only() -> None:
    text = "# ir_metadata.start\n# tag: t\n# ir_metadata.end\n1 Q0 d 1 1 t\n"
    rep = report(text)
    assert rep.conforms
    assert {p for p, _ in findings(rep, "Info")} >= {"platform", "method", "actor"}


def test_defect_in_a_later_list_item_never_points_at_the_first(annotated: str) -> None:
    text, line = edit(annotated, "#     source: https://sourceforge", "#     source: sf.net/lemur")
    first_other = edit(annotated, "#     source: https://nlp.stanford", "#     source: x")[1]
    [v] = [r for r in report(text).results if r.severity == "Violation"]
    assert v.path == "data.other.source"
    assert v.line in (None, line)
    assert v.line != first_other


def test_a_message_names_its_path_once() -> None:
    """``reprokg validate`` printed ``method.retrieval.params: method.retrieval.params: …``
    for the example header (issue 27, the first hour): the shape's message already starts
    with the path the person edits."""
    from reprokg.validation.paths import validate_paths
    from tests.conftest import REPO

    (report,) = validate_paths([REPO / "examples/runs/annotated_run_example.txt"])
    lines = [r.to_text() for r in report.results]
    assert any("method.retrieval.params" in line for line in lines), lines
    for r, line in zip(report.results, lines, strict=True):
        assert r.path and line.count(f"{r.path}:") == 1, line
