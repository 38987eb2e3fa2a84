"""Verdicts that cannot be gamed (issue 39): a minimum of evidence, one verdict per
comparison, and a paper judged only by a run that is its own.

Each test is named after a finding of the issue and runs on real data: the toy runs of a
published reproducibility tutorial (trec/toy, 3 topics), the annotated example run of
examples/runs (ir_metadata header of an ECIR 2019 paper; its run lines are trec/toy's
run_a), and a ReScience C replication with the ML Reproducibility Challenge header naming
its original paper (../shared/data/surveys/rescience).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest
import yaml

import reprokg
from reprokg.cli import main
from reprokg.core.errors import LoadError
from reprokg.evidence import verdicts
from reprokg.store import open_store

RK = "https://w3id.org/reprokg/ontology#"
EXAMPLES = Path(reprokg.__file__).parent / "examples" / "runs"
#: the paper the annotated example run's header names (research goal.publication.doi)
EXAMPLE_PAPER = "https://doi.org/10.1007/978-3-030-15712-8_26"


@pytest.fixture
def toy(shared_data: Path) -> Path:
    return shared_data / "trec" / "toy"


def _run(*args: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(args)) == 0
    return json.loads(out.getvalue())


def _toy_rules(directory: Path, min_topics: int = 3) -> str:
    """The presets redeclared with ``min_topics`` (the toy has 3 topics)."""
    rules = {}
    for name, rule in verdicts.presets().items():
        body = rule.to_json()
        body["min_topics"] = min_topics
        rules[name] = body
    path = directory / "toy-rules.yaml"
    path.write_text(json.dumps({"rules": rules}))
    return str(path)


def _one_topic(toy: Path, directory: Path, topic: str = "1") -> dict[str, Path]:
    """The toy qrels and runs restricted to one topic."""
    out = {}
    for name in ("qrels.toy", "run_a", "run_b", "run_c"):
        lines = (toy / name).read_text().splitlines()
        kept = [ln for ln in lines if ln.split()[:1] == [topic]]
        assert kept and len(kept) < len(lines)
        out[name] = directory / name
        out[name].write_text("\n".join(kept) + "\n")
    return out


@pytest.mark.slow
def test_one_topic_comparison_is_insufficient_evidence_under_every_preset(
    toy: Path, tmp_path: Path
) -> None:
    """Finding: an exact reproduction on one topic was "reproduced" under three presets.
    Every preset now says *insufficient evidence* (stored as inconclusive, with why), and
    the comparison's own warnings travel into the verdicts and their documents."""
    one = _one_topic(toy, tmp_path)
    presets = sorted(verdicts.presets())
    rules = [a for name in presets for a in ("--rule", name)]
    store = tmp_path / "s"
    out = _run("compare", "--qrels", str(one["qrels.toy"]), "--orig-base", str(one["run_a"]),
               "--orig-adv", str(one["run_b"]), "--rep-base", str(one["run_a"]),
               "--rep-adv", str(one["run_b"]), "--measures", "AP,P@5", "--format", "json",
               "--save", "--store", str(store), *rules)  # fmt: skip
    # the conditions themselves hold: an exact reproduction (ER 1, equal baselines)
    assert out["measures"]["er"]["AP"] == pytest.approx(1.0)
    got = {v["rule"]["name"]: v for v in out["verdicts"]}
    assert sorted(got) == presets
    for name, v in got.items():
        assert v["outcome"] == "insufficient-evidence", name
        assert v["evidence"]["topics"] == dict.fromkeys(
            ("orig_base", "orig_adv", "rep_base", "rep_adv"), 1
        )
        assert "1 topic(s)" in v["insufficient_evidence"][0]
        assert "at least 25" in v["insufficient_evidence"][0]
        assert v["warnings"] == out["warnings"]
    assert out["warnings"], "the comparison warns (no PRIMAD signature without headers)"
    assert out["verdict"]["outcome"] == "insufficient-evidence"
    assert out["verdict"]["warnings"] == out["warnings"]
    with open_store(store, read_only=True) as s:
        res = s.query(
            f"PREFIX rk: <{RK}> SELECT ?a ?o ?w ?why WHERE {{ ?a rk:assessmentMethod "
            "rk:ComputedAcceptanceRule ; rk:outcome ?o ; rk:comparisonWarning ?w ; "
            "rk:evidenceShortfall ?why }"
        )
        rows = list(res.dicts())
    assert {str(r["o"]) for r in rows} == {RK + "OutcomeInconclusive"}
    assert {str(r["w"]) for r in rows} == set(out["warnings"])
    # every rule's assessment and the comparison's one verdict
    assert len({r["a"] for r in rows}) == len(presets) + 1


def test_one_topic_is_enough_only_for_a_rule_that_says_so(toy: Path, tmp_path: Path) -> None:
    """The minimum is the rule's declaration: a rule of one's own asking for 1 topic decides
    (its declaration is part of the rule stored with the verdict)."""
    one = _one_topic(toy, tmp_path)
    out = _run("compare", "--qrels", str(one["qrels.toy"]), "--orig-base", str(one["run_a"]),
               "--orig-adv", str(one["run_b"]), "--rep-base", str(one["run_a"]),
               "--rep-adv", str(one["run_b"]), "--measures", "AP", "--format", "json",
               "--rules", _toy_rules(tmp_path, 1), "--rule", "er-within-10pct")  # fmt: skip
    (v,) = out["verdicts"]
    assert v["outcome"] == "reproduced" and v["rule"]["min_topics"] == 1


def test_baseline_only_rule_is_declared_and_disagreeing_rules_give_one_assessment(
    toy: Path, tmp_path: Path
) -> None:
    """Finding: arp-within-5pct checks only the baseline; it said "reproduced" where
    er-within-10pct said "not reproduced", and the paper's passport counted two votes. The
    rule declares ``judges: baseline``; the comparison gets one verdict (reproduced only if
    every rule says so), and the paper exactly one computed assessment, not reproduced."""
    presets = Path(verdicts.__file__).parent / "rules" / "presets.yaml"
    declared = yaml.safe_load(presets.read_text())
    assert declared["rules"]["arp-within-5pct"]["judges"] == "baseline"
    assert declared["rules"]["er-within-10pct"]["judges"] == "improvement"
    assert all("min_topics" in r and "judges" in r for r in declared["rules"].values())
    # the original baseline: the annotated example (its header names the ECIR 2019 paper and
    # reports map, i.e. AP); its run lines are the toy's run_a, reproduced exactly
    store = tmp_path / "s"
    out = _run("compare", "--qrels", str(toy / "qrels.toy"),
               "--orig-base", str(EXAMPLES / "annotated_run_example.txt"),
               "--orig-adv", str(toy / "run_b"), "--rep-base", str(toy / "run_a"),
               "--rep-adv", str(toy / "run_c"), "--measures", "AP", "--format", "json",
               "--save", "--store", str(store), "--rules", _toy_rules(tmp_path),
               "--rule", "arp-within-5pct", "--rule", "er-within-10pct")  # fmt: skip
    assert [v["outcome"] for v in out["verdicts"]] == ["reproduced", "not-reproduced"]
    whole = out["verdict"]
    assert whole["outcome"] == "partially-reproduced"
    assert whole["attached_to_paper"] is True and whole["work"] == EXAMPLE_PAPER
    assert [r["name"] for r in whole["rules"]] == ["arp-within-5pct", "er-within-10pct"]
    with open_store(store, read_only=True) as s:
        res = s.query(
            f"PREFIX rk: <{RK}> SELECT ?a ?o WHERE {{ ?a rk:assessedWork <{EXAMPLE_PAPER}> ; "
            "rk:assessmentMethod rk:ComputedAcceptanceRule ; rk:outcome ?o }"
        )
        rows = list(res.dicts())
    assert [str(r["o"]) for r in rows] == [RK + "OutcomePartiallyReproduced"]
    assert str(rows[0]["a"]) == whole["assessment"]


def test_a_rule_declaring_baseline_that_reads_the_improvement_is_refused() -> None:
    with pytest.raises(LoadError, match=r"rules.r.judges: declared baseline.*improvement"):
        verdicts.parse_rules(
            {"rules": {"r": {"judges": "baseline",
                             "conditions": [{"measure": "er", "at": "AP", "within": [0.9, 1.1]}]}}},
            "x",
        )  # fmt: skip
    with pytest.raises(LoadError, match="compares at least 4 runs"):
        verdicts.parse_rules(
            {"rules": {"r": {"min_runs": 2,
                             "conditions": [{"measure": "er", "at": "AP", "within": [0.9, 1.1]}]}}},
            "x",
        )  # fmt: skip


@pytest.mark.parametrize(
    ("outcomes", "expected"),
    [
        (["reproduced", "reproduced"], "reproduced"),
        (["reproduced", "not-reproduced"], "partially-reproduced"),
        (["not-reproduced", "insufficient-evidence"], "not-reproduced"),
        (["reproduced", "insufficient-evidence"], "insufficient-evidence"),
        (["reproduced", "inconclusive"], "inconclusive"),
    ],
)
def test_rules_combine_conservatively(outcomes: list[str], expected: str) -> None:
    assert verdicts.combine(outcomes) == expected


BIB = "surveys/rescience/journal_bib/_bibliography/published.bib"
MLRC = "surveys/rescience/mlrc_metadata"


@pytest.mark.slow
def test_foreign_doi_run_header_attaches_no_verdict_to_that_papers_passport(
    shared_data: Path, toy: Path, tmp_path: Path
) -> None:
    """Finding: a toy IR run whose header names the DOI of an ML paper attached its computed
    verdicts to that paper, whose passport then mixed them with the journal's review. The
    header names the paper but neither reports the measure the rules read nor names the
    comparison's collection: the verdict stays on the run, and the passport is unchanged."""
    from reprokg.core.namespaces import RK as RKNS
    from reprokg.ingest import ingest
    from reprokg.loaders import mlrc, rescience

    headers = sorted((shared_data / MLRC).glob("*/*/journal/metadata.yaml"))
    failed = next(h for h in headers if re.search(r'title:\s*"?\[¬Re\]', h.read_text("utf-8")))
    (header,) = mlrc.load(failed.read_bytes(), str(failed))
    report, original = next(iter(header.graph.subject_objects(RKNS.reproduces)))
    entries = (shared_data / BIB).read_text("utf-8").split("\n@")
    doi = str(report).removeprefix("https://doi.org/")
    entry = next(e for e in entries if doi in e.lower())
    bib = rescience.load(("@" + entry.lstrip("@")).encode(), "published.bib")
    store = tmp_path / "s"
    with open_store(store) as s:
        assert ingest(s, [header, *bib]).count("rejected") == 0
    paper = str(original)
    run = tmp_path / "toy_with_doi.txt"
    run.write_text(
        "# ir_metadata.start\n# tag: toy-ir\n# research goal:\n#   publication:\n"
        f"#     doi: {paper.removeprefix('https://doi.org/')}\n# ir_metadata.end\n"
        + (toy / "run_a").read_text()
    )
    out = _run("compare", "--qrels", str(toy / "qrels.toy"), "--orig-base", str(run),
               "--orig-adv", str(toy / "run_b"), "--rep-base", str(toy / "run_a"),
               "--rep-adv", str(toy / "run_b"), "--measures", "AP", "--format", "json",
               "--save", "--store", str(store), "--rules", _toy_rules(tmp_path),
               "--rule", "arp-within-5pct", "--rule", "er-within-10pct",
               "--rule", "rmse-ktu")  # fmt: skip
    assert [v["outcome"] for v in out["verdicts"]] == ["reproduced"] * 3
    whole = out["verdict"]
    assert whole["paper"] == paper and whole["attached_to_paper"] is False
    assert whole["work"] != paper and "reports neither" in whole["reason"]
    passport = _run("passport", paper, "--store", str(store), "--format", "json")
    assert passport["verdict_summary"]["outcomes"] == {"not-reproduced": 1}
    assert [v["as_written"] for v in passport["verdicts"]] == ["[¬Re]"]
    # the paper-verdicts rows: the journal's review only
    with open_store(store, read_only=True) as s:
        res = s.query(
            f"PREFIX rk: <{RK}> SELECT ?a WHERE {{ ?a rk:assessedWork <{paper}> ; "
            "rk:assessmentMethod rk:ComputedAcceptanceRule }"
        )
        assert list(res.dicts()) == []


def test_a_verdict_without_its_evidence_counts_is_insufficient_evidence() -> None:
    """``apply`` without the comparison's topics and runs cannot tell a toy from a test
    collection: never reproduced, whatever the conditions say."""
    rule = verdicts.presets()["er-within-10pct"]
    v = verdicts.apply(rule, {"er": {"AP": 1.0}}, {}, comparison="c", work="w")
    assert v.results[0].held is True
    assert v.outcome == "insufficient-evidence" and "not known" in v.shortfall[0]
