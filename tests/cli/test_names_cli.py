"""Names, not hashes (issue 41), on the command line: ``reprokg compare`` names the
comparison by its runs and collection and says its study kind in the ontology's words."""

from __future__ import annotations

from reprokg.cli import main
from tests.conftest import REPO

RUNS = REPO / "examples" / "runs"


def test_compare_names_the_comparison_and_its_study_kind(capsys) -> None:
    """The headers' tags (``bm25+rm3``, ``bm25+rm3-rerun``) and test collection
    (``ir_datasets: https://ir-datasets.com/nyt``); PrimAd is ontology/primad.ttl's
    rk:KindIndependentRepeat, labelled "independent repeat" there."""
    args = ["compare", "--qrels", str(RUNS / "qrels.toy"), "--measures", "AP"]
    args += ["--orig-base", str(RUNS / "annotated_run_example.txt")]
    args += ["--rep-base", str(RUNS / "reproduced_run.txt")]
    assert main(args) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "bm25+rm3 vs bm25+rm3-rerun on nyt"
    assert "study:                independent repeat (same-collection)" in out


def test_a_comparison_without_headers_is_named_by_its_run_lines(capsys) -> None:
    """run_a has no header: its run lines' tag (``ipm-repro``, column 6 of every line)."""
    args = ["compare", "--qrels", str(RUNS / "qrels.toy"), "--measures", "AP"]
    args += ["--orig-base", str(RUNS / "run_a"), "--rep-base", str(RUNS / "run_a")]
    assert main(args) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "ipm-repro vs ipm-repro"
    assert "study:                same-collection" in out  # no study kind without PRIMAD


def _publication(name: str) -> dict:
    """``research goal.publication`` of a run file's header, read with PyYAML alone."""
    import yaml

    block = (RUNS / name).read_text().split("ir_metadata.start\n", 1)[1]
    block = block.split("ir_metadata.end", 1)[0].rstrip("# ")  # bare markers: no "# "
    header = yaml.safe_load("\n".join(line.removeprefix("# ") for line in block.splitlines()))
    return header["research goal"]["publication"]


def test_the_tour_paper_has_the_title_its_run_header_states(tmp_path, capsys) -> None:
    """The README tour's paper (doi 10.1007/978-3-030-15712-8_26, ECIR 2019) is titled as
    bare_marker_run.txt's header states it (the title of the paper's PDF, the header's
    ``url``): ``reprokg passport`` leads with it instead of "(no source gives a title)"."""
    pub = _publication("bare_marker_run.txt")
    assert pub["title"] == "Simple Techniques for Cross-Collection Relevance Feedback"
    store = str(tmp_path / "kg")
    runs = [str(RUNS / n) for n in ("annotated_run_example.txt", "bare_marker_run.txt")]
    assert main(["load", "--store", store, *runs]) == 0
    capsys.readouterr()
    assert main(["passport", pub["doi"], "--store", store]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == pub["title"]


def test_a_header_title_survives_the_round_trip_to_yaml() -> None:
    """``reprokg export … --format yaml`` writes the title back where the header had it."""
    import yaml

    from reprokg.loaders.ir_metadata.export import graph_to_yaml
    from reprokg.loaders.ir_metadata.loader import load_run_file

    doc, _run = load_run_file((RUNS / "bare_marker_run.txt").read_bytes(), "bare_marker_run.txt")
    out = yaml.safe_load(graph_to_yaml(doc.graph, doc.subject))
    back = out["research goal"]["publication"]
    assert back["title"] == _publication("bare_marker_run.txt")["title"]
