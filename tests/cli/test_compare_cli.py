"""``reprokg compare``: JSON shape, PRIMAD signatures from annotated runs, --save + named query.

The annotated runs are the ir_metadata example header (written by repro_eval) with one
component edited at a time, so the expected signature is known by construction.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reprokg.cli import main
from reprokg.core.resources import data_dir
from reprokg.measures import primad
from reprokg.measures.inputs import run_from_bytes

EXAMPLE = "ir_metadata/annotated_run_example.txt"


@pytest.fixture(scope="module")
def example(shared_data: Path) -> bytes:
    return (shared_data / EXAMPLE).read_bytes()


@pytest.fixture(scope="module")
def toy(shared_data: Path) -> Path:
    return shared_data / "trec" / "toy"


def variant(data: bytes, *edits: tuple[bytes, bytes]) -> bytes:
    for old, new in edits:
        assert old in data, old
        data = data.replace(old, new)
    return data


METHOD = (b"#     b: 0.4 ", b"#     b: 0.5 ")
PLATFORM = (b"#     ram: 32 GB ", b"#     ram: 64 GB ")
ACTOR = (b"#   team: h2oloo ", b"#   team: another team ")
IMPL = (b"#     commit: 9548cd6 ", b"#     commit: 1234abc ")
TAG = (b"# tag: bm25+rm3 ", b"# tag: other ")
VERSION = (b"# run-version: 1.0 ", b"# run-version: 2.0 ")
DATA = (b"ir_datasets: https://ir-datasets.com/nyt ", b"ir_datasets: https://ir-datasets.com/wapo ")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("edits", "signature"),
    [
        ((), "primad"),
        ((TAG, VERSION), "primad"),  # tag and run-version are not components
        ((METHOD,), "priMad"),  # parameter sweep (seed 002, Section 6.1)
        ((PLATFORM,), "Primad"),
        ((ACTOR, IMPL), "prImAd"),
        ((PLATFORM, ACTOR, IMPL, METHOD), "PrIMAd"),
        ((DATA,), "primaD"),
    ],
)
def test_primad_signature(example: bytes, edits, signature: str):
    a = run_from_bytes(example, "orig.txt")
    b = run_from_bytes(variant(example, *edits), "rep.txt")
    pc = primad.compare_runs(a.graph, a.subject, b.graph, b.subject)
    assert pc.signature == signature
    assert pc.collection_kind == ("cross-collection" if DATA in edits else "same-collection")


def test_study_kind_concepts_from_the_ontology():
    assert primad.study_kinds("priMad")[0].endswith("KindParameterSweep")
    assert any(k.endswith("KindGeneralization") for k in primad.study_kinds("PRIMAD"))
    assert primad.study_kinds("primad")[0].endswith("KindRepeat")


def test_pair_by_metadata(example: bytes):
    base = run_from_bytes(variant(example, (b"# tag: bm25+rm3 ", b"# tag: WCrobust04 ")), "b")
    adv = run_from_bytes(example, "a")  # names WCrobust04 as its baseline
    pairs = primad.pair_by_metadata([(adv.graph, adv.subject), (base.graph, base.subject)])
    assert pairs == [(1, 0)]


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_shape_same_collection(toy: Path, capsys):
    code, out, _ = run_cli(
        capsys,
        "compare",
        "--qrels", str(toy / "qrels.toy"),
        "--orig-base", str(toy / "run_a"),
        "--orig-adv", str(toy / "run_b"),
        "--rep-base", str(toy / "run_c"),
        "--rep-adv", str(toy / "run_b"),
        "--format", "json",
    )  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    assert doc["primad"] is None and doc["kind"] == "same-collection"
    m = doc["measures"]
    assert list(m)[:7] == ["ktu", "rbo", "rmse", "nrmse", "pvalue", "er", "dri"]  # repro_eval's
    # then the statistics (reprokg.stats), per side and measure, the corrections last
    assert list(m)[7:] == [
        "wilcoxon", "randomization", "original_mean", "reproduced_mean",
        "mean_diff", "mean_diff_low", "mean_diff_high", "dri_low", "dri_high",
        "dz", "dz_low", "dz_high", "gz", "gz_low", "gz_high",
        "pvalue_adjusted", "wilcoxon_adjusted", "randomization_adjusted",
    ]  # fmt: skip
    assert doc["options"]["correction"] == "holm" and "family" in doc["options"]
    assert set(m["dz"]) == {"baseline", "advanced"} and len(m["wilcoxon"]["baseline"]) == 58
    assert set(m["ktu"]) == {"baseline", "advanced"}
    assert "AP" in m["rmse"]["baseline"] and "nDCG@10" in m["rmse"]["advanced"]
    assert "P@10" in m["er"] and "P@10" in m["dri"]
    assert len(m["pvalue"]["baseline"]) == 58
    assert m["ktu"]["advanced"] == 1.0  # run_b against itself


def test_json_shape_cross_collection_and_baseline_only(toy: Path, shared_data: Path, capsys):
    code, out, _ = run_cli(
        capsys,
        "compare",
        "--qrels", str(toy / "qrels.toy"),
        "--orig-base", str(toy / "run_a"),
        "--rep-base", str(toy / "run_c"),
        "--qrels-rpl", str(shared_data / "trec" / "trec_eval_fixtures" / "qrels.test"),
        "--format", "json",
    )  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    assert doc["kind"] == "cross-collection"
    # no advanced runs: no ER/DRI; cross collection: no paired statistics, the t-test's
    # p-values corrected
    # p-values corrected; each run's mean score
    assert list(doc["measures"]) == [
        "pvalue", "original_mean", "reproduced_mean", "pvalue_adjusted"
    ]  # fmt: skip


def test_table_output(toy: Path, capsys):
    code, out, _ = run_cli(
        capsys,
        "compare",
        "--qrels", str(toy / "qrels.toy"),
        "--orig-base", str(toy / "run_a"),
        "--rep-base", str(toy / "run_a"),
        "--full",
    )  # fmt: skip
    assert code == 0
    assert "KTU      baseline 1.0000" in out and "\nAP " in out


def test_bad_run_is_a_clean_error(tmp_path: Path, toy: Path, capsys):
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 doc1 1 x tag\n")
    code, out, err = run_cli(
        capsys, "compare", "--qrels", str(toy / "qrels.toy"),
        "--orig-base", str(bad), "--rep-base", str(toy / "run_a"),
    )  # fmt: skip
    assert code == 2 and "Traceback" not in err
    assert "bad.run:1" in err and "score" in err


def test_cross_collection_headers_need_qrels_rpl(example: bytes, toy: Path, tmp_path, capsys):
    (tmp_path / "orig.txt").write_bytes(example)
    (tmp_path / "rep.txt").write_bytes(variant(example, DATA))
    code, _, err = run_cli(
        capsys, "compare", "--qrels", str(toy / "qrels.toy"),
        "--orig-base", str(tmp_path / "orig.txt"), "--rep-base", str(tmp_path / "rep.txt"),
    )  # fmt: skip
    assert code == 2 and "--qrels-rpl" in err


@pytest.mark.slow
def test_save_and_find_by_doi(example: bytes, toy: Path, tmp_path: Path, capsys):
    from reprokg.sparql import named as named_queries
    from reprokg.store import open_store

    (tmp_path / "orig.txt").write_bytes(example)
    (tmp_path / "rep.txt").write_bytes(variant(example, METHOD, TAG))
    store_dir = tmp_path / "store"
    code, out, err = run_cli(
        capsys, "compare", "--qrels", str(toy / "qrels.toy"),
        "--orig-base", str(tmp_path / "orig.txt"), "--rep-base", str(tmp_path / "rep.txt"),
        "--format", "json", "--save", "--store", str(store_dir),
    )  # fmt: skip
    assert code == 0, err
    doc = json.loads(out)
    assert doc["primad"] == "priMad" and doc["iri"].startswith("https://w3id.org/reprokg/id/")
    with open_store(store_dir, read_only=True) as store:
        res = named_queries.run(
            store, "reproductions-of-doi", {"doi": "10.1007/978-3-030-15712-8_26"}
        )
        rows = list(res.dicts())
        sigs = {str(r["signature"]) for r in rows if "signature" in r}
        assert sigs == {"priMad"}
        assert any(str(r.get("comparison")) == doc["iri"] for r in rows)
        # the runs' reported measures (map, P_10) are stored as scores: find-baselines
        # ranks them; expected values from ir-measures itself on the same files
        import ir_measures

        qrels = list(ir_measures.read_trec_qrels(str(toy / "qrels.toy")))
        lines = [ln for ln in example.decode().splitlines() if not ln.startswith("#")]
        run = list(ir_measures.read_trec_run("\n".join(lines) + "\n"))
        expected = ir_measures.calc_aggregate([ir_measures.AP], qrels, run)[ir_measures.AP]
        res = named_queries.run(
            store, "find-baselines", {"collection": "https://ir-datasets.com/nyt", "measure": "map"}
        )
        scores = [float(r["score"]) for r in res.dicts() if "score" in r]
        assert scores and all(abs(x - expected) < 1e-12 for x in scores)
        # each score is on the leaderboard of its measure on the collection the run header
        # names (rk:collection of its test collection), not on another collection's
        boards = store.query(
            "PREFIX rk: <https://w3id.org/reprokg/ontology#> "
            "SELECT ?m ?header WHERE { ?run rk:reportedScore ?v . ?v rk:onLeaderboard ?b . "
            "?b rk:leaderboardCollection ?c ; rk:leaderboardMeasure ?m . "
            "?run rk:data/rk:testCollection/rk:collection ?header }"
        )
        rows = list(boards.dicts())
        assert {str(r["m"]) for r in rows} == {"map", "P_10"}  # the header's reported measures
        found = store.query(
            "PREFIX rk: <https://w3id.org/reprokg/ontology#> "
            "ASK { ?v rk:onLeaderboard ?b . ?b rk:leaderboardCollection ?c . "
            "?run rk:reportedScore ?v ; rk:data/rk:testCollection/rk:collection ?h . "
            "FILTER(?c != ?h) }"
        )
        assert found.value is False
        assert not list(
            named_queries.run(
                store,
                "find-baselines",
                {"collection": "https://ir-datasets.com/robust04", "measure": "map"},
            ).dicts()
        )
        kinds = store.query(
            "PREFIX rk: <https://w3id.org/reprokg/ontology#> "
            "SELECT ?g ?k WHERE { GRAPH ?g { ?g rk:documentKind ?k } }"
        )
        by_kind: dict[str, list[str]] = {}
        for r in kinds.dicts():
            by_kind.setdefault(str(r["k"]), []).append(str(r["g"]))
    assert len(by_kind["run"]) == 2 and len(by_kind["qrels"]) == 1
    # the same comparison from the stored documents, by id (sha256 / doc/<sha> / IRI)
    runs = sorted(by_kind["run"])
    code, out2, err = run_cli(
        capsys, "compare", "--store", str(store_dir), "--format", "json",
        "--qrels", by_kind["qrels"][0].rsplit("/", 1)[-1],
        "--orig-base", runs[0], "--rep-base", "doc/" + runs[1].rsplit("/", 1)[-1],
    )  # fmt: skip
    assert code == 0, err
    again = json.loads(out2)
    assert again["measures"] == doc["measures"] and again["primad"] == "priMad"


@pytest.mark.slow
def test_the_command_exits_quickly_with_its_whole_output(toy: Path, tmp_path: Path, capsys):
    """``reprokg compare`` as a process skips Python's teardown when it holds no store;
    its output must be complete and equal to main()'s, and --save (a store to close) must
    still end the normal way, its document stored."""
    import subprocess
    import sys

    args = ["compare", "--qrels", str(toy / "qrels.toy"), "--orig-base", str(toy / "run_a")]
    args += ["--rep-base", str(toy / "run_c"), "--format", "json"]
    code, expected, _ = run_cli(capsys, *args)
    proc = subprocess.run([sys.executable, "-m", "reprokg", *args], capture_output=True)
    assert proc.returncode == code == 0
    assert json.loads(proc.stdout) == json.loads(expected)
    store = tmp_path / "kg"
    saved = subprocess.run(
        [sys.executable, "-m", "reprokg", *args, "--save", "--store", str(store)],
        capture_output=True,
        text=True,
    )
    assert saved.returncode == 0, saved.stderr
    from reprokg.store import open_store

    with open_store(store, read_only=True) as s:
        assert any(True for _ in s.documents())


@pytest.fixture(scope="module")
def large_runs(shared_data: Path, tmp_path_factory) -> dict[str, Path]:
    """Four 50-topic x 1000-document runs over the real core17 qrels: large enough that
    the command reads the advanced runs and evaluates three runs in forked children."""
    from tests.measures.test_measures_repro_eval import write_run

    d = tmp_path_factory.mktemp("large")
    q17 = shared_data / "trec" / "qrels" / "core17.txt"
    runs = {r: write_run(q17, d / r, seed, 50, 1000) for seed, r in enumerate(RUN_ROLES, 11)}
    return {"qrels": q17, **runs}


RUN_ROLES = ("--orig-base", "--rep-base", "--orig-adv", "--rep-adv")


def _half_lost(run: Path, out: Path, topics: int) -> Path:
    """``run`` with every other document of its first ``topics`` topics renamed to an
    unjudged id: those topics' scores drop, the others' stay (a partly failed reproduction)."""
    lines, seen = [], []
    for line in run.read_text().splitlines():
        if not line.strip():
            continue
        t, q0, doc, *rest = line.split()
        if t not in seen:
            seen.append(t)
            rank = 0
        if len(seen) <= topics and rank % 2 == 0:
            doc = "lost-" + doc
        rank += 1
        lines.append(" ".join([t, q0, doc, *rest]))
    out.write_text("\n".join(lines) + "\n")
    return out


@pytest.mark.slow
@pytest.mark.parametrize("method", ["BY", "hommel"])
def test_corrections_equal_r_p_adjust_on_50_topics(
    large_runs: dict, tmp_path: Path, capsys, method: str
) -> None:
    """On 50-topic runs, 8 of whose topics lost half their documents in the reproduction
    (raw p-values from ~0 to 1, corrected ones below 1, unlike the 3-topic toy's), each
    test's corrected p-values are R's ``p.adjust`` (Rscript) of the printed raw ones over
    the family of every measure, undefined ones as NA."""
    import shutil

    from tests.conftest import need
    from tests.stats.conftest import run_r

    rscript = shutil.which("Rscript")
    need(rscript is not None, "Rscript is not installed")
    orig = large_runs["--orig-base"]
    rep = _half_lost(orig, tmp_path / "rep", 8)
    args = ["compare", "--qrels", str(large_runs["qrels"]), "--orig-base", str(orig)]
    args += ["--rep-base", str(rep), "--format", "json", "--correction", method]
    code, out, _ = run_cli(capsys, *args)
    assert code == 0
    m = json.loads(out)["measures"]
    for test in ("wilcoxon", "randomization"):
        flat = [(s, e, p) for s, ps in m[test].items() for e, p in ps.items()]
        raw = [p for _, _, p in flat]
        values = ",".join("NA" if p is None else repr(float(p)) for p in raw)
        ref = run_r(str(rscript), f"cat(format(p.adjust(c({values}), '{method}'), digits = 17))")
        assert sum(r < 0.5 for r in ref) > 5  # a family the correction moves, not all 1
        for (s, e, p), r in zip(flat, ref, strict=True):
            got = m[f"{test}_adjusted"][s][e]
            if p is None:
                assert got is None, (test, s, e)
            else:
                assert got == pytest.approx(r, abs=1e-12), (test, s, e)


def _process(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "reprokg", *args], capture_output=True, text=True, timeout=300
    )


@pytest.mark.slow
def test_the_command_equals_the_serial_comparison(large_runs: dict, capsys, monkeypatch):
    """The process reads and evaluates in forked children (core/forked) when it can; its
    output must be what main() gives with every run read and evaluated in one process."""
    from reprokg.measures import compare_refs as compare_cli
    from reprokg.measures import comparison

    assert sum(large_runs[r].stat().st_size for r in RUN_ROLES[2:]) >= compare_cli.CHILD_MIN_BYTES
    monkeypatch.setattr(compare_cli, "CHILD_MIN_BYTES", 10**15)
    monkeypatch.setattr(comparison, "CHILD_MIN_LINES", 10**15)
    args = ["compare", "--qrels", str(large_runs["qrels"]), "--format", "json"]
    for role in RUN_ROLES:
        args += [role, str(large_runs[role])]
    code, serial, _ = run_cli(capsys, *args)
    proc = _process(*args)
    assert code == proc.returncode == 0, proc.stderr
    assert proc.stdout == serial


@pytest.mark.slow
def test_the_command_equals_the_serial_comparison_with_headers(
    large_runs: dict, shared_data: Path, tmp_path: Path, capsys, monkeypatch
):
    """Runs with an ir_metadata header (the real example's: PRIMAD, reported measures)
    keep their rankings when the child sends them back, since their reported measures are
    evaluated on them; output as serial as above."""
    from reprokg.measures import compare_refs as compare_cli
    from reprokg.measures import comparison

    text = (shared_data / "ir_metadata" / "annotated_run_example.txt").read_text()
    header = "".join(line + "\n" for line in text.splitlines() if line.startswith("#"))
    args = ["compare", "--qrels", str(large_runs["qrels"]), "--format", "json"]
    for role in RUN_ROLES:
        annotated = tmp_path / role.strip("-")
        annotated.write_text(header + large_runs[role].read_text())
        args += [role, str(annotated)]
    monkeypatch.setattr(compare_cli, "CHILD_MIN_BYTES", 10**15)
    monkeypatch.setattr(comparison, "CHILD_MIN_LINES", 10**15)
    code, serial, _ = run_cli(capsys, *args)
    proc = _process(*args)
    assert code == proc.returncode == 0, proc.stderr
    assert proc.stdout == serial
    assert json.loads(serial)["primad"] is not None  # the headers were read


@pytest.mark.slow
def test_a_bad_line_in_a_run_read_by_the_child_is_reported(large_runs: dict, tmp_path: Path):
    bad = tmp_path / "orig_adv.run"
    text = large_runs["--orig-adv"].read_text()
    bad.write_text(text + "999 Q0 doc 1 not-a-score run\n")
    line = text.count("\n") + 1
    args = ["compare", "--qrels", str(large_runs["qrels"])]
    for role in RUN_ROLES:
        args += [role, str(bad if role == "--orig-adv" else large_runs[role])]
    proc = _process(*args)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"orig_adv.run:{line}" in proc.stderr and "score" in proc.stderr


def test_correction_option_and_corrected_values(toy: Path, capsys) -> None:
    """--correction picks p.adjust's method for the family of every measure and side: the
    corrected values are the raw ones adjusted together, checked against statsmodels'
    ``multipletests(method="fdr_by")`` (R's p.adjust "BY") on the printed raw p-values
    (undefined ones left out of the family, as p.adjust drops NA), and the table names the
    correction."""
    from statsmodels.stats.multitest import multipletests

    args = [
        "compare",
        "--qrels", str(toy / "qrels.toy"),
        "--orig-base", str(toy / "run_a"),
        "--rep-base", str(toy / "run_c"),
        "--orig-adv", str(toy / "run_b"),
        "--rep-adv", str(toy / "run_a"),
    ]  # fmt: skip
    code, out, _ = run_cli(capsys, *args, "--format", "json", "--correction", "BY")
    assert code == 0
    doc = json.loads(out)
    assert doc["options"]["correction"] == "BY"
    m = doc["measures"]
    flat = [(s, e, p) for s, ps in m["wilcoxon"].items() for e, p in ps.items()]
    defined = [(s, e, p) for s, e, p in flat if p is not None]
    assert len(defined) > 10 and len({p for _, _, p in defined}) > 2
    expected = multipletests([p for _, _, p in defined], method="fdr_by")[1]
    for (s, e, _), ref in zip(defined, expected, strict=True):
        assert m["wilcoxon_adjusted"][s][e] == pytest.approx(ref, abs=1e-12), (s, e)
    assert all(m["wilcoxon_adjusted"][s][e] is None for s, e, p in flat if p is None)
    code, table, _ = run_cli(capsys, *args, "--correction", "fdr", "--full")
    assert code == 0 and "corrected by BH" in table


# --------------------------------------------------------------------------- the summary

TOUR = data_dir("examples") / "runs"
TOUR_ARGS = [
    "compare",
    "--qrels", str(TOUR / "qrels.toy"),
    "--orig-base", str(TOUR / "annotated_run_example.txt"),
    "--rep-base", str(TOUR / "reproduced_run.txt"),
]  # fmt: skip


def _mean_ap(name: str) -> float:
    """The run's mean AP over the toy qrels, by ir_measures itself (repro_eval's ARP)."""
    import ir_measures

    lines = [ln.split() for ln in (TOUR / name).read_text().splitlines() if ln[:1] != "#"]
    run = [ir_measures.ScoredDoc(f[0], f[2], float(f[4])) for f in lines if len(f) == 6]
    qrels = [
        ir_measures.Qrel(f[0], f[2], int(f[3]))
        for f in (ln.split() for ln in (TOUR / "qrels.toy").read_text().splitlines())
    ]
    return ir_measures.calc_aggregate([ir_measures.AP], qrels, run)[ir_measures.AP]


def test_the_answer_comes_first(capsys) -> None:
    """README step 5: the runs, PRIMAD in words, the rule's measure (AP, each run's mean as
    ir_measures computes it) and the verdict with its reason within the first 15 lines; the
    58-measure tables only with --full, after the summary."""
    code, out, _ = run_cli(capsys, *TOUR_ARGS, "--rule", "arp-within-5pct")
    assert code == 0
    text = out.split("\n\n")[0]  # the summary: then the warnings, the pointer to --full
    head = text.splitlines()
    assert len(head) <= 15
    assert "verdict:" in text and "insufficient-evidence (rule arp-within-5pct)" in text
    assert "needs at least 25" in text  # the reason: 3 topics
    assert "platform and actor changed" in text  # PrimAd in words
    (ap,) = [ln for ln in head if ln.startswith("AP (baseline)")]
    cells = ap.split()
    assert float(cells[2]) == pytest.approx(_mean_ap("annotated_run_example.txt"), abs=5e-5)
    assert float(cells[3]) == pytest.approx(_mean_ap("reproduced_run.txt"), abs=5e-5)
    assert "P@1000" not in out and "statistics:" not in out and len(out.splitlines()) < 20
    code, full, _ = run_cli(capsys, *TOUR_ARGS, "--rule", "arp-within-5pct", "--full")
    assert code == 0 and full.startswith(text)
    assert "P@1000" in full and "statistics: original - reproduced" in full


def test_json_summary_first_and_headline_measures(capsys) -> None:
    """The JSON leads with ``summary`` (the existing keys after it); its headline measures
    are the rule's (AP), those chosen with --measure, else the declared default."""
    from reprokg.measures.headline import HEADLINE_MEASURES

    code, out, _ = run_cli(capsys, *TOUR_ARGS, "--rule", "arp-within-5pct", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and list(doc)[:6] == [
        "summary",
        "primad",
        "kind",
        "measures",
        "warnings",
        "options",
    ]
    s = doc["summary"]
    assert s["headline_measures"] == ["AP"] and s["verdict"]["outcome"] == "insufficient-evidence"
    assert s["headline"][0]["original"] == doc["measures"]["original_mean"]["baseline"]["AP"]
    code, out, _ = run_cli(
        capsys, *TOUR_ARGS, "--measure", "nDCG@10", "--measure", "RR", "--format", "json"
    )
    assert json.loads(out)["summary"]["headline_measures"] == ["nDCG@10", "RR"]
    # no rule, and the toy qrels' runs without headers report nothing: the default
    code, out, _ = run_cli(
        capsys, "compare", "--qrels", str(TOUR / "qrels.toy"), "--orig-base",
        str(TOUR / "run_a"), "--rep-base", str(TOUR / "run_a"), "--format", "json",
    )  # fmt: skip
    assert json.loads(out)["summary"]["headline_measures"] == list(HEADLINE_MEASURES)
    assert main([*TOUR_ARGS, "--measure", "MAP@7"]) == 2
    assert "--measure MAP@7: not among" in capsys.readouterr().err


def test_primad_in_words() -> None:
    """Upper case is a changed component (docs/comparisons.md, ir_metadata's signature)."""
    from reprokg.measures.headline import PRIMAD_WORDS, primad_words

    assert primad_words("PrimAd") == (
        "platform and actor changed; research goal, implementation, method and data unchanged"
    )
    assert primad_words("priMad").startswith("method changed;")
    assert primad_words("primad") == "nothing changed (every component the same)"
    assert primad_words(None).startswith("not known")
    assert tuple(key for _l, key, _p in primad.COMPONENTS) == PRIMAD_WORDS
