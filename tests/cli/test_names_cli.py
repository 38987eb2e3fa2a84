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
    assert "study    independent repeat" in out


def test_a_comparison_without_headers_is_named_by_its_run_lines(capsys) -> None:
    """run_a has no header: its run lines' tag (``ipm-repro``, column 6 of every line)."""
    args = ["compare", "--qrels", str(RUNS / "qrels.toy"), "--measures", "AP"]
    args += ["--orig-base", str(RUNS / "run_a"), "--rep-base", str(RUNS / "run_a")]
    assert main(args) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "ipm-repro vs ipm-repro"
    assert "study    -" in out
